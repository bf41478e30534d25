"""docs/store.md, What clients see from the command line: `planwatch todo SESSION` and `planwatch channel URI`.

Each command runs as a real subprocess on a real store folder; the channel's lines are
read with a deadline while the test changes the store through the Store API.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from stdout_lines import Lines

from planwatch.core.settings import Settings
from planwatch.core.store.identity import Caller
from planwatch.core.store.store import Store
from planwatch.core.store.tools import run_tool
from planwatch.core.store.translate import translate_list

ROOT = Path(__file__).resolve().parents[2]
SESSION = "6f1c2a90-3b7e-4d0a-9a51-2c8f0e4b7d13"
DEADLINE = 60.0  # bounds a failure only


def planwatch(*args: str) -> list[str]:
    return [sys.executable, "-m", "planwatch.tui.cli", *args]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(planwatch(*args), cwd=ROOT, env=dict(os.environ), capture_output=True, text=True, timeout=60)


@pytest.fixture
def store(tmp_path: Path) -> Store:
    store = Store(tmp_path / "store")
    translate_list(
        store, SESSION, "Fix the ledger import",
        [("Read the code", "completed"), ("Fix the bug", "in_progress"), ("Ship", "pending")],
        tool="TodoWrite",
    )  # fmt: skip
    return store


def _interruptible() -> None:
    """Give the command the SIGINT a terminal's Ctrl-C reaches: a test run started in the
    background by a non-interactive shell inherits SIGINT ignored, and Python then
    installs no KeyboardInterrupt handler in its children."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.fixture
def follow(store: Store) -> Iterator[tuple[subprocess.Popen[str], Lines]]:
    proc = subprocess.Popen(
        planwatch("channel", "x-ahpd-plans://p1", "--store", str(store.root)),
        cwd=ROOT,
        env=dict(os.environ),
        preexec_fn=_interruptible,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        yield proc, Lines(proc.stdout)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=DEADLINE)


def test_todo_prints_the_session_todo_lines(store: Store) -> None:
    out = run("todo", SESSION, "--store", str(store.root))
    assert out.returncode == 0, out.stderr
    assert out.stdout == "- [x] Read the code\n- [ ] Fix the bug\n- [ ] Ship\n"


def test_todo_uses_the_store_of_the_environment(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLANWATCH_STORE", str(store.root))
    out = run("todo", SESSION)
    assert out.returncode == 0 and out.stdout.splitlines()[0] == "- [x] Read the code"


def test_todo_meta_prints_the_open_count(store: Store) -> None:
    out = run("todo", SESSION, "--meta", "--store", str(store.root))
    assert json.loads(out.stdout) == {"ahpd.tasks": {"open": 2}}
    # A session no task names has no key (docs/store.md, What clients see); one that does not exist at all is an
    # error, tested in test_todo_of_an_unknown_session_is_an_error.


def test_channel_once_prints_the_state_as_one_json_line(store: Store) -> None:
    out = run("channel", "x-ahpd-plans://p1", "--once", "--store", str(store.root))
    assert out.returncode == 0, out.stderr
    [line] = out.stdout.splitlines()
    state = json.loads(line)
    assert state["plan"]["title"] == "Fix the ledger import"
    assert [t["title"] for t in state["tasks"]] == ["Read the code", "Fix the bug", "Ship"]


def test_channel_with_unknown_uri_says_so_on_stderr_and_exits_2(store: Store) -> None:
    out = run("channel", "x-ahpd-plans://p42", "--store", str(store.root))
    assert out.returncode == 2
    assert out.stdout == ""
    assert out.stderr.strip() == "Resource not found: x-ahpd-plans://p42"


def test_channel_prints_one_json_line_per_change_until_terminated(
    store: Store, follow: tuple[subprocess.Popen[str], Lines]
) -> None:
    proc, lines = follow
    state = json.loads(lines.next())
    assert [t["id"] for t in state["tasks"]] == ["t1", "t2", "t3"]

    store.update_task("t2", lambda t: t.model_copy(update={"status": "done"}))
    action: dict[str, Any] = json.loads(lines.next())
    assert action["type"] == "x-ahpd-plans/taskSet"
    assert (action["task"]["id"], action["task"]["status"]) == ("t2", "done")

    run_tool("task_add", store, Settings(), Caller(by="dana"), {"title": "Tell the team", "plan": "p1"})
    action = json.loads(lines.next())
    assert action["type"] == "x-ahpd-plans/taskAdded" and action["task"]["title"] == "Tell the team"

    proc.terminate()
    assert proc.wait(timeout=DEADLINE) == 0
    assert proc.stderr is not None and proc.stderr.read() == ""


def test_channel_interrupted_exits_quietly(store: Store, follow: tuple[subprocess.Popen[str], Lines]) -> None:
    proc, lines = follow
    json.loads(lines.next())  # the state: the command is following now
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=DEADLINE) == 130
    assert proc.stderr is not None and proc.stderr.read() == ""
