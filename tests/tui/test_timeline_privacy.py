"""docs/privacy.md against the timeline's rebuild: turning plan reading off
while a past session's transcript is being read keeps none of what that read found."""

from __future__ import annotations

import asyncio
import threading
import time
from datetime import UTC, datetime

import pytest
from app_transcripts import ClaudeTranscript, until

from planwatch.core import history
from planwatch.core.settings import Settings
from planwatch.tui.app import AppOptions, make_app
from planwatch.tui.messages import SettingsSaved

MARKER = "ZQX-REBUILD-PRIVACY-2718"
CALLS = 40
STEPS = 20


def details(app) -> str:  # type: ignore[no-untyped-def]
    return str(app.screen.query_one("#details-body").render())


def _history_running(app) -> bool:  # type: ignore[no-untyped-def]
    return any(worker.group == "history" and not worker.is_finished for worker in app.workers)


def _long_past_session(claude_dir) -> ClaudeTranscript:  # type: ignore[no-untyped-def]
    past = ClaudeTranscript(claude_dir, "/home/dev/api", at=datetime(2026, 11, 28, 14, 0, tzinfo=UTC))
    past.custom_title("A long day")
    for n in range(CALLS):
        past.todo_write([(f"{MARKER} step {i}", "completed" if i < n % STEPS else "pending") for i in range(STEPS)])
    return past


class HeldRead:
    """The real transcript replay of the timeline's rebuild, held once it has read the
    whole transcript (the plan text is in memory) until the test lets go: reading is
    turned off while the read is in flight, whatever the machine's speed."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.read = threading.Event()
        self.go = threading.Event()
        self.found: list[object] = []
        real = history.replay_history

        def held(*args, **kwargs):  # type: ignore[no-untyped-def]
            found = real(*args, **kwargs)
            self.found.append(found)
            self.read.set()
            self.go.wait(60)  # only bounds a failure: the test lets go first
            return found

        monkeypatch.setattr(history, "replay_history", held)


@pytest.mark.asyncio
async def test_plan_reading_turned_off_during_a_rebuild_keeps_nothing_it_read(isolated_env, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    past = _long_past_session(isolated_env.claude)
    held = HeldRead(monkeypatch)
    app = make_app(AppOptions(config_path=isolated_env.config))
    async with app.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: app.scan_done is not None and app.following, timeout=30.0, what="the scan")
        assert app.screen.selected_id == past.session_id
        await pilot.press("tab")
        await pilot.press("enter")  # the details panel: the rebuild starts
        await until(pilot, held.read.is_set, what="the rebuild to have read the transcript")
        assert held.found and held.found[0].changes  # the read found plan changes: they are in memory
        # Reading off while the transcript is read (the Settings screen's message).
        app.post_message(SettingsSaved(Settings(read_agent_plans=False)))
        await until(pilot, lambda: not app.reading, what="reading off")
        assert _history_running(app)  # the rebuild was still reading
        held.go.set()
        await until(pilot, lambda: not _history_running(app), timeout=60.0, what="the rebuild's end")
        await pilot.pause()
        # What the rebuild read is not kept: no timeline, no rebuild marked done.
        assert app.timelines.of(past.session_id) == []
        assert not app.timeline_rebuild(past.session_id).done
        assert app.timeline(past.session_id) == []
        assert MARKER not in details(app)

        # Its positive twin: reading on again rebuilds the timeline from the transcript.
        # Asked for at once, before the index has taken reading back on: the rebuild
        # waits for it rather than finding no changes.
        app.post_message(SettingsSaved(Settings(read_agent_plans=True)))
        await _yield_until(lambda: app.reading, "reading on")
        app.timeline(past.session_id)
        await until(pilot, lambda: app.timeline_rebuild(past.session_id).done, timeout=60.0, what="the rebuild")
        await until(pilot, lambda: MARKER in details(app) or "done" in details(app), what="the panel")
        assert any("done" in entry.what for entry in app.timeline(past.session_id))
        await pilot.press("q")


async def _yield_until(condition, what: str, timeout: float = 30.0) -> None:  # type: ignore[no-untyped-def]
    """Let the app's loop run until `condition` holds, without waiting for it to be idle
    (a zero-length yield each time: never a wait for a duration)."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0)
