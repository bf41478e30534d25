"""docs/reading.md, Claude Code: TaskCreate/TaskUpdate correlated with their results,
read from fixture transcripts through the reader contract."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from planwatch.core.model import AgentPlan
from planwatch.core.transcripts.claude import ClaudeReader
from planwatch.core.transcripts.claude_tasks import MAX_PENDING, TaskCorrelator
from planwatch.core.transcripts.events import TaskCreated, TaskUpdated
from planwatch.core.transcripts.reader import SessionResult

ROOT = Path(__file__).resolve().parents[2]
DEMO_TASKS = ROOT / "fixtures/transcripts/claude/projects/-home-dev-api/9d1e7c54-3b2a-4f6e-8c1d-7a9b0e2f4c6d.jsonl"
LAB = ROOT / "fixtures/transcripts/rules/claude/projects/-home-dev-lab"
STEPS_BEFORE_LIST = LAB / "c0a1b2c3-d4e5-4f60-8a7b-9c0d1e2f3a44.jsonl"
SWITCH = LAB / "c0a1b2c3-d4e5-4f60-8a7b-9c0d1e2f3a45.jsonl"
REUSE = LAB / "c0a1b2c3-d4e5-4f60-8a7b-9c0d1e2f3a60.jsonl"
AMBIGUOUS = LAB / "c0a1b2c3-d4e5-4f60-8a7b-9c0d1e2f3a61.jsonl"
UNRELATED = LAB / "c0a1b2c3-d4e5-4f60-8a7b-9c0d1e2f3a62.jsonl"
EVICTION = LAB / "c0a1b2c3-d4e5-4f60-8a7b-9c0d1e2f3a63.jsonl"
ERRORS = LAB / "c0a1b2c3-d4e5-4f60-8a7b-9c0d1e2f3a64.jsonl"
SUBAGENT = LAB / "c0a1b2c3-d4e5-4f60-8a7b-9c0d1e2f3a65/subagents/agent-b81c0d9e2f3a4b5c6.jsonl"


def lines_of(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def feed(reader: ClaudeReader, lines: list[bytes]) -> None:
    for line in lines:
        if reader.wants(line):
            reader.feed_line(line)


def read(path: Path, upto: bytes | None = None) -> SessionResult:
    """Read `path`, or only the lines before the first one containing `upto`."""
    lines = lines_of(path)
    if upto is not None:
        lines = lines[: next(i for i, line in enumerate(lines) if upto in line)]
    reader = ClaudeReader(path)
    feed(reader, lines)
    return reader.results()[0]


def tasks(plan: AgentPlan) -> list[tuple[str | None, str, str]]:
    assert plan.main is not None and plan.main.source == "claude_tasks"
    return [(i.task_id, i.text, i.status) for i in plan.main.items]


def test_tasks_replay_to_the_confirmed_state() -> None:
    assert tasks(read(DEMO_TASKS).plan) == [
        ("1", "Reproduce the dropped webhook", "completed"),
        ("2", "Add retry with exponential backoff", "in_progress"),
        ("3", "Add a dead-letter queue (SQS) for failed events", "pending"),
    ]


def test_task_is_created_only_by_a_successful_result_returning_its_id() -> None:
    # Up to the first TaskCreate's result: the call alone creates nothing.
    before = read(DEMO_TASKS, upto=b"Task #1 created successfully")
    assert before.plan == AgentPlan()
    after = read(DEMO_TASKS, upto=b"Task #2 created successfully")
    assert tasks(after.plan) == [("1", "Reproduce the dropped webhook", "pending")]


def test_status_comes_from_the_results_status_change() -> None:
    result = read(DEMO_TASKS, upto=b'"addBlockedBy"')
    assert tasks(result.plan)[0] == ("1", "Reproduce the dropped webhook", "in_progress")


def test_dependency_only_update_changes_nothing() -> None:
    before = read(DEMO_TASKS, upto=b'"addBlockedBy"')
    after = read(DEMO_TASKS, upto=b"stripe trigger")
    assert len(tasks(before.plan)) == 4
    assert before.plan == after.plan


def test_task_ids_are_compared_as_strings() -> None:
    # The demo sends `"taskId": 2` (a number) and the result answers "2".
    assert b'"taskId":2,' in DEMO_TASKS.read_bytes()
    assert tasks(read(DEMO_TASKS).plan)[1][2] == "in_progress"


def test_subject_edit_only_when_the_result_confirms_the_field() -> None:
    assert tasks(read(DEMO_TASKS).plan)[2][1] == "Add a dead-letter queue (SQS) for failed events"
    correlator = TaskCorrelator()
    correlator.on_call("toolu_1", "TaskUpdate", {"taskId": "1", "subject": "Renamed", "status": "completed"}, "")
    events = correlator.on_result(
        "toolu_1",
        is_error=False,
        result={
            "success": True,
            "taskId": "1",
            "updatedFields": ["status"],
            "statusChange": {"from": "pending", "to": "completed"},
        },
    )
    assert events == [TaskUpdated("", "1", status="completed", subject=None)]


def test_explicitly_updated_status_field_without_status_change_counts() -> None:
    correlator = TaskCorrelator()
    correlator.on_call("toolu_1", "TaskUpdate", {"taskId": "4", "status": "in_progress"}, "")
    events = correlator.on_result(
        "toolu_1", is_error=False, result={"success": True, "taskId": "4", "updatedFields": ["status"]}
    )
    assert events == [TaskUpdated("", "4", status="in_progress")]


def test_deleted_removes_the_item() -> None:
    assert "4" not in [t[0] for t in tasks(read(DEMO_TASKS).plan)]
    before_delete = read(DEMO_TASKS, upto=b'"status":"deleted"')
    assert "4" in [t[0] for t in tasks(before_delete.plan)]


def test_failed_update_with_success_false_is_ignored() -> None:
    # taskId 99 → {"success": false, "error": "Task not found"}, no is_error: nothing.
    before = read(DEMO_TASKS, upto=b'"taskId":"99"')
    after = read(DEMO_TASKS, upto=b"Retries are in")
    assert len(tasks(before.plan)) == 3  # task 4 was deleted just before
    assert before.plan == after.plan


def test_unconfirmed_update_is_ignored() -> None:
    # The last call (task 3 → in_progress) has no result in the file.
    assert tasks(read(DEMO_TASKS).plan)[2][2] == "pending"


def test_update_for_a_task_never_seen_created_invents_nothing() -> None:
    assert read(STEPS_BEFORE_LIST).plan == AgentPlan()


def test_unrelated_results_are_ignored() -> None:
    # A result for another task id, a result for no call, a non-task answer to a
    # TaskCreate, and an update confirming no field.
    assert tasks(read(UNRELATED).plan) == [
        ("1", "Check the crontab", "pending"),
        ("2", "Fix the timezone", "pending"),
    ]


def test_ambiguous_batched_results_are_ignored() -> None:
    assert tasks(read(AMBIGUOUS).plan) == [("1", "Draft the notes", "pending"), ("2", "Get sign-off", "pending")]


def test_new_creation_reusing_an_id_replaces_that_item_in_place() -> None:
    assert tasks(read(REUSE).plan) == [
        ("1", "Remove the old-checkout flag", "pending"),
        ("2", "Remove the dark-mode flag", "pending"),
        ("3", "Remove the beta-nav flag", "pending"),
    ]


def test_at_most_100_known_tasks_are_kept_oldest_evicted() -> None:
    items = tasks(read(EVICTION).plan)
    assert len(items) == 100
    assert items[0][0] == "6" and items[-1][0] == "105"
    # Task 3 was evicted: its update invents nothing; task 50 is known and completes.
    assert "3" not in [t[0] for t in items]
    assert [t for t in items if t[2] == "completed"] == [("50", "Triage issue #1050", "completed")]


def test_at_most_100_pending_requests_oldest_evicted() -> None:
    correlator = TaskCorrelator()
    for n in range(MAX_PENDING + 1):
        correlator.on_call(f"toolu_{n}", "TaskCreate", {"subject": f"T{n}", "description": "long " * 50}, "")
    assert len(correlator.pending_ids) == MAX_PENDING == 100
    assert correlator.on_result("toolu_0", is_error=False, result={"task": {"id": "1"}}) == []
    assert correlator.on_result("toolu_100", is_error=False, result={"task": {"id": "101"}}) == [
        TaskCreated("", "101", "T100")
    ]


def test_pending_requests_keep_only_ids_subjects_and_statuses() -> None:
    correlator = TaskCorrelator()
    correlator.on_call(
        "toolu_1", "TaskCreate", {"subject": "S", "description": "secret detail", "activeForm": "Doing"}, ""
    )
    [request] = correlator._pending.values()
    kept = {f.name: getattr(request, f.name) for f in dataclasses.fields(request)}
    assert "secret detail" not in repr(kept) and "Doing" not in repr(kept)
    assert set(kept) == {"kind", "group", "task_id", "subject", "status"}


def test_errored_creation_and_refused_update_are_ignored() -> None:
    assert tasks(read(ERRORS).plan) == [("1", "Validate the password field", "pending")]


def test_full_list_switches_back_to_todos_and_clears_the_task_items() -> None:
    during = read(SWITCH, upto=b"Publish the package")
    assert tasks(during.plan) == [("1", "Move models into users/", "in_progress"), ("2", "Fix the imports", "pending")]
    after = read(SWITCH).plan
    assert after.main is not None and after.main.source == "claude_todos"
    # Task 2's later update finds no task: the list cleared them.
    assert [(i.text, i.status, i.task_id) for i in after.main.items] == [
        ("Move models into users/", "completed", None),
        ("Publish the package", "pending", None),
    ]


def test_subagent_transcript_cannot_create_tasks_but_todowrite_works() -> None:
    result = read(SUBAGENT)
    [group] = result.plan.groups
    assert group.source == "claude_todos" and group.key == "agent-b81c0d9e2f3a4b5c6"
    assert [i.task_id for i in group.items] == [None, None]


@pytest.mark.parametrize("task_id", [True, None, "", 1.5, ["1"]])
def test_update_without_a_usable_task_id_is_not_held(task_id: object) -> None:
    correlator = TaskCorrelator()
    assert not correlator.on_call("toolu_1", "TaskUpdate", {"taskId": task_id, "status": "completed"}, "")
    assert correlator.pending_ids == ()


def test_a_status_change_outside_the_task_vocabulary_reads_as_pending() -> None:
    # docs/reading.md, Gemini CLI: task statuses are pending, in_progress, completed (+ deleted as an
    # update); anything else, `cancelled` included, reads as pending.
    correlator = TaskCorrelator()
    correlator.on_call("toolu_1", "TaskUpdate", {"taskId": 4, "status": "cancelled"}, "")
    events = correlator.on_result(
        "toolu_1",
        is_error=False,
        result={
            "success": True,
            "taskId": "4",
            "updatedFields": ["status"],
            "statusChange": {"from": "in_progress", "to": "cancelled"},
        },
    )
    assert events == [TaskUpdated("", "4", status="pending")]
