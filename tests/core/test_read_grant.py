"""Under a user directory, reading plans and tasks needs `session:read` however it is
asked: the plan channel, plan_show, plan_list, task_list, the resource listing and the
CLI's todo. The real MCP server under the SDK's client, and the CLI."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from cli_run import planwatch_as as cli
from conftest import IsolatedEnv
from mcp.shared.exceptions import MCPError
from test_mcp import DEADLINE, call, connect, text_of

ROOT = Path(__file__).resolve().parents[2]
SEED = (ROOT / "fixtures" / "config" / "seed-directory.yaml").read_text()

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_a_user_without_session_read_reads_no_plan_through_any_tool(isolated_env: IsolatedEnv) -> None:
    isolated_env.config.write_text(SEED)  # bo: no role, so no session:read; ana: approver
    assert cli("plan", "create", "Secret launch", token="ana-secret").returncode == 0
    assert cli("task", "add", "Tell nobody", "--plan", "p1", token="ana-secret").returncode == 0
    async with connect(env={"PLANWATCH_TOKEN": "bo-secret"}) as bo:
        with anyio.fail_after(DEADLINE), pytest.raises(MCPError) as channel:
            await bo.read_resource("x-ahpd-plans://p1")
        assert "needs the session:read grant" in channel.value.error.message
        for name, args in (("plan_show", {"plan": "p1"}), ("task_list", {}), ("plan_list", {})):
            with anyio.fail_after(DEADLINE):
                refused = await bo.call_tool(name, args)
            assert refused.is_error, name
            assert (
                text_of(refused)
                == f"Refused {name}: reading plans and tasks needs the session:read grant, which bo does not hold."
            )
        with anyio.fail_after(DEADLINE), pytest.raises(MCPError) as listing:
            await bo.list_resources()
        assert "needs the session:read grant, which bo does not hold" in listing.value.error.message
        # Writing needs no grant, and its answer is the one record written.
        assert await call(bo, "task_add", {"title": "Mine"}) == "t2 todo medium Mine"
    async with connect(env={"PLANWATCH_TOKEN": "ana-secret"}) as ana:
        assert await call(ana, "plan_show", {"plan": "p1"}) == "p1 draft Secret launch\nt1 todo medium Tell nobody"
    listed = cli("task", "list")
    assert listed.returncode == 2 and listed.stdout == ""
    assert "Refused planwatch task list: reading plans and tasks needs the session:read grant" in listed.stderr


def test_the_command_lines_todo_reads_a_sessions_tasks_only_with_session_read(isolated_env: IsolatedEnv) -> None:
    isolated_env.config.write_text(SEED)
    added = cli("task", "add", "Tell nobody", "--session", "s-secret", token="ana-secret")
    assert added.returncode == 0, added.stderr
    for args in (("todo", "s-secret"), ("todo", "s-secret", "--meta"), ("todo", "s-")):
        for token, who in ((None, "a call with no user token"), ("bo-secret", "bo")):
            refused = cli(*args, token=token)
            assert refused.returncode == 2 and refused.stdout == "", (args, token, refused.stdout)
            assert refused.stderr == (
                "Refused planwatch todo: reading plans and tasks needs the session:read grant, "
                f"which {who} does not hold.\n"
            )
    assert cli("todo", "s-secret", token="ana-secret").stdout == "- [ ] Tell nobody\n"
    assert cli("todo", "s-secret", "--meta", token="ana-secret").stdout == '{"ahpd.tasks": {"open": 1}}\n'
