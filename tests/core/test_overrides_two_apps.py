"""Two apps open at once (a tmux pane and a full window) share the person's overrides
file: a save by one never throws away an override the other saved meanwhile."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from planwatch.core.overrides import Overrides

ROOT = Path(__file__).resolve().parents[2]
MINE = "a" * 16
THEIRS = "b" * 16


def test_an_override_saved_by_another_app_meanwhile_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "overrides.json"
    mine = Overrides(path)
    # The other app: loads the file, then ticks its item when told to.
    script = (
        "import sys\n"
        "from planwatch.core.overrides import Overrides\n"
        f"other = Overrides({str(path)!r})\n"
        "print('loaded', flush=True)\n"
        "sys.stdin.readline()\n"
        f"other.set('s-1', {THEIRS!r}, 'completed')\n"
        "other.save()\n"
    )
    other = subprocess.Popen(
        [sys.executable, "-c", script], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert other.stdout is not None and other.stdin is not None
        assert other.stdout.readline().strip() == "loaded"
        mine.set("s-1", MINE, "completed")
        mine.save()
        other.stdin.write("go\n")
        other.stdin.flush()
        assert other.wait(timeout=60) == 0
    finally:
        if other.poll() is None:
            other.kill()
    assert Overrides(path).for_session("s-1") == {MINE: "completed", THEIRS: "completed"}
    # And this app's next save keeps the other's tick too.
    mine.set("s-1", MINE, None)
    mine.save()
    assert Overrides(path).for_session("s-1") == {THEIRS: "completed"}
