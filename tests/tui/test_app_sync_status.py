"""The app's status line says how a shared store's background sync stands: when it last
synced, or that it is offline (docs/sync.md, In the background). The loop runs on its own
thread in the real app and posts what it found; a real bare remote, moved away and back."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from app_transcripts import until

from planwatch.tui.app import make_app
from planwatch.tui.app_options import AppOptions
from tests.sync_hosts import Host, bare_remote, host_app, open_store_view

pytestmark = pytest.mark.asyncio


async def test_the_status_line_says_when_the_store_last_synced_and_that_it_is_offline(isolated_env) -> None:
    root: Path = isolated_env.root
    remote = bare_remote(root / "remote.git")
    host = Host(root / "host", "a")
    host.ok("task", "add", "Shared from the start")
    host.ok("sync", "init", str(remote), "--host", "a", "--poll", "0.2")
    app = host_app(host, isolated_env.state, follow=True)

    def line() -> str:
        return str(app.screen.query_one("#status-line").render())

    seen: list[object] = []
    async with app.run_test(size=(120, 36)) as pilot:
        # Immediate: a status is in `seen` as it is published (not when the screen's queue
        # next runs), so the last one seen is the one the service holds.
        app.store_service.sync_changed.subscribe(app.screen, seen.append, immediate=True)
        await until(pilot, lambda: "⇅ synced " in line(), what="the last sync (from the pass sync init made)")
        remote.rename(root / "away.git")
        host.ok("task", "add", "Written while the remote is away")
        await until(pilot, lambda: "⇅ sync offline since " in line(), timeout=60, what="the loop's offline pass")
        assert "last synced " in line() and "changes kept for the next sync" in line()
        status = app.store_service.sync_status
        assert status is not None and not status.reached and status.synced_at is not None
        (root / "away.git").rename(remote)
        await until(pilot, lambda: "⇅ synced " in line(), timeout=60, what="the pass once the remote is back")
        status = app.store_service.sync_status
        assert status.reached and "pushed" in status.line
        assert any(not s.reached for s in seen) and seen[-1].reached  # through the app's signal
    log = subprocess.run(
        ["git", "--git-dir", str(remote), "show", "refs/planwatch/log/a:ops.jsonl"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "Written while the remote is away" in log  # the pass that said synced sent it


async def test_a_store_that_is_not_shared_says_nothing_of_sync(isolated_env) -> None:
    empty = isolated_env.root / "no-transcripts"
    empty.mkdir()
    app = make_app(
        AppOptions(roots=[empty], store_root=isolated_env.store, config_path=isolated_env.config, follow=True)
    )
    async with app.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: app.scan_done is not None, what="the scan")
        await until(pilot, lambda: app.store_service._sweeper is not None, what="the store service started")
        assert app.store_service.syncer._thread is None
        assert "sync" not in str(app.screen.query_one("#status-line").render())


async def test_a_write_on_another_host_reaches_this_hosts_app(isolated_env) -> None:
    """A task added on host b and synced by b's command shows in the store view of the app
    on host a with nothing run on a: a's background loop sees the remote move, its pass
    writes the record, the store watcher tells the app. How long it took is printed (the
    figure docs/sync.md quotes), not asserted."""
    import time

    root: Path = isolated_env.root
    remote = bare_remote(root / "remote.git")
    a, b = Host(root / "a", "a"), Host(root / "b", "b")
    a.ok("task", "add", "Already shared")
    a.ok("sync", "init", str(remote), "--host", "a", "--poll", "0.5")
    b.ok("sync", "join", str(remote), "--host", "b")
    app = host_app(a, isolated_env.state, follow=True)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_store_view(pilot, app)
        started = time.monotonic()
        new = b.ok("task", "add", "Written on b").split()[0]
        b.ok("sync")
        await until(pilot, lambda: new in screen.snapshot.tasks, timeout=60, what="b's task in a's store view")
        elapsed = time.monotonic() - started
        assert screen.snapshot.tasks[new].title == "Written on b"
        print(f"\nwrite on b (add, sync: two processes) → a's app store view: {elapsed:.2f} s (a polls every 0.5 s)")
