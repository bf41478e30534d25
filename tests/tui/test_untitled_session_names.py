"""A session no prompt titles is named everywhere as its row in the list reads it —
`(no prompt) · Claude Code · 3 steps` —, never `Session <id>`: in the toasts the app
raises, on the checklist copied as Markdown, and on the OpenCode text the pager shows.

These two boot the whole app because what names the session comes from the app as a
whole: the toast is the app's, raised when following the transcript sees the plan
finish, and the pager's text is read from OpenCode's database. (The copied checklist is
the browse screen's alone: test_screen_browse_ux.py.)"""

from __future__ import annotations

import time

import pytest
from app_transcripts import ClaudeTranscript, until
from harness_app import recording_pager
from opencode_db import OpenCodeDb
from toasts import Toasts

from planwatch.core import paths
from planwatch.tui.app import AppOptions, make_app

pytestmark = pytest.mark.asyncio


def listed_title(app) -> str:  # type: ignore[no-untyped-def]
    [row] = app.screen.query_one("#sessions").rows
    from planwatch.tui.widgets.session_rows import title_of

    return title_of(row)


async def test_a_toast_about_an_untitled_session_names_it_as_its_row_does(isolated_env) -> None:  # type: ignore[no-untyped-def]
    untitled = ClaudeTranscript(isolated_env.claude, "/home/dev/api")
    untitled.todo_write([("Read", "completed"), ("Write", "in_progress"), ("Ship", "pending")])
    app = make_app(AppOptions(config_path=isolated_env.config))
    told = Toasts()
    async with app.run_test(message_hook=told, size=(120, 36), notifications=True) as pilot:
        await until(pilot, lambda: app.scan_done is not None and app.following, what="the scan and the follower")
        assert listed_title(app) == "(no prompt) · Claude Code · 3 steps"
        untitled.todo_write([("Read", "completed"), ("Write", "completed"), ("Ship", "completed")])
        await until(pilot, lambda: any("Plan complete" in n.message for n in told.seen), what="the toast")
        [toast] = [n.message for n in told.seen if "Plan complete" in n.message]
        assert toast == "Plan complete (3/3) — (no prompt) · Claude Code · 3 steps"
        assert untitled.session_id not in toast and "Session " not in toast
        # The list reads the same.
        assert listed_title(app) == "(no prompt) · Claude Code · 3 steps"


async def test_the_pager_text_of_an_untitled_opencode_session_is_headed_as_its_row(
    isolated_env, tmp_path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    database = paths.opencode_db()
    database.parent.mkdir(parents=True)
    writer = OpenCodeDb(database)
    sid = "ses_none0000000000000000000001"
    at = int(time.time() * 1000) - 600_000
    # No title, and no prompt to stand in for one.
    writer.session(sid, "", "/home/dev/none", updated=at)
    writer.todowrite(sid, [("Look around", "completed", "medium"), ("Write it", "pending", "medium")], at + 1000)
    writer.close()
    seen = recording_pager(tmp_path, monkeypatch)
    app = make_app(AppOptions(config_path=isolated_env.config, follow=False))
    async with app.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: app.scan_done is not None and app.screen.selected_id == sid, what="the scan")
        title = listed_title(app)
        assert title == "(no prompt) · OpenCode · 2 steps"
        await pilot.press("o")
        await until(pilot, seen.exists, what="the pager")
    lines = seen.read_text(encoding="utf-8").splitlines()
    assert lines[0] == f"# {title}"
    assert not any(line.startswith("# Session") for line in lines)
