"""The store view as a person uses it: j/k move, `?` lists the view's
keys, the notes fit the width and read as words, `v` on an approved record asks first,
toasts are sentences, and plans are created and edited here."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_screen_store import Host, move_to, row_keys, settle
from textual.geometry import Region
from textual.widgets import DataTable, Input, Select
from toasts import Toasts

from planwatch.core.store.store import Store
from planwatch.tui.screens.help import HelpScreen
from planwatch.tui.screens.store import StoreScreen
from planwatch.tui.widgets.plan_form import ConfirmScreen, PlanForm

pytestmark = pytest.mark.asyncio


@pytest.fixture
def store_root(copy_fixture) -> Path:  # type: ignore[no-untyped-def]
    return copy_fixture("views/store")


async def test_j_and_k_move_the_cursor(store_root: Path) -> None:
    app = Host(store_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        table = app.screen.query_one("#store-table", DataTable)
        assert table.cursor_row == 0
        await pilot.press("j", "j")
        assert table.cursor_row == 2
        await pilot.press("k")
        assert table.cursor_row == 1


async def test_question_mark_lists_the_store_views_own_keys(store_root: Path) -> None:
    app = Host(store_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        mine = {(row.keys, row.description) for row in app.screen.rows if row.group == "store view"}
        for key in [("v", "Approve"), ("n", "New plan"), ("e", "Edit"), ("j", "Down"), ("r", "Review")]:
            assert key in mine, mine


async def test_notes_fit_the_width_and_name_sources_and_sessions_in_words(store_root: Path) -> None:
    app = Host(store_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        table = app.screen.query_one("#store-table", DataTable)
        assert table.virtual_size.width <= table.size.width, "no horizontal scrollbar hides the notes"
        notes = {str(row.key.value): str(table.get_row(row.key)[-1]) for row in table.ordered_rows}
        assert notes["p1"] == "folder /srv/work/shop"
        assert notes["t5"].startswith("from ") and "mcp__" not in notes["t5"] and "TodoWrite" not in notes["t5"]
        assert not any("session:" in note for note in notes.values())


async def test_v_on_an_approved_plan_asks_before_approving_again(store_root: Path) -> None:
    app = Host(store_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await move_to(app, pilot, "p1")
        await pilot.press("v")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        assert app.screen.question == "p1 is approved by lee; approve again as dana?"
        await pilot.press("n")
        await settle(app, pilot)
        assert app.answers == []
        plan = Store(store_root).read_plan("p1")
        assert plan is not None and plan.approved is not None and plan.approved.by == "lee"
        await pilot.press("v")
        await pilot.pause()
        await pilot.press("y")
        await settle(app, pilot)
        assert app.answers[-1].tool == "plan_approve" and not app.answers[-1].refused
    plan = Store(store_root).read_plan("p1")
    assert plan is not None and plan.approved is not None and plan.approved.by == "dana"


async def test_v_on_an_unapproved_task_approves_without_asking(store_root: Path) -> None:
    app = Host(store_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        unapproved = next(t.id for t in Store(store_root).load().tasks_sorted() if t.approved is None)
        await move_to(app, pilot, unapproved)
        await pilot.press("v")
        await settle(app, pilot)
        assert not isinstance(app.screen, ConfirmScreen)
        assert app.answers[-1].tool == "task_approve" and not app.answers[-1].refused


async def test_toasts_are_sentences_not_tool_lines(store_root: Path) -> None:
    app = Host(store_root)
    told = Toasts()
    async with app.run_test(message_hook=told, size=(120, 36)) as pilot:
        await settle(app, pilot)
        await move_to(app, pilot, "t2")
        await pilot.press("a")
        await pilot.pause()
        await pilot.press(*"Load test the new flow")
        await pilot.press("enter")
        await settle(app, pilot)
        assert app.answers[-1].answer == "t9 todo medium Load test the new flow"
        assert "Added t9: Load test the new flow (todo, medium)." in told.messages
        assert "t9 todo medium Load test the new flow" not in told.messages


async def test_a_plan_is_created_and_edited_in_the_store_view(store_root: Path) -> None:
    app = Host(store_root)
    told = Toasts()
    async with app.run_test(message_hook=told, size=(120, 36)) as pilot:
        await settle(app, pilot)
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, PlanForm)
        await pilot.press(*"Move the docs site")
        app.screen.query_one("#goal", Input).value = "The docs build on the new host."
        await pilot.press("enter")
        await settle(app, pilot)
        assert app.answers[-1].tool == "plan_create" and not app.answers[-1].refused, app.answers
        assert "p3" in row_keys(app)
        assert "Created plan p3: Move the docs site (draft)." in told.messages
        await move_to(app, pilot, "p3")
        await pilot.press("e")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, PlanForm)
        assert form.query_one("#title", Input).cursor_position == len("Move the docs site")
        form.query_one("#status", Select).value = "active"
        assert form.draft().changes() == {"status": "active"}
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert app.answers[-1].tool == "plan_set" and not app.answers[-1].refused
        assert isinstance(app.screen, StoreScreen)
    plan = Store(store_root).read_plan("p3")
    assert plan is not None
    assert (plan.title, plan.goal.strip(), plan.status) == (
        "Move the docs site",
        "The docs build on the new host.",
        "active",
    )


async def test_E_opens_the_record_under_the_cursor_in_the_editor_and_its_save_shows(
    store_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = tmp_path / "seen"
    editor = tmp_path / "editor"
    editor.write_text(f'#!/bin/sh\necho "$1" >> {seen}\nsed -i "s/^title: .*/title: Edited by hand/" "$1"\n')
    editor.chmod(0o755)
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", str(editor))
    app = Host(store_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await move_to(app, pilot, "t6")
        await pilot.press("E")
        await settle(app, pilot)
        assert seen.read_text().splitlines() == [str(store_root / "tasks" / "t6.md")]
        table = app.screen.query_one("#store-table", DataTable)
        row = " ".join(str(cell) for cell in table.get_row("t6"))
        assert "Edited by hand" in row
        await move_to(app, pilot, "p1")
        await pilot.press("E")
        await settle(app, pilot)
        assert seen.read_text().splitlines()[1] == str(store_root / "plans" / "p1.md")
    assert Store(store_root).read_task("t6").title == "Edited by hand"  # type: ignore[union-attr]


async def test_a_cell_too_long_for_its_column_ends_in_an_ellipsis(store_root: Path) -> None:
    from planwatch.core.settings import Settings
    from planwatch.core.store.identity import Caller
    from planwatch.core.store.tools import run_tool

    long_title = "Rewrite the invoice exporter so that every currency rounds the way finance expects it to"
    run_tool("task_add", Store(store_root), Settings(), Caller(by="dana"), {"title": long_title})
    app = Host(store_root)
    async with app.run_test(size=(80, 30)) as pilot:
        await settle(app, pilot)
        table = app.screen.query_one("#store-table", DataTable)
        [key] = [str(row.key.value) for row in table.ordered_rows if "invoice" in str(table.get_row(row.key))]
        table.move_cursor(row=0, animate=False)  # the long row is drawn as any other row
        await pilot.pause()
        line = table.get_row_index(key) + 1  # below the header
        drawn = "".join(segment.text for segment in table.render_lines(Region(0, line, table.size.width, 1))[0])
        assert "Rewrite the" in drawn, drawn
        assert "…" in drawn, drawn
        assert "finance expects it to" not in drawn
