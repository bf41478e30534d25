"""Synthetic transcripts in the real on-disk shapes, for the IO tests and the benchmark.

The writers copy the field sets of the real samples (fixtures/samples): Claude Code
records with uuids, cwd, sessionId, version and gitBranch; Codex `{timestamp, type,
payload}` envelopes; ACP JSON-RPC lines wrapped as `acp-tap` writes them. Filler is what
makes real transcripts big: file reads, command output, token counts, attachments.
"""

from __future__ import annotations

import json
import random
import re
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import BinaryIO

Items = list[tuple[str, str]]  # (text, status)


def _dump(record: dict[str, object]) -> bytes:
    return json.dumps(record, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"


_POOL: list[str] = []
SAMPLES = Path(__file__).resolve().parents[2] / "fixtures" / "samples"
# Lines of the real samples that state or confirm a plan are left out of the filler.
_PLAN_MARKS = (
    b'"name":"TodoWrite"',
    b"newTodos",
    b'"name":"update_plan"',
    b"Plan updated",
    b'"sessionUpdate":"plan"',
    b'"type":"session_meta"',
    b'"result"',
)
_SAMPLE_IDS = {
    "claude": b"86c5b490-b7df-4218-91f4-6c39c5cf19f8",
    "codex": b"01a22b52-79cb-7653-8066-3e085f4b65ca",
    "acp": b"01a22b53-29e2-7072-87b2-c2a6439f82d5",
}
_SAMPLE_FILES = {
    "claude": "claude-code-todowrite.jsonl",
    "codex": "codex-rollout.jsonl",
    "acp": "acp-codex-agent-stream.jsonl",
}
_STAMP = re.compile(rb'"(timestamp|ts)":"[0-9T:.\-]+Z"')
_REAL: dict[str, list[bytes]] = {}


def real_lines(harness: str) -> list[bytes]:
    """The real sample's records of a harness, minus its plan calls: realistic filler
    (attachments, api requests, token counts, messages, tool calls and outputs)."""
    if harness not in _REAL:
        path = SAMPLES / _SAMPLE_FILES[harness]
        lines = path.read_bytes().splitlines() if path.exists() else []
        _REAL[harness] = [line for line in lines if line.strip() and not any(m in line for m in _PLAN_MARKS)]
    return _REAL[harness]


def _pool() -> str:
    if not _POOL:
        rnd = random.Random(42)
        words = (
            "loader",
            "config",
            "parse",
            "yaml",
            "value",
            "return",
            "self",
            "path",
            "None",
            "def",
            "import",
            "class",
            "raise",
            "async",
            "await",
            "yield",
            "lambda",
            "assert",
            "tuple",
        )
        _POOL.append(" ".join(rnd.choice(words) for _ in range(200_000)))
    return _POOL[0]


class _Writer:
    def __init__(self, fh: BinaryIO, *, start: datetime | None = None, seed: int = 0) -> None:
        self.fh = fh
        self.now = start or datetime(2026, 11, 30, 8, 0, tzinfo=UTC)
        self.rnd = random.Random(seed)
        self.n = 0

    def stamp(self) -> str:
        self.now += timedelta(milliseconds=self.rnd.randint(5, 900))
        return self.now.isoformat(timespec="milliseconds").replace("+00:00", "Z")

    def uid(self) -> str:
        return str(uuid.UUID(int=self.rnd.getrandbits(128), version=4))

    def write(self, record: dict[str, object]) -> None:
        self.fh.write(_dump(record))

    def real_records(self, harness: str, session_id: str, count: int) -> None:
        """`count` records copied from the real sample, re-stamped and re-identified."""
        pool = real_lines(harness)
        if not pool:
            return
        old_id, new_id = _SAMPLE_IDS[harness], session_id.encode()
        for _ in range(count):
            line = self.rnd.choice(pool).replace(old_id, new_id)
            stamp = self.stamp().encode()
            line = _STAMP.sub(lambda m: b'"' + m.group(1) + b'":"' + stamp + b'"', line)  # noqa: B023 (called at once)
            self.fh.write(line + b"\n")

    def text(self, size: int) -> str:
        """About `size` characters of code-like words (a slice of one shared pool, so
        generating gigabytes stays fast)."""
        pool = _pool()
        if size >= len(pool):
            return (pool * (size // len(pool) + 1))[:size]
        start = self.rnd.randrange(0, len(pool) - size + 1)
        return pool[start : start + size]


class ClaudeWriter(_Writer):
    """A Claude Code session file (`<sessionId>.jsonl`)."""

    def __init__(
        self,
        fh: BinaryIO,
        session_id: str,
        cwd: str,
        *,
        branch: str = "main",
        agent_id: str | None = None,
        **kw: object,
    ) -> None:
        super().__init__(fh, **kw)  # type: ignore[arg-type]
        self.session_id = session_id
        self.cwd = cwd
        self.branch = branch
        self.agent_id = agent_id
        self.parent: str | None = None
        # Subagent transcripts carry no top-level `toolUseResult` (docs/reading.md, Claude Code).
        self.envelopes = agent_id is None

    def _base(self, kind: str) -> dict[str, object]:
        uid = self.uid()
        record: dict[str, object] = {
            "parentUuid": self.parent,
            "isSidechain": self.agent_id is not None,
            "type": kind,
            "uuid": uid,
            "timestamp": self.stamp(),
            "userType": "external",
            "entrypoint": "cli",
            "cwd": self.cwd,
            "sessionId": self.session_id,
            "version": "2.1.328",
            "gitBranch": self.branch,
        }
        if self.agent_id is not None:
            record["agentId"] = self.agent_id
        self.parent = uid
        return record

    def prompt(self, text: str) -> None:
        record = self._base("user")
        record["message"] = {"role": "user", "content": text}
        self.write(record)

    def _call(self, name: str, tool_input: dict[str, object]) -> str:
        call_id = "toolu_01" + self.uid().replace("-", "")[:22]
        record = self._base("assistant")
        record["message"] = {
            "id": "msg_01" + self.uid().replace("-", "")[:22],
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5-20250929",
            "content": [{"type": "tool_use", "id": call_id, "name": name, "input": tool_input}],
            "stop_reason": "tool_use",
        }
        record["requestId"] = "req_" + self.uid().replace("-", "")[:24]
        self.write(record)
        return call_id

    def _result(self, call_id: str, content: object, envelope: object, *, error: bool = False) -> None:
        record = self._base("user")
        block: dict[str, object] = {"tool_use_id": call_id, "type": "tool_result", "content": content}
        if error:
            block["is_error"] = True
        record["message"] = {"role": "user", "content": [block]}
        if envelope is not None and self.envelopes:
            record["toolUseResult"] = envelope
        self.write(record)

    def todo_write(self, items: Items) -> None:
        todos = [{"content": t, "status": s, "activeForm": f"Doing {t.lower()}"} for t, s in items]
        call_id = self._call("TodoWrite", {"todos": todos})
        self._result(
            call_id,
            "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress.",
            {"oldTodos": [], "newTodos": todos},
        )

    def task_create(self, task_id: str, subject: str) -> None:
        call_id = self._call("TaskCreate", {"subject": subject, "description": subject, "activeForm": subject})
        self._result(
            call_id,
            f"Task #{task_id} created successfully: {subject}",
            {"task": {"id": task_id, "subject": subject, "description": subject}},
        )

    def task_update(self, task_id: str, status: str, old: str = "pending") -> None:
        call_id = self._call("TaskUpdate", {"taskId": task_id, "status": status})
        self._result(
            call_id,
            f"Updated task #{task_id} status",
            {
                "success": True,
                "taskId": task_id,
                "updatedFields": ["status"],
                "statusChange": {"from": old, "to": status},
            },
        )

    def custom_title(self, title: str) -> None:
        self.write({"type": "custom-title", "customTitle": title, "sessionId": self.session_id})

    def filler(self, size: int) -> None:
        """A file read and its (unwanted) result, about `size` bytes in all."""
        call_id = self._call("Read", {"file_path": f"{self.cwd}/src/loader.py"})
        body = self.text(max(0, size - 900))
        self._result(
            call_id, body, {"type": "text", "file": {"filePath": f"{self.cwd}/src/loader.py", "content": body}}
        )


class CodexWriter(_Writer):
    """A Codex rollout (`rollout-<time>-<thread id>.jsonl`)."""

    def meta(self, thread_id: str, cwd: str, *, parent: str | None = None, branch: str = "main") -> None:
        payload: dict[str, object] = {
            "id": thread_id,
            "timestamp": self.stamp(),
            "cwd": cwd,
            "originator": "codex_cli_rs",
            "cli_version": "0.169.0",
            "source": "cli"
            if parent is None
            else {"subagent": {"thread_spawn": {"parent_thread_id": parent, "depth": 1}}},
            "model_provider": "openai",
            "git": {"branch": branch, "commit_hash": "0" * 40, "repository_url": "git@example.com:dev/app.git"},
        }
        self.write({"timestamp": self.stamp(), "type": "session_meta", "payload": payload})

    def prompt(self, text: str) -> None:
        self.write(
            {
                "timestamp": self.stamp(),
                "type": "response_item",
                "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]},
            }
        )

    def update_plan(self, items: Items, *, output: str = "Plan updated") -> None:
        call_id = "call_" + self.uid().replace("-", "")[:24]
        arguments = json.dumps({"explanation": "Next step", "plan": [{"step": t, "status": s} for t, s in items]})
        self.write(
            {
                "timestamp": self.stamp(),
                "type": "response_item",
                "payload": {"type": "function_call", "name": "update_plan", "arguments": arguments, "call_id": call_id},
            }
        )
        self.write(
            {
                "timestamp": self.stamp(),
                "type": "response_item",
                "payload": {"type": "function_call_output", "call_id": call_id, "output": output},
            }
        )

    def filler(self, size: int) -> None:
        call_id = "call_" + self.uid().replace("-", "")[:24]
        self.write(
            {
                "timestamp": self.stamp(),
                "type": "response_item",
                "payload": {
                    "type": "function_call",
                    "name": "exec_command",
                    "arguments": json.dumps({"cmd": "cat src/loader.py"}),
                    "call_id": call_id,
                },
            }
        )
        self.write(
            {
                "timestamp": self.stamp(),
                "type": "response_item",
                "payload": {
                    "type": "function_call_output",
                    "call_id": call_id,
                    "output": "Process exited with code 0\nOutput:\n" + self.text(max(0, size - 500)),
                },
            }
        )
        self.write(
            {
                "timestamp": self.stamp(),
                "type": "event_msg",
                "payload": {
                    "type": "token_count",
                    "info": {"total_token_usage": {"input_tokens": self.rnd.randint(1, 10**6)}},
                },
            }
        )


class AcpWriter(_Writer):
    """An ACP log as `planwatch acp-tap` writes it: `{ts, from, msg}` per line."""

    def _line(self, sender: str, msg: dict[str, object]) -> None:
        self.write({"ts": self.stamp(), "from": sender, "msg": msg})

    def new_session(self, session_id: str, cwd: str, rpc_id: int = 1) -> None:
        self._line(
            "client",
            {"jsonrpc": "2.0", "id": rpc_id, "method": "session/new", "params": {"cwd": cwd, "mcpServers": []}},
        )
        self._line("agent", {"jsonrpc": "2.0", "id": rpc_id, "result": {"sessionId": session_id}})

    def prompt(self, session_id: str, text: str, rpc_id: int = 2) -> None:
        self._line(
            "client",
            {
                "jsonrpc": "2.0",
                "id": rpc_id,
                "method": "session/prompt",
                "params": {"sessionId": session_id, "prompt": [{"type": "text", "text": text}]},
            },
        )

    def plan(self, session_id: str, items: Items, plan_id: str | None = None) -> None:
        entries = [{"content": t, "priority": "medium", "status": s} for t, s in items]
        update: dict[str, object]
        if plan_id is None:
            update = {"sessionUpdate": "plan", "entries": entries}
        else:
            update = {"sessionUpdate": "plan_update", "plan": {"type": "items", "planId": plan_id, "entries": entries}}
        self._line(
            "agent",
            {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": session_id, "update": update}},
        )

    def filler(self, session_id: str, size: int) -> None:
        self._line(
            "agent",
            {
                "jsonrpc": "2.0",
                "method": "session/update",
                "params": {
                    "sessionId": session_id,
                    "update": {
                        "sessionUpdate": "agent_message_chunk",
                        "content": {"type": "text", "text": self.text(max(0, size - 250))},
                    },
                },
            },
        )


def claude_path(projects: Path, cwd: str, session_id: str) -> Path:
    slug = "".join(c if c.isalnum() else "-" for c in cwd)
    return projects / slug / f"{session_id}.jsonl"


def codex_path(sessions: Path, thread_id: str, when: datetime | None = None) -> Path:
    when = when or datetime(2026, 11, 30, 8, 0, tzinfo=UTC)
    return sessions / when.strftime("%Y/%m/%d") / f"rollout-{when.strftime('%Y-%m-%dT%H-%M-%S')}-{thread_id}.jsonl"


def write_jobs(claude: Path, count: int) -> Path:
    """`count` small Claude Code sessions in one project of the Claude folder `claude`
    (its `projects/-home-dev-app`, returned): session n's prompt is `Job n` and its plan
    one step, `Step n`, in progress."""
    base = claude / "projects" / "-home-dev-app"
    base.mkdir(parents=True, exist_ok=True)
    for n in range(count):
        sid = f"{n:08d}-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
        with (base / f"{sid}.jsonl").open("wb") as fh:
            w = ClaudeWriter(fh, sid, "/home/dev/app", seed=n)
            w.prompt(f"Job {n}")
            w.todo_write([(f"Step {n}", "in_progress")])
    return base
