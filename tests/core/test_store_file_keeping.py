"""docs/store.md: a tool's write keeps what a person or the host gave a record file — its mode
and its owner — and the store stays inside its folder: a record or a kind folder that
is a symlink is refused in words. Real files, real modes and owners (the suite runs as
root, so a chown to another uid is real), real CLI processes."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

import cli_run
import pytest
from conftest import IsolatedEnv

from planwatch.core.store.schema import TaskRecord
from planwatch.core.store.store import Store

ROOT = Path(__file__).resolve().parents[2]
DEADLINE = 60
OTHER_UID, OTHER_GID = 4321, 4322


def planwatch(*argv: str) -> subprocess.CompletedProcess[str]:
    return cli_run.planwatch(*argv, timeout=DEADLINE, stdin=subprocess.DEVNULL)


def add(store: Store, title: str) -> TaskRecord:
    return store.add_task(lambda i: TaskRecord(id=i, title=title))


needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another uid needs root")


def test_a_tool_write_keeps_a_persons_chmod_600(isolated_env: IsolatedEnv) -> None:
    add(Store(isolated_env.store), "Private notes")
    path = isolated_env.store / "tasks" / "t1.md"
    path.chmod(0o600)
    done = planwatch("task", "set", "t1", "--status", "doing", "--note", "secret")
    assert done.returncode == 0, done.stderr
    assert "status: doing" in path.read_text()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


@needs_root
def test_a_tool_write_keeps_the_owner_of_the_file_it_replaces(isolated_env: IsolatedEnv) -> None:
    add(Store(isolated_env.store), "Eli's task")
    path = isolated_env.store / "tasks" / "t1.md"
    os.chown(path, OTHER_UID, OTHER_GID)
    path.chmod(0o640)
    done = planwatch("task", "set", "t1", "--status", "review")
    assert done.returncode == 0, done.stderr
    st = path.stat()
    assert "status: review" in path.read_text()
    assert (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) == (OTHER_UID, OTHER_GID, 0o640)


def test_a_record_that_is_a_symlink_to_a_file_elsewhere_is_refused_in_words(
    isolated_env: IsolatedEnv, tmp_path: Path
) -> None:
    store = Store(isolated_env.store)
    add(store, "One")
    outside = tmp_path / "outside.md"
    outside.write_text("---\nid: t2\ntitle: Lives elsewhere\nstatus: todo\n---\n")
    (isolated_env.store / "tasks" / "t2.md").symlink_to(outside)
    listed = planwatch("task", "list")
    assert listed.stdout.splitlines() == ["t1 todo medium One"]
    assert "tasks/t2.md: is a symlink, not a regular file; left out." in listed.stderr
    refused = planwatch("task", "set", "t2", "--status", "done")
    assert refused.returncode == 2 and "is a symlink" in refused.stderr and "kept changing" not in refused.stderr
    assert outside.read_text() == "---\nid: t2\ntitle: Lives elsewhere\nstatus: todo\n---\n"


def test_a_tasks_folder_that_is_a_symlink_is_refused_and_nothing_lands_outside(
    isolated_env: IsolatedEnv, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    isolated_env.store.mkdir(parents=True, exist_ok=True)
    (isolated_env.store / "tasks").symlink_to(elsewhere)
    added = planwatch("task", "add", "Where does it go")
    assert added.returncode == 1 and "Traceback" not in added.stderr
    assert added.stderr.strip() == (
        f"Could not use the store {isolated_env.store}: tasks/ is a symlink, not a folder of the store "
        "(its records would live elsewhere); nothing was changed."
    )
    assert os.listdir(elsewhere) == []
    listed = planwatch("task", "list")
    assert "tasks/: is a symlink, not a folder of the store" in listed.stderr


@pytest.mark.parametrize("damage", ["garbled", "empty", "missing", "lowered"])
def test_a_damaged_id_counter_never_hands_out_a_removed_records_id_and_says_it_was_repaired(
    isolated_env: IsolatedEnv, damage: str
) -> None:
    store = Store(isolated_env.store)
    for n in range(1, 10):
        add(store, f"task {n}")
    for n in range(4, 10):
        assert store.delete_task(f"t{n}")
    ids = isolated_env.store / ".ids"
    if damage == "garbled":
        ids.write_bytes(b'{"t": 9, "p"\x00\xff')
    elif damage == "empty":
        ids.write_bytes(b"")
    elif damage == "missing":
        ids.unlink()
    else:
        ids.write_text('{"t": 3}\n')
    added = planwatch("task", "add", "After the damage")
    assert added.returncode == 0, added.stderr
    assert added.stdout == "t10 todo medium After the damage\n"
    what = {"garbled": "was garbled", "empty": "was garbled", "missing": "was missing", "lowered": "was behind"}[damage]
    assert f"The id counter {ids} {what}" in added.stderr
    assert "repaired from its copy in" in added.stderr and "no removed record's id is handed out again" in added.stderr
    assert json.loads(ids.read_text()) == {"t": 10}
    again = planwatch("task", "add", "Once repaired")
    assert again.stdout == "t11 todo medium Once repaired\n" and again.stderr == ""


@pytest.mark.parametrize("damage", ["both removed", "both emptied", "ids garbled, lock removed"])
def test_the_id_counter_survives_losing_both_ids_and_lock_and_says_it_was_repaired(
    isolated_env: IsolatedEnv, damage: str
) -> None:
    store = Store(isolated_env.store)
    for n in range(1, 10):
        add(store, f"task {n}")
    for n in range(4, 10):
        assert store.delete_task(f"t{n}")
    ids, lock = isolated_env.store / ".ids", isolated_env.store / ".lock"
    if damage == "both removed":
        ids.unlink()
        lock.unlink()
    elif damage == "both emptied":
        ids.write_bytes(b"")
        lock.write_bytes(b"")
    else:
        ids.write_bytes(b'{"t": 9, "p"\x00\xff')
        lock.unlink()
    added = planwatch("task", "add", "After the damage")
    assert added.returncode == 0, added.stderr
    assert added.stdout == "t10 todo medium After the damage\n"  # never t4 again
    mark = isolated_env.store / "tasks" / ".ids"
    what = "was garbled" if damage != "both removed" else "was missing"
    assert f"The id counter {ids} {what}; repaired from its copy in {mark} (" in added.stderr
    assert json.loads(ids.read_text()) == {"t": 10} and json.loads(mark.read_text()) == {"t": 10}
    again = planwatch("task", "add", "Once repaired")
    assert again.stdout == "t11 todo medium Once repaired\n" and again.stderr == ""
    # The tasks' folder holds its mark and no record more: listings never show it.
    assert planwatch("task", "list").stdout.splitlines()[-1] == "t11 todo medium Once repaired"
