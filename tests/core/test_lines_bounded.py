"""docs/reading.md, Bounded reading: every read is bounded. A last line that never ends is read
no further than the line bound, and a session document too large to parse is named,
not read. Real transcripts made huge with sparse files (no gigabytes are written)."""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path

import pytest

from planwatch.core.transcripts.lines import MAX_DOCUMENT, read_transcript
from planwatch.core.transcripts.linescan import MAX_LINE
from planwatch.core.transcripts.registry import reader_for

ROOT = Path(__file__).resolve().parents[2]
CLAUDE = ROOT / "fixtures/transcripts/claude/projects/-home-dev-docs/7a3e9b1c-5d2f-4a8e-b6c0-1e9d4f7a2b58.jsonl"
GEMINI = ROOT / "fixtures/transcripts/rules/gemini/tmp/oldproj/chats/session-2026-11-29T17-00-a1000000.json"


def bytes_read() -> int:
    """What this process has read so far (Linux `/proc/self/io`, read and pread alike)."""
    with open("/proc/self/io", encoding="ascii") as fh:
        return next(int(line.split()[1]) for line in fh if line.startswith("rchar:"))


@pytest.mark.skipif(not os.path.exists("/proc/self/io"), reason="counts reads through /proc")
def test_a_last_line_that_never_ends_is_read_no_further_than_the_line_bound(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / CLAUDE.name
    shutil.copy(CLAUDE, path)
    with path.open("ab") as fh:
        fh.write(b'{"type":"user","message":{"content":"a line that never ends')
    huge = 8 * MAX_LINE  # 2 GB, sparse: the rest of the unfinished line
    os.truncate(path, huge)
    reader = reader_for("claude")(path)
    before = bytes_read()
    with caplog.at_level(logging.WARNING):
        outcome = read_transcript(reader, path)
    read = bytes_read() - before
    assert read < 2 * MAX_LINE, f"{read:,} bytes read of a {huge:,}-byte file"
    assert outcome.long_lines_skipped == 1
    assert reader.results()[0].facts.cwd == "/home/dev/docs"  # the real lines were read
    assert "no end in sight" in caplog.text


def test_a_session_document_too_large_to_parse_is_named_not_read(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "big" / "chats" / GEMINI.name  # where Gemini CLI keeps its sessions
    path.parent.mkdir(parents=True)
    shutil.copy(GEMINI, path)
    os.truncate(path, MAX_DOCUMENT + 1)  # sparse: past the bound without writing it
    reader = reader_for("gemini")(path)
    with caplog.at_level(logging.WARNING):
        outcome = read_transcript(reader, path)
    assert outcome.long_lines_skipped == 1
    assert f"{path}: a session document of {MAX_DOCUMENT + 1} bytes is larger than {MAX_DOCUMENT} bytes" in caplog.text
    small = tmp_path / "small" / "chats" / GEMINI.name  # the positive twin: the same document, its own size, is read
    small.parent.mkdir(parents=True)
    shutil.copy(GEMINI, small)
    twin = reader_for("gemini")(small)
    assert read_transcript(twin, small).long_lines_skipped == 0
    assert twin.results()[0].facts.id
