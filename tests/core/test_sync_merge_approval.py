"""The team's requireApproval applied by the merge: a task's move to doing counts only
when a verified approval ranked before it approved the title and body the task had
then; any other move is held back (it counts as the status it replaced), listed, and
kept as the record's contest. A pure function: every host renders the same."""

from __future__ import annotations

import random
from typing import Any

from planwatch.core.store.approvals import digest_of
from planwatch.core.sync.capture import Clock, create_ops
from planwatch.core.sync.merge import HELD, merge
from planwatch.core.sync.ops import Op, approval_key
from tests.core.test_sync_merge import STAMP, edit, task_fields

STARTED = {"at": "2026-11-30T10:00:00.000Z", "by": "bo"}


def approve(clock: Clock, ops: list[Op], uid: str, title: str, body: str = "") -> Op:
    return clock.op(uid, "task", "approve", v=STAMP, d=digest_of(title, body), sig="signed")


def start(clock: Clock, ops: list[Op], uid: str) -> list[Op]:
    return edit(clock, ops, uid, status="doing", started=STARTED)


def setup() -> tuple[Clock, Clock, list[Op], str]:
    a, b = Clock("host-a"), Clock("host-b")
    ops = create_ops(a, "task", "t1", task_fields())
    b.see(a.lamport)
    return a, b, ops, ops[0]["u"]


def merged(ops: list[Op], verified: set[str], require: bool = True) -> Any:
    return merge(ops, frozenset(verified), require_approval=require).records[ops[0]["u"]]


def test_a_move_to_doing_without_an_approval_is_held_back_and_listed() -> None:
    _a, b, ops, uid = setup()
    ops += start(b, ops, uid)
    rec = merged(ops, set())
    assert rec.fields["status"] == "todo"
    assert rec.fields["started"] is None  # the held-back move's stamp is not rendered
    assert [op["h"] for op in rec.held] == ["host-b"]
    assert [(c.field, c.kept, c.lost) for c in rec.contests] == [("status", "todo", [HELD.format(host="host-b")])]
    # without the team's rule the same operations render the move
    free = merged(ops, set(), require=False)
    assert free.fields["status"] == "doing" and free.fields["started"] == STARTED and not free.held


def test_a_move_after_a_verified_approval_of_the_same_text_is_applied() -> None:
    a, b, ops, uid = setup()
    approval = approve(a, ops, uid, "Write the report")
    ops.append(approval)
    b.see(a.lamport)
    ops += start(b, ops, uid)
    rec = merged(ops, {approval_key(approval)})
    assert rec.fields["status"] == "doing" and not rec.held and not rec.contests
    # the same approval unverified (no signature that checks out) holds the move back
    assert merged(ops, set()).fields["status"] == "todo"


def test_an_approval_of_another_text_or_made_after_the_move_does_not_count() -> None:
    a, b, ops, uid = setup()
    approval = approve(a, ops, uid, "Write the report")
    ops.append(approval)
    b.see(a.lamport)
    ops += edit(b, ops, uid, title="Delete the reports")  # changed after it was approved
    ops += start(b, ops, uid)
    assert merged(ops, {approval_key(approval)}).fields["status"] == "todo"
    # approved after the move: the move is still held back (approve first, then start)
    a2, b2, ops2, uid2 = setup()
    ops2 += start(b2, ops2, uid2)
    a2.see(b2.lamport)
    late = approve(a2, ops2, uid2, "Write the report")
    ops2.append(late)
    assert merged(ops2, {approval_key(late)}).fields["status"] == "todo"


def test_a_change_of_the_text_after_an_approved_move_keeps_the_task_doing() -> None:
    a, b, ops, uid = setup()
    approval = approve(a, ops, uid, "Write the report")
    ops.append(approval)
    b.see(a.lamport)
    ops += start(b, ops, uid)
    ops += edit(b, ops, uid, title="Write the report, with figures")
    rec = merged(ops, {approval_key(approval)})
    assert rec.fields["status"] == "doing" and rec.fields["title"] == "Write the report, with figures"


def test_what_came_after_a_held_back_move_stands_and_clears_its_contest() -> None:
    _a, b, ops, uid = setup()
    ops += start(b, ops, uid)
    ops += edit(b, ops, uid, status="review")  # moved on after the held-back move: seen
    rec = merged(ops, set())
    assert rec.fields["status"] == "review" and not rec.held and not rec.contests


def test_a_created_doing_task_is_held_back_too() -> None:
    a = Clock("host-a")
    ops = create_ops(a, "task", "t1", task_fields(status="doing"))
    rec = merged(ops, set())
    assert rec.fields["status"] == "todo" and len(rec.held) == 1


def test_any_order_and_duplication_renders_the_same_held_back_store() -> None:
    a, b, ops, uid = setup()
    approval = approve(a, ops, uid, "Write the report")
    ops.append(approval)
    b.see(a.lamport)
    ops += start(b, ops, uid)
    c = Clock("host-c")
    c.see(b.lamport)
    ops += edit(c, ops, uid, status="todo")
    ops += start(c, ops, uid)  # approved then, for the same text: applied
    ops += create_ops(c, "task", "t2", task_fields("Another"))
    ops += start(c, ops, ops[-1]["u"])  # never approved: held back
    want = merge(ops, frozenset({approval_key(approval)}), require_approval=True)
    rng = random.Random(7)
    for _ in range(20):
        shuffled = ops + rng.sample(ops, 3)
        rng.shuffle(shuffled)
        got = merge(shuffled, frozenset({approval_key(approval)}), require_approval=True)
        assert {u: r.fields for u, r in got.records.items()} == {u: r.fields for u, r in want.records.items()}
    statuses = sorted(r.fields["status"] for r in want.records.values())
    assert statuses == ["doing", "todo"]
