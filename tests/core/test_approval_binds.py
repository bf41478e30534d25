"""An approval binds what was approved, and only the host's approvals count: a stamp no
approval call wrote does not let a task start, and a change of title or body after the
approval (by someone who may not approve) makes the task need approval again. The CLI
and the real MCP server, in their own processes."""

from __future__ import annotations

from pathlib import Path

import anyio
import mcp_types as types
import pytest
from cli_run import planwatch_as as cli
from conftest import IsolatedEnv
from test_mcp import DEADLINE, call, connect, text_of

ROOT = Path(__file__).resolve().parents[2]
SEED = (ROOT / "fixtures" / "config" / "seed-directory.yaml").read_text()  # requireApproval, ana approves

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def test_a_hand_written_approved_stamp_does_not_count(isolated_env: IsolatedEnv) -> None:
    isolated_env.config.write_text(SEED)
    assert cli("task", "add", "Ship it").returncode == 0
    path = isolated_env.store / "tasks" / "t1.md"
    path.write_text(
        path.read_text().replace("\n---\n", "\napproved: {at: 2026-11-30T08:00:00.000Z, by: ana}\n---\n", 1)
    )
    start = cli("task", "set", "t1", "--status", "doing")
    assert start.returncode == 2
    assert (
        "status doing needs t1 approved first: its approved stamp was not written by an approval call of this host"
        in start.stderr
    )
    listed = cli("task", "list", "--approved", token="ana-secret")
    assert listed.returncode == 0 and listed.stdout == ""
    everything = cli("task", "list", token="ana-secret")
    assert everything.stdout == "t1 todo medium Ship it\n"
    assert (
        "planwatch: t1 is not approved: its approved stamp was not written by an approval call of this host"
        in everything.stderr
    )
    # ana's own approval counts, and what it wrote beside the store holds no text.
    assert cli("task", "approve", "t1", token="ana-secret").returncode == 0
    assert "Ship it" not in (isolated_env.store / ".approvals").read_text()
    assert cli("task", "set", "t1", "--status", "doing").returncode == 0


def test_an_approval_does_not_survive_a_hand_edit_of_the_body(isolated_env: IsolatedEnv) -> None:
    isolated_env.config.write_text(SEED)
    assert cli("task", "add", "Ship it", "--body", "Only the docs.").returncode == 0
    assert cli("task", "approve", "t1", token="ana-secret").returncode == 0
    path = isolated_env.store / "tasks" / "t1.md"
    path.write_text(path.read_text().replace("Only the docs.", "Also rm -rf the cluster."))
    start = cli("task", "set", "t1", "--status", "doing")
    assert start.returncode == 2 and "its title or body changed after ana approved it" in start.stderr


async def test_an_agents_retitle_after_approval_needs_approval_again_and_says_so(isolated_env: IsolatedEnv) -> None:
    isolated_env.config.write_text(SEED)
    async with connect(env={"PLANWATCH_TOKEN": "ana-secret"}) as ana, connect() as agent:
        assert await call(agent, "task_add", {"title": "Read the logs"}) == "t1 todo medium Read the logs"
        assert await call(ana, "task_approve", {"task": "t1"}) == "t1 todo medium Read the logs"
        with anyio.fail_after(DEADLINE):
            changed = await agent.call_tool("task_set", {"task": "t1", "title": "Delete the logs"})
        assert not changed.is_error
        blocks = [b.text for b in changed.content if isinstance(b, types.TextContent)]
        assert blocks == [
            "t1 todo medium Delete the logs",
            "t1 needs approval again: its title or body changed after ana approved it (see task_approve).",
        ]
        with anyio.fail_after(DEADLINE):
            start = await agent.call_tool("task_set", {"task": "t1", "status": "doing"})
        assert start.is_error and "status doing needs t1 approved first" in text_of(start)
        # An approver's own edit keeps her approval, for the new text.
        assert await call(ana, "task_approve", {"task": "t1"}) == "t1 todo medium Delete the logs"
        assert (
            await call(ana, "task_set", {"task": "t1", "body": "Older than 30 days."})
            == "t1 todo medium Delete the logs"
        )
        assert await call(agent, "task_set", {"task": "t1", "status": "doing"}) == "t1 doing medium Delete the logs"


def test_a_record_of_approvals_every_user_may_write_proves_no_approval(isolated_env: IsolatedEnv) -> None:
    # Anyone on the host could append a line for any record to such a ledger (the digest
    # is a hash of the text they can read), so no approved stamp counts while it is.
    isolated_env.config.write_text(SEED)
    assert cli("task", "add", "Ship it").returncode == 0
    assert cli("task", "approve", "t1", token="ana-secret").returncode == 0
    ledger = isolated_env.store / ".approvals"
    reason = (
        f"the host's record of approvals {ledger} may be written by every user of this host "
        "(chmod o-w the store and its .approvals), so no approved stamp counts"
    )
    ledger.chmod(0o666)
    start = cli("task", "set", "t1", "--status", "doing")
    assert start.returncode == 2 and reason in start.stderr, start.stderr
    ledger.chmod(0o644)
    isolated_env.store.chmod(0o777)  # the store folder open to all, without the sticky bit
    start = cli("task", "set", "t1", "--status", "doing")
    assert start.returncode == 2 and reason in start.stderr, start.stderr
    isolated_env.store.chmod(0o755)
    assert cli("task", "set", "t1", "--status", "doing").stdout == "t1 doing medium Ship it\n"


def test_a_task_doing_without_approval_is_listed_with_a_word_about_it(isolated_env: IsolatedEnv) -> None:
    isolated_env.config.write_text(SEED)
    assert cli("task", "add", "Ship it").returncode == 0
    assert cli("plan", "create", "Launch").returncode == 0
    assert cli("task", "add", "Tell them", "--plan", "p1").returncode == 0
    for n in (1, 2):  # the status written by hand: task_set would have refused it
        path = isolated_env.store / "tasks" / f"t{n}.md"
        path.write_text(path.read_text().replace("status: todo", "status: doing", 1))
    path = isolated_env.store / "tasks" / "t2.md"
    path.write_text(
        path.read_text().replace("\n---\n", "\napproved: {at: 2026-11-30T08:00:00.000Z, by: ana}\n---\n", 1)
    )
    listed = cli("task", "list", token="ana-secret")
    assert listed.returncode == 0
    assert listed.stdout == "t1 doing medium Ship it\nt2 doing medium Tell them\n"
    assert listed.stderr == (
        "planwatch: t1 is doing without approval: requireApproval is on and it was never approved.\n"
        "planwatch: t2 is doing without approval: requireApproval is on and its approved stamp was not "
        "written by an approval call of this host, so it does not count.\n"
    )
    shown = cli("plan", "show", "p1", token="ana-secret")
    assert shown.stdout == "p1 draft Launch\nt2 doing medium Tell them\n"
    assert "planwatch: t2 is doing without approval: requireApproval is on" in shown.stderr
    # Approved by ana, t1 is doing as it may be: nothing more is said of it.
    assert cli("task", "approve", "t1", token="ana-secret").returncode == 0
    listed = cli("task", "list", token="ana-secret")
    assert "t1" not in listed.stderr and "t2 is doing without approval" in listed.stderr
    # Without requireApproval a task doing is just doing.
    isolated_env.config.write_text(SEED.replace("requireApproval: true", "requireApproval: false"))
    assert "doing without approval" not in cli("task", "list", token="ana-secret").stderr
