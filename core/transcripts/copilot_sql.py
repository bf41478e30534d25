"""A GitHub Copilot CLI session's `session.db`, read-only: its `todos` table is the plan.

Why a module of its own: the agent writes its list with free SQL (the `sql` tool), so
the table, not any call, is what holds: a batch of statements is no transaction, and a
call answered `success: false` may still have changed rows. How the table reads (its
schema, its status words, `todo_deps`) changes with Copilot CLI's releases, apart from
how a session folder becomes a session (core/transcripts/copilot.py).

The database is opened read-only (`file:…?mode=ro`), never copied, never written, with
OpenCode's busy timeout and retries while another program holds a write lock
(core/transcripts/opencode_sql.py). A thousand small databases are read one after
another, and a fresh `sqlite3.connect` costs about a third of the read of one, so each
thread keeps one in-memory connection and ATTACHes each database to it read-only, reads,
and DETACHes it (nothing stays open: a database is not held between reads). The rows
and their dependencies come from one statement (`UNION ALL`), its own snapshot: no
transaction is held, no BEGIN or PRAGMA round trip.

- The plan: every row of `todos` in `rowid` order (the order the rows were made),
  `title` the text; status `done` is completed, `blocked` blocked, `pending` and
  `in_progress` as they are, and any other word (the table's CHECK allows none, but a
  table made without it takes any) pending, as every source's unknown status reads.
- `todo_deps(todo_id, depends_on)`: `todo_id` waits for `depends_on`; kept as the
  positions of those rows (`PlanItem.waits_for`).
- A database without tables yet holds no plan (no problem). One with tables but no
  `todos`, or a `todos` without the columns read, is of a schema we do not know; a row
  without a title means the table is not what we know either (a step cannot be shown
  without its text): each is a `DatabaseProblem` naming the file, and the session is
  shown without a plan rather than with a guessed one.
"""

from __future__ import annotations

import os
import re
import sqlite3
import threading
from operator import itemgetter
from pathlib import Path
from urllib.parse import quote

from planwatch.core.model import EMPTY_PLAN, AgentPlan, PlanGroup, PlanItem, Source, Status
from planwatch.core.transcripts.opencode_sql import (
    BUSY_TIMEOUT,
    DatabaseProblem,
    with_retries,
)

__all__ = ["COPILOT_STATUS", "SOURCE", "DatabaseProblem", "read_plan"]

SOURCE: Source = "copilot_todos"
# The four words the table's CHECK allows, as ours.
COPILOT_STATUS: dict[object, Status] = {
    "pending": "pending",
    "in_progress": "in_progress",
    "done": "completed",
    "blocked": "blocked",
}
# The longest id quoted in a problem (the rest is cut).
_SHOWN = 40
# The name a session's database is attached under.
_AS = "copilot_session"


def read_plan(path: Path | str, *, texts: bool = True) -> AgentPlan:
    """The plan the `todos` table of the database at `path` holds (EMPTY_PLAN when it
    holds no row, or no table yet). Raises `DatabaseProblem` (its message names the
    file) when the database cannot be read or is not the one we know. `texts` False:
    the items hold their statuses and empty texts (a listing of counts, as a warm
    start's summary gives them: making eight items was about a seventh of a read)."""
    name = os.fspath(path)
    # A name of only the characters `quote` leaves alone is its own quoted form (most
    # are: `quote` costs about a tenth of a database's read).
    # Quoted from the name's own bytes: a folder's byte that is not UTF-8 (a lone surrogate
    # in the str) is %-escaped as the byte SQLite then opens.
    uri = f"file:{name if _UNQUOTED(name) else quote(os.fsencode(name))}?mode=ro"

    def attach() -> sqlite3.Connection:
        db = _connection()
        db.execute(f"ATTACH DATABASE ? AS {_AS}", (uri,))
        return db

    return with_retries(path, attach, _plan if texts else _statuses, _detach)


_UNQUOTED = re.compile(r"[A-Za-z0-9/_.~-]*").fullmatch
_local = threading.local()


def _connection() -> sqlite3.Connection:
    """This thread's in-memory connection that databases are attached to (URIs allowed:
    `mode=ro` holds for what it attaches). A process forked since made its own."""
    held = getattr(_local, "held", None)
    if held is not None and held[0] == os.getpid():
        return held[1]  # type: ignore[no-any-return]
    db = sqlite3.connect(":memory:", uri=True, timeout=BUSY_TIMEOUT, isolation_level=None, check_same_thread=False)
    _local.held = (os.getpid(), db)
    return db


def _detach(db: sqlite3.Connection) -> None:
    """Let the database go; a connection that cannot is dropped (the next read makes one)."""
    try:
        db.execute(f"DETACH DATABASE {_AS}")
    except sqlite3.Error as exc:
        if "no such database" in str(exc):
            return  # the ATTACH failed: nothing held
        _local.held = None
        db.close()


# Every row, then every dependency, in one statement: one snapshot, no BEGIN needed.
_ROWS_AND_DEPS = (
    f"SELECT 0, rowid, id, title, status FROM {_AS}.todos "
    f"UNION ALL SELECT 1, 0, todo_id, depends_on, NULL FROM {_AS}.todo_deps"
)
_ROWS = f"SELECT 0, rowid, id, title, status FROM {_AS}.todos"
_ANY_TABLE = f"SELECT 1 FROM {_AS}.sqlite_master WHERE type = 'table' LIMIT 1"
_by_rowid = itemgetter(1)


def _rows(db: sqlite3.Connection, query: str = _ROWS_AND_DEPS) -> list[tuple[object, ...]] | None:
    """The rows (None: no table yet). SQLite names one missing table at a time."""
    try:
        return db.execute(query).fetchall()
    except sqlite3.OperationalError as exc:
        text = str(exc)
        if "no such table" in text and "todo_deps" in text and query is _ROWS_AND_DEPS:
            return _rows(db, _ROWS)  # no dependencies kept: none waits
        if "no such table" in text and "todos" in text:
            if db.execute(_ANY_TABLE).fetchone() is None:
                return None  # made, nothing written yet
            raise DatabaseProblem("an unknown schema (no `todos` table)") from exc
        if "no such column" in text:
            raise DatabaseProblem(f"an unknown schema ({exc})") from exc
        raise


def _statuses(db: sqlite3.Connection) -> AgentPlan:
    return _plan(db, texts=False)


# The items of a plan read without texts, one per status (frozen values, shared).
_BLANK = {status: PlanItem(text="", status=status) for status in ("pending", *COPILOT_STATUS.values())}


def _plan(db: sqlite3.Connection, *, texts: bool = True) -> AgentPlan:
    rows = _rows(db)
    if rows is None:
        return EMPTY_PLAN
    todos = [row for row in rows if row[0] == 0]
    if not todos:
        return EMPTY_PLAN
    todos.sort(key=_by_rowid)  # the order they were made (a scan gives it; not promised)
    waits_on: dict[object, list[object]] = {}
    for row in rows:
        if row[0] == 1:
            waits_on.setdefault(row[2], []).append(row[3])
    place: dict[object, int] = {}
    for at, row in enumerate(todos):
        place.setdefault(row[2], at)
    items: list[PlanItem] = []
    for at, (_tag, _rowid, todo_id, title, status) in enumerate(todos):
        if type(title) is not str or not title.strip():
            raise DatabaseProblem(f"todo {_quoted(todo_id)} has no title")
        mapped = COPILOT_STATUS.get(status, "pending")
        deps = waits_on.get(todo_id)
        if deps:
            waits = tuple(sorted({place[d] for d in deps if d in place and place[d] != at}))
            items.append(PlanItem(text=title if texts else "", status=mapped, waits_for=waits))
        else:
            items.append(PlanItem(text=title, status=mapped) if texts else _BLANK[mapped])
    return AgentPlan(groups=(PlanGroup(key="", source=SOURCE, items=tuple(items)),))


def _quoted(value: object) -> str:
    """A row's id in a problem sentence (safe_text makes it printable
    where it is shown): quoted, cut."""
    text = value if isinstance(value, str) else repr(value)
    return repr(text[:_SHOWN] + ("…" if len(text) > _SHOWN else ""))
