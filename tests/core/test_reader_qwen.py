"""docs/reading.md, Qwen Code: Qwen Code chats, one test per rule (fixtures composed by
fixtures/transcripts/compose/qwen_fix.py in the shapes of the real sample)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from waiting import Changes

from planwatch.core import paths
from planwatch.core.checklist import build_checklist
from planwatch.core.index import SessionIndex
from planwatch.core.transcripts.discover import classify, discover
from planwatch.core.transcripts.lines import read_transcript
from planwatch.core.transcripts.qwen import QwenReader
from planwatch.core.transcripts.reader import SessionResult
from planwatch.core.transcripts.registry import reader_for
from planwatch.core.transcripts.sniff import sniff_harness

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "fixtures/samples/qwen/650333ef-8d48-49e8-abbd-2f740e50ee0a.jsonl"
RULES = ROOT / "fixtures/transcripts/rules/qwen/projects"
LAB = RULES / "-home-dev-lab/chats"
RESULTS_NOT_CALLS = LAB / "b2000000-0000-4000-8000-000000000001.jsonl"
STATUSES = LAB / "b2000000-0000-4000-8000-000000000002.jsonl"
RESUMED = LAB / "b2000000-0000-4000-8000-000000000003.jsonl"
FORK = LAB / "b2000000-0000-4000-8000-0000000000f3.jsonl"
BAD = LAB / "b2000000-0000-4000-8000-000000000004.jsonl"
DEMO = ROOT / "fixtures/transcripts/qwen/projects/-home-dev-cli/chats/3e7b1c90-5d2a-4f61-9c8e-2a4b6d8f0c13.jsonl"


def read(path: Path, *, plans: bool = True, **windows: int) -> tuple[QwenReader, SessionResult]:
    reader = reader_for("qwen")(path)
    assert isinstance(reader, QwenReader)
    read_transcript(reader, path, plans=plans, **windows)
    [result] = reader.results()
    return reader, result


def plan_of(result: SessionResult) -> list[tuple[str, str]]:
    main = result.plan.main
    assert main is not None and main.source == "qwen_todos"
    return [(i.text, i.status) for i in main.items]


def test_qwen_todo_write_is_a_full_list_each_call_real_sample() -> None:
    reader, result = read(SAMPLE)
    # The first list had four steps, the last three (the TOML fallback dropped).
    assert plan_of(result) == [
        ("Inspect the current config loader", "completed"),
        ("Add YAML parsing to load_config()", "completed"),
        ("Run the config tests", "completed"),
    ]
    assert reader.skipped_lines == 0
    facts = result.facts
    assert facts.id == "650333ef-8d48-49e8-abbd-2f740e50ee0a"
    assert facts.cwd == "/home/dev/qwen-todos"
    assert facts.title() == "Add YAML support to the config loader and keep a todo list as you go. [[script:main]]"
    assert facts.last_timestamp is not None and facts.last_timestamp.isoformat() == "2026-12-01T19:02:08.281000+00:00"


def test_qwen_every_successful_result_replaces_the_list_in_file_order() -> None:
    reader = QwenReader(SAMPLE)
    seen: list[list[str]] = []
    for line in SAMPLE.read_bytes().splitlines(keepends=True):
        if reader.wants(line):
            reader.feed_line(line)
        main = reader.results()[0].plan.main
        statuses = [i.status for i in main.items] if main is not None else []
        if main is not None and (not seen or seen[-1] != statuses):
            seen.append(statuses)
    assert seen == [
        ["in_progress", "pending", "pending", "pending"],
        ["completed", "in_progress", "pending", "pending"],
        ["completed", "completed", "in_progress"],
        ["completed", "completed", "completed"],
    ]


def test_qwen_list_is_the_results_not_the_calls() -> None:
    """The second call leaves `blockedBy` out and the result keeps it; the third is a
    cut-off call stored with repaired partial args (two steps, one renamed) and refused:
    the plan is the second result's list, with what the last step waits for."""
    lines = RESULTS_NOT_CALLS.read_text().splitlines()
    calls = [json.loads(line) for line in lines if '"functionCall"' in line and "todo_write" in line]
    assert "blockedBy" not in calls[1]["message"]["parts"][0]["functionCall"]["args"]["todos"][2]
    assert len(calls[2]["message"]["parts"][0]["functionCall"]["args"]["todos"]) == 2
    _, result = read(RESULTS_NOT_CALLS)
    assert plan_of(result) == [
        ("Inspect the loader", "completed"),
        ("Add YAML parsing", "in_progress"),
        ("Run the tests", "pending"),
    ]
    assert [i.waits_for for i in result.plan.main.items] == [(), (), (1,)]  # type: ignore[union-attr]


def test_qwen_blocked_by_is_shown_as_what_a_step_waits_for() -> None:
    _, result = read(DEMO)
    checklist = build_checklist(result.plan, {}, [])
    waits = {row.text: row.waits_for for row in checklist.sections[0].rows}
    # bash is done (it waits for nothing any more); zsh's blocker is done too; the docs
    # step still waits for zsh (bash is done).
    assert waits == {
        "Read the argument parser's subcommands": (),
        "Generate the bash completion script": (),
        "Generate the zsh completion script": (),
        "Document installing the completions": ("Generate the zsh completion script",),
    }


def test_qwen_a_refused_call_did_not_happen() -> None:
    lines = RESULTS_NOT_CALLS.read_text().splitlines()
    refused = [json.loads(line) for line in lines if '"status":"error"' in line and '"toolCallResult"' in line]
    assert refused and refused[0]["toolCallResult"]["errorType"] == "invalid_tool_params"
    reader = QwenReader(RESULTS_NOT_CALLS)
    before = None
    for line in RESULTS_NOT_CALLS.read_bytes().splitlines(keepends=True):
        if b'"status":"error"' in line and b'"toolCallResult"' in line:
            before = reader.results()[0].plan
        if reader.wants(line):
            reader.feed_line(line)
    assert before is not None and reader.results()[0].plan == before


def test_qwen_statuses_pending_in_progress_completed_else_pending() -> None:
    _, result = read(STATUSES)
    # `blocked` and `cancelled` are not Qwen Code's words (docs/reading.md, Statuses and priorities): pending.
    assert plan_of(result) == [
        ("Known done", "completed"),
        ("Blocked is not Qwen's", "pending"),
        ("Cancelled is not Qwen's", "pending"),
    ]


def test_qwen_a_resumed_session_appends_to_its_file() -> None:
    _, result = read(RESUMED)
    assert plan_of(result) == [("List the settings", "completed"), ("Move them into groups", "completed")]
    assert result.facts.id == "b2000000-0000-4000-8000-000000000003"


def test_qwen_a_forked_session_is_a_session_of_its_own(isolated_env) -> None:  # type: ignore[no-untyped-def]
    shutil.copytree(RULES, paths.qwen_projects_dir())
    index = SessionIndex()
    index.scan()
    parent = index.get("b2000000-0000-4000-8000-000000000003")
    fork = index.get("b2000000-0000-4000-8000-0000000000f3")
    assert parent is not None and fork is not None
    assert fork.session.harness == "qwen" and fork.session.title == parent.session.title
    assert [i.status for i in parent.plan.main.items] == ["completed", "completed"]  # type: ignore[union-attr]
    assert [i.text for i in fork.plan.main.items][-1] == "Try a flat layout instead"  # type: ignore[union-attr]
    assert [i.status for i in fork.plan.main.items] == ["completed", "pending", "in_progress"]  # type: ignore[union-attr]


def test_qwen_bad_lines_are_counted_and_an_unreadable_list_gives_no_plan() -> None:
    """A torn line and a line that is no object are skipped (the torn one counted); a
    successful result whose list is of no known shape leaves no plan rather than the
    earlier one, which the harness no longer holds."""
    reader, result = read(BAD)
    assert reader.skipped_lines == 1
    assert result.plan.main is None
    assert result.facts.title() == "Bad input"


def test_qwen_privacy_switch_reads_no_plan() -> None:
    _, result = read(SAMPLE, plans=False)
    assert result.plan.groups == ()
    assert result.facts.title().startswith("Add YAML support")
    assert (
        result.facts.last_timestamp is not None
        and result.facts.last_timestamp.isoformat() == "2026-12-01T19:02:08.281000+00:00"
    )


def test_qwen_chat_is_not_mistaken_for_a_claude_transcript(tmp_path: Path) -> None:
    """Qwen's records carry `sessionId` and `parentUuid` like Claude Code's; their
    `provenance` and `message.parts` tell them apart, wherever the file is."""
    for where in ("projects/-home-dev-x", "anywhere", "projects/-home-dev-y/chats"):
        folder = tmp_path / where
        folder.mkdir(parents=True)
        copy = Path(shutil.copy(SAMPLE, folder / SAMPLE.name))
        assert sniff_harness(copy) == "qwen"
        item = classify(copy)
        assert item is not None and item.harness == "qwen"
    # A chat whose first record is a system record: the next lines tell.
    lines = SAMPLE.read_text().splitlines(keepends=True)
    system_first = tmp_path / "system-first.jsonl"
    system_first.write_text(lines[1] + lines[0] + "".join(lines[2:]))
    assert sniff_harness(system_first) == "qwen"


def test_qwen_discovery_under_qwen_home(isolated_env) -> None:  # type: ignore[no-untyped-def]
    projects = paths.qwen_projects_dir()
    assert projects == isolated_env.root / "qwen-home" / "projects"
    shutil.copytree(RULES, projects)
    # Qwen keeps other files beside the chats: not sessions.
    (projects / "-home-dev-lab" / "notes.jsonl").write_text('{"sessionId":"x"}\n')
    todos = paths.qwen_home() / "todos"
    todos.mkdir()
    (todos / "b2000000-0000-4000-8000-000000000001.json").write_text("{}")
    found = {item.path.relative_to(projects).as_posix(): item for item in discover([projects])}
    assert sorted(found) == sorted(p.relative_to(RULES).as_posix() for p in RULES.rglob("*.jsonl"))
    assert all(item.harness == "qwen" for item in found.values())
    # A --root at the folder finds the same files by their records.
    assert {item.path.name for item in discover([RULES])} == {p.name for p in RULES.rglob("*.jsonl")}


def test_qwen_a_long_file_read_in_windows_keeps_the_latest_list(tmp_path: Path) -> None:
    lines = SAMPLE.read_bytes().splitlines(keepends=True)
    filler = [
        b'{"uuid":"f%05d","parentUuid":null,"sessionId":"650333ef-8d48-49e8-abbd-2f740e50ee0a","timestamp":"2026-12-01T19:02:07.500Z","type":"system","provenance":"system","subtype":"ui_telemetry","systemPayload":{"pad":"%s"}}\n'
        % (n, b"x" * 200)
        for n in range(400)
    ]
    last_list = max(i for i, line in enumerate(lines) if b'"todo_list"' in line)
    body = b"".join(lines[:6]) + b"".join(filler) + b"".join(lines[6:])
    path = tmp_path / SAMPLE.name
    path.write_bytes(body)
    _, windowed = read(
        path, head=len(b"".join(lines[:6])), tail=len(b"".join(lines[last_list:])) + 10, bound=4096, chunk=4096
    )
    assert [s for _, s in plan_of(windowed)] == ["completed", "completed", "completed"]
    assert not windowed.plan.main.partial  # type: ignore[union-attr]


def test_qwen_live_append_is_followed(isolated_env) -> None:  # type: ignore[no-untyped-def]
    chats = paths.qwen_projects_dir() / "-home-dev-qwen-todos" / "chats"
    chats.mkdir(parents=True)
    lines = SAMPLE.read_bytes().splitlines(keepends=True)
    first = next(i for i, line in enumerate(lines) if b'"todo_list"' in line)
    live = chats / SAMPLE.name
    live.write_bytes(b"".join(lines[: first + 1]))
    index = SessionIndex()
    index.scan()
    changes = Changes()
    index.start_following(changes)
    try:
        sid = "650333ef-8d48-49e8-abbd-2f740e50ee0a"
        entry = index.get(sid)
        assert entry is not None and entry.plan.main is not None and len(entry.plan.main.items) == 4

        def statuses() -> list[str]:
            entry = index.get(sid)
            return [i.status for i in entry.plan.main.items] if entry is not None and entry.plan.main else []

        with live.open("ab") as fh:
            fh.write(b"".join(lines[first + 1 :]))
        changes.wait_for(lambda: len(statuses()) == 3, "the appended list")
        assert statuses() == ["completed", "completed", "completed"]
        assert any(sid in burst for burst in changes.bursts)
    finally:
        index.stop()


def _cleared_after(path: Path, lines: list[str], tmp_path: Path) -> Path:
    """`lines` of a chat and a `todo_write` of an empty list after them, answered with
    success and an empty `resultDisplay.todos` (a call and its result copied from the
    chat's last ones)."""
    records = [json.loads(line) for line in lines]
    call = json.loads(
        json.dumps(next(r for r in reversed(records) if r["type"] == "assistant" and "todo_write" in json.dumps(r)))
    )
    result = json.loads(
        json.dumps(
            next(
                r
                for r in reversed(records)
                if r["type"] == "tool_result" and isinstance(r["toolCallResult"].get("resultDisplay"), dict)
            )
        )
    )
    call["uuid"], call["parentUuid"] = "c1ea0000-0000-4000-8000-000000000001", records[-1]["uuid"]
    call["message"]["parts"] = [{"functionCall": {"id": "call_clear", "name": "todo_write", "args": {"todos": []}}}]
    result["uuid"], result["parentUuid"] = "c1ea0000-0000-4000-8000-000000000002", call["uuid"]
    result["message"]["parts"][0]["functionResponse"]["id"] = "call_clear"
    result["toolCallResult"]["callId"] = "call_clear"
    result["toolCallResult"]["resultDisplay"]["todos"] = []
    out = tmp_path / path.name
    out.write_text("".join(line + "\n" for line in lines) + json.dumps(call) + "\n" + json.dumps(result) + "\n")
    return out


def test_qwen_a_list_cleared_after_every_step_was_done_stays_finished(tmp_path: Path) -> None:
    """The plan replay's rule (docs/reading.md, The plan replay): an empty list after a
    finished one leaves the finished list, marked cleared; after an unfinished one, an
    empty plan."""
    lines = SAMPLE.read_text().splitlines()
    _, result = read(_cleared_after(SAMPLE, lines, tmp_path))
    assert plan_of(result) == [
        ("Inspect the current config loader", "completed"),
        ("Add YAML parsing to load_config()", "completed"),
        ("Run the config tests", "completed"),
    ]
    assert result.plan.main is not None and result.plan.main.cleared
    # Cleared while a step was still open: nothing stays.
    second = [n for n, line in enumerate(lines) if '"type":"todo_list"' in line][1]
    _, result = read(_cleared_after(SAMPLE, lines[: second + 1], tmp_path))
    assert plan_of(result) == [] and result.plan.main is not None and not result.plan.main.cleared
