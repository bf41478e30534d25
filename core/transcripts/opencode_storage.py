"""OpenCode before its database: the JSON files under `<data>/opencode/storage/`.

Why a module of its own: the older layout of folders and files is read by walking and
parsing files, not by SQL; it changes (if ever) apart from the database's queries, and
follows the same rules as the database reader it extends (core/transcripts/opencode.py).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from planwatch.core.model import AgentPlan, PlanItem
from planwatch.core.titles import prompt_title
from planwatch.core.transcripts.opencode import OpenCodeReader, SessionRow, Signature
from planwatch.core.transcripts.opencode_parts import MAX_TITLE_CHARS, plan_of, todo_items, todowrite_list
from planwatch.core.transcripts.opencode_sql import DatabaseProblem
from planwatch.core.transcripts.sniff import read_small

__all__ = ["OpenCodeStorageReader"]


class OpenCodeStorageReader(OpenCodeReader):
    """OpenCode before its database: JSON files under `<data>/opencode/storage/`, as its
    public source wrote them (`Storage.write(["session", projectID, sessionID], info)`,
    `Storage.write(["todo", sessionID], todos)`):
    - `session/<projectID>/<sessionID>.json`: `{id, projectID, directory, parentID?,
      title, version, time: {created, updated}}`;
    - `todo/<sessionID>.json`: the current list, `[{content, status, priority, id}]`;
    - `message/<sessionID>/<messageID>.json` (`role`, `time.created`) and
      `part/<messageID>/<partID>.json` (`{type: "text", text}`): the first prompt, read
      only for a session still titled `New session - …`; and, for a session with no todo
      file, its last completed `todowrite` part's list (as the database's session with
      no todo rows).
    The same rules as the database; `path` is the storage folder. Read only when no
    database sits beside it (a database holds what was migrated from here)."""

    def read_changes(self) -> set[str]:
        """Read the sessions whose file or todo file moved; the ids read, added or gone."""
        sessions = self.path / "session"
        if not sessions.is_dir():
            raise DatabaseProblem(f"{self.path}: no session folder (not OpenCode's storage)")
        rows: dict[str, SessionRow] = {}
        signatures: dict[str, Signature] = {}
        for project in _entries(sessions):
            if not project.is_dir():
                continue
            for file in _entries(project):
                info = _read_json(file) if file.name.endswith(".json") else None
                row = _storage_row(info)
                if row is None:
                    continue
                rows[row.id] = row
                todo = self.path / "todo" / f"{row.id}.json"
                try:
                    st = todo.stat()
                    stamp = (st.st_mtime_ns, st.st_size)
                except OSError:
                    stamp = (0, 0)
                signatures[row.id] = (row.updated_ms, *stamp)

        def read(row: SessionRow, wants_prompt: bool) -> tuple[AgentPlan | None, str | None]:
            prompt = self._stored_prompt(row.id) if wants_prompt else None
            if not self.reads_plans:
                return None, prompt
            if signatures[row.id][1] == 0:
                # No todo file (OpenCode versions that kept the list in memory only): the
                # last completed todowrite part's list, as the database reader takes it
                # for a session with no todo rows.
                parts = self._last_todowrite(row.id)
                return (plan_of(parts) if parts is not None else None), prompt
            listed = todo_items(_read_json(self.path / "todo" / f"{row.id}.json"))
            return (plan_of(listed) if listed is not None else None), prompt

        return self.keep_changes(rows, signatures, read)

    def _messages(self, sid: str, role: str | None = None) -> list[tuple[float, str]]:
        """The session's messages (of `role`, when given) as (created, id), in order."""
        found: list[tuple[float, str]] = []
        for file in _entries(self.path / "message" / sid):
            message = _read_json(file)
            if (
                isinstance(message, dict)
                and (role is None or message.get("role") == role)
                and isinstance(message.get("id"), str)
            ):
                created = message.get("time", {}).get("created") if isinstance(message.get("time"), dict) else None
                found.append((created if isinstance(created, int | float) else 0, message["id"]))
        return sorted(found)

    def _last_todowrite(self, sid: str) -> tuple[PlanItem, ...] | None:
        """The list of the session's last completed todowrite part (messages in order,
        each one's parts by id, OpenCode's ids growing with time); None when none."""
        last = None
        for _created, mid in self._messages(sid):
            for file in sorted(_entries(self.path / "part" / mid), key=lambda f: f.name):
                data = read_small(file, MAX_JSON) if file.name.endswith(".json") else None
                listed = todowrite_list(data) if data is not None and b'"todowrite"' in data else None
                if listed is not None:
                    last = listed
        return last

    def _stored_prompt(self, sid: str) -> str | None:
        for _created, mid in self._messages(sid, "user"):
            for file in sorted(_entries(self.path / "part" / mid), key=lambda f: f.name):
                part = _read_json(file)
                if isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str):
                    text = part["text"].strip()
                    if text:
                        return prompt_title(text, MAX_TITLE_CHARS)
        return None


MAX_JSON = 4 << 20  # a storage file larger than this is not read


def _entries(folder: Path) -> list[Path]:
    try:
        return [Path(entry.path) for entry in os.scandir(folder)]
    except OSError:
        return []


def _read_json(path: Path) -> Any:
    """A small regular JSON file's value; None when missing, too large or not JSON."""
    data = read_small(path, MAX_JSON)
    if data is None:
        return None
    try:
        return json.loads(data)
    except (ValueError, RecursionError):
        return None


def _storage_row(info: Any) -> SessionRow | None:
    if not isinstance(info, dict) or not isinstance(info.get("id"), str) or not info["id"]:
        return None
    times = info.get("time")
    times = times if isinstance(times, dict) else {}
    updated = times.get("updated", times.get("created", 0))
    parent = info.get("parentID")
    title = info.get("title")
    directory = info.get("directory")
    return SessionRow(
        id=info["id"],
        parent_id=parent if isinstance(parent, str) and parent else None,
        title=title if isinstance(title, str) else "",
        directory=directory if isinstance(directory, str) and directory else None,
        updated_ms=int(updated) if isinstance(updated, int | float) else 0,
    )
