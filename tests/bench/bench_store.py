"""Benchmark of the record store: task_list over 10,000 tasks, and task_add latency.

Run: `.venv/bin/python tests/bench/bench_store.py [--tasks 10000] [--adds 200]`
(not collected by pytest). Works in a temp folder; prints the figures.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from planwatch.core.settings import Settings  # noqa: E402
from planwatch.core.store.identity import Caller  # noqa: E402
from planwatch.core.store.record_render import render_record  # noqa: E402
from planwatch.core.store.schema import Stamp, TaskRecord  # noqa: E402
from planwatch.core.store.store import Store  # noqa: E402
from planwatch.core.store.tools import run_tool  # noqa: E402

STATUSES = ("todo", "doing", "blocked", "review", "done", "dropped")


def fill(root: Path, count: int) -> None:
    """Write `count` realistic task files directly (the same bytes the store writes)."""
    tasks = root / "tasks"
    tasks.mkdir(parents=True)
    stamp = Stamp.model_validate({"at": datetime(2026, 11, 30, 9, 0, tzinfo=UTC), "by": "dana", "in": "sess-1"})
    for n in range(1, count + 1):
        rec = TaskRecord(
            id=f"t{n}",
            title=f"Task number {n} of the benchmark",
            status=STATUSES[n % 6],
            priority=("high", "medium", "low")[n % 3],
            labels=("bench", f"l{n % 10}"),
            blocked_by=(f"t{n - 1}",) if n > 1 and n % 4 == 0 else (),
            created=stamp,
            approved=stamp if n % 2 else None,
            body="Some body text.\n",
        )
        (tasks / f"t{n}.md").write_text(render_record(rec), encoding="utf-8")


def timed(fn) -> float:  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p * (len(ordered) - 1))))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tasks", type=int, default=10_000)
    parser.add_argument("--adds", type=int, default=200)
    parser.add_argument("--loaders", action="store_true", help="also time the C YAML loaders against the fast path")
    args = parser.parse_args()
    settings, caller = Settings(), Caller(by="bench")
    with tempfile.TemporaryDirectory(prefix="planwatch-bench-") as tmp:
        root = Path(tmp) / "store"
        t_fill = timed(lambda: fill(root, args.tasks))
        print(f"filled {args.tasks} task files in {t_fill / 1000:.1f} s")

        def listing(**filters: object) -> int:
            return len(run_tool("task_list", store, settings, caller, dict(filters)).lines)

        store = Store(root)
        cold = timed(lambda: listing())
        warm = [timed(lambda: listing()) for _ in range(5)]
        ready = [timed(lambda: listing(ready=True)) for _ in range(5)]
        by_since = [timed(lambda: listing(by="dana", since="2026-11-01")) for _ in range(5)]
        print(
            f"task_list over {args.tasks} tasks: cold {cold:.0f} ms (parse every file), "
            f"warm median {statistics.median(warm):.0f} ms (cached), "
            f"ready median {statistics.median(ready):.0f} ms, by+since median {statistics.median(by_since):.0f} ms"
        )

        adds = [
            timed(lambda i=i: run_tool("task_add", store, settings, caller, {"title": f"added {i}", "labels": ["x"]}))
            for i in range(args.adds)
        ]
        print(
            f"task_add into {args.tasks} tasks ({args.adds} adds): median {statistics.median(adds):.2f} ms, "
            f"p95 {pct(adds, 0.95):.2f} ms, max {max(adds):.2f} ms"
        )
        sets = [
            timed(lambda i=i: run_tool("task_set", store, settings, caller, {"task": f"t{i + 1}", "note": f"n{i}"}))
            for i in range(args.adds)
        ]
        print(f"task_set ({args.adds} sets): median {statistics.median(sets):.2f} ms, p95 {pct(sets, 0.95):.2f} ms")
        if args.loaders:
            compare_loaders(root)
    return 0


def compare_loaders(root: Path) -> None:
    """The frontmatter fast path against the C YAML loaders, per record.

    Needs `pip install pyyaml ruamel.yaml.clib` (neither is a dependency); a loader that
    is not installed is skipped. Figures are CPU time over every task file's frontmatter.
    """
    from planwatch.core.store.frontmatter import fast_front, split_frontmatter

    fronts = [split_frontmatter(p.read_text(encoding="utf-8"))[0] for p in sorted((root / "tasks").glob("t*.md"))]
    loaders: list[tuple[str, object]] = [("fast path", fast_front)]
    try:
        import yaml  # type: ignore[import-untyped]

        loaders.append(("PyYAML CSafeLoader", lambda text: yaml.load(text, Loader=yaml.CSafeLoader)))
    except (ImportError, AttributeError):
        print("PyYAML with libyaml is not installed: skipped")
    from ruamel.yaml import YAML

    c_yaml = YAML(typ="safe", pure=False)
    if "CParser" in getattr(c_yaml.Parser, "__name__", ""):
        loaders.append(("ruamel.yaml C parser", c_yaml.load))
    else:
        print("ruamel.yaml.clib is not installed: skipped")
    for name, load in loaders:
        start = time.process_time()
        for text in fronts:
            load(text)  # type: ignore[operator]
        spent = time.process_time() - start
        print(f"{name}: {spent / len(fronts) * 1e6:.0f} µs per record, {spent / len(fronts) * 10_000:.2f} s per 10,000")


if __name__ == "__main__":
    sys.exit(main())
