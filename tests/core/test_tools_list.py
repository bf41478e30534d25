"""docs/store.md: task_list filters — status, approved, ready, by, since (any stamp), plan,
session — one line per task, `id status priority title`."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from planwatch.core.settings import Settings
from planwatch.core.store.identity import Caller
from planwatch.core.store.store import Store
from planwatch.core.store.tools import run_tool

MON = datetime(2026, 11, 23, 9, 0, tzinfo=UTC)


class World:
    """A store built through the tools with a clock moved by hand."""

    def __init__(self, root: Path) -> None:
        self.store = Store(root)
        self.now = MON

    def run(self, name: str, who: str = "dana", settings: Settings | None = None, **args: object) -> list[str]:
        return run_tool(name, self.store, settings or Settings(), Caller(by=who), args, now=lambda: self.now).lines

    def ids(self, settings: Settings | None = None, **filters: object) -> list[str]:
        return [line.split()[0] for line in self.run("task_list", settings=settings, **filters)]


@pytest.fixture
def world(tmp_path: Path) -> World:
    w = World(tmp_path / "store")
    w.run("plan_create", title="Plan")
    w.run("task_add", title="Schema", plan="p1", session="s-1")  # t1
    w.run("task_add", title="Migration", blockedBy=["t1"], plan="p1")  # t2
    w.run("task_add", title="Docs", session="s-1")  # t3
    w.run("task_add", title="Blocked by two", blockedBy=["t1", "t3"])  # t4
    w.now = MON + timedelta(days=2)  # Wednesday
    w.run("task_set", who="eli", task="t1", status="doing")
    w.run("task_approve", who="lena", task="t3")
    w.now = MON + timedelta(days=4)  # Friday
    w.run("task_set", who="eli", task="t1", status="done")
    w.run("task_add", who="max", title="Late add")  # t5
    w.run("task_set", who="max", task="t5", status="review")
    return w


def test_answers_one_line_per_task_in_id_order(world: World) -> None:
    assert world.run("task_list") == [
        "t1 done medium Schema",
        "t2 todo medium Migration",
        "t3 todo medium Docs",
        "t4 todo medium Blocked by two",
        "t5 review medium Late add",
    ]


def test_status_filter_takes_one_or_several(world: World) -> None:
    assert world.ids(status="todo") == ["t2", "t3", "t4"]
    assert world.ids(status=["done", "review"]) == ["t1", "t5"]


def test_approved_filter(world: World) -> None:
    assert world.ids(approved=True) == ["t3"]
    assert world.ids(approved=False) == ["t1", "t2", "t4", "t5"]


def test_ready_is_todo_with_every_blocker_done(world: World) -> None:
    # t2: blocker t1 done → ready. t3: no blockers → ready. t4: t3 still todo → not ready.
    assert world.ids(ready=True) == ["t2", "t3"]
    assert world.ids(ready=False) == ["t1", "t4", "t5"]
    world.run("task_set", task="t3", status="done")
    assert world.ids(ready=True) == ["t2", "t4"]


def test_ready_also_needs_approval_when_approval_is_required(world: World) -> None:
    strict = Settings(require_approval=True)
    assert world.ids(settings=strict, ready=True) == ["t3"]  # only t3 is approved


def test_a_blocker_that_is_gone_keeps_a_task_from_being_ready(world: World) -> None:
    world.store.delete_task("t1")
    assert world.ids(ready=True) == ["t3"]


def test_by_matches_any_stamp(world: World) -> None:
    assert world.ids(by="eli") == ["t1"]  # started and finished stamps
    assert world.ids(by="lena") == ["t3"]  # approved stamp
    assert world.ids(by="max") == ["t5"]  # created stamp
    assert world.ids(by="dana") == ["t1", "t2", "t3", "t4"]
    assert world.ids(by="nobody") == []


def test_since_matches_any_stamp_at_or_after(world: World) -> None:
    wednesday = MON + timedelta(days=2)
    assert world.ids(since=wednesday.isoformat()) == ["t1", "t3", "t5"]
    assert world.ids(since="2026-11-27") == ["t1", "t5"]  # a date means its midnight, UTC
    assert world.ids(since="2026-11-28T00:00:00+00:00") == []


def test_by_and_since_together_must_match_one_stamp(world: World) -> None:
    # dana created t1 on Monday and eli finished it on Friday: no dana stamp since Wednesday.
    assert world.ids(by="dana", since="2026-11-25") == []
    assert world.ids(by="eli", since="2026-11-27") == ["t1"]


def test_plan_and_session_filters(world: World) -> None:
    assert world.ids(plan="p1") == ["t1", "t2"]
    assert world.ids(session="s-1") == ["t1", "t3"]
    assert world.ids(plan="p1", status="todo") == ["t2"]
