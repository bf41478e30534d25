"""Cline CLI data folders for tests, in the real shapes (fixtures/samples/cline, Cline
CLI 3.0.65): `sessions/<id>/<id>.json` and `<id>.messages.json` (one JSON document each,
rewritten whole) and the board `db/teams.db`, built with sqlite3 from the sample board's
own schema.

Also run as a script by the live tests to write from another process:
`python cline_data.py DATA SESSION_ID TITLE` adds one task to that session's board.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
from pathlib import Path

SAMPLES = Path(__file__).resolve().parent.parent / "fixtures" / "samples" / "cline"
SAMPLE_ID = "1796150957437_jfzg6"


def board_schema() -> list[str]:
    """The sample board's CREATE statements, as Cline made them."""
    db = sqlite3.connect(f"file:{SAMPLES / 'teams.db'}?mode=ro", uri=True)
    try:
        return [
            sql
            for (sql,) in db.execute("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%'")
        ]
    finally:
        db.close()


def write_whole(path: Path, value: object) -> None:
    """Rewrite a JSON document whole, as Cline does (a temporary file renamed over it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_name(path.name + ".tmp")
    part.write_text(json.dumps(value, indent=2))
    os.replace(part, path)


class ClineData:
    """Writes a Cline data folder the way Cline 3 does (the files and rows that matter)."""

    def __init__(self, folder: Path, *, create: bool = True, wal: bool = True) -> None:
        self.folder = folder
        board = folder / "db" / "teams.db"
        board.parent.mkdir(parents=True, exist_ok=True)
        (folder / "sessions").mkdir(parents=True, exist_ok=True)
        fresh = create and not board.exists()
        self.db = sqlite3.connect(board, isolation_level=None, timeout=10)
        if fresh:
            if wal:
                self.db.execute("PRAGMA journal_mode=WAL")
            for sql in board_schema():
                self.db.execute(sql)
            self.db.execute("INSERT INTO team_store_schema_version (lock, version) VALUES (1, 1)")

    def close(self) -> None:
        self.db.close()

    def session(
        self,
        sid: str,
        prompt: str,
        cwd: str,
        *,
        started: str = "2026-12-01T18:49:17.446Z",
        title: str | None = None,
        messages: list[dict] | None = None,
    ) -> Path:
        """A session's two files (the metadata and the messages document)."""
        folder = self.folder / "sessions" / sid
        meta = {
            "version": 1,
            "session_id": sid,
            "source": "cli",
            "started_at": started,
            "ended_at": started,
            "status": "completed",
            "cwd": cwd,
            "workspace_root": cwd,
            "team_name": "team-6UT82",
            "prompt": prompt,
            "metadata": {"title": title if title is not None else prompt},
            "messages_path": str(folder / f"{sid}.messages.json"),
        }
        write_whole(folder / f"{sid}.json", meta)
        self.messages(sid, messages if messages is not None else [self.user(prompt)], updated=started)
        return folder

    def messages(self, sid: str, messages: list[dict], *, updated: str) -> Path:
        path = self.folder / "sessions" / sid / f"{sid}.messages.json"
        doc = {
            "version": 1,
            "updated_at": updated,
            "agent": "lead",
            "sessionId": sid,
            "origin": {"source": "cli", "mode": "user", "sessionId": sid, "version": "3.0.65"},
            "messages": messages,
        }
        write_whole(path, doc)
        return path

    @staticmethod
    def user(text: str) -> dict:
        return {"role": "user", "content": [{"type": "text", "text": f'<user_input mode="act">{text}</user_input>'}]}

    def task(
        self,
        sid: str,
        task_id: str,
        title: str,
        status: str = "pending",
        *,
        depends: list[str] | None = None,
        updated: str = "2026-12-01T18:49:18.207Z",
        version: int = 1,
    ) -> None:
        """One row of the board, as `team_task create` / `claim` / `complete` / `block` leave it."""
        self.db.execute(
            "INSERT INTO team_tasks (team_name, task_id, title, description, status, assignee, depends_on_json, "
            "summary, version, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?) ON CONFLICT (team_name, task_id) DO UPDATE "
            "SET title = excluded.title, status = excluded.status, version = team_tasks.version + 1, "
            "updated_at = excluded.updated_at",
            (
                sid,
                task_id,
                title,
                "",
                status,
                sid if status == "in_progress" else None,
                json.dumps(depends or []),
                None,
                version,
                updated,
            ),
        )


def _add_task(folder: Path, sid: str, title: str) -> None:
    """Another process: one more task on a session's board."""
    data = ClineData(folder, create=False)
    (count,) = data.db.execute("SELECT COUNT(*) FROM team_tasks WHERE team_name = ?", (sid,)).fetchone()
    data.task(sid, f"task_{count + 1:04d}", title, updated="2026-12-01T19:00:00.000Z")
    data.close()


if __name__ == "__main__":
    _add_task(Path(sys.argv[1]), sys.argv[2], sys.argv[3])
