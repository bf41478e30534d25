"""Kilo CLI sessions on the command line (real subprocesses) and in the app: found at
`$KILO_DB` or under XDG_DATA_HOME, by `--root`, by path and by id (or a unique prefix),
listed as harness `kilo`, shown under `# kilo_todos`, named Kilo (K when narrow), and
followed live in the pane when another process writes a row."""

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

from planwatch.core import paths
from planwatch.tui.app import AppOptions, make_app
from planwatch.tui.widgets.checklist import ChecklistView
from planwatch.tui.widgets.session_rows import RowLayout, SessionRow, row_text

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "fixtures/samples/kilo/kilo.db"
RULES = ROOT / "fixtures/transcripts/rules/kilo/kilo.db"
SID = "ses_dcd121de1ffelPWOqBKlwGYv1a"
HELPER = ROOT / "tests/kilo_db.py"
PLAIN = [
    "# kilo_todos",
    "completed\tInspect the current config loader",
    "completed\tAdd YAML parsing to load_config()",
    "cancelled\tAdd a TOML fallback",
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


def _home_database() -> Path:
    database = paths.kilo_db()
    database.parent.mkdir(parents=True)
    return Path(shutil.copy(SAMPLE, database))


def test_kilo_sessions_are_listed_from_their_own_database_as_harness_kilo() -> None:
    _home_database()
    rows = {row["id"]: row for row in json.loads(planwatch("sessions", "--json").stdout)}
    row = rows[SID]
    assert row["harness"] == "kilo" and row["source"] == "kilo_todos"
    assert (row["done"], row["total"]) == (3, 3) and row["cwd"] == "/home/dev/kilo-todos"
    assert "Add YAML support" in row["title"] and row["path"] == str(paths.kilo_db())


def test_show_plain_headers_kilo_todos_by_id_prefix_and_by_path(tmp_path: Path) -> None:
    _home_database()
    by_prefix = planwatch("show", "--plain", SID[:10])
    assert by_prefix.returncode == 0, by_prefix.stderr
    assert by_prefix.stdout.splitlines() == PLAIN
    copy = Path(shutil.copy(SAMPLE, tmp_path / "kilo.db"))
    by_path = planwatch("show", "--plain", str(copy))
    assert by_path.returncode == 0, by_path.stderr
    assert by_path.stdout.splitlines() == PLAIN
    person = planwatch("show", SID)
    assert "Kilo todos 3/3" in person.stdout and "[-] Add a TOML fallback" in person.stdout


def test_root_pointing_at_a_kilo_folder_lists_its_sessions_and_forks() -> None:
    rows = json.loads(planwatch("sessions", "--json", "--root", str(RULES.parent)).stdout)
    assert {row["harness"] for row in rows} == {"kilo"}
    titles = {row["title"]: (row["done"], row["total"], row["subagents"]) for row in rows}
    # The fork is a session of its own, the subagent a group under its parent (its step
    # counted there); the refused cut-off call changed nothing.
    assert titles == {
        "Cache forecast responses for ten minutes": (3, 5, 1),
        "Cache forecast responses for ten minutes (fork #1)": (1, 2, 0),
        "Statuses as Kilo stores them": (0, 3, 0),
    }


def test_a_kilo_database_that_cannot_be_read_is_named_once_and_the_rest_is_listed(tmp_path: Path) -> None:
    folder = paths.claude_projects_dir() / "-home-dev-api"
    folder.mkdir(parents=True)
    shutil.copy(
        ROOT / "fixtures/samples/claude-code-todowrite.jsonl", folder / "5e0c2a4b-1f3d-4e6a-9b8c-7d0e1f2a3b4c.jsonl"
    )
    broken = tmp_path / "kilo.db"
    broken.write_bytes(b"SQLite format 3\x00" + os.urandom(8192))
    out = planwatch("sessions", "--json", env={"KILO_DB": str(broken)})
    assert out.returncode == 0
    assert [r["harness"] for r in json.loads(out.stdout)] == ["claude"]
    assert out.stderr.count(str(broken)) == 1 and "corrupt" in out.stderr


def rows(app) -> list[str]:  # type: ignore[no-untyped-def]
    return option_texts(app.screen.query_one("#checklist", ChecklistView))


@pytest.mark.asyncio
async def test_a_kilo_row_written_by_another_process_shows_in_the_pane(isolated_env) -> None:  # type: ignore[no-untyped-def]
    database = _home_database()
    app = make_app(AppOptions(config_path=isolated_env.config, pane=True))
    async with app.run_test(size=(40, 30)) as pilot:
        await until(pilot, lambda: app.scan_done is not None, what="the scan")
        await until(pilot, lambda: app.following, what="the follower")
        assert app.screen.selected_id == SID
        await until(pilot, lambda: any("Run the config tests" in r for r in rows(app)), what="the plan")
        out = subprocess.run(
            [sys.executable, str(HELPER), str(database), SID, "Document the YAML support"],
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert out.returncode == 0, out.stderr
        await until(pilot, lambda: "[ ] Document the YAML support" in rows(app), what="the new row")
        assert any("Kilo todos" in r for r in rows(app))


def test_rows_name_kilo_by_name_when_wide_and_by_its_letter_when_narrow() -> None:
    now = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
    kilo = SessionRow("k1", "kilo", "Title", "/home/dev/x", now, 1, 4, None)
    assert "● Kilo     Title" in row_text(kilo, now, RowLayout.for_rows([kilo], 120)).plain
    assert "● K Title" in row_text(kilo, now, RowLayout.for_rows([kilo], 60)).plain
