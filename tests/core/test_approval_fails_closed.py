"""Approval fails closed when the settings that govern it go missing, are misspelt or
misplaced, or name a user as the owner (docs/store.md, Approvals: a directory that is present but
cannot be read or validated is not "no directory"). The CLI and the real MCP server, in
their own processes, with real settings files."""

from __future__ import annotations

import os
from pathlib import Path

import anyio
import pytest
from cli_run import planwatch as cli
from conftest import IsolatedEnv
from test_mcp import DEADLINE, call, connect, text_of

from planwatch.core.settings import load_settings
from planwatch.core.store.grants import TASK_APPROVE, holds
from planwatch.core.store.identity import caller_from_env

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = ROOT / "fixtures" / "config"
SEED = (CONFIGS / "seed-directory.yaml").read_text()


def default_config(env: IsolatedEnv) -> Path:
    """The settings file a person's login reads when PLANWATCH_CONFIG names none (XDG)."""
    path = Path(os.environ["XDG_CONFIG_HOME"]) / "planwatch" / "config.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def test_a_missing_config_named_by_the_environment_refuses_grants_while_the_default_file_holds_a_directory(
    isolated_env: IsolatedEnv, tmp_path: Path
) -> None:
    default_config(isolated_env).write_text(SEED)
    missing = tmp_path / "nowhere" / "config.yaml"
    assert cli("task", "add", "Ship it", env={"PLANWATCH_CONFIG": str(missing)}).returncode == 0
    approve = cli("task", "approve", "t1", env={"PLANWATCH_CONFIG": str(missing)})
    assert approve.returncode == 2, approve.stdout
    assert "Refused planwatch task approve: approving needs the task:approve grant" in approve.stderr
    # The sentence names both files and what a person does about it.
    assert (
        f"the settings file {missing} does not exist, but {default_config(isolated_env)} holds a user directory"
        in approve.stderr
    )
    assert "unset PLANWATCH_CONFIG" in approve.stderr and f"or write {missing}" in approve.stderr
    # requireApproval is not off for that call either.
    start = cli("task", "set", "t1", "--status", "doing", env={"PLANWATCH_CONFIG": str(missing)})
    assert start.returncode == 2 and "needs t1 approved first" in start.stderr
    record = (isolated_env.store / "tasks" / "t1.md").read_text()
    assert "approved" not in record and "status: todo" in record


def test_a_config_named_by_the_environment_without_a_directory_refuses_grants_while_the_default_file_holds_one(
    isolated_env: IsolatedEnv, tmp_path: Path
) -> None:
    default_config(isolated_env).write_text(SEED)
    other = tmp_path / "other.yaml"
    other.write_text("theme: nord\n")
    settings = load_settings(other, report=False)
    assert settings.require_approval
    assert not holds(settings, caller_from_env(settings, {}), TASK_APPROVE)
    assert settings.directory_error is not None and "holds no user directory" in settings.directory_error


def test_the_default_config_itself_governs_as_always(isolated_env: IsolatedEnv) -> None:
    """No other file holds a directory: a missing config is the defaults, as always."""
    settings = load_settings(isolated_env.config, report=False)
    assert settings.directory_error is None and not settings.require_approval
    assert holds(settings, caller_from_env(settings, {}), TASK_APPROVE)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_deleting_the_settings_file_under_a_running_server_refuses_grants_until_a_person_decides(
    isolated_env: IsolatedEnv,
) -> None:
    isolated_env.config.write_text(SEED)
    async with connect() as agent:  # no token: holds no grant
        assert await call(agent, "task_add", {"title": "Ship it"}) == "t1 todo medium Ship it"
        isolated_env.config.unlink()
        with anyio.fail_after(DEADLINE):
            refused = await agent.call_tool("task_approve", {"task": "t1"})
        assert refused.is_error
        assert f"the settings file {isolated_env.config} held a user directory" in text_of(refused)
        assert "is gone now" in text_of(refused) and "put it back" in text_of(refused)
        with anyio.fail_after(DEADLINE):
            start = await agent.call_tool("task_set", {"task": "t1", "status": "doing"})
        assert start.is_error and "needs t1 approved first" in text_of(start)
        # A person decides to run without a directory: they write the file without one.
        isolated_env.config.write_text("requireApproval: false\n")
        assert await call(agent, "task_approve", {"task": "t1"}) == "t1 todo medium Ship it"


@pytest.mark.parametrize(
    "section",
    [
        pytest.param('Users:\n  - { id: ana, roles: [approver], token: "%s" }\n', id="Users"),
        pytest.param('user:\n  - { id: ana, roles: [approver], token: "%s" }\n', id="user"),
        pytest.param('"users ":\n  - { id: ana, roles: [approver], token: "%s" }\n', id="users-space"),
        pytest.param('usres:\n  - { id: ana, roles: [approver], token: "%s" }\n', id="usres"),
        pytest.param('team:\n  users:\n    - { id: ana, roles: [approver], token: "%s" }\n', id="nested-users"),
        pytest.param("team:\n  - roles: {approver: [task:approve]}\n# %s\n", id="nested-roles"),
        pytest.param("Roles:\n  approver: [task:approve]\n# %s\n", id="Roles"),
    ],
)
def test_a_misspelt_or_misplaced_directory_is_broken_not_absent(isolated_env: IsolatedEnv, section: str) -> None:
    token = "sha256:" + "ab" * 32
    isolated_env.config.write_text("requireApproval: true\n" + section % token)
    assert cli("task", "add", "Ship it").returncode == 0
    approve = cli("task", "approve", "t1")
    assert approve.returncode == 2, approve.stdout
    assert (
        "Refused planwatch task approve: approving needs the task:approve grant, and the user directory in"
        in approve.stderr
    )
    assert "is not valid" in approve.stderr
    assert "approved" not in (isolated_env.store / "tasks" / "t1.md").read_text()


def test_a_key_that_only_looks_like_a_setting_is_not_a_directory(isolated_env: IsolatedEnv) -> None:
    """Keys far from users/roles stay warnings: no directory, every call acts as always."""
    isolated_env.config.write_text("usersGuide: docs/\nrequireAproval: true\n")
    settings = load_settings(isolated_env.config, report=False)
    assert settings.directory_error is None and settings.users is None
    assert [p.key for p in settings.problems] == ["usersGuide", "requireAproval"]


def test_an_owner_that_names_a_directory_user_is_not_the_stamp_of_token_less_calls(isolated_env: IsolatedEnv) -> None:
    isolated_env.config.write_text("owner: Ana\n" + SEED)
    assert cli("task", "add", "Ship it").returncode == 0
    listed = cli("task", "list", "--by", "ana", env={"PLANWATCH_TOKEN": "ana-secret"})
    assert listed.stdout == ""
    record = (isolated_env.store / "tasks" / "t1.md").read_text()
    assert "by: host" in record and "Ana" not in record
    problems = load_settings(isolated_env.config, report=False).problems
    assert any(p.key == "owner" and "a user of the user directory" in p.problem for p in problems)
    # Her own token still names her.
    assert cli("task", "approve", "t1", env={"PLANWATCH_TOKEN": "ana-secret"}).returncode == 0
    assert "by: ana" in (isolated_env.store / "tasks" / "t1.md").read_text()


def test_an_owner_that_names_no_user_still_stamps_token_less_calls(isolated_env: IsolatedEnv) -> None:
    isolated_env.config.write_text("owner: dana\n" + SEED)
    assert cli("task", "add", "Ship it").returncode == 0
    assert "by: dana" in (isolated_env.store / "tasks" / "t1.md").read_text()
