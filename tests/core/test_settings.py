"""The settings file (core/settings.py): defaults, the person's comments kept on save,
a broken file never fatal, and the owner stamps name when no token is presented."""

from __future__ import annotations

import os
import pwd
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from planwatch.core.settings import Settings, load_settings
from planwatch.core.settings_save import save_settings

ROOT = Path(__file__).resolve().parents[2]


def test_defaults_read_plans_on_and_keep_plans_in_store_off(tmp_path: Path) -> None:
    settings = load_settings(tmp_path / "missing.yaml")
    assert settings.read_agent_plans is True
    assert settings.keep_plans_in_store is False
    assert settings.require_approval is False and settings.sweep_after_days is None


def test_saving_keeps_the_persons_comments_and_order(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("# my planwatch\nowner: dana  # that's me\nrequireApproval: false\n")
    settings = load_settings(path)
    save_settings(replace(settings, require_approval=True, sweep_after_days=30), path)
    text = path.read_text()
    assert text.startswith("# my planwatch\nowner: dana  # that's me\nrequireApproval: true\n")
    assert "sweepAfterDays: 30" in text
    assert load_settings(path).require_approval is True


def test_a_broken_settings_file_gives_the_defaults_and_fails_closed(tmp_path: Path) -> None:
    # This changed once: a file that is not YAML still gives the default values, but
    # its problem is reported and its (unknown) user directory fails closed.
    path = tmp_path / "config.yaml"
    path.write_text("readAgentPlans: [unclosed\n")
    broken = load_settings(path)
    # ... and approval, which guards starting a task, is required, and agents' plans,
    # which the file may have turned off, are not read (both fail closed too; this
    # session's change: plans were read).
    assert replace(broken, problems=(), directory_error=None) == Settings(require_approval=True, read_agent_plans=False)
    assert "agents' plans are not read until it is fixed" in broken.problems[0].problem
    assert [p.key for p in broken.problems] == [""] and "is not valid YAML" in broken.problems[0].problem
    assert broken.directory_error is not None and str(path) in broken.directory_error
    path.write_text("sweepAfterDays: -3\nowner: dana\n")
    invalid = load_settings(path)
    assert invalid.sweep_after_days is None and invalid.owner == "dana"  # the valid setting is kept
    assert [(p.file, p.key) for p in invalid.problems] == [(path, "sweepAfterDays")]
    assert invalid.directory_error is None


@pytest.mark.parametrize("written", ["off", "no", "0", "'false'", "[false]"])
def test_an_invalid_read_agent_plans_means_plans_are_not_read(tmp_path: Path, written: str) -> None:
    """Privacy fails closed (docs/app.md, The checklist): `readAgentPlans: off` is text in YAML 1.2, not a
    switch, and the person who wrote it meant off; so does anything else that is not
    `true` or `false`: plans are not read, and the problem says so."""
    path = tmp_path / "config.yaml"
    path.write_text(f"readAgentPlans: {written}\nowner: dana\n")
    settings = load_settings(path)
    assert settings.read_agent_plans is False and settings.owner == "dana"
    [problem] = settings.problems
    assert problem.key == "readAgentPlans" and problem.problem.endswith("agents' plans are not read until it is fixed")
    path.write_text("readAgentPlans: true\n")
    assert load_settings(path).read_agent_plans is True


def test_the_owner_defaults_to_the_login_name_even_without_a_terminal() -> None:
    # No controlling terminal and no USER/LOGNAME (cron, an MCP server started by an
    # agent): the password database still names the person.
    env = {k: v for k, v in os.environ.items() if k not in ("USER", "LOGNAME", "LNAME", "USERNAME")}
    out = subprocess.run(
        [sys.executable, "-c", "from planwatch.core.settings import Settings; print(Settings().owner_name())"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )
    assert out.stdout.strip() == pwd.getpwuid(os.getuid()).pw_name
    assert Settings(owner="dana").owner_name() == "dana"


def test_an_unreadable_require_approval_means_approval_is_required(tmp_path: Path) -> None:
    """Trust fails closed: a requireApproval value that cannot be read never turns
    approval off; the problem names the key and says so."""
    path = tmp_path / "config.yaml"
    path.write_text("requireApproval: maybe\nowner: dana\n")
    settings = load_settings(path)
    assert settings.require_approval is True and settings.owner == "dana"
    [problem] = settings.problems
    assert problem.key == "requireApproval" and "approval is required until it is fixed" in problem.problem
    path.write_text("requireApproval: [unclosed\n")
    assert load_settings(path).require_approval is True
    path.write_text("requireApproval: false\n")
    assert load_settings(path).require_approval is False  # a value that reads is kept


def test_a_settings_file_of_nested_aliases_is_refused_at_once_and_fails_closed(isolated_env) -> None:  # type: ignore[no-untyped-def]
    # Ten levels of ten aliases each: 10^10 values to whatever walks them (a
    # `planwatch task list` under it never ended).
    lines = ['a0: &a0 ["x", "x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    lines += [f"a{n}: &a{n} [" + ", ".join([f"*a{n - 1}"] * 10) + "]" for n in range(1, 10)]
    isolated_env.config.write_text("requireApproval: false\n" + "\n".join(lines) + "\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "planwatch.tui.cli", "task", "add", "Ship"],
        env=os.environ.copy(),
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0 and done.stdout.startswith("t1 todo"), done.stderr
    assert "uses YAML anchors or aliases, which the settings do not accept" in done.stderr
    settings = load_settings(isolated_env.config, report=False)
    assert settings.require_approval is True  # the file could not be read: approval required
    assert any("anchors or aliases" in p.problem for p in settings.problems), settings.problems


def test_a_settings_file_nested_too_deeply_fails_closed_and_says_so_in_words(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("requireApproval: false\ntheme: " + "[" * 100_000 + "]" * 100_000 + "\n")
    settings = load_settings(path, report=False)
    assert settings.require_approval is True  # the file could not be read: approval required
    [problem] = settings.problems
    assert problem.problem.startswith("is not valid YAML: its values nest too deeply to read; ")


def test_a_settings_file_every_user_may_write_is_not_trusted(tmp_path: Path) -> None:
    # Any user of the host could add themselves as an approver to such a file (or, in a
    # folder anyone may write into, put another file in its place): it fails closed.
    path = tmp_path / "config.yaml"
    path.write_text("requireApproval: false\nreadAgentPlans: true\nowner: dana\n", encoding="utf-8")
    assert load_settings(path, report=False).require_approval is False
    path.chmod(0o666)
    shared = load_settings(path, report=False)
    assert shared.require_approval is True and shared.read_agent_plans is False and shared.owner is None
    assert "is writable by every user of this host (mode 0666)" in shared.problems[0].problem
    assert shared.directory_error is not None
    path.chmod(0o644)
    tmp_path.chmod(0o777)  # the folder open to all, without the sticky bit
    try:
        moved = load_settings(path, report=False)
        assert moved.require_approval is True
        assert "is in a folder every user of this host may write into (mode 0777)" in moved.problems[0].problem
        tmp_path.chmod(0o1777)  # as /tmp: others cannot replace a file they do not own
        assert load_settings(path, report=False).require_approval is False
    finally:
        tmp_path.chmod(0o700)
