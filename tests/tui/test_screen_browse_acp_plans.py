"""ACP plans on the browse screen: the high-priority mark, plan documents as sections,
the hover card on the session list's pills, "In progress" keeping a ticked step, the
partial mark. On a host app with a model of its own (no scan): the model gives the plan
the reader makes of `fixtures/transcripts/rules/acp/planid-and-types.jsonl` (its reading
is tested in tests/core/test_acp_plans.py), and a partial Claude Code list as a reader
gives it for a transcript past the backward bound (tests/core). (A tick in a second agent
section saved by its own key is the app's: test_app_acp_plans.py.)"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from app_transcripts import option_texts, until
from browse_host import BrowseHost, entry

from planwatch.core.model import AgentPlan, PlanGroup, PlanItem
from planwatch.core.sessions import SessionEntry
from planwatch.core.transcripts.acp import AcpReader
from planwatch.core.transcripts.lines import read_transcript
from planwatch.tui import colours
from planwatch.tui.widgets.checklist import ChecklistView
from planwatch.tui.widgets.session_list import SessionList
from planwatch.tui.widgets.session_rows import PARTIAL_MARK, pill_span

pytestmark = pytest.mark.asyncio

ROOT = Path(__file__).resolve().parents[2]
LOG = ROOT / "fixtures/transcripts/rules/acp/planid-and-types.jsonl"


@pytest.fixture
def acp_session() -> SessionEntry:
    """The ACP session as the reader gives it: its id, folder, time and plan."""
    reader = AcpReader(LOG)
    read_transcript(reader, LOG)
    [result] = reader.results()
    facts = result.facts
    assert facts.id is not None and facts.last_timestamp is not None
    shown = entry(facts.id, facts.first_prompt or "", harness="acp", cwd=facts.cwd or "")
    return replace(shown, session=replace(shown.session, updated=facts.last_timestamp), plan=result.plan)


def partial_session() -> SessionEntry:
    """A TodoWrite list read from the head of a transcript with more than the backward
    bound of chat after it: the list rebuilt from the head only (partial)."""
    steps = (
        PlanItem(text="Early step", status="in_progress", active_form="Working on Early step"),
        PlanItem(text="Later step", status="pending", active_form="Working on Later step"),
    )
    shown = entry("huge", "A very long session", (), 5, cwd="/home/dev/huge")
    return replace(shown, plan=AgentPlan(groups=(PlanGroup(source="claude_todos", items=steps, partial=True),)))


def make(isolated_env, *sessions: SessionEntry) -> BrowseHost:  # type: ignore[no-untyped-def]
    return BrowseHost(isolated_env.store, list(sessions))


async def ready(pilot, app) -> None:  # type: ignore[no-untyped-def]
    await until(pilot, lambda: app.screen.selected_id is not None, what="the newest session")
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
    app = make(isolated_env, acp_session)
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
    app = make(isolated_env, acp_session)
    async with app.run_test(size=(120, 50)) as pilot:
        await ready(pilot, app)
        await pilot.press("tab", "enter")
        await pilot.pause()
        assert "High priority:\n  ! Fix the parser" in details(app)


# -- documents -------------------------------------------------------------------------------


async def test_custom_and_future_plans_are_document_sections_in_checklist_and_details(
    acp_session, isolated_env
) -> None:
    app = make(isolated_env, acp_session)
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

    old_step = PlanItem(text="Old step", status="in_progress", active_form="Working on Old step")
    other = entry("older", "Older work", (old_step,), 400 * 24 * 60, cwd="/home/dev/web")
    app = make(isolated_env, acp_session, other)
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
    app = make(isolated_env, acp_session)
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


async def test_partial_is_marked_in_the_row_the_hover_card_and_details(isolated_env) -> None:
    app = make(isolated_env, partial_session())
    async with app.run_test(size=(120, 50)) as pilot:
        await ready(pilot, app)
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
    app = make(isolated_env, acp_session)
    async with app.run_test(size=(120, 36)) as pilot:
        await ready(pilot, app)
        session_list = app.screen.query_one("#sessions", SessionList)
        start, end = pill_span(session_list.row_layout)
        assert option_texts(session_list)[0][start:end].rstrip() == "◔ 1/3"
        assert "Partial" not in app.screen.query_one("#pill").tooltip.plain
