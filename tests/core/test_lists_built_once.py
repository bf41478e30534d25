"""The replay makes a full list into items only when something reads it (the last list
that took effect, a list a step or a cleared list looks at): the plan it gives is the
plain replay's, which builds every list as it applies. Checked side by side over every
Claude Code and Codex fixture and thousands of generated transcripts that mix lists,
failed and unanswered calls, results that arrive late or batched, subagents inline, task
calls, the desktop app's step calls, plan documents and cleared lists."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planwatch.core.transcripts.claude import ClaudeReader
from planwatch.core.transcripts.codex import CodexReader
from planwatch.core.transcripts.lines import read_transcript
from planwatch.core.transcripts.reader import SessionResult, TranscriptReader
from planwatch.core.transcripts.sniff import sniff_harness

ROOT = Path(__file__).resolve().parents[2] / "fixtures"
READERS: dict[str, type[ClaudeReader] | type[CodexReader]] = {"claude": ClaudeReader, "codex": CodexReader}


def _both(path: Path, kind: type[ClaudeReader] | type[CodexReader]) -> tuple[list[SessionResult], list[SessionResult]]:
    """What IO's read gives with lists built when read, and with every list built."""
    results = []
    for every_list in (False, True):
        reader: TranscriptReader = kind(path, every_list=every_list)
        read_transcript(reader, path)
        results.append(reader.results())
    return results[0], results[1]


def _line_by_line(path: Path, kind: type[ClaudeReader] | type[CodexReader]) -> None:
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
    for path, harness in fixtures:
        lazy, plain = _both(path, READERS[harness])
        assert lazy == plain, path
        _line_by_line(path, READERS[harness])


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


def _claude_lines(steps: list[tuple[Any, ...]]) -> list[str]:
    """Records for `steps`: each a call and (unless never answered) its result, which a
    late step sends after the next step's records, and two late ones share a record."""
    records: list[dict[str, Any]] = []
    late: list[tuple[str, str]] = []
    for n, (kind, group, value, answer, is_late) in enumerate(steps):
        base: dict[str, Any] = {"timestamp": f"2026-01-01T10:{n // 60:02d}:{n % 60:02d}.000Z", "sessionId": "s-1"}
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


def _same_plan(lines: list[str], kind: type[ClaudeReader] | type[CodexReader], name: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / name
        path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        lazy, plain = _both(path, kind)
        assert lazy == plain
        _line_by_line(path, kind)


@settings(max_examples=2500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(CLAUDE_STEP, max_size=14))
def test_generated_claude_transcripts_read_the_same_plan_with_lists_built_once(steps: list[tuple[Any, ...]]) -> None:
    _same_plan(_claude_lines(steps), ClaudeReader, "0b7a3c1e-1111-4222-8333-944445555666.jsonl")


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


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(CODEX_STEP, max_size=12))
def test_generated_codex_rollouts_read_the_same_plan_with_lists_built_once(steps: list[tuple[Any, ...]]) -> None:
    _same_plan(_codex_lines(steps), CodexReader, "rollout-2026-01-01T10-00-00-c-1.jsonl")
