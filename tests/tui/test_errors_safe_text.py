"""Errors reach the terminal as safe text: an error that quotes a file name holding an
OSC 52 payload (which would write the person's clipboard) shows the name's escapes,
never its raw bytes — the command line's report of an error nothing foresaw (its
traceback), and `planwatch mcp`'s log when its store cannot be made, which no longer
stops the server: it still answers every call."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

from conftest import IsolatedEnv

ROOT = Path(__file__).resolve().parents[2]
PAYLOAD = "x\x1b]52;c;ZWNobyBoaQ==\x07y"
SHOWN = "x\\x1b]52;c;ZWNobyBoaQ==\\x07y"


def test_an_unforeseen_errors_traceback_quoting_a_file_name_is_printed_as_safe_text(tmp_path: Path) -> None:
    hostile = tmp_path / PAYLOAD
    hostile.write_text("")
    # A subcommand whose handler fails in a way no code path foresaw, with the file's
    # name in the exception's own text (str(), not repr(): what a message would hold).
    program = (
        "import sys\n"
        "from planwatch.tui import cli\n"
        "def crash(args):\n"
        "    raise RuntimeError(f'could not use {sys.argv[1]}')\n"
        "original = cli.build_parser\n"
        "def build_parser():\n"
        "    parser = original()\n"
        "    sub = next(a for a in parser._actions if a.dest == 'command')\n"
        "    sub.add_parser('crash').set_defaults(handler=crash)\n"
        "    return parser\n"
        "cli.build_parser = build_parser\n"
        "sys.exit(cli.main(['crash']))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program, str(hostile)],
        cwd=ROOT,
        capture_output=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    err = done.stderr.decode()
    assert done.returncode == 1
    assert "planwatch: unexpected error" in err and "Traceback (most recent call last)" in err
    assert f"RuntimeError: could not use {tmp_path}/{SHOWN}" in err
    assert b"\x1b" not in done.stderr and b"\x07" not in done.stderr


def test_a_message_given_to_exit_is_printed_as_safe_text(tmp_path: Path) -> None:
    program = (
        "import sys\n"
        "from planwatch.tui import cli\n"
        "def leave(args):\n"
        "    sys.exit(f'cannot go on with {sys.argv[1]}')\n"
        "original = cli.build_parser\n"
        "def build_parser():\n"
        "    parser = original()\n"
        "    sub = next(a for a in parser._actions if a.dest == 'command')\n"
        "    sub.add_parser('leave').set_defaults(handler=leave)\n"
        "    return parser\n"
        "cli.build_parser = build_parser\n"
        "sys.exit(cli.main(['leave']))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program, PAYLOAD], cwd=ROOT, capture_output=True, timeout=60, stdin=subprocess.DEVNULL
    )
    assert done.returncode == 1
    assert done.stderr.decode() == f"cannot go on with {SHOWN}\n"


def test_mcp_with_a_store_that_cannot_be_made_answers_and_logs_its_name_as_safe_text(isolated_env: IsolatedEnv) -> None:
    blocker = isolated_env.root / PAYLOAD
    blocker.write_text("a file where the store's parent folder should be")
    env = {**os.environ, "PLANWATCH_STORE": str(blocker / "store")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "planwatch.tui.cli", "mcp"],
        cwd=ROOT,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    init = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "task_add", "arguments": {"title": "x"}},
    }
    lines = [init, {"jsonrpc": "2.0", "method": "notifications/initialized"}, call]
    proc.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in lines))
    proc.stdin.flush()
    answers: dict[int, dict] = {}  # type: ignore[type-arg]
    deadline = threading.Timer(60, proc.kill)
    deadline.start()
    try:
        while len(answers) < 2:
            line = proc.stdout.readline()
            assert line, "the server ended before answering"
            answer = json.loads(line)
            answers[answer["id"]] = answer
    finally:
        deadline.cancel()
        proc.stdin.close()
        proc.wait(timeout=30)
    err = proc.stderr.read()
    result = answers[1]["result"]
    assert result["isError"] and result["content"][0]["text"].startswith("Could not create the store at ")
    assert proc.returncode == 0
    assert f"{isolated_env.root}/{SHOWN}/store cannot be watched".encode() in err
    assert b"\x1b" not in err and b"\x07" not in err
