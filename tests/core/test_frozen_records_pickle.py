"""Frozen records cross from a scan's worker to the index pickled: each comes back equal
to what was sent, still frozen, through its slots (`model.pickled_by_slots`), never
through the dataclass's own restore, which worked every class's fields out again for
every object (most of the time a scan took to take a worker's reads in)."""

from __future__ import annotations

import dataclasses
import pickle
from datetime import UTC, datetime
from pathlib import Path

import pytest

from planwatch.core import model
from planwatch.core.transcripts import claude_tasks, events, reader


def frozen_records() -> list[type]:
    """Every frozen dataclass with slots of the model, the readers' results, the plan
    events and Claude's tasks."""
    found = []
    for module in (model, reader, events, claude_tasks):
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and value.__module__ == module.__name__
                and dataclasses.is_dataclass(value)
                and value.__dataclass_params__.frozen  # type: ignore[attr-defined]
                and "__slots__" in value.__dict__
            ):
                found.append(value)
    return found


def test_every_frozen_record_is_pickled_by_its_slots() -> None:
    records = frozen_records()
    assert {cls.__name__ for cls in records} >= {"PlanItem", "PlanGroup", "AgentPlan", "Session", "SessionResult"}
    for cls in records:
        assert cls.__setstate__.__qualname__.startswith("pickled_by_slots."), cls  # type: ignore[attr-defined]


def test_a_plan_and_a_session_come_back_equal_and_frozen() -> None:
    items = (
        model.PlanItem(text="Write the \x1b[31mtests", status="completed", active_form="Writing"),
        model.PlanItem(text="Ship", status="blocked", waits_for=(0,), priority="high"),
    )
    plan = model.AgentPlan(
        groups=(model.PlanGroup(source="claude_todos", items=items, partial=True),),
        documents=(model.PlanDocument(source="claude_exitplanmode", text="# plan"),),
    )
    session = model.Session(
        id="s1", harness="claude", path=Path("/tmp/s1.jsonl"), updated=datetime(2026, 12, 6, tzinfo=UTC)
    )
    result = reader.SessionResult(facts=reader.SessionFacts(id="s1", first_prompt="hi"), plan=plan)
    for value in (plan, session, result, events.Gap(), *items):
        back = pickle.loads(pickle.dumps(value, pickle.HIGHEST_PROTOCOL))
        assert back == value and type(back) is type(value)
        names = [field.name for field in dataclasses.fields(back)]
        if names:
            with pytest.raises(dataclasses.FrozenInstanceError):
                setattr(back, names[0], None)
