"""The mirror obeys the rules the tools obey: with requireApproval an agent's step does
not start an unapproved task, and a list holds at most 50 steps in the store."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_mirror import SESSION_ID, rows, tasks_plan, todos

from planwatch.core.mirror import Mirror
from planwatch.core.model import Session
from planwatch.core.settings import Settings
from planwatch.core.store.identity import Caller
from planwatch.core.store.store import Store
from planwatch.core.store.tools import run_tool

ON = Settings(keep_plans_in_store=True, require_approval=True)


@pytest.fixture
def session(tmp_path: Path) -> Session:
    from datetime import UTC, datetime

    return Session(
        id=SESSION_ID,
        harness="claude",
        path=tmp_path / f"{SESSION_ID}.jsonl",
        title="Fix it",
        updated=datetime.now(UTC),
    )


def test_with_require_approval_the_mirror_starts_only_approved_tasks(tmp_path: Path, session: Session) -> None:
    store = Store(tmp_path / "store")
    mirror = Mirror(store, ON)
    mirror.update(session, todos(("Read", "in_progress"), ("Write", "pending")))
    assert rows(store) == [("t1", "Read", "todo"), ("t2", "Write", "todo")]
    run_tool("task_approve", store, ON, Caller(by="dana"), {"task": "t2"})
    mirror.update(session, todos(("Read", "in_progress"), ("Write", "in_progress")))
    assert rows(store) == [("t1", "Read", "todo"), ("t2", "Write", "doing")]


def test_with_require_approval_claude_tasks_start_only_approved_tasks(tmp_path: Path, session: Session) -> None:
    store = Store(tmp_path / "store")
    Mirror(store, ON).update(session, tasks_plan(("1", "Read", "in_progress")))
    assert rows(store) == [("t1", "Read", "todo")]


def test_a_mirrored_list_keeps_at_most_50_steps(tmp_path: Path, session: Session) -> None:
    store = Store(tmp_path / "store")
    Mirror(store, Settings(keep_plans_in_store=True)).update(
        session, todos(*((f"step {n}", "pending") for n in range(1003)))
    )
    kept = rows(store)
    assert len(kept) == 50 and kept[-1] == ("t50", "step 49", "todo")
    assert len(list((tmp_path / "store" / "tasks").glob("t*.md"))) == 50
