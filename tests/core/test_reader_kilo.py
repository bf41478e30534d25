"""Kilo CLI's database: OpenCode's tables in a database of Kilo's own, read by
OpenCode's reader under Kilo's names. One test per rule; databases are built here with
sqlite3 from Kilo's real schema (tests/kilo_db.py), and the real sample is read as it is
(copied: SQLite leaves -shm and -wal files beside a WAL database it opens)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from kilo_db import KiloDb
from opencode_db import T0

from planwatch.core import paths
from planwatch.core.index import SessionIndex
from planwatch.core.model import AgentPlan
from planwatch.core.transcripts.discover import discover
from planwatch.core.transcripts.kilo import KiloReader
from planwatch.core.transcripts.warmcache import cache_file

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "fixtures/samples/kilo/kilo.db"
SID = "ses_dcd121de1ffelPWOqBKlwGYv1a"
HELPER = Path(__file__).resolve().parents[1] / "kilo_db.py"


def items(plan: AgentPlan, key: str = "") -> list[tuple[str, str]]:
    group = next(g for g in plan.groups if g.key == key)
    assert group.source == "kilo_todos"
    return [(i.text, i.status) for i in group.items]


def read(path: Path) -> KiloReader:
    reader = KiloReader(path)
    reader.read()
    return reader


def by_id(reader: KiloReader) -> dict[str, object]:
    return {r.facts.id: r for r in reader.results()}


@pytest.fixture
def db(tmp_path: Path) -> KiloDb:
    built = KiloDb(tmp_path / "kilo.db")
    yield built
    built.close()


def sample_copy(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    return Path(shutil.copy(SAMPLE, folder / "kilo.db"))


# -- the real sample -------------------------------------------------------------------


def test_the_real_kilo_sample_is_its_todo_rows_as_kilo_todos(tmp_path: Path) -> None:
    reader = read(sample_copy(tmp_path))
    assert reader.problem is None
    [result] = reader.results()
    assert result.facts.id == SID and result.facts.cwd == "/home/dev/kilo-todos"
    # Unnamed ("New session - …"): the first prompt is the title.
    assert "Add YAML support to the config loader" in result.facts.title()
    assert items(result.plan) == [
        ("Inspect the current config loader", "completed"),
        ("Add YAML parsing to load_config()", "completed"),
        ("Add a TOML fallback", "cancelled"),
        ("Run the config tests", "completed"),
    ]
    assert result.facts.last_timestamp is not None and result.facts.last_timestamp.isoformat().startswith(
        "2026-12-01T18:46:40"
    )


def test_the_kilo_database_is_opened_read_only_and_never_written(tmp_path: Path) -> None:
    path = sample_copy(tmp_path)
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    path.chmod(0o444)
    reader = read(path)
    assert reader.problem is None and len(reader.results()) == 1
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before


# -- Kilo's own way of failing ------------------------------------------------------------


def test_a_refused_call_under_the_real_tool_name_changes_nothing(db: KiloDb) -> None:
    """Kilo keeps a call cut off mid-JSON, or one of a tool that does not exist, under
    the tool's real name with `state.status: "error"` (no `tool: "invalid"` part)."""
    db.session("ses_cut", "Cut off")
    db.todowrite("ses_cut", [("First", "in_progress", "high"), ("Second", "pending", "low")], T0 + 10, rows=False)
    db.refused("ses_cut", "todowrite", {}, "JSON Parse error: Unterminated string", T0 + 20)
    db.refused("ses_cut", "todowrite", {"todos": [{"content": "Wrong", "status": "done"}]}, "Invalid input", T0 + 30)
    db.refused("ses_cut", "todo_write", {"todos": [{"content": "Unknown tool"}]}, "Unknown tool todo_write", T0 + 40)
    result = by_id(read(db.path))["ses_cut"]
    assert items(result.plan) == [("First", "in_progress"), ("Second", "pending")]  # type: ignore[attr-defined]


def test_kilo_statuses_are_free_strings_blocked_and_cancelled_kept_others_pending(db: KiloDb) -> None:
    db.session("ses_st", "Statuses")
    todos = [
        ("Waits for a key", "blocked", "high"),
        ("Dropped", "cancelled", "low"),
        ("Done", "completed", "medium"),
        ("Doing", "in_progress", "medium"),
        ("Said done", "done", "medium"),
        ("No word", "", "medium"),
    ]
    db.todowrite("ses_st", todos, T0 + 10)
    result = by_id(read(db.path))["ses_st"]
    assert [s for _t, s in items(result.plan)] == [  # type: ignore[attr-defined]
        "blocked",
        "cancelled",
        "completed",
        "in_progress",
        "pending",
        "pending",
    ]


def test_a_kilo_fork_is_a_session_of_its_own_and_a_subagent_is_under_its_parent(db: KiloDb) -> None:
    db.session("ses_main", "Cache the forecasts")
    db.todowrite("ses_main", [("Add the cache", "in_progress", "high")], T0 + 10)
    db.session("ses_fork", "Cache the forecasts (fork #1)")
    db.todowrite("ses_fork", [("Try a disk cache", "pending", "medium")], T0 + 20)
    db.session("ses_kid", "Survey the client (@explore subagent)", parent="ses_main")
    db.todowrite("ses_kid", [("List the calls", "completed", "medium")], T0 + 30)
    found = by_id(read(db.path))
    assert set(found) == {"ses_main", "ses_fork"}
    fork = found["ses_fork"]
    assert fork.facts.title() == "Cache the forecasts (fork #1)"  # type: ignore[attr-defined]
    assert items(fork.plan) == [("Try a disk cache", "pending")]  # type: ignore[attr-defined]
    main = found["ses_main"]
    assert main.facts.subagent_ids == ["ses_kid"]  # type: ignore[attr-defined]
    assert items(main.plan, "agent-ses_kid") == [("List the calls", "completed")]  # type: ignore[attr-defined]


# -- bad input ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("make", "problem"),
    [
        (lambda p: None, "no database there"),
        (lambda p: p.write_bytes(b"SQLite format 3\x00" + os.urandom(8192)), "corrupt or not an SQLite database"),
        (
            lambda p: (
                sqlite3.connect(p).executescript("CREATE TABLE session (id TEXT); CREATE TABLE kilo_board (x);").close()
            ),
            "unknown schema version",
        ),
    ],
    ids=["missing", "corrupt", "unknown-schema"],
)
def test_a_kilo_database_that_cannot_be_read_gives_no_sessions_and_names_the_file(
    tmp_path: Path, make, problem: str
) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "kilo.db"
    make(path)
    reader = read(path)
    assert reader.results() == []
    assert reader.problem is not None and problem in reader.problem and str(path) in reader.problem


def test_a_kilo_database_locked_for_long_is_named_and_read_once_free(
    db: KiloDb, monkeypatch: pytest.MonkeyPatch
) -> None:
    import planwatch.core.transcripts.opencode_sql as opencode_sql

    monkeypatch.setattr(opencode_sql, "BUSY_TIMEOUT", 0.05)
    monkeypatch.setattr(opencode_sql, "RETRY_PAUSE", 0.01)
    db.session("ses_l", "Locked")
    locker = sqlite3.connect(db.path, isolation_level=None)
    locker.execute("BEGIN EXCLUSIVE")
    try:
        reader = read(db.path)
        assert reader.problem is not None and "locked" in reader.problem and str(db.path) in reader.problem
    finally:
        locker.execute("COMMIT")
        locker.close()
    reader.refresh()
    assert reader.problem is None and "ses_l" in by_id(reader)


# -- discovery ---------------------------------------------------------------------------


def test_kilo_is_found_at_kilo_db_else_xdg_data_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, isolated_env
) -> None:  # type: ignore[no-untyped-def]
    assert paths.kilo_db() == isolated_env.root / "xdg" / "xdg_data_home" / "kilo" / "kilo.db"
    sample_copy(paths.kilo_db().parent)
    index = SessionIndex()
    index.scan()
    entry = index.get(SID)
    assert entry is not None and entry.session.harness == "kilo" and entry.session.path == paths.kilo_db()
    elsewhere = Path(shutil.copy(SAMPLE, tmp_path / "work.db"))
    monkeypatch.setenv("KILO_DB", str(elsewhere))
    assert paths.kilo_db() == elsewhere
    [found] = [f for f in discover([paths.kilo_db()])]
    assert found.harness == "kilo"  # named by KILO_DB: Kilo's whatever its name
    monkeypatch.delenv("KILO_DB")
    monkeypatch.delenv("XDG_DATA_HOME")
    assert paths.kilo_db() == Path.home() / ".local/share/kilo/kilo.db"


def test_root_takes_a_kilo_data_folder_or_its_db_file_and_walks_to_one(tmp_path: Path) -> None:
    folder = tmp_path / "kilo"
    sample_copy(folder)
    (folder / "snapshot").mkdir()
    for root in (folder, folder / "kilo.db"):
        [found] = discover([root])
        assert found.harness == "kilo" and found.path == folder / "kilo.db"
    [walked] = discover([tmp_path])
    assert walked.harness == "kilo"


def test_a_missing_kilo_db_is_named_only_when_someone_named_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    index = SessionIndex()
    index.scan()
    assert not [p for p in index.problems() if "kilo" in p]  # Kilo is simply not installed
    monkeypatch.setenv("KILO_DB", str(tmp_path / "gone.db"))
    index = SessionIndex()
    index.scan()
    assert f"{tmp_path / 'gone.db'}: no database there" in index.problems()


# -- live ----------------------------------------------------------------------------------


def test_a_row_written_by_another_process_shows_in_the_index(tmp_path: Path) -> None:
    path = tmp_path / "kilo.db"
    writer = KiloDb(path, wal=True)
    writer.session("ses_live", "Live")
    writer.todowrite("ses_live", [("One", "in_progress", "high")], T0 + 10)
    writer.close()
    index = SessionIndex([path])
    index.scan()
    changed: list[list[str]] = []
    index.start_following(changed.append)
    try:
        out = subprocess.run(
            [sys.executable, str(HELPER), str(path), "ses_live", "Two"], capture_output=True, text=True, timeout=30
        )
        assert out.returncode == 0, out.stderr
        deadline = time.monotonic() + 30  # a failure bound, not a speed claim (that is the benchmark's)
        while time.monotonic() < deadline:
            entry = index.get("ses_live")
            if entry is not None and entry.plan.main is not None and len(entry.plan.main.items) == 2:
                break
            time.sleep(0.01)
        entry = index.get("ses_live")
        assert entry is not None and entry.plan.main is not None
        assert [i.text for i in entry.plan.main.items] == ["One", "Two"]
        assert ["ses_live"] in changed
    finally:
        index.stop()


# -- the warm-start cache ---------------------------------------------------------------


def test_the_warm_cache_of_a_kilo_database_holds_no_plan_text(tmp_path: Path) -> None:
    path = sample_copy(tmp_path / "kilo")
    index = SessionIndex([path])
    index.scan()
    data = cache_file().read_bytes()
    assert str(path).encode() in data
    for text in ("Inspect the current config loader", "Add a TOML fallback", "Add YAML support"):
        assert text.encode() not in data and json.dumps(text).encode() not in data
    again = SessionIndex([path])
    again.scan()
    entry = again.get(SID)
    assert entry is not None and entry.plan.main is not None and len(entry.plan.main.items) == 4
