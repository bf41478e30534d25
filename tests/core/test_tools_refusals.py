"""docs/store.md: a refused input is worded `Invalid <tool> input: <field> must …` — one scheme
for every field of every tool — and a refusal changes nothing on disk."""

from __future__ import annotations

from pathlib import Path

import pytest

from planwatch.core.settings import Settings
from planwatch.core.store.identity import Caller
from planwatch.core.store.store import Store
from planwatch.core.store.tool_refusals import ToolRefused
from planwatch.core.store.tools import run_tool

TASK_STATUS = "status must be todo, doing, blocked, review, done, or dropped."
PLAN_STATUS = "status must be draft, active, done, or dropped."
SOURCE = "source is not an input: it is written only on a task translated from an agent's own list."
SCOPE = "scope must be {kind: folder|bot|session, <kind>: value}, e.g. {kind: folder, folder: /srv/work}."

CASES: list[tuple[str, dict[str, object], str]] = [
    # plan_create
    ("plan_create", {}, "title is required."),
    ("plan_create", {"title": "   "}, "title must not be empty."),
    ("plan_create", {"title": "a\nb"}, "title must be one line."),
    ("plan_create", {"title": 7}, "title must be text."),
    # A lone surrogate (bytes that were not UTF-8 on a command line) is not text a file can hold.
    ("plan_create", {"title": "Ship \udcff"}, "title must be valid Unicode text."),
    ("plan_create", {"title": "x" * 501}, "title must be at most 500 characters."),
    # A plan starts as a draft: status is not an input of plan_create.
    (
        "plan_create",
        {"title": "P", "status": "done"},
        "status is not an input: a plan starts as a draft (change it with plan_set).",
    ),
    (
        "plan_create",
        {"title": "P", "scope": {"kind": "repo", "repo": "x"}},
        "scope kind must be folder, bot, or session.",
    ),
    ("plan_create", {"title": "P", "scope": {"kind": "folder"}}, SCOPE),
    ("plan_create", {"title": "P", "scope": {"kind": "folder", "bot": "b"}}, SCOPE),
    ("plan_create", {"title": "P", "scope": "folder:/srv"}, "scope must be a mapping."),
    ("plan_create", {"title": "P", "refs": "https://x"}, "refs must be a list."),
    ("plan_create", {"title": "P", "id": "p9"}, "id is minted by the store, never taken as input."),
    ("plan_create", {"title": "P", "owner": "x"}, "owner is not a known field."),
    # plan_set
    ("plan_set", {"title": "No id"}, "plan is required."),
    ("plan_set", {"plan": "t1"}, "plan must be a plan id like p1."),
    ("plan_set", {"plan": "p9", "title": "x"}, "plan must match the id of a known plan (see plan_list)."),
    ("plan_set", {"plan": "p1", "status": "doing"}, PLAN_STATUS),
    ("plan_set", {"plan": "p1", "title": None}, "title cannot be removed."),
    ("plan_set", {"plan": "p1", "status": None}, "status cannot be removed."),
    (
        "plan_set",
        {"plan": "p1", "approved": {"by": "x"}},
        "approved is a stamp, written only by the host, never taken as input.",
    ),
    ("plan_set", {"id": "p1", "title": "x"}, "id is not a known field; the input is plan."),
    # plan_show / plan_list / plan_approve
    ("plan_show", {"plan": "p9"}, "plan must match the id of a known plan (see plan_list)."),
    ("plan_show", {}, "plan is required."),
    ("plan_list", {"status": "open"}, PLAN_STATUS),
    ("plan_list", {"scope": {"kind": "team"}}, "scope kind must be folder, bot, or session."),
    ("plan_approve", {"plan": "p9"}, "plan must match the id of a known plan (see plan_list)."),
    ("plan_approve", {"plan": "t1"}, "plan must be a plan id like p1."),
    # task_add
    ("task_add", {}, "title is required."),
    ("task_add", {"title": ""}, "title must not be empty."),
    # A new task is always todo: status is not an input of task_add.
    (
        "task_add",
        {"title": "T", "status": "done"},
        "status is not an input: a new task is always todo (change it with task_set).",
    ),
    ("task_add", {"title": "T", "priority": "urgent"}, "priority must be high, medium, or low."),
    ("task_add", {"title": "T", "plan": "p9"}, "plan must match the id of a known plan (see plan_list)."),
    ("task_add", {"title": "T", "plan": "t1"}, "plan must be a plan id like p1."),
    (
        "task_add",
        {"title": "T", "blockedBy": ["t9"]},
        "blockedBy must name known tasks (see task_list); t9 is not one.",
    ),
    ("task_add", {"title": "T", "blockedBy": ["schema"]}, "blockedBy must hold task ids like t1."),
    ("task_add", {"title": "T", "blockedBy": "t1"}, "blockedBy must be a list."),
    ("task_add", {"title": "T", "labels": [""]}, "labels must not be empty."),
    ("task_add", {"title": "T", "active": True}, "active must be text."),
    # source is on a translated task only: no caller gives it.
    ("task_add", {"title": "T", "source": {"tool": "TodoWrite"}}, SOURCE),
    # Only the store's field names are inputs, and the refusal names the record's field.
    ("task_add", {"title": "T", "blocked_by": ["t1"]}, "blocked_by is not a known field; the input is blockedBy."),
    ("task_add", {"title": "T", "active": "Running\nthe tests"}, "active must be one line."),
    ("task_add", {"title": "T", "note": "one\rtwo"}, "note must be one line."),
    ("task_add", {"title": "T", "id": "t5"}, "id is minted by the store, never taken as input."),
    (
        "task_add",
        {"title": "T", "created": {"by": "x"}},
        "created is a stamp, written only by the host, never taken as input.",
    ),
    # task_set
    ("task_set", {"status": "done"}, "task is required."),
    ("task_set", {"task": "t9", "status": "done"}, "task must match the id of a known task (see task_list)."),
    ("task_set", {"task": "7", "status": "done"}, "task must be a task id like t1."),
    ("task_set", {"task": "t1", "status": "started"}, TASK_STATUS),
    ("task_set", {"task": "t1", "title": None}, "title cannot be removed."),
    ("task_set", {"task": "t1", "blockedBy": ["t1"]}, "blockedBy must not name the task itself."),
    ("task_set", {"task": "t1", "plan": "p9"}, "plan must match the id of a known plan (see plan_list)."),
    (
        "task_set",
        {"task": "t1", "finished": {"by": "x"}},
        "finished is a stamp, written only by the host, never taken as input.",
    ),
    ("task_set", {"id": "t1", "status": "doing"}, "id is not a known field; the input is task."),
    ("task_set", {"task": "t1", "source": {"tool": "TodoWrite", "id": "3"}}, SOURCE),
    ("task_set", {"task": "t1", "blocked_by": []}, "blocked_by is not a known field; the input is blockedBy."),
    ("task_set", {"task": "t1", "note": "a\nb"}, "note must be one line."),
    # task_list
    ("task_list", {"status": "open"}, TASK_STATUS),
    ("task_list", {"status": ["todo", "open"]}, TASK_STATUS),
    ("task_list", {"ready": "maybe"}, "ready must be true or false."),
    ("task_list", {"approved": "perhaps"}, "approved must be true or false."),
    # Only JSON's true and false: lenient spellings are refused as every other wrong type is.
    ("task_list", {"approved": "yes"}, "approved must be true or false."),
    ("task_list", {"ready": 1}, "ready must be true or false."),
    ("task_list", {"ready": "true"}, "ready must be true or false."),
    ("task_list", {"since": "last week"}, "since must be a date and time."),
    # A bare number is not a moment (pydantic would read it as seconds since 1970).
    ("task_list", {"since": 1764460800}, "since must be a date and time."),
    ("task_list", {"since": "1764460800"}, "since must be a date and time."),
    ("task_list", {"plan": "plan-1"}, "plan must be a plan id like p1."),
    # task_approve / task_review
    ("task_approve", {"task": "t9"}, "task must match the id of a known task (see task_list)."),
    ("task_approve", {}, "task is required."),
    ("task_review", {"task": "t9"}, "task must match the id of a known task (see task_list)."),
    ("task_review", {"plan": "p9"}, "plan must match the id of a known plan (see plan_list)."),
    ("task_review", {"task": "t1", "verdict": "lgtm"}, "verdict must be approved or changes."),
    ("task_review", {"task": "x1"}, "task must be a task id like t1."),
    ("task_review", {"task": "p1"}, "task must be a task id like t1."),
    ("task_review", {"task": "t1", "plan": "p1"}, "give task or plan, not both."),
]


@pytest.fixture
def store(tmp_path: Path) -> Store:
    store = Store(tmp_path / "store")
    caller = Caller(by="dana")
    run_tool("plan_create", store, Settings(), caller, {"title": "Plan"})
    run_tool("task_add", store, Settings(), caller, {"title": "Task", "plan": "p1"})
    return store


def snapshot_files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*.md"))}


@pytest.mark.parametrize(("tool", "args", "reason"), CASES, ids=[f"{t}-{r[:40]}" for t, _, r in CASES])
def test_refusal_wording_and_nothing_changes(store: Store, tool: str, args: dict[str, object], reason: str) -> None:
    before = snapshot_files(store.root)
    with pytest.raises(ToolRefused) as refused:
        run_tool(tool, store, Settings(), Caller(by="dana"), args)
    assert refused.value.message == f"Invalid {tool} input: {reason}"
    assert snapshot_files(store.root) == before


def test_every_tool_has_refusal_cases() -> None:
    from planwatch.core.store.tools import TOOL_NAMES

    assert {tool for tool, _, _ in CASES} == set(TOOL_NAMES)


def test_input_that_is_not_a_mapping_is_refused(store: Store) -> None:
    with pytest.raises(ToolRefused, match=r"^Invalid task_add input: input must be a mapping of fields\.$"):
        run_tool("task_add", store, Settings(), Caller(by="dana"), ["title"])  # type: ignore[arg-type]


def test_an_unknown_tool_is_refused(store: Store) -> None:
    with pytest.raises(ToolRefused, match="Unknown tool task_delete"):
        run_tool("task_delete", store, Settings(), Caller(by="dana"), {})


def test_blocked_by_must_not_form_a_cycle(store: Store) -> None:
    """A task waiting on itself through others could never be ready (task_list ready)."""
    caller = Caller(by="dana")
    run_tool("task_add", store, Settings(), caller, {"title": "Second", "blockedBy": ["t1"]})  # t2 waits on t1
    run_tool("task_add", store, Settings(), caller, {"title": "Third", "blockedBy": ["t2"]})  # t3 waits on t2
    before = snapshot_files(store.root)
    with pytest.raises(ToolRefused) as refused:
        run_tool("task_set", store, Settings(), caller, {"task": "t1", "blockedBy": ["t3"]})
    assert refused.value.message == "Invalid task_set input: blockedBy must not form a cycle; t2 already waits on t1."
    assert snapshot_files(store.root) == before
    # A chain that does not come back is fine.
    assert run_tool("task_set", store, Settings(), caller, {"task": "t3", "blockedBy": ["t1", "t2"]}).lines == [
        "t3 todo medium Third"
    ]
