"""The replay makes a full list into items only when something reads it (the last list
that took effect, a list a step or a cleared list looks at): the plan it gives is the
plain replay's, which builds every list as it applies. And a file read whole skips the
lines a later full list superseded (superseded.py): it gives the full read's answer.
Checked side by side over every Claude Code and Codex fixture and thousands of generated
transcripts that mix lists, failed and unanswered calls, results that arrive late or
batched, subagents inline, task calls, the desktop app's step calls, plan documents,
cleared lists, branches, session ids and folders that change, and torn arguments."""

from __future__ import annotations

import dataclasses
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planwatch.core.transcripts import lines
from planwatch.core.transcripts.claude import ClaudeReader
from planwatch.core.transcripts.codex import CodexReader
from planwatch.core.transcripts.lines import read_transcript
from planwatch.core.transcripts.reader import SessionResult, TranscriptReader
from planwatch.core.transcripts.sniff import sniff_harness
from planwatch.core.transcripts.warmcache import Entry, Trace, replay

ROOT = Path(__file__).resolve().parents[2] / "fixtures"
READERS: dict[str, type[ClaudeReader] | type[CodexReader]] = {"claude": ClaudeReader, "codex": CodexReader}
Kind = type[ClaudeReader] | type[CodexReader]


@dataclasses.dataclass
class Reading:
    """What one read of a file gave: the answer, what the reader still waits for (its
    dynamic needles: the calls held), and what it was fed (the warm-start trace)."""

    results: list[SessionResult]
    skipped_lines: int
    outcome: lines.ReadOutcome
    waiting: list[bytes]
    trace: Trace
    skipped: bool  # superseded lines were skipped


def _read(path: Path, kind: Kind, *, every_list: bool = False, supersede: bool = True) -> Reading:
    reader: TranscriptReader = kind(path, every_list=every_list)
    trace = Trace()
    before, lines.SUPERSEDE = lines.SUPERSEDE, supersede
    try:
        outcome = read_transcript(reader, path, trace=trace)
    finally:
        lines.SUPERSEDE = before
    waiting = sorted(reader.dynamic_needles())
    skipped = bool(getattr(reader, "skipped_any", False))
    return Reading(reader.results(), reader.skipped_lines, outcome, waiting, trace, skipped)


def _warm(path: Path, kind: Kind, trace: Trace) -> tuple[list[SessionResult], int]:
    """A later start's replay of what a read was fed (warmcache.replay)."""
    reader = kind(path)
    fd = os.open(path, os.O_RDONLY)
    try:
        assert replay(Entry(kind.harness, trace.ident, trace.offset, list(trace.ops)), reader, fd)  # type: ignore[arg-type]
    finally:
        os.close(fd)
    return reader.results(), reader.skipped_lines


def _lines_of(trace: Trace) -> list[tuple[int, int, int]]:
    ops = trace.ops
    return [(ops[i + 1], ops[i + 2], ops[i + 3]) for i in range(0, len(ops), 4)]


def _same_readings(path: Path, kind: Kind) -> Reading:
    """The file read skipping superseded lines, read feeding every line, and read with
    every list built as it applies: the same plan, facts, skipped lines, outcome and
    calls still waiting; what the skipping read was fed is some of the full read's lines
    in the same order, and a warm start's replay of it gives the answer again."""
    fast = _read(path, kind)
    full = _read(path, kind, supersede=False)
    plain = _read(path, kind, every_list=True)
    assert fast.results == full.results == plain.results, path
    assert fast.skipped_lines == full.skipped_lines == plain.skipped_lines, path
    assert fast.outcome == full.outcome, path
    assert fast.waiting == full.waiting, path
    assert fast.trace.offset == full.trace.offset and fast.trace.ident == full.trace.ident
    fed, every = _lines_of(fast.trace), _lines_of(full.trace)
    assert [line for line in every if line in set(fed)] == fed, path
    assert not full.skipped and (fed == every) != fast.skipped, path
    assert _warm(path, kind, fast.trace) == (full.results, full.skipped_lines), path
    return fast


def _line_by_line(path: Path, kind: Kind) -> None:
    """The plan after every line (as the app and the history see it) is the same too."""
    lazy, plain = kind(path), kind(path, every_list=True)
    for line in path.read_bytes().splitlines():
        if not line.strip():
            continue
        lazy.feed_line(line)
        plain.feed_line(line)
        assert lazy.results() == plain.results()


def _fixtures() -> list[tuple[Path, str]]:
    found = []
    for path in sorted(ROOT.rglob("*.jsonl")):
        harness = sniff_harness(path)
        if harness in READERS:
            found.append((path, harness))
    return found


def test_every_claude_and_codex_fixture_reads_the_same_plan_with_lists_built_once() -> None:
    fixtures = _fixtures()
    assert {harness for _path, harness in fixtures} == set(READERS)
    assert len(fixtures) >= 10
    skipped = 0
    for path, harness in fixtures:
        skipped += _same_readings(path, READERS[harness]).skipped
        _line_by_line(path, READERS[harness])
    assert skipped  # some fixture has lists a later one superseded


# -- generated Claude Code transcripts ------------------------------------------------------

TEXTS = st.sampled_from(["Read the code", "Write the tests", "Ship it", "Write the tests", ""])
STATUS = st.sampled_from(["pending", "in_progress", "completed", "cancelled", "blocked", None])
TODO = st.fixed_dictionaries(
    {"content": TEXTS, "status": STATUS},
    optional={"activeForm": st.sampled_from(["Reading", ""]), "priority": st.sampled_from(["high", "low", "x"])},
)
BAD_TODO = st.sampled_from([{"status": "pending"}, "a string", {"content": 3}])
TODOS = st.one_of(
    st.lists(TODO, max_size=4),
    st.lists(st.just({"content": "Done", "status": "completed"}), min_size=1, max_size=3),
    st.lists(st.one_of(TODO, BAD_TODO), min_size=1, max_size=3),
)
# How a call is answered: ok, an error flag, an error text, a string envelope, never.
ANSWER = st.sampled_from(["ok", "ok", "ok", "is_error", "error_text", "string", "none"])
GROUP = st.sampled_from(["", "", "", "agent-a", "agent-b", "sidechain"])

CLAUDE_STEP = st.one_of(
    st.tuples(st.just("todo"), GROUP, TODOS, ANSWER, st.booleans()),
    st.tuples(st.just("ccd_items"), GROUP, st.lists(TEXTS, max_size=3), ANSWER, st.booleans()),
    st.tuples(st.just("ccd_advance"), GROUP, st.just(None), ANSWER, st.booleans()),
    st.tuples(st.just("task"), GROUP, TEXTS, ANSWER, st.booleans()),
    st.tuples(st.just("plan_doc"), GROUP, TEXTS, ANSWER, st.booleans()),
    st.tuples(st.just("prompt"), GROUP, TEXTS, ANSWER, st.booleans()),
)


CLAUDE_NAME = "0b7a3c1e-1111-4222-8333-944445555666.jsonl"


def _claude_lines(steps: list[tuple[Any, ...]], variant: int = 0) -> list[str]:
    """Records for `steps`: each a call and (unless never answered) its result, which a
    late step sends after the next step's records, and two late ones share a record.
    `variant`'s bits vary the facts every record carries: the file's own session id or
    another, branches that change (or none), the folder on every record, times that run
    backwards."""
    records: list[dict[str, Any]] = []
    late: list[tuple[str, str]] = []
    for n, (kind, group, value, answer, is_late) in enumerate(steps):
        second = 59 - n % 60 if variant & 16 else n % 60
        base: dict[str, Any] = {
            "timestamp": f"2026-01-01T10:{n // 60:02d}:{second:02d}.000Z",
            "sessionId": CLAUDE_NAME.removesuffix(".jsonl") if variant & 1 else "s-1",
        }
        if variant & 2:
            base["gitBranch"] = ("main", "", "feat")[n % 3]
        elif variant & 4:
            base["gitBranch"] = "main"
        if variant & 8:
            base["cwd"] = "/w"
        if group:
            base["isSidechain"] = True
            if group != "sidechain":
                base["agentId"] = group.removeprefix("agent-")
        if kind == "prompt":
            records.append({**base, "type": "user", "cwd": "/w", "message": {"role": "user", "content": value or "hi"}})
            continue
        call_id = f"toolu_{n}"
        if kind == "todo":
            name, tool_input = "TodoWrite", {"todos": value}
        elif kind == "ccd_items":
            name, tool_input = "mcp__ccd_turn__update_plan", {"items": [{"text": t} for t in value]}
        elif kind == "ccd_advance":
            name, tool_input = "mcp__ccd_turn__update_plan", {"advance": True}
        elif kind == "task":
            name, tool_input = "TaskCreate", {"subject": value or "task", "description": "d"}
        else:
            name, tool_input = "ExitPlanMode", {"plan": value or "# Plan"}
        block = {"type": "tool_use", "id": call_id, "name": name, "input": tool_input}
        records.append({**base, "type": "assistant", "message": {"role": "assistant", "content": [block]}})
        if answer == "none":
            continue
        results = [(call_id, answer)]
        if is_late:
            late.append((call_id, answer))
            if len(late) < 2:
                continue
            results, late = late, []
        blocks = []
        for result_id, how in results:
            result: dict[str, Any] = {"type": "tool_result", "tool_use_id": result_id, "content": "ok"}
            if how == "is_error":
                result["is_error"] = True
            elif how == "error_text":
                result["content"] = "<tool_use_error>no</tool_use_error>"
            blocks.append(result)
        record = {**base, "type": "user", "message": {"role": "user", "content": blocks}}
        record["toolUseResult"] = "Error: refused" if any(how == "string" for _i, how in results) else {}
        if kind == "task" and len(results) == 1:
            record["toolUseResult"] = {"task": {"id": str(n), "subject": value}}
        records.append(record)
    return [json.dumps(record) for record in records]


def _same_plan(records: list[str], kind: Kind, name: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / name
        path.write_text("".join(line + "\n" for line in records), encoding="utf-8")
        _same_readings(path, kind)
        _line_by_line(path, kind)


# The shape most sessions have: a prompt, then lists answered at once in the main plan
# (what a file read whole skips when a later list supersedes them), with anything before
# and after it.
PROMPT = st.tuples(st.just("prompt"), st.just(""), TEXTS, st.just("ok"), st.just(False))
LISTED = st.tuples(
    st.just("todo"),
    st.just(""),
    st.one_of(st.lists(TODO, min_size=1, max_size=4), TODOS),
    st.sampled_from(["ok", "ok", "ok", "ok", "is_error"]),
    st.just(False),
)
CLAUDE_STEPS = st.one_of(
    st.lists(CLAUDE_STEP, max_size=14),
    st.builds(
        lambda before, prompt, listed, after: [*before, *prompt, *listed, *after],
        st.lists(CLAUDE_STEP, max_size=2),
        st.lists(PROMPT, min_size=1, max_size=1),
        st.lists(LISTED, min_size=1, max_size=6),
        st.lists(CLAUDE_STEP, max_size=3),
    ),
)


@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(CLAUDE_STEPS, st.integers(0, 31))
def test_generated_claude_transcripts_read_the_same_plan_with_lists_built_once_and_superseded_lists_skipped(
    steps: list[tuple[Any, ...]], variant: int
) -> None:
    _same_plan(_claude_lines(steps, variant), ClaudeReader, CLAUDE_NAME)


# -- generated Codex rollouts ------------------------------------------------------------

STEP = st.fixed_dictionaries({"step": TEXTS, "status": STATUS})
PLAN = st.one_of(
    st.lists(STEP, max_size=4),
    st.lists(st.just({"step": "Done", "status": "completed"}), min_size=1, max_size=3),
    st.lists(st.one_of(STEP, st.just({"status": "pending"})), min_size=1, max_size=3),
)
OUTPUT = st.sampled_from(["Plan updated", "Plan updated", "failed to parse function arguments", "none", "success"])
CODEX_STEP = st.tuples(PLAN, OUTPUT, st.booleans(), st.booleans())


def _codex_lines(steps: list[tuple[Any, ...]]) -> list[str]:
    meta = {"id": "c-1", "cwd": "/w", "timestamp": "2026-01-01T10:00:00.000Z"}
    records: list[dict[str, Any]] = [{"timestamp": "2026-01-01T10:00:00.000Z", "type": "session_meta", "payload": meta}]
    late: list[dict[str, Any]] = []
    for n, (plan, output, is_late, torn) in enumerate(steps):
        at = f"2026-01-01T10:{n // 60:02d}:{n % 60:02d}.500Z"
        arguments = json.dumps({"plan": plan})
        call = {"type": "function_call", "name": "update_plan", "arguments": arguments[:-1] if torn else arguments}
        records.append({"timestamp": at, "type": "response_item", "payload": {**call, "call_id": f"call_{n}"}})
        if output == "none":
            continue
        answer: Any = {"success": True} if output == "success" else output
        result = {"type": "function_call_output", "call_id": f"call_{n}", "output": answer}
        if is_late:
            late.append(result)
            continue
        for held in [*late, result]:
            records.append({"timestamp": at, "type": "response_item", "payload": held})
        late = []
    return [json.dumps(record) for record in records]


UPDATED = st.tuples(
    st.one_of(st.lists(STEP, min_size=1, max_size=4), PLAN),
    st.sampled_from(["Plan updated", "Plan updated", "Plan updated", "none"]),
    st.just(False),
    st.just(False),
)
CODEX_STEPS = st.one_of(
    st.lists(CODEX_STEP, max_size=12),
    st.builds(
        lambda before, listed, after: [*before, *listed, *after],
        st.lists(CODEX_STEP, max_size=2),
        st.lists(UPDATED, min_size=1, max_size=6),
        st.lists(CODEX_STEP, max_size=3),
    ),
)


@settings(max_examples=1200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(CODEX_STEPS)
def test_generated_codex_rollouts_read_the_same_plan_with_lists_built_once_and_superseded_lists_skipped(
    steps: list[tuple[Any, ...]],
) -> None:
    _same_plan(_codex_lines(steps), CodexReader, "rollout-2026-01-01T10-00-00-c-1.jsonl")


# -- what is skipped ------------------------------------------------------------------------


@pytest.mark.parametrize("harness", ["claude", "codex"])
def test_a_small_transcript_is_fed_only_its_last_list_and_what_follows_it(harness: str, tmp_path: Path) -> None:
    """A session of many answered lists (the shape most small sessions have) is fed its
    first records, its last list with its result and what comes after; the superseded
    lists and their results are neither fed nor traced, and the answer is the full read's."""
    if harness == "claude":
        steps = [("prompt", "", "Fix the loader", "ok", False)]
        steps += [("todo", "", [{"content": f"Step {i}", "status": "pending"}], "ok", False) for i in range(5)]
        records, kind, name = _claude_lines(steps, variant=4 | 8), ClaudeReader, CLAUDE_NAME
    else:
        steps = [([{"step": f"Step {i}", "status": "pending"}], "Plan updated", False, False) for i in range(5)]
        records, kind, name = _codex_lines(steps), CodexReader, "rollout-2026-01-01T10-00-00-c-1.jsonl"
    path = tmp_path / name
    path.write_text("".join(line + "\n" for line in records), encoding="utf-8")
    fast = _same_readings(path, kind)
    assert fast.skipped
    fed = {offset for offset, _length, _hash in _lines_of(fast.trace)}
    starts = [0]
    for line in records[:-1]:
        starts.append(starts[-1] + len(line.encode()) + 1)
    last_call = starts[-2]  # the last list's call, then its result
    assert {last_call, starts[-1]} <= fed
    assert not fed & set(starts[1:-2])


def test_a_skipped_call_still_counts_among_the_calls_a_reader_holds(tmp_path: Path) -> None:
    """A reader holds at most 100 calls waiting for results, the oldest evicted: a list
    call skipped as superseded still took a place while it waited, so a plan document
    whose call was evicted for it stays unapplied, as in the full read."""
    sid = CLAUDE_NAME.removesuffix(".jsonl")
    base = {"sessionId": sid, "cwd": "/w", "gitBranch": "main", "timestamp": "2026-01-01T10:00:00.000Z"}

    def call(call_id: str, name: str, tool_input: dict[str, Any]) -> dict[str, Any]:
        block = {"type": "tool_use", "id": call_id, "name": name, "input": tool_input}
        return {**base, "type": "assistant", "message": {"role": "assistant", "content": [block]}}

    def result(call_id: str) -> dict[str, Any]:
        block = {"type": "tool_result", "tool_use_id": call_id, "content": "ok"}
        return {**base, "type": "user", "message": {"role": "user", "content": [block]}, "toolUseResult": {}}

    todos = {"todos": [{"content": "Read the code", "status": "pending"}]}
    records = [{**base, "type": "user", "message": {"role": "user", "content": "Fix the loader"}}]
    records.append(call("toolu_doc_0", "ExitPlanMode", {"plan": "# The first plan"}))
    records.append(call("toolu_list_0", "TodoWrite", todos))
    records += [call(f"toolu_doc_{n}", "ExitPlanMode", {"plan": f"# Plan {n}"}) for n in range(1, 100)]
    records.append(result("toolu_list_0"))
    records.append(result("toolu_doc_0"))  # evicted while the skipped list waited: not applied
    records += [call("toolu_list_1", "TodoWrite", todos), result("toolu_list_1")]
    path = tmp_path / CLAUDE_NAME
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    fast = _same_readings(path, ClaudeReader)
    assert not fast.results[0].plan.documents
