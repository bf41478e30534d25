"""A step's text is the agent's, of any length: a runaway or hostile one (a pasted file,
hundreds of kilobytes) is shown cut in its checklist row and in the timeline, never
wrapped whole on the UI thread, and always literally (no markup, no escapes)."""

from __future__ import annotations

from datetime import UTC, datetime

from app_transcripts import ClaudeTranscript

from planwatch.core.checklist import build_checklist
from planwatch.core.history import replay_history
from planwatch.core.index import SessionIndex, default_roots
from planwatch.core.settings import Settings
from planwatch.core.timeline import NAME_LIMIT, Timelines
from planwatch.tui.widgets.checklist import ROW_TEXT_LIMIT, agent_row_text

HOSTILE = "[bold red]x[/] \x1b]52;c;aGk=\x07 \u202eevil "
RUNAWAY = HOSTILE + "line of a pasted file " * 15_000  # ~330,000 characters
SHORT = "Write the tests [not markup]"


def _session(isolated_env) -> ClaudeTranscript:  # type: ignore[no-untyped-def]
    past = ClaudeTranscript(isolated_env.claude, "/home/dev/api", at=datetime(2026, 11, 28, 14, 0, tzinfo=UTC))
    past.todo_write([(SHORT, "in_progress")])
    past.todo_write([(SHORT, "completed"), (RUNAWAY, "pending")])
    past.todo_write([(SHORT, "completed"), (RUNAWAY, "in_progress")])
    return past


def test_a_runaway_step_is_cut_in_its_row_and_shown_literally(isolated_env) -> None:  # type: ignore[no-untyped-def]
    past = _session(isolated_env)
    index = SessionIndex(default_roots(Settings()))
    index.scan()
    entry = index.get(past.session_id)
    assert entry is not None
    checklist = build_checklist(entry.plan, {}, [])
    rows = [row for section in checklist.sections for row in section.rows]
    shown = [agent_row_text(row).plain for row in rows]
    # Its positive twin: a step of ordinary length is shown whole, brackets and all.
    assert shown[0].endswith(SHORT)
    runaway = shown[1]
    assert len(runaway) <= ROW_TEXT_LIMIT + 40 and runaway.endswith("…")
    assert "[bold red]x[/] \\x1b]52;c;aGk=\\x07 \\u202eevil line of a pasted file" in runaway
    assert "\x1b" not in runaway and "\u202e" not in runaway


def test_a_runaway_step_is_named_cut_in_the_timeline(isolated_env) -> None:  # type: ignore[no-untyped-def]
    past = _session(isolated_env)
    history = replay_history(past.path, "claude", past.session_id)
    timelines = Timelines()
    timelines.seed(past.session_id, history.changes, history.unread, history.base)
    whats = [entry.what for entry in timelines.of(past.session_id)]
    assert len(whats) == 3
    assert whats[0] == f"0 → 1 steps; started: Working on {SHORT}"  # named whole
    for what in whats[1:]:
        assert len(what) < 2 * NAME_LIMIT + 40
        assert "[bold red]x[/] \\x1b]52;c;aGk=\\x07 \\u202eevil line" in what  # literally, escapes shown
    assert whats[1].startswith("1 → 2 steps; added: [bold red]x[/]") and whats[1].endswith("…; 0 → 1 done")
    assert "started: Working on [bold red]x[/]" in whats[2]
