"""OpenCode's database through SQLite, read-only: one short read transaction per read.

Why a module of its own: how the database is opened (`file:…?mode=ro`, `PRAGMA
query_only`, a busy timeout and retries on `SQLITE_BUSY`), which schema it must have,
and the queries over its `todo`, `part` and `message` tables change with SQLite and
OpenCode's schema, apart from how the reader turns sessions into results
(core/transcripts/opencode.py). Never copied, never written.

- `read_transaction(path, work)`: `work(connection)` in one snapshot; every failure is
  a `DatabaseProblem` whose message names the file.
- The queries: `check_schema`, `todowrite_calls`, `last_lists`, `lists_of_parts`,
  `first_prompt`, `prompt_of_part`, `user_prompts` (what `o` pages), `has_column`, `chunks`.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar
from urllib.parse import quote

from planwatch.core.model import PlanItem
from planwatch.core.regular_files import NotRegularFile, check_regular
from planwatch.core.transcripts.opencode_parts import part_text, todowrite_list

__all__ = [
    "DatabaseProblem",
    "check_schema",
    "chunks",
    "first_prompt",
    "has_column",
    "is_busy",
    "last_lists",
    "lists_of_parts",
    "moment_of",
    "prompt_of_part",
    "read_transaction",
    "with_retries",
    "todowrite_calls",
    "user_prompts",
    "wording",
]

BUSY_TIMEOUT = 1.0  # seconds SQLite waits on a lock before answering SQLITE_BUSY
RETRIES = 3  # reads tried again after SQLITE_BUSY, with a short pause between
RETRY_PAUSE = 0.2
# The tables and columns read; a database without them is of a schema we do not know.
REQUIRED_COLUMNS: dict[str, tuple[str, ...]] = {
    "session": ("id", "parent_id", "directory", "title", "time_updated"),
    "todo": ("session_id", "content", "status", "position", "time_updated"),
    "part": ("session_id", "message_id", "time_created", "data"),
    "message": ("id", "session_id", "time_created", "data"),
}
# Text in a part's data JSON that any todowrite part holds: a cheap SQL filter before
# the JSON is parsed (and confirmed) here.
_TODOWRITE_LIKE = '%"todowrite"%'

T = TypeVar("T")


class DatabaseProblem(Exception):
    """The database cannot be read; the message says why (shown with the file)."""


def read_transaction(path: Path, work: Callable[[sqlite3.Connection], T], *, one_statement: bool = False) -> T:
    """Run `work` in one short read transaction on a fresh read-only connection,
    trying again on SQLITE_BUSY; any failure becomes a DatabaseProblem. `one_statement`:
    `work` reads with a single statement, which is a snapshot of its own (SQLite's
    implicit read transaction, ended when it is done): no BEGIN or PRAGMA round trip
    (a thousand small Copilot CLI databases are opened one after another)."""

    def open_db() -> sqlite3.Connection:
        # The name's own bytes, quoted: a folder's byte that is not UTF-8 (a lone
        # surrogate in the str) is %-escaped as the byte SQLite then opens.
        uri = f"file:{quote(os.fsencode(path))}?mode=ro"
        return sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT, isolation_level=None, check_same_thread=False)

    def read(connection: sqlite3.Connection) -> T:
        if not one_statement:
            connection.execute("PRAGMA query_only = 1")
            connection.execute("BEGIN")  # one snapshot; closing the connection ends it
        return work(connection)

    return with_retries(path, open_db, read, lambda connection: connection.close())


C = TypeVar("C")


def with_retries(
    path: Path | str, open_db: Callable[[], C], work: Callable[[C], T], close_db: Callable[[C], None]
) -> T:
    """The one way a database file is read (OpenCode's and Kilo's by a connection of
    their own, Copilot CLI's attached to a thread's connection): only a regular file
    (SQLite would open a FIFO and wait on it); `open_db`, `work` and then `close_db`,
    tried again with a growing pause on SQLITE_BUSY, at opening or reading; every other
    failure a DatabaseProblem naming the file."""
    try:
        check_regular(path)
    except NotRegularFile as exc:
        raise DatabaseProblem(f"{path}: {exc.strerror}") from None
    except OSError:
        raise DatabaseProblem(f"{path}: no database there") from None
    last: Exception | None = None
    lenient = False  # text columns decoded with U+FFFD for bytes that are not UTF-8
    for attempt in range(RETRIES + 2):
        try:
            db = open_db()
            if lenient and isinstance(db, sqlite3.Connection):
                db.text_factory = _lenient_text
        except sqlite3.OperationalError as exc:
            if is_busy(exc):
                last = exc
                time.sleep(RETRY_PAUSE * (attempt + 1))
                continue
            raise DatabaseProblem(f"{path}: cannot be opened ({exc})") from exc
        except sqlite3.Error as exc:  # an ATTACH of a file that is not a database
            raise DatabaseProblem(f"{path}: {wording(exc)}") from exc
        try:
            return work(db)
        except DatabaseProblem as exc:
            raise DatabaseProblem(f"{path}: {exc}") from exc
        except sqlite3.OperationalError as exc:
            if is_busy(exc):
                last = exc
                time.sleep(RETRY_PAUSE * (attempt + 1))
                continue
            if not lenient and str(exc).startswith(_UNDECODABLE):
                # A text that is not UTF-8 (one bad row): read again with it replaced,
                # rather than losing every session the database holds.
                lenient = True
                continue
            raise DatabaseProblem(f"{path}: {wording(exc)}") from exc
        except sqlite3.DatabaseError as exc:  # not a database, malformed
            raise DatabaseProblem(f"{path}: {wording(exc)}") from exc
        finally:
            if lenient and isinstance(db, sqlite3.Connection):
                db.text_factory = str  # a thread's kept connection (Copilot CLI's) back as it was
            close_db(db)
    raise DatabaseProblem(f"{path}: locked by another program for too long ({last})")


# How sqlite3 says a text column held bytes that are not UTF-8.
_UNDECODABLE = "Could not decode to UTF-8"


def _lenient_text(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def moment_of(ms: int) -> datetime | None:
    if ms <= 0:
        return None
    try:
        return datetime.fromtimestamp(ms / 1000, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return None


def chunks(ids: Sequence[str], size: int = 500) -> Iterable[list[str]]:
    """Ids in chunks under SQLite's bound-parameter limit."""
    for at in range(0, len(ids), size):
        yield list(ids[at : at + size])


def has_column(db: sqlite3.Connection, table: str, column: str) -> bool:
    return any(str(r[1]) == column for r in db.execute(f"PRAGMA table_info({table})"))


def check_schema(db: sqlite3.Connection) -> None:
    for table, columns in REQUIRED_COLUMNS.items():
        have = {str(r[1]) for r in db.execute(f"PRAGMA table_info({table})")}
        missing = [c for c in columns if c not in have]
        if not have:
            raise DatabaseProblem(f"an unknown schema version (no `{table}` table)")
        if missing:
            raise DatabaseProblem(f"an unknown schema version (`{table}` has no {', '.join(missing)})")


def todowrite_calls(db: sqlite3.Connection, ids: list[str]) -> list[tuple[str, datetime | None, tuple[PlanItem, ...]]]:
    """Each completed todowrite call of sessions `ids`: (session, time, list), in order."""
    found: list[tuple[int, str, datetime | None, tuple[PlanItem, ...]]] = []
    for chunk in chunks(sorted(ids)):
        marks = ",".join("?" * len(chunk))
        query = f"SELECT session_id, time_created, data FROM part WHERE session_id IN ({marks}) AND data LIKE ?"
        for sid, created, data in db.execute(query, (*chunk, _TODOWRITE_LIKE)):
            listed = todowrite_list(data)
            if listed is not None:
                ms = int(created) if isinstance(created, int | float) else 0
                found.append((ms, sid, moment_of(ms), listed))
    found.sort(key=lambda call: call[0])
    return [(sid, moment, listed) for _ms, sid, moment, listed in found]


def last_lists(db: sqlite3.Connection, ids: set[str]) -> dict[str, tuple[tuple[PlanItem, ...], str]]:
    """For sessions without todo rows: the list of each one's last completed todowrite,
    and the id of the part holding it."""
    found: dict[str, tuple[tuple[PlanItem, ...], str]] = {}
    for chunk in chunks(sorted(ids)):
        marks = ",".join("?" * len(chunk))
        query = (
            f"SELECT session_id, data, id FROM part WHERE session_id IN ({marks}) AND data LIKE ? "
            "ORDER BY session_id, time_created, id"
        )
        for sid, data, part in db.execute(query, (*chunk, _TODOWRITE_LIKE)):
            listed = todowrite_list(data)
            if listed is not None:
                found[sid] = (listed, str(part))
    return found


def lists_of_parts(db: sqlite3.Connection, parts: dict[str, str]) -> dict[str, tuple[tuple[PlanItem, ...], str]]:
    """The lists the named parts hold (session id → part id, as the warm-start cache
    remembered them): one lookup by id instead of a search of every part."""
    found: dict[str, tuple[tuple[PlanItem, ...], str]] = {}
    wanted = {part: sid for sid, part in parts.items()}
    for chunk in chunks(sorted(wanted)):
        marks = ",".join("?" * len(chunk))
        for part, owner, data in db.execute(f"SELECT id, session_id, data FROM part WHERE id IN ({marks})", chunk):
            sid = wanted.get(str(part))
            listed = todowrite_list(data) if sid is not None and owner == sid else None
            if sid is not None and listed is not None:
                found[sid] = (listed, str(part))
    return found


def first_prompt(db: sqlite3.Connection, sid: str) -> tuple[str | None, str | None]:
    """The text of the first user message's text part (the title until OpenCode names
    the session), and the id of that part."""
    query = (
        "SELECT p.data, m.data, p.id FROM message m JOIN part p ON p.message_id = m.id "
        "WHERE m.session_id = ? ORDER BY m.time_created, m.id, p.time_created, p.id LIMIT 50"
    )
    for part_data, message_data, part_id in db.execute(query, (sid,)):
        try:
            message = json.loads(message_data)
            part = json.loads(part_data)
        except (ValueError, TypeError, RecursionError):
            continue
        if not isinstance(message, dict) or message.get("role") != "user":
            continue
        text = part_text(part)
        if text:
            return text, str(part_id)
    return None, None


PROMPTS_MAX = 500
"""The most prompts `user_prompts` answers (the latest): a pager's worth, bounded."""


def user_prompts(db: sqlite3.Connection, sid: str, limit: int = PROMPTS_MAX) -> list[tuple[datetime | None, str]]:
    """The text a person typed in session `sid`, oldest first: each user message's text
    parts (whole, not made titles) with the message's time; the latest `limit`."""
    query = (
        "SELECT p.data, m.data, m.time_created FROM message m JOIN part p ON p.message_id = m.id "
        "WHERE m.session_id = ? ORDER BY m.time_created, m.id, p.time_created, p.id"
    )
    out: list[tuple[datetime | None, str]] = []
    for part_data, message_data, created in db.execute(query, (sid,)):
        try:
            message = json.loads(message_data)
            part = json.loads(part_data)
        except (ValueError, TypeError, RecursionError):
            continue
        if not isinstance(message, dict) or message.get("role") != "user":
            continue
        if not isinstance(part, dict) or part.get("type") != "text":
            continue
        text = part.get("text")
        if isinstance(text, str) and text.strip():
            out.append((moment_of(created) if isinstance(created, int) else None, text.strip()))
    return out[-limit:]


def prompt_of_part(db: sqlite3.Connection, sid: str, part_id: str) -> str | None:
    """The prompt a part of session `sid` remembered by the warm-start cache holds."""
    for (data,) in db.execute("SELECT data FROM part WHERE id = ? AND session_id = ?", (part_id, sid)):
        try:
            return part_text(json.loads(data))
        except (ValueError, TypeError, RecursionError):
            return None
    return None


def is_busy(exc: sqlite3.OperationalError) -> bool:
    text = str(exc).lower()
    return "locked" in text or "busy" in text


def wording(exc: sqlite3.Error) -> str:
    text = str(exc)
    if "not a database" in text or "malformed" in text:
        return f"corrupt or not an SQLite database ({text})"
    return text
