"""The contested records of a shared store, as this host's last pass left them, for the
store view: per record id, each field whose concurrent writes disagreed, the value the
merge kept and the values it did not (core/sync/merge.py keeps them; `sync --status`
lists them too), and each approval whose signature did not verify (shown, never
counted). Read from `.sync/state.json`; nothing for a store that is not shared.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from planwatch.core.regular_files import read_regular

STATE_LIMIT = 256_000_000  # as the replica reads it

UNVERIFIED = "approved (unverified)"
"""The field of an approval that did not verify: `lost` holds its stamp and host."""


@dataclass(frozen=True)
class Contest:
    """A field two hosts changed at once: the value kept and the values that lost."""

    field: str
    kept: Any
    lost: tuple[Any, ...]


def read_contests(root: Path) -> dict[str, list[Contest]]:
    """Record id → its contests (an empty mapping when the store is not shared, or the
    state cannot be read: the view then shows the records as they are)."""
    path = Path(root) / ".sync" / "state.json"
    try:
        state = json.loads(read_regular(path, STATE_LIMIT, follow=False).decode("utf-8"))
    except (OSError, ValueError):  # OSError: a FIFO, a link, a device (NotRegularFile) too
        return {}
    records = state.get("records") if isinstance(state, dict) else None
    out: dict[str, list[Contest]] = {}
    # A state written by hand (or by a later version) may have any shape: what is not
    # the shape the merge writes is passed over, never raised into the view's reader.
    for rec in records.values() if isinstance(records, dict) else ():
        if not isinstance(rec, dict) or rec.get("gone"):
            continue
        contests, unverified = rec.get("contests"), rec.get("unverified")
        found = []
        for entry in contests if isinstance(contests, list) else ():
            if isinstance(entry, list) and len(entry) == 3 and isinstance(entry[0], str):
                lost = entry[2] if isinstance(entry[2], list) else [entry[2]]
                found.append(Contest(entry[0], entry[1], tuple(lost)))
        for item in unverified if isinstance(unverified, list) else ():
            if isinstance(item, dict):  # an approval whose signature did not verify
                found.append(Contest(UNVERIFIED, None, (item,)))
        if found and isinstance(rec.get("id"), str):
            out[rec["id"]] = found
    return out
