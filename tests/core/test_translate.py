"""docs/store.md, Agents' lists in the store: a harness's own list written as the session's plan in the store."""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

import pytest

from planwatch.core.settings import Settings
from planwatch.core.store.identity import Caller
from planwatch.core.store.schema import PlanRecord, Scope, Source, TaskRecord
from planwatch.core.store.store import Store
from planwatch.core.store.tools import run_tool
from planwatch.core.store.translate import TranslateRefused, translate_change, translate_list

SESSION = "6f1c2a90-3b7e-4d0a-9a51-2c8f0e4b7d13"
TITLE = "Add a migration for the orders table"


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(tmp_path / "store")


def tasks_of(store: Store) -> list[tuple[str, str, str]]:
    """(id, title, status) of every task, in id order."""
    return [(t.id, t.title, t.status) for t in store.load().tasks_sorted()]


def files_state(store: Store) -> dict[str, tuple[int, int]]:
    """Every file under the store with its inode and mtime: any write changes one."""
    out = {}
    for path in sorted(store.root.rglob("*")):
        if path.is_file():
            st = path.stat()
            out[str(path.relative_to(store.root))] = (st.st_ino, st.st_mtime_ns)
    return out


def test_whole_list_becomes_the_session_plan(store: Store) -> None:
    result = translate_list(
        store,
        SESSION,
        TITLE,
        [("Read the schema", "completed"), ("Write the migration", "in_progress")],
        tool="update_plan",
    )
    snap = store.load()
    [plan] = snap.plans.values()
    assert plan.scope == Scope(kind="session", value=SESSION)
    assert plan.title == TITLE
    assert plan.goal == ""
    assert result.plan_id == plan.id
    assert [(t.title, t.status, t.plan, t.session, t.source) for t in snap.tasks_sorted()] == [
        ("Read the schema", "done", plan.id, SESSION, Source(tool="update_plan")),
        ("Write the migration", "doing", plan.id, SESSION, Source(tool="update_plan")),
    ]


@pytest.mark.parametrize("title", [None, "", "   "])
def test_untitled_session_plan_is_titled_session_id(store: Store, title: str | None) -> None:
    translate_list(store, SESSION, title, [("Ship", "pending")], tool="TodoWrite")
    [plan] = store.load().plans.values()
    assert plan.title == f"Session {SESSION}"


@pytest.mark.parametrize(
    ("agent", "task"),
    [
        ("pending", "todo"),
        ("in_progress", "doing"),
        ("completed", "done"),
        ("deleted", "dropped"),
        ("cancelled", "dropped"),
        ("waiting", "todo"),  # unknown reads as pending
    ],
)
def test_status_map(store: Store, agent: str, task: str) -> None:
    translate_list(store, SESSION, TITLE, [("Ship", agent)], tool="TodoWrite")
    assert tasks_of(store) == [("t1", "Ship", task)]


def test_unmatched_entry_is_a_new_todo_task_with_its_source_tool(store: Store) -> None:
    translate_list(store, SESSION, TITLE, [("Read the schema", "completed")], tool="TodoWrite")
    result = translate_list(
        store, SESSION, TITLE, [("Read the schema", "completed"), ("Run the tests", "pending")], tool="TodoWrite"
    )
    assert result.added == ["t2"]
    new = store.read_task("t2")
    assert new is not None
    assert (new.title, new.status, new.source) == ("Run the tests", "todo", Source(tool="TodoWrite"))


def test_entry_takes_the_first_task_with_its_text_that_no_earlier_entry_took(store: Store) -> None:
    translate_list(
        store, SESSION, TITLE,
        [("Run the tests", "completed"), ("Fix the failures", "completed"), ("Run the tests", "pending")],
        tool="TodoWrite",
    )  # fmt: skip
    assert tasks_of(store) == [
        ("t1", "Run the tests", "done"),
        ("t2", "Fix the failures", "done"),
        ("t3", "Run the tests", "todo"),
    ]

    # The second "Run the tests" entry takes t3, not t1 again; one entry now takes only t1.
    translate_list(
        store, SESSION, TITLE,
        [("Run the tests", "completed"), ("Fix the failures", "completed"), ("Run the tests", "in_progress")],
        tool="TodoWrite",
    )  # fmt: skip
    assert tasks_of(store) == [
        ("t1", "Run the tests", "done"),
        ("t2", "Fix the failures", "done"),
        ("t3", "Run the tests", "doing"),
    ]

    translate_list(store, SESSION, TITLE, [("Run the tests", "in_progress")], tool="TodoWrite")
    assert tasks_of(store) == [
        ("t1", "Run the tests", "doing"),
        ("t2", "Fix the failures", "dropped"),
        ("t3", "Run the tests", "dropped"),
    ]


def test_step_the_list_no_longer_holds_is_dropped_not_removed(store: Store) -> None:
    translate_list(
        store, SESSION, TITLE, [("Read the schema", "in_progress"), ("Write docs", "pending")], tool="update_plan"
    )
    translate_list(store, SESSION, TITLE, [("Read the schema", "in_progress")], tool="update_plan")
    assert tasks_of(store) == [("t1", "Read the schema", "doing"), ("t2", "Write docs", "dropped")]
    assert (store.tasks_dir / "t2.md").exists()


def test_dropped_step_that_comes_back_is_taken_again(store: Store) -> None:
    translate_list(store, SESSION, TITLE, [("Write docs", "pending")], tool="TodoWrite")
    translate_list(store, SESSION, TITLE, [], tool="TodoWrite")
    assert tasks_of(store) == [("t1", "Write docs", "dropped")]
    translate_list(store, SESSION, TITLE, [("Write docs", "in_progress")], tool="TodoWrite")
    assert tasks_of(store) == [("t1", "Write docs", "doing")]


def test_list_cleared_after_every_step_was_done_drops_nothing(store: Store) -> None:
    steps = [("Add parser", "completed"), ("Write tests", "completed")]
    translate_list(store, SESSION, TITLE, steps, tool="TodoWrite")
    before = files_state(store)
    result = translate_list(store, SESSION, TITLE, [], tool="TodoWrite")
    assert not result.wrote
    assert tasks_of(store) == [("t1", "Add parser", "done"), ("t2", "Write tests", "done")]
    assert files_state(store) == before


def test_list_cleared_with_open_steps_drops_every_step(store: Store) -> None:
    translate_list(
        store, SESSION, TITLE, [("Add parser", "completed"), ("Write tests", "in_progress")], tool="TodoWrite"
    )
    translate_list(store, SESSION, TITLE, [], tool="TodoWrite")
    # Only a list cleared after *every* step was done is exempt (docs/store.md, Agents' lists in the store).
    assert tasks_of(store) == [("t1", "Add parser", "dropped"), ("t2", "Write tests", "dropped")]


def test_done_step_the_list_no_longer_holds_is_dropped(store: Store) -> None:
    translate_list(
        store, SESSION, TITLE, [("Add parser", "completed"), ("Write tests", "in_progress")], tool="TodoWrite"
    )
    translate_list(store, SESSION, TITLE, [("Write tests", "in_progress")], tool="TodoWrite")
    assert tasks_of(store) == [("t1", "Add parser", "dropped"), ("t2", "Write tests", "doing")]


def test_retranslating_the_same_list_writes_nothing(store: Store) -> None:
    steps = [("Read the schema", "completed"), ("Write the migration", "in_progress"), ("Ship", "pending")]
    translate_list(store, SESSION, TITLE, steps, tool="update_plan")
    before = files_state(store)
    for _ in range(3):
        result = translate_list(store, SESSION, TITLE, steps, tool="update_plan")
        assert not result.wrote
    assert files_state(store) == before


def test_empty_list_without_a_plan_writes_nothing(store: Store) -> None:
    result = translate_list(store, SESSION, TITLE, [], tool="TodoWrite")
    assert not result.wrote
    assert store.load().plans == {}


def test_session_title_change_renames_the_plan(store: Store) -> None:
    translate_list(store, SESSION, "Old title", [("Ship", "pending")], tool="TodoWrite")
    result = translate_list(store, SESSION, "New title", [("Ship", "pending")], tool="TodoWrite")
    assert result.plan_written and not result.added and not result.changed
    [plan] = store.load().plans.values()
    assert plan.title == "New title"


def test_sessions_keep_their_own_plans(store: Store) -> None:
    translate_list(store, SESSION, "One", [("Ship", "pending")], tool="TodoWrite")
    translate_list(store, "other-session", "Two", [("Ship", "completed")], tool="TodoWrite")
    snap = store.load()
    assert sorted(p.title for p in snap.plans.values()) == ["One", "Two"]
    assert [(t.plan, t.status) for t in snap.tasks_sorted()] == [("p1", "todo"), ("p2", "done")]


def test_writes_carry_stamps_of_the_caller_in_the_session(store: Store, frozen_now: datetime) -> None:
    caller = Caller(by="dana", session=SESSION)
    translate_list(
        store, SESSION, TITLE, [("Ship", "pending")], tool="TodoWrite", caller=caller, now=lambda: frozen_now
    )
    task = store.read_task("t1")
    plan = store.read_plan("p1")
    assert task is not None and plan is not None
    assert (task.created.at, task.created.by, task.created.in_) == (frozen_now, "dana", SESSION)  # type: ignore[union-attr]
    assert plan.created is not None and plan.created.by == "dana"
    assert task.started is None and task.finished is None

    translate_list(
        store, SESSION, TITLE, [("Ship", "in_progress")], tool="TodoWrite", caller=caller, now=lambda: frozen_now
    )
    translate_list(
        store, SESSION, TITLE, [("Ship", "completed")], tool="TodoWrite", caller=caller, now=lambda: frozen_now
    )
    task = store.read_task("t1")
    assert task is not None and task.started is not None and task.finished is not None
    assert task.finished.in_ == SESSION


def test_task_a_person_added_to_the_plan_is_not_dropped(store: Store) -> None:
    translate_list(store, SESSION, TITLE, [("Ship", "pending")], tool="TodoWrite")
    run_tool("task_add", store, Settings(), Caller(by="dana"), {"title": "Tell the team", "plan": "p1"})
    translate_list(store, SESSION, TITLE, [("Ship", "completed")], tool="TodoWrite")
    assert tasks_of(store) == [("t1", "Ship", "done"), ("t2", "Tell the team", "todo")]


def test_long_multiline_step_matches_the_task_it_made(store: Store) -> None:
    text = "Refactor the loader\n  so that it " + "really " * 120 + "streams"
    translate_list(store, SESSION, TITLE, [(text, "pending")], tool="TodoWrite")
    task = store.read_task("t1")
    assert task is not None and "\n" not in task.title and len(task.title) == 500
    result = translate_list(store, SESSION, TITLE, [(text, "in_progress")], tool="TodoWrite")
    assert result.added == [] and result.changed == ["t1"]


# ---------------------------------------------------------------- single changes


def test_single_change_finds_its_task_by_source_id(store: Store) -> None:
    translate_change(store, SESSION, TITLE, tool="TaskCreate", source_id="1", text="Set up schema")
    translate_change(store, SESSION, TITLE, tool="TaskCreate", source_id="2", text="Write API")
    result = translate_change(store, SESSION, TITLE, tool="TaskCreate", source_id="2", status="in_progress")
    assert result.changed == ["t2"]
    assert tasks_of(store) == [("t1", "Set up schema", "todo"), ("t2", "Write API", "doing")]
    assert store.read_task("t2").source == Source(tool="TaskCreate", id="2")  # type: ignore[union-attr]


def test_single_change_to_an_unknown_task_with_text_adds_it(store: Store) -> None:
    result = translate_change(
        store, SESSION, TITLE, tool="TaskCreate", source_id="7", text="Backfill data", status="completed"
    )
    assert result.added == ["t1"]
    assert tasks_of(store) == [("t1", "Backfill data", "done")]
    [plan] = store.load().plans.values()
    assert plan.scope == Scope(kind="session", value=SESSION)


def test_single_change_to_an_unknown_task_without_text_is_refused(store: Store) -> None:
    with pytest.raises(TranslateRefused, match="no text"):
        translate_change(store, SESSION, TITLE, tool="TaskCreate", source_id="9", status="completed")
    assert store.load().tasks == {} and store.load().plans == {}


def test_single_change_without_status_keeps_the_status(store: Store) -> None:
    translate_change(
        store, SESSION, TITLE, tool="TaskCreate", source_id="1", text="Set up schema", status="in_progress"
    )
    translate_change(store, SESSION, TITLE, tool="TaskCreate", source_id="1", text="Set up the schema")
    assert tasks_of(store) == [("t1", "Set up the schema", "doing")]


def test_single_change_deleted_drops_the_task(store: Store) -> None:
    translate_change(store, SESSION, TITLE, tool="TaskCreate", source_id="1", text="Set up schema")
    translate_change(store, SESSION, TITLE, tool="TaskCreate", source_id="1", status="deleted")
    assert tasks_of(store) == [("t1", "Set up schema", "dropped")]


def test_repeated_single_change_writes_nothing(store: Store) -> None:
    translate_change(
        store, SESSION, TITLE, tool="TaskCreate", source_id="1", text="Set up schema", status="in_progress"
    )
    before = files_state(store)
    result = translate_change(
        store, SESSION, TITLE, tool="TaskCreate", source_id="1", text="Set up schema", status="in_progress"
    )
    assert not result.wrote
    assert files_state(store) == before


def test_single_change_compares_task_ids_as_text(store: Store) -> None:
    translate_change(store, SESSION, TITLE, tool="TaskCreate", source_id="3", text="Deploy")
    translate_change(store, SESSION, TITLE, tool="TaskCreate", source_id=3, status="completed")  # type: ignore[arg-type]
    assert tasks_of(store) == [("t1", "Deploy", "done")]


def test_a_task_in_another_session_with_the_same_source_id_is_not_taken(store: Store) -> None:
    translate_change(store, "other-session", "Other", tool="TaskCreate", source_id="1", text="Theirs")
    translate_change(store, SESSION, TITLE, tool="TaskCreate", source_id="1", text="Ours", status="completed")
    assert tasks_of(store) == [("t1", "Theirs", "todo"), ("t2", "Ours", "done")]


def test_hand_made_session_plan_is_the_one_written(store: Store) -> None:
    """A plan a person (or an earlier run) made for the session is used, not duplicated."""
    store.add_plan(
        lambda pid: PlanRecord(id=pid, scope=Scope(kind="session", value=SESSION), title=TITLE, status="draft")
    )
    store.add_task(lambda tid: TaskRecord(id=tid, title="Ship", plan="p1", source=Source(tool="TodoWrite")))
    translate_list(store, SESSION, TITLE, [("Ship", "completed")], tool="TodoWrite")
    assert len(store.load().plans) == 1
    assert tasks_of(store) == [("t1", "Ship", "done")]
    assert sorted(os.listdir(store.plans_dir)) == [".ids", "p1.md"]


def test_two_processes_translating_at_once_make_each_task_once(store: Store) -> None:
    """The mirror of two planwatch windows may translate the same list together."""
    import subprocess
    import sys

    script = (
        "import sys\n"
        "from planwatch.core.store.store import Store\n"
        "from planwatch.core.store.translate import translate_list\n"
        "steps = [(f'Step {n}', 'pending') for n in range(8)]\n"
        "for _ in range(3):\n"
        "    translate_list(Store(sys.argv[1]), sys.argv[2], 'Together', steps, tool='TodoWrite')\n"
    )
    root = Path(__file__).resolve().parents[2]
    procs = [subprocess.Popen([sys.executable, "-c", script, str(store.root), SESSION], cwd=root) for _ in range(2)]
    assert [p.wait(timeout=60) for p in procs] == [0, 0]
    snap = store.load()
    assert len(snap.plans) == 1
    assert sorted(t.title for t in snap.tasks.values()) == [f"Step {n}" for n in range(8)]


def test_step_text_that_is_not_valid_unicode_is_kept_readable_never_a_crash(store: Store) -> None:
    # A transcript's JSON may hold a lone surrogate ("\ud800"): json.loads keeps it, and
    # no YAML file can hold it. Bad input never crashes (ground rules): the step is kept
    # with U+FFFD in its place, every record stays valid, and the same list matches again.
    steps = [("Fix the \ud800parser", "pending"), ("Run the tests", "completed")]
    translate_list(store, SESSION, "Session \udfff title", steps, tool="TodoWrite")
    snap = store.load()
    assert snap.problems == []
    assert [(t.title, t.status) for t in snap.tasks_sorted()] == [
        ("Fix the \ufffdparser", "todo"),
        ("Run the tests", "done"),
    ]
    assert [p.title for p in snap.plans.values()] == ["Session \ufffd title"]
    assert not translate_list(store, SESSION, "Session \udfff title", steps, tool="TodoWrite").wrote
    result = translate_change(
        store, SESSION, None, tool="TaskCreate", source_id="3", text="Ship \udc80 it", status="pending"
    )
    assert result.added == ["t3"]
    assert store.read_task("t3") is not None and store.read_task("t3").title == "Ship \ufffd it"
    # A well-formed pair stays the character it stands for.
    assert translate_list(store, "other", None, [("Deploy \ud83d\ude80", "pending")], tool="TodoWrite").added == ["t4"]
    assert store.read_task("t4").title == "Deploy \U0001f680"


def test_a_plan_ids_plan_title_keeps_the_plan_id_whole_after_a_long_session_title(store: Store) -> None:
    from planwatch.core.store.schema import TITLE_MAX

    long_title = "Refactor " + "the very long module name " * 40
    translate_list(store, SESSION, long_title, [("Step", "pending")], tool="session/update", plan_key="migrations")
    translate_list(store, SESSION, long_title, [("Main step", "pending")], tool="session/update")
    plans = sorted(store.load().plans.values(), key=lambda p: p.id)
    assert [len(p.title) <= TITLE_MAX for p in plans] == [True, True]
    assert plans[0].title.endswith(" · plan migrations") and plans[0].title.startswith("Refactor the very long")
    assert plans[0].title != plans[1].title
    assert [(t.title, t.plan) for t in store.load().tasks_sorted()] == [
        ("Step", plans[0].id),
        ("Main step", plans[1].id),
    ]
