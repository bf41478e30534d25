"""A scripted ACP client for the acp-tap tests: runs an agent command and drives it.

    fake_acp_client.py --out FILE [--cwd DIR] [--garbage] [--big N] -- <agent command…>

It sends initialize, session/new (with a cwd), optionally garbage lines and a huge line
each way, then session/prompt; waits for each answer (with a deadline), closes the
agent's stdin, and exits with the agent's exit code. Every byte it read from the agent
is written to --out unchanged, so a test can compare what it saw directly and through
the tap. Exit 99 means a deadline passed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading

DEADLINE = 60.0

GARBAGE = [
    b"not json at all\n",
    b"\xff\xfe binary \x00\x01 bytes\n",
    b'{"jsonrpc":"2.0","broken": \n',
    b"\n\r\n",
    b"[1,2,3]\n",
]


class Reader(threading.Thread):
    def __init__(self, fd: int, out_path: str) -> None:
        super().__init__(daemon=True)
        self.fd = fd
        self.out = open(out_path, "wb")
        self.answers: dict[object, threading.Event] = {}
        self.lock = threading.Lock()

    def event(self, request_id: object) -> threading.Event:
        with self.lock:
            return self.answers.setdefault(request_id, threading.Event())

    def run(self) -> None:
        pending = bytearray()
        while chunk := os.read(self.fd, 65536):
            self.out.write(chunk)
            pending += chunk
            while (end := pending.find(b"\n")) != -1:
                line = bytes(pending[:end])
                del pending[: end + 1]
                try:
                    message = json.loads(line)
                except ValueError:
                    continue
                if isinstance(message, dict) and "id" in message and "method" not in message:
                    self.event(message["id"]).set()
        self.out.close()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--cwd", default="/home/dev/api")
    parser.add_argument("--garbage", action="store_true")
    parser.add_argument("--big", type=int, default=0)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command

    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    assert proc.stdin is not None and proc.stdout is not None
    reader = Reader(proc.stdout.fileno(), args.out)
    reader.start()

    def write(data: bytes) -> None:
        proc.stdin.write(data)

    def request(request_id: int, method: str, params: dict) -> None:
        message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
        write(json.dumps(message, separators=(",", ":")).encode() + b"\n")
        if not reader.event(request_id).wait(DEADLINE):
            sys.stderr.write(f"fake client: no answer to {method}\n")
            proc.kill()
            sys.exit(99)

    request(1, "initialize", {"protocolVersion": 1, "clientCapabilities": {"fs": {"readTextFile": True}}})
    request(2, "session/new", {"cwd": args.cwd, "mcpServers": []})
    if args.garbage:
        for line in GARBAGE:
            write(line)
    if args.big:
        note = {"jsonrpc": "2.0", "method": "_test/note", "params": {"blob": "c" * args.big}}
        write(json.dumps(note).encode() + b"\n")
        request(3, "_test/big", {"size": args.big})
    prompt = [{"type": "text", "text": "Add YAML support to the config loader"}]
    request(4, "session/prompt", {"sessionId": "sess_fake_1", "prompt": prompt})
    proc.stdin.close()
    code = proc.wait(DEADLINE)
    reader.join(DEADLINE)
    return code


if __name__ == "__main__":
    sys.exit(main())
