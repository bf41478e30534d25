"""docs/store.md, Approvals: the user directory fails closed, is read in the shape
docs/store.md shows, stamps never take a name from the environment, and a changed directory applies
in running processes. Every test runs the real CLI (a process) or the real loader on
the config files in fixtures/config/."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import cli_run
import pytest
from conftest import IsolatedEnv
from toasts import Toasts

from planwatch.core.settings import load_settings

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = ROOT / "fixtures" / "config"


def planwatch(env: IsolatedEnv, *argv: str, extra: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`planwatch ARGV` as a person with no login name and no token (`extra` adds to the environment)."""
    return cli_run.planwatch(*argv, env=extra, without=("USER", "LOGNAME", "PLANWATCH_TOKEN"), stdin=subprocess.DEVNULL)


def use_config(env: IsolatedEnv, name: str) -> Path:
    shutil.copyfile(CONFIGS / name, env.config)
    return env.config


def test_the_seed_directory_shape_is_in_force(isolated_env: IsolatedEnv) -> None:
    use_config(isolated_env, "seed-directory.yaml")
    settings = load_settings(isolated_env.config)
    assert settings.problems == () and settings.directory_error is None
    assert settings.users is not None and set(settings.users.users) == {"ana", "bo"}
    assert planwatch(isolated_env, "task", "add", "Ship").returncode == 0
    refused = planwatch(isolated_env, "task", "approve", "t1")
    assert refused.returncode == 2 and "needs the task:approve grant" in refused.stderr
    assert planwatch(isolated_env, "task", "approve", "t1", extra={"PLANWATCH_TOKEN": "bo-secret"}).returncode == 2
    ok = planwatch(isolated_env, "task", "approve", "t1", extra={"PLANWATCH_TOKEN": "ana-secret"})
    assert ok.returncode == 0, ok.stderr
    assert "by: ana" in (isolated_env.store / "tasks" / "t1.md").read_text()


@pytest.mark.parametrize(
    ("config", "key", "problem"),
    [
        ("unknown-user-key.yaml", "users[1].email", "is not a key of a user"),
        ("misspelled-roles.yaml", "users[0].roles", "role approver is not defined"),
        ("syntax-error.yaml", "", "is not valid YAML"),
    ],
)
def test_a_directory_that_is_not_valid_fails_closed_and_says_where(
    isolated_env: IsolatedEnv, config: str, key: str, problem: str
) -> None:
    path = use_config(isolated_env, config)
    added = planwatch(isolated_env, "task", "add", "Ship")
    assert added.returncode == 0
    # stderr names the file, the key and the problem
    assert f"{path}: {key + ': ' if key else ''}" in added.stderr and problem in added.stderr
    for token in (None, "ana-secret"):
        refused = planwatch(isolated_env, "task", "approve", "t1", extra={"PLANWATCH_TOKEN": token} if token else None)
        assert refused.returncode == 2
        assert "needs the task:approve grant" in refused.stderr and str(path) in refused.stderr
        assert "Traceback" not in refused.stderr
    assert "approved:" not in (isolated_env.store / "tasks" / "t1.md").read_text()


def test_valid_settings_are_kept_beside_an_invalid_directory(isolated_env: IsolatedEnv) -> None:
    path = use_config(isolated_env, "unknown-user-key.yaml")
    settings = load_settings(path)
    assert settings.owner == "dana"
    assert [(p.file, p.key) for p in settings.problems] == [(path, "users[1].email")]
    assert settings.directory_error is not None and str(path) in settings.directory_error


def test_a_config_that_cannot_be_read_fails_closed(isolated_env: IsolatedEnv) -> None:
    isolated_env.config.mkdir()  # a folder where the file should be
    assert planwatch(isolated_env, "task", "add", "Ship").returncode == 0
    refused = planwatch(isolated_env, "task", "approve", "t1")
    assert refused.returncode == 2 and str(isolated_env.config) in refused.stderr


def test_a_fifo_config_is_a_problem_not_a_hang(isolated_env: IsolatedEnv) -> None:
    os.mkfifo(isolated_env.config)
    added = planwatch(isolated_env, "task", "add", "Ship")
    assert added.returncode == 0 and "is a FIFO, not a regular file" in added.stderr
    assert planwatch(isolated_env, "task", "approve", "t1").returncode == 2


@pytest.mark.parametrize("config", ["seed-directory.yaml", "unknown-user-key.yaml"])
def test_under_a_directory_a_call_without_a_token_is_never_stamped_with_an_environment_name(
    isolated_env: IsolatedEnv, config: str
) -> None:
    use_config(isolated_env, config)
    expected = "dana" if config == "unknown-user-key.yaml" else "host"  # owner, else host
    alice = {"USER": "alice", "LOGNAME": "alice"}
    assert planwatch(isolated_env, "task", "add", "Ship", extra=alice).returncode == 0
    assert planwatch(isolated_env, "task", "review", "t1", extra=alice).returncode == 0
    text = (isolated_env.store / "tasks" / "t1.md").read_text()
    assert "alice" not in text and f"by: {expected}" in text
    assert planwatch(isolated_env, "task", "list", "--by", "alice").stdout == ""


def test_without_a_directory_the_login_name_still_stamps(isolated_env: IsolatedEnv) -> None:
    assert planwatch(isolated_env, "task", "add", "Ship", extra={"USER": "alice", "LOGNAME": "alice"}).returncode == 0
    assert "by: alice" in (isolated_env.store / "tasks" / "t1.md").read_text()


@pytest.mark.asyncio
async def test_the_app_applies_a_changed_directory_without_a_restart_checking_the_file_every_second(
    isolated_env: IsolatedEnv,
) -> None:
    """A directory changed on disk is applied by the running app, whose look at the file
    comes round once a second (its timer's interval, asserted: how soon is a setting,
    not a race the test runs against the clock)."""
    from app_transcripts import until

    from planwatch.tui.app import AppOptions, make_app

    path = use_config(isolated_env, "seed-directory.yaml")
    empty = isolated_env.root / "no-transcripts"
    empty.mkdir()
    options = AppOptions(
        roots=[empty], store_root=isolated_env.store, config_path=path, state_dir=isolated_env.state, follow=False
    )
    app = make_app(options)
    told = Toasts()
    async with app.run_test(message_hook=told, size=(120, 36)) as pilot:
        # (Not workers.wait_for_complete: an exclusive worker replaced by a newer one is
        # cancelled, and that wait then raises.)
        await until(pilot, lambda: app.scan_done is not None, what="the scan")
        watch = [timer for timer in app._timers if timer.name == "settings-watch"]
        assert len(watch) == 1 and watch[0]._interval <= 1.0 and not watch[0]._repeat  # for ever, every second
        assert app.settings.users is not None and "ana" in app.settings.users.users
        shutil.copyfile(CONFIGS / "unknown-user-key.yaml", path)
        await until(pilot, lambda: app.settings.directory_error is not None, what="the changed directory")
        assert any(str(path) in (n.title or "") for n in told.seen)


def test_an_unknown_settings_key_is_reported_with_the_nearest_setting_and_kept(isolated_env: IsolatedEnv) -> None:
    """Keep every valid setting, report each invalid one (file, key, what is wrong).
    A misspelled key is in force nowhere, so it is said; the file keeps it as written."""
    path = use_config(isolated_env, "misspelled-keys.yaml")
    before = path.read_bytes()
    added = planwatch(isolated_env, "task", "add", "Ship")
    assert added.returncode == 0, added.stderr
    assert f"{path}: requireAproval: is not a setting planwatch knows (did you mean requireApproval?)" in added.stderr
    assert f"{path}: ownr: is not a setting planwatch knows (did you mean owner?)" in added.stderr
    assert f"{path}: pager: is not a setting planwatch knows;" in added.stderr
    started = planwatch(isolated_env, "task", "set", "t1", "--status", "doing")
    assert started.returncode == 0  # requireApproval is not in force: the typo did not set it
    assert path.read_bytes() == before
    settings = load_settings(path, report=False)
    assert settings.directory_error is None and settings.require_approval is False


def test_a_misspelled_roles_section_names_the_key_it_meant(isolated_env: IsolatedEnv) -> None:
    path = use_config(isolated_env, "misspelled-roles.yaml")
    added = planwatch(isolated_env, "task", "add", "Ship")
    assert f"{path}: role: is not a setting planwatch knows (did you mean roles?)" in added.stderr


def test_a_token_no_user_holds_is_refused_as_such_not_as_no_token(isolated_env: IsolatedEnv) -> None:
    """A revoked or mistyped token is not 'no user token': the refusal says which it was."""
    use_config(isolated_env, "seed-directory.yaml")
    assert planwatch(isolated_env, "task", "add", "Ship").returncode == 0
    refused = planwatch(isolated_env, "task", "approve", "t1", extra={"PLANWATCH_TOKEN": "ana-secreT"})
    assert refused.returncode == 2
    assert refused.stderr.strip() == (
        "Refused planwatch task approve: approving needs the task:approve grant, which a call whose token "
        "matches no user of the directory (revoked or mistyped) does not hold."
    )
    bare = planwatch(isolated_env, "task", "approve", "t1")
    assert "which a call with no user token does not hold." in bare.stderr
