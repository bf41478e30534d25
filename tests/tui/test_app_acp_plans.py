"""ACP plans in the app (Pilot): the high-priority mark, plan documents as sections, the
hover card on the session list's pills, "In progress" keeping a ticked step, the partial
mark; and that ticking an item in a second agent section ticks that item.

The ACP session is `fixtures/transcripts/rules/acp/planid-and-types.jsonl` (see
tests/core/test_acp_plans.py); Claude transcripts are written in the real on-disk shape.
"""

from __future__ import annotations

import json
import os
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from app_transcripts import ClaudeTranscript, option_texts, until

from planwatch.core.checklist import item_key
from planwatch.tui import colours
from planwatch.tui.app import AppOptions, make_app
from planwatch.tui.widgets.checklist import ChecklistView
from planwatch.tui.widgets.session_list import SessionList
from planwatch.tui.widgets.session_rows import PARTIAL_MARK, pill_span

pytestmark = pytest.mark.asyncio

ROOT = Path(__file__).resolve().parents[2]
LOG = ROOT / "fixtures/transcripts/rules/acp/planid-and-types.jsonl"


@pytest.fixture
def acp_session(isolated_env) -> Path:
    isolated_env.acp_logs.mkdir(parents=True, exist_ok=True)
    return Path(shutil.copy(LOG, isolated_env.acp_logs / LOG.name))


def make(isolated_env, **kw):
    return make_app(AppOptions(config_path=isolated_env.config, follow=False, **kw))


async def ready(pilot, app) -> None:
    await until(pilot, lambda: app.scan_done is not None and app.screen.selected_id is not None, what="the scan")
    await pilot.pause()


def checklist_rows(app) -> list[str]:
    return option_texts(app.screen.query_one("#checklist", ChecklistView))


def details(app) -> str:
    """The details panel as a person reads it: its text, then each document's title and
    Markdown source (made safe)."""
    from textual.widgets import Markdown, Static

    panel = app.screen.query_one("#details")
    parts = [str(app.screen.query_one("#details-body").render())]
    for widget in panel.query(".document-title, .document"):
        parts.append(
            widget.source
            if isinstance(widget, Markdown)
            else str(widget.render())
            if isinstance(widget, Static)
            else ""
        )
    return "\n".join(parts)


# -- the high-priority mark --------------------------------------------------------------


@pytest.mark.parametrize("size", [(120, 36), (40, 30)], ids=["wide", "pane"])
async def test_high_priority_shows_a_mark_beside_the_step_in_every_layout(acp_session, isolated_env, size) -> None:
    app = make(isolated_env)
    async with app.run_test(size=size) as pilot:
        await ready(pilot, app)
        rows = checklist_rows(app)
        assert "[▸] ! Fix the parser" in rows
        assert "[x] Read the parser" in rows and "[ ] Tidy the docs" in rows  # medium, low: no mark
        # The mark is a glyph (it reads without colour), coloured by a theme variable
        # (the theme's error text, made readable in every theme by tui.theme).
        view = app.screen.query_one("#checklist", ChecklistView)
        prompt = next(o.prompt for o in view.options if o.prompt.plain == "[▸] ! Fix the parser")
        [mark_span] = [s for s in prompt.spans if prompt.plain[s.start : s.end] == "!"]
        assert mark_span.style == colours.PRIORITY == "$text-error bold"


async def test_details_list_the_high_priority_steps(acp_session, isolated_env) -> None:
    app = make(isolated_env)
    async with app.run_test(size=(120, 50)) as pilot:
        await ready(pilot, app)
        await pilot.press("tab", "enter")
        await pilot.pause()
        assert "High priority:\n  ! Fix the parser" in details(app)


# -- documents -------------------------------------------------------------------------------


async def test_custom_and_future_plans_are_document_sections_in_checklist_and_details(
    acp_session, isolated_env
) -> None:
    app = make(isolated_env)
    async with app.run_test(size=(120, 60)) as pilot:
        await ready(pilot, app)
        rows = checklist_rows(app)
        notes = rows.index("ACP plan notes · _codex_notes document")
        assert rows[notes + 1].startswith('data: {"owner": "codex", "steps": ["lex", "parse"], "note": "\\u202eevil')
        future = rows.index("ACP plan next · checklist_v2 document")
        assert rows[future + 1] == 'entries: [{"content": "Ship the fix", "status": "pending"}]'
        assert not any("\x1b" in row or "\u202e" in row for row in rows)
        assert "Stray entry" not in " ".join(rows)
        await pilot.press("tab", "enter")
        await pilot.pause()
        body = details(app)
        assert "Plan document · ACP plan notes · type _codex_notes" in body
        assert "Plan document · ACP plan next · type checklist_v2" in body


# -- the hover card on the session list's pills ---------------------------------------------------


async def test_hovering_a_rows_pill_in_the_session_list_shows_its_hover_card(acp_session, isolated_env) -> None:
    from textual.widgets import Tooltip

    other = ClaudeTranscript(isolated_env.claude, "/home/dev/web", at=datetime.now(UTC) - timedelta(days=400))
    other.prompt("Older work").todo_write([("Old step", "in_progress")])
    old = other.at.timestamp()
    os.utime(other.path, (old, old))
    app = make(isolated_env)
    async with app.run_test(size=(120, 36), tooltips=True) as pilot:
        await ready(pilot, app)
        session_list = app.screen.query_one("#sessions", SessionList)
        shown = [row.id for row in session_list.rows]
        assert shown[0] == "sess_c3"
        start, _ = pill_span(session_list.row_layout)
        tooltip = app.screen.query_one(Tooltip)
        # The second row's pill (not the selected session's): its own card.
        await pilot.hover("#sessions", offset=(start + 1, 1))
        await until(pilot, lambda: tooltip.display, timeout=30, what="the hover card")
        card = str(tooltip.render())
        assert "Source: Claude Code todos" in card and "In progress:\n  ▸ Working on Old step" in card
        # Then the first row's pill (Textual hides a shown tooltip on the first motion
        # within its widget and shows it again on the next).
        await pilot.hover("#sessions", offset=(start + 2, 0))
        await pilot.hover("#sessions", offset=(start + 3, 0))
        await until(
            pilot,
            lambda: tooltip.display and "ACP plan" in str(tooltip.render()),
            timeout=30,
            what="the first row's card",
        )
        assert "Fix the parser" in str(tooltip.render())
        # Over the title, no card.
        # The list offers no card there at all (nothing to show later), and the shown one goes.
        await pilot.hover("#sessions", offset=(10, 0))
        await until(pilot, lambda: session_list.tooltip is None and not tooltip.display, what="the card to go")
        assert session_list.tooltip is None and not tooltip.display


# -- In progress keeps a ticked step ------------------------------------------------------


async def test_a_ticked_step_still_in_progress_is_listed_ticked_by_you(acp_session, isolated_env) -> None:
    app = make(isolated_env)
    async with app.run_test(size=(120, 50)) as pilot:
        await ready(pilot, app)
        await pilot.press("tab", "j", "space")  # "Fix the parser", in progress, ticked
        await pilot.pause()
        assert "[✓] ! Fix the parser  ticked by you" in checklist_rows(app)
        card = app.screen.query_one("#pill").tooltip.plain
        assert "In progress:\n  ▸ Fix the parser (ticked by you)" in card
        await pilot.press("enter")
        await pilot.pause()
        assert "▸ Fix the parser (ticked by you)" in details(app)
        assert "In progress: none" not in details(app)


# -- partial ----------------------------------------------------------------------------------


def _partial_transcript(claude: Path) -> ClaudeTranscript:
    """A TodoWrite list in the head, then more than the 64 MB backward bound of chat with
    no full list after it: the list is rebuilt from the head only (partial)."""
    transcript = ClaudeTranscript(claude, "/home/dev/huge", at=datetime.now(UTC) - timedelta(minutes=5))
    transcript.prompt("A very long session").todo_write([("Early step", "in_progress"), ("Later step", "pending")])
    filler = "x" * (1 << 20)
    with transcript.path.open("a", encoding="utf-8") as fh:
        for n in range(78):
            record = {
                "parentUuid": None,
                "isSidechain": False,
                "type": "assistant",
                "uuid": f"f{n}",
                "timestamp": (transcript.at + timedelta(seconds=n)).isoformat().replace("+00:00", "Z"),
                "sessionId": transcript.session_id,
                "cwd": transcript.cwd,
                "message": {"role": "assistant", "content": [{"type": "text", "text": filler}]},
            }
            fh.write(json.dumps(record) + "\n")
    return transcript


async def test_partial_is_marked_in_the_row_the_hover_card_and_details(isolated_env) -> None:
    _partial_transcript(isolated_env.claude)
    app = make(isolated_env)
    async with app.run_test(size=(120, 50)) as pilot:
        await until(
            pilot, lambda: app.scan_done is not None and app.screen.selected_id is not None, timeout=30, what="the scan"
        )
        await pilot.pause()
        session_list = app.screen.query_one("#sessions", SessionList)
        [row] = option_texts(session_list)
        start, end = pill_span(session_list.row_layout)
        assert row[start:end].rstrip() == f"○ 0/2{PARTIAL_MARK}"
        label = "an earlier list: the latest was not found"
        assert f"Partial: {label}" in app.screen.query_one("#pill").tooltip.plain
        assert checklist_rows(app)[0] == f"Agent plan · Claude Code todos · partial ({label})"
        await pilot.press("enter")
        await pilot.pause()
        assert f"Partial: {label}" in details(app)
        assert "only the tasks found" not in details(app)


async def test_a_whole_plan_has_no_partial_mark(acp_session, isolated_env) -> None:
    app = make(isolated_env)
    async with app.run_test(size=(120, 36)) as pilot:
        await ready(pilot, app)
        session_list = app.screen.query_one("#sessions", SessionList)
        start, end = pill_span(session_list.row_layout)
        assert option_texts(session_list)[0][start:end].rstrip() == "◔ 1/3"
        assert "Partial" not in app.screen.query_one("#pill").tooltip.plain


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
