"""docs/reading.md, Gemini CLI: Gemini CLI chat recordings, one test per rule (fixtures composed by
fixtures/transcripts/compose/gemini_fix.py in the shapes of the real sample)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from waiting import Changes

from planwatch.core import paths
from planwatch.core.index import SessionIndex
from planwatch.core.model import AgentPlan
from planwatch.core.transcripts.discover import classify, discover
from planwatch.core.transcripts.gemini import GeminiReader
from planwatch.core.transcripts.lines import read_transcript
from planwatch.core.transcripts.reader import SessionResult
from planwatch.core.transcripts.registry import reader_for

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "fixtures/samples/gemini-cli-session.jsonl"
RULES = ROOT / "fixtures/transcripts/rules/gemini/tmp"
LAB = RULES / "lab/chats"
DEMO = ROOT / "fixtures/transcripts/gemini/tmp/infra/chats/session-2026-11-30T06-40-5c2e8a41.jsonl"
REFUSED = LAB / "session-2026-11-29T10-00-a1000000.jsonl"
REWIND = LAB / "session-2026-11-29T11-00-a1000000.jsonl"
REWIND_UNKNOWN = LAB / "session-2026-11-29T12-00-a1000000.jsonl"
RESUME = LAB / "session-2026-11-29T13-00-a1000000.jsonl"
RESUME_THEN_REWIND = LAB / "session-2026-11-29T14-00-a1000000.jsonl"
LAST_COPY = LAB / "session-2026-11-29T15-00-a1000000.jsonl"
PARENT = LAB / "session-2026-11-29T16-00-a1000000.jsonl"
CHILD = LAB / "a1000000-0000-4000-8000-000000000007/a1000000-0000-4000-8000-0000000000c7.jsonl"
LEGACY = RULES / "oldproj/chats/session-2026-11-29T17-00-a1000000.json"


def read(path: Path, *, plans: bool = True, **windows: int) -> tuple[GeminiReader, SessionResult]:
    reader = reader_for("gemini")(path)
    assert isinstance(reader, GeminiReader)
    read_transcript(reader, path, plans=plans, **windows)
    [result] = reader.results()
    return reader, result


def plan_of(result: SessionResult) -> list[tuple[str, str]]:
    main = result.plan.main
    assert main is not None and main.source == "gemini_todos"
    return [(i.text, i.status) for i in main.items]


def test_write_todos_is_a_full_list_each_call_real_sample() -> None:
    reader, result = read(SAMPLE)
    assert plan_of(result) == [
        ("Inspect the current config loader", "completed"),
        ("Add YAML parsing to load_config()", "completed"),
        ("Add a TOML fallback", "cancelled"),
        ("Run the config tests", "completed"),
    ]
    assert reader.skipped_lines == 0
    assert result.facts.id == "988e1cef-f234-4775-a937-fa486a83d08a"


def test_every_record_line_is_replayed_in_file_order() -> None:
    lines = SAMPLE.read_bytes().splitlines(keepends=True)
    seen: list[list[tuple[str, str]]] = []
    reader = GeminiReader(SAMPLE)
    for line in lines:
        if reader.wants(line):
            reader.feed_line(line)
        main = reader.results()[0].plan.main
        if main is not None and (not seen or seen[-1] != [(i.text, i.status) for i in main.items]):
            seen.append([(i.text, i.status) for i in main.items])
    assert [[s for _, s in step] for step in seen] == [
        ["in_progress", "pending", "pending", "pending"],
        ["completed", "in_progress", "pending", "pending"],
        ["completed", "completed", "cancelled", "in_progress"],
        ["completed", "completed", "cancelled", "completed"],
    ]


def test_title_is_the_first_user_message_after_session_context() -> None:
    _, result = read(SAMPLE)
    assert (
        result.facts.title() == "Add YAML support to the config loader and keep a todo list as you go. [[script:main]]"
    )
    _, demo = read(DEMO)
    assert demo.facts.title() == "Move the staging deploy from the shell script to a GitHub Actions workflow"


def test_activity_is_the_last_records_timestamp() -> None:
    _, result = read(SAMPLE)
    assert result.facts.last_timestamp is not None
    assert result.facts.last_timestamp.isoformat() == "2026-11-30T23:03:17.727000+00:00"


def test_a_refused_write_todos_did_not_happen() -> None:
    lines = REFUSED.read_bytes().splitlines(keepends=True)
    refused = next(i for i, line in enumerate(lines) if b'"status":"error"' in line)
    reader = GeminiReader(REFUSED)
    for line in lines[: refused + 1]:
        reader.feed_line(line)
    # The refused call (status "done" is not in the vocabulary) changed nothing.
    assert plan_of(reader.results()[0]) == [("Parse", "in_progress"), ("Test", "pending")]


def test_statuses_pending_in_progress_completed_cancelled_blocked_else_pending() -> None:
    _, result = read(REFUSED)
    assert plan_of(result) == [
        ("Parse", "completed"),
        ("Test", "blocked"),
        ("Docs", "cancelled"),
        ("Ship", "pending"),  # "waiting" is not Gemini CLI's word
        ("Tidy", "pending"),
    ]


def test_rewind_removes_that_message_and_every_later_one_with_their_plan() -> None:
    _, result = read(REWIND)
    assert plan_of(result) == [("First plan", "in_progress")]


def test_rewind_to_a_message_the_log_never_named_empties_the_list() -> None:
    _, result = read(REWIND_UNKNOWN)
    assert result.plan == AgentPlan()


def test_resume_set_messages_neither_adds_nor_removes_plan_calls() -> None:
    _, result = read(RESUME)
    assert plan_of(result) == [("Before the resume", "completed"), ("After the resume", "pending")]


def test_rewind_after_a_resume_takes_back_only_the_later_list() -> None:
    _, result = read(RESUME_THEN_REWIND)
    assert plan_of(result) == [("Kept", "in_progress")]


def test_last_copy_of_a_message_id_wins() -> None:
    _, result = read(LAST_COPY)
    assert plan_of(result) == [("Draft", "completed"), ("Review", "in_progress")]


def test_a_later_copy_without_the_call_takes_it_back() -> None:
    lines = LAST_COPY.read_bytes().splitlines(keepends=True)
    copy = json.loads(next(line for line in lines if b'"Review"' in line and b'"toolCalls"' in line))
    del copy["toolCalls"]
    reader = GeminiReader(LAST_COPY)
    for line in [*lines, json.dumps(copy, separators=(",", ":")).encode() + b"\n"]:
        if reader.wants(line):
            reader.feed_line(line)
    assert reader.results()[0].plan == AgentPlan()


def test_legacy_json_session_is_read_whole() -> None:
    _, result = read(LEGACY)
    assert plan_of(result) == [("Old step one", "completed"), ("Old step two", "in_progress")]
    assert result.facts.id == "a1000000-0000-4000-8000-000000000008"
    assert result.facts.title() == "A legacy session"


def test_privacy_switch_reads_no_plan_from_either_shape() -> None:
    for path in (SAMPLE, LEGACY):
        _, result = read(path, plans=False)
        assert result.plan == AgentPlan()
        assert result.facts.id is not None and result.facts.title()


def test_folder_from_project_root_else_projects_json() -> None:
    assert classify(REFUSED) is not None and classify(REFUSED).folder_hint == "/home/dev/lab"  # type: ignore[union-attr]
    legacy = classify(LEGACY)
    assert legacy is not None and legacy.harness == "gemini" and legacy.folder_hint == "/home/dev/old"


def test_a_file_given_by_path_is_recognised_whatever_the_folders_above_chats(tmp_path: Path) -> None:
    for above in ("x", "some/deep/folder"):
        chats = tmp_path / above / "chats"
        chats.mkdir(parents=True)
        copy = shutil.copy(SAMPLE, chats / "session-2026-11-30T23-03-988e1cef.jsonl")
        item = classify(Path(copy))
        assert item is not None and item.harness == "gemini" and not item.subagent
        legacy = shutil.copy(LEGACY, chats / LEGACY.name)
        item = classify(Path(legacy))
        assert item is not None and item.harness == "gemini"
    sub = tmp_path / "x/chats/988e1cef-f234-4775-a937-fa486a83d08a"
    sub.mkdir()
    child = classify(Path(shutil.copy(CHILD, sub / CHILD.name)))
    assert child is not None and child.subagent and child.parent_hint == sub.name
    # A JSON file outside a chats folder is not a legacy session.
    outside = Path(shutil.copy(LEGACY, tmp_path / LEGACY.name))
    assert classify(outside) is None


def test_discovery_finds_sessions_legacy_files_and_subagents_under_gemini_cli_home(isolated_env) -> None:
    tmp = paths.gemini_tmp_dir()
    assert tmp == isolated_env.root / "gemini-home" / ".gemini" / "tmp"
    shutil.copytree(RULES, tmp)
    (tmp / "lab" / "logs.jsonl").write_text('{"sessionId":"x"}\n')  # not a session file
    (tmp / "lab" / "chats" / "notes.jsonl").write_text('{"sessionId":"x"}\n')
    found = {item.path.relative_to(tmp).as_posix(): item for item in discover([tmp])}
    assert sorted(found) == sorted(
        p.relative_to(RULES).as_posix()
        for p in RULES.rglob("*")
        if p.suffix in (".jsonl", ".json") and "chats" in p.parts
    )
    assert all(item.harness == "gemini" for item in found.values())
    child = found[CHILD.relative_to(RULES).as_posix()]
    assert child.subagent and child.parent_hint == "a1000000-0000-4000-8000-000000000007"


def test_a_subagent_session_belongs_to_its_parent(isolated_env) -> None:
    shutil.copytree(RULES, paths.gemini_tmp_dir())
    index = SessionIndex()
    index.scan()
    entry = index.get("a1000000-0000-4000-8000-000000000007")
    assert entry is not None
    assert entry.session.harness == "gemini" and entry.session.cwd == "/home/dev/lab"
    assert [g.key for g in entry.plan.groups] == ["", "agent-a1000000-0000-4000-8000-0000000000c7"]
    assert [i.status for i in entry.plan.groups[1].items] == ["completed", "in_progress"]
    assert len(entry.session.subagents) == 1
    assert index.get("a1000000-0000-4000-8000-0000000000c7") is None  # not a session of its own


def test_a_rewind_into_the_skipped_middle_of_a_long_file_marks_the_plan_partial(tmp_path: Path) -> None:
    lines = REWIND.read_bytes().splitlines(keepends=True)
    first_list = next(i for i, line in enumerate(lines) if b"First plan" in line and b'"toolCalls"' in line)
    target = next(i for i, line in enumerate(lines) if b"Try another way" in line)
    filler = [
        b'{"id":"f%05d","timestamp":"2026-11-29T11:00:30.000Z","type":"info","content":"%s"}\n' % (n, b"x" * 200)
        for n in range(400)
    ]
    # Head: up to the first list. Middle: the message the rewind goes back to. Tail: the
    # second list, then the rewind that removes it.
    head = b"".join(lines[: first_list + 1])
    body = head + b"".join(lines[first_list + 1 : target + 1]) + b"".join(filler) + b"".join(lines[target + 1 :])
    path = tmp_path / "chats" / REWIND.name
    path.parent.mkdir()
    path.write_bytes(body)
    _, whole = read(path)
    assert plan_of(whole) == [("First plan", "in_progress")]
    assert not whole.plan.groups[0].partial
    _, windowed = read(path, head=len(head), tail=8192, bound=4096, chunk=4096)
    # The rewind names a message IO never read: everything read after the gap is later
    # than it and goes; the head's list is what is left, and it may be outdated.
    assert plan_of(windowed) == [("First plan", "in_progress")]
    assert windowed.plan.groups[0].partial


def test_live_append_is_followed_and_a_legacy_file_is_read_again_when_it_changes(isolated_env) -> None:
    chats = paths.gemini_tmp_dir() / "lab" / "chats"
    chats.mkdir(parents=True)
    (chats.parent / ".project_root").write_text("/home/dev/lab")
    lines = SAMPLE.read_bytes().splitlines(keepends=True)
    first_list = next(i for i, line in enumerate(lines) if b"write_todos" in line and b'"toolCalls"' in line)
    live = chats / "session-2026-11-30T23-03-988e1cef.jsonl"
    live.write_bytes(b"".join(lines[: first_list + 1]))
    legacy = shutil.copy(LEGACY, chats / LEGACY.name)
    index = SessionIndex()
    index.scan()
    changes = Changes()
    index.start_following(changes)
    try:
        sid = "988e1cef-f234-4775-a937-fa486a83d08a"
        entry = index.get(sid)
        assert entry is not None and entry.plan.main is not None
        assert [i.status for i in entry.plan.main.items] == ["in_progress", "pending", "pending", "pending"]

        def last_done(session_id: str, position: int) -> bool:
            entry = index.get(session_id)
            plan = entry.plan.main if entry is not None else None
            return plan is not None and plan.items[position].status == "completed"

        with live.open("ab") as fh:
            fh.write(b"".join(lines[first_list + 1 :]))
        changes.wait_for(lambda: last_done(sid, -1), "the appended list")
        record = json.loads(Path(legacy).read_text())
        message = next(m for m in record["messages"] if "toolCalls" in m)
        message["toolCalls"][0]["args"]["todos"][1]["status"] = "completed"
        Path(legacy).write_text(json.dumps(record, indent=2))
        os.utime(legacy, None)
        old = "a1000000-0000-4000-8000-000000000008"
        changes.wait_for(lambda: last_done(old, 1), "the legacy file read again")
        assert all(any(i in burst for burst in changes.bursts) for i in (sid, old))  # both were told
    finally:
        index.stop()
