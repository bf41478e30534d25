"""Notifications (docs/app.md, Settings): a plan that became complete, a step that became
blocked, a running session gone idle — bell and toast, each switchable in Settings, and
an OSC 9 / 777 desktop notification that cannot be broken out of.

The app's tests boot the whole app because their point is the app's: a plan followed live
in its transcript on disk and the app's idle check, and notices switched in the settings
file."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from app_transcripts import ClaudeTranscript, until
from toasts import Toasts

from planwatch.core.model import AgentPlan, PlanGroup, PlanItem
from planwatch.tui.app import AppOptions, make_app
from planwatch.tui.notices import Notice, desktop_escapes, plan_notices


def plan(*statuses: str) -> AgentPlan:
    items = tuple(PlanItem(text=f"Step {n}", status=status) for n, status in enumerate(statuses))  # type: ignore[arg-type]
    return AgentPlan(groups=(PlanGroup(source="gemini_todos", items=items),))


def test_a_plan_that_becomes_complete_is_noticed_once() -> None:
    notices = plan_notices("Deploy", plan("completed", "in_progress"), plan("completed", "completed"))
    assert [n.message for n in notices] == ["Plan complete (2/2) — Deploy"]
    assert plan_notices("Deploy", plan("completed", "completed"), plan("completed", "completed")) == []
    assert plan_notices("Deploy", None, plan("completed")) == []  # the first read is not a change


def test_a_step_that_becomes_blocked_is_noticed() -> None:
    notices = plan_notices("Deploy", plan("pending", "pending"), plan("pending", "blocked"))
    assert [n.message for n in notices] == ["Blocked: Step 1 — Deploy"]
    assert plan_notices("Deploy", plan("blocked"), plan("blocked")) == []


def test_desktop_escapes_cannot_be_broken_out_of() -> None:
    escapes = desktop_escapes(Notice("blocked", "a\x07b;c\x1b]0;x", "Blocked: \x9b31m"))
    assert escapes.startswith("\x1b]9;") and escapes.count("\x07") == 2 and escapes.count("\x1b") == 2
    assert "\x9b" not in escapes
    assert escapes.split("\x1b]777;notify;")[1].count(";") == 1  # title;body, nothing more


@pytest.mark.asyncio
async def test_a_live_plan_completing_rings_and_toasts_and_a_session_going_idle_too(isolated_env) -> None:
    now = [datetime.now(UTC)]
    web = ClaudeTranscript(isolated_env.claude, "/home/dev/web", at=now[0] - timedelta(minutes=1))
    web.custom_title("Web: add dark mode").todo_write([("Add the switch", "completed"), ("Write tests", "in_progress")])
    isolated_env.config.write_text("notifySessionIdle: true\n")
    app = make_app(AppOptions(config_path=isolated_env.config, clock=lambda: now[0]))
    told = Toasts()
    async with app.run_test(message_hook=told, size=(120, 36), notifications=True) as pilot:
        await until(pilot, lambda: app.scan_done is not None and app.following, what="the follower")
        app._check_idle()  # the session is running now
        web.todo_write([("Add the switch", "completed"), ("Write tests", "completed")])
        toasts = lambda: [str(n.message) for n in told.seen]  # noqa: E731
        await until(pilot, lambda: "Plan complete (2/2) — Web: add dark mode" in toasts(), what="the notice")
        now[0] += timedelta(minutes=10)
        app._check_idle()
        await pilot.pause()
        assert "Went idle — Web: add dark mode" in toasts()


@pytest.mark.asyncio
async def test_each_notice_can_be_switched_off_in_settings(isolated_env) -> None:
    isolated_env.config.write_text("notifyPlanComplete: false\n")
    app = make_app(AppOptions(config_path=isolated_env.config))
    told = Toasts()
    async with app.run_test(message_hook=told, size=(120, 36), notifications=True) as pilot:
        await until(pilot, lambda: app.scan_done is not None, what="the scan")
        app.announce(Notice("complete", "Deploy", "Plan complete (2/2)"))
        app.announce(Notice("blocked", "Deploy", "Blocked: Step 1"))
        await pilot.pause()
        toasts = [str(n.message) for n in told.seen]
        assert "Blocked: Step 1 — Deploy" in toasts
        assert not any("Plan complete" in t for t in toasts)
