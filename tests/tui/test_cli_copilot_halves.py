"""A cold listing of many Copilot CLI folders shares them with a forked process
(core/transcripts/batch.py, `_copilot_halves`): the same output, the same problems said,
the same warm-start cache as a listing read in one process, and a fork that really ran."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from bench.bench_copilot import build

from planwatch.core import listing, paths
from planwatch.core.transcripts import warmcache

ROOT = Path(__file__).resolve().parents[2]

# `planwatch sessions --json ROOT` with the halves' threshold set (argv[1]); the forks
# made are counted on stderr's last line.
_LISTED = """
import json, os, sys
import planwatch.core.transcripts.batch as batch
batch.COPILOT_HALVES_MIN = int(sys.argv[1])
forks = []
real = os.fork
def fork():
    pid = real()
    if pid:
        forks.append(pid)
    return pid
os.fork = fork
from planwatch.tui.cli import main
main(["sessions", "--json", "--root", sys.argv[2]])
sys.stdout.flush()
print(json.dumps(len(forks)), file=sys.stderr)
"""


def listed(threshold: int, root: Path) -> tuple[str, str, int]:
    shutil.rmtree(paths.cache_dir(), ignore_errors=True)  # cold, each time
    out = subprocess.run(
        [sys.executable, "-c", _LISTED, str(threshold), str(root)],
        cwd=ROOT,
        env=os.environ.copy(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    *said, forks = out.stderr.strip().splitlines()
    return out.stdout, "\n".join(said), int(forks)


def cache_files() -> dict[str, object]:
    return json.loads(warmcache.cache_file().read_bytes())["files"]  # type: ignore[no-any-return]


def test_a_cold_listing_of_many_copilot_folders_read_on_two_processes_is_the_one_read_on_one(tmp_path: Path) -> None:
    state = tmp_path / "session-state"
    build(state, 150, 5)  # three chunks of folders: one for the forked process
    # Folders whose database is not SQLite (a problem to say), in both halves.
    broken = [folder / "session.db" for folder in sorted(state.iterdir())[::25]]
    for db in broken:
        db.write_bytes(b"not a database" * 100)
    one, said_one, forks_one = listed(10**9, state)
    keeps_one = cache_files(), listing.snapshot_file().exists()
    two, said_two, forks_two = listed(1, state)
    keeps_two = cache_files(), listing.snapshot_file().exists()
    assert forks_one == 0 and forks_two >= 1  # the halves ran, and only when asked
    assert two == one and said_two == said_one
    assert all(str(db) in said_one for db in broken)  # each problem is said, by both
    assert keeps_two == keeps_one  # the same warm-start cache; neither keeps the listing (a problem)
    rows = json.loads(one)
    assert len(rows) == 150 and {row["harness"] for row in rows} == {"copilot"}
    assert sum(row["total"] == 5 for row in rows) == 150 - len(broken)
