"""Ids renumbered by a sync, as the session that was told the old one still says it.

`<store>/.sync/aliases.json`: `[{"old": "t42", "new": "t173", "session": "…"}]`, one
entry per provisional id renumbered, naming the session its `created` stamp was made
in. A tool call from that session that names the old id acts on the record under its
new id, and its answer says so; any other caller's `t42` means the record now called t42.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from planwatch.core.atomic import atomic_write

ALIASES = "aliases.json"


def read_aliases(sync_dir: Path) -> list[dict[str, Any]]:
    try:
        data = json.loads((sync_dir / ALIASES).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [a for a in data if isinstance(a, dict)] if isinstance(data, list) else []


def add_aliases(sync_dir: Path, entries: list[dict[str, Any]]) -> None:
    if entries:
        atomic_write(sync_dir / ALIASES, json.dumps(read_aliases(sync_dir) + entries, sort_keys=True) + "\n")


def resolve(root: Path, record_id: str, session: str | None) -> str | None:
    """The id `record_id` was renumbered to, as `session` knew it; None when it was not."""
    sync_dir = Path(root) / ".sync"
    if session is None or not (sync_dir / ALIASES).is_file():
        return None
    found = None
    for entry in read_aliases(sync_dir):
        if entry.get("session") == session and entry.get("old") == (found or record_id):
            found = str(entry.get("new"))
    return found
