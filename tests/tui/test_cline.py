"""Cline CLI sessions on the command line (real subprocesses) and in the app: found in
`$CLINE_DATA_DIR` (else `$CLINE_DIR/data`), by `--root`, by path (a session's folder or
file, the board) and by id (or a unique prefix), listed as harness `cline`, shown under
`# cline_tasks`, named Cline (L when narrow), and followed live in the pane when another
process inserts a row on the board."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import sys
from pathlib import Path

import pytest
from app_transcripts import until
from cli_run import planwatch
from cline_data import SAMPLE_ID, SAMPLES
from harness_app import (
    a_row_another_process_writes_shows_in_the_pane,
    recording_pager,
    row_texts,
    scanned_app,
)

from planwatch.core import paths

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
        data,  # the path `sessions --json` gives a Cline session: every session of the folder
        Path(json.loads(planwatch("sessions", "--json").stdout)[0]["path"]),
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
    # Its session is listed all the same: said as that, not as skipped.
    assert out.stderr.startswith(f"planwatch: {board}: ")
    assert out.stderr.rstrip().endswith("; every session of the folder is listed without a plan")


def test_each_broken_file_of_a_cline_folder_is_named_on_a_line_of_its_own() -> None:
    """Several sessions whose metadata file is broken: each is said on a line of its own,
    naming its file (they were one line, cut short after the first two or three)."""
    data = _home_data()
    sessions = data / "sessions"
    [original] = [p for p in sessions.iterdir() if p.is_dir()]
    broken = []
    for n in range(6):
        sid = f"17960904{n:05d}_brk{n:02d}"
        folder = sessions / sid
        shutil.copytree(original, folder)
        for file in list(folder.iterdir()):
            file.rename(folder / file.name.replace(original.name, sid))
        (folder / f"{sid}.json").write_text("{ not json")
        broken.append(folder / f"{sid}.json")
    out = planwatch("sessions", "--json")
    assert out.returncode == 0, out.stderr
    lines = out.stderr.splitlines()
    assert len(lines) == len(broken), lines
    for path in broken:
        [line] = [line for line in lines if str(path) in line]
        assert line.startswith(f"planwatch: {path}: ") and line.endswith(
            "shown with what its other files and the board hold"
        )


@pytest.mark.asyncio
async def test_a_cline_row_inserted_by_another_process_shows_in_the_pane(isolated_env) -> None:  # type: ignore[no-untyped-def]
    data = _home_data()
    writer = [sys.executable, str(HELPER), str(data), SAMPLE_ID, "Document the YAML support"]
    await a_row_another_process_writes_shows_in_the_pane(isolated_env.config, SAMPLE_ID, writer, "Cline tasks")


def test_rows_name_cline_by_name_when_wide_and_by_its_letter_when_narrow() -> None:
    assert "● Cline    Title" in row_texts(["cline"], 120)[0]
    assert "● L Title" in row_texts(["cline"], 60)[0]


@pytest.mark.asyncio
async def test_o_pages_a_cline_sessions_messages_document_as_safe_text(isolated_env, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A Cline session is a folder of its data folder: `o` gives the pager its messages
    document (what was said), through safe text, never the folder."""
    read = recording_pager(tmp_path, monkeypatch)
    _home_data()
    async with scanned_app(isolated_env.config, size=(120, 36)) as (app, pilot):
        await until(pilot, lambda: app.screen.selected_id == SAMPLE_ID, what="the newest session")
        app.screen.query_one("#checklist").focus()
        await pilot.press("o")
        await until(pilot, read.exists, what="the pager")
    paged = read.read_text()
    assert '"sessionId": "1796150957437_jfzg6"' in paged and "team_task" in paged


def test_a_cline_rows_updated_at_is_the_sessions_activity(tmp_path: Path) -> None:
    """docs/reading.md, Cline CLI: the session's activity is the `updated_at` of its rows or its files
    changing. A row updated after the session's files were last written (a teammate, a
    resumed run) moves the session's last activity."""
    data = tmp_path / "data"
    shutil.copytree(SAMPLES / SAMPLE_ID, data / "sessions" / SAMPLE_ID)
    (data / "db").mkdir(parents=True)
    shutil.copy(SAMPLES / "teams.db", data / "db" / "teams.db")
    before = json.loads(planwatch("sessions", "--json", "--root", str(data)).stdout)[0]["updated"]
    db = sqlite3.connect(data / "db" / "teams.db")
    with db:
        db.execute(
            "UPDATE team_tasks SET version = version + 1, updated_at = '2026-12-05T09:00:00.000Z' "
            "WHERE team_name = ? AND task_id = 'task_0003'",
            (SAMPLE_ID,),
        )
    db.close()
    [row] = json.loads(planwatch("sessions", "--json", "--root", str(data)).stdout)
    assert before < "2026-12-05" and row["updated"] == "2026-12-05T09:00:00+00:00"


def test_a_cline_data_folder_with_no_board_yet_is_found_by_root_and_by_path(tmp_path: Path) -> None:
    """Cline makes its board only once agent teams are on (its yolo and ACP modes turn
    them off): a data folder of such sessions, given as a root or by a session's path,
    lists its sessions (title, folder, activity) without a plan."""
    data = tmp_path / "data"
    shutil.copytree(SAMPLES / SAMPLE_ID, data / "sessions" / SAMPLE_ID)
    out = planwatch("sessions", "--json", "--root", str(data))
    assert out.returncode == 0 and out.stderr == "", out.stderr
    [row] = json.loads(out.stdout)
    assert row["id"] == SAMPLE_ID and row["harness"] == "cline" and row["cwd"] == "/home/dev/cline-todos"
    assert row["title"].startswith("Add YAML support") and row["total"] == 0
    folder = data / "sessions" / SAMPLE_ID
    for given in (folder, folder / f"{SAMPLE_ID}.json", folder / f"{SAMPLE_ID}.messages.json"):
        shown = planwatch("show", "--plain", str(given))
        assert shown.returncode == 0 and shown.stdout.splitlines() == ["# none"], (given, shown.stderr)
    # A folder of pi's shape (`sessions/--<folder>--/…`) is no Cline data folder.
    pi = tmp_path / "pi"
    (pi / "sessions" / "--home-dev-x--").mkdir(parents=True)
    assert json.loads(planwatch("sessions", "--json", "--root", str(pi)).stdout) == []
