"""The command line keeps the habits of the tools people love —
`--version`, `--json` on every list, errors for what does not exist, refusals that
name the command to run, and a For scripts example (docs/store.md) that works as written. Every test runs
`planwatch` as a real process in the test's isolated environment.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
from importlib.metadata import version
from pathlib import Path

import pytest
from cli_run import planwatch
from conftest import IsolatedEnv

ROOT = Path(__file__).resolve().parents[2]
SESSION = "9d1e7c54-3b2a-4f6e-8c1d-7a9b0e2f4c6d"  # fixtures/transcripts/claude/projects/-home-dev-api


@pytest.fixture
def transcripts(isolated_env: IsolatedEnv) -> Path:
    """The fixture Claude transcripts where Claude Code keeps them."""
    dest = isolated_env.claude / "projects"
    shutil.copytree(ROOT / "fixtures" / "transcripts" / "claude" / "projects", dest)
    return dest


def test_version_prints_the_installed_version() -> None:
    out = planwatch("--version")
    assert (out.returncode, out.stdout, out.stderr) == (0, f"planwatch {version('planwatch')}\n", "")


def test_task_list_plan_list_and_plan_show_take_json(isolated_env: IsolatedEnv) -> None:
    planwatch("plan", "create", "Ship v2", "--scope", "folder:/srv/work", "--goal", "All of it")
    planwatch("task", "add", "Write the parser", "--plan", "p1", "--labels", "io", "--priority", "high")
    planwatch("task", "add", "Loose end")
    tasks = json.loads(planwatch("task", "list", "--json").stdout)
    assert [(t["id"], t["title"], t["status"], t["priority"]) for t in tasks] == [
        ("t1", "Write the parser", "todo", "high"),
        ("t2", "Loose end", "todo", "medium"),
    ]
    # The fields as the record file has them, in its order, stamps included, then the body.
    assert list(tasks[0]) == [
        "id",
        "title",
        "status",
        "priority",
        "labels",
        "plan",
        "blockedBy",
        "refs",
        "created",
        "body",
    ]
    assert tasks[0]["labels"] == ["io"] and tasks[0]["body"] == ""
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", tasks[0]["created"]["at"])
    assert json.loads(planwatch("task", "list", "--json", "--status", "done").stdout) == []
    plans = json.loads(planwatch("plan", "list", "--json").stdout)
    assert [(p["id"], p["title"], p["status"], p["scope"], p["goal"]) for p in plans] == [
        ("p1", "Ship v2", "draft", {"kind": "folder", "folder": "/srv/work"}, "All of it\n")
    ]
    shown = json.loads(planwatch("plan", "show", "p1", "--json").stdout)
    assert set(shown) == {"plan", "tasks"} and shown["plan"] == plans[0]
    assert [t["id"] for t in shown["tasks"]] == ["t1"] and shown["tasks"][0] == tasks[0]
    # The same shape the plan channel answers with.
    channel = json.loads(planwatch("channel", "x-ahpd-plans://p1", "--once").stdout)
    assert channel == shown


def test_todo_of_an_unknown_session_is_an_error(transcripts: Path) -> None:
    out = planwatch("todo", "no-such-session")
    assert out.returncode != 0 and out.stdout == ""
    assert out.stderr == (
        "planwatch: no session no-such-session: no plan or task names it and no transcript holds it (see planwatch sessions)\n"
    )
    assert planwatch("todo", "no-such-session", "--meta").returncode != 0
    # A session that exists but that no task names has no todo lines and no count.
    known = planwatch("todo", SESSION)
    assert (known.returncode, known.stdout, known.stderr) == (0, "", "")
    assert planwatch("todo", SESSION, "--meta").stdout == "{}\n"
    # A session only the store knows (a translated or agent-made task names it) is known.
    planwatch("task", "add", "Remote step", "--session", "ses-remote")
    assert planwatch("todo", "ses-remote").stdout == "- [ ] Remote step\n"


def test_todo_takes_a_unique_start_of_a_session_id_as_show_does(transcripts: Path) -> None:
    planwatch("task", "add", "Check the API", "--session", SESSION)
    for target in (SESSION[:8], SESSION[:3]):
        out = planwatch("todo", target)
        assert (out.returncode, out.stdout, out.stderr) == (0, "- [ ] Check the API\n", ""), target
    assert planwatch("todo", SESSION[:8], "--meta").stdout == '{"ahpd.tasks": {"open": 1}}\n'
    # A start only a transcript's session has: the same session, no task yet.
    other = next(
        p.stem for p in transcripts.rglob("*.jsonl") if not p.stem.startswith(SESSION[0]) and "subagents" not in p.parts
    )
    alone = planwatch("todo", other[:10])
    assert (alone.returncode, alone.stdout, alone.stderr) == (0, "", "")


def test_todo_refuses_a_start_that_several_sessions_share_naming_them(transcripts: Path) -> None:
    planwatch("task", "add", "One", "--session", "ses-alpha-1")
    planwatch("task", "add", "Two", "--session", "ses-alpha-2")
    out = planwatch("todo", "ses-alpha")
    assert (out.returncode, out.stdout) == (1, "")
    assert out.stderr == ("planwatch: ses-alpha begins 2 session ids (ses-alpha-1, ses-alpha-2): give more of the id\n")
    assert planwatch("todo", "ses-alpha-2").stdout == "- [ ] Two\n"


def test_todo_of_a_session_only_a_plans_scope_names_is_that_session_with_no_tasks(isolated_env: IsolatedEnv) -> None:
    made = planwatch("plan", "create", "Three's plan", "--scope", "session:three")
    assert made.returncode == 0, made.stderr
    out = planwatch("todo", "three")
    assert (out.returncode, out.stdout, out.stderr) == (0, "", "")
    assert planwatch("todo", "three", "--meta").stdout == "{}\n"
    planwatch("task", "add", "First of three", "--plan", "p1")
    assert planwatch("todo", "thr").stdout == "- [ ] First of three\n"


def test_sessions_prints_each_id_first_for_show_and_todo(transcripts: Path) -> None:
    out = planwatch("sessions")
    assert out.returncode == 0, out.stderr
    listed = json.loads(planwatch("sessions", "--json").stdout)
    firsts = [line.split(" ", 1)[0] for line in out.stdout.splitlines()]
    assert firsts == [row["id"] for row in listed]
    assert SESSION in firsts
    # What a script cuts off the first column, `show` and `todo` take.
    cut = subprocess.run(["cut", "-d", " ", "-f1"], input=out.stdout, capture_output=True, text=True, check=True)
    for session_id in cut.stdout.split():
        assert planwatch("show", "--plain", session_id).returncode == 0, session_id
    assert planwatch("todo", firsts[0]).returncode == 0


def test_sessions_with_a_missing_root_is_an_error(isolated_env: IsolatedEnv) -> None:
    missing = isolated_env.root / "no-such-folder"
    out = planwatch("sessions", "--root", str(missing))
    assert (out.returncode, out.stdout) == (2, "")
    assert out.stderr == f"planwatch: --root {missing}: no such file or folder\n"
    assert planwatch("sessions", "--json", "--root", str(missing)).returncode == 2
    assert planwatch("show", SESSION, "--root", str(missing)).returncode == 2


def test_a_fifo_as_a_transcript_folder_is_named_and_never_opened(isolated_env: IsolatedEnv, transcripts: Path) -> None:
    """A FIFO given as `--root` is refused like a missing one; one named in the settings'
    `transcriptRoots` is skipped with a sentence naming it, and the other sessions are
    listed. Neither is opened (opening a FIFO with no writer would block for ever)."""
    fifo = isolated_env.root / "pipe"
    os.mkfifo(fifo)
    out = planwatch("sessions", "--root", str(fifo))
    assert (out.returncode, out.stdout) == (2, "")
    assert (
        out.stderr
        == f"planwatch: --root {fifo}: is a FIFO, not a folder or a transcript file; nothing is read from it\n"
    )
    isolated_env.config.write_text(f"transcriptRoots:\n  - {fifo}\n")
    listed = planwatch("sessions", "--json")
    assert listed.returncode == 0 and json.loads(listed.stdout)  # the other sessions
    assert f"planwatch: skipped {fifo}: is a FIFO, not a folder or a transcript file" in listed.stderr


def test_a_name_too_long_or_a_loop_is_said_never_raised(isolated_env: IsolatedEnv, transcripts: Path) -> None:
    """A name longer than any the system can look up (a mistyped id, a pasted line), as
    `show`'s argument, `--root` or a settings root, and a symbolic link that loops: each
    is said in a sentence (the name shortened) and the rest works; none is "a bug"."""
    long_name = "a" * 300
    shown = planwatch("show", long_name)  # it may start an id: looked for as one
    assert (shown.returncode, shown.stderr) == (1, f"planwatch: no session or file {'a' * 79}…\n")
    assert planwatch("show", "a/" * 2100).returncode == 1
    root = planwatch("sessions", "--root", long_name)
    assert (root.returncode, root.stdout) == (2, "")
    assert root.stderr.startswith("planwatch: --root aaa") and root.stderr.endswith(
        "…: cannot be looked at (File name too long); nothing is read from it\n"
    )
    isolated_env.config.write_text(f"transcriptRoots:\n  - /tmp/{long_name}\n")
    listed = planwatch("sessions", "--json")
    assert listed.returncode == 0 and json.loads(listed.stdout), listed.stderr  # the other sessions
    assert "cannot be looked at (File name too long); nothing is read from it" in listed.stderr
    assert "a bug" not in listed.stderr + root.stderr + shown.stderr
    loop = isolated_env.root / "loop"
    loop.symlink_to(isolated_env.root / "loop")
    looped = planwatch("show", str(loop))
    assert (looped.returncode, looped.stderr) == (
        1,
        f"planwatch: {loop}: cannot be looked at (Too many levels of symbolic links)\n",
    )


def test_show_of_a_folder_says_it_is_a_folder_not_a_transcript(transcripts: Path) -> None:
    folder = transcripts / "-home-dev-api"
    out = planwatch("show", str(folder))
    assert (out.returncode, out.stdout) == (1, "")
    assert out.stderr == (
        f"planwatch: {folder} is a folder, not a transcript: give a transcript file or a session id "
        f"(planwatch sessions --root {folder} lists the sessions in it)\n"
    )
    # What it suggests works.
    listed = planwatch("sessions", "--root", str(folder))
    assert listed.returncode == 0 and "Billing webhook retries" in listed.stdout


def test_refusals_on_the_command_line_name_the_command_not_the_tool(isolated_env: IsolatedEnv) -> None:
    out = planwatch("task", "add", "Orphan", "--plan", "p9")
    assert (
        out.stderr
        == "Invalid planwatch task add input: plan must match the id of a known plan (see planwatch plan list).\n"
    )
    out = planwatch("plan", "approve", "p3")
    assert (
        out.stderr
        == "Invalid planwatch plan approve input: plan must match the id of a known plan (see planwatch plan list).\n"
    )
    planwatch("task", "add", "Careful")
    isolated_env.config.write_text("requireApproval: true\n")
    out = planwatch("task", "set", "t1", "--status", "doing")
    assert out.stderr == (
        "Invalid planwatch task set input: status doing needs t1 approved first "
        "(requireApproval is on; see planwatch task approve).\n"
    )
    assert "_" not in out.stderr.replace("input", "")


def _scripts_example() -> list[tuple[str, str | None]]:
    """The store example of docs/store.md, For scripts: (command, the answer its `# →`
    comment promises)."""
    page = (ROOT / "docs" / "store.md").read_text()
    section = page.split("## For scripts", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```sh\n(.*?)```", section, re.S)
    store_block = next(b for b in blocks if "plan create" in b)
    steps = []
    for line in store_block.splitlines():
        command, _, comment = line.partition("  #")
        answer = comment.strip()[1:].strip() if comment.strip().startswith("→") else None
        steps.append((command.strip(), answer))
    return steps


def test_the_for_scripts_example_works_in_order_on_a_fresh_store(transcripts: Path, isolated_env: IsolatedEnv) -> None:
    steps = _scripts_example()
    assert len(steps) >= 8 and steps[0][0].startswith("planwatch plan create")
    assert not isolated_env.store.exists()  # a fresh store
    for command, answer in steps:
        argv = shlex.split(command.replace('"$SESSION"', SESSION))
        assert argv[0] == "planwatch"
        out = planwatch(*argv[1:])
        assert out.returncode == 0, (command, out.stderr)
        assert out.stderr == "", (command, out.stderr)
        if answer is not None:
            assert out.stdout == answer + "\n", command
        elif "--json" in argv or "--once" in argv:
            json.loads(out.stdout)
    # The session block works too.
    sessions = json.loads(planwatch("sessions", "--json").stdout)
    assert SESSION in {s["id"] for s in sessions}
    shown = planwatch("show", SESSION, "--plain")
    assert shown.returncode == 0 and shown.stdout.startswith("# ")
