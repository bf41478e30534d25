"""A running `planwatch mcp` follows the settings file. A user removed from the
directory loses her grant on the next call; problems in the file reach the client as
logging notifications. The real server, under the SDK's client, over stdio."""

from __future__ import annotations

import hashlib
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from conftest import IsolatedEnv
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from test_mcp import DEADLINE, call, connect, server_env, text_of

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = ROOT / "fixtures" / "config"

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def token(secret: str) -> str:
    return "sha256:" + hashlib.sha256(secret.encode()).hexdigest()


async def test_a_revoked_token_stops_working_in_a_running_server(isolated_env: IsolatedEnv) -> None:
    shutil.copyfile(CONFIGS / "seed-directory.yaml", isolated_env.config)
    async with connect(env={"PLANWATCH_TOKEN": "ana-secret"}) as ana:
        await call(ana, "task_add", {"title": "One"})
        await call(ana, "task_add", {"title": "Two"})
        assert await call(ana, "task_approve", {"task": "t1"}) == "t1 todo medium One"
        # The person removes ana from the directory while the server runs.
        isolated_env.config.write_text(
            f'roles:\n  approver: [task:approve]\nusers:\n  - {{ id: bo, roles: [], token: "{token("bo-secret")}" }}\n'
        )
        with anyio.fail_after(DEADLINE):
            refused = await ana.call_tool("task_approve", {"task": "t2"})
        assert refused.is_error and "needs the task:approve grant" in text_of(refused)
        assert "whose token matches no user of the directory (revoked or mistyped)" in text_of(refused)
        # Stamps no longer carry her name either: owner, else host.
        assert await call(ana, "task_review", {"task": "t2"}) == "t2 todo medium Two"
    text = (isolated_env.store / "tasks" / "t2.md").read_text()
    assert "approved" not in text and "by: host" in text


async def test_settings_problems_reach_the_client_as_logging_notifications(isolated_env: IsolatedEnv) -> None:
    shutil.copyfile(CONFIGS / "seed-directory.yaml", isolated_env.config)
    messages: list[types.LoggingMessageNotificationParams] = []

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        messages.append(params)

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "planwatch.tui.cli", "mcp"], env=server_env(), cwd=str(ROOT)
    )
    client = Client(params, mode="legacy", logging_callback=on_log)
    with anyio.fail_after(4 * DEADLINE):
        async with client:
            await call(client, "task_add", {"title": "One"})  # needs no grant
            assert messages == []
            shutil.copyfile(CONFIGS / "unknown-user-key.yaml", isolated_env.config)
            await call(client, "task_add", {"title": "Two"})
            deadline = time.monotonic() + DEADLINE
            while not messages and time.monotonic() < deadline:
                await anyio.sleep(0.05)
            with anyio.fail_after(DEADLINE):
                refused = await client.call_tool("task_approve", {"task": "t1"})
            assert refused.is_error
    assert len(messages) == 1
    note: Any = messages[0]
    assert note.level == "warning" and note.logger == "planwatch.settings"
    assert f"{isolated_env.config}: users[1].email: is not a key of a user" in note.data


def test_telling_a_settings_problem_prints_no_python_warning_on_the_servers_stderr(isolated_env: IsolatedEnv) -> None:
    """Traceback or warning output anywhere is a defect: the SDK deprecates its logging call,
    and telling a settings problem printed that warning with the SDK's source line."""
    import json
    import subprocess

    shutil.copyfile(CONFIGS / "syntax-error.yaml", isolated_env.config)
    init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "task_list", "arguments": {}}},
    ]
    server = subprocess.Popen(
        [sys.executable, "-m", "planwatch.tui.cli", "mcp"],
        cwd=ROOT,
        env=server_env(),
        text=True,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert server.stdin is not None and server.stdout is not None
    server.stdin.write("".join(json.dumps(m) + "\n" for m in lines))
    server.stdin.flush()
    answers = [json.loads(server.stdout.readline()) for _ in range(3)]  # init, the warning, task_list
    server.stdin.close()  # the server exits when its stdin closes
    server.wait(timeout=DEADLINE)
    assert server.stderr is not None
    err = server.stderr.read()
    assert [a.get("id") for a in answers if "id" in a] == [1, 2]
    told = [a for a in answers if a.get("method") == "notifications/message"]
    assert len(told) == 1 and "is not valid YAML" in told[0]["params"]["data"]
    assert f"settings: {isolated_env.config}: is not valid YAML" in err
    assert "Warning" not in err and "Traceback" not in err and "send_log_message" not in err
