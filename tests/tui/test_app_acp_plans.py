"""A second agent section in the app (Pilot): ticking an item in a subagent's section
ticks that item, saved under the subagent's own key.

This boots the whole app because its point is the app's: a subagent's own transcript
file read from disk into a section of its session, and the override saved to the app's
overrides file. (ACP plans on the browse screen, priority, documents, the hover card and
the partial mark, run on a host app: test_screen_browse_acp_plans.py.)"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from app_transcripts import ClaudeTranscript, option_texts, until

from planwatch.core.checklist import item_key
from planwatch.tui.app import AppOptions, make_app
from planwatch.tui.widgets.checklist import ChecklistView

pytestmark = pytest.mark.asyncio


def make(isolated_env, **kw):
    return make_app(AppOptions(config_path=isolated_env.config, follow=False, **kw))


async def ready(pilot, app) -> None:
    await until(pilot, lambda: app.scan_done is not None and app.screen.selected_id is not None, what="the scan")
    await pilot.pause()


def checklist_rows(app) -> list[str]:
    return option_texts(app.screen.query_one("#checklist", ChecklistView))


# -- a second agent section -------------------------------------------------------------


def _with_subagent(env) -> ClaudeTranscript:
    """A session whose subagent a1 has its own file (`<id>/subagents/agent-a1.jsonl`),
    its records marked as the subagent's (docs/reading.md, Claude Code)."""
    main = ClaudeTranscript(env.claude, "/home/dev/api", at=datetime.now(UTC) - timedelta(minutes=5))
    main.prompt("Add rate limiting").todo_write([("Read the code", "pending"), ("Add the limiter", "in_progress")])
    sub = ClaudeTranscript(env.root / "scratch", "/home/dev/api", session_id=main.session_id, at=main.at)
    sub.prompt("Search for limits").todo_write([("Grep for limits", "pending"), ("Read the code", "pending")])
    records = [json.loads(line) for line in sub.path.read_text().splitlines()]
    for record in records:
        record.update({"isSidechain": True, "agentId": "a1"})
    sub_path = main.path.parent / main.session_id / "subagents" / "agent-a1.jsonl"
    sub_path.parent.mkdir(parents=True)
    sub_path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return main


async def test_ticking_an_item_in_a_second_agent_section_ticks_that_item(isolated_env) -> None:
    main = _with_subagent(isolated_env)
    app = make(isolated_env)
    async with app.run_test(size=(120, 36)) as pilot:
        await ready(pilot, app)
        rows = checklist_rows(app)
        sub_head = next(i for i, r in enumerate(rows) if r.startswith("Subagent 1 · "))
        assert rows[sub_head + 1 : sub_head + 3] == ["[ ] Grep for limits", "[ ] Read the code"]
        await pilot.press("tab", "j", "j", "space")  # the subagent's first item: index 0 of its section
        await pilot.pause()
        rows = checklist_rows(app)
        assert rows[sub_head + 1] == "[✓] Grep for limits  ticked by you"
        assert rows[1] == "[ ] Read the code"  # the main plan's item at the same index
        await pilot.press("j", "space")  # the subagent's "Read the code", same text as main's first
        await pilot.pause()
        rows = checklist_rows(app)
        assert rows[sub_head + 2] == "[✓] Read the code  ticked by you"
        assert rows[1] == "[ ] Read the code"
        expected = {
            item_key("Grep for limits", 0, "agent-a1"): "completed",
            item_key("Read the code", 0, "agent-a1"): "completed",
        }
        saved = isolated_env.state / "overrides.json"

        def kept() -> dict:
            return json.loads(saved.read_text()).get("sessions", {}).get(main.session_id, {}) if saved.exists() else {}

        await until(pilot, lambda: kept() == expected, what="the overrides by the subagent's keys")
        # Clicking the mark of the subagent's item unticks that item, not the main one.
        await pilot.click("#checklist", offset=(2, sub_head + 1))
        await pilot.pause()
        rows = checklist_rows(app)
        assert rows[sub_head + 1] == "[ ] Grep for limits" and rows[1] == "[ ] Read the code"
