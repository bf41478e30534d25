"""Background sync: a write on one host reaches another host's store with no command
run there; one loop per host."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from planwatch.core.store.store import Store
from planwatch.core.sync.loop import SyncLoop
from tests.sync_hosts import Host, bare_remote


def wait_for(check, timeout: float = 60.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "the state never came"
        time.sleep(0.05)


def host_whose_remote_hangs(tmp_path: Path) -> tuple[Host, Path]:
    """A host of a shared store whose remote is reached through an ssh that never answers
    (it records its pid and its child's in the file returned): every network step hangs."""
    import json

    from tests.core.test_sync_git_groups import SLOW_SSH

    remote = bare_remote(tmp_path / "remote.git")
    a = Host(tmp_path / "a", "a")
    a.ok("sync", "init", str(remote), "--host", "a")
    config = a.store / ".sync" / "config.json"
    config.write_text(json.dumps({**json.loads(config.read_text()), "remote": "ssh://team.invalid/store.git"}))
    script, record = tmp_path / "slow-ssh", tmp_path / "pids"
    script.write_text(SLOW_SSH)
    script.chmod(0o755)
    a.env_extra.update({"GIT_SSH_COMMAND": str(script), "PW_PIDS": str(record)})
    return a, record


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

    remote = bare_remote(tmp_path / "remote.git")
    a, b = Host(tmp_path / "a", "a"), Host(tmp_path / "b", "b")
    a.ok("plan", "create", "Release", "--scope", "folder:/srv")
    a.ok("sync", "init", str(remote), "--host", "a")
    b.ok("sync", "join", str(remote), "--host", "b", "--poll", "0.5")
    feed = b.started("channel", "x-ahpd-plans://p1")
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


def test_planwatch_mcp_syncs_in_the_background_and_a_tool_call_never_waits_on_the_network(tmp_path: Path) -> None:
    """The real `planwatch mcp` on a shared store whose remote never answers (an ssh that
    hangs): its loop's poll is in git, and a tool call is answered while it still is;
    when the server's input closes, the poll's ssh ends with it."""
    import json
    import os
    import subprocess
    import sys

    from tests.core.test_sync_git_groups import alive, pids
    from tests.sync_hosts import ROOT

    a, record = host_whose_remote_hangs(tmp_path)
    proc = subprocess.Popen(
        [sys.executable, "-m", "planwatch.tui.cli", "mcp"],
        cwd=ROOT,
        env=a.env(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        wait_for(lambda: len(pids(record)) == 2)  # the loop's first poll: git is talking to the remote
        hanging = pids(record)
        init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
        lines = [
            {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": "task_add", "arguments": {"title": "Added while the remote hangs"}},
            },
        ]
        proc.stdin.write("".join(json.dumps(line) + "\n" for line in lines).encode())
        proc.stdin.flush()
        answers = [json.loads(proc.stdout.readline()) for _ in range(2)]
        assert answers[1]["id"] == 1 and not answers[1]["result"].get("isError"), answers[1]
        assert "t1 todo medium Added while the remote hangs" in answers[1]["result"]["content"][0]["text"]
        assert all(alive(p) for p in hanging), "the call was answered only after the network step ended"
        proc.stdin.close()  # the client leaves: the server exits mid-poll
        proc.wait(timeout=60)
        wait_for(lambda: not any(alive(p) for p in hanging))
    finally:
        if proc.poll() is None:
            proc.kill()
        for pid in pids(record):
            try:
                os.kill(pid, 9)
            except OSError:
                pass


def test_stopping_a_loop_whose_remote_hangs_ends_its_thread_and_its_ssh_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`stop()` while the loop's poll waits on a remote that never answers: the thread ends
    well within the network step's timeout, its ssh with it, and no step starts after."""
    import os

    from tests.core.test_sync_git_groups import alive, pids

    a, record = host_whose_remote_hangs(tmp_path)
    for name, value in a.env_extra.items():  # the loop runs in this process
        monkeypatch.setenv(name, value)
    loop = SyncLoop(Store(a.store), debounce=0.1, poll=0.2, tick=0.05)
    loop.start()
    thread = loop._thread
    assert thread is not None
    try:
        wait_for(lambda: len(pids(record)) == 2)  # the first poll is in git, waiting on ssh
        hanging = pids(record)
        loop.stop(timeout=25)  # the network step's own timeout is 30 s
        assert not thread.is_alive(), "stop returned with the loop's thread still waiting"
        wait_for(lambda: not any(alive(p) for p in hanging))
        assert pids(record) == hanging, "a network step began after the stop"
    finally:
        loop.stop()
        for pid in pids(record):
            try:
                os.kill(pid, 9)
            except OSError:
                pass
