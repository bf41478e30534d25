"""A past session's timeline rebuilt from its transcript (core/history.py):
the plan after each change, stamped with the time of the line that caused it, read with
the harness's own replay rules, bounded, and kept in memory only."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from planwatch.core import paths
from planwatch.core.history import KEPT_CHANGES, PlanHistory, replay_history
from planwatch.core.index import SessionIndex, default_roots
from planwatch.core.model import EMPTY_PLAN, AgentPlan, PlanGroup, PlanItem
from planwatch.core.settings import Settings
from planwatch.core.timeline import Timelines, describe_change

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures" / "transcripts"
CLAUDE_API = FIXTURES / "claude/projects/-home-dev-api/4f6b2a9e-1c3d-4e8f-9a7b-2d5c8e1f0a3b.jsonl"
CCD_WEB = FIXTURES / "claude/projects/-home-dev-web/2c8f4a1d-6e3b-4d7a-b9c2-5f1e8a0d3b7c.jsonl"
CODEX = FIXTURES / "codex/sessions/2026/11/30/rollout-2026-11-30T07-19-15-019ad3f1-7c2e-7b40-9a51-3e8d0c6f2b17.jsonl"
ACP = FIXTURES / "rules/acp/plans-and-sessions.jsonl"
GEMINI_REWIND = FIXTURES / "rules/gemini/tmp/lab/chats/session-2026-11-29T14-00-a1000000.jsonl"
CODEX_REFUSED = (
    FIXTURES / "rules/codex/sessions/2026/11/29/rollout-2026-11-29T15-00-00-019ad3f1-0000-7000-8000-00000000e001.jsonl"
)


def _at(stamp: str) -> datetime:
    return datetime.fromisoformat(stamp).replace(tzinfo=UTC)


def _lines(history: PlanHistory) -> list[tuple[datetime | None, str]]:
    """Each change as the timeline describes it, with its time."""
    out: list[tuple[datetime | None, str]] = []
    before: AgentPlan | None = None
    for at, plan in history.changes:
        out.append((at, describe_change(before, plan)))
        before = plan
    return out


def _statuses(plan: AgentPlan) -> list[tuple[str, str]]:
    return [(item.text, item.status) for group in plan.groups for item in group.items]


def test_a_claude_code_sessions_changes_carry_their_records_times() -> None:
    history = replay_history(CLAUDE_API, "claude", "4f6b2a9e-1c3d-4e8f-9a7b-2d5c8e1f0a3b")
    assert _lines(history) == [
        (_at("2026-11-30T06:52:15.020"), "plan document"),  # plan mode's document, first
        (_at("2026-11-30T06:52:19.120"), "0 → 5 steps"),
        (_at("2026-11-30T06:52:20.620"), "started: Adding a Redis token bucket per API key"),
        (_at("2026-11-30T06:52:25.120"), "0 → 2 done; started: Returning 429 with Retry-After"),
    ]
    assert history.unread == ""


def test_a_claude_desktop_task_lists_step_operations_each_make_a_change() -> None:
    history = replay_history(CCD_WEB, "claude", "2c8f4a1d-6e3b-4d7a-b9c2-5f1e8a0d3b7c")
    assert _lines(history) == [
        (_at("2026-11-30T07:11:34.900"), "0 → 4 steps; started: Reproduce the flicker in Safari"),
        (_at("2026-11-30T07:11:37.900"), "0 → 1 done; started: Find the layout shift in SettingsPage"),
        (_at("2026-11-30T07:11:39.400"), "1 → 2 done; started: Fix the font loading order"),
        (_at("2026-11-30T07:11:42.400"), "2 → 3 done"),
    ]


def test_a_codex_rollouts_update_plan_calls_carry_their_envelope_times() -> None:
    history = replay_history(CODEX, "codex", "019ad3f1-7c2e-7b40-9a51-3e8d0c6f2b17")
    assert [at for at, _ in history.changes] == [
        _at("2026-11-30T07:19:15.683"),
        _at("2026-11-30T07:19:15.983"),
        _at("2026-11-30T07:19:16.233"),
    ]
    assert _statuses(history.changes[-1][1])[3] == ("Write pagination tests", "in_progress")


def test_a_refused_codex_call_is_no_change() -> None:
    # …e001: update_plan calls whose output is an error did not update the plan.
    history = replay_history(CODEX_REFUSED, "codex", "019ad3f1-0000-7000-8000-00000000e001")
    assert _lines(history) == [
        (_at("2026-11-29T15:00:00.450"), "0 → 2 steps; 0 → 1 done; started: Stream with a server-side cursor"),
    ]


def test_an_acp_logs_changes_are_its_sessions_own_with_the_ts_wrappers_times() -> None:
    history = replay_history(ACP, "acp", "sess_a1")
    assert [at for at, _ in history.changes] == [
        _at("2026-11-29T18:00:04.200"),
        _at("2026-11-29T18:00:04.900"),
        _at("2026-11-29T18:00:05.600"),
        _at("2026-11-29T18:00:06.300"),
        _at("2026-11-29T18:00:07.000"),
    ]
    other = replay_history(ACP, "acp", "sess_b2")
    assert other.changes != history.changes  # the log's second session keeps its own
    assert replay_history(ACP, "acp", "sess_nobody").changes == ()


def test_a_bare_acp_log_gives_changes_without_a_time() -> None:
    history = replay_history(FIXTURES / "rules/acp/bare.jsonl", "acp", "sess_bare")
    assert _lines(history) == [(None, "0 → 1 steps; started: Only step")]


def test_a_gemini_rewind_shows_as_the_change_it_made() -> None:
    history = replay_history(GEMINI_REWIND, "gemini", "a1000000")
    assert _lines(history) == [
        (_at("2026-11-29T14:00:04.606"), "0 → 1 steps; started: Kept"),
        (_at("2026-11-29T14:01:09.221"), "1 → 2 steps; added: Added later (started); 0 → 1 done"),
        (_at("2026-11-29T14:01:09.231"), "2 → 1 steps; 1 → 0 done; started: Kept"),  # the rewind
    ]


def test_a_transcript_over_the_bound_is_read_from_its_last_bytes_and_says_so() -> None:
    whole = replay_history(CODEX, "codex", "x")
    size = CODEX.stat().st_size
    cut = replay_history(CODEX, "codex", "x", bound=size // 4)
    assert (whole.unread, cut.unread) == ("", "start")
    assert cut.read <= size // 4 + 1
    # Only the latest changes are left, and they end on the same plan.
    assert 0 < len(cut.changes) < len(whole.changes)
    assert _statuses(cut.changes[-1][1]) == _statuses(whole.changes[-1][1])


def test_a_whole_document_transcript_keeps_no_order_of_changes() -> None:
    legacy = FIXTURES / "rules/gemini/tmp/oldproj/chats/session-2026-11-29T17-00-a1000000.json"
    assert replay_history(legacy, "gemini", "x") == PlanHistory()


def test_the_index_rebuilds_a_sessions_history_only_while_plans_are_read() -> None:
    target = paths.codex_home() / CODEX.relative_to(FIXTURES / "codex")
    target.parent.mkdir(parents=True)
    shutil.copy2(CODEX, target)
    sid = "019ad3f1-7c2e-7b40-9a51-3e8d0c6f2b17"
    reading = SessionIndex(default_roots(Settings()))
    reading.scan()
    assert len(reading.plan_history(sid).changes) == 3
    assert reading.plan_history("unknown").changes == ()
    private = SessionIndex(default_roots(Settings()), read_plans=False)
    private.scan()
    assert private.plan_history(sid).changes == ()


def _plan(*items: tuple[str, str]) -> AgentPlan:
    return AgentPlan(
        groups=(PlanGroup(key="", source="claude_todos", items=tuple(PlanItem(text=t, status=s) for t, s in items)),)
    )


def test_a_rebuilt_timeline_keeps_the_changes_seen_live_since_the_rebuild_began() -> None:
    timelines = Timelines()
    now = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
    timelines.keep("s", _plan(("A", "pending")))
    timelines.note("s", _plan(("A", "in_progress")), now, record=True)  # before: in the transcript too
    assert timelines.begin_rebuild("s") and not timelines.begin_rebuild("s")
    timelines.note("s", _plan(("A", "completed")), now, record=True)  # while reading
    assert not timelines.rebuild("s").done
    timelines.seed("s", [(None, _plan(("A", "pending"))), (None, _plan(("A", "in_progress")))], "start")
    assert [e.what for e in timelines.of("s")] == ["0 → 1 steps", "started: A", "0 → 1 done"]
    assert timelines.rebuild("s").done and timelines.rebuild("s").unread == "start"


@pytest.mark.parametrize(
    ("before", "after", "what"),
    [
        (_plan(("A", "pending")), _plan(("B", "pending"), ("C", "pending")), "list replaced; 1 → 2 steps"),
        (EMPTY_PLAN, _plan(("A", "in_progress")), "0 → 1 steps; started: A"),
        (
            _plan(("A", "pending")),
            _plan(("A", "pending"), ("B", "in_progress"), ("A", "pending")),
            "1 → 3 steps; added: B (started), A",
        ),
        (
            _plan(("A", "completed")),
            _plan(("A", "completed"), *((f"S{n}", "pending") for n in range(5))),
            "1 → 6 steps; added: S0, S1, S2, …",
        ),
    ],
)
def test_a_change_names_the_steps_it_added_and_a_new_list_reads_as_replaced(
    before: AgentPlan, after: AgentPlan, what: str
) -> None:
    assert describe_change(before, after) == what


def test_a_sessions_subagents_changes_join_its_timeline_in_time_order() -> None:
    sid = "4f6b2a9e-1c3d-4e8f-9a7b-2d5c8e1f0a3b"
    shutil.copytree(CLAUDE_API.parent, paths.claude_projects_dir() / CLAUDE_API.parent.name)
    index = SessionIndex(default_roots(Settings()))
    index.scan()
    history = index.plan_history(sid)
    main = replay_history(CLAUDE_API, "claude", sid)
    times = [at for at, _ in history.changes]
    assert times == sorted(times) and len(times) > len(main.changes)
    # Its last plan is the session's plan as the index shows it, subagent group included.
    entry = index.get(sid)
    assert entry is not None and history.changes[-1][1] == entry.plan
    assert any(group.key.startswith("agent-") for group in history.changes[-1][1].groups)


def test_a_transcript_gone_since_the_scan_gives_an_empty_history() -> None:
    target = paths.codex_home() / CODEX.relative_to(FIXTURES / "codex")
    target.parent.mkdir(parents=True)
    shutil.copy2(CODEX, target)
    index = SessionIndex(default_roots(Settings()))
    index.scan()
    sid = "019ad3f1-7c2e-7b40-9a51-3e8d0c6f2b17"
    assert index.plan_history(sid).changes  # its positive twin: read while it is there
    target.unlink()
    assert index.plan_history(sid) == PlanHistory()


def test_a_transcript_of_many_plan_calls_keeps_its_latest_changes_told_against_the_one_before(tmp_path: Path) -> None:
    from bench.corpus import ClaudeWriter

    path = tmp_path / "5e0c2a4b-1f3d-4e6a-9b8c-7d0e1f2a3b4c.jsonl"
    with path.open("wb") as fh:
        w = ClaudeWriter(fh, "5e0c2a4b-1f3d-4e6a-9b8c-7d0e1f2a3b4c", "/home/dev/api")
        w.prompt("Many calls")
        for n in range(KEPT_CHANGES + 50):
            w.todo_write([(f"Step {n}", "in_progress")])
    history = replay_history(path, "claude", "x")
    assert len(history.changes) == KEPT_CHANGES
    assert history.base is not None and _statuses(history.base) == [("Step 49", "in_progress")]
    assert _statuses(history.changes[0][1]) == [("Step 50", "in_progress")]
    timelines = Timelines(length=KEPT_CHANGES)
    timelines.begin_rebuild("s")
    timelines.seed("s", history.changes, history.unread, history.base)
    # The oldest kept change is told against the plan before it, not as a first list.
    whats = [e.what for e in timelines.of("s")]
    assert whats[0] == "list replaced; started: Doing step 50"
    assert whats[-1] == "list replaced; started: Doing step 249"
