"""Last activity from records' times that lie: stamps in the future, in odd time zones,
with no UTC form (docs/reading.md, Sessions: activity is the
last record's time). Real transcripts in their harnesses' places, read by a real index."""

from __future__ import annotations

import importlib.util
import json
import os
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from planwatch.core import paths
from planwatch.core.index import SessionIndex, default_roots
from planwatch.core.settings import Settings
from planwatch.core.transcripts.reader import line_time, time_pattern

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("bench_corpus", ROOT / "tests" / "bench" / "corpus.py")
assert _spec and _spec.loader
corpus = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(corpus)

CURRENT = "5e0c2a4b-1f3d-4e6a-9b8c-7d0e1f2a3b4c"
FAR_FUTURE = "6a1d3b5c-2e4f-4a7b-8c9d-0e1f2a3b4c5d"
THREAD = "019ad3f1-0000-7000-8000-0000000000a1"


def _claude(session_id: str, start: datetime) -> Path:
    path = paths.claude_projects_dir() / "-home-dev-api" / f"{session_id}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as fh:
        w = corpus.ClaudeWriter(fh, session_id, "/home/dev/api", start=start)
        w.prompt("Add rate limiting")
        w.todo_write([("Write the limiter", "in_progress"), ("Test it", "pending")])
    return path


def _codex(thread: str, start: datetime) -> Path:
    path = corpus.codex_path(paths.codex_session_dirs()[0], thread)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as fh:
        w = corpus.CodexWriter(fh, start=start)
        w.meta(thread, "/home/dev/web")
        w.prompt("Paginate the orders endpoint")
    return path


def _set_mtime(path: Path, when: datetime) -> None:
    os.utime(path, (when.timestamp(), when.timestamp()))


def _index() -> SessionIndex:
    index = SessionIndex(default_roots(Settings()))
    index.scan()
    return index


def test_a_record_stamped_in_the_future_neither_pins_its_session_on_top_nor_postdates_now() -> None:
    now = datetime.now(UTC)
    current = _claude(CURRENT, now - timedelta(hours=1))
    far = _claude(FAR_FUTURE, datetime(9999, 12, 30, tzinfo=UTC))  # a hostile or broken clock
    # A day ahead, written in an odd zone (as a skewed host would write it).
    skewed = _codex(THREAD, (now + timedelta(days=1)).astimezone(timezone(timedelta(hours=-23, minutes=-59))))
    _set_mtime(current, now - timedelta(minutes=5))  # mtimes do not move a record's age
    _set_mtime(far, now - timedelta(hours=2))
    _set_mtime(skewed, now - timedelta(hours=3))
    index = _index()
    later = datetime.now(UTC)
    entries = index.entries()
    assert [e.session.id for e in entries] == [CURRENT, FAR_FUTURE, THREAD]
    assert all(e.session.updated <= later for e in entries)
    # The session with a record from the future is as old as the file's last write.
    by_id = {e.session.id: e.session.updated for e in entries}
    assert abs(by_id[FAR_FUTURE] - (now - timedelta(hours=2))) < timedelta(seconds=1)
    assert abs(by_id[THREAD] - (now - timedelta(hours=3))) < timedelta(seconds=1)
    # Its positive twin: a record in the past keeps its own time, not the mtime.
    assert now - timedelta(hours=1) < by_id[CURRENT] < now - timedelta(minutes=59)


def test_a_record_stamped_in_the_future_with_a_future_mtime_reads_as_now_at_most() -> None:
    now = datetime.now(UTC)
    far = _claude(FAR_FUTURE, datetime(9999, 12, 30, tzinfo=UTC))
    _set_mtime(far, datetime(2099, 1, 1, tzinfo=UTC))
    entry = _index().get(FAR_FUTURE)
    assert entry is not None
    assert now <= entry.session.updated <= datetime.now(UTC)


def test_record_times_in_any_zone_are_held_in_utc() -> None:
    # 20:00 at +14:00 is 06:00 UTC; "Last activity" and ages share one zone.
    _claude(CURRENT, datetime(2026, 11, 30, 20, 0, tzinfo=timezone(timedelta(hours=14))))
    entry = _index().get(CURRENT)
    assert entry is not None
    assert entry.session.updated.utcoffset() == timedelta(0)
    assert datetime(2026, 11, 30, 6, 0, tzinfo=UTC) < entry.session.updated < datetime(2026, 11, 30, 6, 1, tzinfo=UTC)


def test_a_record_time_with_no_utc_form_is_no_time() -> None:
    # Year 1 at +05:00 is before the first UTC instant a datetime holds: the record
    # before it gives the session's age instead, and nothing fails.
    path = _claude(CURRENT, datetime(2026, 11, 30, 8, 0, tzinfo=UTC))
    record = {
        "type": "user",
        "uuid": "9f0e2d4c-1b3a-4c5d-8e7f-6a5b4c3d2e1f",
        "parentUuid": None,
        "isSidechain": False,
        "timestamp": "0001-01-01T00:00:00.000+05:00",
        "cwd": "/home/dev/api",
        "sessionId": CURRENT,
        "version": "2.1.328",
        "gitBranch": "main",
        "message": {"role": "user", "content": "One more thing"},
    }
    with path.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(record) + "\n")
    entry = _index().get(CURRENT)
    assert entry is not None
    assert datetime(2026, 11, 30, 8, 0, tzinfo=UTC) < entry.session.updated < datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("line", "latest"),
    [
        (b'{"timestamp":"2026-11-26T16:03:18.222Z","x":1}', datetime(2026, 11, 26, 16, 3, 18, 222000, tzinfo=UTC)),
        # a nested time counts, the latest wins; a spaced colon is still JSON structure
        (
            b'{"timestamp": "2026-01-01T00:00:00Z","r":{"timestamp" : "2026-02-01T00:00:00Z"}}',
            datetime(2026, 2, 1, tzinfo=UTC),
        ),
        # the key inside a string (quotes escaped) is text, not a time; a key with no time is passed over
        (
            b'{"t":"\\"timestamp\\":\\"2030-01-01T00:00:00Z\\"","timestamp":"bad","timestamp":"2026-03-01T00:00:00Z"}',
            datetime(2026, 3, 1, tzinfo=UTC),
        ),
        (b'{"timestamp""timestamp":"2026-04-01T00:00:00Z"}', datetime(2026, 4, 1, tzinfo=UTC)),
        (b'{"timestamp":"2027-13-99T00:00:00Z"}', None),  # not a time
        (b'{"timestamp":"2026-11-26T16:03:18Z"', None),  # a torn line is no record
    ],
)
def test_a_records_time_is_the_latest_time_key_in_its_line(line: bytes, latest: datetime | None) -> None:
    assert line_time(line, time_pattern("timestamp")) == latest


@pytest.mark.parametrize("size", [100_000, 3_000_000, 12_000_000], ids=["100KB", "3MB", "12MB-read-in-windows"])
def test_last_activity_is_the_last_records_time_past_a_long_tool_result(size: int) -> None:
    """Claude Code writes a tool result's `timestamp` before its `toolUseResult` (the
    file read, whole), and the records after it (`last-prompt`) carry no time: the last
    record's time lies further back than the last lines, and is found there (docs/
    reading.md, Sessions) — in a file read whole and in a long one read by its windows,
    cold and from the warm-start cache."""
    start = datetime(2026, 11, 30, 7, 0, tzinfo=UTC)
    path = paths.claude_projects_dir() / "-home-dev-api" / f"{CURRENT}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    head = {"type": "user", "sessionId": CURRENT, "cwd": "/home/dev/api", "uuid": "u1", "parentUuid": None}
    result = {
        "parentUuid": "a1",
        "type": "user",
        "message": {"role": "user", "content": [{"tool_use_id": "toolu_1", "type": "tool_result", "content": "x"}]},
        "uuid": "u2",
        "timestamp": "2026-11-30T10:00:00.000Z",
        "toolUseResult": {"type": "text", "file": {"filePath": "/home/dev/api/data.json", "content": "x" * size}},
        "sessionId": CURRENT,
        "cwd": "/home/dev/api",
    }
    records = [
        {**head, "timestamp": "2026-11-30T07:00:00.000Z", "message": {"role": "user", "content": "Read data.json"}},
        result,
        {"type": "last-prompt", "lastPrompt": "Read data.json", "leafUuid": "u2", "sessionId": CURRENT},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    _set_mtime(path, start)
    for _start in ("cold", "warm"):
        entry = _index().get(CURRENT)
        assert entry is not None and entry.session.updated == datetime(2026, 11, 30, 10, tzinfo=UTC), _start
