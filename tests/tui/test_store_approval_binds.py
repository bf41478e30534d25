"""The store view (Pilot) approves through task_approve, and what it approves is bound:
a later change of title or body by someone who may not approve withdraws it, and a
stamp written by hand is shown as not counted and lets nothing start."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from test_screen_store import Host, move_to, settle
from textual.widgets import DataTable, Select

from planwatch.core.settings import Settings
from planwatch.core.store.identity import Caller
from planwatch.core.store.store import Store
from planwatch.core.store.tools import run_tool
from planwatch.core.user_directory import UserDirectory, UserEntry


def token(secret: str) -> str:
    return "sha256:" + hashlib.sha256(secret.encode()).hexdigest()


SETTINGS = Settings(
    require_approval=True, users=UserDirectory(users={"lee": UserEntry(token=token("lee-secret"), roles=["lead"])})
)
LEE = Caller(by="lee", user="lee")


@pytest.fixture
def store_root(copy_fixture) -> Path:  # type: ignore[no-untyped-def]
    return copy_fixture("views/store")


def approved_cell(app: Host, key: str) -> str:
    table = app.screen.query_one("#store-table", DataTable)
    return str(table.get_row(key)[4])


@pytest.mark.asyncio
async def test_an_approval_made_in_the_store_view_is_withdrawn_when_an_agent_retitles_the_task(
    store_root: Path,
) -> None:
    app = Host(store_root, settings=SETTINGS, caller=LEE)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await move_to(app, pilot, "t4")
        await pilot.press("v")
        await settle(app, pilot)
        assert app.answers[-1].tool == "task_approve" and not app.answers[-1].refused
        # A token-less agent rewrites what was approved.
        agent = Caller(by="host", session="agent-1")
        answer = run_tool(
            "task_set", app.store_service.store, SETTINGS, agent, {"task": "t4", "title": "Drop the database"}
        )
        assert answer.lines == ["t4 todo medium Drop the database"]
        assert answer.notes == [
            "t4 needs approval again: its title or body changed after lee approved it (see task_approve)."
        ]
        refused = None
        try:
            run_tool("task_set", app.store_service.store, SETTINGS, agent, {"task": "t4", "status": "doing"})
        except Exception as exc:  # ToolRefused
            refused = str(exc)
        assert refused is not None and "status doing needs t4 approved first" in refused
        app.store_service.reload()
        await settle(app, pilot)
        assert approved_cell(app, "t4") == ""
        # Starting it from the view is refused too.
        await move_to(app, pilot, "t4")
        await pilot.press("e")
        await pilot.pause()
        app.screen.query_one("#status", Select).value = "doing"
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert app.answers[-1].refused and "status doing needs t4 approved first" in app.answers[-1].answer
    task = Store(store_root).read_task("t4")
    assert task is not None and task.status == "todo" and task.approved is None


@pytest.mark.asyncio
async def test_a_hand_written_approved_stamp_is_shown_as_not_counted_and_starts_nothing(store_root: Path) -> None:
    path = store_root / "tasks" / "t4.md"
    text = path.read_text()
    path.write_text(text.replace("\n---\n", "\napproved: {at: 2026-11-30T08:00:00.000Z, by: lee}\n---\n", 1))
    app = Host(store_root, settings=SETTINGS, caller=Caller(by="host"))
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        assert approved_cell(app, "t4") == "✗ lee (not counted)"
        await move_to(app, pilot, "t4")
        await pilot.press("e")
        await pilot.pause()
        app.screen.query_one("#status", Select).value = "doing"
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert app.answers[-1].refused
        assert "was not written by an approval call of this host" in app.answers[-1].answer
    task = Store(store_root).read_task("t4")
    assert task is not None and task.status == "todo"


def notes_cell(app: Host, key: str) -> str:
    table = app.screen.query_one("#store-table", DataTable)
    return str(table.get_row(key)[5])


@pytest.mark.asyncio
async def test_a_task_doing_without_approval_is_marked_so_in_the_store_view(store_root: Path) -> None:
    path = store_root / "tasks" / "t4.md"
    path.write_text(path.read_text().replace("status: todo", "status: doing", 1))  # by hand
    app = Host(store_root, settings=SETTINGS, caller=LEE)
    async with app.run_test(size=(160, 36)) as pilot:
        await settle(app, pilot)
        assert notes_cell(app, "t4").startswith("⚠ doing without approval")
        await move_to(app, pilot, "t4")
        await pilot.press("v")  # lee approves it: now it may be doing
        await settle(app, pilot)
        assert app.answers[-1].tool == "task_approve" and not app.answers[-1].refused
        assert approved_cell(app, "t4") == "✓ lee"
        assert "doing without approval" not in notes_cell(app, "t4")
