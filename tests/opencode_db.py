"""OpenCode databases for tests, built with sqlite3 from the real schema
(fixtures/samples/opencode/schema.sql, OpenCode 1.18.33) and rows in the real shapes
(fixtures/samples/opencode/rows.jsonl): sessions, messages, `todo` rows rewritten whole
by each `todowrite`, and the tool parts that record each call.

Also run as a script by `test_opencode.py` to write into a database from another
process: `python opencode_db.py DB SESSION_ID N` rewrites that session's list N times.
"""

from __future__ import annotations

import json
import sqlite3
import sys
import time
from pathlib import Path

SAMPLES = Path(__file__).resolve().parent.parent / "fixtures" / "samples" / "opencode"
SCHEMA = SAMPLES / "schema.sql"
PROJECT = "c07bde1ba17458a89a273f0e18e4edfbe0400c29"
T0 = 1796079825941  # the sample's session.time_created (epoch ms)


class OpenCodeDb:
    """Writes an OpenCode database the way OpenCode 1.18 does (the tables that matter).
    A fork with OpenCode's tables (Kilo CLI: tests/kilo_db.py) sets its own schema,
    version and agent."""

    schema = SCHEMA
    version = "1.18.33"
    agent = "build"
    worktree = "/home/dev/opencode-todos"

    def __init__(self, path: Path, *, wal: bool = False, create: bool = True) -> None:
        self.path = path
        self.db = sqlite3.connect(path, isolation_level=None, timeout=10)
        self.n = 0
        if wal:
            self.db.execute("PRAGMA journal_mode=WAL")
            # Keep writes in the -wal file: nothing is checkpointed into the .db.
            self.db.execute("PRAGMA wal_autocheckpoint=0")
        if create:
            self.db.executescript(self.schema.read_text())
            self.db.execute(
                "INSERT INTO project (id, worktree, vcs, time_created, time_updated, sandboxes) VALUES (?,?,?,?,?,?)",
                (PROJECT, self.worktree, "git", T0, T0, "[]"),
            )

    def close(self) -> None:
        self.db.close()

    def _id(self, prefix: str) -> str:
        self.n += 1
        return f"{prefix}_22eb{self.n:08x}001TestRowAbCdEf"[: len(prefix) + 30]

    def session(
        self,
        sid: str,
        title: str,
        directory: str = "/home/dev/opencode-todos",
        *,
        updated: int = T0,
        parent: str | None = None,
    ) -> str:
        self.db.execute(
            "INSERT INTO session (id, project_id, parent_id, slug, directory, path, title, version, "
            "time_created, time_updated, agent) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            (sid, PROJECT, parent, "mighty-circuit", directory, "", title, self.version, updated, updated, self.agent),
        )
        return sid

    def touch(self, sid: str, updated: int) -> None:
        self.db.execute("UPDATE session SET time_updated = ? WHERE id = ?", (updated, sid))

    def message(self, sid: str, role: str, at: int) -> str:
        mid = self._id("msg")
        data = {
            "role": role,
            "time": {"created": at},
            "agent": self.agent,
            "model": {"providerID": "mock", "modelID": "mock-model"},
        }
        if role == "assistant":
            data = {
                "parentID": None,
                "role": "assistant",
                "mode": self.agent,
                "agent": self.agent,
                "path": {"cwd": "/home/dev/opencode-todos", "root": "/home/dev/opencode-todos"},
                "cost": 0,
                "time": {"created": at},
            }
        self.db.execute(
            "INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?,?,?,?,?)",
            (mid, sid, at, at, json.dumps(data, separators=(",", ":"))),
        )
        return mid

    def part(self, sid: str, mid: str, data: dict, at: int) -> None:
        self.db.execute(
            "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?,?,?,?,?,?)",
            (self._id("prt"), mid, sid, at, at, json.dumps(data, separators=(",", ":"))),
        )

    def prompt(self, sid: str, text: str, at: int) -> None:
        mid = self.message(sid, "user", at)
        self.part(sid, mid, {"type": "text", "text": text}, at + 1)

    def todowrite(
        self,
        sid: str,
        todos: list[tuple[str, str, str]],
        at: int,
        *,
        status: str = "completed",
        tool: str = "todowrite",
        rows: bool = True,
    ) -> None:
        """One todowrite call as OpenCode records it: an assistant message with the tool
        part, and (when the call completed) the todo rows rewritten in one transaction."""
        items = [{"content": c, "status": s, "priority": p} for c, s, p in todos]
        self.db.execute("BEGIN")
        mid = self.message(sid, "assistant", at)
        state: dict = {"status": status, "input": {"todos": items}}
        if status == "completed":
            state.update(
                {
                    "output": json.dumps(items, indent=2),
                    "title": f"{sum(t[1] != 'completed' for t in todos)} todos",
                    "metadata": {"todos": items, "truncated": False},
                    "time": {"start": at, "end": at + 7},
                }
            )
        else:
            state.update({"error": "Invalid input for todowrite", "time": {"start": at, "end": at + 2}})
        self.part(sid, mid, {"type": "tool", "tool": tool, "callID": f"call_{at}", "state": state}, at + 1)
        if status == "completed" and tool == "todowrite" and rows:
            self.db.execute("DELETE FROM todo WHERE session_id = ?", (sid,))
            for position, (content, status_, priority) in enumerate(todos):
                self.db.execute(
                    "INSERT INTO todo (session_id, content, status, priority, position, time_created, time_updated) VALUES (?,?,?,?,?,?,?)",
                    (sid, content, status_, priority, position, at + 5, at + 5),
                )
        self.db.execute("UPDATE session SET time_updated = ? WHERE id = ?", (at + 9, sid))
        self.db.execute("COMMIT")


def corrupt_database_beside_a_claude_session(claude_projects: Path, database: Path) -> Path:
    """A Claude Code session under `claude_projects`, and at `database` an SQLite header
    followed by random bytes (a database no read can take); returns `database`."""
    import os
    import shutil

    folder = claude_projects / "-home-dev-api"
    folder.mkdir(parents=True)
    sample = SAMPLES.parent / "claude-code-todowrite.jsonl"
    shutil.copy(sample, folder / "5e0c2a4b-1f3d-4e6a-9b8c-7d0e1f2a3b4c.jsonl")
    database.write_bytes(b"SQLite format 3\x00" + os.urandom(8192))
    return database


def _rewrite_in_a_loop(db_path: Path, sid: str, times: int) -> None:
    """Another process writing while planwatch reads: rewrite a list `times` times."""
    db = OpenCodeDb(db_path, create=False)
    at = int(time.time() * 1000)
    for n in range(times):
        todos = [(f"Step {k}", "completed" if k < n % 20 else "pending", "medium") for k in range(20)]
        db.todowrite(sid, todos, at + n * 10)
        # Paced as an agent writes (a call, then a breath), so planwatch's reads fall
        # between writes as well as during them: the pacing of the other program, not a
        # wait for a state.
        time.sleep(0.002)
    db.close()


if __name__ == "__main__":
    _rewrite_in_a_loop(Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]))
