"""Kilo CLI databases for tests, built with sqlite3 from the real schema
(fixtures/samples/kilo/kilo.db.schema.sql, Kilo CLI 7.7.9): OpenCode's tables and rows
(tests/opencode_db.py writes them) plus Kilo's own way of failing, a refused call kept
under the tool's real name with `state.status: "error"`.

Also run as a script by the live tests to write into a database from another process:
`python kilo_db.py DB SESSION_ID TEXT` appends one step to that session's list.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

from opencode_db import OpenCodeDb

SAMPLES = Path(__file__).resolve().parent.parent / "fixtures" / "samples" / "kilo"


class KiloDb(OpenCodeDb):
    """Writes a Kilo CLI database the way Kilo 7.7 does (the tables that matter)."""

    schema = SAMPLES / "kilo.db.schema.sql"
    version = "7.7.9"
    agent = "code"
    worktree = "/home/dev/kilo-todos"

    def refused(self, sid: str, tool: str, raw_input: object, error: str, at: int) -> None:
        """A call Kilo refused, as Kilo keeps it: a part under the tool's real name (a
        cut-off `todowrite`, or a tool that does not exist) with `state.status: "error"`;
        no todo row changes."""
        mid = self.message(sid, "assistant", at)
        state = {"status": "error", "input": raw_input, "error": error, "time": {"start": at, "end": at + 2}}
        self.part(sid, mid, {"type": "tool", "tool": tool, "callID": f"call_{at}", "state": state}, at + 1)
        self.db.execute("UPDATE session SET time_updated = ? WHERE id = ?", (at + 9, sid))


def _append_step(db_path: Path, sid: str, text: str) -> None:
    """Another process: one more step on a session's list, written as Kilo writes it."""
    db = sqlite3.connect(db_path, isolation_level=None, timeout=10)
    rows = db.execute("SELECT content, status, priority FROM todo WHERE session_id = ? ORDER BY position", (sid,))
    todos = [*rows.fetchall(), (text, "pending", "medium")]
    db.close()
    built = KiloDb(db_path, create=False)
    # Ids count on from the rows already there (each builder counts from zero).
    built.n = sum(built.db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] for table in ("message", "part"))
    at = max(int(r) for (r,) in built.db.execute("SELECT time_updated FROM session WHERE id = ?", (sid,))) + 1000
    built.todowrite(sid, [tuple(t) for t in todos], at)  # type: ignore[misc]
    built.close()
    print(json.dumps({"steps": len(todos)}))


if __name__ == "__main__":
    _append_step(Path(sys.argv[1]), sys.argv[2], sys.argv[3])
