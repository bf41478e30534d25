"""One deterministic merge: the set of every host's operations → the store's records.

A pure function of the set (the order operations arrive in, and duplicates, change
nothing), so every host that holds the same operations renders the same store:

- title, priority, topic, plan, bot, folder, session, active, note, source, scope and a
  hand-added key: an operation replaces the ones it names (`b`); of the ones nobody
  replaced (concurrent writes), the highest `rank` wins, the others are kept as the
  record's contest (`contested`).
- status: the same, but concurrent moves by precedence (done > dropped > review >
  blocked > doing > todo; a plan: done > dropped > active > draft).
- labels, refs, blockedBy: a set per element; a removal removes only the adds it saw, so
  a concurrent add wins (a block is never lost).
- body / goal: concurrent texts merged three ways against their latest common ancestor;
  overlapping hunks: the later text, the other kept in the contest.
- created from the create; started and finished once (the earliest); reviewed the latest;
  approved the latest *verified* approval (`verified`: the approvals whose signatures
  checked out against the policy, decided outside this pure function); an unverified
  one is listed, never rendered.
- a removal removes the record whatever else happened to it (reported in `removed`),
  and the references other records make to it (`plan`, `blockedBy`), kept as their
  contest.
- `require_approval` (the team's policy says it, the same on every host): a task's move
  to doing is applied only when a verified approval ranked before it approved the
  title and body the task had then (the operations ranked before the move); one that
  is not is *held back*: it counts as the status it replaced, the record lists it
  (`held`) and keeps it as its contest while nobody has moved the status since.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from planwatch.core.store.approvals import digest_of
from planwatch.core.sync.fields import EXTRA, LATEST_STAMPS, ONCE_STAMPS, lww_fields, set_fields, text_field
from planwatch.core.sync.ops import Op, approval_key, encode, rank
from planwatch.core.sync.text3 import merge3

TASK_PRECEDENCE = {"todo": 0, "doing": 1, "blocked": 2, "review": 3, "dropped": 4, "done": 5}
PLAN_PRECEDENCE = {"draft": 0, "active": 1, "dropped": 2, "done": 3}


@dataclass
class Contest:
    """A field two hosts changed at once: the value kept and the values that lost."""

    field: str
    kept: Any
    lost: list[Any]


@dataclass
class MergedRecord:
    """One record as the merged operations make it."""

    uid: str
    kind: str
    id: str
    fields: dict[str, Any]
    heads: dict[str, Any]
    """Per field, what a change of it replaces: the head operations (a list of op ids),
    or for a set field, per element the adds that hold it."""
    create: Op
    contests: list[Contest] = field(default_factory=list)
    unverified: list[Op] = field(default_factory=list)
    held: list[Op] = field(default_factory=list)
    """Moves to doing held back by the team's requireApproval (no verified approval)."""


@dataclass
class Merged:
    """Every record the merged operations make, and those they removed."""

    records: dict[str, MergedRecord]
    removed: dict[str, tuple[str, str]]
    """uid → (kind, id) of each removed record."""
    ops: int = 0


def unique_ops(ops: Iterable[Op]) -> list[Op]:
    """One operation per host and op id (a copy read twice is the same line), in rank
    order. An approval is one per its whole text: a copy of a signed approval given
    another record, digest or host under the same op id (a forgery) is another
    operation, which never takes the genuine one's place and is verified on its own."""
    seen: dict[object, Op] = {}
    for op in ops:
        key: object = approval_key(op) if op["t"] == "approve" else (op["h"], op["o"])
        other = seen.get(key)
        if other is None or encode(op) < encode(other):
            seen[key] = op
    return sorted(seen.values(), key=rank)


def merge(ops: Iterable[Op], verified: frozenset[str] = frozenset(), *, require_approval: bool = False) -> Merged:
    ordered = unique_ops(ops)
    by_uid: dict[str, list[Op]] = {}
    for op in ordered:
        by_uid.setdefault(op["u"], []).append(op)
    records: dict[str, MergedRecord] = {}
    removed: dict[str, tuple[str, str]] = {}
    for uid in sorted(by_uid):
        group = by_uid[uid]
        creates = [op for op in group if op["t"] == "new"]
        if not creates:
            continue  # changes to a record whose create this host has not seen
        create = creates[0]
        if any(op["t"] == "del" for op in group):
            removed[uid] = (create["k"], create["i"])
            continue
        records[uid] = _merge_record(uid, create, group, verified, require_approval)
    _drop_removed_references(records, removed)
    return Merged(records, removed, len(ordered))


def _drop_removed_references(records: dict[str, MergedRecord], removed: dict[str, tuple[str, str]]) -> None:
    """A record that names a removed one (a task added to a plan while another host swept
    it, a block on a task removed meanwhile) no longer names it: a removal wins, and a
    reference to nothing would dangle. What was dropped is kept as the record's contest,
    so a person finds it (sync --status, the store view). Ids are never reissued; an id
    a live record holds is never dropped."""
    live = {rec.id for rec in records.values()}
    gone = {record_id for _kind, record_id in removed.values()} - live
    if not gone:
        return
    for rec in records.values():
        plan = rec.fields.get("plan")
        if rec.kind == "task" and plan in gone:
            rec.fields["plan"] = None
            rec.contests.append(Contest("plan", None, [f"{plan} (removed)"]))
        blocked = rec.fields.get("blockedBy") or []
        dropped = [b for b in blocked if b in gone]
        if dropped:
            rec.fields["blockedBy"] = [b for b in blocked if b not in gone]
            heads = rec.heads.get("blockedBy")
            if isinstance(heads, dict):
                rec.heads["blockedBy"] = {e: h for e, h in heads.items() if e not in gone}
            rec.contests.append(Contest("blockedBy", rec.fields["blockedBy"], [f"{b} (removed)" for b in dropped]))


def _value(op: Op, create: Op, name: str) -> Any:
    return create["v"].get(name) if op is create else op.get("v")


def _heads(create: Op, sets: list[Op]) -> list[Op]:
    replaced: set[str] = set()
    for op in sets:
        replaced.update(op.get("b") or ())
    return [op for op in [create, *sets] if op["o"] not in replaced]


def _ancestors(op: Op, index: dict[str, Op]) -> set[str]:
    out: set[str] = set()
    todo = [op["o"]]
    while todo:
        key = todo.pop()
        if key in out:
            continue
        out.add(key)
        found = index.get(key)
        if found is not None:
            todo.extend(found.get("b") or ())
    return out


HELD = "doing, moved on host {host} with no verified approval of its title and body then (held back: the team requires approval)"
"""The contest's value of a move to doing the merge held back."""


def _held_moves(uid: str, create: Op, group: list[Op], moves: list[Op], verified: frozenset[str]) -> set[str]:
    """The moves to doing (`moves`: the create or a set of status) that no verified
    approval ranked before them approved, for the title and body the task had then."""
    approvals = [op for op in group if op["t"] == "approve" and approval_key(op) in verified]
    held: set[str] = set()
    for move in moves:
        when = rank(move)
        earlier = [op for op in approvals if rank(op) < when]
        if earlier and move is not create:
            before = [op for op in group if op is create or rank(op) < when]
            then = _merge_record(uid, create, before, verified, False).fields
            approved = digest_of(str(then.get("title") or ""), str(then.get("body") or ""))
            if any(op.get("d") == approved for op in earlier):
                continue
        held.add(move["o"])
    return held


def _status_values(create: Op, sets: list[Op], held: set[str], precedence: dict[str, int]) -> dict[str, Any]:
    """Each status operation's value as the merge counts it: a held-back move counts as
    the status it replaced (the highest of them), so what came after it still stands."""
    out: dict[str, Any] = {}
    for op in sorted([create, *sets], key=rank):
        value = _value(op, create, "status")
        if op["o"] in held:
            prior = [out[b] for b in (op.get("b") or ()) if b in out] if op is not create else []
            value = max(prior, key=lambda v: precedence.get(str(v), -1)) if prior else "todo"
        out[op["o"]] = value
    return out


def _merge_record(uid: str, create: Op, group: list[Op], verified: frozenset[str], require: bool) -> MergedRecord:
    kind = create["k"]
    held_ops: list[Op] = []
    started_after: Any = None  # with a move held back: the rank of the first applied one, () for none
    fields: dict[str, Any] = {}
    heads: dict[str, Any] = {}
    contests: list[Contest] = []
    by_field: dict[str, list[Op]] = {}
    for op in group:
        if op["t"] in ("set", "add", "rem", "stamp"):
            by_field.setdefault(op["f"], []).append(op)
    scalar = list(lww_fields(kind)) + ["status"]
    scalar += sorted({f for f in by_field if f.startswith(EXTRA)} | {k for k in create["v"] if k.startswith(EXTRA)})
    for name in scalar:
        sets = [op for op in by_field.get(name, ()) if op["t"] == "set"]
        tops = _heads(create, sets)
        values = {op["o"]: _value(op, create, name) for op in [create, *sets]}
        held: set[str] = set()
        if name == "status":
            precedence = TASK_PRECEDENCE if kind == "task" else PLAN_PRECEDENCE
            if require and kind == "task":
                moves = [op for op in [create, *sets] if values[op["o"]] == "doing"]
                held = _held_moves(uid, create, group, moves, verified) if moves else set()
                if held:
                    values = _status_values(create, sets, held, precedence)
                    applied = [rank(op) for op in moves if op["o"] not in held]
                    started_after = min(applied) if applied else ()
            win = max(tops, key=lambda op: (precedence.get(str(values[op["o"]]), -1), rank(op)))
        else:
            win = max(tops, key=rank)
        kept = values[win["o"]]
        fields[name] = kept
        heads[name] = sorted(op["o"] for op in tops)
        lost = []
        for op in tops:
            value = values[op["o"]]
            if op["o"] in held:
                held_ops.append(op)
                value = HELD.format(host=op["h"])
            if (op is not win or op["o"] in held) and value != kept and value not in lost:
                lost.append(value)
        if lost:
            contests.append(Contest(name, kept, lost))
    # the text, three ways
    text = text_field(kind)
    sets = [op for op in by_field.get(text, ()) if op["t"] == "set"]
    tops = sorted(_heads(create, sets), key=rank)
    index = {op["o"]: op for op in [create, *sets]}
    merged_text = str(_value(tops[0], create, text) or "")
    lost_text: list[str] = []
    if len(tops) > 1:
        common = set.intersection(*(_ancestors(op, index) for op in tops))
        base_ops = [index[k] for k in common if k in index]
        base = str(_value(max(base_ops, key=rank), create, text) or "") if base_ops else ""
        for op in tops[1:]:
            merged_text, lost = merge3(base, merged_text, str(_value(op, create, text) or ""))
            lost_text.extend(lost)
    fields[text] = merged_text
    heads[text] = sorted(op["o"] for op in tops)
    if lost_text:
        contests.append(Contest(text, None, lost_text))
    # the sets
    for name in set_fields(kind):
        adds: dict[str, list[Op]] = {}
        for element in create["v"].get(name) or ():
            adds.setdefault(str(element), []).append(create)
        removed_tags: set[str] = set()
        for op in by_field.get(name, ()):
            if op["t"] == "add":
                adds.setdefault(str(op["v"]), []).append(op)
            elif op["t"] == "rem":
                removed_tags.update(op.get("r") or ())
        live: dict[str, list[Op]] = {}
        for element, tagged in adds.items():
            alive = [op for op in tagged if op["o"] not in removed_tags]
            if alive:
                live[element] = alive
        order = sorted(live, key=lambda e: (min(rank(op) for op in live[e]), e))
        fields[name] = order
        heads[name] = {e: sorted(op["o"] for op in live[e]) for e in order}
    # the stamps
    fields["created"] = create["v"].get("created")
    for name in ONCE_STAMPS + LATEST_STAMPS:
        if kind == "plan" and name == "started":
            continue  # a plan has no started stamp
        candidates = [(create["v"].get(name), rank(create))] if create["v"].get(name) else []
        candidates += [(op["v"], rank(op)) for op in by_field.get(name, ()) if op["t"] == "stamp" and op.get("v")]
        if not candidates:
            fields[name] = None
        elif name in ONCE_STAMPS:
            fields[name] = min(candidates, key=lambda c: (str(c[0].get("at")), c[1]))[0]
        else:
            fields[name] = max(candidates, key=lambda c: c[1])[0]
    approvals = [op for op in group if op["t"] == "approve"]
    good = [op for op in approvals if approval_key(op) in verified]
    fields["approved"] = max(good, key=rank)["v"] if good else None
    if started_after is not None:
        # `started` belongs to a move to doing: a stamp no applied move came before is not rendered
        stamps = [op for op in by_field.get("started", ()) if op["t"] == "stamp" and op.get("v")]
        stamps = [op for op in stamps if started_after != () and rank(op) > started_after]
        fields["started"] = min((op["v"] for op in stamps), key=lambda v: str(v.get("at")), default=None)
    record = MergedRecord(uid, kind, create["i"], fields, heads, create, contests)
    record.unverified = [op for op in approvals if approval_key(op) not in verified]
    record.held = held_ops
    return record
