"""docs/store.md, Records: {at, by, in}, written only by the host, each at its moment."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from planwatch.core.settings import Settings
from planwatch.core.store.identity import HOST, Caller, caller_from_env, user_for_token
from planwatch.core.store.store import Store
from planwatch.core.store.tool_refusals import ToolRefused
from planwatch.core.store.tools import run_tool
from planwatch.core.user_directory import UserDirectory, UserEntry

T0 = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
DANA = Caller(by="dana", session="sess-1")


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now

    def tick(self) -> datetime:
        self.now += timedelta(minutes=5)
        return self.now


@pytest.fixture
def env(tmp_path: Path) -> tuple[Store, Clock]:
    return Store(tmp_path / "store"), Clock()


def call(env: tuple[Store, Clock], name: str, caller: Caller = DANA, **args: object) -> list[str]:
    store, clock = env
    return run_tool(name, store, Settings(), caller, args, now=clock).lines


def task(env: tuple[Store, Clock], task_id: str = "t1"):  # type: ignore[no-untyped-def]
    rec = env[0].read_task(task_id)
    assert rec is not None
    return rec


def test_task_add_stamps_created_with_at_by_in(env: tuple[Store, Clock]) -> None:
    call(env, "task_add", title="Write the parser")
    rec = task(env)
    assert rec.created is not None
    assert (rec.created.at, rec.created.by, rec.created.in_) == (T0, "dana", "sess-1")
    assert rec.approved is rec.started is rec.finished is rec.reviewed is None
    text = (env[0].root / "tasks" / "t1.md").read_text()
    # The store's form (docs/store.md, Records); this test pinned `2026-11-30 09:00:00+00:00` before.
    assert "created:\n  at: 2026-11-30T09:00:00.000Z\n  by: dana\n  in: sess-1\n" in text


def test_started_is_stamped_by_the_first_doing_only(env: tuple[Store, Clock]) -> None:
    call(env, "task_add", title="Task")
    first = env[1].tick()
    call(env, "task_set", task="t1", status="doing")
    env[1].tick()
    call(env, "task_set", task="t1", status="blocked")
    env[1].tick()
    call(env, "task_set", task="t1", status="doing", caller=Caller(by="eli"))
    rec = task(env)
    assert rec.started is not None and rec.started.at == first and rec.started.by == "dana"


def test_finished_is_stamped_by_the_first_of_review_done_dropped_only(env: tuple[Store, Clock]) -> None:
    call(env, "task_add", title="Task")
    first = env[1].tick()
    call(env, "task_set", task="t1", status="review")
    env[1].tick()
    call(env, "task_set", task="t1", status="done")
    env[1].tick()
    call(env, "task_set", task="t1", status="todo")
    call(env, "task_set", task="t1", status="dropped")
    rec = task(env)
    assert rec.finished is not None and rec.finished.at == first
    assert rec.started is None  # never went through doing


def test_a_new_task_is_always_todo_and_stamped_created_only(env: tuple[Store, Clock]) -> None:
    call(env, "task_add", title="Fresh")
    rec = task(env)
    assert rec.status == "todo" and rec.created is not None
    assert (rec.started, rec.finished, rec.approved, rec.reviewed) == (None, None, None, None)


def test_each_approve_replaces_the_approved_stamp(env: tuple[Store, Clock]) -> None:
    call(env, "task_add", title="Task")
    env[1].tick()
    call(env, "task_approve", task="t1")
    later = env[1].tick()
    call(env, "task_approve", task="t1", caller=Caller(by="eli", session="sess-2"))
    rec = task(env)
    assert rec.approved is not None
    assert (rec.approved.at, rec.approved.by, rec.approved.in_) == (later, "eli", "sess-2")


def test_each_review_replaces_the_reviewed_stamp_with_its_verdict(env: tuple[Store, Clock]) -> None:
    call(env, "task_add", title="Task")
    call(env, "task_review", task="t1", verdict="changes")
    assert task(env).reviewed.verdict == "changes"  # type: ignore[union-attr]
    later = env[1].tick()
    call(env, "task_review", task="t1")
    rec = task(env)
    assert rec.reviewed is not None and rec.reviewed.at == later and rec.reviewed.verdict is None
    assert rec.status == "todo"  # a review stamps; it does not move the task


def test_plan_stamps_created_approved_finished_once(env: tuple[Store, Clock]) -> None:
    call(env, "plan_create", title="Plan")
    approved_at = env[1].tick()
    call(env, "plan_approve", plan="p1")
    finished_at = env[1].tick()
    call(env, "plan_set", plan="p1", status="done")
    env[1].tick()
    call(env, "plan_set", plan="p1", status="active")
    call(env, "plan_set", plan="p1", status="dropped")
    plan = env[0].read_plan("p1")
    assert plan is not None and plan.created is not None and plan.created.at == T0
    assert plan.approved is not None and plan.approved.at == approved_at
    assert plan.finished is not None and plan.finished.at == finished_at


@pytest.mark.parametrize("stamp", ["created", "approved", "started", "finished", "reviewed"])
def test_a_stamp_is_never_taken_as_input(env: tuple[Store, Clock], stamp: str) -> None:
    call(env, "task_add", title="Task")
    forged = {"at": "2020-01-01T00:00:00Z", "by": "mallory"}
    for name, args in (("task_add", {"title": "x"}), ("task_set", {"task": "t1"})):
        with pytest.raises(ToolRefused) as refused:
            call(env, name, **{**args, stamp: forged})
        assert (
            refused.value.message
            == f"Invalid {name} input: {stamp} is a stamp, written only by the host, never taken as input."
        )
    if stamp != "started":
        with pytest.raises(ToolRefused, match=f"{stamp} is a stamp"):
            call(env, "plan_create", title="x", **{stamp: forged})
    assert task(env).created.by == "dana"  # type: ignore[union-attr]


def test_by_is_the_token_user_under_a_directory_else_the_owner(monkeypatch: pytest.MonkeyPatch) -> None:
    import hashlib

    digest = "sha256:" + hashlib.sha256(b"dana-secret").hexdigest()
    settings = Settings(
        owner="host-owner", users=UserDirectory(users={"dana": UserEntry(token=digest, roles=["lead"])})
    )
    assert user_for_token(settings, "dana-secret") == "dana"
    assert user_for_token(settings, "wrong") is None
    with_token = caller_from_env(settings, {"PLANWATCH_TOKEN": "dana-secret", "PLANWATCH_SESSION": "s-7"})
    assert (with_token.by, with_token.user, with_token.session) == ("dana", "dana", "s-7")
    wrong = caller_from_env(settings, {"PLANWATCH_TOKEN": "nope"})
    assert (wrong.by, wrong.user, wrong.session) == ("host-owner", None, None)
    no_dir = caller_from_env(Settings(owner="pat"), {"PLANWATCH_TOKEN": "dana-secret"})
    assert (no_dir.by, no_dir.user) == ("pat", None)
    assert HOST.by == "host"


def test_the_host_name_when_nobody_is_known(env: tuple[Store, Clock]) -> None:
    call(env, "task_add", title="Swept in by the host", caller=HOST)
    rec = task(env)
    assert rec.created is not None and rec.created.by == "host" and rec.created.in_ is None


def test_a_session_or_name_that_is_not_valid_unicode_is_stamped_readably(env: tuple[Store, Clock]) -> None:
    # PLANWATCH_SESSION and the login name come from the environment, where bytes that
    # are not UTF-8 decode to lone surrogates. Bad input never crashes: the stamp keeps
    # the name with U+FFFD in place of the bad byte, and the record stays valid.
    caller = caller_from_env(Settings(owner="d\udcffna"), {"PLANWATCH_SESSION": "sess-\udcff"})
    call(env, "task_add", title="Stamped anyway", caller=caller)
    store, _ = env
    assert store.load().problems == []
    rec = task(env)
    assert rec.created is not None and (rec.created.by, rec.created.in_) == ("d\ufffdna", "sess-\ufffd")
