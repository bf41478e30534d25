"""The opt-in mirror of agents' lists into the store (docs/privacy.md; docs/store.md,
Agents' lists in the store)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest
from conftest import IsolatedEnv

from planwatch.core.mirror import Mirror
from planwatch.core.model import AgentPlan, PlanGroup, PlanItem, Session
from planwatch.core.settings import Settings
from planwatch.core.store.identity import Caller
from planwatch.core.store.schema import Source
from planwatch.core.store.store import Store
from planwatch.core.store.tools import run_tool

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "translate"
SESSION_ID = "6f1c2a90-3b7e-4d0a-9a51-2c8f0e4b7d13"
SECRET_STEPS = ("Rotate the zebra-quartz credentials", "Migrate the ledger of Mount Obscura")

ON = Settings(keep_plans_in_store=True, owner="dana")
OFF = Settings()


@pytest.fixture
def session(tmp_path: Path, frozen_now: datetime) -> Session:
    return Session(
        id=SESSION_ID,
        harness="claude",
        path=tmp_path / f"{SESSION_ID}.jsonl",
        title="Fix the ledger import",
        updated=frozen_now,
    )


def todos(*items: tuple[str, str], source: str = "claude_todos") -> AgentPlan:
    return AgentPlan(groups=(PlanGroup(source=source, items=tuple(PlanItem(text=t, status=s) for t, s in items)),))  # type: ignore[arg-type]


def tasks_plan(*items: tuple[str, str, str]) -> AgentPlan:
    return AgentPlan(
        groups=(
            PlanGroup(
                source="claude_tasks",
                items=tuple(PlanItem(text=t, status=s, task_id=i) for i, t, s in items),  # type: ignore[arg-type]
            ),
        )
    )


def rows(store: Store) -> list[tuple[str, str, str]]:
    return [(t.id, t.title, t.status) for t in store.load().tasks_sorted()]


def every_file_text(root: Path) -> str:
    return "".join(p.read_text(errors="replace") for p in root.rglob("*") if p.is_file())


def test_with_the_setting_off_no_plan_text_reaches_disk(isolated_env: IsolatedEnv, session: Session) -> None:
    mirror = Mirror(isolated_env.store, OFF)
    for plan in (
        todos((SECRET_STEPS[0], "pending"), (SECRET_STEPS[1], "in_progress")),
        todos((SECRET_STEPS[0], "completed"), (SECRET_STEPS[1], "completed")),
        tasks_plan(("1", SECRET_STEPS[0], "in_progress")),
    ):
        assert mirror.update(session, plan) is None
    assert not isolated_env.store.exists()
    # Nowhere planwatch writes holds the text either (data, state, config, store).
    written = every_file_text(isolated_env.root)
    assert SECRET_STEPS[0] not in written and SECRET_STEPS[1] not in written


def test_with_the_setting_on_the_main_plan_becomes_the_session_plan(tmp_path: Path, session: Session) -> None:
    store = Store(tmp_path / "store")
    mirror = Mirror(store, ON)
    plan = AgentPlan(
        groups=(
            PlanGroup(
                source="codex",
                items=(
                    PlanItem(text="Read the schema", status="completed"),
                    PlanItem(text="Write the migration", status="in_progress"),
                ),
            ),
            PlanGroup(key="agent-a1", source="claude_todos", items=(PlanItem(text="Subagent step"),)),
        )
    )
    result = mirror.update(session, plan)
    assert result is not None and result.added == ["t1", "t2"]
    snap = store.load()
    [record] = snap.plans.values()
    assert record.title == "Fix the ledger import"
    assert rows(store) == [("t1", "Read the schema", "done"), ("t2", "Write the migration", "doing")]
    assert {t.source for t in snap.tasks.values()} == {Source(tool="update_plan")}
    # Stamps name the person who runs the app, in the session.
    created = snap.tasks["t1"].created
    assert created is not None and (created.by, created.in_) == ("dana", SESSION_ID)


def test_an_unchanged_plan_is_not_written_again(tmp_path: Path, session: Session) -> None:
    store = Store(tmp_path / "store")
    mirror = Mirror(store, ON)
    plan = todos(("Add parser", "in_progress"), ("Write tests", "pending"))
    mirror.update(session, plan)
    # A person blocks a mirrored task; the agent's list has not changed since.
    run_tool("task_set", store, ON, Caller(by="dana"), {"task": "t2", "status": "blocked"})
    assert mirror.update(session, plan) is None
    assert rows(store) == [("t1", "Add parser", "doing"), ("t2", "Write tests", "blocked")]
    # The agent moves on: its list wins again.
    mirror.update(session, todos(("Add parser", "completed"), ("Write tests", "in_progress")))
    assert rows(store) == [("t1", "Add parser", "done"), ("t2", "Write tests", "doing")]


def test_claude_tasks_are_mirrored_as_single_changes_by_task_id(tmp_path: Path, session: Session) -> None:
    store = Store(tmp_path / "store")
    mirror = Mirror(store, ON)
    mirror.update(session, tasks_plan(("1", "Set up schema", "pending"), ("2", "Write API", "pending")))
    mirror.update(session, tasks_plan(("1", "Set up schema", "in_progress"), ("2", "Write API", "pending")))
    # A subject edit keeps the task (found by source.id), it is not a new one.
    mirror.update(session, tasks_plan(("1", "Set up the schema", "completed"), ("2", "Write API", "pending")))
    # Task 2 deleted by the agent: dropped, not removed.
    mirror.update(session, tasks_plan(("1", "Set up the schema", "completed")))
    assert rows(store) == [("t1", "Set up the schema", "done"), ("t2", "Write API", "dropped")]
    assert [t.source for t in store.load().tasks_sorted()] == [
        Source(tool="TaskCreate", id="1"),
        Source(tool="TaskCreate", id="2"),
    ]


def test_turning_the_setting_on_later_writes_the_current_plan(tmp_path: Path, session: Session) -> None:
    store = Store(tmp_path / "store")
    current = {"settings": OFF}
    mirror = Mirror(store, lambda: current["settings"])
    plan = todos(("Add parser", "in_progress"))
    mirror.update(session, plan)
    assert not store.root.exists()
    current["settings"] = ON
    mirror.update(session, plan)
    assert rows(store) == [("t1", "Add parser", "doing")]


def test_a_session_without_a_plan_writes_nothing(tmp_path: Path, session: Session) -> None:
    store = Store(tmp_path / "store")
    mirror = Mirror(store, ON)
    assert mirror.update(session, AgentPlan()) is None
    assert not store.root.exists()


def test_a_todowrite_list_after_tasks_drops_the_tasks_it_no_longer_holds(tmp_path: Path, session: Session) -> None:
    store = Store(tmp_path / "store")
    mirror = Mirror(store, ON)
    mirror.update(session, tasks_plan(("1", "Set up schema", "in_progress")))
    mirror.update(session, todos(("Write docs", "pending")))
    assert rows(store) == [("t1", "Set up schema", "dropped"), ("t2", "Write docs", "todo")]


def test_real_todowrite_session_mirrored_call_by_call(tmp_path: Path, frozen_now: datetime) -> None:
    """The real Claude Code sample (4 pending → … → all done → cleared), fed line by line
    as the app follows it: every step ends done, and the clearing drops nothing."""
    from planwatch.core.transcripts.registry import reader_for

    sample = FIXTURES / "86c5b490-b7df-4218-91f4-6c39c5cf19f8.jsonl"
    store = Store(tmp_path / "store")
    mirror = Mirror(store, ON)
    reader = reader_for("claude")(sample)
    open_counts: list[int] = []
    for line in sample.read_bytes().splitlines(keepends=True):
        if not reader.wants(line):
            continue
        reader.feed_line(line)
        [result] = reader.results()
        session = Session(
            id=result.facts.id or "s", harness="claude", path=sample, title=result.facts.title(), updated=frozen_now
        )
        if mirror.update(session, result.plan) is not None:
            open_counts.append(sum(t.status not in ("done", "dropped") for t in store.load().tasks.values()))
    snap = store.load()
    assert len(snap.tasks) == 4
    assert {t.status for t in snap.tasks.values()} == {"done"}
    assert open_counts[0] == 4 and open_counts[-1] == 0
    [plan] = snap.plans.values()
    assert plan.scope is not None and plan.scope.value == "86c5b490-b7df-4218-91f4-6c39c5cf19f8"
    assert plan.title.startswith("Add YAML support to the config loader")


def test_a_session_the_store_cannot_name_is_skipped_and_logged_without_plan_text(
    isolated_env: IsolatedEnv, frozen_now: datetime, caplog: pytest.LogCaptureFixture
) -> None:
    # Bad input never crashes: a transcript file name with bytes that are not UTF-8
    # gives a session id holding a lone surrogate, which no record can hold. The update
    # is skipped and logged (no plan text in the log); other sessions go on as before.
    odd = Session(
        id="6f1c2a90-\udcff", harness="claude", path=isolated_env.root / "x.jsonl", title="t", updated=frozen_now
    )
    mirror = Mirror(isolated_env.store, ON)
    with caplog.at_level("DEBUG"):
        assert mirror.update(odd, todos((SECRET_STEPS[0], "pending"))) is None
    assert SECRET_STEPS[0] not in caplog.text
    assert "6f1c2a90-" in caplog.text
    store = Store(isolated_env.store)
    assert store.load().problems == []
    good = Session(id=SESSION_ID, harness="claude", path=isolated_env.root / "y.jsonl", title="t", updated=frozen_now)
    result = mirror.update(good, todos((SECRET_STEPS[1], "pending")))
    assert result is not None and result.wrote
    assert [title for _, title, _ in rows(store)] == [SECRET_STEPS[1]]


ACP_LOG = Path(__file__).resolve().parents[2] / "fixtures/transcripts/rules/acp/plans-and-sessions.jsonl"


def _mirror_acp_log_line_by_line(store: Store, frozen_now: datetime) -> None:
    """The real ACP log fed line by line as the app follows it, every session mirrored."""
    from planwatch.core.transcripts.registry import reader_for

    mirror = Mirror(store, ON)
    reader = reader_for("acp")(ACP_LOG)
    for line in ACP_LOG.read_bytes().splitlines(keepends=True):
        if not reader.wants(line):
            continue
        reader.feed_line(line)
        for result in reader.results():
            session = Session(
                id=result.facts.id or "s", harness="acp", path=ACP_LOG, title=result.facts.title(), updated=frozen_now
            )
            mirror.update(session, result.plan)


def test_an_acp_sessions_every_plan_id_is_its_own_session_plan_titled_apart(
    tmp_path: Path, frozen_now: datetime
) -> None:
    """docs/store.md, Agents' lists in the store: an ACP session writes a whole list with each plan update — the default plan
    and each planId its own session plan, titled so a person can tell them apart."""
    store = Store(tmp_path / "store")
    _mirror_acp_log_line_by_line(store, frozen_now)
    snap = store.load()
    assert snap.problems == []
    by_title = {plan.title: plan for plan in snap.plans.values()}
    assert set(by_title) == {
        "Plan the v2 API and start on auth.",
        "Plan the v2 API and start on auth. · plan migrations",
        "Plan the v2 API and start on auth. · plan scratch",
        "Proofread the changelog.",
    }
    for plan in snap.plans.values():
        assert plan.scope is not None and plan.scope.kind == "session"
    assert {p.scope.value for p in snap.plans.values() if p.scope} == {"sess_a1", "sess_b2"}

    def tasks_of(title: str) -> list[tuple[str, str]]:
        plan_id = by_title[title].id
        return [(t.title, t.status) for t in snap.tasks_sorted() if t.plan == plan_id]

    assert tasks_of("Plan the v2 API and start on auth.") == [
        ("Sketch the v2 routes", "done"), ("Write the auth middleware", "doing"),
        ("Drop the v1 shims", "dropped"), ("Ship", "todo"),
    ]  # fmt: skip
    assert tasks_of("Plan the v2 API and start on auth. · plan migrations") == [("Add the tokens table", "doing")]
    # The agent removed the scratch plan (plan_removed): its open step is dropped, not deleted.
    assert tasks_of("Plan the v2 API and start on auth. · plan scratch") == [("Temporary", "dropped")]
    assert tasks_of("Proofread the changelog.") == [("Proofread CHANGELOG.md", "doing")]
    # A planId's plan carries the ref that finds it again; the main plan none.
    assert by_title["Plan the v2 API and start on auth. · plan migrations"].refs == ("acp-plan:migrations",)
    assert by_title["Plan the v2 API and start on auth."].refs == ()
    # The markdown plan is a document, not a list: never a task.
    assert not any("design" in t.title or "pagination" in t.title for t in snap.tasks.values())


def test_an_acp_log_mirrored_again_from_the_start_makes_no_second_plan_or_task(
    tmp_path: Path, frozen_now: datetime
) -> None:
    """A restart (a new mirror, the same log) finds each planId's plan by its ref: no second plan, no new task."""
    store = Store(tmp_path / "store")
    _mirror_acp_log_line_by_line(store, frozen_now)
    before = store.load()
    _mirror_acp_log_line_by_line(store, frozen_now)
    after = store.load()
    assert sorted(after.plans) == sorted(before.plans)
    assert [(t.id, t.plan, t.title, t.status) for t in after.tasks_sorted()] == [
        (t.id, t.plan, t.title, t.status) for t in before.tasks_sorted()
    ]


@pytest.mark.parametrize(
    ("sample", "harness", "tool", "expected"),
    [
        (
            "qwen/650333ef-8d48-49e8-abbd-2f740e50ee0a.jsonl",
            "qwen",
            "todo_write",
            [
                ("Inspect the current config loader", "done"),
                ("Add YAML parsing to load_config()", "done"),
                ("Run the config tests", "done"),
            ],
        ),
        (
            "pi/2026-12-01T18-58-51-609Z_01a232f9-5858-71c1-b1b0-7ed98b089974.jsonl",
            "pi",
            "todo",
            [
                ("Inspect the current config loader", "done"),
                ("Add YAML parsing to load_config()", "done"),
                ("Add a TOML fallback", "todo"),
                ("Run the config tests", "done"),
            ],
        ),
    ],
)
def test_qwen_and_pi_lists_are_mirrored_with_their_statuses_mapped(
    tmp_path: Path, frozen_now: datetime, sample: str, harness: str, tool: str, expected: list[tuple[str, str]]
) -> None:
    """docs/reading.md, Statuses and priorities: a Qwen Code `completed` and a pi `done: true` are the store's done,
    a pi `done: false` its todo; the tasks name the harness's tool."""
    from planwatch.core.transcripts.lines import read_transcript
    from planwatch.core.transcripts.registry import reader_for

    path = FIXTURES.parent / "samples" / sample
    reader = reader_for(harness)(path)  # type: ignore[arg-type]
    read_transcript(reader, path)
    [result] = reader.results()
    store = Store(tmp_path / "store")
    session = Session(
        id=result.facts.id or "x", harness=harness, path=path, title=result.facts.title(), updated=frozen_now
    )  # type: ignore[arg-type]
    assert Mirror(store, ON).update(session, result.plan) is not None
    assert [(title, status) for _, title, status in rows(store)] == expected
    assert {t.source for t in store.load().tasks.values()} == {Source(tool=tool)}


def test_a_copilot_table_is_mirrored_with_done_as_done_and_blocked_as_blocked(
    tmp_path: Path, frozen_now: datetime
) -> None:
    """A Copilot CLI session's `todos` rows are its whole list: `done` is the store's
    done, `blocked` its blocked, `in_progress` doing; the tasks name the `sql` tool that
    wrote them."""
    from planwatch.core.transcripts.copilot import CopilotReader

    folder = FIXTURES.parent / "transcripts/rules/copilot/session-state/e1000000-0000-4000-8000-000000000002"
    [result] = CopilotReader(folder).read()
    sample = FIXTURES.parent / "samples/copilot/session-state/5e806925-4250-446b-9e18-4cd8ceb54145"
    [blocked] = CopilotReader(sample).read()
    store = Store(tmp_path / "store")
    for n, read in enumerate((result, blocked)):
        session = Session(
            id=read.facts.id or str(n), harness="copilot", path=folder, title=read.facts.title(), updated=frozen_now
        )
        assert Mirror(store, ON).update(session, read.plan) is not None
    assert sorted((title, status) for _, title, status in rows(store)) == sorted(
        [
            ("Build the wheel", "done"),
            ("Sign the wheel", "doing"),
            ("Write the notes", "todo"),
            ("Upload it", "todo"),
            ("Inspecting the config loader", "done"),
            ("Adding YAML parsing", "done"),
            ("Adding a TOML fallback", "blocked"),
            ("Running the config tests", "done"),
        ]
    )
    assert {t.source for t in store.load().tasks.values()} == {Source(tool="sql")}


def _database_result(harness: str, tmp_path: Path):  # type: ignore[no-untyped-def]
    """The one session of a database harness's real sample, read by its reader."""
    import shutil

    samples = FIXTURES.parent / "samples"
    if harness == "kilo":
        from planwatch.core.transcripts.kilo import KiloReader

        reader = KiloReader(Path(shutil.copy(samples / "kilo" / "kilo.db", tmp_path / "kilo.db")))
        [result] = reader.read()
        return reader.path, result
    if harness == "cline":
        from planwatch.core.transcripts.cline import ClineReader

        data = tmp_path / "data"
        shutil.copytree(samples / "cline" / "1796150957437_jfzg6", data / "sessions" / "1796150957437_jfzg6")
        (data / "db").mkdir()
        shutil.copy(samples / "cline" / "teams.db", data / "db" / "teams.db")
        [result] = ClineReader(data).read()
        return data, result
    raise AssertionError(harness)


@pytest.mark.parametrize(
    ("harness", "tool", "expected"),
    [
        (
            "kilo",
            "todowrite",
            [
                ("Inspect the current config loader", "done"),
                ("Add YAML parsing to load_config()", "done"),
                ("Add a TOML fallback", "dropped"),
                ("Run the config tests", "done"),
            ],
        ),
        (
            "cline",
            "team_task",
            [
                ("Inspect the current config loader", "done"),
                ("Add YAML parsing to load_config()", "done"),
                ("Add a TOML fallback", "blocked"),
                ("Run the config tests", "done"),
            ],
        ),
    ],
)
def test_database_harness_lists_are_mirrored_with_their_statuses_mapped(
    tmp_path: Path, frozen_now: datetime, harness: str, tool: str, expected: list[tuple[str, str]]
) -> None:
    """A Kilo `cancelled` is the store's dropped, a Cline board's `blocked` its blocked,
    `completed` its done; the tasks name the harness's tool."""
    path, result = _database_result(harness, tmp_path)
    store = Store(tmp_path / "store")
    session = Session(
        id=result.facts.id or "x", harness=harness, path=path, title=result.facts.title(), updated=frozen_now
    )  # type: ignore[arg-type]
    assert Mirror(store, ON).update(session, result.plan) is not None
    assert [(title, status) for _, title, status in rows(store)] == expected
    assert {t.source for t in store.load().tasks.values()} == {Source(tool=tool)}
