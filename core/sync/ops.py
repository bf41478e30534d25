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
    return op
