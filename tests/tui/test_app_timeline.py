"""The details panel's timeline for a past session: rebuilt from the
transcript in a worker when the panel first shows the session, each change with the
time of the line that caused it, the changes seen live after it; memory only.

The app's test boots the whole app because its point is the app's: the transcript read
from disk in a worker, live following, the reading switch in the settings and the
rebuilt plan text never reaching the disk."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from app_transcripts import ClaudeTranscript, files_holding, until

from planwatch.core import paths
from planwatch.core.timeline import Rebuild, TimelineEntry
from planwatch.tui.app import AppOptions, make_app
from planwatch.tui.screens.settings import SettingsScreen
from planwatch.tui.widgets.details import timeline_parts

MARKER = "ZQX-TIMELINE-STEP-3141"


def details(app) -> str:  # type: ignore[no-untyped-def]
    return str(app.screen.query_one("#details-body").render())


@pytest.mark.asyncio
async def test_a_past_sessions_timeline_is_rebuilt_from_its_transcript(isolated_env) -> None:  # type: ignore[no-untyped-def]
    started = datetime(2026, 11, 28, 14, 0, tzinfo=UTC)
    past = ClaudeTranscript(isolated_env.claude, "/home/dev/api", at=started)
    past.custom_title("Last week's work")
    past.todo_write([(f"Read the {MARKER} code", "in_progress"), ("Write the fix", "pending")])  # 14:00:02-04
    past.todo_write([(f"Read the {MARKER} code", "completed"), ("Write the fix", "in_progress")])  # 14:00:06-08
    app = make_app(AppOptions(config_path=isolated_env.config))
    async with app.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: app.scan_done is not None and app.following, what="the scan")
        assert app.screen.selected_id == past.session_id
        await pilot.press("tab", "enter")  # the details panel
        await until(pilot, lambda: "from the transcript" in details(app), what="the rebuilt timeline")
        text = details(app)
        assert "changes seen while planwatch ran" not in text and "no changes yet" not in text
        # Each change at the time of the result line that made it, under its day.
        assert "  2026-11-28\n  14:00:04 0 → 2 steps; started: Working on Read the" in text
        assert "  14:00:08 0 → 1 done; started: Working on Write the fix" in text

        # A change seen live comes after the rebuilt ones.
        past.at = datetime.now(UTC)
        past.todo_write([(f"Read the {MARKER} code", "completed"), ("Write the fix", "completed")])
        await until(pilot, lambda: "1 → 2 done" in details(app), what="the live change")
        whats = [entry.what for entry in app.timeline(past.session_id)]
        assert len(whats) == 3 and whats[-1] == "1 → 2 done"

        # Reading turned off (Settings → Privacy): the timelines' plan text goes too.
        await pilot.press("comma")
        await until(pilot, lambda: isinstance(app.screen, SettingsScreen), what="the settings screen")
        await pilot.press("space", "ctrl+s")  # the focused privacy switch: off; save
        await until(pilot, lambda: not app.reading, what="reading off")
        assert app.timeline(past.session_id) == []
        await until(pilot, lambda: MARKER not in details(app) and "no changes yet" in details(app), what="the panel")
        await pilot.press("q")
    folders = (isolated_env.data, isolated_env.state, isolated_env.config.parent, isolated_env.store, paths.cache_dir())
    assert files_holding(MARKER, *folders) == []  # the rebuilt plan text never reached the disk


def _text(parts) -> str:  # type: ignore[no-untyped-def]
    return "".join(p if isinstance(p, str) else p[0] for p in parts)


def test_the_timeline_says_what_it_rebuilt_and_what_it_left_unread() -> None:
    day = datetime(2026, 11, 28, 14, 0, tzinfo=UTC)
    entries = [
        TimelineEntry(day, "0 → 1 steps"),
        TimelineEntry(None, "plan updated"),
        TimelineEntry(day + timedelta(days=1), "0 → 1 done"),
    ]
    assert _text(timeline_parts([], None)) == "\nTimeline (changes seen while planwatch ran)\n  no changes yet\n"
    assert "(reading the transcript…)" in _text(timeline_parts([], Rebuild()))
    assert "no plan changes in the transcript" in _text(timeline_parts([], Rebuild(done=True)))
    assert "only the last 64 MB of a longer transcript were read" in _text(timeline_parts([], Rebuild(True, "start")))
    assert "only the first 64 MB of a longer transcript were read" in _text(timeline_parts([], Rebuild(True, "end")))
    shown = _text(timeline_parts(entries, Rebuild(done=True)))
    assert shown.endswith(
        "  2026-11-28\n  14:00:00 0 → 1 steps\n  --:--:-- plan updated\n  2026-11-29\n  14:00:00 0 → 1 done\n"
    )
