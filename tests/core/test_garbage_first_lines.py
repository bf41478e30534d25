"""FORMATS general rules: a transcript in its harness's own folder is read past lines that
are not records (garbage, a truncated write, another tool's output) wherever they are,
the first lines too: a Claude Code session in its projects folder and an ACP log in the
ACP log folder, each opened by thirty bad lines, are listed with their titles."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import IsolatedEnv

ROOT = Path(__file__).resolve().parents[2]
CLAUDE = ROOT / "fixtures/transcripts/claude/projects/-home-dev-docs/7a3e9b1c-5d2f-4a8e-b6c0-1e9d4f7a2b58.jsonl"
ACP = ROOT / "fixtures/transcripts/acp/claude-code-acp-mobile.jsonl"
GARBAGE = b"".join(b"garbage %d {{{ not a record\n" % n for n in range(30))


def test_bad_first_lines_are_read_past_in_the_harnesses_own_folders(isolated_env: IsolatedEnv) -> None:
    claude = isolated_env.claude / "projects" / "-home-dev-docs" / CLAUDE.name
    claude.parent.mkdir(parents=True)
    claude.write_bytes(GARBAGE + CLAUDE.read_bytes())
    isolated_env.acp_logs.mkdir(parents=True, exist_ok=True)
    acp = isolated_env.acp_logs / ACP.name
    acp.write_bytes(GARBAGE + ACP.read_bytes())
    env = {**os.environ, "PLANWATCH_CACHE": str(isolated_env.root / "cache")}
    done = subprocess.run(
        [sys.executable, "-m", "planwatch.tui.cli", "sessions", "--json"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    listed = {row["path"]: row for row in json.loads(done.stdout)}
    assert listed[str(claude)]["title"] == "Fix the broken links in the getting-started guide."
    assert listed[str(acp)]["title"] == "The iOS build fails after the Xcode 17 update. Get it green again."
    assert listed[str(acp)]["total"] > 0  # its plan too, read past the garbage
