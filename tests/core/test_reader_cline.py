"""Cline CLI's data folder: sessions as folders of two rewritten JSON documents, the plan
on the task board `db/teams.db`. One test per rule; folders are built here in the real
shapes (tests/cline_data.py, the board from the sample's own schema), and the real sample
is read as it is (copied into the data folder's layout)."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cline_data import SAMPLE_ID, SAMPLES, ClineData
from file_opens import opens_in

from planwatch.core import paths
from planwatch.core.index import SessionIndex
from planwatch.core.model import AgentPlan
from planwatch.core.transcripts.cline import ClineReader
from planwatch.core.transcripts.discover import discover
from planwatch.core.transcripts.warmcache import cache_file

HELPER = Path(__file__).resolve().parents[1] / "cline_data.py"
ROOT = Path(__file__).resolve().parents[2]
SAMPLE_PLAN = [
    ("Inspect the current config loader", "completed"),
    ("Add YAML parsing to load_config()", "completed"),
    ("Add a TOML fallback", "blocked"),
    ("Run the config tests", "completed"),
]


def sample_data(folder: Path) -> Path:
    """The real sample in Cline's layout: sessions/<id>/ and db/teams.db."""
    shutil.copytree(SAMPLES / SAMPLE_ID, folder / "sessions" / SAMPLE_ID)
    (folder / "db").mkdir(parents=True)
    shutil.copy(SAMPLES / "teams.db", folder / "db" / "teams.db")
    return folder


def items(plan: AgentPlan) -> list[tuple[str, str]]:
    [group] = plan.groups
    assert group.source == "cline_tasks"
    return [(i.text, i.status) for i in group.items]


def by_id(reader: ClineReader) -> dict[str, object]:
    return {r.facts.id: r for r in reader.results()}


@pytest.fixture
def data(tmp_path: Path) -> ClineData:
    built = ClineData(tmp_path / "data")
    yield built
    built.close()


# -- the real sample -------------------------------------------------------------------


def test_the_real_cline_sample_is_its_rows_on_the_board_in_task_order(tmp_path: Path) -> None:
    reader = ClineReader(sample_data(tmp_path / "data"))
    [result] = reader.read()
    assert reader.problem is None
    assert result.facts.id == SAMPLE_ID and result.facts.cwd == "/home/dev/cline-todos"
    assert result.facts.title().startswith("Add YAML support to the config loader")
    assert items(result.plan) == SAMPLE_PLAN
    # `Run the config tests` depends on task_0002: what it waits for (it is done: nothing now).
    assert result.plan.groups[0].items[3].waits_for == (1,)
    assert result.facts.last_timestamp is not None
    assert result.facts.last_timestamp.isoformat() == "2026-12-01T18:49:19.069000+00:00"  # ended_at


def test_the_board_is_opened_read_only_and_never_written(tmp_path: Path) -> None:
    folder = sample_data(tmp_path / "data")
    board = folder / "db" / "teams.db"
    before = board.read_bytes()
    board.chmod(0o444)
    reader = ClineReader(folder)
    reader.read()
    assert reader.problem is None and len(reader.results()) == 1
    assert board.read_bytes() == before


# -- the plan rules --------------------------------------------------------------------


def test_board_statuses_blocked_is_its_own_and_other_words_read_as_pending(data: ClineData) -> None:
    data.session("1796000000001_aaaaa", "Statuses", "/home/dev/lab")
    for n, status in enumerate(["pending", "in_progress", "blocked", "completed", "done", "cancelled"], 1):
        data.task("1796000000001_aaaaa", f"task_{n:04d}", f"Step {n}", status)
    [result] = ClineReader(data.folder).read()
    assert [s for _t, s in items(result.plan)] == [
        "pending",
        "in_progress",
        "blocked",
        "completed",
        "pending",
        "pending",
    ]


def test_a_refused_team_task_call_changes_nothing_the_board_holds(data: ClineData) -> None:
    sid = "1796000000002_bbbbb"
    refused = [
        ClineData.user("Track it"),
        {
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": "c1",
                    "name": "team_task",
                    "input": {"action": "complete", "taskId": "task_0001"},
                }
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "c1",
                    "name": "team_task",
                    "is_error": True,
                    "content": '{"error":"Task is not claimed"}',
                }
            ],
        },
    ]
    data.session(sid, "Track it", "/home/dev/lab", messages=refused)
    data.task(sid, "task_0001", "Only step", "pending")
    [result] = ClineReader(data.folder).read()
    assert items(result.plan) == [("Only step", "pending")]


def test_each_session_has_its_own_rows_in_task_id_order_and_waits_for_open_steps(data: ClineData) -> None:
    data.session("1796000000003_ccccc", "One", "/home/dev/one")
    data.session("1796000000004_ddddd", "Two", "/home/dev/two")
    data.task("1796000000003_ccccc", "task_0002", "Second", "pending", depends=["task_0001"])
    data.task("1796000000003_ccccc", "task_0001", "First", "in_progress")
    data.task("1796000000004_ddddd", "task_0001", "Other", "completed")
    data.task("someone-else", "task_0001", "Not a session here", "pending")
    reader = ClineReader(data.folder)
    found = {r.facts.id: r for r in reader.read()}
    assert set(found) == {"1796000000003_ccccc", "1796000000004_ddddd"}
    one = found["1796000000003_ccccc"].plan
    assert items(one) == [("First", "in_progress"), ("Second", "pending")]
    assert one.groups[0].items[1].waits_for == (0,)
    assert items(found["1796000000004_ddddd"].plan) == [("Other", "completed")]


def test_a_session_without_rows_has_no_plan_and_one_without_a_title_row_is_named(data: ClineData) -> None:
    data.session("1796000000005_eeeee", "No tasks", "/home/dev/lab")
    data.session("1796000000006_fffff", "Odd row", "/home/dev/lab")
    data.task("1796000000006_fffff", "task_0001", "", "pending")
    reader = ClineReader(data.folder)
    found = {r.facts.id: r for r in reader.read()}
    assert found["1796000000005_eeeee"].plan.groups == ()
    assert found["1796000000006_fffff"].plan.groups == ()
    assert reader.problem is not None and "task_0001" in reader.problem and "1796000000006_fffff" in reader.problem


def test_an_untitled_session_is_titled_by_its_first_prompt_without_the_user_input_wrapper(data: ClineData) -> None:
    folder = data.session("1796000000007_ggggg", "Fix the flaky upload test", "/home/dev/lab", title="")
    meta = json.loads((folder / "1796000000007_ggggg.json").read_text())
    meta.pop("prompt")
    (folder / "1796000000007_ggggg.json").write_text(json.dumps(meta))
    [result] = ClineReader(data.folder).read()
    assert result.facts.title() == "Fix the flaky upload test"


# -- the timeline ----------------------------------------------------------------------------


def test_the_timeline_of_a_cline_session_is_its_board_after_each_change_its_messages_confirm(tmp_path: Path) -> None:
    folder = sample_data(tmp_path / "data")
    index = SessionIndex([folder])
    index.scan()
    changes = index.plan_history(SAMPLE_ID).changes
    # Four creations, then each claim, completion and block the harness answered.
    assert len(changes) == 11
    moments = [change[0] for change in changes]
    assert moments == sorted(moments) and moments[0].year == 2026
    plans = [change[1] for change in changes]
    assert items(plans[0]) == [("Inspect the current config loader", "pending")]
    assert items(plans[4])[0] == ("Inspect the current config loader", "in_progress")
    assert items(plans[-1]) == SAMPLE_PLAN  # it ends where the board is


def test_a_refused_team_task_call_is_no_change_in_the_timeline(data: ClineData) -> None:
    sid = "1796000000031_aaaaa"

    def call(n: int, ts: int, action: str, result: str, *, error: bool = False, title: str = "") -> list[dict]:
        given = {"action": action, "taskId": "task_0001", **({"title": title} if title else {})}
        answer = {"type": "tool_result", "tool_use_id": f"c{n}", "name": "team_task", "content": result}
        if error:
            answer["is_error"] = True
        return [
            {
                "role": "assistant",
                "ts": ts,
                "content": [{"type": "tool_use", "id": f"c{n}", "name": "team_task", "input": given}],
            },
            {"role": "user", "ts": ts + 1, "content": [answer]},
        ]

    messages = [
        ClineData.user("Track it"),
        *call(1, 1796000000000, "create", '{"action":"create","taskId":"task_0001","status":"pending"}', title="Do it"),
        *call(2, 1796000001000, "complete", '{"error":"Task is not claimed"}', error=True),
        *call(3, 1796000002000, "claim", '{"action":"claim","taskId":"task_0001","status":"in_progress"}'),
        *call(4, 1796000003000, "complete", '{"action":"complete","taskId":"task_0009","status":"completed"}'),
    ]
    data.session(sid, "Track it", "/home/dev/lab", messages=messages)
    data.task(sid, "task_0001", "Do it, as the board has it", "in_progress")
    reader = ClineReader(data.folder)
    reader.read()
    history = reader.history(sid)
    # The refused completion and the task never created changed nothing; the text is the board's.
    assert [items(plan) for _when, plan in history] == [
        [("Do it, as the board has it", "pending")],
        [("Do it, as the board has it", "in_progress")],
    ]
    assert [when.timestamp() for when, _plan in history] == [1796000000.001, 1796000002.001]


# -- bad input ---------------------------------------------------------------------------


def test_a_half_written_messages_document_is_named_that_session_has_no_plan_the_rest_is_read(data: ClineData) -> None:
    good, torn = "1796000000010_hhhhh", "1796000000011_iiiii"
    data.session(good, "Good", "/home/dev/lab")
    data.task(good, "task_0001", "Kept", "in_progress")
    folder = data.session(torn, "Torn", "/home/dev/lab")
    data.task(torn, "task_0001", "Hidden while torn", "pending")
    messages = folder / f"{torn}.messages.json"
    whole = messages.read_bytes()
    messages.write_bytes(whole[: len(whole) // 2])  # caught mid-rewrite
    reader = ClineReader(data.folder)
    found = {r.facts.id: r for r in reader.read()}
    assert items(found[good].plan) == [("Kept", "in_progress")]
    assert found[torn].plan.groups == () and found[torn].facts.title() == "Torn"
    assert reader.problem is not None and str(messages) in reader.problem and "half-written" in reader.problem
    messages.write_bytes(whole)  # the rewrite finished
    assert reader.refresh() == {torn}
    assert reader.problem is None
    assert items(by_id(reader)[torn].plan) == [("Hidden while torn", "pending")]  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("make", "problem"),
    [
        (lambda p: p.write_bytes(b"SQLite format 3\x00" + os.urandom(8192)), "corrupt or not an SQLite database"),
        (
            lambda p: sqlite3.connect(p).executescript("CREATE TABLE team_events (id INTEGER);").close(),
            "unknown schema",
        ),
        (
            lambda p: (
                sqlite3.connect(p).executescript("CREATE TABLE team_tasks (team_name TEXT, task_id TEXT);").close()
            ),
            "unknown schema",
        ),
    ],
    ids=["corrupt", "no-team-tasks", "team-tasks-of-another-shape"],
)
def test_a_board_that_cannot_be_read_is_named_and_every_session_is_listed_without_a_plan(
    tmp_path: Path, make, problem: str
) -> None:  # type: ignore[no-untyped-def]
    folder = sample_data(tmp_path / "data")
    board = folder / "db" / "teams.db"
    board.unlink()
    make(board)
    reader = ClineReader(folder)
    [result] = reader.read()
    assert result.facts.id == SAMPLE_ID and result.plan.groups == ()
    assert reader.problem is not None and problem in reader.problem and str(board) in reader.problem


def test_no_board_yet_is_sessions_without_plans_and_no_problem(tmp_path: Path) -> None:
    folder = sample_data(tmp_path / "data")
    (folder / "db" / "teams.db").unlink()
    reader = ClineReader(folder)
    [result] = reader.read()
    assert result.plan.groups == () and reader.problem is None


def test_a_board_locked_for_long_is_named_and_read_once_free(data: ClineData, monkeypatch: pytest.MonkeyPatch) -> None:
    import planwatch.core.transcripts.opencode_sql as opencode_sql

    monkeypatch.setattr(opencode_sql, "BUSY_TIMEOUT", 0.05)
    monkeypatch.setattr(opencode_sql, "RETRY_PAUSE", 0.01)
    data.session("1796000000012_jjjjj", "Locked", "/home/dev/lab")
    data.task("1796000000012_jjjjj", "task_0001", "Behind the lock")
    data.db.execute("PRAGMA journal_mode=DELETE")
    locker = sqlite3.connect(data.folder / "db" / "teams.db", isolation_level=None)
    locker.execute("BEGIN EXCLUSIVE")
    try:
        reader = ClineReader(data.folder)
        [result] = reader.read()
        assert result.plan.groups == () and reader.problem is not None and "locked" in reader.problem
    finally:
        locker.execute("COMMIT")
        locker.close()
    reader.refresh()
    assert reader.problem is None and items(by_id(reader)["1796000000012_jjjjj"].plan) == [
        ("Behind the lock", "pending")
    ]  # type: ignore[attr-defined]


# -- reading again only what moved -----------------------------------------------------------


def test_refresh_reads_again_only_the_sessions_whose_files_or_rows_moved(data: ClineData) -> None:
    data.session("1796000000013_kkkkk", "A", "/home/dev/a")
    data.session("1796000000014_lllll", "B", "/home/dev/b")
    reader = ClineReader(data.folder)
    reader.read()
    assert reader.refresh() == set()
    data.task("1796000000013_kkkkk", "task_0001", "New row")
    assert reader.refresh() == {"1796000000013_kkkkk"}
    data.messages("1796000000014_lllll", [ClineData.user("B, again")], updated="2026-12-01T20:00:00.000Z")
    assert reader.refresh() == {"1796000000014_lllll"}
    shutil.rmtree(data.folder / "sessions" / "1796000000013_kkkkk")
    assert reader.refresh() == {"1796000000013_kkkkk"} and set(by_id(reader)) == {"1796000000014_lllll"}


# -- discovery -----------------------------------------------------------------------------


def test_cline_is_found_at_cline_data_dir_else_cline_dir_data_else_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, isolated_env
) -> None:  # type: ignore[no-untyped-def]
    assert paths.cline_data_dir() == isolated_env.root / "cline-data"
    sample_data(paths.cline_data_dir())
    index = SessionIndex()
    index.scan()
    entry = index.get(SAMPLE_ID)
    assert entry is not None and entry.session.harness == "cline" and entry.session.path == paths.cline_data_dir()
    assert entry.plan.main is not None and [(i.text, i.status) for i in entry.plan.main.items] == SAMPLE_PLAN
    monkeypatch.delenv("CLINE_DATA_DIR")
    monkeypatch.setenv("CLINE_DIR", str(tmp_path / "cline"))
    assert paths.cline_data_dir() == tmp_path / "cline" / "data"
    monkeypatch.delenv("CLINE_DIR")
    assert paths.cline_data_dir() == Path.home() / ".cline" / "data"


def test_root_takes_the_data_folder_cline_dir_or_the_board_and_a_walk_finds_it(tmp_path: Path) -> None:
    data = sample_data(tmp_path / "cline" / "data")
    for root in (data, tmp_path / "cline", data / "db" / "teams.db", tmp_path):
        [found] = discover([root])
        assert found.harness == "cline" and found.path == data, root


# -- live ------------------------------------------------------------------------------------


def wait_for(index: SessionIndex, sid: str, holds) -> None:  # type: ignore[no-untyped-def]
    """Until `holds(entry)`: the follower's state, with a 30 s failure bound (how fast it
    comes is the benchmark's to say, not a test's)."""
    deadline = time.monotonic() + 30
    while True:
        entry = index.get(sid)
        if entry is not None and holds(entry):
            return
        assert time.monotonic() < deadline, f"{sid} never reached the state waited for"
        time.sleep(0.01)


def test_a_row_inserted_and_a_document_rewritten_by_another_process_show_in_the_index(data: ClineData) -> None:
    sid = "1796000000020_mmmmm"
    data.session(sid, "Live", "/home/dev/live")
    data.task(sid, "task_0001", "One", "in_progress")
    index = SessionIndex([data.folder])
    index.scan()
    index.start_following(lambda _ids: None)
    try:
        out = subprocess.run(
            [sys.executable, str(HELPER), str(data.folder), sid, "Two"], capture_output=True, text=True, timeout=30
        )
        assert out.returncode == 0, out.stderr
        wait_for(index, sid, lambda e: e.plan.main is not None and len(e.plan.main.items) == 2)
        # The messages document rewritten whole (half first, as a reader may catch it).
        messages = data.folder / "sessions" / sid / f"{sid}.messages.json"
        whole = messages.read_bytes()
        messages.write_bytes(whole[:40])
        wait_for(index, sid, lambda e: e.plan.main is None)
        assert any(str(messages) in p for p in index.problems())
        messages.write_bytes(whole)
        wait_for(index, sid, lambda e: e.plan.main is not None and len(e.plan.main.items) == 2)
        assert not [p for p in index.problems() if str(messages) in p]
    finally:
        index.stop()


# -- the warm-start cache --------------------------------------------------------------------


def test_the_warm_cache_of_a_cline_folder_holds_no_plan_or_prompt_text(tmp_path: Path) -> None:
    folder = sample_data(tmp_path / "data")
    index = SessionIndex([folder])
    index.scan()
    data = cache_file().read_bytes()
    assert str(folder).encode() in data
    for text, _status in SAMPLE_PLAN:
        assert text.encode() not in data
    assert b"Add YAML support" not in data and b"cline-todos" not in data


def listing(folder: Path) -> dict[str, tuple[str, str | None, object, list[tuple[str, str]]]]:
    index = SessionIndex([folder])
    index.scan()
    return {
        e.session.id: (
            e.session.title,
            e.session.cwd,
            e.session.updated,
            [(i.text, i.status) for g in e.plan.groups for i in g.items],
        )
        for e in index.entries()
    }


def messages_read(opened: list[Path]) -> list[str]:
    """The sessions whose messages document was among the files opened."""
    return sorted({path.parent.name for path in opened if path.name.endswith(".messages.json")})


def test_a_warm_start_leaves_the_messages_of_unchanged_cline_sessions_unread(data: ClineData) -> None:
    a, b, c = "1796000000021_aaaaa", "1796000000022_bbbbb", "1796000000023_ccccc"
    data.session(a, "Alpha", "/home/dev/a", started="2026-12-01T18:00:00.000Z")
    data.session(b, "Beta", "/home/dev/b", started="2026-12-01T18:10:00.000Z")
    untitled = data.session(c, "Gamma from the messages", "/home/dev/c", title="")
    meta = json.loads((untitled / f"{c}.json").read_text())
    meta.pop("prompt")  # its title is in its messages only
    (untitled / f"{c}.json").write_text(json.dumps(meta))
    data.messages(a, [ClineData.user("Alpha")], updated="2026-12-01T18:30:00.000Z")
    data.task(a, "task_0001", "First", "completed")
    data.task(b, "task_0001", "Second", "pending")
    folders = [data.folder / "sessions" / sid for sid in (a, b, c)]
    with opens_in(folders) as opens:
        cold = listing(data.folder)
        assert messages_read(opens.seen()) == [a, b, c]  # the watch sees the cold read
        assert listing(data.folder) == cold
        # Unchanged: only the session titled from its messages reads them again.
        assert messages_read(opens.seen()) == [c]
        data.task(b, "task_0002", "Third", "in_progress", updated="2026-12-01T19:00:00.000Z")
        data.messages(a, [ClineData.user("Alpha")], updated="2026-12-01T20:00:00.000Z")
        warm = listing(data.folder)
        assert messages_read(opens.seen()) == [a, c]  # b's rows moved, its files did not
    assert warm[a][2] != cold[a][2] and warm[a][3] == cold[a][3]
    assert warm[b][3] == [("Second", "pending"), ("Third", "in_progress")]
    assert warm[c][0] == "Gamma from the messages"
    assert listing(data.folder) == warm
    assert cold[a][2] is not None and warm[c] == cold[c]


def test_a_cline_folder_and_a_kilo_database_saved_as_transcript_folders_are_read_and_followed_at_once(
    tmp_path: Path,
) -> None:
    """Settings → transcript folders: saved while running, a Cline data folder and a Kilo
    database are read at once and followed (a row inserted afterwards shows); taken out
    again, their sessions go."""
    folder = sample_data(tmp_path / "elsewhere" / "cline-data")
    kilo = Path(shutil.copy(ROOT / "fixtures/samples/kilo/kilo.db", tmp_path / "elsewhere" / "kilo.db"))
    index = SessionIndex([tmp_path / "nothing-here"])
    index.scan()
    index.start_following(lambda _ids: None)
    try:
        changed = index.set_roots([tmp_path / "nothing-here", folder, kilo])
        assert {SAMPLE_ID, "ses_dcd121de1ffelPWOqBKlwGYv1a"} <= set(changed)
        out = subprocess.run(
            [sys.executable, str(HELPER), str(folder), SAMPLE_ID, "Fifth"], capture_output=True, text=True, timeout=30
        )
        assert out.returncode == 0, out.stderr
        wait_for(index, SAMPLE_ID, lambda e: e.plan.main is not None and len(e.plan.main.items) == 5)
        index.set_roots([tmp_path / "nothing-here"])
        assert index.get(SAMPLE_ID) is None and index.get("ses_dcd121de1ffelPWOqBKlwGYv1a") is None
    finally:
        index.stop()


def test_a_first_cline_session_written_after_the_start_shows_without_a_restart(isolated_env) -> None:  # type: ignore[no-untyped-def]
    """Cline installed after planwatch started: its data folder is watched from the start
    (its sessions/ and db/ as they appear), so its first session and board are read."""
    index = SessionIndex()
    index.scan()
    index.start_following(lambda _ids: None)
    try:
        data = ClineData(paths.cline_data_dir())
        data.session("1796000000030_nnnnn", "First Cline session", "/home/dev/new")
        data.task("1796000000030_nnnnn", "task_0001", "Its first task", "in_progress")
        data.close()
        wait_for(index, "1796000000030_nnnnn", lambda e: e.plan.main is not None)
        entry = index.get("1796000000030_nnnnn")
        assert entry is not None and entry.plan.main is not None
        assert [(i.text, i.status) for i in entry.plan.main.items] == [("Its first task", "in_progress")]
    finally:
        index.stop()
