"""The browse screen (SPEC §7, issue 4): sessions newest first, the two-section
checklist, filtering, details, empty states — driven through the real app (Pilot)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from app_transcripts import ClaudeTranscript, option_texts, until

from tui.app import AppOptions, make_app
from tui.widgets.checklist import ChecklistView
from tui.widgets.session_list import SessionList

pytestmark = pytest.mark.asyncio


@pytest.fixture
def sessions(isolated_env) -> list[ClaudeTranscript]:
    now = datetime.now(UTC)
    old = ClaudeTranscript(isolated_env.claude, "/home/dev/api", at=now - timedelta(hours=5))
    old.prompt("Refactor the API").todo_write([("Read the handlers", "completed"), ("Split the router", "pending")])
    new = ClaudeTranscript(isolated_env.claude, "/home/dev/web", at=now - timedelta(minutes=20))
    new.custom_title("Web: add dark mode").todo_write(
        [("Add the theme switch", "completed"), ("Wire the CSS", "in_progress"), ("Write tests", "pending")]
    )
    return [old, new]


def options(isolated_env, **kw) -> AppOptions:
    return AppOptions(config_path=isolated_env.config, **kw)


async def test_sessions_list_newest_activity_first_with_pill(sessions, isolated_env) -> None:
    app = make_app(options(isolated_env))
    async with app.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: app.scan_done is not None, what="the scan")
        await pilot.pause()
        rows = option_texts(app.screen.query_one("#sessions", SessionList))
        assert len(rows) == 2
        assert "Web: add dark mode" in rows[0] and "◔ 1/3" in rows[0]
        assert "Refactor the API" in rows[1] and "◑ 1/2" in rows[1]
        assert "claude" in rows[0] and "dev/web" in rows[0]


async def test_checklist_shows_agent_plan_and_my_items(sessions, isolated_env) -> None:
    app = make_app(options(isolated_env))
    async with app.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: app.scan_done is not None, what="the scan")
        await pilot.pause()
        rows = option_texts(app.screen.query_one("#checklist", ChecklistView))
        assert rows[0] == "Agent plan · Claude Code todos"
        assert rows[1] == "[x] Add the theme switch"
        # A step in progress shows its active form.
        assert rows[2] == "[▸] Working on Wire the CSS"
        assert rows[3] == "[ ] Write tests"
        assert rows[4] == "My items"
