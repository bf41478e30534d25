"""`planwatch` run as a real subprocess (`python -m planwatch.tui.cli`), for the command
line's tests: from the repository's root, with this process's environment (the isolated
folders of conftest) plus `env`, less the variables named in `without`."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

from waiting import caches_written

ROOT = Path(__file__).resolve().parent.parent


def planwatch(
    *args: str,
    env: dict[str, str] | None = None,
    without: Iterable[str] = (),
    timeout: float = 60,
    stdin: int | None = None,
    settled: bool = True,
) -> subprocess.CompletedProcess[str]:
    """Run `planwatch ARGS` and return what it did (stdout and stderr as text), once
    the caches a listing writes after its answer are written (unless not `settled`)."""
    dropped = set(without)
    environ = {k: v for k, v in os.environ.items() if k not in dropped}
    done = subprocess.run(
        [sys.executable, "-m", "planwatch.tui.cli", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**environ, **(env or {})},
        timeout=timeout,
        stdin=stdin,
    )
    if settled:
        caches_written({**environ, **(env or {})})  # a listing's, written after its answer
    return done


def planwatch_as(*args: str, token: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run `planwatch ARGS` presenting `token` as PLANWATCH_TOKEN, or no token at all
    (never one this process was given)."""
    return planwatch(*args, env={"PLANWATCH_TOKEN": token} if token else None, without=["PLANWATCH_TOKEN"])
