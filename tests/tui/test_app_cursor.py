"""Where the session list's cursor is while the first scan feeds the list in pieces,
driven through the real app and its index under Pilot: on the newest session (newer
sessions arriving after older ones, each landing above them) until the person moves
it, then on the session they chose. (Moves, `g` `G` and half pages are tested on the
browse screen alone: test_screen_browse_cursor.py.)

These boot the whole app because their point is the first scan itself: the real index
feeding the list one file per batch."""

from __future__ import annotations

import os
import threading
from datetime import UTC, datetime, timedelta

import pytest
from app_transcripts import ClaudeTranscript, option_texts, until

from planwatch.core import index as index_module
from planwatch.core.index import SessionIndex
from planwatch.tui.app import AppOptions, make_app
from planwatch.tui.widgets.checklist import ChecklistView
from planwatch.tui.widgets.session_list import SessionList

pytestmark = pytest.mark.asyncio

NOW = datetime.now(UTC)


class PiecewiseIndex(SessionIndex):
    """The real index, its first scan feeding the app one file per batch, each batch held
    until the test lets it go (`release`): the list is seen after every piece."""

    def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        self.release = threading.Semaphore(0)
        self.batches = 0

    def scan(self, on_batch=None) -> None:  # type: ignore[no-untyped-def]
        def held(entries):  # type: ignore[no-untyped-def]
            if on_batch is not None:
                on_batch(entries)
            self.batches += 1
            self.release.acquire(timeout=120)  # bounds a failed test only: the test lets go

        super().scan(held)


def write_sessions(isolated_env, count: int) -> list[ClaudeTranscript]:  # type: ignore[no-untyped-def]
    """`count` sessions, the newest activity last in the list; each file's mtime the
    reverse of its activity, so the scan (newest file first) reads the oldest session
    first and the newest last."""
    made = []
    for n in range(count):
        transcript = ClaudeTranscript(isolated_env.claude, f"/home/dev/p{n}", at=NOW - timedelta(hours=count - n))
        transcript.custom_title(f"Session {n}").todo_write([(f"Step of session {n}", "pending")])
        stamp = (NOW - timedelta(days=1, minutes=n)).timestamp()
        os.utime(transcript.path, (stamp, stamp))
        made.append(transcript)
    return made


def checklist_rows(app) -> list[str]:  # type: ignore[no-untyped-def]
    return option_texts(app.screen.query_one("#checklist", ChecklistView))


async def screen_selects(pilot, app, session_id: str) -> None:  # type: ignore[no-untyped-def]
    """Wait for the screen to take the list's session (the list says so with a message)."""
    await until(pilot, lambda: app.screen.selected_id == session_id, what=f"the screen on {session_id}")


def session_list(app) -> SessionList:  # type: ignore[no-untyped-def]
    return app.screen.query_one("#sessions", SessionList)


@pytest.mark.parametrize("size", [(120, 36), (80, 24)])
async def test_while_the_scan_feeds_the_list_in_pieces_the_cursor_stays_on_the_newest_session(
    isolated_env, monkeypatch, size
) -> None:
    sessions = write_sessions(isolated_env, 4)
    monkeypatch.setattr(index_module, "BATCH_FILES", 1)  # a batch per file
    index = PiecewiseIndex([isolated_env.claude / "projects"])
    app = make_app(AppOptions(config_path=isolated_env.config, index=index, follow=False, clock=lambda: NOW))
    async with app.run_test(size=size) as pilot:
        for arrived in range(1, len(sessions) + 1):
            await until(pilot, lambda n=arrived: session_list(app).option_count == n, what=f"{arrived} rows")
            newest = sessions[arrived - 1]  # each piece brings a session newer than those before
            listed = session_list(app)
            assert listed.shown_ids[0] == newest.session_id
            assert listed.highlighted == 0 and listed.selected_id == newest.session_id
            await screen_selects(pilot, app, newest.session_id)
            await until(
                pilot, lambda n=arrived: f"[ ] Step of session {n - 1}" in checklist_rows(app), what="its checklist"
            )
            index.release.release()
        await until(pilot, lambda: app.scan_done is not None, what="the scan's end")
        assert session_list(app).highlighted == 0
        await screen_selects(pilot, app, sessions[-1].session_id)


async def test_once_the_person_moves_the_cursor_it_stays_on_their_session_as_newer_rows_arrive(
    isolated_env, monkeypatch
) -> None:
    sessions = write_sessions(isolated_env, 4)
    monkeypatch.setattr(index_module, "BATCH_FILES", 1)
    index = PiecewiseIndex([isolated_env.claude / "projects"])
    app = make_app(AppOptions(config_path=isolated_env.config, index=index, follow=False, clock=lambda: NOW))
    async with app.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: session_list(app).option_count == 1, what="the first row")
        index.release.release()
        await until(pilot, lambda: session_list(app).option_count == 2, what="two rows")
        await screen_selects(pilot, app, sessions[1].session_id)
        await pilot.press("j")  # the person chooses the older one
        assert app.screen.selected_id == sessions[0].session_id
        for arrived in (3, 4):
            index.release.release()
            await until(pilot, lambda n=arrived: session_list(app).option_count == n, what=f"{arrived} rows")
            assert session_list(app).selected_id == sessions[0].session_id
            await screen_selects(pilot, app, sessions[0].session_id)
        index.release.release()
        await until(pilot, lambda: app.scan_done is not None, what="the scan's end")
        assert session_list(app).highlighted == 3  # the oldest, at the bottom now
        assert "[ ] Step of session 0" in checklist_rows(app)


@pytest.mark.parametrize("pane", [True, False], ids=["--pane", "narrow"])
async def test_a_pane_follows_the_newest_session_while_the_scan_feeds_it_in_pieces(
    isolated_env, monkeypatch, pane
) -> None:
    sessions = write_sessions(isolated_env, 3)
    monkeypatch.setattr(index_module, "BATCH_FILES", 1)
    index = PiecewiseIndex([isolated_env.claude / "projects"])
    app = make_app(AppOptions(config_path=isolated_env.config, index=index, follow=False, clock=lambda: NOW, pane=pane))
    async with app.run_test(size=(40, 30)) as pilot:
        for arrived in range(1, len(sessions) + 1):
            newest = sessions[arrived - 1]
            await until(pilot, lambda s=newest: app.screen.selected_id == s.session_id, what=f"session {arrived}")
            await until(
                pilot, lambda n=arrived: f"[ ] Step of session {n - 1}" in checklist_rows(app), what="its checklist"
            )
            index.release.release()
        await until(pilot, lambda: app.scan_done is not None, what="the scan's end")
        assert app.screen.selected_id == sessions[-1].session_id
