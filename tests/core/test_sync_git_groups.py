"""A network step of the sync never leaves git's transport running: git runs in a process
group of its own, ended whole when the step outlives its timeout and when the process
that started it exits mid-step (`planwatch mcp` closed during a poll). The remote is a
real git fetch over an `ssh` that is a script: it records its pid and a child's, and
never answers."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from planwatch.core.sync.git import Git, GitUnreachable
from tests.sync_hosts import ROOT
from tests.waiting import wait_until

SLOW_SSH = """#!/bin/sh
echo $$ >> "$PW_PIDS"
sleep 600 &
echo $! >> "$PW_PIDS"
wait
"""


def alive(pid: int) -> bool:
    """Running (a zombie, killed and waiting for a parent to reap it, is not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] not in ("Z", "X")


def pids(path: Path) -> list[int]:
    return [int(line) for line in path.read_text().split()] if path.exists() else []


@pytest.fixture
def slow_ssh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    script = tmp_path / "slow-ssh"
    script.write_text(SLOW_SSH)
    script.chmod(0o755)
    record = tmp_path / "pids"
    monkeypatch.setenv("GIT_SSH_COMMAND", str(script))  # a person's own: kept as it is
    monkeypatch.setenv("PW_PIDS", str(record))
    yield record
    for pid in pids(record):  # whatever a failing run left
        try:
            os.kill(pid, 9)
        except OSError:
            pass


def test_no_child_of_git_outlives_a_network_step_that_timed_out(tmp_path: Path, slow_ssh: Path) -> None:
    git = Git(tmp_path / "repo.git", network_timeout=10.0)
    git.init()
    with pytest.raises(GitUnreachable, match="took longer than 10 s"):
        git.fetch("ssh://team.invalid/store.git", "+refs/planwatch/*:refs/pwremote/*")
    started = pids(slow_ssh)
    assert len(started) == 2, "the slow ssh never started"
    wait_until(lambda: not any(alive(p) for p in started), "the ssh and its child ended")


def test_no_child_of_git_outlives_the_process_that_exits_mid_poll(tmp_path: Path, slow_ssh: Path) -> None:
    # a long-running process whose background poll is in ls-remote when it exits
    program = f"""
import sys, threading, time
from pathlib import Path
from planwatch.core.sync.git import Git
git = Git(Path({str(tmp_path / "repo.git")!r}))
git.init()
threading.Thread(target=git.ls_remote, args=("ssh://team.invalid/store.git", "refs/planwatch/*"), daemon=True).start()
deadline = time.monotonic() + 60
while len(Path({str(slow_ssh)!r}).read_text().split() if Path({str(slow_ssh)!r}).exists() else []) < 2:
    assert time.monotonic() < deadline, "the slow ssh never started"
    time.sleep(0.01)
sys.exit(0)
"""
    out = subprocess.run(
        [sys.executable, "-c", program], cwd=ROOT, env=os.environ.copy(), capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    started = pids(slow_ssh)
    assert len(started) == 2
    wait_until(lambda: not any(alive(p) for p in started), "the ssh and its child ended")


def test_a_network_step_begun_after_its_thread_was_stopped_is_refused_without_reaching_the_remote(
    tmp_path: Path, slow_ssh: Path
) -> None:
    """A stopped sync loop's thread may be between two network steps (a pass's fetch and
    its push): the step it begins after the stop ends at once, no ssh started, rather than
    hanging until its timeout past the stop."""
    import threading

    from planwatch.core.sync.git import kill_running, release

    git = Git(tmp_path / "repo.git", network_timeout=60.0)
    git.init()
    outcome: list[BaseException | None] = []

    def stopped_then_polls() -> None:
        kill_running(threading.get_ident())  # the loop was stopped between two steps
        try:
            git.ls_remote("ssh://team.invalid/store.git", "refs/planwatch/*")
        except GitUnreachable as exc:
            outcome.append(exc)
        else:
            outcome.append(None)
        finally:
            release(threading.get_ident())

    thread = threading.Thread(target=stopped_then_polls)
    thread.start()
    thread.join(120)
    assert not thread.is_alive(), "the step waited for the network"
    assert isinstance(outcome[0], GitUnreachable) and "stopped" in str(outcome[0])
    assert pids(slow_ssh) == [], "an ssh was started for a step of a stopped thread"


def test_a_released_thread_reaches_the_remote_again(tmp_path: Path) -> None:
    """The refusal ends with `release`: a thread id is reused by later threads, and a
    later sync loop must reach its remote."""
    import threading

    from planwatch.core.sync.git import kill_running, release
    from tests.sync_hosts import bare_remote

    remote = bare_remote(tmp_path / "remote.git")
    git = Git(tmp_path / "repo.git")
    git.init()
    kill_running(threading.get_ident())
    with pytest.raises(GitUnreachable, match="stopped"):
        git.ls_remote(str(remote), "refs/planwatch/*")
    release(threading.get_ident())
    assert git.ls_remote(str(remote), "refs/planwatch/*") == {}
