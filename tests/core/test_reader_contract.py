"""The reader contract IO relies on (core/transcripts/reader.py, lines.py), checked on
every fixture and real sample for every reader."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime
from pathlib import Path

import pytest

from planwatch.core.model import Harness
from planwatch.core.transcripts.reader import SessionFacts, SessionResult
from planwatch.core.transcripts.registry import reader_for

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures/transcripts"
SAMPLES = Path(__file__).resolve().parents[2] / "fixtures" / "samples"


def harness_of(path: Path) -> Harness:
    if path.is_relative_to(FIXTURES):
        parts = path.relative_to(FIXTURES).parts
    elif path.is_relative_to(SAMPLES):
        parts = path.relative_to(SAMPLES).parts
    else:
        parts = (path.name,)
    for harness in ("claude", "codex", "acp", "gemini", "qwen", "pi"):
        if harness in parts or parts[-1].startswith(harness):
            return harness  # type: ignore[return-value]
    raise AssertionError(f"no harness for {path}")


TRANSCRIPTS = (
    # A Copilot CLI session's events.jsonl is no plan's source (its database is): its
    # reader takes no lines (tests/core/test_reader_copilot.py).
    sorted(p for p in FIXTURES.rglob("*.jsonl") if "copilot" not in p.parts)
    + sorted(SAMPLES.glob("*.jsonl"))
    + sorted(SAMPLES.glob("qwen/*.jsonl"))
    + sorted(SAMPLES.glob("pi/*.jsonl"))
)


def ids(path: Path) -> str:
    return str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name)


@pytest.mark.parametrize("path", TRANSCRIPTS, ids=ids)
def test_a_block_of_lines_is_wanted_whenever_one_of_its_lines_is(path: Path) -> None:
    """IO tests whole chunks (and pieces of long lines) with `wants` before cutting them
    into lines, so `wants` must pass a block whenever it would pass one of its lines,
    in every state the reader goes through."""
    lines = path.read_bytes().splitlines(keepends=True)
    reader = reader_for(harness_of(path))(path)
    for start, line in enumerate(lines):
        for width in (2, 5):
            window = lines[start : start + width]
            if any(reader.wants(one) for one in window):
                assert reader.wants(b"".join(window)), (start, width)
        if reader.wants(line):
            reader.feed_line(line)


@pytest.mark.parametrize("path", TRANSCRIPTS, ids=ids)
def test_reading_every_line_gives_the_same_result_as_reading_the_wanted_ones(path: Path) -> None:
    """The prefilter only saves work: lines it rejects hold nothing the reader uses."""
    harness = harness_of(path)
    filtered = reader_for(harness)(path)
    everything = reader_for(harness)(path)
    for line in path.read_bytes().splitlines(keepends=True):
        if filtered.wants(line):
            filtered.feed_line(line)
        everything.feed_line(line)
    got: list[SessionResult] = filtered.results()
    full: list[SessionResult] = everything.results()
    assert [r.plan for r in got] == [r.plan for r in full]
    for a, b in zip(got, full, strict=True):
        # Timestamps come only from wanted lines (IO adds the file's mtime).
        assert dataclasses.replace(a.facts, last_timestamp=None) == dataclasses.replace(b.facts, last_timestamp=None)


@pytest.mark.parametrize("path", TRANSCRIPTS, ids=ids)
def test_lines_without_their_newline_read_the_same(path: Path) -> None:
    """IO hands lines with the newline stripped."""
    harness = harness_of(path)
    stripped = reader_for(harness)(path)
    kept = reader_for(harness)(path)
    for line in path.read_bytes().splitlines(keepends=True):
        if kept.wants(line):
            kept.feed_line(line)
        bare = line.rstrip(b"\r\n")
        if stripped.wants(bare):
            stripped.feed_line(bare)
    assert stripped.results() == kept.results()
    assert stripped.skipped_lines == kept.skipped_lines


@pytest.mark.parametrize("harness", ["claude", "codex", "acp", "gemini"])
def test_garbage_never_raises(harness: Harness, tmp_path: Path) -> None:
    reader = reader_for(harness)(tmp_path / "x.jsonl")
    garbage = [
        b"",
        b"\n",
        b"{",
        b"null",
        b'"TodoWrite"',
        b"\xff\xfe\x00",
        b'{"type":"assistant","message":{"content":[{"type":"tool_use","name":"TodoWrite","id":5,"input":[]}]}}',
        b'{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":null}]},"toolUseResult":7}',
        b'{"type":"response_item","payload":{"type":"function_call","name":"update_plan","arguments":7}}',
        b'{"type":"session_meta","payload":{"id":3,"source":{"subagent":"x"}}}',
        b'{"msg":{"method":"session/update","params":{"sessionId":1,"update":{"sessionUpdate":"plan"}}}}',
        b'{"msg":{"method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"plan_update","plan":{"type":7}}}}}',
        b'{"jsonrpc":"2.0","id":[1],"result":{"sessionId":["x"]}}',
        b'{"$rewindTo":7}',
        b'{"$set":{"messages":[7,{"id":3,"type":"user","content":{"text":5}}]}}',
        b'{"id":"m1","timestamp":"x","type":"gemini","toolCalls":[{"name":"write_todos","status":"success","args":{"todos":[{"description":3}]}}]}',
        b'{"id":"m\\u0032","timestamp":"2026-11-30T00:00:00Z","type":"info"}',
        b'{"sessionId":"s","projectHash":"h","startTime":7,"kind":"subagent"}',
        b"[" * 100_000,
    ]
    for line in garbage:
        reader.wants(line)
        reader.feed_line(line)
        reader.is_full_list(line)
    reader.results()
    assert reader.skipped_lines >= 4


def test_reader_for_every_harness() -> None:
    harnesses = ("claude", "codex", "acp", "gemini")
    assert [reader_for(h).harness for h in harnesses] == list(harnesses)
    with pytest.raises(ValueError):
        reader_for("cursor")  # type: ignore[arg-type]


def test_a_result_copies_every_fact_of_its_reader() -> None:
    """`SessionFacts.copy` (what each reader's result hands out) keeps every field: each
    set here to a value unlike its default, the copy equals the original."""
    values: dict[str, object] = {
        "is_subagent": True,
        "last_timestamp": datetime(2026, 1, 1, tzinfo=UTC),
        "subagent_ids": ["a"],
    }
    facts = SessionFacts(**{f.name: values.get(f.name, f"value of {f.name}") for f in dataclasses.fields(SessionFacts)})
    copied = facts.copy()
    assert copied == facts and copied is not facts
    assert all(
        getattr(copied, f.name) != f.default for f in dataclasses.fields(SessionFacts) if f.name != "subagent_ids"
    )
