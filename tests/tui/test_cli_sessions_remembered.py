"""`planwatch sessions` answered from the remembered listing (core/listing.py): the
third listing of unchanged files prints byte for byte what the index printed, without
the index; a problem is said on every run (a listing reporting one is never kept); a
setting that changes the listing is obeyed at once."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_run import planwatch

from planwatch.core import listing

ROOT = Path(__file__).resolve().parents[2]
TRANSCRIPTS = ROOT / "fixtures" / "transcripts"

_LISTED = """
import json, sys
from planwatch.tui.cli import main
main(sys.argv[1:])
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""


def listed(*args: str) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """`planwatch ARGS`, and the modules the run loaded."""
    out = subprocess.run(
        [sys.executable, "-c", _LISTED, *args],
        cwd=ROOT,
        env=os.environ.copy(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    *said, modules = out.stderr.strip().splitlines()
    out.stderr = "\n".join(said)
    return out, set(json.loads(modules))


@pytest.mark.parametrize("form", [["--json"], []], ids=["json", "plain"])
@pytest.mark.parametrize("name", ["claude", "codex", "gemini", "qwen", "pi", "acp", "copilot"])
def test_a_remembered_listing_prints_what_the_index_printed(name: str, form: list[str], tmp_path: Path) -> None:
    root = tmp_path / name
    shutil.copytree(TRANSCRIPTS / name, root)
    args = ["sessions", *form, "--root", str(root)]
    runs = [listed(*args) for _ in range(3)]
    (cold, cold_modules), (warm, _), (again, modules) = runs
    assert cold.returncode == warm.returncode == again.returncode == 0, cold.stderr
    assert warm.stdout == cold.stdout and again.stdout == cold.stdout
    assert warm.stderr == cold.stderr == again.stderr == ""
    assert "planwatch.core.index" in cold_modules
    assert listing.snapshot_file().is_file()
    assert "planwatch.core.index" not in modules  # answered from the remembered listing


def test_a_listing_kept_after_the_answer_answers_the_next_listing_at_once(tmp_path: Path) -> None:
    """The command gives its answer and ends; a process of its own writes the caches
    after it (the listing kept, the warm-start cache) holding the caches' writing lock,
    and the next listing, started the moment the first has ended, waits for them: it is
    answered from the kept listing (without the index), the same."""
    from bench.corpus import write_jobs

    root = tmp_path / "claude"
    count = listing.FORK_ROWS + 50
    write_jobs(root, count)
    args = ["sessions", "--json", "--root", str(root)]
    cold = planwatch(*args, settled=False)  # not waited for: the next listing waits itself
    assert cold.returncode == 0, cold.stderr
    assert len(json.loads(cold.stdout)) == count
    warm, modules = listed(*args)  # at once
    assert listing.snapshot_file().is_file()
    assert warm.stdout == cold.stdout
    assert "planwatch.core.index" not in modules


def test_a_change_is_listed_at_once_after_a_remembered_listing(tmp_path: Path) -> None:
    root = tmp_path / "claude"
    shutil.copytree(TRANSCRIPTS / "claude", root)
    for _ in range(3):
        assert planwatch("sessions", "--json", "--root", str(root)).returncode == 0
    path = next(p for p in sorted(root.rglob("*.jsonl")) if "subagents" not in p.parts)
    before = json.loads(planwatch("sessions", "--json", "--root", str(root)).stdout)
    with path.open("ab") as fh:
        fh.write(
            b'{"type":"user","timestamp":"2099-01-01T00:00:00.000Z","sessionId":"x",'
            b'"message":{"role":"user","content":"later"}}\n'
        )
    after = json.loads(planwatch("sessions", "--json", "--root", str(root)).stdout)
    assert after != before
    shutil.rmtree(listing.snapshot_file().parent)
    assert json.loads(planwatch("sessions", "--json", "--root", str(root)).stdout) == after


def test_a_problem_is_said_on_every_listing(tmp_path: Path) -> None:
    """A Copilot CLI session whose database cannot be read: said each time (a listing
    reporting a problem is never kept, so never answered without saying it)."""
    state = tmp_path / "session-state"
    shutil.copytree(TRANSCRIPTS / "rules" / "copilot" / "session-state", state)
    runs = [planwatch("sessions", "--json", "--root", str(state)) for _ in range(3)]
    assert all(run.returncode == 0 for run in runs)
    assert runs[0].stderr and runs[0].stderr == runs[1].stderr == runs[2].stderr
    assert runs[0].stdout == runs[1].stdout == runs[2].stdout
    assert not listing.snapshot_file().exists()


def test_plans_turned_off_are_obeyed_at_once(tmp_path: Path, isolated_env) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "claude"
    shutil.copytree(TRANSCRIPTS / "claude", root)
    for _ in range(3):
        assert planwatch("sessions", "--json", "--root", str(root)).returncode == 0
    isolated_env.config.write_text("readAgentPlans: false\n")
    off = planwatch("sessions", "--json", "--root", str(root))
    assert off.returncode == 0
    assert "reading agents' plans is off" in off.stderr
    assert all(row["total"] == 0 for row in json.loads(off.stdout))


def test_a_writing_lock_held_past_its_bound_is_said_and_the_listing_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Another process holds the caches' writing lock (a writer stuck on a stalled disk,
    say): the listing waits its bound, says which file is locked, and lists all the same."""
    from planwatch.tui import cli_sessions
    from planwatch.tui.cli import main

    root = tmp_path / "claude"
    shutil.copytree(TRANSCRIPTS / "claude", root)
    lock = cli_sessions.writing_lock()
    lock.parent.mkdir(parents=True, exist_ok=True)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, os, sys; fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600);"
            " fcntl.flock(fd, fcntl.LOCK_EX); print('held', flush=True); sys.stdin.read()",
            str(lock),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        monkeypatch.setattr(cli_sessions, "WRITING_WAIT", 0.2)
        assert main(["sessions", "--json", "--root", str(root)]) == 0
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=60)
    out, err = capsys.readouterr()
    assert json.loads(out)  # listed all the same
    assert f"{lock} is still locked after 0.2 s" in err
