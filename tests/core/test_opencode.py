"""docs/reading.md, OpenCode: OpenCode's SQLite database, one test per rule. Databases are built here
with sqlite3 from the real schema (tests/opencode_db.py); the real sample database is
read as it is."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from cli_run import planwatch
from opencode_db import T0, OpenCodeDb, corrupt_database_beside_a_claude_session
from waiting import Changes

from planwatch.core import paths
from planwatch.core.index import SessionIndex
from planwatch.core.model import AgentPlan
from planwatch.core.transcripts.discover import discover
from planwatch.core.transcripts.opencode import OpenCodeReader

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "fixtures/samples/opencode/opencode.db"
SID = "ses_dd14ccbeaffeBIKHavlZAfR2Qh"
HELPER = Path(__file__).resolve().parents[1] / "opencode_db.py"


def items(plan: AgentPlan, key: str = "") -> list[tuple[str, str]]:
    group = next(g for g in plan.groups if g.key == key)
    assert group.source == "opencode_todos"
    return [(i.text, i.status) for i in group.items]


def read(path: Path) -> OpenCodeReader:
    reader = OpenCodeReader(path)
    reader.read()
    return reader


def by_id(reader: OpenCodeReader) -> dict[str, object]:
    return {r.facts.id: r for r in reader.results()}


@pytest.fixture
def db(tmp_path: Path) -> OpenCodeDb:
    built = OpenCodeDb(tmp_path / "opencode.db")
    yield built
    built.close()


def items_are(index: SessionIndex, sid: str, count: int) -> Callable[[], bool]:
    """Whether the index shows `count` items for `sid` (a state to wait for)."""

    def holds() -> bool:
        entry = index.get(sid)
        return entry is not None and entry.plan.main is not None and len(entry.plan.main.items) == count

    return holds


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# -- the real sample -------------------------------------------------------------------


def test_real_sample_database_plan_is_the_todo_rows_in_position_order(tmp_path: Path) -> None:
    copy = tmp_path / "opencode.db"
    shutil.copy(SAMPLE, copy)
    reader = read(copy)
    assert reader.problem is None
    [result] = reader.results()
    assert result.facts.id == SID
    assert result.facts.title() == "Add YAML support to config loader"
    assert result.facts.cwd == "/home/dev/opencode-todos"
    assert (
        result.facts.last_timestamp is not None
        and result.facts.last_timestamp.isoformat() == "2026-11-30T23:03:47.667000+00:00"
    )
    assert items(result.plan) == [
        ("Inspect the current config loader", "completed"),
        ("Add YAML parsing to load_config()", "completed"),
        ("Add a TOML fallback", "cancelled"),
        ("Run the config tests", "completed"),
    ]


def test_the_database_is_never_written(tmp_path: Path) -> None:
    copy = tmp_path / "opencode.db"
    shutil.copy(SAMPLE, copy)
    before, mtime = digest(copy), copy.stat().st_mtime_ns
    reader = read(copy)
    reader.refresh()
    assert digest(copy) == before and copy.stat().st_mtime_ns == mtime
    # Nothing of it is copied anywhere: the only files beside it are SQLite's own
    # -wal/-shm, which a WAL database always has while it is open.
    assert {p.name for p in tmp_path.iterdir()} <= {"opencode.db", "opencode.db-wal", "opencode.db-shm"}


# -- rules, on built databases -----------------------------------------------------------


def test_each_session_row_is_a_session_with_title_folder_and_time_updated(db: OpenCodeDb) -> None:
    db.session("ses_a", "Fix the login redirect", "/home/dev/web", updated=T0 + 5000)
    db.session("ses_b", "Bump dependencies", "/home/dev/api", updated=T0 + 9000)
    results = by_id(read(db.path))
    a, b = results["ses_a"], results["ses_b"]
    assert (a.facts.title(), a.facts.cwd) == ("Fix the login redirect", "/home/dev/web")  # type: ignore[attr-defined]
    assert b.facts.last_timestamp.timestamp() * 1000 == pytest.approx(T0 + 9000)  # type: ignore[attr-defined]
    assert a.plan == AgentPlan()  # type: ignore[attr-defined]


def test_an_unnamed_session_is_titled_by_its_first_prompt(db: OpenCodeDb) -> None:
    db.session("ses_new", "New session - 2026-11-30T23:03:45.941Z")
    db.prompt("ses_new", '"Add YAML support to the config loader and keep a todo list as you go."', T0 + 10)
    [result] = read(db.path).results()
    assert result.facts.title() == '"Add YAML support to the config loader and keep a todo list as you go."'


def test_todo_rows_order_by_position_and_statuses_else_pending(db: OpenCodeDb) -> None:
    db.session("ses_s", "Statuses")
    db.todowrite(
        "ses_s",
        [
            ("Plan", "completed", "high"),
            ("Build", "in_progress", "high"),
            ("Wait for review", "blocked", "medium"),
            ("Old idea", "cancelled", "low"),
            ("Ship", "waiting", "low"),  # OpenCode stores any string: not its word
            ("Tidy", "pending", "low"),
        ],
        T0 + 100,
    )
    # Positions decide the order, not the rows' order on disk.
    db.db.execute("UPDATE todo SET position = 10 - position WHERE session_id = 'ses_s'")
    [result] = read(db.path).results()
    assert items(result.plan) == [
        ("Tidy", "pending"),
        ("Ship", "pending"),
        ("Old idea", "cancelled"),
        ("Wait for review", "blocked"),
        ("Build", "in_progress"),
        ("Plan", "completed"),
    ]


def test_error_parts_and_invalid_tool_parts_changed_nothing(db: OpenCodeDb) -> None:
    db.session("ses_e", "Errors")
    db.todowrite("ses_e", [("Kept", "in_progress", "high")], T0 + 100)
    db.todowrite("ses_e", [("Refused", "pending", "high")], T0 + 200, status="error")
    db.todowrite("ses_e", [("Invalid", "pending", "high")], T0 + 300, tool="invalid")
    [result] = read(db.path).results()
    assert items(result.plan) == [("Kept", "in_progress")]
    # Without todo rows (an older database whose list lived elsewhere), the history of
    # completed todowrite parts gives the list, and the failed calls still do not count.
    db.db.execute("DELETE FROM todo")
    db.touch("ses_e", T0 + 400)
    [result] = read(db.path).results()
    assert items(result.plan) == [("Kept", "in_progress")]


def test_a_list_cleared_by_the_agent_is_an_empty_plan_and_no_call_is_no_plan(db: OpenCodeDb) -> None:
    db.session("ses_c", "Cleared")
    db.todowrite("ses_c", [("Done soon", "completed", "high")], T0 + 100)
    db.todowrite("ses_c", [], T0 + 200)
    db.session("ses_n", "Never")
    results = by_id(read(db.path))
    cleared = results["ses_c"].plan  # type: ignore[attr-defined]
    assert cleared.main is not None and cleared.main.items == ()
    assert results["ses_n"].plan == AgentPlan()  # type: ignore[attr-defined]


def test_a_subagent_session_is_a_group_under_its_parent(db: OpenCodeDb) -> None:
    db.session("ses_parent", "Parent", updated=T0 + 100)
    db.todowrite("ses_parent", [("Delegate the audit", "in_progress", "high")], T0 + 100)
    db.session("ses_child", "Audit the dependencies (@general subagent)", parent="ses_parent", updated=T0 + 5000)
    db.todowrite("ses_child", [("List dependencies", "completed", "medium")], T0 + 5000)
    db.session("ses_grandchild", "Deeper", parent="ses_child", updated=T0 + 6000)
    db.todowrite("ses_grandchild", [("Look deeper", "pending", "low")], T0 + 6000)
    db.session("ses_orphan", "Orphan", parent="ses_gone", updated=T0 + 50)
    results = by_id(read(db.path))
    assert set(results) == {"ses_parent", "ses_orphan"}
    parent = results["ses_parent"]
    assert items(parent.plan) == [("Delegate the audit", "in_progress")]  # type: ignore[attr-defined]
    assert items(parent.plan, "agent-ses_child") == [("List dependencies", "completed")]  # type: ignore[attr-defined]
    assert items(parent.plan, "agent-ses_grandchild") == [("Look deeper", "pending")]  # type: ignore[attr-defined]
    # The subagents' activity is the parent's.
    assert parent.facts.last_timestamp.timestamp() * 1000 == pytest.approx(T0 + 6009)  # type: ignore[attr-defined]
    assert results["ses_orphan"].facts.parent_id == "ses_gone"  # type: ignore[attr-defined]


def test_refresh_reads_only_the_sessions_whose_time_updated_moved(db: OpenCodeDb) -> None:
    for n in range(5):
        db.session(f"ses_{n}", f"Session {n}")
        db.todowrite(f"ses_{n}", [("Step", "pending", "medium")], T0 + n)
    reader = read(db.path)
    assert reader.refresh() == set()
    db.todowrite("ses_3", [("Step", "completed", "medium")], T0 + 1000)
    assert reader.refresh() == {"ses_3"}
    assert items(by_id(reader)["ses_3"].plan) == [("Step", "completed")]  # type: ignore[attr-defined]
    # A list rewritten without the session's row moving is seen by its rows' stamp.
    db.db.execute("UPDATE todo SET status = 'in_progress', time_updated = ? WHERE session_id = 'ses_1'", (T0 + 2000,))
    assert reader.refresh() == {"ses_1"}
    db.db.execute("DELETE FROM session WHERE id = 'ses_4'")
    assert reader.refresh() == {"ses_4"}
    assert "ses_4" not in by_id(reader)


def test_a_wal_database_with_uncheckpointed_writes_is_read_through_sqlite(tmp_path: Path) -> None:
    path = tmp_path / "opencode.db"
    writer = OpenCodeDb(path, wal=True)
    writer.session("ses_w", "In the WAL only")
    writer.todowrite("ses_w", [("Still in the -wal file", "in_progress", "high")], T0 + 10)
    try:
        wal = path.with_name("opencode.db-wal")
        assert wal.stat().st_size > 0  # the rows are not in the .db yet
        only_db = tmp_path / "copied-alone.db"
        shutil.copy(path, only_db)  # what copying the .db alone would see
        assert read(only_db).results() == []
        [result] = read(path).results()
        assert items(result.plan) == [("Still in the -wal file", "in_progress")]
    finally:
        writer.close()


def test_a_database_written_by_another_process_is_read_while_it_writes(tmp_path: Path) -> None:
    path = tmp_path / "opencode.db"
    setup = OpenCodeDb(path, wal=True)
    setup.session("ses_busy", "Busy")
    setup.close()
    reader = read(path)
    writer = subprocess.Popen([sys.executable, str(HELPER), str(path), "ses_busy", "300"])
    seen: set[int] = set()
    try:
        while writer.poll() is None:
            reader.refresh()
            assert reader.problem is None, reader.problem
            plan = by_id(reader)["ses_busy"].plan  # type: ignore[attr-defined]
            if plan.main is not None:
                assert len(plan.main.items) == 20  # never half a list: one snapshot per read
                seen.add(sum(i.status == "completed" for i in plan.main.items))
    finally:
        writer.wait(timeout=30)
    assert writer.returncode == 0
    reader.refresh()
    final = by_id(reader)["ses_busy"].plan  # type: ignore[attr-defined]
    assert sum(i.status == "completed" for i in final.main.items) == 299 % 20
    assert len(seen) > 1  # it was read while the other process wrote


@pytest.mark.parametrize(
    ("make", "problem"),
    [
        (lambda p: None, "no database there"),
        (lambda p: p.write_bytes(os.urandom(4096)), "corrupt or not an SQLite database"),
        (
            lambda p: (
                sqlite3.connect(p).executescript("CREATE TABLE session (id TEXT); CREATE TABLE todo (x TEXT);").close()
            ),
            "unknown schema version",
        ),
    ],
    ids=["missing", "corrupt", "unknown-schema"],
)
def test_a_database_that_cannot_be_read_is_reported_and_skipped(tmp_path: Path, make, problem: str) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "opencode.db"
    make(path)
    reader = read(path)
    assert reader.results() == []
    assert reader.problem is not None and problem in reader.problem and str(path) in reader.problem


def test_a_database_locked_for_long_is_reported_and_read_once_free(
    db: OpenCodeDb, monkeypatch: pytest.MonkeyPatch
) -> None:
    import planwatch.core.transcripts.opencode_sql as opencode_sql

    monkeypatch.setattr(opencode_sql, "BUSY_TIMEOUT", 0.05)
    monkeypatch.setattr(opencode_sql, "RETRY_PAUSE", 0.01)
    db.session("ses_l", "Locked")
    locker = sqlite3.connect(db.path, isolation_level=None)
    locker.execute("BEGIN EXCLUSIVE")  # a rollback-journal database: readers are locked out
    try:
        reader = read(db.path)
        assert reader.problem is not None and "locked" in reader.problem
    finally:
        locker.execute("COMMIT")
        locker.close()
    reader.refresh()
    assert reader.problem is None and "ses_l" in by_id(reader)


# -- discovery and the index -------------------------------------------------------------


def test_discovered_at_opencode_db_else_xdg_data_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, isolated_env
) -> None:  # type: ignore[no-untyped-def]
    default = paths.opencode_db()
    assert default == isolated_env.root / "xdg" / "xdg_data_home" / "opencode" / "opencode.db"
    monkeypatch.setenv("OPENCODE_DB", str(tmp_path / "elsewhere.db"))
    assert paths.opencode_db() == tmp_path / "elsewhere.db"
    monkeypatch.delenv("OPENCODE_DB")
    monkeypatch.delenv("XDG_DATA_HOME")
    assert paths.opencode_db() == Path.home() / ".local/share/opencode/opencode.db"


def test_root_accepts_an_opencode_data_folder_or_a_db_file(tmp_path: Path) -> None:
    folder = tmp_path / "opencode"
    folder.mkdir()
    shutil.copy(SAMPLE, folder / "opencode.db")
    (folder / "storage").mkdir()
    for root in (folder, folder / "opencode.db"):
        [found] = discover([root])
        assert found.harness == "opencode" and found.path == folder / "opencode.db"
    renamed = Path(shutil.copy(SAMPLE, tmp_path / "backup.db"))
    [found] = discover([renamed])
    assert found.harness == "opencode"


def test_the_index_lists_opencode_sessions_with_their_plans(tmp_path: Path) -> None:
    shutil.copy(SAMPLE, tmp_path / "opencode.db")
    index = SessionIndex([tmp_path / "opencode.db"])
    index.scan()
    entry = index.get(SID)
    assert entry is not None
    assert entry.session.harness == "opencode" and entry.session.path == tmp_path / "opencode.db"
    assert entry.session.updated.isoformat() == "2026-11-30T23:03:47.667000+00:00"  # not the file's mtime
    assert entry.plan.main is not None and len(entry.plan.main.items) == 4


def test_subagent_sessions_are_counted_under_their_parent_in_the_index(tmp_path: Path) -> None:
    built = OpenCodeDb(tmp_path / "opencode.db")
    built.session("ses_p", "Parent")
    built.session("ses_k", "Child", parent="ses_p")
    built.close()
    index = SessionIndex([tmp_path / "opencode.db"])
    index.scan()
    entry = index.get("ses_p")
    assert entry is not None and entry.session.subagents == (tmp_path / "opencode.db" / "ses_k",)
    assert index.get("ses_k") is None


def test_live_insert_updates_the_session_told_by_the_file_watcher(tmp_path: Path) -> None:
    """A todowrite inserted into the database is read as its -wal changes: a file event
    (inotify), not a polling pass, so nothing but the follower's debounce stands between
    (how long that takes is a benchmark's figure, not asserted here). Following is set
    up when `start_following` returns: a write right after it is seen."""
    path = tmp_path / "opencode.db"
    writer = OpenCodeDb(path, wal=True)
    writer.session("ses_live", "Live")
    writer.todowrite("ses_live", [("One", "in_progress", "high")], T0 + 10)
    index = SessionIndex([path])
    index.scan()
    changes = Changes()
    index.start_following(changes)
    try:
        assert index._following.observer_kind == "native"
        writer.todowrite("ses_live", [("One", "completed", "high"), ("Two", "in_progress", "high")], T0 + 20)
        changes.wait_for(items_are(index, "ses_live", 2), "the inserted todowrite")
        assert ["ses_live"] in changes.bursts
    finally:
        index.stop()
        writer.close()


# -- the CLI (real subprocesses) ---------------------------------------------------------


def test_sessions_json_lists_opencode_sessions_and_show_takes_a_unique_prefix(isolated_env) -> None:  # type: ignore[no-untyped-def]
    database = paths.opencode_db()
    database.parent.mkdir(parents=True)
    shutil.copy(SAMPLE, database)
    rows = json.loads(planwatch("sessions", "--json").stdout)
    [row] = [r for r in rows if r["id"] == SID]
    assert row["harness"] == "opencode" and row["source"] == "opencode_todos"
    assert (row["done"], row["total"]) == (3, 3) and row["cwd"] == "/home/dev/opencode-todos"
    plain = planwatch("show", "--plain", "ses_dd14")
    assert plain.returncode == 0, plain.stderr
    assert plain.stdout.splitlines() == [
        "# opencode_todos",
        "completed\tInspect the current config loader",
        "completed\tAdd YAML parsing to load_config()",
        "cancelled\tAdd a TOML fallback",
        "completed\tRun the config tests",
    ]
    person = planwatch("show", SID)
    assert "OpenCode todos 3/3" in person.stdout and "[-] Add a TOML fallback" in person.stdout


def test_show_plain_prints_blocked_as_blocked(tmp_path: Path) -> None:
    built = OpenCodeDb(tmp_path / "opencode.db")
    built.session("ses_blk", "Blocked steps")
    built.todowrite("ses_blk", [("Wait for the key", "blocked", "high"), ("Deploy", "pending", "high")], T0 + 10)
    built.close()
    out = planwatch("show", "--plain", "--root", str(tmp_path), "ses_blk")
    assert out.stdout.splitlines() == ["# opencode_todos", "blocked\tWait for the key", "pending\tDeploy"]


def test_a_database_that_cannot_be_read_is_named_once_and_the_rest_is_listed(tmp_path: Path, isolated_env) -> None:  # type: ignore[no-untyped-def]
    broken = corrupt_database_beside_a_claude_session(paths.claude_projects_dir(), tmp_path / "opencode.db")
    out = planwatch("sessions", "--json", env={"OPENCODE_DB": str(broken)})
    assert out.returncode == 0
    assert [r["harness"] for r in json.loads(out.stdout)] == ["claude"]
    assert out.stderr.count(str(broken)) == 1 and "corrupt" in out.stderr
    missing = planwatch("sessions", env={"OPENCODE_DB": str(tmp_path / "gone.db")})
    assert f"{tmp_path / 'gone.db'}: no database there" in missing.stderr


# -- before the database: storage/ JSON files ---------------------------------------------


def write_storage(
    data: Path, sid: str, title: str, todos: list[dict] | None, *, parent: str | None = None, updated: int = T0
) -> Path:
    """OpenCode's pre-database layout, as its source wrote it (Storage.write(key) →
    storage/<key…>.json): the session's info, its todo list, a user message and part."""
    storage = data / "storage"
    info = {
        "id": sid,
        "version": "0.15.18",
        "projectID": "c07bde1ba17458a89a273f0e18e4edfbe0400c29",
        "directory": "/home/dev/legacy",
        "title": title,
        "time": {"created": updated - 1000, "updated": updated},
    }
    if parent:
        info["parentID"] = parent
    session = storage / "session" / info["projectID"] / f"{sid}.json"
    session.parent.mkdir(parents=True, exist_ok=True)
    session.write_text(json.dumps(info, indent=2))
    if todos is not None:
        (storage / "todo").mkdir(exist_ok=True)
        (storage / "todo" / f"{sid}.json").write_text(json.dumps(todos, indent=2))
    mid = f"msg_{sid[4:]}"
    (storage / "message" / sid).mkdir(parents=True, exist_ok=True)
    (storage / "message" / sid / f"{mid}.json").write_text(
        json.dumps({"id": mid, "sessionID": sid, "role": "user", "time": {"created": updated - 900}})
    )
    (storage / "part" / mid).mkdir(parents=True, exist_ok=True)
    (storage / "part" / mid / f"prt_{sid[4:]}.json").write_text(
        json.dumps(
            {"id": f"prt_{sid[4:]}", "sessionID": sid, "messageID": mid, "type": "text", "text": f"Prompt of {sid}"}
        )
    )
    return storage


def todo(content: str, status: str, priority: str = "medium") -> dict[str, str]:
    return {"content": content, "status": status, "priority": priority, "id": str(abs(hash(content)) % 1000)}


def test_pre_database_storage_sessions_and_todo_lists_are_read(tmp_path: Path) -> None:
    data = tmp_path / "opencode"
    write_storage(
        data, "ses_old1", "Port the CLI flags", [todo("Parse --json", "completed"), todo("Wait for review", "blocked")]
    )
    write_storage(data, "ses_old2", "New session - 2025-09-01T10:00:00.000Z", None, updated=T0 + 5)
    write_storage(data, "ses_old3", "Child", [todo("Look around", "in_progress")], parent="ses_old1")
    index = SessionIndex([data])
    index.scan()
    first = index.get("ses_old1")
    assert first is not None and first.session.harness == "opencode" and first.session.cwd == "/home/dev/legacy"
    assert items(first.plan) == [("Parse --json", "completed"), ("Wait for review", "blocked")]
    assert items(first.plan, "agent-ses_old3") == [("Look around", "in_progress")]
    second = index.get("ses_old2")
    assert second is not None and second.session.title == "Prompt of ses_old2" and second.plan == AgentPlan()
    assert index.get("ses_old3") is None


def test_a_storage_session_with_no_todo_file_takes_its_last_completed_todowrite(tmp_path: Path) -> None:
    """docs/reading.md, OpenCode: a session with no todo rows takes its list from the last
    completed `todowrite` part; the storage layout is read the same way (a version that
    kept the list in memory wrote no todo file). An `error` part changed nothing."""
    data = tmp_path / "opencode"
    storage = write_storage(data, "ses_parts", "Port the config", None)
    mid = "msg_zz_assistant"
    (storage / "message" / "ses_parts" / f"{mid}.json").write_text(
        json.dumps({"id": mid, "sessionID": "ses_parts", "role": "assistant", "time": {"created": T0}})
    )
    (storage / "part" / mid).mkdir(parents=True)
    calls = [
        ("prt_a", "completed", [todo("Read the loader", "completed"), todo("Add YAML", "in_progress")]),
        ("prt_b", "error", [todo("Cut off", "pending")]),
    ]
    for part, status, todos in calls:
        (storage / "part" / mid / f"{part}.json").write_text(
            json.dumps(
                {
                    "id": part,
                    "sessionID": "ses_parts",
                    "messageID": mid,
                    "type": "tool",
                    "tool": "todowrite",
                    "state": {"status": status, "input": {"todos": todos}},
                },
                indent=2,
            )
        )
    index = SessionIndex([data])
    index.scan()
    entry = index.get("ses_parts")
    assert entry is not None
    assert items(entry.plan) == [("Read the loader", "completed"), ("Add YAML", "in_progress")]


def test_storage_beside_a_database_is_not_read(tmp_path: Path) -> None:
    data = tmp_path / "opencode"
    write_storage(data, "ses_migrated", "Already in the database", [todo("Old copy", "pending")])
    shutil.copy(SAMPLE, data / "opencode.db")
    index = SessionIndex([data])
    index.scan()
    assert [e.session.id for e in index.entries()] == [SID]


def test_storage_todo_rewritten_is_followed_told_by_the_file_watcher(isolated_env) -> None:  # type: ignore[no-untyped-def]
    storage = write_storage(paths.opencode_data_dir(), "ses_live1", "Live storage", [todo("First", "in_progress")])
    assert storage == paths.opencode_storage_dir()
    index = SessionIndex()
    index.scan()
    changes = Changes()
    index.start_following(changes)
    try:
        assert index._following.observer_kind == "native"
        (storage / "todo" / "ses_live1.json").write_text(
            json.dumps([todo("First", "completed"), todo("Second", "in_progress")])
        )
        changes.wait_for(items_are(index, "ses_live1", 2), "the rewritten todo file")
        assert any("ses_live1" in burst for burst in changes.bursts)
    finally:
        index.stop()
