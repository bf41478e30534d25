"""Benchmark: listing 1,000 GitHub Copilot CLI session folders (a `session.db` each).

    .venv/bin/python tests/bench/bench_copilot.py [--sessions 1000] [--todos 8] [--runs 7]

Builds, once per run in a temp folder, a `session-state/` of real-shaped session folders:
each one's `events.jsonl` is the real sample's log (fixtures/samples/copilot) with the
session's own id, its `workspace.yaml` the sample's with its own id, folder and prompt,
and its `session.db` made with sqlite3 from the sample's schema (`--todos` rows, a
`todo_deps` row, rollback journal as Copilot CLI leaves it).

Then it measures (median of --runs, warm page cache, each process started afresh; its
wall time and its CPU time, children included):
- bare: a Python loop that opens each database read-only (`file:…?mode=ro`) and selects
  its todos, as a process of its own (start-up included) — the yardstick;
- cold: `planwatch sessions --json --root <session-state>` with an empty cache folder;
- warm: the same again, answered from the listing the cold run kept (core/listing.py:
  each folder's files' identities, its workspace read again; no database opened);
and, in this process, the CPU of `SessionIndex(...).scan()` cold and warm beside the
bare loop's.
Targets: cold within 2x the bare loop, warm within half of it.
"""

from __future__ import annotations

import json
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path[:0] = [str(ROOT), str(HERE)]

from measure import adopt_orphans, reap_orphans, sized_arguments, timed  # noqa: E402

SAMPLE_ID = "5e806925-4250-446b-9e18-4cd8ceb54145"
SAMPLE = ROOT / "fixtures/samples/copilot/session-state" / SAMPLE_ID
STATUSES = ["done", "done", "in_progress", "pending", "pending", "blocked"]

BARE = r"""
import os, sqlite3, sys
from urllib.parse import quote
root = sys.argv[1]
rows = 0
for name in sorted(os.listdir(root)):
    db = sqlite3.connect(f"file:{quote(os.path.join(root, name, 'session.db'))}?mode=ro", uri=True)
    rows += len(db.execute("SELECT id, title, status FROM todos ORDER BY rowid").fetchall())
    db.close()
print(rows)
"""


def build(state: Path, sessions: int, todos: int) -> None:
    schema = (SAMPLE / "session.db.schema.sql").read_text()
    events = (SAMPLE / "events.jsonl").read_text()
    workspace = (SAMPLE / "workspace.yaml").read_text()
    for n in range(sessions):
        sid = f"{n:08x}-4250-446b-9e18-4cd8ceb54145"
        folder = state / sid
        folder.mkdir(parents=True)
        cwd = f"/home/dev/project{n % 23}"
        (folder / "events.jsonl").write_text(events.replace(SAMPLE_ID, sid).replace("/home/dev/copilot-todos", cwd))
        (folder / "workspace.yaml").write_text(
            workspace.replace(SAMPLE_ID, sid)
            .replace("/home/dev/copilot-todos", cwd)
            .replace("Add YAML support", f"Session {n}: add YAML support")
        )
        db = sqlite3.connect(folder / "session.db", isolation_level=None)
        db.execute("PRAGMA synchronous = OFF")  # the same file, built without a thousand fsyncs
        db.executescript(schema)
        db.execute("BEGIN")
        for k in range(todos):
            db.execute(
                "INSERT INTO todos (id, title, description, status) VALUES (?, ?, ?, ?)",
                (f"step-{k}", f"Step {k} of session {n}", "…", STATUSES[(k + n) % len(STATUSES)]),
            )
        db.execute("INSERT INTO todo_deps VALUES ('step-1', 'step-0')")
        db.execute("COMMIT")
        db.close()


def main() -> None:
    args = sized_arguments(__doc__, sessions=1000, todos=8)
    with tempfile.TemporaryDirectory(prefix="planwatch-bench-copilot-") as tmp:
        folder = Path(tmp)
        state = folder / "copilot" / "session-state"
        started = time.perf_counter()
        build(state, args.sessions, args.todos)
        print(f"{args.sessions} session folders × {args.todos} todos (built in {time.perf_counter() - started:.1f} s)")
        env = {
            "HOME": str(folder),
            "PATH": "/usr/bin:/bin",
            "XDG_CACHE_HOME": str(folder / "cache"),
            "XDG_STATE_HOME": str(folder / "state"),
            "XDG_CONFIG_HOME": str(folder / "config"),
            "XDG_DATA_HOME": str(folder / "data"),
        }
        command = [sys.executable, "-m", "planwatch.tui.cli", "sessions", "--json", "--root", str(state)]

        def bare() -> None:
            out = subprocess.run([sys.executable, "-c", BARE, str(state)], capture_output=True, check=True, env=env)
            assert int(out.stdout) == args.sessions * args.todos

        def listing() -> bytes:
            out = subprocess.run(command, cwd=ROOT, capture_output=True, check=True, env=env)
            return out.stdout

        def cold() -> None:
            shutil.rmtree(folder / "cache", ignore_errors=True)
            rows = json.loads(listing())
            assert len(rows) == args.sessions and {row["harness"] for row in rows} == {"copilot"}

        first = None

        def warm() -> None:
            nonlocal first
            out = listing()
            if first is None:
                first = out
            assert out == first

        listing()  # the page cache warm, the cache written
        rows = [
            ("bare loop (process)", timed_process(bare, args.runs)),
            ("cold sessions --json", timed_process(cold, args.runs)),
        ]
        listing()
        rows.append(("warm sessions --json", timed_process(warm, args.runs)))

        # In this process: what the work costs in CPU, start-up aside.
        from planwatch.core.index import SessionIndex

        def bare_here() -> None:
            exec(compile(BARE.replace("sys.argv[1]", repr(str(state))).replace("print(rows)", ""), "bare", "exec"), {})

        def index_cold() -> None:
            shutil.rmtree(folder / "cache", ignore_errors=True)
            SessionIndex([state], summaries=True).scan()

        def index_warm() -> None:
            SessionIndex([state], summaries=True).scan()

        import os

        os.environ.update({k: v for k, v in env.items() if k != "PATH"})
        here = [("bare loop (in process)", timed(bare_here, args.runs)), ("index cold", timed(index_cold, args.runs))]
        SessionIndex([state], summaries=True).scan()
        here.append(("index warm", timed(index_warm, args.runs)))
    width = max(len(name) for name, _ in rows + here)
    print(f"{'':{width}}  {'wall':>9}  {'cpu':>9}")
    for name, (wall, cpu) in rows + here:
        print(f"{name.ljust(width)}  {wall * 1000:6.1f} ms  {cpu * 1000:6.1f} ms")
    for what, at in (("wall", 0), ("cpu", 1)):
        bare_t, cold_t, warm_t = (rows[n][1][at] for n in range(3))
        print(
            f"target ({what}, processes) cold <= 2x bare: {cold_t / bare_t:.2f}x — "
            f"{'met' if cold_t <= 2 * bare_t else 'NOT met'}; "
            f"warm <= 0.5x bare: {warm_t / bare_t:.2f}x — {'met' if warm_t <= 0.5 * bare_t else 'NOT met'}"
        )


def timed_process(fn: Callable[[], object], runs: int) -> tuple[float, float]:
    """Median wall time and median CPU time (user and system) of the processes each call
    of `fn` runs and waits for, their own children included, and what they leave running
    after their answer (waited for after the time is taken): the steadier figure when
    other programs share the cores."""
    wall, cpu = [], []
    adopt_orphans()
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        fn()
        wall.append(time.perf_counter() - started)
        reap_orphans()  # the caches a cold listing writes after its answer: their CPU counted
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(wall), statistics.median(cpu)


if __name__ == "__main__":
    main()
