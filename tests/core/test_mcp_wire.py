"""`planwatch mcp` answers every line (core/agent_protocols/mcp_wire.py): a line that is not JSON,
JSON nested too deep, a string holding a lone surrogate, a request whose id is a float
and a message that is no JSON-RPC each get a JSON-RPC error answer, with the id it sent
where it has one, and a line on stderr; the server goes on serving. The real server, a
real process, lines written on its stdin as a client would."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
INIT = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}


def test_every_request_gets_a_json_rpc_answer_and_every_problem_is_logged(isolated_env) -> None:  # type: ignore[no-untyped-def]
    broken = {
        "float id": ('{"jsonrpc":"2.0","id":1.5,"method":"ping"}', -32600, 1.5),
        "lone surrogate": ('{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":"\\ud800"}}', -32700, 2),
        "malformed": ('{"jsonrpc":"2.0","id":3,"method":', -32700, None),
        "deep": ('{"jsonrpc":"2.0","id":4,"method":"ping","params":{"a":' + "[" * 199 + "]" * 199 + "}}", None, 4),
        "deep array": ("[" * 300 + "]" * 300, -32700, None),
        "not json-rpc": ('{"jsonrpc":"1.0","id":5,"method":"ping"}', -32600, 5),
        "bool id": ('{"jsonrpc":"2.0","id":true,"method":"ping"}', -32600, None),
    }
    lines = [json.dumps(INIT), json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"})]
    lines += [line for line, _, _ in broken.values()]
    lines.append(json.dumps({"jsonrpc": "2.0", "id": 99, "method": "ping"}))  # still served after them
    proc = subprocess.Popen(
        [sys.executable, "-m", "planwatch.tui.cli", "mcp"],
        cwd=ROOT,
        env=os.environ.copy(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(("\n".join(lines) + "\n").encode())
    proc.stdin.flush()
    answers = []
    # A line left unanswered would block the read for ever: past the deadline the server
    # is killed, and the read ends.
    deadline = threading.Timer(30, proc.kill)
    deadline.start()
    try:
        while len(answers) < len(broken) + 2:  # the initialize, each broken line, the last ping
            line = proc.stdout.readline()
            assert line, "the server ended before answering every line"
            answers.append(json.loads(line))
    finally:
        deadline.cancel()
        proc.stdin.close()
        proc.wait(timeout=30)
        assert proc.stderr is not None
        stderr = proc.stderr.read().decode()
    errors = [a for a in answers if "error" in a]
    for name, (_line, code, sent_id) in broken.items():
        if code is None:  # JSON the SDK can take (it nests 201 deep): served, not refused
            assert any(a.get("id") == sent_id and "result" in a for a in answers), name
            continue
        assert any(a["id"] == sent_id and a["error"]["code"] == code for a in errors), (name, errors)
    assert {"jsonrpc": "2.0", "id": 99, "result": {}} in answers
    assert stderr.count("answered -32") == len(broken) - 1  # each refusal logged


class Wire:
    """The real server as a process, spoken to line by line, with a deadline."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "planwatch.tui.cli", "mcp"],
            cwd=ROOT,
            env=os.environ.copy(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.deadline = threading.Timer(60, self.proc.kill)
        self.deadline.start()
        self.seen: list[dict] = []

    def send(self, *messages: dict) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in messages))  # one write
        self.proc.stdin.flush()

    def until(self, condition) -> dict:  # type: ignore[no-untyped-def]
        assert self.proc.stdout is not None
        for message in self.seen:
            if condition(message):
                return message
        while True:
            line = self.proc.stdout.readline()
            assert line, "the server ended (or the deadline passed) first"
            self.seen.append(json.loads(line))
            if condition(self.seen[-1]):
                return self.seen[-1]

    def close(self) -> None:
        self.deadline.cancel()
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def test_a_subscribe_and_its_unsubscribe_sent_back_to_back_leave_no_subscription(isolated_env) -> None:  # type: ignore[no-untyped-def]
    wire = Wire()
    try:
        wire.send(INIT, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        wire.until(lambda m: m.get("id") == 0)
        for n, title in ((1, "Ship"), (2, "Still watched")):
            wire.send(
                {
                    "jsonrpc": "2.0",
                    "id": n,
                    "method": "tools/call",
                    "params": {"name": "plan_create", "arguments": {"title": title}},
                }
            )
            wire.until(lambda m, n=n: m.get("id") == n)
        # A plan with many tasks: the channel takes a while to start its subscription,
        # and the unsubscribe behind the subscribe is read meanwhile.
        wire.send(
            *(
                {
                    "jsonrpc": "2.0",
                    "id": 1000 + n,
                    "method": "tools/call",
                    "params": {"name": "task_add", "arguments": {"title": f"Task {n}", "plan": "p1"}},
                }
                for n in range(400)
            )
        )
        wire.until(lambda m: m.get("id") == 1399)
        sub = {"jsonrpc": "2.0", "method": "resources/subscribe"}
        unsub = {"jsonrpc": "2.0", "method": "resources/unsubscribe"}
        wire.send({**sub, "id": 10, "params": {"uri": "x-ahpd-plans://p2"}})
        wire.until(lambda m: m.get("id") == 10)
        for n in range(20, 26, 2):  # subscribe and unsubscribe in one write, three times
            wire.send(
                {**sub, "id": n, "params": {"uri": "x-ahpd-plans://p1"}},
                {**unsub, "id": n + 1, "params": {"uri": "x-ahpd-plans://p1"}},
            )
            wire.until(lambda m, n=n: m.get("id") == n + 1)
            wire.until(lambda m, n=n: m.get("id") == n)
        for plan in ("p1", "p2"):
            subprocess.run(
                [sys.executable, "-m", "planwatch.tui.cli", "plan", "set", plan, "--status", "active"],
                cwd=ROOT,
                env=os.environ.copy(),
                check=True,
                capture_output=True,
                timeout=60,
            )
        wire.until(
            lambda m: m.get("method") == "notifications/resources/updated" and m["params"]["uri"] == "x-ahpd-plans://p2"
        )  # the path is alive
    finally:
        wire.close()
    updated = [m["params"]["uri"] for m in wire.seen if m.get("method") == "notifications/resources/updated"]
    assert "x-ahpd-plans://p1" not in updated


def test_an_invalid_request_is_answered_with_its_id_only_where_json_rpc_allows_that_id(isolated_env) -> None:  # type: ignore[no-untyped-def]
    # JSON-RPC 2.0: an id is a string, a number or null; a request whose id cannot be
    # detected is answered -32600 with id null. MCP takes only strings and integers.
    cases = {
        "true": None,
        "false": None,
        '{"a": 1}': None,
        "[1]": None,
        "null": None,
        "1.5": 1.5,
        "-7e2": -700.0,
    }
    wire = Wire()
    try:
        wire.send(INIT, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        wire.until(lambda m: m.get("id") == 0)
        for n, (sent, answered) in enumerate(cases.items(), 1):
            assert wire.proc.stdin is not None
            wire.proc.stdin.write(f'{{"jsonrpc":"2.0","id":{sent},"method":"ping"}}\n'.encode())
            wire.send({"jsonrpc": "2.0", "id": f"after {n}", "method": "ping"})
            wire.until(lambda m, n=n: m.get("id") == f"after {n}")
            refusal = wire.seen[-2]  # requests are answered in the order sent
            assert refusal["error"]["code"] == -32600, sent
            assert "id" in refusal and refusal["id"] == answered and type(refusal["id"]) is type(answered), sent
        # An id that is valid JSON-RPC on a message that is not: the id comes back.
        wire.send({"jsonrpc": "1.0", "id": "mine", "method": "ping"})
        assert wire.until(lambda m: m.get("id") == "mine")["error"]["code"] == -32600
    finally:
        wire.close()
    # docs/store.md says the same.
    page = (ROOT / "docs" / "store.md").read_text()
    said = " ".join(page.split("**Every request is answered.**", 1)[1].split("\n- ", 1)[0].split())
    assert "(`true`, an object, an array)" in said and "answered with id `null`" in said, said
    assert "with the id it sent wherever the line has one" not in said
