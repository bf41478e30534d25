"""A GitHub Copilot CLI session's `session.db`, read-only: its `todos` table is the plan.

Why a module of its own: the agent writes its list with free SQL (the `sql` tool), so
the table, not any call, is what holds: a batch of statements is no transaction, and a
call answered `success: false` may still have changed rows. How the table reads (its
schema, its status words, `todo_deps`) changes with Copilot CLI's releases, apart from
how a session folder becomes a session (core/transcripts/copilot.py).

The database is opened as OpenCode's is (core/transcripts/opencode_sql.py's
`read_transaction`): `file:…?mode=ro` on a fresh connection closed at once, retries
while another program holds a write lock; the rows and their dependencies are read by
one statement, its own snapshot (no transaction held). Never copied, never written.

- The plan: every row of `todos` in `rowid` order (the order the rows were made),
  `title` the text; status `done` is completed, `blocked` blocked, `pending` and
  `in_progress` as they are.
- `todo_deps(todo_id, depends_on)`: `todo_id` waits for `depends_on`; kept as the
  positions of those rows (`PlanItem.waits_for`).
- A database without tables yet holds no plan (no problem). One with tables but no
  `todos`, or a `todos` without the columns read, is of a schema we do not know; a row
  with a status Copilot CLI never writes (its CHECK allows four) or without a title
  means the table is not what we know either: each is a `DatabaseProblem` naming the
  file, and the session is shown without a plan rather than with a guessed one.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from planwatch.core.model import EMPTY_PLAN, AgentPlan, PlanGroup, PlanItem, Source, Status
from planwatch.core.transcripts.opencode_sql import DatabaseProblem, read_transaction

__all__ = ["COPILOT_STATUS", "SOURCE", "DatabaseProblem", "read_plan"]

SOURCE: Source = "copilot_todos"
# The four words the table's CHECK allows, as ours.
COPILOT_STATUS: dict[object, Status] = {
    "pending": "pending",
    "in_progress": "in_progress",
    "done": "completed",
    "blocked": "blocked",
}
# The longest status word or id quoted in a problem (the rest is cut).
_SHOWN = 40


def read_plan(path: Path) -> AgentPlan:
    """The plan the `todos` table of the database at `path` holds (EMPTY_PLAN when it
    holds no row, or no table yet). Raises `DatabaseProblem` (its message names the
    file) when the database cannot be read or is not the one we know."""
    return read_transaction(path, _plan, one_statement=True)


# The rows and what each waits for in one statement: one snapshot, no BEGIN needed.
_ROWS_AND_DEPS = (
    "SELECT rowid, id, title, status, (SELECT group_concat(depends_on, char(31)) FROM todo_deps "
    "WHERE todo_deps.todo_id = todos.id) FROM todos ORDER BY rowid"
)
_ROWS = "SELECT rowid, id, title, status, NULL FROM todos ORDER BY rowid"


def _plan(db: sqlite3.Connection) -> AgentPlan:
    try:
        rows = db.execute(_ROWS_AND_DEPS).fetchall()
    except sqlite3.OperationalError as exc:
        text = str(exc)
        if "no such table: todo_deps" in text:
            rows = db.execute(_ROWS).fetchall()  # no dependencies kept: none waits
        elif "no such table: todos" in text:
            if db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' LIMIT 1").fetchone() is None:
                return EMPTY_PLAN  # made, nothing written yet
            raise DatabaseProblem("an unknown schema (no `todos` table)") from exc
        elif "no such column" in text:
            raise DatabaseProblem(f"an unknown schema ({exc})") from exc
        else:
            raise
    if not rows:
        return EMPTY_PLAN
    place: dict[object, int] = {}
    for at, row in enumerate(rows):
        place.setdefault(row[1], at)
    items: list[PlanItem] = []
    for at, (_rowid, todo_id, title, status, deps) in enumerate(rows):
        if not isinstance(title, str) or not title.strip():
            raise DatabaseProblem(f"todo {_quoted(todo_id)} has no title")
        mapped = COPILOT_STATUS.get(status)
        if mapped is None:
            raise DatabaseProblem(
                f"todo {_quoted(todo_id)} has a status Copilot CLI does not write ({_quoted(status)})"
            )
        waits: tuple[int, ...] = ()
        if isinstance(deps, str) and deps:
            waits = tuple(sorted({place[d] for d in deps.split("\x1f") if d in place and place[d] != at}))
        items.append(PlanItem(text=title, status=mapped, waits_for=waits))
    return AgentPlan(groups=(PlanGroup(key="", source=SOURCE, items=tuple(items)),))


def _quoted(value: object) -> str:
    """A row's id or status word in a problem sentence (safe_text makes it printable
    where it is shown): quoted, cut."""
    text = value if isinstance(value, str) else repr(value)
    return repr(text[:_SHOWN] + ("…" if len(text) > _SHOWN else ""))
