"""`planwatch mcp` (docs/store.md, The tools, What clients see and Agents on the same list): the real server over stdio.

Every test spawns `python -m planwatch.tui.cli mcp` and drives it with the official SDK's
`Client`, as an agent's harness would; store changes come from other processes (the
CLI) and from plain file writes, and every wait has a deadline.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import warnings
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from conftest import IsolatedEnv
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

from planwatch.core.store.tools import TOOL_NAMES, TOOLS

ROOT = Path(__file__).resolve().parents[2]
DEADLINE = 30

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def server_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The isolated folders (conftest) for the server; the SDK passes only a safe few by default."""
    prefixes = ("PLANWATCH_", "XDG_", "CLAUDE_CONFIG_DIR", "CODEX_HOME")
    env = {k: v for k, v in os.environ.items() if k.startswith(prefixes)}
    env.update(extra or {})
    return env


class Notes:
    """Server notifications the client received, with a deadline-bound wait."""

    def __init__(self) -> None:
        self.updated: list[str] = []
        self._event = anyio.Event()

    async def handler(self, message: Any) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            self.updated.append(str(message.params.uri))
            self._event.set()

    async def wait_for(self, uri: str, count: int = 1) -> None:
        with anyio.fail_after(DEADLINE):
            while self.updated.count(uri) < count:
                self._event = anyio.Event()
                if self.updated.count(uri) >= count:
                    break
                await self._event.wait()


@asynccontextmanager
async def connect(
    *args: str, mode: str = "legacy", env: dict[str, str] | None = None, notes: Notes | None = None
) -> AsyncIterator[Client]:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "planwatch.tui.cli", "mcp", *args], env=server_env(env), cwd=str(ROOT)
    )
    client = Client(params, mode=mode, message_handler=notes.handler if notes else None)  # type: ignore[arg-type]
    # One deadline for the whole conversation (start, the test's calls, shutdown): cancel
    # scopes must nest around the client's own task group, not cut through it.
    with anyio.fail_after(4 * DEADLINE):
        async with client:
            yield client


def text_of(result: types.CallToolResult) -> str:
    assert len(result.content) == 1
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


async def call(client: Client, name: str, args: dict[str, Any]) -> str:
    with anyio.fail_after(DEADLINE):
        result = await client.call_tool(name, args)
    assert not result.is_error, text_of(result)
    return text_of(result)


async def run_cli(*argv: str) -> str:
    """The CLI in another process, as a person or a script would run it."""
    with anyio.fail_after(DEADLINE):
        done = await anyio.run_process([sys.executable, "-m", "planwatch.tui.cli", *argv], cwd=ROOT, check=True)
    return done.stdout.decode()


async def subscribe(client: Client, uri: str) -> None:
    with warnings.catch_warnings():  # deprecated only at 2026-07-28, which legacy mode is not
        warnings.simplefilter("ignore")
        with anyio.fail_after(DEADLINE):
            await client.subscribe_resource(uri)


def read_frontmatter_field(path: Path, key: str) -> str:
    for line in path.read_text().splitlines():
        if line.startswith(f"{key}:"):
            return line.split(":", 1)[1].strip()
    raise AssertionError(f"{key} not in {path}")


# ---------------------------------------------------------------- tools


async def test_the_ten_tools_are_listed_with_the_store_input_schemas() -> None:
    async with connect() as client:
        listed = (await client.list_tools()).tools
        assert client.server_capabilities.resources is not None
        assert client.server_capabilities.resources.subscribe is True
    assert [tool.name for tool in listed] == list(TOOL_NAMES)
    for tool in listed:
        assert tool.input_schema == TOOLS[tool.name].input_schema()
        assert list(tool.input_schema["properties"]) == list(TOOLS[tool.name].input_schema()["properties"])
        assert tool.description == TOOLS[tool.name].description
    by_name = {tool.name: tool for tool in listed}
    assert "blockedBy" in by_name["task_set"].input_schema["properties"]
    assert by_name["task_set"].input_schema.get("additionalProperties") is False
    assert by_name["task_list"].annotations is not None and by_name["task_list"].annotations.read_only_hint


async def test_each_tool_answers_one_line_per_item(isolated_env: IsolatedEnv) -> None:
    async with connect("--session", "sess-mcp-1") as client:
        assert (
            await call(client, "plan_create", {"title": "Ship the parser", "goal": "YAML too"})
            == "p1 draft Ship the parser"
        )
        assert await call(client, "plan_set", {"plan": "p1", "status": "active"}) == "p1 active Ship the parser"
        assert (
            await call(client, "task_add", {"title": "Write tests", "plan": "p1", "priority": "high"})
            == "t1 todo high Write tests"
        )
        assert (
            await call(client, "task_add", {"title": "Add YAML", "plan": "p1", "blockedBy": ["t1"]})
            == "t2 todo medium Add YAML"
        )
        assert await call(client, "task_set", {"task": "t1", "status": "doing"}) == "t1 doing high Write tests"
        assert await call(client, "task_list", {}) == "t1 doing high Write tests\nt2 todo medium Add YAML"
        assert await call(client, "task_list", {"status": "todo"}) == "t2 todo medium Add YAML"
        assert await call(client, "plan_show", {"plan": "p1"}) == (
            "p1 active Ship the parser\nt1 doing high Write tests\nt2 todo medium Add YAML"
        )
        assert await call(client, "plan_list", {}) == "p1 active Ship the parser"
        assert await call(client, "plan_approve", {"plan": "p1"}) == "p1 active Ship the parser"
        assert await call(client, "task_approve", {"task": "t2"}) == "t2 todo medium Add YAML"
        assert await call(client, "task_review", {"task": "t1", "verdict": "approved"}) == "t1 doing high Write tests"
        assert await call(client, "task_list", {"approved": True}) == "t2 todo medium Add YAML"
    # The same records the CLI sees; stamps name the session given with --session.
    assert await run_cli("task", "list") == "t1 doing high Write tests\nt2 todo medium Add YAML\n"
    task = (isolated_env.store / "tasks" / "t1.md").read_text()
    assert "in: sess-mcp-1" in task and "started:" in task and "reviewed:" in task


async def test_the_session_comes_from_the_environment_without_the_flag(isolated_env: IsolatedEnv) -> None:
    async with connect(env={"PLANWATCH_SESSION": "sess-from-env"}) as client:
        await call(client, "task_add", {"title": "Note it"})
    assert "in: sess-from-env" in (isolated_env.store / "tasks" / "t1.md").read_text()


@pytest.mark.parametrize(
    ("name", "args", "refusal"),
    [
        (
            "task_set",
            {"task": "t1", "status": "bogus"},
            "Invalid task_set input: status must be todo, doing, blocked, review, done, or dropped.",
        ),
        (
            "task_add",
            {"title": "Orphan", "plan": "p99"},
            "Invalid task_add input: plan must match the id of a known plan (see plan_list).",
        ),
        (
            "task_add",
            {"title": "Minted", "id": "t5"},
            "Invalid task_add input: id is minted by the store, never taken as input.",
        ),
    ],
)
async def test_refusals_come_back_as_tool_errors_with_the_tools_wording(
    name: str, args: dict[str, Any], refusal: str
) -> None:
    async with connect() as client:
        await call(client, "task_add", {"title": "Exists"})
        with anyio.fail_after(DEADLINE):
            result = await client.call_tool(name, args)
        assert result.is_error is True
        assert text_of(result) == refusal
        # The server lives on and the refused call changed nothing.
        assert await call(client, "task_list", {}) == "t1 todo medium Exists"


async def test_an_unknown_tool_or_junk_arguments_are_tool_errors_not_crashes() -> None:
    async with connect() as client:
        with anyio.fail_after(DEADLINE):
            unknown = await client.call_tool("task_delete", {"id": "t1"})
            junk = await client.call_tool("task_add", {"title": ["not", "a", "string"], "colour": 3})
        assert unknown.is_error and text_of(unknown).startswith("Unknown tool task_delete")
        assert junk.is_error and text_of(junk).startswith("Invalid task_add input:")
        assert await call(client, "plan_list", {}) == ""


async def test_approving_needs_the_grant_under_a_user_directory(isolated_env: IsolatedEnv) -> None:
    def token_hash(secret: str) -> str:
        return "sha256:" + hashlib.sha256(secret.encode()).hexdigest()

    isolated_env.config.write_text(
        "users:\n"
        "  users:\n"
        f"    ada: {{token: '{token_hash('ada-secret')}', roles: [lead]}}\n"
        f"    bob: {{token: '{token_hash('bob-secret')}', roles: [member]}}\n"
    )
    async with connect(env={"PLANWATCH_TOKEN": "bob-secret"}) as bob:
        await call(bob, "task_add", {"title": "Needs approval"})
        with anyio.fail_after(DEADLINE):
            refused = await bob.call_tool("task_approve", {"task": "t1"})
        assert refused.is_error and "task:approve" in text_of(refused)
    async with connect(env={"PLANWATCH_TOKEN": "ada-secret"}) as ada:
        assert await call(ada, "task_approve", {"task": "t1"}) == "t1 todo medium Needs approval"
    assert "by: ada" in (isolated_env.store / "tasks" / "t1.md").read_text()


# ---------------------------------------------------------------- the plan channel


async def test_a_plan_reads_as_its_plan_and_tasks() -> None:
    async with connect() as client:
        await call(client, "plan_create", {"title": "Ship", "goal": "Ship the parser"})
        await call(client, "task_add", {"title": "Write tests", "plan": "p1"})
        await call(client, "task_add", {"title": "Elsewhere"})
        templates = (await client.list_resource_templates()).resource_templates
        listed = (await client.list_resources()).resources
        with anyio.fail_after(DEADLINE):
            read = await client.read_resource("x-ahpd-plans://p1")
    assert [t.uri_template for t in templates] == ["x-ahpd-plans://{plan_id}"]
    assert [str(r.uri) for r in listed] == ["x-ahpd-plans://p1"]
    [content] = read.contents
    assert isinstance(content, types.TextResourceContents)
    assert content.mime_type == "application/json"
    state = json.loads(content.text)
    assert set(state) == {"plan", "tasks"}
    assert (state["plan"]["id"], state["plan"]["title"], state["plan"]["goal"].strip()) == (
        "p1",
        "Ship",
        "Ship the parser",
    )
    assert [(t["id"], t["title"], t["status"]) for t in state["tasks"]] == [("t1", "Write tests", "todo")]


@pytest.mark.parametrize("uri", ["x-ahpd-plans://p99", "x-ahpd-plans://nonsense", "file:///etc/passwd"])
async def test_an_unknown_plan_is_refused_with_32001(uri: str) -> None:
    async with connect() as client:
        with anyio.fail_after(DEADLINE), pytest.raises(MCPError) as read_error:
            await client.read_resource(uri)
        with anyio.fail_after(DEADLINE), pytest.raises(MCPError) as subscribe_error:
            await subscribe(client, uri)
        # Still serving after the refusals.
        assert await call(client, "plan_list", {}) == ""
    for error in (read_error.value, subscribe_error.value):
        assert error.error.code == -32001
        assert error.error.message == f"Resource not found: {uri}"


async def test_a_subscriber_hears_of_a_change_made_by_another_process(isolated_env: IsolatedEnv) -> None:
    notes = Notes()
    async with connect(notes=notes) as client:
        await call(client, "plan_create", {"title": "Ship"})
        await call(client, "task_add", {"title": "Write tests", "plan": "p1"})
        await subscribe(client, "x-ahpd-plans://p1")

        # Another process: the CLI moves a task of the plan.
        await run_cli("task", "set", "t1", "--status", "doing")
        await notes.wait_for("x-ahpd-plans://p1", 1)
        state = json.loads((await client.read_resource("x-ahpd-plans://p1")).contents[0].text)  # type: ignore[union-attr]
        assert state["tasks"][0]["status"] == "doing"

        # A plain file write (an editor, a script): the plan's goal changes by hand.
        plan_file = isolated_env.store / "plans" / "p1.md"
        tmp = plan_file.with_name(".p1.md.edit")
        tmp.write_text(plan_file.read_text().rstrip("\n") + "\n\nA goal written by hand.\n")
        os.replace(tmp, plan_file)
        await notes.wait_for("x-ahpd-plans://p1", 2)
        state = json.loads((await client.read_resource("x-ahpd-plans://p1")).contents[0].text)  # type: ignore[union-attr]
        assert "A goal written by hand." in state["plan"]["goal"]

        # A task joining the plan from another process is a change of the plan too.
        await run_cli("task", "add", "Review it", "--plan", "p1")
        await notes.wait_for("x-ahpd-plans://p1", 3)
    assert set(notes.updated) == {"x-ahpd-plans://p1"}


async def test_changes_to_other_plans_are_not_sent() -> None:
    notes = Notes()
    async with connect(notes=notes) as client:
        await call(client, "plan_create", {"title": "Watched"})
        await call(client, "plan_create", {"title": "Other"})
        await call(client, "task_add", {"title": "Elsewhere", "plan": "p2"})
        await subscribe(client, "x-ahpd-plans://p1")
        await run_cli("task", "set", "t1", "--status", "done")
        # Then a change to the watched plan: its notification arrives, and only it.
        await run_cli("plan", "set", "p1", "--status", "active")
        await notes.wait_for("x-ahpd-plans://p1", 1)
    assert "x-ahpd-plans://p2" not in notes.updated


async def test_unsubscribing_stops_the_notifications() -> None:
    notes = Notes()
    async with connect(notes=notes) as client:
        await call(client, "plan_create", {"title": "Ship"})
        await call(client, "plan_create", {"title": "Still watched"})
        await subscribe(client, "x-ahpd-plans://p1")
        await subscribe(client, "x-ahpd-plans://p2")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            await client.unsubscribe_resource("x-ahpd-plans://p1")
        await run_cli("plan", "set", "p1", "--status", "active")
        await run_cli("plan", "set", "p2", "--status", "active")
        await notes.wait_for("x-ahpd-plans://p2", 1)
    assert "x-ahpd-plans://p1" not in notes.updated


async def test_a_2026_listen_stream_receives_the_plans_updates() -> None:
    """The 2026-07-28 wire has no resources/subscribe: subscriptions/listen carries the updates."""
    async with connect(mode="2026-07-28") as client:
        await call(client, "plan_create", {"title": "Ship"})
        await call(client, "task_add", {"title": "Write tests", "plan": "p1"})
        with anyio.fail_after(DEADLINE), pytest.raises(MCPError) as refused:
            async with client.listen(resource_subscriptions=["x-ahpd-plans://p404"]):
                pass
        assert refused.value.error.code == -32001
        with anyio.fail_after(DEADLINE):
            async with client.listen(resource_subscriptions=["x-ahpd-plans://p1"]) as stream:
                assert stream.honored.resource_subscriptions == ["x-ahpd-plans://p1"]
                await run_cli("task", "set", "t1", "--status", "review")
                async for event in stream:
                    assert event.uri == "x-ahpd-plans://p1"  # type: ignore[union-attr]
                    break


async def test_reading_a_plan_needs_session_read_under_a_user_directory(isolated_env: IsolatedEnv) -> None:
    secret = "viewer-secret"
    isolated_env.config.write_text(
        "users:\n"
        "  users:\n"
        f"    vic: {{token: 'sha256:{hashlib.sha256(secret.encode()).hexdigest()}', roles: [viewer]}}\n"
    )
    async with connect() as nobody:  # no PLANWATCH_TOKEN: the call holds no grant
        await call(nobody, "plan_create", {"title": "Private"})
        with anyio.fail_after(DEADLINE), pytest.raises(MCPError) as refused:
            await nobody.read_resource("x-ahpd-plans://p1")
        with anyio.fail_after(DEADLINE), pytest.raises(MCPError):
            await subscribe(nobody, "x-ahpd-plans://p1")
    assert refused.value.error.code == -32003
    assert "session:read" in refused.value.error.message
    async with connect(env={"PLANWATCH_TOKEN": secret}) as viewer:
        with anyio.fail_after(DEADLINE):
            read = await viewer.read_resource("x-ahpd-plans://p1")
    assert json.loads(read.contents[0].text)["plan"]["title"] == "Private"  # type: ignore[union-attr]


async def test_the_store_flag_picks_the_store(tmp_path: Path, isolated_env: IsolatedEnv) -> None:
    other = tmp_path / "other-store"
    async with connect("--store", str(other)) as client:
        assert await call(client, "task_add", {"title": "Over there"}) == "t1 todo medium Over there"
    assert (other / "tasks" / "t1.md").is_file()
    assert not (isolated_env.store / "tasks" / "t1.md").exists()


async def test_the_server_sweeps_finished_plans_when_it_starts(isolated_env: IsolatedEnv) -> None:
    """docs/store.md, The sweep: looked at when the core starts (here: the MCP server)."""
    from datetime import UTC, datetime, timedelta

    from planwatch.core.settings import Settings
    from planwatch.core.store.identity import Caller
    from planwatch.core.store.store import Store
    from planwatch.core.store.tools import run_tool

    store = Store(isolated_env.store)
    long_ago = datetime.now(UTC) - timedelta(days=30)
    for name, args in (
        ("plan_create", {"title": "Old"}),
        ("plan_set", {"plan": "p1", "status": "done"}),
        ("task_add", {"title": "Old step", "plan": "p1"}),
    ):
        run_tool(name, store, Settings(), Caller(by="dana"), args, now=lambda: long_ago)
    isolated_env.config.write_text("sweepAfterDays: 7\n")
    plan_file = isolated_env.store / "plans" / "p1.md"
    async with connect() as client:
        with anyio.fail_after(DEADLINE):
            while plan_file.exists():
                await anyio.sleep(0.05)
        assert await call(client, "plan_list", {}) == ""
    assert not plan_file.exists()
    assert not (isolated_env.store / "tasks" / "t1.md").exists()
