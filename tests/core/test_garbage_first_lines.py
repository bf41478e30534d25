"""docs/reading.md, Bounded reading: a transcript in its harness's own folder is read past lines that
are not records (garbage, a truncated write, another tool's output) wherever they are,
the first lines too: a Claude Code session in its projects folder and an ACP log in the
ACP log folder, each opened by thirty bad lines, are listed with their titles, `show`
says how many lines were skipped (on a cold read and from the warm-start cache), and a
transcript opened by bad lines outside its harness's folder is still told by its
records."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from cli_run import planwatch
from conftest import IsolatedEnv

ROOT = Path(__file__).resolve().parents[2]
CLAUDE = ROOT / "fixtures/transcripts/claude/projects/-home-dev-docs/7a3e9b1c-5d2f-4a8e-b6c0-1e9d4f7a2b58.jsonl"
ACP = ROOT / "fixtures/transcripts/acp/claude-code-acp-mobile.jsonl"
GARBAGE = b"".join(b"garbage %d {{{ not a record\n" % n for n in range(30))


def _cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return planwatch(*args, env=env, stdin=subprocess.DEVNULL)


def _place(isolated_env: IsolatedEnv) -> tuple[Path, Path]:
    claude = isolated_env.claude / "projects" / "-home-dev-docs" / CLAUDE.name
    claude.parent.mkdir(parents=True)
    claude.write_bytes(GARBAGE + CLAUDE.read_bytes())
    isolated_env.acp_logs.mkdir(parents=True, exist_ok=True)
    acp = isolated_env.acp_logs / ACP.name
    acp.write_bytes(GARBAGE + ACP.read_bytes())
    return claude, acp


def test_bad_first_lines_are_read_past_in_the_harnesses_own_folders(isolated_env: IsolatedEnv) -> None:
    claude, acp = _place(isolated_env)
    env = {**os.environ, "PLANWATCH_CACHE": str(isolated_env.root / "cache")}
    done = _cli("sessions", "--json", env=env)
    assert done.returncode == 0, done.stderr
    listed = {row["path"]: row for row in json.loads(done.stdout)}
    assert listed[str(claude)]["title"] == "Fix the broken links in the getting-started guide."
    assert listed[str(acp)]["title"] == "The iOS build fails after the Xcode 17 update. Get it green again."
    assert listed[str(acp)]["total"] > 0  # its plan too, read past the garbage


def test_the_bad_first_lines_read_past_are_counted_and_reported(isolated_env: IsolatedEnv) -> None:
    claude, acp = _place(isolated_env)
    cache = isolated_env.root / "cache"
    env = {**os.environ, "PLANWATCH_CACHE": str(cache)}
    for run in ("cold", "warm"):
        for target in (str(claude), str(acp), "7a3e9b1c", "sess_7f3a9c2e41b8"):
            shown = _cli("show", target, env=env)
            assert shown.returncode == 0, (run, target, shown.stderr)
            assert "  30 unreadable line(s) skipped\n" in shown.stdout, (run, target, shown.stdout)
        assert (cache / "warm-start.json").is_file()  # the second round reads through it


def test_a_transcript_opened_by_bad_lines_is_told_by_its_records_anywhere(isolated_env: IsolatedEnv) -> None:
    elsewhere = isolated_env.root / "elsewhere"
    elsewhere.mkdir()
    log = elsewhere / "mobile.jsonl"
    log.write_bytes(GARBAGE + ACP.read_bytes())
    shown = _cli("show", str(log), env={**os.environ, "PLANWATCH_CACHE": str(isolated_env.root / "cache")})
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith("The iOS build fails after the Xcode 17 update. Get it green again.\n")
    assert "ACP plan 2/4" in shown.stdout
    assert "  30 unreadable line(s) skipped\n" in shown.stdout
