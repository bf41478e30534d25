"""The store's soak: 4 tool writers, 1 in-place hand editor, 1 rename hand editor and the
app's store watcher on one store for 60 s (PLANWATCH_SOAK_SECONDS to change it). At the
end every hand edit is present or its loss was reported, every record is valid, and
no id was handed out twice. Real processes, real watchdog."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from planwatch.core.store.schema import TaskRecord
from planwatch.core.store.store import Store
from planwatch.core.store.watch import StoreWatcher

ROOT = Path(__file__).resolve().parents[2]
SECONDS = float(os.environ.get("PLANWATCH_SOAK_SECONDS", "60"))

WRITER = r"""
import json, random, sys, time
from planwatch.core.settings import Settings
from planwatch.core.store.identity import Caller
from planwatch.core.store.errors import RecordChanged
from planwatch.core.store.store import Store
from planwatch.core.store.tools import run_tool
store, name, seconds = Store(sys.argv[1]), sys.argv[2], float(sys.argv[3])
caller, settings, rng = Caller(by=name), Settings(), random.Random(name)
added, refused, writes = [], 0, 0
end = time.monotonic() + seconds
while time.monotonic() < end:
    writes += 1
    try:
        if rng.random() < 0.3:
            added.append(run_tool("task_add", store, settings, caller, {"title": f"{name} {writes}"}).lines[0].split()[0])
        else:
            target = rng.choice(["t1", "t2"] + added[-3:])
            run_tool("task_set", store, settings, caller, {"task": target, "note": f"{name} {writes}", "labels": [name]})
    except RecordChanged:
        refused += 1  # a person's edit clashed: reported, their edit kept
print(json.dumps({"added": added, "refused": refused, "writes": writes}))
"""

EDITOR = r"""
import json, os, sys, time
from pathlib import Path
from planwatch.core.store.store import Store
path, mode, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
store = Store(Path(path).parent.parent)
lost, n = [], 0
end = time.monotonic() + seconds
while time.monotonic() < end:
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    head, sep, _ = text.partition("\n---\n")
    if not sep:
        time.sleep(0.01)
        continue
    n += 1
    new = head + sep + f"{mode} edit {n}\n" + "line\n" * 300
    if mode == "inplace":
        with open(path, "r+", encoding="utf-8") as fh:
            fh.seek(0)
            fh.truncate()
            for i in range(0, len(new), 700):
                fh.write(new[i : i + 700])
                fh.flush()
    else:
        with open(path + ".swp", "w", encoding="utf-8") as fh:
            fh.write(new)
        os.replace(path + ".swp", path)
    time.sleep(0.05)  # the editor's pace between saves (the tools write meanwhile)
    # A save that landed in a file a tool write replaced is put back by that write,
    # which holds the store's lock until it has: once the lock is ours, no write that
    # raced this save is still going, and the save is there or lost for good.
    with store.lock():
        with open(path, encoding="utf-8") as fh:
            present = f"{mode} edit {n}\n" in fh.read()
    if not present:
        lost.append(n)
print(json.dumps({"edits": n, "lost": lost}))
"""


def _spawn(script: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", script, *args], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


@pytest.mark.slow
def test_soak_tool_writers_hand_editors_and_the_watcher(tmp_path: Path) -> None:
    root = tmp_path / "store"
    store = Store(root)
    for title in ("Edited in place", "Edited by rename"):
        store.add_task(lambda i, t=title: TaskRecord(id=i, title=t))
    seen = {"calls": 0, "tasks": 0}
    lock = threading.Lock()

    def changed() -> None:  # what the app's feed does on each burst: read the store
        snap = Store(root).load()
        with lock:
            seen["calls"] += 1
            seen["tasks"] = max(seen["tasks"], len(snap.tasks))

    watcher = StoreWatcher(root, changed)
    watcher.start()
    try:
        writers = [_spawn(WRITER, str(root), f"agent{i}", str(SECONDS)) for i in range(4)]
        editors = [
            _spawn(EDITOR, str(root / "tasks" / "t1.md"), "inplace", str(SECONDS)),
            _spawn(EDITOR, str(root / "tasks" / "t2.md"), "rename", str(SECONDS)),
        ]
        results = []
        for proc in writers + editors:
            out, err = proc.communicate(timeout=SECONDS + 120)
            assert proc.returncode == 0, err[-2000:]
            results.append(json.loads(out))
    finally:
        watcher.stop()
    writer_results, editor_results = results[:4], results[4:]
    for editor in editor_results:
        assert editor["edits"] > 10
        assert editor["lost"] == []  # every hand edit was there after the tools' writes
    snap = Store(root).load()
    assert snap.problems == []
    added = [task_id for r in writer_results for task_id in r["added"]]
    assert len(added) == len(set(added))  # no id twice
    assert set(added) <= set(snap.tasks)
    assert snap.tasks["t1"].body.startswith(f"inplace edit {editor_results[0]['edits']}\n")
    assert snap.tasks["t2"].body.startswith(f"rename edit {editor_results[1]['edits']}\n")
    assert sum(r["writes"] for r in writer_results) > 100
    assert seen["calls"] > 0 and seen["tasks"] >= 2
