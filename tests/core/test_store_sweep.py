"""docs/store.md, The sweep: a done or dropped plan and every task naming it go once the newest
stamp among them is older than sweepAfterDays; draft and active plans never go."""

from __future__ import annotations

import logging
import os
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from conftest import IsolatedEnv

from planwatch.core.settings import Settings
from planwatch.core.store.identity import Caller
from planwatch.core.store.store import Store
from planwatch.core.store.sweep import Sweeper, run_sweep
from planwatch.core.store.tools import run_tool

T0 = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)
WEEK = Settings(sweep_after_days=7)


class World:
    def __init__(self, root: Path) -> None:
        self.store = Store(root)
        self.now = T0

    def run(self, name: str, **args: object) -> list[str]:
        return run_tool(name, self.store, Settings(), Caller(by="dana"), args, now=lambda: self.now).lines


@pytest.fixture
def world(tmp_path: Path) -> World:
    w = World(tmp_path / "store")
    for status in ("done", "dropped", "draft", "active"):
        w.run("plan_create", title=f"{status} plan")  # p1..p4
        if status != "draft":
            w.run("plan_set", plan=f"p{len(w.store.load().plans)}", status=status)
    for plan in ("p1", "p2", "p3", "p4"):
        w.run("task_add", title=f"task of {plan}", plan=plan)
    w.run("task_add", title="no plan")  # t5
    return w


def test_nothing_goes_without_the_setting(world: World) -> None:
    report = run_sweep(world.store, Settings(), T0 + timedelta(days=1000))
    assert report.plans == [] and report.tasks == []
    assert len(world.store.load().tasks) == 5


def test_finished_plans_and_their_tasks_go_after_the_setting(world: World) -> None:
    assert run_sweep(world.store, WEEK, T0 + timedelta(days=6)).plans == []
    report = run_sweep(world.store, WEEK, T0 + timedelta(days=8))
    assert report.plans == ["p1", "p2"] and report.tasks == ["t1", "t2"]
    snap = world.store.load()
    assert sorted(snap.plans) == ["p3", "p4"]  # draft and active never go
    assert sorted(snap.tasks) == ["t3", "t4", "t5"]


@pytest.mark.parametrize("days", [999_999, 1_000_000_000, 10.0**20, 1e308])
def test_more_days_than_a_date_can_count_back_keep_everything(world: World, days: float) -> None:
    """`sweepAfterDays: 999999` ("keep practically forever") is a number of days no date
    can go back: nothing is old enough, nothing goes, and the pass says no error (it
    used to stop `planwatch sweep` with "a bug", and fail every pass of `planwatch mcp`)."""
    report = run_sweep(world.store, Settings(sweep_after_days=days), T0 + timedelta(days=100_000))
    assert (report.plans, report.tasks, report.after_days) == ([], [], days)
    assert len(world.store.load().tasks) == 5


def test_the_newest_stamp_among_plan_and_tasks_counts(world: World) -> None:
    world.now = T0 + timedelta(days=5)
    world.run("task_review", task="t1")  # a late stamp on p1's task keeps p1 around
    report = run_sweep(world.store, WEEK, T0 + timedelta(days=8))
    assert report.plans == ["p2"]
    assert run_sweep(world.store, WEEK, T0 + timedelta(days=13)).plans == ["p1"]


def test_draft_and_active_plans_never_go(world: World) -> None:
    run_sweep(world.store, Settings(sweep_after_days=0), T0 + timedelta(days=10_000))
    assert sorted(world.store.load().plans) == ["p3", "p4"]


def test_a_hand_written_plan_without_stamps_ages_by_its_file(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.plans_dir.mkdir(parents=True)
    path = store.plans_dir / "p1.md"
    path.write_text("---\nid: p1\ntitle: Old, by hand\nstatus: done\n---\n")
    old = (T0 - timedelta(days=30)).timestamp()
    os.utime(path, (old, old))
    assert run_sweep(store, WEEK, T0).plans == ["p1"]


def test_the_sweeper_runs_at_start_and_retries_a_failed_pass(world: World, caplog: pytest.LogCaptureFixture) -> None:
    calls: list[int] = []

    def settings() -> Settings:
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("settings file vanished")  # the first pass fails
        return WEEK

    sweeper = Sweeper(world.store, settings, interval=0.05, clock=lambda: T0 + timedelta(days=30))
    with caplog.at_level(logging.ERROR, logger="planwatch.core.store.sweep"):
        sweeper.start()
        try:
            # Each pass sets `pass_done` after counting itself: woken, the count is read
            # again, so a pass that ends between the wake and the clear is not missed.
            deadline = time.monotonic() + 60
            while sweeper.passes < 2:
                assert sweeper.pass_done.wait(max(0.0, deadline - time.monotonic())), "no second pass"
                sweeper.pass_done.clear()
        finally:
            sweeper.stop()
    assert sweeper.failures == 1
    assert "sweep of" in caplog.text and "failed" in caplog.text
    assert sweeper.last_report is not None and sweeper.last_report.plans == ["p1", "p2"]
    assert sorted(world.store.load().plans) == ["p3", "p4"]


def test_a_failed_pass_on_an_unusable_store_is_a_sentence_not_a_traceback(isolated_env: IsolatedEnv) -> None:
    """docs/store.md, The sweep: a failed pass is logged and retried next hour. The store's own errors
    (a `.lock` that is not a regular file, a read-only or full disk) are logged as the sentence the
    store words them in; `planwatch mcp` sweeps at start and printed a traceback."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    store = Store(isolated_env.store)
    run_tool("task_add", store, Settings(), Caller(by="dana"), {"title": "Ship"})
    (isolated_env.store / ".lock").unlink(missing_ok=True)
    (isolated_env.store / ".lock").mkdir()  # a folder where the lock file should be
    isolated_env.config.write_text("sweepAfterDays: 1\n")
    server = subprocess.Popen(
        [sys.executable, "-m", "planwatch.tui.cli", "mcp"],
        cwd=root,
        text=True,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        assert server.stderr is not None and server.stdin is not None
        line = server.stderr.readline()  # the sweep runs as the server starts
        server.stdin.close()
        server.wait(timeout=60)
        err = line + server.stderr.read()
    finally:
        if server.poll() is None:
            server.kill()
    assert f"sweep of {isolated_env.store} failed: Could not lock the store" in err
    assert ".lock is a folder, not a regular file" in err and "Retrying in 3600 s." in err
    assert "Traceback" not in err
