"""What the benchmark scripts share (not collected by pytest): the median of repeated
runs, every folder planwatch could touch pointed into a temp folder, the command line of
a benchmark over a built corpus, a corpus generated when none is given."""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path

# Each variable planwatch or a harness reads a folder from, and the name of its folder
# inside the benchmark's temp folder (the XDG ones all in one).
FOLDERS = (
    ("CLAUDE_CONFIG_DIR", "claude-home"),
    ("CODEX_HOME", "codex-home"),
    ("PLANWATCH_DATA", "data"),
    ("PLANWATCH_STATE", "state"),
    ("PLANWATCH_STORE", "store"),
    ("PLANWATCH_CONFIG", "config.yaml"),
    ("PLANWATCH_CACHE", "cache"),
    ("XDG_DATA_HOME", "xdg"),
    ("XDG_STATE_HOME", "xdg"),
    ("XDG_CONFIG_HOME", "xdg"),
    ("XDG_CACHE_HOME", "xdg"),
)


def point_folders_into(work: Path) -> None:
    """Set this process's environment so that every folder planwatch could read or write
    (settings, store, state, the warm-start cache) is under `work`: the host's are never
    touched."""
    for name, sub in FOLDERS:
        os.environ[name] = str(work / sub)


def adopt_orphans() -> bool:
    """Make this process the reaper of its descendants' orphans (Linux's
    PR_SET_CHILD_SUBREAPER): what a command leaves running after its answer (the caches
    `planwatch sessions` writes after it, core/forked.py `detached`) becomes this
    process's child, so `reap_orphans` can wait for it and its CPU time counts in this
    process's RUSAGE_CHILDREN. False where it cannot be done."""
    try:
        import ctypes

        return bool(ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0) == 0)  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        return False


def reap_orphans() -> None:
    """Wait for every child left (`adopt_orphans`)."""
    while True:
        try:
            os.wait()
        except ChildProcessError:
            return


def timed(fn: Callable[[], object], runs: int) -> tuple[float, float]:
    """Median wall time and median CPU time of this process over `runs` calls of `fn`
    (the CPU time is what the work costs when other programs share the cores; work done
    in a child process does not count in it)."""
    wall, cpu = [], []
    for _ in range(runs):
        started, started_cpu = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
    return statistics.median(wall), statistics.median(cpu)


def sized_arguments(doc: str | None, sessions: int, todos: int, runs: int = 7) -> argparse.Namespace:
    """The command line of a benchmark over a built corpus: `--sessions`, `--todos` (a
    plan's rows in each session) and `--runs` (the median taken of), with `doc` as help."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=sessions)
    parser.add_argument("--todos", type=int, default=todos)
    parser.add_argument("--runs", type=int, default=runs)
    return parser.parse_args()


def corpus_or_generated(corpus: Path | None, work: Path, sessions: int, generate: Callable[[Path, int], None]) -> Path:
    """`corpus` when one was given, else `sessions` sessions made by `generate` under
    `work` (how many bytes, and how long it took, printed)."""
    if corpus is not None:
        return corpus
    corpus = work / "corpus"
    t0 = time.perf_counter()
    generate(corpus, sessions)
    size = sum(p.stat().st_size for p in corpus.rglob("*") if p.is_file())
    print(f"generated {sessions} sessions, {size / 1e6:.0f} MB in {time.perf_counter() - t0:.1f}s")
    return corpus
