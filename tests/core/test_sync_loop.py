"""Background sync: a write on one host reaches another host's store with no command
run there; one loop per host."""

from __future__ import annotations

import time
from pathlib import Path

from planwatch.core.store.store import Store
from planwatch.core.sync.loop import SyncLoop
from tests.sync_hosts import Host, bare_remote


def wait_for(check, timeout: float = 60.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "the state never came"
        time.sleep(0.05)


def test_a_write_on_one_host_reaches_the_other_hosts_store_through_the_background_loops(tmp_path: Path) -> None:
    remote = bare_remote(tmp_path / "remote.git")
    a, b = Host(tmp_path / "a", "a"), Host(tmp_path / "b", "b")
    a.ok("sync", "init", str(remote), "--host", "a")
    b.ok("sync", "join", str(remote), "--host", "b")
    loops = [SyncLoop(Store(h.store), debounce=0.3, poll=0.5, tick=0.1) for h in (a, b)]
    for loop in loops:
        loop.start()
    try:
        started = time.monotonic()
        tid = a.ok("task", "add", "Written on a").split()[0]
        wait_for(lambda: (b.store / "tasks" / f"{tid}.md").exists())
        elapsed = time.monotonic() - started
        wait_for(lambda: loops[1].last is not None)
        assert "Written on a" in b.task_text(tid)
        print(f"\nwrite on a → b's store through the loops: {elapsed:.2f} s (debounce 0.3 s, poll 0.5 s)")
        assert loops[1].last is not None and loops[1].last.reached and not loops[1].offline
    finally:
        for loop in loops:
            loop.stop()


def test_only_one_loop_per_host_runs(tmp_path: Path) -> None:
    remote = bare_remote(tmp_path / "remote.git")
    a = Host(tmp_path / "a", "a")
    a.ok("sync", "init", str(remote), "--host", "a")
    first = SyncLoop(Store(a.store), debounce=0.1, poll=0.2, tick=0.05)
    second = SyncLoop(Store(a.store), debounce=0.1, poll=0.2, tick=0.05)
    first.start()
    try:
        wait_for(lambda: first._lock_fd is not None)
        second.start()
        a.ok("task", "add", "One write")
        first.pass_done.clear()
        wait_for(first.pass_done.is_set)
        assert second._lock_fd is None and second.passes == 0
    finally:
        second.stop()
        first.stop()


def test_a_store_that_is_not_shared_starts_no_loop(tmp_path: Path) -> None:
    loop = SyncLoop(Store(tmp_path / "store"))
    loop.start()
    assert loop._thread is None
    loop.stop()


def test_the_plan_channel_on_another_host_sends_a_remote_change_as_an_action(tmp_path: Path) -> None:
    import subprocess
    import sys

    from tests.sync_hosts import ROOT

    remote = bare_remote(tmp_path / "remote.git")
    a, b = Host(tmp_path / "a", "a"), Host(tmp_path / "b", "b")
    a.ok("plan", "create", "Release", "--scope", "folder:/srv")
    a.ok("sync", "init", str(remote), "--host", "a")
    b.ok("sync", "join", str(remote), "--host", "b", "--poll", "0.5")
    feed = subprocess.Popen(
        [sys.executable, "-m", "planwatch.tui.cli", "channel", "x-ahpd-plans://p1"],
        cwd=ROOT,
        env=b.env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert feed.stdout is not None
        first = feed.stdout.readline()  # the state: the feed (and its loop) is running
        assert "Release" in first
        a.ok("task", "add", "Arrives from a", "--plan", "p1")
        a.ok("sync")
        while True:
            line = feed.stdout.readline()
            assert line, "the feed ended before the remote change arrived"
            if "Arrives from a" in line:
                break
    finally:
        feed.terminate()
        feed.communicate(timeout=30)
