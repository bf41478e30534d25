"""`planwatch acp-tap` (docs/reading.md, ACP agents): a transparent ACP proxy that records plans.

Everything runs for real: a scripted ACP client (tests/agents/fake_acp_client.py) drives
a scripted ACP agent (tests/agents/fake_acp_agent.py) once directly and once through
`python -m planwatch.tui.cli acp-tap`, and the bytes each side saw must be identical.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from conftest import IsolatedEnv

from planwatch.core.agent_protocols.acp_tap import LineSplitter, LogQueue, encode_log_lines, run_tap

ROOT = Path(__file__).resolve().parents[2]
AGENT = ROOT / "tests" / "agents" / "fake_acp_agent.py"
CLIENT = ROOT / "tests" / "agents" / "fake_acp_client.py"
TAP = [sys.executable, "-m", "planwatch.tui.cli", "acp-tap"]
DEADLINE = 60
BIG = 20 * 1024 * 1024  # past the 16 MB logging cap


def run_client(out: Path, agent_command: list[str], *extra: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, str(CLIENT), "--out", str(out), *extra, "--", *agent_command],
        cwd=ROOT,
        capture_output=True,
        timeout=DEADLINE,
    )


def agent_command(record: Path, exit_code: int = 0) -> list[str]:
    return [sys.executable, str(AGENT), "--record", str(record), "--exit-code", str(exit_code)]


def direct_and_tapped(tmp_path: Path, *extra: str, exit_code: int = 0) -> dict[str, object]:
    """Run the same script directly and through the tap; return what each side saw."""
    seen: dict[str, object] = {}
    for mode in ("direct", "tapped"):
        out, record = tmp_path / f"{mode}.client", tmp_path / f"{mode}.agent"
        command = agent_command(record, exit_code)
        if mode == "tapped":
            command = [*TAP, "--", *command]
        done = run_client(out, command, *extra)
        assert done.returncode != 99, done.stderr.decode(errors="replace")
        seen[mode] = (done.returncode, out.read_bytes(), record.read_bytes())
    return seen


def log_files(env: IsolatedEnv) -> list[Path]:
    return sorted(env.acp_logs.glob("*.jsonl"))


def read_log(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_bytes().splitlines()]


def test_tap_is_transparent_both_ways_and_records_each_message(tmp_path: Path, isolated_env: IsolatedEnv) -> None:
    seen = direct_and_tapped(tmp_path)
    assert seen["tapped"] == seen["direct"]
    code, client_saw, agent_saw = seen["direct"]  # type: ignore[misc]
    assert code == 0 and b'"plan_removed"' in client_saw and b'"session/prompt"' in agent_saw

    [log] = log_files(isolated_env)
    records = read_log(log)
    # Every message of both directions, wrapped, in causal order.
    assert {record["from"] for record in records} == {"agent", "client"}
    assert all(set(record) == {"ts", "from", "msg"} for record in records)
    sent = [json.loads(line) for line in agent_saw.splitlines()]
    received = [json.loads(line) for line in client_saw.splitlines()]
    assert [r["msg"] for r in records if r["from"] == "client"] == sent
    assert [r["msg"] for r in records if r["from"] == "agent"] == received
    methods = [(r["from"], r["msg"].get("method") or r["msg"].get("id")) for r in records]
    assert methods.index(("client", "session/new")) < methods.index(("agent", 2))
    assert methods.index(("client", "session/prompt")) < methods.index(("agent", "session/update"))


def test_tap_log_file_is_private(tmp_path: Path, isolated_env: IsolatedEnv) -> None:
    direct_and_tapped(tmp_path)
    [log] = log_files(isolated_env)
    assert log.stat().st_mode & 0o777 == 0o600
    assert isolated_env.acp_logs.stat().st_mode & 0o777 == 0o700
    # One file per run, named by time and pid.
    assert log.name.endswith(".jsonl") and "-" in log.stem


def test_tapped_log_reads_back_as_the_sessions_plans(tmp_path: Path, isolated_env: IsolatedEnv) -> None:
    from planwatch.core.transcripts.registry import reader_for

    direct_and_tapped(tmp_path)
    [log] = log_files(isolated_env)
    reader = reader_for("acp")(log)
    for line in log.read_bytes().splitlines(keepends=True):
        if reader.wants(line):
            reader.feed_line(line)
    [result] = reader.results()
    assert result.facts.id == "sess_fake_1"
    assert result.facts.cwd == "/home/dev/api"
    groups = {group.key: [(item.text, item.status) for item in group.items] for group in result.plan.groups}
    # The last full list of each plan wins; plan-2 was removed.
    assert groups == {
        "": [("Inspect the loader", "completed"), ("Add YAML parsing", "in_progress")],
        "acp:plan-1": [("Write the migration", "completed")],
    }
    assert all(group.source == "acp" for group in result.plan.groups)


@pytest.mark.parametrize("exit_code", [3, 0])
def test_tap_exits_with_the_agents_exit_code(tmp_path: Path, exit_code: int) -> None:
    seen = direct_and_tapped(tmp_path, exit_code=exit_code)
    assert seen["direct"][0] == exit_code  # type: ignore[index]
    assert seen["tapped"][0] == exit_code  # type: ignore[index]


def test_garbage_and_a_20mb_line_pass_through_unchanged(tmp_path: Path, isolated_env: IsolatedEnv) -> None:
    seen = direct_and_tapped(tmp_path, "--garbage", "--big", str(BIG))
    assert seen["tapped"] == seen["direct"]
    _code, client_saw, agent_saw = seen["tapped"]  # type: ignore[misc]
    assert b"\xff\xfe binary \x00\x01 bytes\n" in agent_saw
    assert len(agent_saw) > BIG and len(client_saw) > BIG

    [log] = log_files(isolated_env)
    records = read_log(log)  # every logged line is valid JSON: garbage was skipped
    assert all(len(json.dumps(record)) < BIG for record in records)
    # The request for the big answer (small) is logged; the 20 MB lines are not.
    assert any(record["msg"].get("method") == "_test/big" for record in records)
    assert not any(record["msg"].get("method") == "_test/note" for record in records)
    assert not any("blob" in (record["msg"].get("result") or {}) for record in records)
    # The prompt after the huge lines is still recorded.
    assert any(record["msg"].get("method") == "session/prompt" for record in records)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_a_signal_to_the_tap_reaches_the_agent(tmp_path: Path, signum: signal.Signals) -> None:
    tap = subprocess.Popen(
        [*TAP, "--", *agent_command(tmp_path / "agent.rec")],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        bufsize=0,
    )
    assert tap.stdin is not None and tap.stdout is not None
    try:
        tap.stdin.write(b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}\n')
        # The answer proves the agent is up and its signal handlers are installed.
        first = tap.stdout.readline()
        assert json.loads(first)["id"] == 1
        tap.send_signal(signum)
        rest = tap.stdout.read()
        assert tap.wait(DEADLINE) == 42  # the fake agent's exit code after a signal
    finally:
        if tap.poll() is None:
            tap.kill()
            tap.wait()
    note = json.loads(rest)
    assert note == {"jsonrpc": "2.0", "method": "_test/signal", "params": {"signal": signum.name}}


def test_closing_the_clients_stdin_closes_the_agents(tmp_path: Path) -> None:
    record = tmp_path / "agent.rec"
    done = subprocess.run(
        [*TAP, "--", *agent_command(record, exit_code=5)],
        cwd=ROOT,
        input=b'{"jsonrpc":"2.0","id":7,"method":"session/new","params":{"cwd":"/w"}}\n',
        capture_output=True,
        timeout=DEADLINE,
    )
    assert done.returncode == 5
    assert json.loads(done.stdout) == {"jsonrpc": "2.0", "id": 7, "result": {"sessionId": "sess_fake_1"}}


def test_an_agent_that_cannot_start_is_reported() -> None:
    done = subprocess.run([*TAP, "--", "/nonexistent/agent-binary"], cwd=ROOT, capture_output=True, timeout=DEADLINE)
    assert done.returncode == 127
    assert b"cannot start the agent" in done.stderr


def test_an_unwritable_log_stops_logging_but_not_forwarding(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the log folder should be")
    done = subprocess.run(
        [*TAP, "--log", str(blocker / "tap.jsonl"), "--", "cat"],
        cwd=ROOT,
        input=b'{"jsonrpc":"2.0","method":"a"}\n{"jsonrpc":"2.0","method":"b"}\n',
        capture_output=True,
        timeout=DEADLINE,
    )
    assert done.returncode == 0
    assert done.stdout == b'{"jsonrpc":"2.0","method":"a"}\n{"jsonrpc":"2.0","method":"b"}\n'
    assert done.stderr.count(b"logging stopped") == 1


def test_a_full_disk_stops_logging_with_one_message(tmp_path: Path) -> None:
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full on this system")
    payload = b"".join(b'{"jsonrpc":"2.0","method":"m%d"}\n' % n for n in range(2000))
    done = subprocess.run(
        [*TAP, "--log", "/dev/full", "--", "cat"], cwd=ROOT, input=payload, capture_output=True, timeout=DEADLINE
    )
    assert done.returncode == 0
    assert done.stdout == payload
    assert done.stderr.count(b"logging stopped") == 1


def test_log_queue_drops_and_counts_instead_of_blocking() -> None:
    """A full queue answers a put at once with False (dropped, counted): a put that
    waited for room could only return once the writer took lines, and none is taken
    here, so each False is a put that did not wait."""
    queue = LogQueue(max_items=3, max_bytes=1000)
    accepted = [queue.put(0.0, "agent", b"{}") for _ in range(10)]
    assert accepted == [True] * 3 + [False] * 7
    assert queue.dropped == 7
    assert queue.put(0.0, "agent", b"x" * 2000) is False  # over the byte bound
    batch = queue.take_all()
    assert batch is not None and len(batch) == 3
    queue.close()
    assert queue.take_all() is None


def test_splitter_skips_lines_over_the_cap_without_holding_them() -> None:
    queue = LogQueue()
    splitter = LineSplitter("agent", queue, cap=100)
    splitter.feed(b'{"a":1}\n{"b":')
    splitter.feed(b"x" * 500)  # the partial line passes the cap: dropped from memory
    assert len(splitter._buf) == 0
    splitter.feed(b'"y"}\n{"c":3}\n{"d":')
    splitter.feed(b"4}")
    splitter.finish()  # a last message without its newline is still logged
    batch = queue.take_all()
    assert batch is not None
    assert [line for _ts, _side, line in batch] == [b'{"a":1}', b'{"c":3}', b'{"d":4}']
    assert splitter.oversized == 1


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (b'{"jsonrpc":"2.0","id":1}', [{"jsonrpc": "2.0", "id": 1}]),
        (b'{"x":1}\r', [{"x": 1}]),
        (b'[{"a":1},2,{"b":2}]', [{"a": 1}, {"b": 2}]),
        (b"not json", []),
        (b"\xff\xfe", []),
        (b"42", []),
        (b"   ", []),
    ],
)
def test_log_lines_wrap_json_objects_and_skip_the_rest(raw: bytes, expected: list[dict]) -> None:
    lines = encode_log_lines(1_700_000_000.0, "client", raw)
    decoded = [json.loads(line) for line in lines]
    assert [record["msg"] for record in decoded] == expected
    for record in decoded:
        assert record["from"] == "client"
        assert record["ts"] == "2023-11-14T22:13:20.000Z"


def test_run_tap_in_process_forwards_between_fds(tmp_path: Path) -> None:
    """run_tap works on any pair of fds (the CLI passes 0 and 1)."""
    client_to_tap_r, client_to_tap_w = os.pipe()
    tap_to_client_r, tap_to_client_w = os.pipe()
    log = tmp_path / "log.jsonl"
    result: list[int] = []
    thread = threading.Thread(
        target=lambda: result.append(run_tap(["cat"], log, stdin_fd=client_to_tap_r, stdout_fd=tap_to_client_w))
    )
    thread.start()
    os.write(client_to_tap_w, b'{"jsonrpc":"2.0","method":"ping"}\n')
    os.close(client_to_tap_w)
    thread.join(DEADLINE)
    os.close(tap_to_client_w)
    echoed = os.read(tap_to_client_r, 1000)
    os.close(tap_to_client_r)
    os.close(client_to_tap_r)
    assert result == [0]
    assert echoed == b'{"jsonrpc":"2.0","method":"ping"}\n'
    froms = [record["from"] for record in read_log(log)]
    assert froms == ["client", "agent"]


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o666, 0o604], ids=oct)
def test_a_log_file_others_can_read_is_made_private_before_a_prompt_is_appended_and_that_is_said(
    tmp_path: Path, mode: int
) -> None:
    log = tmp_path / "tap.jsonl"
    log.write_bytes(b'{"ts":1,"from":"client","msg":{"jsonrpc":"2.0","method":"old"}}\n')
    log.chmod(mode)
    assert log.stat().st_mode & 0o777 == mode  # the real mode, before
    prompt = b'{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"prompt":"secret"}}\n'
    done = subprocess.run(
        [*TAP, "--log", str(log), "--", "cat"], cwd=ROOT, input=prompt, capture_output=True, timeout=DEADLINE
    )
    assert done.returncode == 0 and done.stdout == prompt
    assert log.stat().st_mode & 0o777 == 0o600
    assert f"was {mode:04o} (others could read it); it is 0600 now".encode() in done.stderr
    # Appended: the old line kept, the prompt as the client sent it and as `cat` echoed it.
    assert [r["msg"].get("method") for r in read_log(log)] == ["old", "session/prompt", "session/prompt"]


def test_a_private_log_file_is_appended_to_without_a_word(tmp_path: Path) -> None:
    log = tmp_path / "tap.jsonl"
    log.write_bytes(b"")
    log.chmod(0o600)
    done = subprocess.run(
        [*TAP, "--log", str(log), "--", "cat"],
        cwd=ROOT,
        input=b'{"jsonrpc":"2.0","method":"a"}\n',
        capture_output=True,
        timeout=DEADLINE,
    )
    assert done.returncode == 0 and done.stderr == b""
    assert log.stat().st_mode & 0o777 == 0o600 and len(read_log(log)) == 2
