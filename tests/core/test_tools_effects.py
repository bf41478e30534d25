"""docs/store.md, The tools: each of the ten tools, its effect on the files, and its answer lines."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from planwatch.core.settings import Settings
from planwatch.core.store.identity import Caller
from planwatch.core.store.store import Store
from planwatch.core.store.tool_refusals import ToolRefused
from planwatch.core.store.tools import TOOL_NAMES, TOOLS, run_tool

T0 = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now

    def tick(self, minutes: int = 1) -> None:
        self.now += timedelta(minutes=minutes)


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(tmp_path / "store")


@pytest.fixture
def clock() -> Clock:
    return Clock()


def call(
    store: Store,
    clock: Clock,
    name: str,
    settings: Settings | None = None,
    caller: Caller | None = None,
    **args: object,
) -> list[str]:
    return run_tool(
        name, store, settings or Settings(), caller or Caller(by="dana", session="sess-1"), args, now=clock
    ).lines


def test_there_are_exactly_the_ten_tools() -> None:
    assert TOOL_NAMES == (
        "plan_create", "plan_set", "plan_show", "plan_list", "task_add", "task_set",
        "task_list", "plan_approve", "task_approve", "task_review",
    )  # fmt: skip
    assert set(TOOLS) == set(TOOL_NAMES)
    for spec in TOOLS.values():  # every input has a JSON schema an MCP client can read
        assert spec.input_model.model_json_schema()["additionalProperties"] is False


def test_plan_create_writes_a_draft_plan_and_answers_its_line(store: Store, clock: Clock) -> None:
    lines = call(
        store,
        clock,
        "plan_create",
        title="Move the API",
        scope={"kind": "folder", "folder": "/srv/api"},
        goal="All endpoints on the new tables.",
        refs=["https://wiki.example/api"],
    )
    assert lines == ["p1 draft Move the API"]
    plan = store.read_plan("p1")
    assert plan is not None
    assert plan.scope is not None and plan.scope.label() == "folder:/srv/api"
    assert plan.goal == "All endpoints on the new tables.\n"
    assert plan.refs == ("https://wiki.example/api",)
    assert (store.root / "plans" / "p1.md").read_text().endswith("---\nAll endpoints on the new tables.\n")


def test_plan_set_changes_fields_and_null_removes_one(store: Store, clock: Clock) -> None:
    call(store, clock, "plan_create", title="Plan", scope={"kind": "bot", "bot": "reviewer"})
    assert call(store, clock, "plan_set", plan="p1", title="Renamed", status="active", goal="New goal") == [
        "p1 active Renamed"
    ]
    call(store, clock, "plan_set", plan="p1", scope=None)
    plan = store.read_plan("p1")
    assert plan is not None and plan.scope is None and plan.goal == "New goal\n" and plan.title == "Renamed"


def test_plan_show_answers_the_plan_then_its_tasks(store: Store, clock: Clock) -> None:
    call(store, clock, "plan_create", title="Ship v1")
    call(store, clock, "plan_create", title="Other")
    call(store, clock, "task_add", title="First", plan="p1", priority="high")
    call(store, clock, "task_add", title="Elsewhere", plan="p2")
    call(store, clock, "task_add", title="Second", plan="p1")
    assert call(store, clock, "plan_show", plan="p1") == [
        "p1 draft Ship v1",
        "t1 todo high First",
        "t3 todo medium Second",
    ]


def test_plan_list_filters_by_status_and_scope(store: Store, clock: Clock) -> None:
    call(store, clock, "plan_create", title="A", scope={"kind": "folder", "folder": "/srv/a"})
    call(store, clock, "plan_create", title="B", scope={"kind": "folder", "folder": "/srv/b"})
    call(store, clock, "plan_set", plan="p2", status="active")
    call(store, clock, "plan_create", title="C", scope={"kind": "session", "session": "s-9"})
    call(store, clock, "plan_create", title="D")
    assert call(store, clock, "plan_list") == ["p1 draft A", "p2 active B", "p3 draft C", "p4 draft D"]
    assert call(store, clock, "plan_list", status="active") == ["p2 active B"]
    assert call(store, clock, "plan_list", scope={"kind": "folder"}) == ["p1 draft A", "p2 active B"]
    assert call(store, clock, "plan_list", scope={"kind": "folder", "folder": "/srv/b"}) == ["p2 active B"]
    assert call(store, clock, "plan_list", status="done") == []


def test_task_add_takes_every_field(store: Store, clock: Clock) -> None:
    call(store, clock, "plan_create", title="Plan")
    call(store, clock, "task_add", title="Blocker")
    lines = call(
        store,
        clock,
        "task_add",
        title="Everything",
        priority="low",
        labels=["db", "api"],
        topic="schema",
        plan="p1",
        bot="claude",
        folder="/srv/api",
        session="s-1",
        blockedBy=["t1"],
        active="Doing everything",
        note="a note",
        refs=["r1"],
        body="The body.\n",
    )
    assert lines == ["t2 todo low Everything"]
    rec = store.read_task("t2")
    assert rec is not None
    assert (rec.labels, rec.topic, rec.plan, rec.bot, rec.folder, rec.session) == (
        ("db", "api"),
        "schema",
        "p1",
        "claude",
        "/srv/api",
        "s-1",
    )
    assert (rec.blocked_by, rec.active, rec.note, rec.refs, rec.body) == (
        ("t1",),
        "Doing everything",
        "a note",
        ("r1",),
        "The body.\n",
    )
    assert rec.source is None  # source is never an input: it marks translated tasks only


def test_task_set_changes_only_the_named_fields_and_null_removes(store: Store, clock: Clock) -> None:
    call(store, clock, "task_add", title="Task", labels=["a"], note="n", priority="high")
    assert call(store, clock, "task_set", task="t1", title="Retitled", note=None, labels=["b", "c"]) == [
        "t1 todo high Retitled"
    ]
    rec = store.read_task("t1")
    assert rec is not None and rec.note is None and rec.labels == ("b", "c") and rec.priority == "high"
    call(store, clock, "task_set", task="t1", priority=None)
    rec = store.read_task("t1")
    assert rec is not None and rec.priority == "medium"


def test_a_task_moving_between_plans(store: Store, clock: Clock) -> None:
    call(store, clock, "plan_create", title="One")
    call(store, clock, "plan_create", title="Two")
    call(store, clock, "task_add", title="Mover", plan="p1")
    call(store, clock, "task_set", task="t1", plan="p2")
    assert call(store, clock, "plan_show", plan="p1") == ["p1 draft One"]
    assert call(store, clock, "plan_show", plan="p2") == ["p2 draft Two", "t1 todo medium Mover"]


def test_titles_are_printed_safe_whole_and_on_one_line(store: Store, clock: Clock) -> None:
    """Hand-edited records are untrusted: escapes never reach the terminal. The title is
    printed whole (scripts and agents read it back), newlines folded to spaces."""
    store.tasks_dir.mkdir(parents=True)
    (store.tasks_dir / "t1.md").write_text('---\nid: t1\ntitle: "\\e[31mred\\e[0m ok"\nstatus: todo\n---\n')
    (store.tasks_dir / "t2.md").write_text("---\nid: t2\ntitle: " + "long " * 40 + "\nstatus: todo\n---\n")
    lines = call(store, clock, "task_list")
    assert lines[0] == "t1 todo medium \\x1b[31mred\\x1b[0m ok"
    assert "\x1b" not in "".join(lines)
    assert lines[1] == "t2 todo medium " + " ".join(["long"] * 40)
    (store.tasks_dir / "t3.md").write_text('---\nid: t3\ntitle: "two\\nlines"\nstatus: todo\n---\n')
    assert call(store, clock, "task_list")[2] == "t3 todo medium two lines"


def test_task_review_of_a_plan_stamps_the_plan(store: Store, clock: Clock) -> None:
    call(store, clock, "plan_create", title="Plan")
    assert call(store, clock, "task_review", plan="p1", verdict="approved") == ["p1 draft Plan"]
    plan = store.read_plan("p1")
    assert plan is not None and plan.reviewed is not None and plan.reviewed.verdict == "approved"


def test_tools_acting_on_the_demo_store(copy_fixture: object, clock: Clock) -> None:
    root = copy_fixture("store/demo")  # type: ignore[operator]
    store = Store(root)
    snap = store.load()
    assert snap.problems == []
    assert len(snap.plans) == 4 and len(snap.tasks) == 13
    # Tasks name the sessions of the demo transcripts (fixtures/transcripts).
    sessions = {t.session for t in snap.tasks.values() if t.session}
    assert "4f6b2a9e-1c3d-4e8f-9a7b-2d5c8e1f0a3b" in sessions and "019ad3f1-7c2e-7b40-9a51-3e8d0c6f2b17" in sessions
    assert call(store, clock, "plan_show", plan="p3") == [
        "p3 active The settings page flickers on load in Safari. Find the cause and fix it.",
        "t8 done medium Reproduce the flicker in Safari",
        "t9 done medium Find the layout shift in SettingsPage",
        "t10 done medium Fix the font loading order",
        "t11 todo medium Add a visual regression test",
    ]
    # The hand edit (a comment) in t3 survives a change made through the tools.
    call(store, clock, "task_set", task="t3", status="blocked")
    assert (
        (root / "tasks" / "t3.md")
        .read_text()
        .startswith("---\n# dana: ask Eli for the staging credentials first\nid: t3\n")
    )
    with pytest.raises(ToolRefused):
        call(store, clock, "task_set", task="t999", status="done")


HAND_EDITED = """---
# Dana, 2026-11-28: split from t1 after standup
id: t1
title: Write the migration   # short on purpose
status: todo  # waiting for Eli
labels:
  - db
  - api
reviewer: eli   # not a planwatch field
---
Body written by hand.
"""


def test_hand_edits_with_comments_survive_a_task_set(store: Store, clock: Clock) -> None:
    store.tasks_dir.mkdir(parents=True)
    path = store.tasks_dir / "t1.md"
    path.write_text(HAND_EDITED)
    assert call(store, clock, "task_set", task="t1", status="doing", labels=["db", "api", "ops"], note="started") == [
        "t1 doing medium Write the migration"
    ]
    text = path.read_text()
    assert text.startswith("---\n# Dana, 2026-11-28: split from t1 after standup\nid: t1\n")
    assert "title: Write the migration   # short on purpose\n" in text
    assert "# waiting for Eli" in text.split("status: doing")[1].splitlines()[0]
    assert "labels:\n  - db\n  - api\n  - ops\n" in text  # still a block list, as written
    assert "reviewer: eli   # not a planwatch field\n" in text  # unknown keys are kept
    assert "priority:" not in text  # absent means medium: not added to a hand-written file
    assert text.endswith("---\nBody written by hand.\n")
    rec = store.read_task("t1")
    assert rec is not None and rec.status == "doing" and rec.extra == {"reviewer": "eli"} and rec.started is not None
