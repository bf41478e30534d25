"""`planwatch sessions` from the warm-start cache's summaries: a start after the
first re-reads only the lines that carry each unchanged file's facts and takes its plan
counts from the cache, and prints byte for byte what the cold run printed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from waiting import caches_written

from planwatch.core import listing
from planwatch.core.transcripts import warmcache

ROOT = Path(__file__).resolve().parents[2]
TRANSCRIPTS = ROOT / "fixtures" / "transcripts"
# Every harness the cache covers by lines (OpenCode's database keeps its own state),
# and the rules' and hostile transcripts of each.
ROOTS = ["acp", "claude", "codex", "gemini", "qwen", "pi", "rules", "hostile"]


def sessions(*args: str) -> subprocess.CompletedProcess[bytes]:
    done = subprocess.run(
        [sys.executable, "-m", "planwatch.tui.cli", "sessions", *args],
        cwd=ROOT,
        env=os.environ.copy(),
        capture_output=True,
        timeout=120,
    )
    caches_written()  # written after the answer, by a process of its own
    return done


@pytest.mark.parametrize("name", ROOTS)
def test_sessions_from_summaries_print_what_the_cold_run_printed(name: str) -> None:
    root = str(TRANSCRIPTS / name)
    cold = sessions("--json", "--root", root)
    assert cold.returncode == 0, cold.stderr
    assert warmcache.cache_file().is_file()
    written = warmcache.cache_file().stat().st_mtime_ns
    rows = json.loads(warmcache.cache_file().read_bytes())["files"].values()
    assert rows and all(row[9] is not None for row in rows if row[7])  # lines read: a summary
    # The listing the cold run kept is let go: the warm-start cache's summaries answer.
    listing.snapshot_file().unlink(missing_ok=True)  # none when a problem was said
    warm = sessions("--json", "--root", root)
    assert warm.returncode == 0, warm.stderr
    assert warm.stdout == cold.stdout
    assert warmcache.cache_file().stat().st_mtime_ns == written  # every file was "same"
