"""A scripted ACP agent for the acp-tap tests: deterministic, stdlib only.

It speaks newline-delimited JSON-RPC on stdin/stdout like a real ACP agent
(agent-client-protocol: initialize, session/new, session/prompt) and, for each prompt,
sends the plan notifications of docs/reading.md, ACP agents — a default `plan`, a `plan_update` with a
planId, a second update of it, a `plan_removed` — then the prompt's result.

Test hooks:
  --record FILE     every byte read from stdin is appended here, unchanged
  --exit-code N     exit with N when stdin closes (default 0)
  `_test/big` {"size": N}  answers with a result holding an N-byte string (one huge line)
  SIGINT/SIGTERM/SIGHUP    sends `_test/signal` {"signal": name} and exits with 42
Garbage lines get a JSON-RPC parse error (id null), as real agents answer them.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys

SESSION_ID = "sess_fake_1"
SIGNAL_EXIT = 42


def send(message: dict) -> None:
    data = json.dumps(message, separators=(",", ":")).encode() + b"\n"
    view = memoryview(data)
    while view:
        view = view[os.write(1, view) :]


def notify_plan(update: dict) -> None:
    send({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": SESSION_ID, "update": update}})


def entry(content: str, status: str) -> dict:
    return {"content": content, "priority": "medium", "status": status}


def run_prompt(request_id: object) -> None:
    notify_plan({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "Looking."}})
    notify_plan(
        {
            "sessionUpdate": "plan",
            "entries": [entry("Inspect the loader", "in_progress"), entry("Add YAML parsing", "pending")],
        }
    )
    notify_plan(
        {
            "sessionUpdate": "plan_update",
            "plan": {"type": "items", "planId": "plan-1", "entries": [entry("Write the migration", "pending")]},
        }
    )
    notify_plan(
        {
            "sessionUpdate": "plan_update",
            "plan": {"type": "items", "planId": "plan-2", "entries": [entry("Scratch step", "pending")]},
        }
    )
    notify_plan(
        {
            "sessionUpdate": "plan",
            "entries": [entry("Inspect the loader", "completed"), entry("Add YAML parsing", "in_progress")],
        }
    )
    notify_plan(
        {
            "sessionUpdate": "plan_update",
            "plan": {"type": "items", "planId": "plan-1", "entries": [entry("Write the migration", "completed")]},
        }
    )
    notify_plan({"sessionUpdate": "plan_removed", "planId": "plan-2"})
    send({"jsonrpc": "2.0", "id": request_id, "result": {"stopReason": "end_turn"}})


def handle(line: bytes) -> None:
    try:
        message = json.loads(line)
    except ValueError:
        send({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}})
        return
    if not isinstance(message, dict) or "method" not in message:
        send({"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Invalid Request"}})
        return
    method, request_id = message["method"], message.get("id")
    if request_id is None:
        return  # a notification needs no answer
    params = message.get("params") or {}
    if method == "initialize":
        send(
            {
                "jsonrpc": "2.0",
                "id": request_id,
                "result": {
                    "protocolVersion": 1,
                    "agentCapabilities": {"loadSession": False},
                    "agentInfo": {"name": "fake-acp-agent", "version": "1.0"},
                },
            }
        )
    elif method == "session/new":
        send({"jsonrpc": "2.0", "id": request_id, "result": {"sessionId": SESSION_ID}})
    elif method == "session/prompt":
        run_prompt(request_id)
    elif method == "_test/big":
        send({"jsonrpc": "2.0", "id": request_id, "result": {"blob": "b" * int(params.get("size", 0))}})
    else:
        send({"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": f"Method not found: {method}"}})


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--record")
    parser.add_argument("--exit-code", type=int, default=0)
    args = parser.parse_args()

    def on_signal(signum: int, _frame: object) -> None:
        send({"jsonrpc": "2.0", "method": "_test/signal", "params": {"signal": signal.Signals(signum).name}})
        os._exit(SIGNAL_EXIT)

    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, on_signal)

    record = open(args.record, "ab") if args.record else None
    pending = bytearray()
    while chunk := os.read(0, 65536):
        if record:
            record.write(chunk)
        pending += chunk
        while (end := pending.find(b"\n")) != -1:
            line = bytes(pending[:end])
            del pending[: end + 1]
            if line.strip():
                handle(line)
    if record:
        record.close()
    return args.exit_code


if __name__ == "__main__":
    sys.exit(main())
