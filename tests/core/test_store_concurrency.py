"""docs/store.md: two processes adding at once never get the same id and never lose a record;
writes are atomic, so a writer killed at any moment leaves the store whole.

Both tests start real processes (no mocks): the store's guarantees are about processes.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from planwatch.core.store.schema import TaskRecord
from planwatch.core.store.store import Store

ROOT = Path(__file__).resolve().parents[2]

WORKERS = 8
ADDS_EACH = 50  # 8 × 50 = 400 adds

# A worker: waits for "go" on stdin so all start together, then adds tasks and sets
# them, and also fights over one shared task (t1) to contend for the same file.
WORKER = r"""
import json, sys
from planwatch.core.settings import Settings
from planwatch.core.store.identity import Caller
from planwatch.core.store.store import Store
from planwatch.core.store.schema import TaskRecord
from planwatch.core.store.tools import run_tool

root, name, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
store, settings, caller = Store(root), Settings(), Caller(by=name, session="s-" + name)
print("ready", flush=True)
sys.stdin.readline()
mine = {}
for i in range(count):
    line = run_tool("task_add", store, settings, caller, {"title": f"{name}-{i}", "labels": [name]}).lines[0]
    task_id = line.split()[0]
    mine[task_id] = f"{name}-{i}"
    run_tool("task_set", store, settings, caller, {"task": task_id, "status": "doing", "note": f"by {name}"})
    if i % 5 == 0:
        run_tool("task_set", store, settings, caller, {"task": "t1", "labels": [name, str(i)]})
print(json.dumps(mine), flush=True)
"""

# A writer for the crash test: prints one JSON line per committed change.
WRITER = r"""
import json, sys
from planwatch.core.settings import Settings
from planwatch.core.store.identity import Caller
from planwatch.core.store.store import Store
from planwatch.core.store.schema import TaskRecord
from planwatch.core.store.tools import run_tool

store, settings, caller = Store(sys.argv[1]), Settings(), Caller(by="crash")
n = 0
while True:
    n += 1
    line = run_tool("task_add", store, settings, caller, {"title": f"round task {n}", "body": "x" * (n % 7 * 900)}).lines[0]
    task_id = line.split()[0]
    print(json.dumps({"added": task_id, "title": f"round task {n}"}), flush=True)
    run_tool("task_set", store, settings, caller, {"task": task_id, "status": "doing", "note": "n" * (n % 5 * 700)})
    print(json.dumps({"set": task_id, "status": "doing"}), flush=True)
    run_tool("task_set", store, settings, caller, {"task": "t1", "title": f"shared title {n}", "body": "b" * (n % 3 * 4000)})
    print(json.dumps({"shared": n}), flush=True)
"""


def _spawn(script: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", script, *args],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.mark.slow
def test_eight_processes_adding_at_once_get_unique_consecutive_ids(tmp_path: Path) -> None:
    root = tmp_path / "store"
    Store(root).add_task(lambda i: TaskRecord(id=i, title="shared"))
    workers = [_spawn(WORKER, str(root), f"w{n}", str(ADDS_EACH)) for n in range(WORKERS)]
    try:
        for proc in workers:  # every worker imported and waiting: start them together
            assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        for proc in workers:
            assert proc.stdin is not None
            proc.stdin.write("go\n")
            proc.stdin.flush()
        results: dict[str, str] = {}
        for proc in workers:
            out, err = proc.communicate(timeout=120)
            assert proc.returncode == 0, err
            got = json.loads(out.strip().splitlines()[-1])
            assert not set(got) & set(results), "an id was handed to two processes"
            results.update(got)
    finally:
        for proc in workers:
            if proc.poll() is None:
                proc.kill()
    total = WORKERS * ADDS_EACH
    assert len(results) == total
    numbers = sorted(int(task_id[1:]) for task_id in results)
    assert numbers == list(range(2, total + 2))  # unique and consecutive after t1
    snap = Store(root).load()
    assert snap.problems == []
    assert len(snap.tasks) == total + 1  # nothing lost
    for task_id, title in results.items():
        task = snap.tasks[task_id]
        worker = title.split("-")[0]
        assert (task.title, task.status, task.note, task.labels) == (title, "doing", f"by {worker}", (worker,))
    assert snap.tasks["t1"].labels[0].startswith("w")
    assert not [n for n in os.listdir(root / "tasks") if n.startswith(".") and n != ".ids"]  # no temp files left


@pytest.mark.slow
def test_a_writer_killed_at_random_moments_leaves_the_store_whole(tmp_path: Path) -> None:
    root = tmp_path / "store"
    store = Store(root)
    store.add_task(lambda i: TaskRecord(id=i, title="shared title 0"))
    rng = random.Random(20261130)
    committed: dict[str, dict[str, str]] = {}
    shared_seen = 0
    for _round in range(14):
        proc = _spawn(WRITER, str(root))
        assert proc.stdout is not None
        # Let the writer commit a random number of changes, then kill it mid-stride.
        for _ in range(rng.randint(1, 25)):
            line = proc.stdout.readline()
            if not line:
                break
            event = json.loads(line)
            if "added" in event:
                committed[event["added"]] = {"title": event["title"]}
            elif "set" in event:
                committed[event["set"]]["status"] = event["status"]
            else:
                shared_seen = max(shared_seen, event["shared"])
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=30)

        snap = Store(root).load()
        assert snap.problems == [], [p.message for p in snap.problems]
        for task_id, state in committed.items():  # no committed record lost or half-written
            task = snap.tasks[task_id]
            assert task.title == state["title"]
            if "status" in state:
                assert task.status == state["status"]
        assert snap.tasks["t1"].title.startswith("shared title ")
    assert len(committed) >= 14
    # Leftover temp files of killed writes never count as records, and the sweep's
    # tidy-up removes them.
    assert all(n.startswith(".") or n.endswith(".md") for n in os.listdir(root / "tasks"))
    Store(root).remove_stale_temp_files()
    assert not [n for n in os.listdir(root / "tasks") if n.startswith(".") and n != ".ids"]
    assert Store(root).load().problems == []
