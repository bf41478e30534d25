"""Transcript folders saved in Settings are used at once: the running app's
index looks in the new folders (a scan, watchers on them, rows appear) and drops the
sessions of folders no longer listed, without a restart. Real files, a real watchdog
observer, the real Settings screen under Pilot."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from app_transcripts import ClaudeTranscript, option_texts, until
from textual.widgets import OptionList, TextArea
from toasts import Toasts

from planwatch.core.settings import load_settings
from planwatch.tui.app import AppOptions, make_app
from planwatch.tui.screens.settings import SettingsScreen

pytestmark = pytest.mark.asyncio

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "transcripts"
CODEX_ROLLOUT = (
    FIXTURES / "codex/sessions/2026/11/30/rollout-2026-11-30T07-19-15-019ad3f1-7c2e-7b40-9a51-3e8d0c6f2b17.jsonl"
)

# Under load (four engineers' suites on two cores) a watcher's first event can take a while.
LIVE = 10.0


def titles(app: Any) -> list[str]:
    return option_texts(app.screen.query_one("#sessions", OptionList))


async def save_folders(app: Any, pilot: Any, text: str) -> None:
    """`,` opens Settings; the folders field gets `text`; ctrl+s saves and closes."""
    await pilot.press("comma")
    await until(pilot, lambda: isinstance(app.screen, SettingsScreen), what="the settings screen")
    app.screen.query_one("#transcript-roots", TextArea).text = text
    await pilot.press("ctrl+s")
    await until(pilot, lambda: not isinstance(app.screen, SettingsScreen), what="the save")


async def test_saved_transcript_folders_are_read_and_followed_without_a_restart(isolated_env) -> None:
    now = datetime.now(UTC)
    home = ClaudeTranscript(isolated_env.claude, "/home/dev/api", at=now - timedelta(hours=1))
    home.custom_title("At home").todo_write([("Split the router", "in_progress")])
    elsewhere = isolated_env.root / "elsewhere"
    away = ClaudeTranscript(elsewhere, "/home/dev/away", at=now - timedelta(minutes=10))
    away.custom_title("Away work").todo_write([("Pack the bags", "in_progress")])

    app = make_app(AppOptions(config_path=isolated_env.config))
    async with app.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: app.scan_done is not None and app.following, timeout=LIVE, what="the scan")
        assert app.entry(away.session_id) is None
        assert not any("Away work" in row for row in titles(app))

        await save_folders(app, pilot, str(elsewhere))
        assert load_settings(isolated_env.config).transcript_roots == [str(elsewhere)]
        await until(
            pilot, lambda: any("Away work" in row for row in titles(app)), timeout=LIVE, what="the new folder's row"
        )
        assert any("At home" in row for row in titles(app))  # the harness folders stay
        assert app.scan_done is not None and elsewhere in app.scan_done.roots_searched

        # The new folder is followed: a line appended there shows live.
        away.todo_write([("Pack the bags", "completed"), ("Catch the train", "in_progress")])
        await until(
            pilot,
            lambda: app.entry(away.session_id) is not None and app.entry(away.session_id).plan.counts() == (1, 2),
            timeout=LIVE,
            what="the append in the new folder",
        )
        # The harness folders are still followed by the new watcher.
        home.todo_write([("Split the router", "completed")])
        await until(
            pilot,
            lambda: app.entry(home.session_id).plan.counts() == (1, 1),  # type: ignore[union-attr]
            timeout=LIVE,
            what="the append at home",
        )

        # A folder taken out of the list takes its sessions with it.
        await save_folders(app, pilot, "")
        await until(
            pilot, lambda: app.entry(away.session_id) is None, timeout=LIVE, what="the removed folder's row to go"
        )
        assert not any("Away work" in row for row in titles(app))
        assert any("At home" in row for row in titles(app))
        await pilot.press("q")


async def test_a_harness_folder_created_while_running_has_its_sessions_shown(isolated_env) -> None:
    """Codex installed after planwatch started: its sessions folder appears later and
    its rollouts show without a restart (the follower watches a missing root once it
    exists)."""
    home = ClaudeTranscript(isolated_env.claude, "/home/dev/api")
    home.custom_title("At home").todo_write([("Split the router", "in_progress")])
    app = make_app(AppOptions(config_path=isolated_env.config))
    async with app.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: app.scan_done is not None and app.following, timeout=LIVE, what="the scan")
        assert not (isolated_env.codex / "sessions").exists()
        rollout = isolated_env.codex / CODEX_ROLLOUT.relative_to(FIXTURES / "codex")
        rollout.parent.mkdir(parents=True)
        shutil.copy2(CODEX_ROLLOUT, rollout)
        await until(
            pilot,
            lambda: any("Add cursor pagination" in row for row in titles(app)),
            timeout=LIVE,
            what="the new harness's row",
        )
        assert any("At home" in row for row in titles(app))
        await pilot.press("q")


async def test_folders_given_on_the_command_line_in_place_of_the_defaults_stay(isolated_env) -> None:
    """`planwatch --demo` (and tests) hand the app its folders: a save changes the
    settings file, not the folders that app looks in."""
    elsewhere = isolated_env.root / "elsewhere"
    away = ClaudeTranscript(elsewhere, "/home/dev/away")
    away.custom_title("Away work").todo_write([("Pack the bags", "in_progress")])
    given = isolated_env.root / "given"
    mine = ClaudeTranscript(given, "/home/dev/mine")
    mine.custom_title("Given folder").todo_write([("Stay", "pending")])
    app = make_app(AppOptions(config_path=isolated_env.config, roots=[given], follow=False))
    told = Toasts()
    async with app.run_test(message_hook=told, size=(120, 36)) as pilot:
        await until(pilot, lambda: app.scan_done is not None, timeout=LIVE, what="the scan")
        await save_folders(app, pilot, str(elsewhere))
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "This app keeps the transcript folders it was started on." in [n.message for n in told.seen]
        assert app.entry(away.session_id) is None
        assert app.entry(mine.session_id) is not None
