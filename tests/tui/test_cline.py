"""Cline CLI sessions on the command line (real subprocesses) and in the app: found in
`$CLINE_DATA_DIR` (else `$CLINE_DIR/data`), by `--root`, by path (a session's folder or
file, the board) and by id (or a unique prefix), listed as harness `cline`, shown under
`# cline_tasks`, named Cline (L when narrow), and followed live in the pane when another
process inserts a row on the board."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from app_transcripts import option_texts, until
from cline_data import SAMPLE_ID, SAMPLES

from planwatch.core import paths
from planwatch.tui.app import AppOptions, make_app
from planwatch.tui.widgets.checklist import ChecklistView
from planwatch.tui.widgets.session_rows import RowLayout, SessionRow, row_text

ROOT = Path(__file__).resolve().parents[2]
HELPER = ROOT / "tests/cline_data.py"
DEMO = ROOT / "fixtures/transcripts/cline/data"
PLAIN = [
    "# cline_tasks",
    "completed\tInspect the current config loader",
    "completed\tAdd YAML parsing to load_config()",
    "blocked\tAdd a TOML fallback",
    "completed\tRun the config tests",
]


def planwatch(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "planwatch.tui.cli", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=60,
    )


def _home_data() -> Path:
    data = paths.cline_data_dir()
    shutil.copytree(SAMPLES / SAMPLE_ID, data / "sessions" / SAMPLE_ID)
    (data / "db").mkdir(parents=True)
    shutil.copy(SAMPLES / "teams.db", data / "db" / "teams.db")
    return data


def test_cline_sessions_are_listed_from_their_data_folder_as_harness_cline() -> None:
    _home_data()
    rows = {row["id"]: row for row in json.loads(planwatch("sessions", "--json").stdout)}
    row = rows[SAMPLE_ID]
    assert row["harness"] == "cline" and row["source"] == "cline_tasks"
    assert (row["done"], row["total"]) == (3, 4) and row["cwd"] == "/home/dev/cline-todos"
    assert row["title"].startswith("Add YAML support")


def test_show_plain_headers_cline_tasks_by_id_prefix_and_by_path() -> None:
    data = _home_data()
    by_prefix = planwatch("show", "--plain", SAMPLE_ID[:9])
    assert by_prefix.returncode == 0, by_prefix.stderr
    assert by_prefix.stdout.splitlines() == PLAIN
    folder = data / "sessions" / SAMPLE_ID
    for given in (
        folder,
        folder / f"{SAMPLE_ID}.json",
        folder / f"{SAMPLE_ID}.messages.json",
        data / "db" / "teams.db",
    ):
        shown = planwatch("show", "--plain", str(given))
        assert shown.returncode == 0, (given, shown.stderr)
        assert shown.stdout.splitlines() == PLAIN, given
    person = planwatch("show", SAMPLE_ID)
    assert "Cline tasks 3/4" in person.stdout and "[!] Add a TOML fallback" in person.stdout


def test_root_pointing_at_a_cline_folder_lists_its_session_with_what_a_step_waits_for() -> None:
    rows = json.loads(planwatch("sessions", "--json", "--root", str(DEMO)).stdout)
    assert [(r["harness"], r["done"], r["total"]) for r in rows] == [("cline", 1, 4)]
    shown = planwatch("show", "--root", str(DEMO.parent), rows[0]["id"])
    line = next(line for line in shown.stdout.splitlines() if "Serve the resized file" in line)
    assert "waits for “Add a resize job to the queue”" in line


def test_a_cline_board_that_cannot_be_read_is_named_once_and_its_sessions_are_listed(tmp_path: Path) -> None:
    data = _home_data()
    board = data / "db" / "teams.db"
    board.write_bytes(b"SQLite format 3\x00" + os.urandom(8192))
    out = planwatch("sessions", "--json")
    assert out.returncode == 0
    [row] = json.loads(out.stdout)
    assert row["harness"] == "cline" and row["total"] == 0
    assert out.stderr.count(str(board)) == 1 and "corrupt" in out.stderr


def rows(app) -> list[str]:  # type: ignore[no-untyped-def]
    return option_texts(app.screen.query_one("#checklist", ChecklistView))


@pytest.mark.asyncio
async def test_a_cline_row_inserted_by_another_process_shows_in_the_pane(isolated_env) -> None:  # type: ignore[no-untyped-def]
    data = _home_data()
    app = make_app(AppOptions(config_path=isolated_env.config, pane=True))
    async with app.run_test(size=(40, 30)) as pilot:
        await until(pilot, lambda: app.scan_done is not None, what="the scan")
        await until(pilot, lambda: app.following, what="the follower")
        assert app.screen.selected_id == SAMPLE_ID
        await until(pilot, lambda: any("Run the config tests" in r for r in rows(app)), what="the plan")
        out = subprocess.run(
            [sys.executable, str(HELPER), str(data), SAMPLE_ID, "Document the YAML support"],
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert out.returncode == 0, out.stderr
        await until(pilot, lambda: "[ ] Document the YAML support" in rows(app), what="the new row")
        assert any("Cline tasks" in r for r in rows(app))


def test_rows_name_cline_by_name_when_wide_and_by_its_letter_when_narrow() -> None:
    now = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
    cline = SessionRow("c1", "cline", "Title", "/home/dev/x", now, 1, 4, None)
    assert "● Cline    Title" in row_text(cline, now, RowLayout.for_rows([cline], 120)).plain
    assert "● L Title" in row_text(cline, now, RowLayout.for_rows([cline], 60)).plain


@pytest.mark.asyncio
async def test_o_pages_a_cline_sessions_messages_document_as_safe_text(isolated_env, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A Cline session is a folder of its data folder: `o` gives the pager its messages
    document (what was said), through safe text, never the folder."""
    read = tmp_path / "pager-input"
    pager = tmp_path / "pager"
    pager.write_text(f"#!/bin/sh\ncat > {read}.tmp && mv {read}.tmp {read}\n")  # records its stdin, whole
    pager.chmod(0o755)
    monkeypatch.setenv("PAGER", str(pager))
    _home_data()
    app = make_app(AppOptions(config_path=isolated_env.config, follow=False))
    async with app.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: app.scan_done is not None and app.screen.selected_id == SAMPLE_ID, what="the scan")
        app.screen.query_one("#checklist").focus()
        await pilot.press("o")
        await until(pilot, read.exists, what="the pager")
    paged = read.read_text()
    assert '"sessionId": "1796150957437_jfzg6"' in paged and "team_task" in paged
