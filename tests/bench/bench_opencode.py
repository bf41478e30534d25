"""Benchmark: listing an OpenCode database of 1,000 sessions with 20 todos each.

    .venv/bin/python tests/bench/bench_opencode.py [--sessions 1000] [--todos 20] [--runs 7]

Builds the database once per run in a temp folder, with sqlite3 from the real schema
(fixtures/samples/opencode/schema.sql) and rows in the real shapes (tests/opencode_db.py):
each session has a prompt, one completed `todowrite` part per list it wrote, and its
`todo` rows; a tenth of them are subagent sessions. It is in WAL mode with its last
writes not checkpointed, as OpenCode leaves it while it runs.

Then, in one run, it measures (median of --runs, warm page cache):
- read: `OpenCodeReader.read()` — every session and its plan;
- index: `SessionIndex([db]).scan()` and `entries()` — what the app's list gets;
- refresh: one session's list rewritten, then `refresh()` (what each -wal change costs);
- cli: `planwatch sessions --json --root DB` end to end (Python start-up included).
Target: the index lists the database in under 0.2 s.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path[:0] = [str(ROOT), str(HERE), str(HERE.parent)]

from measure import sized_arguments, timed  # noqa: E402
from opencode_db import T0, OpenCodeDb  # noqa: E402

from planwatch.core.index import SessionIndex  # noqa: E402
from planwatch.core.transcripts.opencode import OpenCodeReader  # noqa: E402

STATUSES = ["completed", "completed", "in_progress", "pending", "pending", "blocked", "cancelled"]


def build(path: Path, sessions: int, todos: int) -> OpenCodeDb:
    """The database, its connection left open: closing it would fold the WAL in."""
    db = OpenCodeDb(path, wal=True)
    db.db.execute("PRAGMA synchronous=OFF")
    db.db.execute("PRAGMA wal_autocheckpoint=1000")  # OpenCode's (SQLite's) default
    for n in range(sessions):
        sid = f"ses_{n:05d}bench{n * 7919 % 100000:05d}AbCdEfGhIj"
        parent = f"ses_{n - 1:05d}bench{(n - 1) * 7919 % 100000:05d}AbCdEfGhIj" if n % 10 == 9 else None
        at = T0 + n * 60_000
        db.session(
            sid, f"Session {n}: refactor module {n % 37}", f"/home/dev/project{n % 23}", updated=at, parent=parent
        )
        db.prompt(sid, f"Refactor module {n % 37} and keep a todo list", at + 1)
        plan = [(f"Step {k} of session {n}", STATUSES[(k + n) % len(STATUSES)], "medium") for k in range(todos)]
        db.todowrite(sid, plan, at + 100)
    return db


def main() -> None:
    args = sized_arguments(__doc__, sessions=1000, todos=20)
    with tempfile.TemporaryDirectory(prefix="planwatch-bench-opencode-") as folder:
        path = Path(folder) / "opencode.db"
        started = time.perf_counter()
        writer = build(path, args.sessions, args.todos)
        built = time.perf_counter() - started
        wal = path.with_name("opencode.db-wal").stat().st_size
        print(
            f"database: {args.sessions} sessions × {args.todos} todos, {path.stat().st_size >> 10} KB + {wal >> 10} KB WAL (built in {built:.1f} s)"
        )

        def read() -> None:
            reader = OpenCodeReader(path)
            assert len(reader.read()) == args.sessions - args.sessions // 10
            assert reader.problem is None

        def index() -> None:
            idx = SessionIndex([path])
            idx.scan()
            assert len(idx.entries()) == args.sessions - args.sessions // 10

        reader = OpenCodeReader(path)
        reader.read()
        counter = iter(range(10**9))

        def refresh() -> None:
            n = next(counter)
            writer.todowrite(
                "ses_00500bench59500AbCdEfGhIj", [("Step", "completed" if n % 2 else "pending", "high")], T0 + 10**9 + n
            )
            assert reader.refresh() == {"ses_00500bench59500AbCdEfGhIj"}

        def cli() -> None:
            out = subprocess.run(
                [sys.executable, "-m", "planwatch.tui.cli", "sessions", "--json", "--root", str(path)],
                cwd=ROOT,
                capture_output=True,
                env={"HOME": folder, "PATH": "/usr/bin:/bin", "XDG_DATA_HOME": folder + "/xdg"},
                check=True,
            )
            assert out.stdout.count(b'"harness": "opencode"') == args.sessions - args.sessions // 10

        rows = [
            ("read (OpenCodeReader.read)", timed(read, args.runs)),
            ("index (SessionIndex.scan + entries)", timed(index, args.runs)),
            ("refresh after one list changed", timed(refresh, args.runs)),
            ("cli (planwatch sessions --json, start-up included)", timed(cli, max(3, args.runs // 2))),
        ]
        writer.close()
    width = max(len(name) for name, _ in rows)
    print(f"{'':{width}}  {'wall':>9}  {'cpu':>9}")
    for name, (wall, cpu) in rows:
        shown = "n/a" if name.startswith("cli") else f"{cpu * 1000:.1f} ms"
        print(f"{name.ljust(width)}  {wall * 1000:6.1f} ms  {shown:>9}")
    wall, cpu = rows[1][1]
    verdict = "met" if wall < 0.2 else "NOT met"
    print(
        f"target: the index lists it in under 200 ms — {verdict} ({wall * 1000:.0f} ms wall, {cpu * 1000:.0f} ms CPU)"
    )


if __name__ == "__main__":
    main()
