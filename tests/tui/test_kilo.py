"""Kilo CLI sessions on the command line (real subprocesses) and in the app: found at
`$KILO_DB` or under XDG_DATA_HOME, by `--root`, by path and by id (or a unique prefix),
listed as harness `kilo`, shown under `# kilo_todos`, named Kilo (K when narrow), and
followed live in the pane when another process writes a row."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from cli_run import planwatch
from harness_app import a_row_another_process_writes_shows_in_the_pane, row_texts
from opencode_db import corrupt_database_beside_a_claude_session

from planwatch.core import paths

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
    broken = corrupt_database_beside_a_claude_session(paths.claude_projects_dir(), tmp_path / "kilo.db")
    out = planwatch("sessions", "--json", env={"KILO_DB": str(broken)})
    assert out.returncode == 0
    assert [r["harness"] for r in json.loads(out.stdout)] == ["claude"]
    assert out.stderr.count(str(broken)) == 1 and "corrupt" in out.stderr


@pytest.mark.asyncio
async def test_a_kilo_row_written_by_another_process_shows_in_the_pane(isolated_env) -> None:  # type: ignore[no-untyped-def]
    database = _home_database()
    writer = [sys.executable, str(HELPER), str(database), SID, "Document the YAML support"]
    await a_row_another_process_writes_shows_in_the_pane(isolated_env.config, SID, writer, "Kilo todos")


def test_rows_name_kilo_by_name_when_wide_and_by_its_letter_when_narrow() -> None:
    assert "● Kilo     Title" in row_texts(["kilo"], 120)[0]
    assert "● K Title" in row_texts(["kilo"], 60)[0]
