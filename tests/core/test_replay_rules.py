"""docs/reading.md replay rules: plan events → AgentPlan, pure, no files."""

from __future__ import annotations

import dataclasses

import pytest

from planwatch.core.model import LIST_STATUSES, AgentPlan, PlanItem, read_status
from planwatch.core.replay import MAX_TASKS, PlanReplay, merge_plans, replay
from planwatch.core.transcripts.events import (
    DocumentSet,
    FullList,
    Gap,
    PlanEvent,
    PlanRemoved,
    StepAdvance,
    StepDoneStart,
    StepWrapUp,
    TaskCreated,
    TaskDeleted,
    TaskUpdated,
)


def items(*pairs: tuple[str, str]) -> tuple[PlanItem, ...]:
    return tuple(PlanItem(text=t, status=read_status(s)) for t, s in pairs)


def statuses(plan: AgentPlan, key: str = "") -> list[tuple[str, str]]:
    group = next(g for g in plan.groups if g.key == key)
    return [(i.text, i.status) for i in group.items]


THREE = items(("Read", "completed"), ("Fix", "in_progress"), ("Ship", "pending"))
DESKTOP = FullList("", "claude_desktop", THREE)


@pytest.mark.parametrize(
    "event",
    [
        StepAdvance(""),
        StepDoneStart("", done=(0,), start=1),
        StepWrapUp(""),
        TaskUpdated("", "1", status="completed"),
        TaskDeleted("", "1"),
    ],
    ids=["advance", "done_start", "wrap_up", "task_update", "task_delete"],
)
def test_step_operations_before_any_full_list_give_no_plan(event: PlanEvent) -> None:
    assert replay([event]) == AgentPlan()


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("pending", "pending"),
        ("in_progress", "in_progress"),
        ("completed", "completed"),
        ("cancelled", "cancelled"),
        ("blocked", "pending"),
        ("done", "pending"),
        ("", "pending"),
        (None, "pending"),
        (3, "pending"),
        ("COMPLETED", "pending"),
    ],
)
def test_unknown_status_reads_as_pending(raw: object, expected: str) -> None:
    assert read_status(raw) == expected


def test_full_list_replaces_the_plan() -> None:
    plan = replay([DESKTOP, FullList("", "claude_desktop", items(("Only", "pending")))])
    assert statuses(plan) == [("Only", "pending")]
    assert plan.main is not None and plan.main.source == "claude_desktop"


def test_empty_full_list_leaves_an_empty_main_group() -> None:
    plan = replay([FullList("", "claude_todos", THREE), FullList("", "claude_todos", ())])
    assert plan.main is not None and plan.main.items == ()
    assert plan.counts() == (0, 0)


def test_task_creation_takes_the_group_over_from_a_list() -> None:
    plan = replay([FullList("", "claude_todos", THREE), TaskCreated("", "1", "Set up schema")])
    assert plan.main is not None and plan.main.source == "claude_tasks"
    assert [(i.text, i.task_id) for i in plan.main.items] == [("Set up schema", "1")]


def test_full_list_switches_back_to_its_source_and_clears_the_task_items() -> None:
    state = PlanReplay()
    state.apply_all([TaskCreated("", "1", "A"), TaskCreated("", "2", "B")])
    state.apply(FullList("", "claude_todos", items(("Todo", "pending"))))
    state.apply(TaskUpdated("", "1", status="completed"))  # the cleared task is gone
    plan = state.snapshot()
    assert plan.main is not None and plan.main.source == "claude_todos"
    assert statuses(plan) == [("Todo", "pending")]


def test_advance_completes_the_step_in_progress_and_starts_the_next_pending() -> None:
    plan = replay([DESKTOP, StepAdvance("")])
    assert statuses(plan) == [("Read", "completed"), ("Fix", "completed"), ("Ship", "in_progress")]


def test_advance_with_nothing_in_progress_starts_the_first_pending() -> None:
    start = FullList("", "claude_desktop", items(("A", "completed"), ("B", "pending"), ("C", "pending")))
    plan = replay([start, StepAdvance("")])
    assert statuses(plan) == [("A", "completed"), ("B", "in_progress"), ("C", "pending")]


def test_advance_starts_the_first_pending_after_the_step_in_progress() -> None:
    start = FullList(
        "", "claude_desktop", items(("A", "pending"), ("B", "in_progress"), ("C", "completed"), ("D", "pending"))
    )
    plan = replay([start, StepAdvance("")])
    assert statuses(plan) == [("A", "pending"), ("B", "completed"), ("C", "completed"), ("D", "in_progress")]


@pytest.mark.parametrize(
    ("done", "start"),
    [(("Fix",), "Ship"), ((1,), 2), (("Fix",), 2), ((1,), "Ship")],
    ids=["by_text", "by_position", "mixed_text_position", "mixed_position_text"],
)
def test_done_and_start_name_steps_by_exact_text_or_position(done: tuple, start: object) -> None:
    plan = replay([DESKTOP, StepDoneStart("", done=done, start=start)])  # type: ignore[arg-type]
    assert statuses(plan) == [("Read", "completed"), ("Fix", "completed"), ("Ship", "in_progress")]


@pytest.mark.parametrize(
    ("done", "start"),
    [(("fix",), None), ((3,), None), ((-1,), None), (("Fix",), "Nope"), ((), 9)],
    ids=["wrong_case", "position_past_end", "negative_position", "unknown_start", "start_past_end"],
)
def test_done_start_naming_an_unknown_step_changes_nothing(done: tuple, start: object) -> None:
    plan = replay([DESKTOP, StepDoneStart("", done=done, start=start)])  # type: ignore[arg-type]
    assert statuses(plan) == statuses(replay([DESKTOP]))


def test_wrap_up_completes_the_step_in_progress_and_leaves_open_steps_open() -> None:
    plan = replay([DESKTOP, StepWrapUp("")])
    assert statuses(plan) == [("Read", "completed"), ("Fix", "completed"), ("Ship", "pending")]


def test_step_operation_on_another_sources_list_changes_nothing() -> None:
    todos = FullList("", "claude_todos", THREE)
    plan = replay([todos, StepAdvance(""), StepWrapUp(""), StepDoneStart("", done=(0,), start=2)])
    assert statuses(plan) == statuses(replay([todos]))


def test_update_for_a_task_never_created_invents_nothing() -> None:
    plan = replay([TaskCreated("", "1", "A"), TaskUpdated("", "2", status="completed"), TaskDeleted("", "3")])
    assert [(i.text, i.task_id, i.status) for i in plan.main.items] == [("A", "1", "pending")]  # type: ignore[union-attr]


def test_task_update_changes_only_the_fields_it_confirms() -> None:
    plan = replay(
        [
            TaskCreated("", "1", "Set up schema"),
            TaskUpdated("", "1", status="in_progress"),
            TaskUpdated("", "1", subject="Set up the schema"),
        ]
    )
    assert statuses(plan) == [("Set up the schema", "in_progress")]


def test_new_creation_reusing_an_id_replaces_the_item_in_place() -> None:
    plan = replay(
        [
            TaskCreated("", "1", "A"),
            TaskCreated("", "2", "B"),
            TaskUpdated("", "1", status="completed"),
            TaskCreated("", "1", "A again"),
        ]
    )
    assert statuses(plan) == [("A again", "pending"), ("B", "pending")]


def test_deleted_removes_the_item() -> None:
    plan = replay([TaskCreated("", "1", "A"), TaskCreated("", "2", "B"), TaskDeleted("", "1")])
    assert statuses(plan) == [("B", "pending")]


def test_at_most_100_known_tasks_oldest_evicted() -> None:
    events: list[PlanEvent] = [TaskCreated("", str(n), f"T{n}") for n in range(1, MAX_TASKS + 6)]
    events.append(TaskUpdated("", "2", status="completed"))  # evicted: ignored
    plan = replay(events)
    assert MAX_TASKS == 100
    assert plan.main is not None and len(plan.main.items) == 100
    assert plan.main.items[0].task_id == "6" and plan.main.items[-1].task_id == "105"
    assert all(i.status == "pending" for i in plan.main.items)


def test_groups_are_kept_apart_by_key_with_the_main_plan_first() -> None:
    plan = replay(
        [
            FullList("acp:p1", "acp", items(("Other", "pending"))),
            FullList("agent-a1", "claude_todos", items(("Sub", "in_progress"))),
            FullList("", "acp", items(("Main", "completed"))),
        ]
    )
    assert [g.key for g in plan.groups] == ["", "acp:p1", "agent-a1"]
    assert plan.counts() == (1, 3)


def test_plan_removed_drops_the_group_and_its_document() -> None:
    plan = replay(
        [
            FullList("acp:p1", "acp", items(("X", "pending"))),
            DocumentSet("acp:d1", "acp", "# notes", replaces_group=True),
            FullList("", "acp", items(("Main", "pending"))),
            PlanRemoved("acp:p1"),
            PlanRemoved("acp:d1"),
            PlanRemoved("acp:never"),
        ]
    )
    assert [g.key for g in plan.groups] == [""]
    assert plan.documents == ()


def test_acp_plan_id_holds_a_checklist_or_a_document_whichever_came_last() -> None:
    checklist = FullList("acp:p1", "acp", items(("X", "pending")))
    document = DocumentSet("acp:p1", "acp", "# design", replaces_group=True)
    as_document = replay([checklist, document])
    assert as_document.groups == () and as_document.documents[0].text == "# design"
    as_checklist = replay([document, checklist])
    assert as_checklist.documents == () and statuses(as_checklist, "acp:p1") == [("X", "pending")]


def test_plan_mode_document_sits_beside_the_main_list() -> None:
    plan = replay([FullList("", "claude_todos", THREE), DocumentSet("", "claude_plan_mode", "# Plan")])
    assert plan.main is not None and len(plan.main.items) == 3
    assert [(d.key, d.source, d.text) for d in plan.documents] == [("", "claude_plan_mode", "# Plan")]


def test_gap_marks_groups_partial_until_a_full_list_restates_them() -> None:
    state = PlanReplay()
    state.apply_all([FullList("", "claude_todos", THREE), FullList("agent-x", "claude_todos", THREE), Gap()])
    assert all(g.partial for g in state.snapshot().groups)
    state.apply(FullList("", "claude_todos", THREE))
    assert [(g.key, g.partial) for g in state.snapshot().groups] == [("", False), ("agent-x", True)]


def test_step_operations_on_a_list_from_before_a_gap_change_nothing() -> None:
    state = PlanReplay()
    state.apply_all([DESKTOP, Gap(), StepAdvance(""), StepWrapUp("")])
    assert statuses(state.snapshot()) == statuses(replay([DESKTOP]))
    state.apply_all([DESKTOP, StepAdvance("")])  # restated after the gap: steps apply again
    assert statuses(state.snapshot())[2] == ("Ship", "in_progress")


def test_task_group_built_after_a_gap_holds_only_known_tasks_and_is_partial() -> None:
    plan = replay([Gap(), TaskUpdated("", "1", status="completed"), TaskCreated("", "7", "Known")])
    assert plan.main is not None and plan.main.partial
    assert statuses(plan) == [("Known", "pending")]


def test_replay_output_is_immutable_and_unchanged_by_later_events() -> None:
    state = PlanReplay()
    state.apply(DESKTOP)
    before = state.snapshot()
    state.apply(StepAdvance(""))
    assert statuses(before) == [("Read", "completed"), ("Fix", "in_progress"), ("Ship", "pending")]
    with pytest.raises(dataclasses.FrozenInstanceError):
        before.main.items[0].status = "completed"  # type: ignore[union-attr,misc]
    with pytest.raises((TypeError, AttributeError)):
        before.main.items.append(PlanItem(text="x"))  # type: ignore[union-attr]


def test_snapshot_without_change_is_the_same_object() -> None:
    state = PlanReplay()
    state.apply(DESKTOP)
    assert state.snapshot() is state.snapshot()


def test_merge_plans_adds_subagent_groups_to_the_session_plan() -> None:
    main = replay([FullList("", "claude_todos", THREE), DocumentSet("", "claude_plan_mode", "# P")])
    sub = replay([FullList("agent-a1", "claude_todos", items(("Sub", "completed")))])
    merged = merge_plans(sub, main)
    assert [g.key for g in merged.groups] == ["", "agent-a1"]
    assert merged.counts() == (2, 4)
    assert len(merged.documents) == 1


@pytest.mark.parametrize("raw", ["cancelled", "deleted", "blocked", None])
def test_a_status_outside_a_list_sources_vocabulary_reads_as_pending(raw: object) -> None:
    # docs/reading.md, Gemini CLI: TodoWrite, tasks, ccd and Codex know pending, in_progress, completed;
    # only ACP (v2) adds cancelled.
    assert read_status(raw, LIST_STATUSES) == "pending"
    assert read_status("completed", LIST_STATUSES) == "completed"
    assert read_status("cancelled") == "cancelled"  # ACP's vocabulary


def test_a_list_cleared_after_every_step_was_done_stays_finished() -> None:
    from planwatch.core.model import PlanItem
    from planwatch.core.replay import replay
    from planwatch.core.transcripts.events import FullList

    done = (
        PlanItem(text="Read", status="completed"),
        PlanItem(text="Write", status="completed"),
        PlanItem(text="Skip", status="cancelled"),
    )
    plan = replay([FullList("", "claude_todos", done), FullList("", "claude_todos", ())])
    assert plan.main is not None and plan.main.cleared and plan.main.items == done
    # A list cleared with a step still open is cleared: no plan is claimed finished.
    open_list = (PlanItem(text="Read", status="completed"), PlanItem(text="Write", status="in_progress"))
    cleared = replay([FullList("", "claude_todos", open_list), FullList("", "claude_todos", ())])
    assert cleared.main is not None and cleared.main.items == () and not cleared.main.cleared
    # A new list after the clearing replaces the finished one.
    again = replay(
        [
            FullList("", "claude_todos", done),
            FullList("", "claude_todos", ()),
            FullList("", "claude_todos", (PlanItem(text="Next"),)),
        ]
    )
    assert again.main is not None and not again.main.cleared and [i.text for i in again.main.items] == ["Next"]
