"""A warm start shows its first rows before it has found every file: the newest files the
warm-start cache remembers are replayed (each checked against the file as it is read)
before the folders are walked, and the walk then reads what is left, so no file is read
twice and none is missed, and the answer is a cold scan's.

What proves the order is the folders themselves: a session written while the first batch
is being handed on is found by the same scan only if the walk comes after that batch."""

from __future__ import annotations

import dataclasses
import os
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from app_transcripts import ClaudeTranscript

from planwatch.core.index import BATCH_FILES, SessionIndex
from planwatch.core.sessions import SessionEntry
from planwatch.core.transcripts.warmcache import cache_file

START = datetime.now(UTC).replace(microsecond=0) - timedelta(hours=2)
SESSIONS = 120


def write_sessions(claude: Path) -> list[ClaudeTranscript]:
    """SESSIONS sessions, newest activity first in the list returned; each file's mtime
    says the opposite (the walk finds the oldest session's file first)."""
    made = []
    for n in range(SESSIONS):
        transcript = ClaudeTranscript(claude, f"/home/dev/p{n % 7}", at=START - timedelta(minutes=5 * n))
        transcript.custom_title(f"Session {n}").todo_write([("Read", "completed"), ("Write", "pending")])
        stamp = time.time() - 7200 + n
        os.utime(transcript.path, (stamp, stamp))
        made.append(transcript)
    return made


def as_dicts(entries: list[SessionEntry]) -> list[dict[str, object]]:
    return [dataclasses.asdict(entry) for entry in entries]


def cold_entries(roots: list[Path]) -> list[dict[str, object]]:
    """What a cold scan of the folders as they are now gives (the cache set aside)."""
    kept = cache_file().read_bytes()
    cache_file().unlink()
    try:
        index = SessionIndex(roots)
        index.save_after_scan = False
        index.scan()
        return as_dicts(index.entries())
    finally:
        cache_file().write_bytes(kept)


def test_a_warm_scan_shows_the_newest_remembered_sessions_before_it_walks_the_folders(isolated_env) -> None:  # type: ignore[no-untyped-def]
    made = write_sessions(isolated_env.claude)
    roots = [isolated_env.claude / "projects"]
    SessionIndex(roots).scan()  # cold: writes the cache
    assert cache_file().exists()

    index = SessionIndex(roots)
    batches: list[list[str]] = []
    late = ClaudeTranscript(isolated_env.claude, "/home/dev/late", at=START - timedelta(days=3))

    def on_batch(entries: list[SessionEntry]) -> None:
        if not batches:
            # Found by this scan only if its folders are walked after the first batch.
            late.custom_title("Written while the first rows were handed on").todo_write([("Late", "pending")])
            batches.append([entry.session.id for entry in entries])
            batches.append([f"found {index.progress[1]}"])
        else:
            batches.append([entry.session.id for entry in entries])

    index.scan(on_batch)
    newest = [transcript.session_id for transcript in made]
    first, found_then = batches[0], batches[1]
    assert first == newest[:BATCH_FILES]  # the newest remembered, in order
    assert found_then == ["found 0"]  # handed on before any file was found
    ids = [entry.session.id for entry in index.entries()]
    assert late.session_id in ids  # the walk came after the first rows
    assert ids == [*newest, late.session_id]
    # Every file read once: the early ones are not read again by the walk's scan.
    assert index.progress == (SESSIONS + 1, SESSIONS + 1)
    assert as_dicts(index.entries()) == cold_entries(roots)


def test_a_file_read_early_that_changes_or_goes_before_the_walk_is_read_again_or_dropped(isolated_env) -> None:  # type: ignore[no-untyped-def]
    made = write_sessions(isolated_env.claude)
    roots = [isolated_env.claude / "projects"]
    SessionIndex(roots).scan()
    grown, gone = made[0], made[1]  # both among the newest: read early

    index = SessionIndex(roots)
    index.save_after_scan = False
    shown: list[set[str]] = []

    def on_batch(entries: list[SessionEntry]) -> None:
        if not shown:
            grown.todo_write([("Read", "completed"), ("Write", "completed"), ("Ship", "in_progress")])
            gone.path.unlink()
        shown.append({entry.session.id for entry in entries})

    index.scan(on_batch)
    assert {grown.session_id, gone.session_id} <= shown[0]  # both were shown early
    ids = [entry.session.id for entry in index.entries()]
    assert gone.session_id not in ids
    assert len(ids) == SESSIONS - 1
    entry = index.get(grown.session_id)
    assert entry is not None and entry.plan is not None
    assert [item.status for group in entry.plan.groups for item in group.items][-1] == "in_progress"
    assert as_dicts(index.entries()) == cold_entries(roots)


def test_a_warm_scan_of_unchanged_files_leaves_the_cache_as_it_was(isolated_env) -> None:  # type: ignore[no-untyped-def]
    """The early pass reads a share of the files the cache remembers and the walk the
    rest: the cache still counts as holding every file, and is not written again."""
    made = write_sessions(isolated_env.claude)
    roots = [isolated_env.claude / "projects"]
    SessionIndex(roots).scan()
    written = cache_file().stat().st_mtime_ns
    index = SessionIndex(roots)
    batches: list[list[SessionEntry]] = []
    index.scan(batches.append)
    assert [entry.session.id for entry in batches[0]] == [t.session_id for t in made[:BATCH_FILES]]
    assert cache_file().stat().st_mtime_ns == written
    assert index.progress == (SESSIONS, SESSIONS)
