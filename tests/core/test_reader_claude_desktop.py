"""docs/reading.md, The Claude desktop app's task list: the Claude desktop app's task list (`mcp__ccd_turn__*`), read from
fixture transcripts through the reader contract, plus the shape table of claude_desktop.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from planwatch.core.model import AgentPlan, PlanItem
from planwatch.core.transcripts import claude_desktop
from planwatch.core.transcripts.claude import ClaudeReader
from planwatch.core.transcripts.events import FullList, StepAdvance, StepDoneStart, StepWrapUp
from planwatch.core.transcripts.reader import SessionResult

ROOT = Path(__file__).resolve().parents[2]
DEMO_CCD = ROOT / "fixtures/transcripts/claude/projects/-home-dev-web/2c8f4a1d-6e3b-4d7a-b9c2-5f1e8a0d3b7c.jsonl"
LAB = ROOT / "fixtures/transcripts/rules/claude/projects/-home-dev-lab"
STEPS_BEFORE_LIST = LAB / "c0a1b2c3-d4e5-4f60-8a7b-9c0d1e2f3a44.jsonl"
CCD_ERRORS = LAB / "c0a1b2c3-d4e5-4f60-8a7b-9c0d1e2f3a48.jsonl"


def read(path: Path, upto: bytes | None = None, nth: int = 1) -> SessionResult:
    """Read `path`, or only the lines before the `nth` one containing `upto`."""
    lines = path.read_bytes().splitlines(keepends=True)
    if upto is not None:
        hits = [i for i, line in enumerate(lines) if upto in line]
        lines = lines[: hits[nth - 1]]
    reader = ClaudeReader(path)
    for line in lines:
        if reader.wants(line):
            reader.feed_line(line)
    return reader.results()[0]


def steps(result: SessionResult) -> list[str]:
    main = result.plan.main
    assert main is not None and main.source == "claude_desktop"
    return [i.status for i in main.items]


def test_items_is_the_full_list_objects_or_bare_strings() -> None:
    result = read(DEMO_CCD, upto=b'"advance":true')
    assert result.plan.main is not None
    assert [(i.text, i.status) for i in result.plan.main.items] == [
        ("Reproduce the flicker in Safari", "in_progress"),
        ("Find the layout shift in SettingsPage", "pending"),
        ("Fix the font loading order", "pending"),
        ("Add a visual regression test", "pending"),
    ]


def test_advance_completes_the_step_in_progress_and_starts_the_next_pending() -> None:
    result = read(DEMO_CCD, upto=b'"done":[')
    assert steps(result) == ["completed", "in_progress", "pending", "pending"]


def test_done_by_text_and_start_by_position() -> None:
    result = read(DEMO_CCD, upto=b"mcp__ccd_turn__wrap_up")
    assert steps(result) == ["completed", "completed", "in_progress", "pending"]


def test_wrap_up_completes_the_step_in_progress_and_leaves_open_steps_open() -> None:
    assert steps(read(DEMO_CCD)) == ["completed", "completed", "completed", "pending"]


def test_step_operations_before_any_full_list_give_no_plan() -> None:
    assert read(STEPS_BEFORE_LIST).plan == AgentPlan()


def test_only_calls_whose_result_is_not_an_error_apply() -> None:
    # An errored `items`, a refused advance, a done naming no step, a position past the
    # end, and a wrap_up with no result: the first list stands.
    result = read(CCD_ERRORS)
    assert result.plan.main is not None
    assert [(i.text, i.status) for i in result.plan.main.items] == [
        ("Add the collapse button", "in_progress"),
        ("Persist the state", "pending"),
        ("Animate it", "pending"),
    ]


@pytest.mark.parametrize(
    ("entry", "text", "status"),
    [
        ({"text": "A", "status": "completed"}, "A", "completed"),
        ({"content": "B", "status": "in_progress"}, "B", "in_progress"),
        ({"title": "C"}, "C", "pending"),
        ({"step": "D", "status": "weird"}, "D", "pending"),
        ("E", "E", "pending"),
        ({"text": "F", "content": "ignored"}, "F", "pending"),
    ],
)
def test_item_text_from_text_content_title_or_step_or_a_bare_string(entry: Any, text: str, status: str) -> None:
    assert claude_desktop.parse_items([entry]) == (PlanItem(text=text, status=status),)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "tool_input",
    [
        {"items": "not a list"},
        {"items": [{"status": "pending"}]},
        {"items": [3]},
        {"advance": "yes"},
        {"advance": True, "done": ["A"]},
        {"done": "A"},
        {"done": [True]},
        {"start": 1.5},
        {"done": []},
        {"steps": ["A"]},
        {},
        "not an object",
    ],
)
def test_any_other_update_plan_shape_is_unrecognised(tool_input: Any) -> None:
    assert claude_desktop.parse_call(claude_desktop.UPDATE_PLAN, tool_input, "") is None


def test_known_shapes_give_their_events() -> None:
    assert claude_desktop.parse_call(claude_desktop.UPDATE_PLAN, {"items": []}, "") == FullList(
        "", "claude_desktop", ()
    )
    assert claude_desktop.parse_call(claude_desktop.UPDATE_PLAN, {"advance": True}, "g") == StepAdvance("g")
    assert claude_desktop.parse_call(claude_desktop.UPDATE_PLAN, {"done": ["A", 2], "start": "B"}, "") == StepDoneStart(
        "", done=("A", 2), start="B"
    )
    assert claude_desktop.parse_call(claude_desktop.UPDATE_PLAN, {"start": 0}, "") == StepDoneStart(
        "", done=(), start=0
    )
    assert claude_desktop.parse_call(claude_desktop.WRAP_UP, {}, "") == StepWrapUp("")
    assert claude_desktop.parse_call("mcp__ccd_turn__other", {}, "") is None


def test_a_status_outside_the_ccd_vocabulary_reads_as_pending() -> None:
    # docs/reading.md, Gemini CLI: ccd statuses are pending, in_progress, completed; `cancelled` is ACP's.
    items = claude_desktop.parse_items(
        [{"text": "Read", "status": "cancelled"}, {"text": "Fix", "status": "done"}, "Ship"]
    )
    assert items == (PlanItem(text="Read"), PlanItem(text="Fix"), PlanItem(text="Ship"))
