"""What the app's tests of one harness share: a pane following the newest session, an app
whose first scan is done, the checklist's rows, a row's text at a width, and a recording
`$PAGER`.

Each harness's test module (tests/tui/test_cline.py, test_kilo.py, test_app_copilot.py,
test_app_qwen_pi.py, …) says only what differs: where its sessions are, what another
process changes, what the screen then shows.
"""

from __future__ import annotations

import subprocess
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from app_transcripts import option_texts, until
from textual.message import Message

from planwatch.tui.app import AppOptions, make_app
from planwatch.tui.widgets.checklist import ChecklistView
from planwatch.tui.widgets.session_rows import RowLayout, SessionRow, row_text

NOW = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


def rows(app: Any) -> list[str]:
    """The checklist's rows as a person reads them."""
    return option_texts(app.screen.query_one("#checklist", ChecklistView))


@asynccontextmanager
async def following_pane(config: Path, session_id: str) -> AsyncIterator[tuple[Any, Any]]:
    """The app in pane mode at 40 columns, its first scan done and its follower watching,
    the pane on `session_id` (the newest session); yields the app and its pilot."""
    app = make_app(AppOptions(config_path=config, pane=True))
    async with app.run_test(size=(40, 30)) as pilot:
        await until(pilot, lambda: app.scan_done is not None, what="the scan")
        await until(pilot, lambda: app.following, what="the follower")
        assert app.screen.selected_id == session_id
        yield app, pilot


@asynccontextmanager
async def scanned_app(
    config: Path, size: tuple[int, int] = (160, 36), message_hook: Callable[[Message], None] | None = None
) -> AsyncIterator[tuple[Any, Any]]:
    """The app, not following, once its first scan is done; yields the app and its pilot.
    `message_hook`: as `run_test`'s (a `Toasts` keeps the notifications)."""
    app = make_app(AppOptions(config_path=config, follow=False))
    async with app.run_test(size=size, message_hook=message_hook) as pilot:
        await until(pilot, lambda: app.scan_done is not None, what="the scan")
        yield app, pilot


async def checklist_row(app: Any, pilot: Any, holding: str) -> str:
    """The one checklist row that holds `holding`, once the checklist shows it."""
    await until(pilot, lambda: any(holding in r for r in rows(app)), what="the checklist")
    [row] = [r for r in rows(app) if holding in r]
    return row


async def headed_checklist_row(config: Path, holding: str, header: str) -> str:
    """The one checklist row holding `holding` once the app's first scan is done (160
    columns, not following), the checklist also showing its source's `header`."""
    async with scanned_app(config) as (app, pilot):
        row = await checklist_row(app, pilot, holding)
        assert any(header in r for r in rows(app))
    return row


def run_writer(*argv: str) -> None:
    """Run another process that writes to a harness's files (a test helper script), and
    fail with its stderr if it did not succeed."""
    out = subprocess.run(list(argv), capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr


async def a_row_another_process_writes_shows_in_the_pane(
    config: Path, session_id: str, writer: Sequence[str], header: str
) -> None:
    """The pane follows `session_id`, whose plan holds "Run the config tests"; `writer` (a
    test helper script, run as another process) adds the step "Document the YAML support",
    and the pane shows it, the checklist still headed by `header`."""
    async with following_pane(config, session_id) as (app, pilot):
        await until(pilot, lambda: any("Run the config tests" in r for r in rows(app)), what="the plan")
        run_writer(*writer)
        await until(pilot, lambda: "[ ] Document the YAML support" in rows(app), what="the new row")
        assert any(header in r for r in rows(app))


def row_texts(harnesses: Sequence[str], width: int) -> list[str]:
    """The plain text of a row titled `Title` for each harness, laid out together at `width`."""
    session_rows = [
        SessionRow(f"s{n}", harness, "Title", f"/home/dev/{n}", NOW, 1, 4, None) for n, harness in enumerate(harnesses)
    ]
    layout = RowLayout.for_rows(session_rows, width)
    return [row_text(row, NOW, layout).plain for row in session_rows]


def recording_pager(folder: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Set `$PAGER` to a script that saves its stdin, whole, at the returned path (which
    exists only once the pager has read everything)."""
    seen = folder / "pager-input"
    pager = folder / "pager"
    pager.write_text(f"#!/bin/sh\ncat > {seen}.part && mv {seen}.part {seen}\n")
    pager.chmod(0o755)
    monkeypatch.setenv("PAGER", str(pager))
    return seen
