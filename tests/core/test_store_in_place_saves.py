"""docs/store.md: a tool's write never lands over a person's save that is still being written.
An editor that saves in place (truncate, write) and pauses half-way keeps its whole
save: the tool waits for the file to be still, then applies its change on top. A real
second process is the editor."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import cli_run
import pytest
from conftest import IsolatedEnv

from planwatch.core.regular_files import file_identity
from planwatch.core.store.handsave import written_in_place_recently
from planwatch.core.store.schema import TaskRecord
from planwatch.core.store.store import Store

ROOT = Path(__file__).resolve().parents[2]
DEADLINE = 60
LINES = 3000

SLOW_EDITOR = r"""
import sys, time
path, lines, pause = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
text = open(path, encoding="utf-8").read()
body = "".join(f"line {n} of the person's notes\n" for n in range(1, lines + 1))
whole = text + body
half = len(text) + len(body) // 2
with open(path, "r+", encoding="utf-8") as fh:  # saved in place, as vim with backupcopy=yes does
    fh.truncate(0)
    fh.write(whole[:half])
    fh.flush()
    print("half", flush=True)
    time.sleep(pause)  # the editor stalls half-way (a slow disk, a stopped process)
    fh.write(whole[half:])
print("saved", flush=True)
"""


def planwatch(*argv: str) -> subprocess.CompletedProcess[str]:
    return cli_run.planwatch(*argv, timeout=DEADLINE, stdin=subprocess.DEVNULL)


def test_an_in_place_save_paused_half_way_is_kept_whole_under_a_tool_write(isolated_env: IsolatedEnv) -> None:
    Store(isolated_env.store).add_task(lambda i: TaskRecord(id=i, title="Notes"))
    path = isolated_env.store / "tasks" / "t1.md"
    editor = subprocess.Popen(
        [sys.executable, "-c", SLOW_EDITOR, str(path), str(LINES), "1.5"], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    assert editor.stdout is not None
    assert editor.stdout.readline() == "half\n"  # the tool runs while the save is half done
    done = planwatch("task", "set", "t1", "--status", "doing")
    assert editor.stdout.readline() == "saved\n"
    assert editor.wait(timeout=DEADLINE) == 0
    assert done.returncode == 0, done.stderr
    text = path.read_text()
    assert text.count("of the person's notes\n") == LINES  # the whole save, not its first half
    assert f"line {LINES} of the person's notes\n" in text
    assert "status: doing" in text  # and the tool's change on top of it


def test_a_file_the_store_made_whole_is_never_taken_for_a_save_in_progress(isolated_env: IsolatedEnv) -> None:
    """The positive twin: the store's own writes (made whole, renamed in) are told apart
    from an in-place save, so tool writes in a row from separate processes never wait;
    a file written in place moments ago is waited for."""
    Store(isolated_env.store).add_task(lambda i: TaskRecord(id=i, title="Quick"))
    path = isolated_env.store / "tasks" / "t1.md"
    assert planwatch("task", "set", "t1", "--status", "doing").returncode == 0
    assert not written_in_place_recently(file_identity(path))
    with path.open("r+", encoding="utf-8") as fh:  # a person's in-place save
        text = fh.read()
        fh.seek(0)
        fh.write(text.replace("status: doing", "status: review"))
    assert written_in_place_recently(file_identity(path))


OPENED_EDITOR = r"""
import sys
path = sys.argv[1]
text = open(path, encoding="utf-8").read()
with open(path, "r+", encoding="utf-8") as fh:  # opened for its save before the tool's write
    print("open", flush=True)
    sys.stdin.readline()  # descheduled between its open and its write, for as long as the test says
    fh.truncate(0)
    fh.write(text + "the person's note, saved into the file they had open\n")
print("saved", flush=True)
"""


def _editor_holding_the_file_open(path: Path) -> subprocess.Popen[str]:
    editor = subprocess.Popen(
        [sys.executable, "-c", OPENED_EDITOR, str(path)],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert editor.stdout is not None
    assert editor.stdout.readline() == "open\n"
    return editor


def _let_it_save_once_the_file_is_replaced(editor: subprocess.Popen[str], path: Path, before: int) -> None:
    """The editor writes only after the tool's write has renamed its file over the one
    the editor holds: its save lands in the replaced file."""
    assert editor.stdin is not None and editor.stdout is not None
    deadline = time.monotonic() + DEADLINE
    while os.stat(path).st_ino == before:
        assert time.monotonic() < deadline, "the tool never replaced the file"
        time.sleep(0.01)
    editor.stdin.write("go\n")
    editor.stdin.flush()
    assert editor.stdout.readline() == "saved\n"
    assert editor.wait(timeout=DEADLINE) == 0


def test_a_save_into_a_file_opened_before_a_tool_write_is_kept(isolated_env: IsolatedEnv) -> None:
    """An editor that opened the record before a tool replaced it, and writes only after,
    saves into the replaced file: the tool waits while that file is held open for
    writing, and puts the person's save back with its own change on top."""
    Store(isolated_env.store).add_task(lambda i: TaskRecord(id=i, title="Notes"))
    path = isolated_env.store / "tasks" / "t1.md"
    hour_ago = time.time_ns() - 3600 * 10**9
    os.utime(path, ns=(hour_ago, hour_ago))  # nobody edited it lately: only the open file tells
    before = os.stat(path).st_ino
    editor = _editor_holding_the_file_open(path)
    tool = subprocess.Popen(
        [sys.executable, "-m", "planwatch.tui.cli", "task", "set", "t1", "--status", "doing"],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    _let_it_save_once_the_file_is_replaced(editor, path, before)
    _out, err = tool.communicate(timeout=DEADLINE)
    assert tool.returncode == 0, err
    text = path.read_text()
    assert "the person's note, saved into the file they had open\n" in text
    assert "status: doing" in text


def test_a_file_the_store_wrote_itself_is_still_watched_while_an_editor_holds_it(isolated_env: IsolatedEnv) -> None:
    """The same when the file is exactly as this store last wrote it (no edit since to
    suggest a person is around): an editor holding it open for writing is enough."""
    store = Store(isolated_env.store)
    store.add_task(lambda i: TaskRecord(id=i, title="Notes"))
    store.update_task("t1", lambda t: t.model_copy(update={"status": "review"}))
    path = isolated_env.store / "tasks" / "t1.md"
    before = os.stat(path).st_ino
    editor = _editor_holding_the_file_open(path)
    failures: list[BaseException] = []

    def write() -> None:
        try:
            store.update_task("t1", lambda t: t.model_copy(update={"status": "doing"}))
        except BaseException as exc:  # reported below, in the test's thread
            failures.append(exc)

    writer = threading.Thread(target=write)
    writer.start()
    _let_it_save_once_the_file_is_replaced(editor, path, before)
    writer.join(timeout=DEADLINE)
    assert not writer.is_alive() and failures == []
    text = path.read_text()
    assert "the person's note, saved into the file they had open\n" in text
    assert "status: doing" in text


CUT_EDITOR = r"""
import sys
path = sys.argv[1]
text = open(path, encoding="utf-8").read()
with open(path, "r+", encoding="utf-8") as fh:  # saved in place: emptied first, then written
    fh.seek(0)
    fh.truncate()
    print("cut", flush=True)
    sys.stdin.readline()  # descheduled between its truncate and its write
    fh.write(text.replace("start\n", "the person's body\n"))
print("saved", flush=True)
"""


def test_a_tool_reading_a_record_an_editor_has_just_emptied_waits_for_the_save(
    isolated_env: IsolatedEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tool's locked read that falls between an editor's truncate and its write would
    find an empty file and refuse the record as not valid; it waits for the save
    instead, as the write does, and puts its change on top of what the person saved."""
    from planwatch.core.settings import Settings
    from planwatch.core.store import handsave
    from planwatch.core.store.identity import Caller
    from planwatch.core.store.tools import run_tool

    store = Store(isolated_env.store)
    store.add_task(lambda i: TaskRecord(id=i, title="Notes", body="start\n"))
    path = isolated_env.store / "tasks" / "t1.md"
    editor = subprocess.Popen(
        [sys.executable, "-c", CUT_EDITOR, str(path)],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert editor.stdin is not None and editor.stdout is not None
    assert editor.stdout.readline() == "cut\n"
    asked = threading.Event()  # the tool asked whether the file is still open for writing
    real = handsave.open_for_writing

    def spied(target: Path) -> bool | None:
        asked.set()
        return real(target)

    monkeypatch.setattr(handsave, "open_for_writing", spied)
    done: list[object] = []

    def tool() -> None:
        try:
            done.append(run_tool("task_set", store, Settings(), Caller(by="agent"), {"task": "t1", "note": "tool"}))
        except BaseException as exc:  # reported below, in the test's thread
            done.append(exc)

    caller = threading.Thread(target=tool)
    caller.start()
    deadline = time.monotonic() + DEADLINE
    while not asked.is_set() and caller.is_alive():
        assert time.monotonic() < deadline, "the tool neither waited nor finished"
        asked.wait(0.01)
    assert not done, done  # the tool is waiting for the save, not refusing the empty file
    editor.stdin.write("go\n")
    editor.stdin.flush()
    assert editor.stdout.readline() == "saved\n"
    assert editor.wait(timeout=DEADLINE) == 0
    caller.join(timeout=DEADLINE)
    assert not caller.is_alive() and len(done) == 1 and not isinstance(done[0], BaseException), done
    text = path.read_text()
    assert "the person's body\n" in text and "note: tool" in text
