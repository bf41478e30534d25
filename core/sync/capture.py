"""A record's change as operations: the fields that differ from the version it was
changed from, each against the operations that version's value came from.

Why a module of its own: every local change — a tool's write, a person's save in an
editor — reaches the log the same way, by comparing the file with what this host last
rendered for it. A save from an editor that loaded an older render is compared with the
render it matches best (`choose_base`), so a remote change the person never touched is
not reverted by their save.

- `Clock(host, seq, lamport)`: makes operations (`op(...)`), ahead of all it has seen.
- `create_ops(clock, kind, record_id, fields)`: a new record's `new` operation.
- `change_ops(clock, uid, kind, base, new)`: the operations from `base` (a render:
  fields and heads) to `new` (fields); stamps only grow (a removed stamp is rendered
  back), `created` never changes, `approved` is the caller's (it needs the ledger).
- `choose_base(renders, fields)`: the render `fields` differs from in fewest fields
  (the newest of equals).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from planwatch.core.sync.fields import EXTRA, LATEST_STAMPS, ONCE_STAMPS, lww_fields, set_fields, text_field
from planwatch.core.sync.ops import Op, new_op_id, new_uid


@dataclass
class Clock:
    """This host's operation counter and Lamport clock while changes are captured."""

    host: str
    seq: int = 0
    lamport: int = 0

    def see(self, lamport: int) -> None:
        self.lamport = max(self.lamport, lamport)

    def op(self, uid: str, kind: str, t: str, **rest: Any) -> Op:
        self.seq += 1
        self.lamport += 1
        out: Op = {"o": new_op_id(), "h": self.host, "s": self.seq, "c": self.lamport, "u": uid, "k": kind, "t": t}
        out.update(rest)
        return out


def create_ops(clock: Clock, kind: str, record_id: str, fields: dict[str, Any]) -> list[Op]:
    initial = {k: v for k, v in fields.items() if k != "approved"}
    return [clock.op(new_uid(), kind, "new", i=record_id, v=initial)]


def _scalars(kind: str, *fields: dict[str, Any]) -> list[str]:
    names = list(lww_fields(kind)) + ["status", text_field(kind)]
    extra: set[str] = set()
    for f in fields:
        extra.update(k for k in f if k.startswith(EXTRA))
    return names + sorted(extra)


def change_ops(
    clock: Clock, uid: str, kind: str, create_id: str, base: dict[str, Any], new: dict[str, Any]
) -> list[Op]:
    """`base` is a render: `{"fields": …, "heads": …}`."""
    old, heads = base["fields"], base["heads"]
    ops: list[Op] = []
    for name in _scalars(kind, old, new):
        if new.get(name) != old.get(name):
            ops.append(clock.op(uid, kind, "set", f=name, v=new.get(name), b=list(heads.get(name) or [create_id])))
    for name in set_fields(kind):
        before, after = list(old.get(name) or []), list(new.get(name) or [])
        tags: dict[str, list[str]] = heads.get(name) or {}
        for element in after:
            if element not in before:
                ops.append(clock.op(uid, kind, "add", f=name, v=element))
        for element in before:
            if element not in after:
                ops.append(clock.op(uid, kind, "rem", f=name, v=element, r=list(tags.get(element) or [create_id])))
    stamps = ONCE_STAMPS + LATEST_STAMPS if kind == "task" else ("finished",) + LATEST_STAMPS
    for name in stamps:
        value = new.get(name)
        if value is not None and value != old.get(name):
            ops.append(clock.op(uid, kind, "stamp", f=name, v=value))
    return ops


def differing(a: dict[str, Any], b: dict[str, Any]) -> int:
    return sum(1 for k in set(a) | set(b) if a.get(k) != b.get(k))


def choose_base(renders: list[dict[str, Any]], fields: dict[str, Any]) -> dict[str, Any]:
    """The render (oldest first in `renders`) that `fields` differs from least; the newest wins ties."""
    best = renders[-1]
    score = differing(best["fields"], fields)
    for render in reversed(renders[:-1]):
        s = differing(render["fields"], fields)
        if s < score:
            best, score = render, s
    return best
