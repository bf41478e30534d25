"""The store tools (docs/store.md, The tools) as `planwatch plan …` / `planwatch task …` / `planwatch sweep`,
mapping 1:1 onto the tools; a refusal goes to stderr with exit status 2."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from planwatch.core.store.store import Store
from planwatch.tui.cli import main

ROOT = Path(__file__).resolve().parents[2]


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str], str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out.splitlines(), out.err


def test_plan_and_task_commands_map_onto_the_tools(capsys: pytest.CaptureFixture[str], isolated_env: object) -> None:
    assert cli(
        capsys,
        "plan",
        "create",
        "--title",
        "Ship v1",
        "--scope",
        "folder:/srv/work",
        "--goal",
        "Ship it",
        "--refs",
        "a,b",
    )[:2] == (0, ["p1 draft Ship v1"])
    assert cli(
        capsys, "task", "add", "--title", "Write parser", "--plan", "p1", "--labels", "io,parser", "--priority", "high"
    )[:2] == (0, ["t1 todo high Write parser"])
    assert cli(capsys, "task", "add", "Tests", "--blocked-by", "t1", "--plan", "p1")[:2] == (
        0,
        ["t2 todo medium Tests"],
    )
    assert cli(capsys, "task", "set", "t1", "--status", "doing", "--note", "halfway")[:2] == (
        0,
        ["t1 doing high Write parser"],
    )
    assert cli(capsys, "task", "list", "--ready")[:2] == (0, [])
    assert cli(capsys, "task", "set", "t1", "--status", "done", "--note", "")[:2] == (0, ["t1 done high Write parser"])
    assert cli(capsys, "task", "list", "--ready")[:2] == (0, ["t2 todo medium Tests"])
    assert cli(capsys, "task", "list", "--status", "done,review")[1] == ["t1 done high Write parser"]
    assert cli(capsys, "task", "approve", "t2")[1] == ["t2 todo medium Tests"]
    assert cli(capsys, "task", "list", "--approved")[1] == ["t2 todo medium Tests"]
    assert cli(capsys, "task", "list", "--no-approved")[1] == ["t1 done high Write parser"]
    assert cli(capsys, "task", "review", "t1", "--verdict", "changes")[1] == ["t1 done high Write parser"]
    assert cli(capsys, "plan", "set", "p1", "--status", "active")[1] == ["p1 active Ship v1"]
    assert cli(capsys, "plan", "approve", "p1")[1] == ["p1 active Ship v1"]
    assert cli(capsys, "plan", "list", "--scope", "folder:/srv/work")[1] == ["p1 active Ship v1"]
    assert cli(capsys, "plan", "show", "p1")[1] == [
        "p1 active Ship v1",
        "t1 done high Write parser",
        "t2 todo medium Tests",
    ]

    store = Store(isolated_env.store)  # type: ignore[attr-defined]
    t1, t2, p1 = store.read_task("t1"), store.read_task("t2"), store.read_plan("p1")
    assert t1 is not None and t2 is not None and p1 is not None
    assert (
        t1.note is None
        and t1.labels == ("io", "parser")
        and t1.reviewed is not None
        and t1.reviewed.verdict == "changes"
    )
    assert t2.blocked_by == ("t1",) and t2.source is None  # --source is gone: source is never an input
    assert p1.refs == ("a", "b") and p1.goal == "Ship it\n" and p1.approved is not None


def test_by_and_since_options(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, isolated_env: object
) -> None:
    monkeypatch.setenv("PLANWATCH_SESSION", "sess-42")
    cli(capsys, "task", "add", "--title", "One")
    owner = Store(isolated_env.store).read_task("t1")  # type: ignore[attr-defined]
    assert owner is not None and owner.created is not None and owner.created.in_ == "sess-42"
    assert cli(capsys, "task", "list", "--by", owner.created.by)[1] == ["t1 todo medium One"]
    assert cli(capsys, "task", "list", "--since", "2999-01-01")[1] == []


def test_a_refusal_prints_on_stderr_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys, "task", "set", "t1", "--status", "doing")
    assert (code, out) == (2, [])
    # On the command line a refusal names the command, not the tool.
    assert (
        err.strip()
        == "Invalid planwatch task set input: task must match the id of a known task (see planwatch task list)."
    )
    cli(capsys, "task", "add", "--title", "x")
    code, out, err = cli(capsys, "task", "set", "t1", "--status", "started")
    assert (code, out) == (2, [])
    assert (
        err.strip()
        == "Invalid planwatch task set input: status must be todo, doing, blocked, review, done, or dropped."
    )
    code, _, err = cli(capsys, "task", "add", "--title", "y", "--plan", "p3")
    assert (
        code == 2
        and err.strip()
        == "Invalid planwatch task add input: plan must match the id of a known plan (see planwatch plan list)."
    )


def test_store_option_picks_the_folder(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, copy_fixture: object
) -> None:
    demo = copy_fixture("store/demo")  # type: ignore[operator]
    code, out, _ = cli(capsys, "task", "list", "--store", str(demo), "--status", "doing")
    assert code == 0 and out == ["t2 doing high Add a rate-limit panel to the API dashboard"]
    code, out, _ = cli(capsys, "plan", "list", "--store", str(demo), "--scope", "session")
    assert out == ["p3 active The settings page flickers on load in Safari. Find the cause and fix it."]
    code, out, _ = cli(capsys, "task", "list", "--store", str(demo), "--ready")
    assert out == [
        "t4 todo medium Alert when webhook retries pile up",
        "t7 todo low Record the five-minute demo screencast",
        "t11 todo medium Add a visual regression test",
        "t12 todo medium Read the api repository each night",
    ]


def test_sweep_runs_one_pass(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(capsys, "sweep")[1] == ["sweepAfterDays is not set: the store keeps everything."]
    cli(capsys, "plan", "create", "--title", "Old")
    cli(capsys, "plan", "set", "p1", "--status", "done")
    cli(capsys, "task", "add", "--title", "Old task", "--plan", "p1")
    assert cli(capsys, "sweep", "--after-days", "1")[1] == ["nothing to sweep"]
    assert cli(capsys, "sweep", "--after-days", "0")[1] == ["removed plans p1 and tasks t1"]


def test_the_installed_command_runs_as_a_real_process(tmp_path: Path) -> None:
    env = {
        "PLANWATCH_STORE": str(tmp_path / "s"),
        "PLANWATCH_CONFIG": str(tmp_path / "c.yaml"),
        "PATH": "/usr/bin:/bin",
    }
    run = [sys.executable, "-m", "planwatch.tui.cli"]
    added = subprocess.run(
        [*run, "task", "add", "--title", "From a script", "--body", "-"],
        input="Body from stdin\n",
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (added.returncode, added.stdout) == (0, "t1 todo medium From a script\n"), added.stderr
    assert (tmp_path / "s" / "tasks" / "t1.md").read_text().endswith("---\nBody from stdin\n")
    refused = subprocess.run(
        [*run, "task", "review", "t1", "--verdict", "lgtm"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert refused.returncode == 2 and refused.stdout == ""
    assert refused.stderr == "Invalid planwatch task review input: verdict must be approved or changes.\n"


KILLED_WRITER = r"""
import os, signal, sys
from pathlib import Path
from planwatch.core.atomic import write_temp
write_temp(Path(sys.argv[1]), "t1.md", "---\nid: t1\n---\nhalf a wri")
os.kill(os.getpid(), signal.SIGKILL)  # killed mid-write: the temp file stays behind
"""


def test_the_cli_sweep_tidies_killed_writers_temp_files_without_sweep_after_days(
    capsys: pytest.CaptureFixture[str], isolated_env: object
) -> None:
    cli(capsys, "task", "add", "--title", "Kept")
    tasks = Path(isolated_env.store) / "tasks"  # type: ignore[attr-defined]
    killed = subprocess.run([sys.executable, "-c", KILLED_WRITER, str(tasks)], cwd=ROOT, timeout=60)
    assert killed.returncode == -9
    left = [n for n in os.listdir(tasks) if n.endswith(".tmp")]
    assert len(left) == 1
    assert cli(capsys, "sweep")[1] == [
        "removed 1 temp file left by writers that stopped mid-write",
        "sweepAfterDays is not set: the store keeps everything.",
    ]
    assert sorted(os.listdir(tasks)) == [".ids", "t1.md"]  # the record and the id mark
