"""The ten tools, the records and the plan channel exactly as docs/store.md defines
them, tried as an agent written against its tool table would.

Each rule is tested through the real MCP server (`planwatch mcp` under the SDK's
`Client` over stdio) and through the CLI as a real process; the stores are real folders.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from conftest import IsolatedEnv
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from stdout_lines import Lines
from test_mcp import DEADLINE, ROOT, server_env, text_of

from planwatch.core.store.tools import TOOL_NAMES, TOOLS

pytestmark = pytest.mark.anyio

STAMP_AT = re.compile(r"^  at: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$", re.M)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Logged:
    """The logging notifications (`notifications/message`) a client received."""

    def __init__(self) -> None:
        self.messages: list[types.LoggingMessageNotificationParams] = []

    async def __call__(self, params: types.LoggingMessageNotificationParams) -> None:
        self.messages.append(params)


@asynccontextmanager
async def mcp(*args: str, env: dict[str, str] | None = None, logged: Logged | None = None) -> AsyncIterator[Client]:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "planwatch.tui.cli", "mcp", *args], env=server_env(env), cwd=str(ROOT)
    )
    client = Client(params, mode="legacy", logging_callback=logged)
    with anyio.fail_after(4 * DEADLINE):
        async with client:
            yield client


async def ok(client: Client, name: str, args: dict[str, Any]) -> str:
    with anyio.fail_after(DEADLINE):
        result = await client.call_tool(name, args)
    assert not result.is_error, text_of(result)
    return text_of(result)


async def refused(client: Client, name: str, args: dict[str, Any]) -> str:
    with anyio.fail_after(DEADLINE):
        result = await client.call_tool(name, args)
    assert result.is_error, text_of(result)
    return text_of(result)


def cli(*argv: str, env: dict[str, str] | None = None, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """`planwatch …` as a real process, in the test's isolated environment."""
    return subprocess.run(
        [sys.executable, "-m", "planwatch.tui.cli", *argv],
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


def task_file(env: IsolatedEnv, task_id: str) -> str:
    return (env.store / "tasks" / f"{task_id}.md").read_text()


# ---------------------------------------------------------------- input names


async def test_the_record_a_call_acts_on_is_named_plan_or_task(isolated_env: IsolatedEnv) -> None:
    """The tool table (docs/store.md, The tools): plan_set, plan_show, plan_approve take `plan`; task_set,
    task_approve, task_review take `task`. No `id` alias."""
    async with mcp() as client:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        for name in ("plan_set", "plan_show", "plan_approve"):
            assert (
                "plan" in listed[name].input_schema["required"] and "id" not in listed[name].input_schema["properties"]
            )
        for name in ("task_set", "task_approve"):
            assert (
                "task" in listed[name].input_schema["required"] and "id" not in listed[name].input_schema["properties"]
            )
        assert "task" in listed["task_review"].input_schema["properties"]
        await ok(client, "plan_create", {"title": "Ship"})
        await ok(client, "task_add", {"title": "Write tests", "plan": "p1"})
        assert await ok(client, "task_set", {"task": "t1", "status": "doing"}) == "t1 doing medium Write tests"
        assert await ok(client, "task_approve", {"task": "t1"}) == "t1 doing medium Write tests"
        assert await ok(client, "task_review", {"task": "t1", "verdict": "approved"}) == "t1 doing medium Write tests"
        assert await ok(client, "plan_set", {"plan": "p1", "status": "active"}) == "p1 active Ship"
        assert await ok(client, "plan_approve", {"plan": "p1"}) == "p1 active Ship"
        assert await ok(client, "plan_show", {"plan": "p1"}) == "p1 active Ship\nt1 doing medium Write tests"
        assert await refused(client, "task_set", {"id": "t1", "status": "done"}) == (
            "Invalid task_set input: id is not a known field; the input is task."
        )
        assert (
            await refused(client, "plan_show", {"id": "p1"})
            == "Invalid plan_show input: id is not a known field; the input is plan."
        )
    # The command line names the same record by its first argument.
    assert cli("task", "set", "t1", "--status", "review").stdout == "t1 review medium Write tests\n"
    assert cli("plan", "show", "p1").stdout == "p1 active Ship\nt1 review medium Write tests\n"


async def test_only_the_seeds_names_are_inputs_and_refusals_name_the_seeds_field(isolated_env: IsolatedEnv) -> None:
    """`{"blocked_by": ["t1"]}` (the Python name) is refused; only `blockedBy` is an input."""
    async with mcp() as client:
        await ok(client, "task_add", {"title": "First"})
        assert await refused(client, "task_add", {"title": "Second", "blocked_by": ["t1"]}) == (
            "Invalid task_add input: blocked_by is not a known field; the input is blockedBy."
        )
        assert (
            await refused(client, "task_set", {"task": "t1", "blockedBy": "t1"})
            == "Invalid task_set input: blockedBy must be a list."
        )
        assert await refused(client, "task_add", {"title": "Second", "blockedBy": ["t9"]}) == (
            "Invalid task_add input: blockedBy must name known tasks (see task_list); t9 is not one."
        )
        assert await ok(client, "task_add", {"title": "Second", "blockedBy": ["t1"]}) == "t2 todo medium Second"
        assert await ok(client, "task_list", {}) == "t1 todo medium First\nt2 todo medium Second"
    assert "blockedBy: [t1]\n" in task_file(isolated_env, "t2")
    # The command line's option is --blocked-by; a refusal names the record's field.
    out = cli("task", "add", "Third", "--blocked-by", "t7")
    assert (out.returncode, out.stderr) == (
        2,
        "Invalid planwatch task add input: blockedBy must name known tasks (see planwatch task list); t7 is not one.\n",
    )


def test_every_input_in_every_schema_says_what_it_takes() -> None:
    """The tools' descriptions in the MCP listing are what a model reads: each input is
    described in the schema and named in the tool's description."""
    for name in TOOL_NAMES:
        spec = TOOLS[name]
        props = spec.input_schema()["properties"]
        assert props, name
        for field, schema in props.items():
            assert schema.get("description"), (name, field)
            assert f"\n- {field}" in spec.description, (name, field)
        assert "_" not in "".join(props), (name, list(props))  # no Python names


# ---------------------------------------------------------------- a new record's status


async def test_a_new_task_is_always_todo(isolated_env: IsolatedEnv) -> None:
    async with mcp() as client:
        assert (
            "status" not in (await client.list_tools()).tools[TOOL_NAMES.index("task_add")].input_schema["properties"]
        )
        assert await refused(client, "task_add", {"title": "Born done", "status": "done"}) == (
            "Invalid task_add input: status is not an input: a new task is always todo (change it with task_set)."
        )
        assert await ok(client, "task_add", {"title": "Fresh"}) == "t1 todo medium Fresh"
    assert "finished:" not in task_file(isolated_env, "t1")
    out = cli("task", "add", "x", "--status", "done")
    assert out.returncode == 2 and "unrecognized arguments: --status done" in out.stderr
    assert not (isolated_env.store / "tasks" / "t2.md").exists()


async def test_a_plan_starts_as_a_draft(isolated_env: IsolatedEnv) -> None:
    async with mcp() as client:
        assert await refused(client, "plan_create", {"title": "Born done", "status": "done"}) == (
            "Invalid plan_create input: status is not an input: a plan starts as a draft (change it with plan_set)."
        )
        assert await ok(client, "plan_create", {"title": "Fresh"}) == "p1 draft Fresh"
    out = cli("plan", "create", "Born done", "--status", "done")
    assert out.returncode == 2 and "unrecognized arguments: --status done" in out.stderr
    assert cli("plan", "list").stdout == "p1 draft Fresh\n"


# ---------------------------------------------------------------- source


async def test_source_is_on_a_translated_task_only(isolated_env: IsolatedEnv) -> None:
    from planwatch.core.store.store import Store
    from planwatch.core.store.translate import translate_list

    sentence = "source is not an input: it is written only on a task translated from an agent's own list."
    async with mcp() as client:
        await ok(client, "task_add", {"title": "Mine"})
        assert (
            await refused(client, "task_add", {"title": "Fake", "source": {"tool": "TodoWrite"}})
            == f"Invalid task_add input: {sentence}"
        )
        assert (
            await refused(client, "task_set", {"task": "t1", "source": {"tool": "TodoWrite", "id": "1"}})
            == f"Invalid task_set input: {sentence}"
        )
    out = cli("task", "add", "Fake", "--source", "TodoWrite")
    assert out.returncode == 2 and "unrecognized arguments" in out.stderr
    assert "source" not in task_file(isolated_env, "t1")
    # The translation of an agent's own list (docs/store.md, Agents' lists in the store) is the one writer of `source`.
    translate_list(Store(isolated_env.store), "ses-1", "Session", [("Step", "pending")], tool="TodoWrite")
    assert "source:\n  tool: TodoWrite\n" in task_file(isolated_env, "t2")


# ---------------------------------------------------------------- one-line fields


async def test_active_and_note_are_one_line(isolated_env: IsolatedEnv) -> None:
    async with mcp() as client:
        await ok(client, "task_add", {"title": "Task"})
        assert (
            await refused(client, "task_set", {"task": "t1", "active": "Running\nthe tests"})
            == "Invalid task_set input: active must be one line."
        )
        assert (
            await refused(client, "task_add", {"title": "T", "note": "first\r\nsecond"})
            == "Invalid task_add input: note must be one line."
        )
        assert await ok(client, "task_set", {"task": "t1", "note": "all on one line"}) == "t1 todo medium Task"
    out = cli("task", "set", "t1", "--note", "two\nlines")
    assert (out.returncode, out.stderr) == (2, "Invalid planwatch task set input: note must be one line.\n")
    assert "note: all on one line\n" in task_file(isolated_env, "t1")


# ---------------------------------------------------------------- active


@pytest.mark.parametrize("exit_status", ["done", "todo", "blocked", "review", "dropped"])
async def test_task_set_clears_active_when_the_task_leaves_doing(isolated_env: IsolatedEnv, exit_status: str) -> None:
    async with mcp() as client:
        await ok(client, "task_add", {"title": "Task"})
        await ok(client, "task_set", {"task": "t1", "status": "doing", "active": "Running the tests"})
        assert "active: Running the tests\n" in task_file(isolated_env, "t1")
        await ok(client, "task_set", {"task": "t1", "status": exit_status})
    assert "active:" not in task_file(isolated_env, "t1")
    # The same through the command line.
    cli("task", "set", "t1", "--status", "doing", "--active", "Checking again")
    assert "active: Checking again\n" in task_file(isolated_env, "t1")
    assert cli("task", "set", "t1", "--status", exit_status).returncode == 0
    assert "active:" not in task_file(isolated_env, "t1")


# ---------------------------------------------------------------- the channel


async def test_the_channel_sends_each_action_with_the_seeds_payload(isolated_env: IsolatedEnv) -> None:
    """docs/store.md, What clients see: `taskAdded {task}`, `taskSet {task}`, `taskRemoved
    {taskId}`, `set {plan}` — each exactly `{type, <payload>}`."""
    assert cli("plan", "create", "Ship").returncode == 0
    assert cli("plan", "create", "Other").returncode == 0
    proc = subprocess.Popen(
        [sys.executable, "-m", "planwatch.tui.cli", "channel", "x-ahpd-plans://p1"],
        cwd=ROOT, env=dict(os.environ), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        lines = Lines(proc.stdout)
        assert json.loads(lines.next()) == {
            "plan": json.loads(cli("plan", "show", "p1", "--json").stdout)["plan"],
            "tasks": [],
        }
        async with mcp() as client:
            await ok(client, "task_add", {"title": "Write tests", "plan": "p1"})
            added = json.loads(lines.next())
            await ok(client, "task_set", {"task": "t1", "status": "doing"})
            changed = json.loads(lines.next())
            await ok(client, "plan_set", {"plan": "p1", "status": "active"})
            plan_set = json.loads(lines.next())
            await ok(client, "task_set", {"task": "t1", "plan": "p2"})
            removed = json.loads(lines.next())
    finally:
        proc.kill()
        proc.wait(timeout=DEADLINE)
    assert set(added) == {"type", "task"} and added["type"] == "x-ahpd-plans/taskAdded" and added["task"]["id"] == "t1"
    assert set(changed) == {"type", "task"} and changed["type"] == "x-ahpd-plans/taskSet"
    assert changed["task"]["status"] == "doing"
    assert (
        set(plan_set) == {"type", "plan"}
        and plan_set["type"] == "x-ahpd-plans/set"
        and plan_set["plan"]["status"] == "active"
    )
    assert removed == {"type": "x-ahpd-plans/taskRemoved", "taskId": "t1"}
    # Stamps travel in the store's form too.
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", changed["task"]["started"]["at"])


# ---------------------------------------------------------------- stamps' form


async def test_stamps_are_written_as_iso_8601_utc_with_milliseconds_and_z(isolated_env: IsolatedEnv) -> None:
    async with mcp("--session", "ses-1") as client:
        await ok(client, "task_add", {"title": "Task"})
        await ok(client, "task_approve", {"task": "t1"})
        await ok(client, "task_set", {"task": "t1", "status": "done"})
    text = task_file(isolated_env, "t1")
    assert len(STAMP_AT.findall(text)) == 3  # created, approved, finished
    assert "+00:00" not in text
    assert cli("task", "review", "t1").returncode == 0
    assert len(STAMP_AT.findall(task_file(isolated_env, "t1"))) == 4


async def test_both_stamp_forms_are_read(isolated_env: IsolatedEnv) -> None:
    tasks = isolated_env.store / "tasks"
    tasks.mkdir(parents=True)
    (tasks / "t1.md").write_text(
        "---\nid: t1\ntitle: Old form\nstatus: todo\ncreated:\n  at: 2026-11-30 22:34:28+00:00\n  by: dana\n---\n"
    )
    (tasks / "t2.md").write_text(
        "---\nid: t2\ntitle: Seed form\nstatus: todo\ncreated:\n  at: 2026-10-18T10:00:00.000Z\n  by: dana\n---\n"
    )
    out = cli("task", "list", "--since", "2026-11-01")
    assert (out.stdout, out.stderr) == ("t1 todo medium Old form\n", "")
    async with mcp() as client:
        assert (
            await ok(client, "task_list", {"since": "2026-10-18T10:00:00Z"})
            == "t1 todo medium Old form\nt2 todo medium Seed form"
        )
        assert await ok(client, "task_list", {"since": "2026-10-18T10:00:00.001Z"}) == "t1 todo medium Old form"
        # A write leaves a stamp it does not change as the file has it; new stamps take the store's form.
        await ok(client, "task_set", {"task": "t1", "note": "touched", "status": "doing"})
    text = task_file(isolated_env, "t1")
    assert "created:\n  at: 2026-11-30 22:34:28+00:00\n" in text
    assert re.search(r"started:\n  at: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\n", text)


# ---------------------------------------------------------------- broken records


@pytest.fixture
def broken_store(copy_fixture: Callable[..., Path], isolated_env: IsolatedEnv) -> Path:
    import shutil

    shutil.copytree(copy_fixture("store/broken"), isolated_env.store)
    return isolated_env.store


def _problem_files(store: Path) -> list[str]:
    from planwatch.core.store.store import Store

    return [p.message.split(":")[0] for p in Store(store).load().problems]


async def test_a_broken_record_is_reported_and_left_out(broken_store: Path) -> None:
    """docs/store.md, Hand edits: "reported and left out" — on stderr in the CLI (once per command) and
    as a logging notification (level warning) to MCP clients; never in the answer."""
    files = _problem_files(broken_store)
    assert len(files) > 20
    listed = "t1 done high Read the loader code\nt2 doing medium Write the migration\n" \
             "t30 todo medium Saved on Windows with CRLF line ends\nt31 review low Saved with a byte-order mark\n"  # fmt: skip
    out = cli("task", "list")
    assert out.returncode == 0 and out.stdout == listed
    reported = out.stderr.splitlines()
    assert len(reported) == len(files)  # each once
    for line, file in zip(reported, files, strict=True):
        assert line.startswith(f"planwatch: left out a record that is not valid: {file}: ")
    out = cli("plan", "list")
    assert out.stdout == "p1 active Move the API to the new schema\n" and len(out.stderr.splitlines()) == len(files)
    logged = Logged()
    async with mcp(logged=logged) as client:
        assert await ok(client, "task_list", {}) == listed.rstrip("\n")
        with anyio.fail_after(DEADLINE):
            while len(logged.messages) < len(files):
                await anyio.sleep(0.05)
    assert {m.level for m in logged.messages} == {"warning"}
    assert [str(m.data).split(": ", 1)[1].split(":")[0] for m in logged.messages] == files


async def test_task_set_on_a_broken_record_says_what_is_wrong_with_the_file(broken_store: Path) -> None:
    wrong = "tasks/t5.md: id t50 does not match the file name t5.md."
    out = cli("task", "set", "t5", "--status", "done")
    assert (out.returncode, out.stdout) == (2, "")
    assert (
        out.stderr
        == f"Invalid planwatch task set input: task t5 is not a valid record ({wrong}); fix or remove the file.\n"
    )
    async with mcp() as client:
        assert await refused(client, "task_set", {"task": "t5", "status": "done"}) == (
            f"Invalid task_set input: task t5 is not a valid record ({wrong}); fix or remove the file."
        )
        assert (await refused(client, "plan_show", {"plan": "p2"})).startswith(
            "Invalid plan_show input: plan p2 is not a valid record (plans/p2.md: status must be draft"
        )


# ---------------------------------------------------------------- session


async def test_the_session_a_task_is_made_in_is_the_default_for_session(isolated_env: IsolatedEnv) -> None:
    async with mcp(env={"PLANWATCH_SESSION": "ses-agent"}) as client:
        await ok(client, "task_add", {"title": "Made by the agent"})
        await ok(client, "task_add", {"title": "For another session", "session": "ses-other"})
    async with mcp("--session", "ses-flag") as client:
        await ok(client, "task_add", {"title": "Made under --session"})
    assert cli("task", "add", "Made by a script", env={"PLANWATCH_SESSION": "ses-agent"}).returncode == 0
    # `--session ""`: no session, rather than the one the command runs in.
    assert cli("task", "add", "No session", "--session", "", env={"PLANWATCH_SESSION": "ses-agent"}).returncode == 0
    assert "session:" not in task_file(isolated_env, "t5")
    assert cli("todo", "ses-agent").stdout == "- [ ] Made by the agent\n- [ ] Made by a script\n"
    assert cli("todo", "ses-flag").stdout == "- [ ] Made under --session\n"
    assert cli("todo", "ses-other").stdout == "- [ ] For another session\n"
    assert (
        cli("task", "list", "--session", "ses-agent").stdout
        == "t1 todo medium Made by the agent\nt4 todo medium Made by a script\n"
    )


# ---------------------------------------------------------------- huge first record


def test_a_transcript_whose_first_record_is_larger_than_the_head_window_is_read(isolated_env: IsolatedEnv) -> None:
    from planwatch.core.transcripts.sniff import SNIFF_BYTES

    source = ROOT / "fixtures/transcripts/claude/projects/-home-dev-api/9d1e7c54-3b2a-4f6e-8c1d-7a9b0e2f4c6d.jsonl"
    records = [json.loads(line) for line in source.read_text().splitlines()]
    user = next(r for r in records if r.get("type") == "user")
    # A pasted 5 MB prompt as the first record, its ids after the text (as Claude writes them).
    huge = {"type": "user", "message": {"role": "user", "content": "p" * (5 << 20)}}
    huge.update({k: v for k, v in user.items() if k not in huge})
    assert len(json.dumps(huge)) > SNIFF_BYTES
    rest = [r for r in records if r.get("type") not in ("queue-operation",) and r is not user]
    folder = isolated_env.root / "elsewhere" / "projects" / "-home-dev-api"
    folder.mkdir(parents=True)
    path = folder / source.name
    path.write_text("\n".join(json.dumps(r) for r in [huge, *rest]) + "\n")
    out = cli("show", str(path), "--plain")
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[:2] == ["# claude_tasks", "completed\tReproduce the dropped webhook"]
    shown = cli("show", str(path))
    assert shown.stdout.splitlines()[0] == "Billing webhook retries"  # the title from a later record
    listed = json.loads(cli("sessions", "--json", "--root", str(folder)).stdout)
    assert [(s["id"], s["title"]) for s in listed] == [
        ("9d1e7c54-3b2a-4f6e-8c1d-7a9b0e2f4c6d", "Billing webhook retries")
    ]
    # Renamed out of Claude's layout, its first lines still say what it is.
    loose = isolated_env.root / "loose.jsonl"
    loose.write_bytes(path.read_bytes())
    assert cli("show", str(loose), "--plain").stdout == out.stdout


# ---------------------------------------------------------------- docs/store.md


async def test_the_store_docs_tool_table_lists_each_tools_inputs_exactly_as_the_mcp_schema_does() -> None:
    page = (ROOT / "docs" / "store.md").read_text()
    rows = re.findall(r"^\| `(\w+)` \| ([^|]*) \|", page, re.M)
    table = {name: cell for name, cell in rows if name in TOOL_NAMES}
    assert list(table) == list(TOOL_NAMES)
    async with mcp() as client:
        listed = (await client.list_tools()).tools
    for tool in listed:
        cell = table[tool.name]
        names = re.findall(r"`(\w+)`", cell)
        required = re.findall(r"\*\*`(\w+)`\*\*", cell)
        assert names == list(tool.input_schema["properties"]), tool.name
        assert required == tool.input_schema.get("required", []), tool.name
        # And each input's description reaches the model in the tool's description.
        assert tool.description is not None
        for name in names:
            assert f"\n- {name}" in tool.description, (tool.name, name)


# ---------------------------------------------------------------- golden record


GOLDEN_TASK = """\
---
id: t1
title: Write the migration
status: doing
priority: high
labels: [db, api]
plan: p1
session: ses-7
blockedBy: []
active: Writing the migration
refs: [https://tracker.example/ORD-12]
created:
  at: 2026-10-18T10:00:00.000Z
  by: ana
  in: ses-7
approved:
  at: 2026-10-18T10:05:00.000Z
  by: ana
  in: ses-7
started:
  at: 2026-10-18T10:10:00.000Z
  by: ana
  in: ses-7
---
Copy the orders table into the new schema, then switch the reads.
"""


def test_golden_the_task_record_written_by_task_add_task_approve_task_set_is_field_for_field_the_seeds(
    isolated_env: IsolatedEnv,
) -> None:
    """task_add + task_approve + task_set with a frozen clock write exactly the
    record docs/store.md describes: field order, empty lists, stamps' form, the body below the frontmatter."""
    from datetime import UTC, datetime, timedelta

    from planwatch.core.settings import Settings
    from planwatch.core.store.identity import Caller
    from planwatch.core.store.store import Store
    from planwatch.core.store.tools import run_tool

    store, settings, ana = Store(isolated_env.store), Settings(), Caller(by="ana", session="ses-7")
    start = datetime(2026, 10, 18, 9, 0, tzinfo=UTC)
    run_tool("plan_create", store, settings, ana, {"title": "Orders on the new schema"}, now=lambda: start)
    for name, args in (
        ("task_add", {"title": "Write the migration", "priority": "high", "labels": ["db", "api"], "plan": "p1",
                      "refs": ["https://tracker.example/ORD-12"],
                      "body": "Copy the orders table into the new schema, then switch the reads.\n"}),
        ("task_approve", {"task": "t1"}),
        ("task_set", {"task": "t1", "status": "doing", "active": "Writing the migration"}),
    ):  # fmt: skip
        at = datetime(2026, 10, 18, 10, 0, tzinfo=UTC) + timedelta(
            minutes=5 * ["task_add", "task_approve", "task_set"].index(name)
        )
        run_tool(name, store, settings, ana, args, now=lambda at=at: at)
    assert (isolated_env.store / "tasks" / "t1.md").read_text() == GOLDEN_TASK
    # Read back, it is the same record; and the CLI and the channel show the same fields.
    rec = store.read_task("t1")
    assert rec is not None and rec.started is not None and rec.started.at == datetime(2026, 10, 18, 10, 10, tzinfo=UTC)
    [as_json] = json.loads(cli("task", "list", "--json").stdout)
    assert list(as_json) == ["id", "title", "status", "priority", "labels", "plan", "session", "blockedBy", "active",
                             "refs", "created", "approved", "started", "body"]  # fmt: skip
    assert as_json["created"] == {"at": "2026-10-18T10:00:00.000Z", "by": "ana", "in": "ses-7"}
