"""The hardened host set-up docs/store.md describes, built for real: the store and the settings
belong to one account (mode 0700 home), an agent runs as another account with a shell,
and reaches them only through `planwatch mcp` started as the store's account with only
`PLANWATCH_TOKEN` and `PLANWATCH_SESSION` kept of its environment (the sudo rule; the
test plays sudo, which this machine may not have). The agent cannot write the store's
files or the settings, cannot approve through the tools or the CLI without an
approver's token, and still works through `planwatch mcp`.

Needs root (it creates two accounts with useradd and removes them afterwards)."""

from __future__ import annotations

import hashlib
import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import textwrap
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
AGENT_SECRET = "bot-" + uuid.uuid4().hex
APPROVER_SECRET = "ana-" + uuid.uuid4().hex
KEPT = ("PLANWATCH_TOKEN", "PLANWATCH_SESSION")  # what the sudo rule keeps of the agent's environment


def _missing() -> str | None:
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return "creating the store's and the agent's accounts needs root"
    for tool in ("useradd", "userdel", "runuser", "unshare", "mount"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed"
    return None


pytestmark = pytest.mark.skipif(_missing() is not None, reason=_missing() or "")


def _needed_paths() -> list[Path]:
    """What an account's Python must reach: the interpreter, its library, the venv, the source."""
    return [
        Path(os.path.realpath(sys.executable)),
        Path(os.path.realpath(sys.base_prefix)),
        Path(os.path.realpath(sys.prefix)),
        ROOT,
    ]


def _exposure() -> str:
    """Shell lines that, inside a private mount namespace, make the folders an account's
    Python needs reachable where a folder on their way (root's 0700 home, holding a
    pyenv) lets no other account pass: the folder is covered by an empty 0755 tmpfs that
    holds only those children, bound back. Nothing changes outside the namespace."""
    blocked: dict[Path, set[str]] = {}
    for path in _needed_paths():
        for parent in reversed(path.parents):
            child = path.parts[len(parent.parts)] if len(path.parts) > len(parent.parts) else None
            if child is not None and parent.stat().st_mode & 0o001 == 0:
                blocked.setdefault(parent, set()).add(child)
    if any(a != b and a.is_relative_to(b) for a in blocked for b in blocked):
        pytest.skip(f"the interpreter sits under nested closed folders ({sorted(map(str, blocked))})")
    lines = ["set -e", "keep=$(mktemp -d)"]
    for n, (folder, children) in enumerate(sorted(blocked.items())):
        for child in sorted(children):
            lines.append(f'mkdir -p "$keep/{n}/{child}" && mount --bind \'{folder / child}\' "$keep/{n}/{child}"')
        lines.append(f"mount -t tmpfs -o mode=0755 planwatch-test '{folder}'")
        for child in sorted(children):
            lines.append(f"mkdir -p '{folder / child}' && mount --bind \"$keep/{n}/{child}\" '{folder / child}'")
    lines.append('exec "$@"')
    return "\n".join(lines)


class Host:
    """Two accounts: `store` owns the store and the settings, `agent` is an agent's shell."""

    def __init__(self, base: Path) -> None:
        tag = uuid.uuid4().hex[:6]
        self.base = base
        self.store_user, self.agent_user = f"pwstore{tag}", f"pwagent{tag}"
        self.exposure = _exposure()
        self.made: list[str] = []
        for name in (self.store_user, self.agent_user):
            subprocess.run(
                ["useradd", "--create-home", "--home-dir", str(base / name), "--shell", "/bin/sh", name],
                check=True,
                capture_output=True,
            )
            self.made.append(name)
        self.store_home = base / self.store_user
        self.agent_home = base / self.agent_user
        self.store_uid = pwd.getpwnam(self.store_user).pw_uid
        self.agent_uid = pwd.getpwnam(self.agent_user).pw_uid

    def remove(self) -> None:
        for name in self.made:
            subprocess.run(["userdel", "--remove", name], capture_output=True)

    def as_account(self, user: str, argv: list[str], env: dict[str, str], **kwargs) -> subprocess.Popen:  # type: ignore[no-untyped-def,type-arg]
        """`argv` run as `user` with exactly `env` (and a PATH), in its own mount namespace."""
        clean = {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", **env}
        command = ["unshare", "--mount", "--propagation", "private", "sh", "-c", self.exposure, "sh"]
        command += ["runuser", "-u", user, "--", "env", "-i", *(f"{k}={v}" for k, v in clean.items()), *argv]
        return subprocess.Popen(command, **kwargs)

    def mcp_for(self, agent_env: dict[str, str]) -> subprocess.Popen:  # type: ignore[type-arg]
        """`planwatch mcp` as the store's account, as the sudo rule starts it: only the
        token and the session of the caller's environment kept."""
        kept = {k: v for k, v in agent_env.items() if k in KEPT}
        return self.as_account(
            self.store_user,
            [sys.executable, "-m", "planwatch.tui.cli", "mcp"],
            kept,
            cwd=str(ROOT),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )


@pytest.fixture
def host() -> Iterator[Host]:
    base = Path(tempfile.mkdtemp(prefix="planwatch-host-"))
    base.chmod(0o755)
    made = None
    try:
        made = Host(base)
        yield made
    finally:
        if made is not None:
            made.remove()
        shutil.rmtree(base, ignore_errors=True)


# The agent: a shell of its own account. It gets the server's pipes as fds, speaks the
# stdio wire, then tries the store's and the settings' files and the CLI directly.
AGENT = textwrap.dedent(
    r"""
    import json, os, subprocess, sys
    w, r = int(sys.argv[1]), int(sys.argv[2])
    targets = json.loads(sys.argv[3])
    out, inp = os.fdopen(w, "wb", buffering=0), os.fdopen(r, "rb")
    report = {"calls": {}, "files": {}}
    def call(n, method, params):
        out.write(json.dumps({"jsonrpc": "2.0", "id": n, "method": method, "params": params}).encode() + b"\n")
        while True:
            line = inp.readline()
            if not line:
                raise SystemExit("the server ended")
            answer = json.loads(line)
            if answer.get("id") == n:
                return answer
    call(0, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "agent", "version": "1"}})
    out.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    for n, (name, args) in enumerate(json.loads(sys.argv[4]), start=1):
        result = call(n, "tools/call", {"name": name, "arguments": args})["result"]
        report["calls"][f"{n} {name}"] = {"error": result.get("isError", False), "text": [c["text"] for c in result["content"]]}
    out.close()
    def attempt(what, fn):
        try:
            fn()
            report["files"][what] = "done"
        except OSError as exc:
            report["files"][what] = type(exc).__name__
    for path in targets["files"]:
        attempt("append " + path, lambda p=path: open(p, "ab").write(b"approved: {by: ana}\n"))
        attempt("replace " + path, lambda p=path: os.replace(targets["forged"], p))
    attempt("create in " + targets["tasks"], lambda: open(os.path.join(targets["tasks"], "t9.md"), "x").write("x"))
    attempt("list " + targets["store"], lambda: os.listdir(targets["store"]))
    # The CLI run by the agent itself, under settings of its own with no directory.
    env = dict(os.environ, PLANWATCH_STORE=targets["store"], PLANWATCH_CONFIG=targets["own_config"])
    done = subprocess.run([sys.executable, "-m", "planwatch.tui.cli", "task", "approve", "t1"], env=env, capture_output=True, text=True)
    report["cli"] = {"code": done.returncode, "stderr": done.stderr}
    print(json.dumps(report))
    """
)


def _agent_session(host: Host, calls: list[tuple[str, dict]], agent_env: dict[str, str]) -> dict:  # type: ignore[type-arg]
    """The agent's process, spoken for by the store's `planwatch mcp` (started through
    the sudo rule with the agent's environment); its report."""
    server = host.mcp_for(agent_env)
    assert server.stdin is not None and server.stdout is not None
    store = host.store_home / ".local/share/planwatch/store"
    settings = host.store_home / ".config/planwatch/config.yaml"
    forged = host.agent_home / "forged.md"
    forged.write_text("---\nid: t1\ntitle: Deploy the release\nstatus: doing\n---\n")
    os.chown(forged, host.agent_uid, host.agent_uid)
    own_config = host.agent_home / "own.yaml"
    own_config.write_text("requireApproval: false\n")
    os.chown(own_config, host.agent_uid, host.agent_uid)
    targets = {
        "files": [str(settings), str(store / "tasks/t1.md"), str(store / ".approvals"), str(store / ".ids")],
        "tasks": str(store / "tasks"),
        "store": str(store),
        "forged": str(forged),
        "own_config": str(own_config),
    }
    w, r = server.stdin.fileno(), server.stdout.fileno()
    agent = host.as_account(
        host.agent_user,
        [sys.executable, "-c", AGENT, str(w), str(r), json.dumps(targets), json.dumps(calls)],
        {**agent_env, "HOME": str(host.agent_home)},
        cwd=str(host.agent_home),
        pass_fds=(w, r),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = threading.Timer(120, lambda: (agent.kill(), server.kill()))
    deadline.start()
    try:
        server.stdin.close()  # the agent holds its own copies: its end closes the server's stdin
        server.stdout.close()
        report, err = agent.communicate()
        server.wait()
    finally:
        deadline.cancel()
    assert agent.returncode == 0, err + server.stderr.read().decode()  # type: ignore[union-attr]
    return json.loads(report)  # type: ignore[no-any-return]


def _approver_calls(host: Host, calls: list[tuple[str, dict]]) -> list[dict]:  # type: ignore[type-arg]
    """The approver at her own terminal, through the same rule with her token."""
    server = host.mcp_for({"PLANWATCH_TOKEN": APPROVER_SECRET, "PLANWATCH_SESSION": "ana-desk"})
    init = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "ana", "version": "1"}},
    }
    lines = [init, {"jsonrpc": "2.0", "method": "notifications/initialized"}]
    lines += [
        {"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {"name": name, "arguments": args}}
        for n, (name, args) in enumerate(calls, start=1)
    ]
    assert server.stdin is not None and server.stdout is not None
    server.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in lines))
    server.stdin.flush()
    answers: dict[int, dict] = {}  # type: ignore[type-arg]
    deadline = threading.Timer(120, server.kill)
    deadline.start()
    try:
        while len(answers) < len(calls) + 1:  # a client waits for its answers before it closes
            line = server.stdout.readline()
            assert line, "the server ended before answering"
            answer = json.loads(line)
            answers[answer["id"]] = answer
    finally:
        deadline.cancel()
        server.stdin.close()
        server.wait()
    return [answers[n]["result"] for n in range(1, len(calls) + 1)]


def test_approval_holds_against_an_agent_with_a_shell_when_the_store_belongs_to_another_account(host: Host) -> None:
    # The person sets the host up as docs/store.md says: the settings in the store account's
    # own config folder, its home (which holds the store) closed to other accounts.
    settings = host.store_home / ".config/planwatch/config.yaml"
    settings.parent.mkdir(parents=True)
    ana = hashlib.sha256(APPROVER_SECRET.encode()).hexdigest()
    bot = hashlib.sha256(AGENT_SECRET.encode()).hexdigest()
    settings.write_text(
        "requireApproval: true\n"
        "users:\n"
        f'  - {{ id: ana, roles: [approver], token: "sha256:{ana}" }}\n'
        f'  - {{ id: bot, roles: [member], token: "sha256:{bot}" }}\n'
        "roles:\n"
        "  approver: [task:approve]\n"
    )
    for path in (settings, settings.parent, settings.parent.parent):
        os.chown(path, host.store_uid, host.store_uid)
    host.store_home.chmod(0o700)

    # The agent's own environment, with everything it could point elsewhere.
    hostile = {
        "PLANWATCH_TOKEN": AGENT_SECRET,
        "PLANWATCH_SESSION": "agent-1",
        "PLANWATCH_CONFIG": str(host.agent_home / "own.yaml"),
        "PLANWATCH_STORE": str(host.agent_home / "store"),
        "XDG_CONFIG_HOME": str(host.agent_home),
        "PLANWATCH_DATA": str(host.agent_home),
    }
    first = _agent_session(
        host,
        [
            ("task_add", {"title": "Deploy the release"}),
            ("task_approve", {"task": "t1"}),
            ("task_set", {"task": "t1", "status": "doing"}),
            ("task_list", {}),
        ],
        hostile,
    )
    calls = list(first["calls"].values())
    # It works through planwatch mcp: the task is added in the store's account's store,
    # and listed (the agent's user holds session:read).
    assert not calls[0]["error"] and calls[0]["text"][0].startswith("t1 todo"), calls[0]
    assert not calls[3]["error"] and "Deploy the release" in calls[3]["text"][0], calls[3]
    # It cannot approve without an approver's token, nor start the task unapproved.
    assert calls[1]["error"] and "task:approve" in calls[1]["text"][0], calls[1]
    assert calls[2]["error"] and "approv" in calls[2]["text"][0], calls[2]
    # Nor write the store's files or the settings with its shell, nor look inside.
    assert first["files"], first
    assert all(outcome == "PermissionError" for outcome in first["files"].values()), first["files"]
    # Nor approve with the CLI under settings of its own: the store is not its to write.
    assert first["cli"]["code"] != 0, first["cli"]
    store = host.store_home / ".local/share/planwatch/store"
    record = (store / "tasks/t1.md").read_text()
    assert "approved:" not in record and "status: todo" in record
    assert not (store / ".approvals").exists() or "t1" not in (store / ".approvals").read_text()
    for path in (store, store / "tasks/t1.md", settings):
        assert path.stat().st_uid == host.store_uid, path

    # The approver approves through the same rule with her token; the agent can now start.
    approved = _approver_calls(host, [("task_approve", {"task": "t1"})])
    assert not approved[0].get("isError"), approved
    second = _agent_session(host, [("task_set", {"task": "t1", "status": "doing"})], hostile)
    (started,) = second["calls"].values()
    assert not started["error"] and started["text"][0].startswith("t1 doing"), started
    assert "by: ana" in (store / "tasks/t1.md").read_text()
    assert "t1" in (store / ".approvals").read_text()
    # Nothing was written where the agent's environment pointed.
    assert not (host.agent_home / "store").exists()
