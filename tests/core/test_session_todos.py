"""docs/store.md, What clients see: a session's todo lines and open count, read from a real store folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from planwatch.core.store import session_todos
from planwatch.core.store.schema import PlanRecord, Scope, TaskRecord
from planwatch.core.store.store import Store

SESSION = "6f1c2a90-3b7e-4d0a-9a51-2c8f0e4b7d13"
OTHER = "0a7d5e21-88c4-4f1b-b2e6-91d3c4a5f6e7"


def add_plan(store: Store, session: str | None, title: str = "Session plan") -> PlanRecord:
    scope = Scope(kind="session", value=session) if session else Scope(kind="folder", value="/srv/api")
    return store.add_plan(lambda pid: PlanRecord(id=pid, scope=scope, title=title, status="active"))


def add_task(store: Store, title: str, status: str = "todo", **fields: object) -> TaskRecord:
    return store.add_task(lambda tid: TaskRecord(id=tid, title=title, status=status, **fields))  # type: ignore[arg-type]


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(tmp_path / "store")


@pytest.mark.parametrize(
    ("status", "line"),
    [
        ("done", "- [x] Write the migration"),
        ("todo", "- [ ] Write the migration"),
        ("doing", "- [ ] Write the migration"),
        ("blocked", "- [ ] Write the migration"),
        ("review", "- [ ] Write the migration"),
        ("dropped", "- [ ] Write the migration"),
    ],
)
def test_todo_line_is_ticked_only_for_done(store: Store, status: str, line: str) -> None:
    add_task(store, "Write the migration", status, session=SESSION)
    assert session_todos.todo_lines(store.load(), SESSION) == [line]


def test_todo_lists_tasks_of_the_session_plan_and_tasks_naming_the_session_once_by_id(store: Store) -> None:
    plan = add_plan(store, SESSION)
    elsewhere = add_plan(store, None)
    # Ten tasks so that t10 sorts after t9 by number, not as text.
    for n in range(1, 10):
        add_task(store, f"Step {n}", "done" if n % 2 else "todo", plan=plan.id)
    add_task(store, "Named by session and in its plan", plan=plan.id, session=SESSION)  # t10
    add_task(store, "Named by session only", "doing", session=SESSION, plan=elsewhere.id)  # t11
    add_task(store, "Another session's task", session=OTHER)  # t12
    add_task(store, "In another plan", plan=elsewhere.id)  # t13

    lines = session_todos.todo_lines(store.load(), SESSION)

    assert lines == [
        "- [x] Step 1", "- [ ] Step 2", "- [x] Step 3", "- [ ] Step 4", "- [x] Step 5",
        "- [ ] Step 6", "- [x] Step 7", "- [ ] Step 8", "- [x] Step 9",
        "- [ ] Named by session and in its plan",
        "- [ ] Named by session only",
    ]  # fmt: skip


def test_open_count_counts_every_status_but_done_and_dropped(store: Store) -> None:
    plan = add_plan(store, SESSION)
    for status in ("todo", "doing", "blocked", "review", "done", "dropped"):
        add_task(store, f"A {status} task", status, plan=plan.id)
    snap = store.load()
    assert session_todos.open_count(snap, SESSION) == 4
    assert session_todos.session_meta(snap, SESSION) == {"ahpd.tasks": {"open": 4}}


def test_session_whose_tasks_are_all_finished_carries_open_zero(store: Store) -> None:
    add_task(store, "Shipped", "done", session=SESSION)
    assert session_todos.session_meta(store.load(), SESSION) == {"ahpd.tasks": {"open": 0}}


def test_session_no_task_names_has_no_key(store: Store) -> None:
    add_plan(store, SESSION)  # a plan alone, with no task, names nothing
    add_task(store, "Another session's task", session=OTHER)
    snap = store.load()
    assert session_todos.session_meta(snap, SESSION) == {}
    assert session_todos.todo_lines(snap, SESSION) == []
    assert SESSION not in session_todos.open_counts(snap)


def test_open_counts_cover_every_session_for_the_session_list(store: Store) -> None:
    plan = add_plan(store, SESSION)
    add_task(store, "Open in plan", plan=plan.id)
    add_task(store, "Open, named and in plan", "doing", plan=plan.id, session=SESSION)
    add_task(store, "Done in plan", "done", plan=plan.id)
    add_task(store, "Other open", "blocked", session=OTHER)
    add_task(store, "Other dropped", "dropped", session=OTHER)
    add_task(store, "Third, all done", "done", session="third")
    add_task(store, "No session at all")

    assert session_todos.open_counts(store.load()) == {SESSION: 2, OTHER: 1, "third": 0}


def test_hand_edited_record_is_read_and_invalid_one_left_out(store: Store) -> None:
    """A record a person wrote by hand counts; a broken one is left out, not fatal."""
    store.tasks_dir.mkdir(parents=True)
    (store.tasks_dir / "t1.md").write_text(
        f"---\nid: t1\ntitle: Check the backups\nstatus: review\nsession: {SESSION}\n---\nBy hand.\n",
        encoding="utf-8",
    )
    (store.tasks_dir / "t2.md").write_text(
        f"---\nid: t2\ntitle: Broken\nstatus: finished\nsession: {SESSION}\n---\n", encoding="utf-8"
    )
    snap = store.load()
    assert session_todos.todo_lines(snap, SESSION) == ["- [ ] Check the backups"]
    assert session_todos.session_meta(snap, SESSION) == {"ahpd.tasks": {"open": 1}}


def test_todo_line_of_an_untrusted_title_stays_one_safe_line(store: Store) -> None:
    store.tasks_dir.mkdir(parents=True)
    (store.tasks_dir / "t1.md").write_text(
        f'---\nid: t1\ntitle: "Evil\\ntitle \\e[31mred"\nsession: {SESSION}\n---\n', encoding="utf-8"
    )
    assert session_todos.todo_lines(store.load(), SESSION) == ["- [ ] Evil title \\x1b[31mred"]
