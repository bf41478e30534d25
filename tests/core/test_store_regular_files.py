"""Only regular files are opened. A FIFO, socket or folder where a record, the
id counter or the lock should be is reported and skipped, never waited on; `.lock` is
never followed through a symlink; OS errors are sentences, not tracebacks. Real
processes with a deadline: a hang fails the test instead of stalling it."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import cli_run
import pytest
from conftest import IsolatedEnv
from waiting import wait_until, waits_for_flock

from planwatch.core.store.errors import StoreError
from planwatch.core.store.schema import TaskRecord
from planwatch.core.store.store import Store

ROOT = Path(__file__).resolve().parents[2]
DEADLINE = 30


def planwatch(*argv: str, stdin: int | None = subprocess.DEVNULL) -> subprocess.CompletedProcess[str]:
    return cli_run.planwatch(*argv, timeout=DEADLINE, stdin=stdin)


def add(store: Store, title: str) -> TaskRecord:
    return store.add_task(lambda i: TaskRecord(id=i, title=title))


def test_a_fifo_record_is_reported_and_skipped_by_every_list(isolated_env: IsolatedEnv) -> None:
    store = Store(isolated_env.store)
    add(store, "One")
    os.mkfifo(isolated_env.store / "tasks" / "t2.md")
    listed = planwatch("task", "list")
    assert listed.returncode == 0 and listed.stdout.splitlines() == ["t1 todo medium One"]
    snap = store.load()
    assert [p.message for p in snap.problems] == ["tasks/t2.md: is a FIFO, not a regular file; left out."]
    # The next add goes past the FIFO's name, and a set on it is refused in a sentence.
    assert planwatch("task", "add", "Two").stdout.split()[0] == "t3"
    refused = planwatch("task", "set", "t2", "--status", "done")
    assert refused.returncode == 2 and "Traceback" not in refused.stderr


def test_a_socket_or_folder_record_is_a_problem(isolated_env: IsolatedEnv) -> None:
    store = Store(isolated_env.store)
    add(store, "One")
    (isolated_env.store / "tasks" / "t2.md").mkdir()
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(isolated_env.store / "plans" / "p1.md"))
        messages = [p.message for p in store.load().problems]
    assert messages == [
        "plans/p1.md: is a socket, not a regular file; left out.",
        "tasks/t2.md: is a folder, not a regular file; left out.",
    ]


def test_a_fifo_id_counter_refuses_the_add_in_a_sentence(isolated_env: IsolatedEnv) -> None:
    (isolated_env.store / "tasks").mkdir(parents=True)
    os.mkfifo(isolated_env.store / ".ids")
    added = planwatch("task", "add", "One")
    assert added.returncode == 1
    assert added.stderr.strip() == (
        "Could not read store/.ids: it is a FIFO, not a regular file; no id was minted "
        "(without it a removed record's id could be handed out again)."
    )


def test_a_lock_symlink_is_refused_and_creates_nothing_at_its_target(isolated_env: IsolatedEnv, tmp_path: Path) -> None:
    (isolated_env.store / "tasks").mkdir(parents=True)
    target = tmp_path / "elsewhere" / "victim"
    target.parent.mkdir()
    os.symlink(target, isolated_env.store / ".lock")
    added = planwatch("task", "add", "One")
    assert added.returncode == 1 and "Traceback" not in added.stderr
    assert added.stderr.strip().startswith(f"Could not lock the store {isolated_env.store}: .lock is a symlink")
    assert not target.exists()


def test_a_lock_that_cannot_be_opened_is_a_sentence(isolated_env: IsolatedEnv) -> None:
    (isolated_env.store / "tasks").mkdir(parents=True)
    os.mkfifo(isolated_env.store / ".lock")
    added = planwatch("task", "add", "One")
    assert added.returncode == 1
    assert (
        added.stderr.strip()
        == f"Could not lock the store {isolated_env.store}: .lock is a FIFO, not a regular file; nothing was changed."
    )
    (isolated_env.store / ".lock").unlink()
    (isolated_env.store / ".lock").mkdir()
    added = planwatch("task", "add", "One")
    assert added.returncode == 1 and "Traceback" not in added.stderr and ".lock" in added.stderr


def test_an_id_beyond_the_patterns_range_is_a_sentence(isolated_env: IsolatedEnv) -> None:
    store = Store(isolated_env.store)
    add(store, "One")
    (isolated_env.store / "tasks" / "t999999999.md").write_text("---\nid: t999999999\ntitle: Last\n---\n")
    added = planwatch("task", "add", "Two")
    assert added.returncode == 1
    assert added.stderr.strip() == (
        "No task id is left: ids go up to t999999999, and tasks/ or store/.ids has reached it; nothing was added."
    )
    # A name beyond the range is not a record and does not move the counter.
    (isolated_env.store / "tasks" / "t999999999.md").unlink()
    (isolated_env.store / "tasks" / "t12345678901.md").write_text("---\nid: t1\ntitle: x\n---\n")
    assert json.loads((isolated_env.store / ".ids").read_text()) == {"t": 1}
    assert planwatch("task", "add", "Two").stdout.split()[0] == "t2"


def test_a_read_only_store_is_a_sentence(isolated_env: IsolatedEnv, tmp_path: Path) -> None:
    if os.geteuid() == 0:
        # root writes through file modes: make the store unwritable another way.
        store_file = tmp_path / "not-a-folder"
        store_file.write_text("")
        added = subprocess.run(
            [sys.executable, "-m", "planwatch.tui.cli", "task", "add", "One", "--store", str(store_file / "store")],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=DEADLINE,
            stdin=subprocess.DEVNULL,
        )
    else:
        isolated_env.store.mkdir()
        isolated_env.store.chmod(0o500)
        added = planwatch("task", "add", "One")
    assert added.returncode == 1 and "Traceback" not in added.stderr
    assert added.stderr.startswith("Could not create the store at") or added.stderr.startswith("Could not lock")


def test_store_errors_are_sentences_in_the_api_too(isolated_env: IsolatedEnv) -> None:
    (isolated_env.store / "tasks").mkdir(parents=True)
    os.mkfifo(isolated_env.store / ".lock")
    with pytest.raises(StoreError, match=r"\.lock is a FIFO, not a regular file"):
        add(Store(isolated_env.store), "One")


def _start_server() -> subprocess.Popen[str]:
    server = subprocess.Popen(
        [sys.executable, "-m", "planwatch.tui.cli", "mcp"],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert server.stdin is not None
    for message in (
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "0"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ):
        server.stdin.write(json.dumps(message) + "\n")
    server.stdin.flush()
    return server


def _call(server: subprocess.Popen[str], call_id: int, tool: str, arguments: dict[str, object]) -> None:
    assert server.stdin is not None
    message = {
        "jsonrpc": "2.0",
        "id": call_id,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    }
    server.stdin.write(json.dumps(message) + "\n")
    server.stdin.flush()


def _answer(server: subprocess.Popen[str], call_id: int) -> dict[str, object]:
    assert server.stdout is not None
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        line = server.stdout.readline()
        if line and json.loads(line).get("id") == call_id:
            return json.loads(line)  # type: ignore[no-any-return]
    raise AssertionError(f"no answer to {call_id}")


def test_the_mcp_server_answers_beside_a_fifo(isolated_env: IsolatedEnv) -> None:
    store = Store(isolated_env.store)
    add(store, "One")
    os.mkfifo(isolated_env.store / "tasks" / "t2.md")
    server = _start_server()
    _call(server, 2, "task_list", {})
    answer: dict[str, object] = _answer(server, 2)
    assert answer["result"]["content"][0]["text"] == "t1 todo medium One"  # type: ignore[index]
    assert server.stdin is not None
    server.stdin.close()
    assert server.wait(timeout=DEADLINE) == 0


def test_the_mcp_server_exits_when_stdin_closes_with_a_call_in_flight(isolated_env: IsolatedEnv) -> None:
    store = Store(isolated_env.store)
    add(store, "One")
    with store.lock():  # another process holds the store: the server's task_add waits on it
        server = _start_server()
        _call(server, 2, "task_list", {})
        _answer(server, 2)
        _call(server, 3, "task_add", {"title": "Blocked"})
        # The call is in flight: the server waits for the store's lock this test holds.
        wait_until(lambda: waits_for_flock(isolated_env.store / ".lock"), "the server's task_add waiting on the lock")
        assert server.poll() is None
        assert server.stdin is not None
        server.stdin.close()
        try:
            # The lock is still held: the server can only end here by leaving the call.
            server.wait(timeout=DEADLINE)
        except subprocess.TimeoutExpired:
            server.kill()
            assert server.stderr is not None
            raise AssertionError(server.stderr.read()) from None
        assert server.returncode == 0
        assert waits_for_flock(isolated_env.store / ".lock") is False  # its wait went with it
    assert not (isolated_env.store / "tasks" / "t2.md").exists()  # the blocked add never ran


TRANSCRIPT_READ = r"""
import sys
from pathlib import Path
from planwatch.core.regular_files import NotRegularFile
from planwatch.core.transcripts.claude import ClaudeReader
from planwatch.core.transcripts.lines import read_transcript
try:
    read_transcript(ClaudeReader(Path(sys.argv[1])), Path(sys.argv[1]))
except NotRegularFile as exc:
    print(exc.strerror)
"""


def test_a_transcript_that_is_a_fifo_is_refused_not_waited_on(tmp_path: Path) -> None:
    fifo = tmp_path / "c0a1b2c3-d4e5-4f60-8a7b-9c0d1e2f3a45.jsonl"
    os.mkfifo(fifo)
    done = subprocess.run(
        [sys.executable, "-c", TRANSCRIPT_READ, str(fifo)], cwd=ROOT, capture_output=True, text=True, timeout=DEADLINE
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "is a FIFO, not a regular file"


def test_a_kind_folder_that_is_no_folder_is_named_in_a_sentence(isolated_env: IsolatedEnv) -> None:
    isolated_env.store.mkdir(parents=True, exist_ok=True)
    os.mkfifo(isolated_env.store / "tasks")
    added = planwatch("task", "add", "One")
    assert added.returncode == 1
    # Not "Could not create the store at …: File exists." (the store is there).
    assert added.stderr.strip() == (
        f"Could not use the store {isolated_env.store}: tasks/ is a FIFO, not a folder; nothing was changed."
    )
    assert (isolated_env.store / "tasks").is_fifo()
    os.unlink(isolated_env.store / "tasks")
    (isolated_env.store / "plans").write_text("notes\n")
    created = planwatch("plan", "create", "Two")
    assert created.returncode == 1
    assert created.stderr.strip() == (
        f"Could not use the store {isolated_env.store}: plans/ is a file, not a folder; nothing was changed."
    )
    assert (isolated_env.store / "plans").read_text() == "notes\n"
