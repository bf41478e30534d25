"""ACP plans to the letter of ACP's Agent Plan page (docs/reading.md, ACP agents), and the
checklist's last gaps — priorities, "In progress" with overrides, partial labels and
activity — checked through the reader, the checklist, the index and `show --plain`.

The ACP log is `fixtures/transcripts/rules/acp/planid-and-types.jsonl` (wrapped
`{ts, from, msg}` records in the shape of `fixtures/samples/acp-codex-agent-stream.jsonl`):
a default plan [Read the parser ✓, Fix the parser ▸ (high), Tidy the docs (low)], then a
`plan_update` and a `plan_removed` without a planId, one with an empty planId, a custom
`_codex_notes` plan holding `data` (with a bidi override and an escape in it) and a
future `checklist_v2` plan holding `entries`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from app_transcripts import ClaudeTranscript

from planwatch.core.checklist import build_checklist, item_keys
from planwatch.core.index import SessionIndex
from planwatch.core.model import AgentPlan, PlanGroup, PlanItem, partial_label
from planwatch.core.store.store import Store
from planwatch.core.store.translate import translate_list
from planwatch.core.transcripts.acp import AcpReader
from planwatch.core.transcripts.claude import ClaudeReader
from planwatch.core.transcripts.lines import read_transcript
from planwatch.tui.widgets.details import details_text, hover_card

ROOT = Path(__file__).resolve().parents[2]
LOG = ROOT / "fixtures/transcripts/rules/acp/planid-and-types.jsonl"
SAMPLE = ROOT / "fixtures/samples/acp-codex-agent-stream.jsonl"
LEGACY = ROOT / "fixtures/transcripts/rules/claude/projects/-home-dev-lab/c0a1b2c3-d4e5-4f60-8a7b-9c0d1e2f3a41.jsonl"
LONG_AGO = datetime(2025, 1, 1, tzinfo=UTC).timestamp()


def read_acp(path: Path = LOG) -> AgentPlan:
    reader = AcpReader(path)
    read_transcript(reader, path)
    [result] = reader.results()
    return result.plan


def plain(path: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "planwatch.tui.cli", "show", "--plain", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=os.environ.copy(),
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def acp_log(tmp_path: Path, *updates: str) -> Path:
    """A copy of the real sample with `updates` (session/update payloads) appended."""
    path = tmp_path / "tap.jsonl"
    sid = "01a22b53-29e2-7072-87b2-c2a6439f82d5"
    lines = [line for line in SAMPLE.read_text().splitlines() if line]
    for n, update in enumerate(updates):
        lines.append(
            f'{{"ts":"2026-11-30T08:00:{n:02d}.000Z","from":"agent","msg":{{"jsonrpc":"2.0","method":"session/update",'
            f'"params":{{"sessionId":"{sid}","update":{update}}}}}}}'
        )
    path.write_text("\n".join(lines) + "\n")
    return path


# -- 1. planId is required ---------------------------------------------------------------


def test_a_plan_update_without_a_plan_id_is_malformed_and_changes_nothing() -> None:
    plan = read_acp()
    assert [(i.text, i.status) for i in plan.main.items] == [  # type: ignore[union-attr]
        ("Read the parser", "completed"),
        ("Fix the parser", "in_progress"),
        ("Tidy the docs", "pending"),
    ]
    assert "Stray entry" not in plain(LOG)


def test_a_plan_removed_without_a_plan_id_is_malformed_and_changes_nothing(tmp_path) -> None:
    # After the real sample's three plans: a removal with no planId leaves the default plan.
    log = acp_log(tmp_path, '{"sessionUpdate":"plan_removed"}', '{"sessionUpdate":"plan_removed","planId":null}')
    assert plain(log) == (
        "# acp\ncompleted\tInspect the config loader\ncompleted\tAdd YAML parsing\ncompleted\tWrite YAML tests\n"
    )


def test_show_plain_of_a_plan_then_a_stray_update_prints_the_plan(tmp_path) -> None:
    # The reproduction: `plan` [Read the parser ✓, Fix the parser ▸] then a
    # `plan_update {"type": "items", "entries": [...]}` with no planId.
    log = acp_log(
        tmp_path,
        '{"sessionUpdate":"plan","entries":[{"content":"Read the parser","priority":"medium","status":"completed"},'
        '{"content":"Fix the parser","priority":"medium","status":"in_progress"}]}',
        '{"sessionUpdate":"plan_update","plan":{"type":"items","entries":[{"content":"Stray","priority":"medium","status":"pending"}]}}',
    )
    assert plain(log) == "# acp\ncompleted\tRead the parser\nin_progress\tFix the parser\n"


# -- 2. custom and future plan types -----------------------------------------------------


def test_custom_and_future_plan_types_are_kept_as_documents_with_type_plan_id_and_content() -> None:
    plan = read_acp()
    assert [(d.key, d.plan_type) for d in plan.documents] == [
        ("acp:notes", "_codex_notes"),
        ("acp:next", "checklist_v2"),
    ]
    notes, future = plan.documents
    assert notes.text.startswith('data: {"owner": "codex", "steps": ["lex", "parse"]')
    assert future.text == 'entries: [{"content": "Ship the fix", "status": "pending"}]'
    # A future variant holding entries is a document, not a checklist: no group, no count.
    assert [g.key for g in plan.groups] == [""]
    assert plan.counts() == (1, 3)


def test_show_plain_prints_custom_and_future_plans_generically_made_safe() -> None:
    out = plain(LOG)
    assert out.endswith(
        "# document acp acp:notes _codex_notes\n"
        '> data: {"owner": "codex", "steps": ["lex", "parse"], "note": "\\u202eevil\\u202c \\u001b[31mred\\u001b[0m"}\n'
        "# document acp acp:next checklist_v2\n"
        '> entries: [{"content": "Ship the fix", "status": "pending"}]\n'
    )
    assert "\x1b" not in out and "\u202e" not in out


def test_a_plan_with_nothing_but_its_type_is_still_shown(tmp_path) -> None:
    log = acp_log(tmp_path, '{"sessionUpdate":"plan_update","plan":{"type":"_bare","planId":"b1"}}')
    assert plain(log).endswith("# document acp acp:b1 _bare\n> (no content)\n")


def test_a_later_items_plan_replaces_a_document_of_the_same_plan_id(tmp_path) -> None:
    log = acp_log(
        tmp_path,
        '{"sessionUpdate":"plan_update","plan":{"type":"_x","planId":"p","data":1}}',
        '{"sessionUpdate":"plan_update","plan":{"type":"items","planId":"p","entries":[{"content":"Now a list","status":"pending"}]}}',
    )
    assert plain(log).endswith("# acp p\npending\tNow a list\n")


def test_details_title_each_document_with_its_plan_id_and_type() -> None:
    from planwatch.tui.widgets.details import document_title

    notes, future = read_acp().documents
    assert document_title(notes) == "Plan document · ACP plan notes · type _codex_notes"
    assert document_title(future) == "Plan document · ACP plan next · type checklist_v2"


# -- 3. priorities -----------------------------------------------------------------------


def test_acp_priorities_are_kept_on_the_item() -> None:
    plan = read_acp()
    assert [(i.text, i.priority) for i in plan.main.items] == [  # type: ignore[union-attr]
        ("Read the parser", "medium"),
        ("Fix the parser", "high"),
        ("Tidy the docs", "low"),
    ]


def test_legacy_todowrite_items_keep_their_priority() -> None:
    reader = ClaudeReader(LEGACY)
    read_transcript(reader, LEGACY)
    [result] = reader.results()
    assert [i.priority for i in result.plan.main.items] == ["high", "medium", "low"]  # type: ignore[union-attr]


def test_a_source_without_priorities_leaves_it_unset() -> None:
    path = ROOT / "fixtures/samples/codex-rollout.jsonl"
    from planwatch.core.transcripts.codex import CodexReader

    reader = CodexReader(path)
    read_transcript(reader, path)
    assert {i.priority for i in reader.results()[0].plan.main.items} == {None}  # type: ignore[union-attr]


def test_details_list_the_high_priority_steps() -> None:
    from planwatch.core.model import Session

    session = Session(id="sess_c3", harness="acp", path=LOG, updated=datetime.now(UTC))
    body = details_text(session, build_checklist(read_acp()), []).plain
    assert "High priority:\n  ! Fix the parser\n" in body


# -- 5. In progress keeps an overridden step --------------------------------------------------


def test_in_progress_lists_the_agents_steps_and_a_ticked_one_is_ticked_by_you() -> None:
    plan = read_acp()
    keys = item_keys(i.text for i in plan.main.items)  # type: ignore[union-attr]
    checklist = build_checklist(plan, {keys[1]: "completed"})  # "Fix the parser" ticked
    assert [r.text for r in checklist.in_progress()] == ["Fix the parser"]
    card = hover_card(checklist).plain
    assert "In progress:\n  ▸ Fix the parser (ticked by you)" in card
    assert "In progress: none" not in card


# -- 6. partial, said for its source -----------------------------------------------------


def test_partial_says_what_is_missing_for_each_source() -> None:
    assert partial_label("claude_tasks") == "partial (only the tasks found)"
    for source in ("claude_todos", "codex", "acp", "claude_desktop"):
        assert partial_label(source) == "partial (an earlier list: the latest was not found)"
    todos = AgentPlan(groups=(PlanGroup(source="claude_todos", items=(PlanItem(text="a"),), partial=True),))
    card = hover_card(build_checklist(todos)).plain
    assert "Partial: an earlier list: the latest was not found" in card
    assert "only the tasks found" not in card


# -- 7. activity is the last record's time -------------------------------------------------


@pytest.mark.parametrize("reading", [True, False], ids=["reading-on", "reading-off"])
def test_activity_is_the_last_records_time_whatever_the_setting_acp(tmp_path, reading) -> None:
    log = tmp_path / "acp" / LOG.name
    log.parent.mkdir()
    shutil.copy(LOG, log)
    os.utime(log, (LONG_AGO, LONG_AGO))  # the file's time says nothing newer
    index = SessionIndex([log.parent], read_plans=reading)
    index.scan()
    [entry] = index.entries()
    # The last record is the checklist_v2 plan_update at 20:00:08.400Z.
    assert entry.session.updated == datetime(2026, 11, 29, 20, 0, 8, 400000, tzinfo=UTC)


@pytest.mark.parametrize("reading", [True, False], ids=["reading-on", "reading-off"])
def test_activity_is_the_last_records_time_whatever_the_setting_claude(isolated_env, reading) -> None:
    at = datetime(2026, 11, 30, 8, 0, tzinfo=UTC)
    transcript = ClaudeTranscript(isolated_env.claude, "/home/dev/web", at=at)
    transcript.prompt("Add dark mode").todo_write([("Add the switch", "in_progress")])
    transcript.todo_write([("Add the switch", "completed")])  # the last records: plan calls
    os.utime(transcript.path, (LONG_AGO, LONG_AGO))
    index = SessionIndex([isolated_env.claude / "projects"], read_plans=reading)
    index.scan()
    [entry] = index.entries()
    assert entry.session.updated == transcript.at


def test_an_appended_plan_call_moves_activity_with_reading_off(isolated_env) -> None:
    # The follower's path: an append read from its offset, plan lines kept from the reader.
    at = datetime(2026, 11, 30, 8, 0, tzinfo=UTC)
    transcript = ClaudeTranscript(isolated_env.claude, "/home/dev/web", at=at)
    transcript.prompt("Add dark mode")
    reader = ClaudeReader(transcript.path)
    first = read_transcript(reader, transcript.path, plans=False)
    assert reader.results()[0].facts.last_timestamp == transcript.at
    transcript.at += timedelta(hours=2)
    transcript.todo_write([("Add the switch", "in_progress")])
    read_transcript(reader, transcript.path, first.offset, head=0, plans=False)
    [result] = reader.results()
    assert result.facts.last_timestamp == transcript.at
    assert result.plan.groups == ()  # reading off: the plan call never reached the reader


# -- the translation keeps priority ----------------------------------------------------


def test_translation_keeps_an_entrys_priority_medium_where_it_names_none(isolated_env) -> None:
    store = Store(isolated_env.store)
    translate_list(
        store,
        "sess_c3",
        "Fix the parser",
        [
            ("Urgent step", "pending", "high"),
            ("Later", "pending", "low"),
            ("Plain", "pending", None),
            ("Old shape", "pending"),
        ],
        tool="session/update",
    )
    tasks = sorted(store.load().tasks.values(), key=lambda t: t.id)
    assert [(t.title, t.priority) for t in tasks] == [
        ("Urgent step", "high"),
        ("Later", "low"),
        ("Plain", "medium"),
        ("Old shape", "medium"),
    ]
    # A later list naming another priority changes it; one naming none keeps it.
    translate_list(
        store,
        "sess_c3",
        "Fix the parser",
        [("Urgent step", "in_progress", "medium"), ("Later", "pending", None)],
        tool="session/update",
    )
    tasks = sorted(store.load().tasks.values(), key=lambda t: t.id)
    assert [(t.title, t.priority) for t in tasks[:2]] == [("Urgent step", "medium"), ("Later", "low")]


def test_a_warm_start_keeps_the_last_records_time(isolated_env) -> None:
    # The last record is chat (no plan, no fact): its time is the activity, cold and warm.
    from planwatch.core.transcripts import warmcache
    from planwatch.core.transcripts.batch import read_file
    from planwatch.core.transcripts.discover import classify
    from planwatch.core.transcripts.warmcache import WarmCache

    at = datetime(2026, 11, 30, 8, 0, tzinfo=UTC)
    transcript = ClaudeTranscript(isolated_env.claude, "/home/dev/web", at=at)
    transcript.prompt("Add dark mode").todo_write([("Add the switch", "in_progress")])
    transcript.at += timedelta(hours=1)
    chat = {
        "type": "assistant",
        "timestamp": transcript.at.isoformat().replace("+00:00", "Z"),
        "sessionId": transcript.session_id,
        "message": {"role": "assistant", "content": [{"type": "text", "text": "Done."}]},
    }
    with transcript.path.open("a") as fh:
        fh.write(json.dumps(chat) + "\n")
    os.utime(transcript.path, (LONG_AGO, LONG_AGO))
    item = classify(transcript.path)
    assert item is not None
    first = read_file(item, True)
    assert first.results[0].facts.last_timestamp == transcript.at
    assert first.trace is not None and warmcache.save([(item.path, item.harness, first.trace)], [item.path])
    second = read_file(item, True, WarmCache.load().get(item.path, item.harness))
    assert second.warm == "same"
    assert second.results[0].facts.last_timestamp == transcript.at


def test_opencode_todos_keep_their_priority_from_the_rows_and_from_a_todowrite_part(tmp_path) -> None:
    sys.path.insert(0, str(Path(__file__).parents[1]))
    from opencode_db import T0, OpenCodeDb

    from planwatch.core.transcripts.opencode import OpenCodeReader

    db = OpenCodeDb(tmp_path / "opencode.db")
    try:
        db.session("ses_rows", "Rows")
        db.todowrite(
            "ses_rows",
            [("Plan", "completed", "high"), ("Build", "in_progress", "medium"), ("Tidy", "pending", "low")],
            T0 + 100,
        )
        db.session("ses_part", "Part only")
        db.todowrite("ses_part", [("Urgent", "pending", "high"), ("Odd", "pending", "urgent")], T0 + 200, rows=False)
    finally:
        db.close()
    reader = OpenCodeReader(tmp_path / "opencode.db")
    reader.read()
    plans = {r.facts.id: r.plan for r in reader.results()}
    assert [(i.text, i.priority) for i in plans["ses_rows"].main.items] == [  # type: ignore[union-attr]
        ("Plan", "high"),
        ("Build", "medium"),
        ("Tidy", "low"),
    ]
    assert [(i.text, i.priority) for i in plans["ses_part"].main.items] == [("Urgent", "high"), ("Odd", None)]  # type: ignore[union-attr]


def _fixture_transcripts() -> list[Path]:
    from planwatch.core.transcripts.discover import classify

    return [p for p in sorted((ROOT / "fixtures").rglob("*.jsonl")) if classify(p) is not None]


@pytest.mark.parametrize("path", _fixture_transcripts(), ids=lambda p: str(p.relative_to(ROOT / "fixtures")))
def test_every_fixture_transcripts_activity_is_the_same_whatever_the_setting(tmp_path, path) -> None:
    # The file's time pinned far back: only the records' own times count.
    from planwatch.core.transcripts.batch import read_file
    from planwatch.core.transcripts.discover import classify

    copy = tmp_path / path.relative_to(ROOT / "fixtures")
    copy.parent.mkdir(parents=True)
    shutil.copy(path, copy)
    os.utime(copy, (LONG_AGO, LONG_AGO))
    item = classify(copy)
    assert item is not None
    on, off = (read_file(item, reading) for reading in (True, False))
    assert [r.facts.last_timestamp for r in off.results] == [r.facts.last_timestamp for r in on.results]


def test_the_mirror_keeps_an_acp_plans_priorities_in_the_store(isolated_env) -> None:
    from planwatch.core.mirror import Mirror
    from planwatch.core.model import Session
    from planwatch.core.settings import Settings

    store = Store(isolated_env.store)
    mirror = Mirror(store, Settings(keep_plans_in_store=True))
    session = Session(id="sess_c3", harness="acp", path=LOG, title="Fix the parser", updated=datetime.now(UTC))
    assert mirror.update(session, read_acp()) is not None
    tasks = sorted(store.load().tasks.values(), key=lambda t: t.id)
    assert [(t.title, t.status, t.priority) for t in tasks] == [
        ("Read the parser", "done", "medium"),
        ("Fix the parser", "doing", "high"),
        ("Tidy the docs", "todo", "low"),
    ]
