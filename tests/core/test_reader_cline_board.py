"""Cline: the plan is the session's rows on the board (`teams.db`), whatever else is
wrong for a moment: a board locked between its two reads shows its plan at the next
refresh, a messages document too large to read leaves the board's plan (only one caught
half-written takes it away), and a board file made but without its tables yet is no board
yet, with nothing to say."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from cline_data import ClineData

import planwatch.core.transcripts.cline as cline
import planwatch.core.transcripts.opencode_sql as opencode_sql
from planwatch.core.transcripts.cline import ClineReader


def test_a_cline_board_locked_only_for_a_moment_shows_the_plan_once_it_is_free(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(opencode_sql, "BUSY_TIMEOUT", 0.05)
    monkeypatch.setattr(opencode_sql, "RETRY_PAUSE", 0.01)
    data = ClineData(tmp_path / "data", wal=False)
    try:
        data.session("1796000000001_aaaaa", "Build it", "/home/dev/app")
        data.task("1796000000001_aaaaa", "task_0001", "Inspect the loader")
        # A real lock taken by another connection between the refresh's two reads of the
        # board (its counts, then its rows): the second read is refused.
        locker = sqlite3.connect(data.folder / "db" / "teams.db", isolation_level=None)
        calls = {"n": 0}
        real = cline.read_transaction

        def read_then_lock(path, work, **kw):  # type: ignore[no-untyped-def]
            calls["n"] += 1
            if calls["n"] == 2:
                locker.execute("BEGIN EXCLUSIVE")
            return real(path, work, **kw)

        monkeypatch.setattr(cline, "read_transaction", read_then_lock)
        reader = ClineReader(data.folder)
        [result] = reader.read()
        assert result.plan.groups == () and reader.problem is not None and "locked" in reader.problem
        locker.execute("COMMIT")
        locker.close()
        # The board is free again and nothing on it changed: the plan it holds is shown.
        reader.refresh()
        [result] = reader.results()
        assert reader.problem is None
        assert [(i.text, i.status) for g in result.plan.groups for i in g.items] == [("Inspect the loader", "pending")]
    finally:
        data.close()


def test_a_cline_session_whose_messages_document_is_too_large_to_read_still_shows_its_board(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The bound on a document read whole, made small so the test writes little.
    monkeypatch.setattr(cline, "MAX_DOCUMENT", 4096)
    data = ClineData(tmp_path / "data")
    try:
        sid = "1796000000002_bbbbb"
        data.session(sid, "Build it", "/home/dev/app")
        data.messages(
            sid,
            [ClineData.user("Build it"), *({"role": "assistant", "content": "x" * 1000} for _ in range(8))],
            updated="2026-12-01T18:50:00.000Z",
        )
        data.task(sid, "task_0001", "Inspect the loader", "completed")
        data.task(sid, "task_0002", "Add YAML parsing", "in_progress")
        reader = ClineReader(data.folder)
        [result] = reader.read()
        # The plan is the session's rows on the board, whatever its messages document.
        assert [(i.text, i.status) for g in result.plan.groups for i in g.items] == [
            ("Inspect the loader", "completed"),
            ("Add YAML parsing", "in_progress"),
        ]
    finally:
        data.close()


def test_a_cline_board_made_but_without_tables_yet_is_no_board_yet_and_nothing_to_say(tmp_path: Path) -> None:
    data = ClineData(tmp_path / "data")
    data.session("1796000000003_ccccc", "Build it", "/home/dev/app")
    data.close()
    board = data.folder / "db" / "teams.db"
    board.unlink()
    board.write_bytes(b"")  # opened by Cline, its schema not written yet
    reader = ClineReader(data.folder)
    [result] = reader.read()
    assert result.plan.groups == () and reader.problem is None
