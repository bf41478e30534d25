"""No lost update, and minting holds the lock. Real processes race: a person's
editor (a second process writing the file in place and by rename) against tool writes,
and id minting against the tidy-up of stale temp files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from planwatch.core.store.schema import TaskRecord
from planwatch.core.store.store import Store

ROOT = Path(__file__).resolve().parents[2]
DEADLINE = 120

MINTER = r"""
import json, sys
from planwatch.core.store.store import Store
from planwatch.core.store.schema import TaskRecord
store = Store(sys.argv[1])
ids = [store.add_task(lambda i: TaskRecord(id=i, title="minted")).id for _ in range(int(sys.argv[2]))]
print(json.dumps(ids))
"""

TIDIER = r"""
import sys, time
from planwatch.core.store.store import Store
store = Store(sys.argv[1])
end = time.monotonic() + float(sys.argv[2])
passes = 0
while time.monotonic() < end:
    store.remove_stale_temp_files()
    passes += 1
print(passes)
"""


def _run(script: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", script, *args], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def test_minting_races_the_temp_file_tidy_up(tmp_path: Path) -> None:
    """Once failed `test_mcp` with `Could not write store/.ids: No such file or directory`:
    a mint that did not hold the lock lost its temp file to the tidy-up."""
    root = tmp_path / "store"
    Store(root).add_task(lambda i: TaskRecord(id=i, title="first"))
    editor_temp = root / "tasks" / ".notes.md.tmp"  # not one of the store's own: kept
    editor_temp.write_text("a person's editor")
    tidier = _run(TIDIER, str(root), "4")
    minters = [_run(MINTER, str(root), "150") for _ in range(2)]
    minted: list[str] = []
    for proc in minters:
        out, err = proc.communicate(timeout=DEADLINE)
        assert proc.returncode == 0, err
        minted += json.loads(out)
    out, err = tidier.communicate(timeout=DEADLINE)
    assert tidier.returncode == 0, err
    assert int(out) > 10
    assert len(minted) == len(set(minted)) == 300
    snap = Store(root).load()
    assert snap.problems == [] and len(snap.tasks) == 301
    assert editor_temp.read_text() == "a person's editor"


TOOL_WRITER = r"""
import sys, time
from planwatch.core.settings import Settings
from planwatch.core.store.identity import Caller
from planwatch.core.store.store import Store
from planwatch.core.store.errors import StoreError
from planwatch.core.store.tools import run_tool
store, caller = Store(sys.argv[1]), Caller(by="agent")
end = time.monotonic() + float(sys.argv[2])
n = refused = 0
while time.monotonic() < end:
    n += 1
    try:
        run_tool("task_set", store, Settings(), caller, {"task": "t1", "note": f"tool {n}"})
    except StoreError:
        refused += 1
print(n, refused)
"""

EDITOR = r"""
import json, os, sys
from pathlib import Path
from planwatch.core.store.store import Store
path, count = sys.argv[1], int(sys.argv[2])
store = Store(Path(path).parent.parent)
lost = []
for n in range(1, count + 1):
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    head, sep, _body = text.partition("\n---\n")
    if not sep:
        continue
    new = head + sep + f"hand edit {n}\n" + "line\n" * 400
    if n % 2:
        with open(path, "r+", encoding="utf-8") as fh:  # an editor saving in place
            fh.seek(0)
            fh.truncate()
            for i in range(0, len(new), 512):
                fh.write(new[i : i + 512])
                fh.flush()
    else:
        tmp = path + ".swp"
        with open(tmp, "w", encoding="utf-8") as fh:  # an editor saving by rename
            fh.write(new)
        os.replace(tmp, path)
    # A save that landed in a file a tool write replaced is put back by that write,
    # which holds the store's lock until it has: once the lock is ours, no write that
    # raced this save is still going, and the save is there or lost for good.
    with store.lock():
        with open(path, encoding="utf-8") as fh:
            present = f"hand edit {n}\n" in fh.read()
    if not present:
        lost.append(n)
print(json.dumps(lost))
"""


def test_a_persons_save_between_a_tools_read_and_rename_survives(tmp_path: Path) -> None:
    root = tmp_path / "store"
    store = Store(root)
    store.add_task(lambda i: TaskRecord(id=i, title="Shared", body="start\n"))
    path = root / "tasks" / "t1.md"
    writers = [_run(TOOL_WRITER, str(root), "8") for _ in range(2)]
    editor = _run(EDITOR, str(path), "150")
    out, err = editor.communicate(timeout=DEADLINE)
    assert editor.returncode == 0, err
    lost = json.loads(out)
    tool_writes = 0
    for proc in writers:
        wout, werr = proc.communicate(timeout=DEADLINE)
        assert proc.returncode == 0, werr
        tool_writes += int(wout.split()[0])
    assert tool_writes > 20
    assert lost == []
    final = Store(root).read_task("t1")
    assert final is not None and final.body.startswith("hand edit 150\n")
    assert final.note is not None and final.note.startswith("tool ")


def test_a_tool_change_to_the_field_a_person_just_saved_is_refused(tmp_path: Path) -> None:
    from planwatch.core.store.errors import RecordChanged

    root = tmp_path / "store"
    store = Store(root)
    store.add_task(lambda i: TaskRecord(id=i, title="Shared"))
    path = root / "tasks" / "t1.md"

    def change(rec: TaskRecord) -> TaskRecord:
        # A person saves a new title in the moment between the tool's read and its write.
        text = path.read_text().replace("title: Shared", "title: Person's title")
        subprocess.run([sys.executable, "-c", f"open({str(path)!r}, 'w').write({text!r})"], check=True)
        return rec.model_copy(update={"title": "Tool's title"})

    try:
        store.update_task("t1", change)
        raise AssertionError("the write went through")
    except RecordChanged as exc:
        assert str(exc) == (
            "tasks/t1.md was edited by hand meanwhile (title); the edit is kept and this change was not made "
            "— read it again and retry."
        )
    assert "title: Person's title" in path.read_text()

    def other_field(rec: TaskRecord) -> TaskRecord:
        text = path.read_text().replace("title: Person's title", "title: Second edit")
        subprocess.run([sys.executable, "-c", f"open({str(path)!r}, 'w').write({text!r})"], check=True)
        return rec.model_copy(update={"note": "from the tool"})

    store.update_task("t1", other_field)
    final = Store(root).read_task("t1")
    assert final is not None and (final.title, final.note) == ("Second edit", "from the tool")
    assert sorted(os.listdir(root / "tasks")) == [".ids", "t1.md"]
