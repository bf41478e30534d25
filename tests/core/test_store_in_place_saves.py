"""SPEC §4: a tool's write never lands over a person's save that is still being written.
An editor that saves in place (truncate, write) and pauses half-way keeps its whole
save: the tool waits for the file to be still, then applies its change on top. A real
second process is the editor."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import IsolatedEnv

from planwatch.core.regular import file_identity
from planwatch.core.store.handsave import written_in_place_recently
from planwatch.core.store.records import Store
from planwatch.core.store.schema import TaskRecord

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
    return subprocess.run(
        [sys.executable, "-m", "planwatch.tui.cli", *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=DEADLINE,
        stdin=subprocess.DEVNULL,
    )


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
