"""The change log's operations: small JSON objects, one change each.

Every operation has `o` (a random id), `h` (the host that wrote it), `s` (a dense
per-host sequence), `c` (a Lamport clock: above every operation the host had seen),
`u` (the record's stable uid: ids can change, uids never), `k` (task or plan) and `t`:

| t | holds | means |
|---|---|---|
| `new` | `i` the id, `v` the initial fields | the record is created |
| `set` | `f` a field, `v` its value, `b` the operations whose value it replaced | one field changed |
| `add` / `rem` | `f` a list field, `v` an element; `rem`: `r` the adds it removes | a set element |
| `stamp` | `f` started, finished or reviewed, `v` the stamp | a stamp |
| `approve` | `v` the stamp, `d` the digest approved, `sig` the approver's signature | an approval |
| `del` | — | the record is removed |

`rank(op)` is the fixed order of concurrent operations: (Lamport, host, op id).
`encode(op)` is its one canonical line (sorted keys, no spaces), so a log is the same
bytes wherever it is written.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
from typing import Any

Op = dict[str, Any]

OP_TYPES = frozenset({"new", "set", "add", "rem", "stamp", "approve", "del"})
MAX_OP_BYTES = 1_200_000
"""An operation larger than this is refused when read (a record is at most 1 MB)."""


def new_op_id() -> str:
    return secrets.token_hex(8)


def new_uid() -> str:
    return secrets.token_hex(8)


def rank(op: Op) -> tuple[int, str, str]:
    return (int(op["c"]), str(op["h"]), str(op["o"]))


def encode(op: Op) -> str:
    return json.dumps(op, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def approval_key(op: Op) -> str:
    """What an approval's verification is known by: its whole text (a SHA-256 of its
    encoding), never its op id alone — a copy of a signed approval with another record,
    digest or host under the same op id is another operation, verified on its own."""
    return hashlib.sha256(encode(op).encode("utf-8", "surrogatepass")).hexdigest()


def decode_line(line: str, host: str) -> Op | None:
    """One log line as an operation of `host`; None when it is not one (a torn line, a
    foreign host's operation in this host's log, a wrong shape) — skipped, never fatal."""
    if len(line) > MAX_OP_BYTES:
        return None
    try:
        op = json.loads(line)
    except ValueError:
        return None
    if not isinstance(op, dict) or op.get("h") != host or op.get("t") not in OP_TYPES:
        return None
    if not all(isinstance(op.get(k), str) for k in ("o", "u", "k")) or op.get("k") not in ("task", "plan"):
        return None
    if not isinstance(op.get("c"), int) or not isinstance(op.get("s"), int):
        return None
    if op["t"] == "new" and not (isinstance(op.get("i"), str) and isinstance(op.get("v"), dict)):
        return None
    if op["t"] in ("set", "add", "rem", "stamp") and not isinstance(op.get("f"), str):
        return None
    if _shape_problem(op):
        return None
    return op


# The fields whose values are lists of text, text, and stamps (`{at, by, in}`).
_LIST_FIELDS = frozenset(("labels", "blockedBy", "refs"))
_TEXT_FIELDS = frozenset(
    ("title", "status", "priority", "topic", "plan", "bot", "folder", "session", "active", "note", "body", "goal")
)
_STAMP_FIELDS = frozenset(("created", "started", "finished", "reviewed", "approved"))
_RECORD_ID = {"task": re.compile(r"t[1-9][0-9]{0,8}"), "plan": re.compile(r"p[1-9][0-9]{0,8}")}


def _strings(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _field_problem(name: str, value: object) -> bool:
    """Whether `value` is of a type field `name` never holds (None is an absent field)."""
    if value is None:
        return False
    if name in _LIST_FIELDS:
        return not _strings(value)
    if name in _TEXT_FIELDS:
        return not isinstance(value, str)
    if name in _STAMP_FIELDS:
        return not isinstance(value, dict)
    return False


def _shape_problem(op: Op) -> bool:
    """Whether an operation's values are of types no host writes (a number for the
    operations it comes after, a text where a list goes): such a line is skipped as a
    torn one is, never fed to the merge (one in any log stopped every host's passes)."""
    if "b" in op and not _strings(op["b"]):
        return True
    kind, value = op["t"], op.get("v")
    if kind == "new":
        if not _RECORD_ID[op["k"]].fullmatch(op["i"]):
            return True
        fields = value if isinstance(value, dict) else {}
        return any(_field_problem(str(name), item) for name, item in fields.items())
    if kind in ("add", "rem"):
        return not isinstance(value, str)
    if kind == "stamp":
        return value is not None and not isinstance(value, dict)
    if kind == "approve":
        return not isinstance(value, dict) or not isinstance(op.get("d"), str)
    if kind == "set":
        return _field_problem(op["f"], value)
    return False
