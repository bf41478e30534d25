"""docs/reading.md / docs/reading.md, Claude Code for Claude Code transcripts, read through the reader contract
the way IO reads them: raw lines → wants() → feed_line() → results()."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from line_reads import Decoded

from planwatch.core.model import AgentPlan
from planwatch.core.text import safe_text, shorten
from planwatch.core.transcripts.claude import ClaudeReader
from planwatch.core.transcripts.reader import SessionResult
from planwatch.core.transcripts.registry import reader_for

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "fixtures/transcripts/claude/projects"
LAB = ROOT / "fixtures/transcripts/rules/claude/projects/-home-dev-lab"
SAMPLE = Path(__file__).resolve().parents[2] / "fixtures" / "samples" / "claude-code-todowrite.jsonl"

DEMO_TODOS = DEMO / "-home-dev-api/4f6b2a9e-1c3d-4e8f-9a7b-2d5c8e1f0a3b.jsonl"
DEMO_SUBAGENT = DEMO / "-home-dev-api/4f6b2a9e-1c3d-4e8f-9a7b-2d5c8e1f0a3b/subagents/agent-a3f9c1e27b4d8e605.jsonl"
HOSTILE = (
    ROOT / "fixtures/transcripts/hostile/claude/projects/-home-dev-hostile/6b0d2e8f-9a1c-4e3b-8d7f-0c5a2e9b1d46.jsonl"
)
LEGACY = LAB / "c0a1b2c3-d4e5-4f60-8a7b-9c0d1e2f3a41.jsonl"
REFUSED = LAB / "c0a1b2c3-d4e5-4f60-8a7b-9c0d1e2f3a42.jsonl"
SHAPES = LAB / "c0a1b2c3-d4e5-4f60-8a7b-9c0d1e2f3a43.jsonl"
SIDECHAIN = LAB / "c0a1b2c3-d4e5-4f60-8a7b-9c0d1e2f3a46.jsonl"
FORK = LAB / "c0a1b2c3-d4e5-4f60-8a7b-9c0d1e2f3a47.jsonl"
TITLES = {
    "custom": LAB / "c0a1b2c3-d4e5-4f60-8a7b-9c0d1e2f3a50.jsonl",
    "ai": LAB / "c0a1b2c3-d4e5-4f60-8a7b-9c0d1e2f3a51.jsonl",
    "summary": LAB / "c0a1b2c3-d4e5-4f60-8a7b-9c0d1e2f3a52.jsonl",
    "prompt": LAB / "c0a1b2c3-d4e5-4f60-8a7b-9c0d1e2f3a53.jsonl",
}


def feed(reader: ClaudeReader, lines: list[bytes]) -> None:
    for line in lines:
        if reader.wants(line):
            reader.feed_line(line)


def lines_of(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def read(path: Path) -> tuple[ClaudeReader, SessionResult]:
    reader = reader_for("claude")(path)
    assert isinstance(reader, ClaudeReader)
    feed(reader, lines_of(path))
    [result] = reader.results()
    return reader, result


def main_items(plan: AgentPlan) -> list[tuple[str, str]]:
    assert plan.main is not None
    return [(i.text, i.status) for i in plan.main.items]


def test_todowrite_is_a_full_list_each_call() -> None:
    _, result = read(DEMO_TODOS)
    assert result.plan.main is not None and result.plan.main.source == "claude_todos"
    assert main_items(result.plan) == [
        ("Add a Redis token bucket per API key", "completed"),
        ("Wire the limiter into the middleware chain", "completed"),
        ("Return 429 with Retry-After", "in_progress"),
        ("Write tests with fakeredis", "pending"),
        ("Document the limits in docs/api.md", "pending"),
    ]
    assert result.plan.main.items[2].active_form == "Returning 429 with Retry-After"


def test_full_list_applies_when_its_result_arrives() -> None:
    lines = lines_of(DEMO_TODOS)
    last_call = max(i for i, line in enumerate(lines) if b'"name":"TodoWrite"' in line)
    reader = ClaudeReader(DEMO_TODOS)
    feed(reader, lines[: last_call + 1])
    before = main_items(reader.results()[0].plan)
    assert before[0] == ("Add a Redis token bucket per API key", "in_progress")
    feed(reader, lines[last_call + 1 :])
    assert main_items(reader.results()[0].plan)[2] == ("Return 429 with Retry-After", "in_progress")


def test_real_sample_cleared_after_every_step_was_done_keeps_the_finished_list(tmp_path: Path) -> None:
    # The file name is the session id: place the sample the way Claude Code names it.
    path = tmp_path / "86c5b490-b7df-4218-91f4-6c39c5cf19f8.jsonl"
    shutil.copyfile(SAMPLE, path)
    reader, result = read(path)
    # The agent cleared its list once all four steps were done: the finished list stays
    # (shown "finished 4/4"), marked cleared, never read as no plan.
    assert result.plan.main is not None and result.plan.main.cleared
    assert [item.status for item in result.plan.main.items] == ["completed"] * 4
    assert result.plan.counts() == (4, 4)
    assert result.plan.main.source == "claude_todos"
    assert reader.skipped_lines == 0
    facts = result.facts
    assert facts.id == "86c5b490-b7df-4218-91f4-6c39c5cf19f8" and facts.parent_id is None
    assert facts.cwd == "/home/dev/claude-todowrite" and facts.git_branch == "HEAD"
    assert facts.title() == "Add YAML support to the config loader and track your steps. [[script:main]]"


def test_a_renamed_transcript_takes_its_session_id_from_its_records() -> None:
    # A file whose name is not a session id (a copy a person renamed) has lost its
    # identity; the records' sessionId stands in, and is not taken for lineage.
    _reader, result = read(SAMPLE)
    assert SAMPLE.stem == "claude-code-todowrite"
    assert result.facts.id == "86c5b490-b7df-4218-91f4-6c39c5cf19f8"
    assert result.facts.parent_id is None


def test_a_record_carrying_another_session_id_is_lineage(tmp_path: Path) -> None:
    # A desktop fork keeps the parent's sessionId on copied rows: the file name wins.
    path = tmp_path / "11111111-2222-4333-8444-555555555555.jsonl"
    shutil.copyfile(SAMPLE, path)
    _reader, result = read(path)
    assert result.facts.id == path.stem
    assert result.facts.parent_id == "86c5b490-b7df-4218-91f4-6c39c5cf19f8"


def test_real_sample_passes_through_every_list_on_the_way(tmp_path: Path) -> None:
    path = tmp_path / "86c5b490-b7df-4218-91f4-6c39c5cf19f8.jsonl"
    shutil.copyfile(SAMPLE, path)
    reader = ClaudeReader(path)
    seen: list[list[str]] = []
    for line in lines_of(path):
        if reader.wants(line):
            reader.feed_line(line)
            main = reader.results()[0].plan.main
            state = [] if main is None else [i.status for i in main.items] + (["cleared"] if main.cleared else [])
            if not seen or seen[-1] != state:
                seen.append(state)
    assert seen == [
        [],
        ["pending"] * 4,
        ["in_progress", "pending", "pending", "pending"],
        ["completed", "completed", "in_progress", "pending"],
        ["completed"] * 4,
        ["completed"] * 4 + ["cleared"],  # cleared once finished: the finished list stays
    ]


def test_legacy_todo_items_with_id_and_priority_are_read() -> None:
    _, result = read(LEGACY)
    assert main_items(result.plan)[:2] == [
        ("Port the build matrix", "completed"),
        ("Cache pip downloads", "in_progress"),
    ]


def test_unknown_status_reads_as_pending() -> None:
    _, result = read(LEGACY)
    assert main_items(result.plan)[2] == ("Drop .travis.yml", "pending")  # was "blocked"


def test_refused_failed_or_unanswered_full_lists_change_nothing() -> None:
    _, result = read(REFUSED)
    # is_error, a string toolUseResult, a <tool_use_error> text, and no result at all.
    assert main_items(result.plan) == [
        ("Bump Django to 5.2", "completed"),
        ("Fix the deprecated URL patterns", "in_progress"),
    ]


def test_unrecognised_shapes_change_nothing() -> None:
    _, result = read(SHAPES)
    assert main_items(result.plan) == [("Annotate utils/paths.py", "in_progress"), ("Run mypy", "pending")]


def test_attachment_naming_the_tools_passes_the_prefilter_but_changes_nothing() -> None:
    reader = ClaudeReader(SHAPES)
    attachment = next(line for line in lines_of(SHAPES) if b'"prompt_snapshot"' in line)
    assert reader.wants(attachment)
    reader.feed_line(attachment)
    assert reader.results()[0].plan == AgentPlan()


def test_invalid_json_lines_are_counted_never_raised() -> None:
    reader, _ = read(SHAPES)
    assert reader.skipped_lines == 1
    reader.feed_line(b"\xff\xfe not utf-8 " + b'"TodoWrite"\n')
    reader.feed_line(b"[1, 2, 3]\n")  # valid JSON, not a record: skipped, not counted
    assert reader.skipped_lines == 2


def test_unknown_record_types_are_skipped() -> None:
    reader = ClaudeReader(SHAPES)
    future = next(line for line in lines_of(SHAPES) if b'"future-record-kind"' in line)
    reader.feed_line(future)
    assert reader.results()[0].plan == AgentPlan() and reader.skipped_lines == 0


def test_exit_plan_mode_is_a_plan_document_not_a_checklist() -> None:
    _, result = read(DEMO_TODOS)
    [document] = result.plan.documents
    assert document.key == "" and document.source == "claude_plan_mode"
    assert document.text.startswith("# Rate limiting")
    assert len(result.plan.groups) == 1


def test_subagent_file_plan_goes_to_its_agent_group_and_names_the_parent() -> None:
    _, result = read(DEMO_SUBAGENT)
    [group] = result.plan.groups
    assert group.key == "agent-a3f9c1e27b4d8e605" and group.source == "claude_todos"
    assert [i.status for i in group.items] == ["completed", "completed", "in_progress"]
    assert result.facts.is_subagent
    assert result.facts.parent_id == "4f6b2a9e-1c3d-4e8f-9a7b-2d5c8e1f0a3b"


def test_inline_sidechain_records_go_to_the_agent_group() -> None:
    _, result = read(SIDECHAIN)
    assert [g.key for g in result.plan.groups] == ["", "agent-5e1f0c2b"]
    assert main_items(result.plan) == [("Audit dependencies", "in_progress")]
    sub = result.plan.groups[1]
    assert [(i.text, i.status) for i in sub.items] == [
        ("Parse poetry.lock", "completed"),
        ("Query the advisory DB", "in_progress"),
    ]
    # The subagent's prompt does not name the session.
    assert result.facts.title() == "Audit the dependencies for known CVEs."


def test_session_id_is_the_file_name_and_another_session_id_is_lineage() -> None:
    _, result = read(FORK)
    assert result.facts.id == FORK.stem
    assert result.facts.parent_id == "c0a1b2c3-d4e5-4f60-8a7b-9c0d1e2f3a40"
    assert not result.facts.is_subagent
    assert main_items(result.plan)[-1] == ("Run tests with pytest-xdist", "in_progress")


@pytest.mark.parametrize(
    ("kind", "title"),
    [
        ("custom", "Config rename (v2 keys)"),
        ("ai", "Fixing the flaky login test"),
        ("summary", "Connection pool tuning"),
        ("prompt", "Why does the importer skip rows with empty dates?"),
    ],
)
def test_title_is_last_custom_title_else_ai_title_else_summary_else_first_prompt(kind: str, title: str) -> None:
    _, result = read(TITLES[kind])
    assert result.facts.title() == title


def test_first_prompt_skips_meta_command_wrappers_and_tool_results() -> None:
    _, result = read(TITLES["prompt"])
    assert result.facts.first_prompt == "Why does the importer skip rows with empty dates?"


def test_facts_cwd_branch_and_last_timestamp() -> None:
    _, result = read(DEMO_TODOS)
    facts = result.facts
    assert (facts.cwd, facts.git_branch) == ("/home/dev/api", "feature/rate-limit")
    assert facts.last_timestamp is not None
    assert facts.last_timestamp.isoformat() == "2026-11-30T06:52:25.120000+00:00"


def test_wants_passes_planning_tools_title_records_and_the_first_user_record() -> None:
    reader = ClaudeReader(DEMO_TODOS)
    lines = lines_of(DEMO_TODOS)
    prompt = next(line for line in lines if b'"type":"user"' in line)
    title = next(line for line in lines if b'"type":"ai-title"' in line)
    call = next(line for line in lines if b'"name":"TodoWrite"' in line)
    bash = next(line for line in lines if b'"name":"Bash"' in line)
    assert reader.wants(prompt) and reader.wants(title) and reader.wants(call)
    assert not reader.wants(bash)
    reader.feed_line(prompt)
    later_prompt = prompt.replace(b"Add per-client", b"Also add")
    assert not reader.wants(later_prompt)  # the first prompt is known now


def test_wants_passes_a_huge_tool_result_only_for_a_pending_call_and_decodes_none(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The prefilter decides on raw bytes: a 40 MB tool result is never handed to the
    JSON decoder to be turned away, and the one the TodoWrite call waits for is (its
    positive twin: fed, it is decoded whole)."""
    reader = ClaudeReader(DEMO_TODOS)
    call = next(line for line in lines_of(DEMO_TODOS) if b'"name":"TodoWrite"' in line)
    call_id = json.loads(call)["message"]["content"][0]["id"]
    body = "x" * (20 * 1024 * 1024)

    def result_line(tool_use_id: str) -> bytes:
        record = {
            "type": "user",
            "message": {
                "role": "user",
                "content": [{"tool_use_id": tool_use_id, "type": "tool_result", "content": body}],
            },
            "toolUseResult": {"stdout": body},
        }
        return json.dumps(record, separators=(",", ":")).encode() + b"\n"

    unrelated = result_line("toolu_01SomeFileRead0000000000")
    answering = result_line(call_id)
    reader.feed_line(next(line for line in lines_of(DEMO_TODOS) if b'"type":"user"' in line))
    decoded = Decoded(monkeypatch)
    assert not reader.wants(unrelated)  # nothing pending: a 40 MB line is not parsed
    reader.feed_line(call)
    fed_call = decoded.largest
    assert fed_call <= len(call)  # feeding the call decoded the call alone
    assert not reader.wants(unrelated)
    assert reader.wants(answering)
    assert decoded.largest == fed_call  # deciding read no tool result as JSON
    reader.feed_line(answering)
    assert decoded.largest >= len(answering)


def test_is_full_list_confirms_the_call_shape() -> None:
    reader = ClaudeReader(SHAPES)
    lines = lines_of(SHAPES)
    full = [line for line in lines if reader.is_full_list(line)]
    # Only the one well-formed TodoWrite call; not the attachment, the bad shapes, the
    # ccd call of unknown shape, nor the torn line.
    assert len(full) == 1 and b"Annotate utils/paths.py" in full[0]
    ccd = LAB / "c0a1b2c3-d4e5-4f60-8a7b-9c0d1e2f3a48.jsonl"
    ccd_full = [line for line in lines_of(ccd) if reader.is_full_list(line)]
    assert len(ccd_full) == 2  # the two `items` calls; advance, done/start and wrap_up are steps


def test_note_gap_marks_the_plan_partial_until_a_full_list() -> None:
    lines = lines_of(DEMO_TODOS)
    calls = [i for i, line in enumerate(lines) if b'"name":"TodoWrite"' in line]
    reader = ClaudeReader(DEMO_TODOS)
    feed(reader, lines[: calls[1]])
    reader.note_gap()
    assert reader.results()[0].plan.main.partial  # type: ignore[union-attr]
    feed(reader, lines[calls[1] :])
    assert not reader.results()[0].plan.main.partial  # type: ignore[union-attr]


def test_hostile_text_is_kept_for_the_display_layer_to_neutralise() -> None:
    _, result = read(HOSTILE)
    title = result.facts.title()
    assert title.startswith("[bold red]pwned[/]") and "\x1b" in title
    shown = shorten(title, 200)
    assert "\x1b" not in shown and "\x07" not in shown and "\u202e" not in shown
    for item in result.plan.main.items:  # type: ignore[union-attr]
        assert "\x1b" not in safe_text(item.text) and "\x9b" not in safe_text(item.text)
    assert [i.status for i in result.plan.main.items] == [  # type: ignore[union-attr]
        "in_progress",
        "pending",
        "completed",
        "pending",
        "pending",
    ]


def test_results_are_snapshots_that_later_lines_do_not_change() -> None:
    lines = lines_of(DEMO_TODOS)
    reader = ClaudeReader(DEMO_TODOS)
    feed(reader, lines[: len(lines) // 2])
    first = reader.results()[0]
    feed(reader, lines[len(lines) // 2 :])
    assert first.facts.last_timestamp != reader.results()[0].facts.last_timestamp


# -- rules composed inline, in the real record shape (field sets of the 2.1.328 sample) --

SESSION = "d1e2f3a4-b5c6-4d7e-8f90-a1b2c3d4e5f6"


def _record(kind: str, message: dict, **extra: object) -> bytes:
    record: dict[str, object] = {
        "parentUuid": None,
        "isSidechain": False,
        "message": message,
        "type": kind,
        "uuid": f"{abs(hash(json.dumps(message, sort_keys=True))):032x}"[:32],
        "timestamp": "2026-11-30T07:19:06.480Z",
        "userType": "external",
        "entrypoint": "sdk-cli",
        "cwd": "/home/dev/lab",
        "sessionId": SESSION,
        "version": "2.1.328",
        "gitBranch": "main",
    }
    record.update(extra)
    return (json.dumps(record, separators=(",", ":")) + "\n").encode()


def call(*blocks: dict, message_id: str = "msg_01A", **extra: object) -> bytes:
    return _record(
        "assistant",
        {
            "id": message_id,
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5-20250929",
            "content": list(blocks),
            "stop_reason": "tool_use",
        },
        **extra,
    )


def tool_use(call_id: str, name: str, tool_input: dict) -> dict:
    return {"type": "tool_use", "id": call_id, "name": name, "input": tool_input}


def result(*blocks: dict, **extra: object) -> bytes:
    return _record("user", {"role": "user", "content": list(blocks)}, **extra)


def tool_result(call_id: str, content: object = "Todos have been modified successfully.", **extra: object) -> dict:
    return {"tool_use_id": call_id, "type": "tool_result", "content": content, **extra}


def todos(*items: tuple[str, str]) -> dict:
    return {"todos": [{"content": t, "status": s, "activeForm": t} for t, s in items]}


def read_lines(tmp_path: Path, lines: list[bytes]) -> SessionResult:
    path = tmp_path / f"{SESSION}.jsonl"
    path.write_bytes(b"".join(lines))
    return read(path)[1]


def test_one_api_message_split_over_records_sharing_message_id_applies_every_call(tmp_path: Path) -> None:
    lines = [
        call({"type": "text", "text": "I'll track this."}, message_id="msg_01S"),
        call(tool_use("toolu_a", "TaskCreate", {"subject": "Set up schema", "description": "…"}), message_id="msg_01S"),
        call(
            tool_use("toolu_b", "TaskCreate", {"subject": "Write migration", "description": "…"}), message_id="msg_01S"
        ),
        result(
            tool_result("toolu_a", "Task #1 created successfully: Set up schema"),
            toolUseResult={"task": {"id": "1", "subject": "Set up schema"}},
        ),
        result(
            tool_result("toolu_b", "Task #2 created successfully: Write migration"),
            toolUseResult={"task": {"id": "2", "subject": "Write migration"}},
        ),
    ]
    plan = read_lines(tmp_path, lines).plan
    assert main_items(plan) == [("Set up schema", "pending"), ("Write migration", "pending")]


def test_several_tool_use_blocks_in_one_record_each_apply_on_their_own_result(tmp_path: Path) -> None:
    # Older versions wrote one record per API message, holding every block.
    lines = [
        call(
            tool_use("toolu_a", "TodoWrite", todos(("Old list", "pending"))),
            tool_use("toolu_b", "TodoWrite", todos(("Read", "completed"), ("Fix", "in_progress"))),
        ),
        result(tool_result("toolu_a"), toolUseResult={"oldTodos": [], "newTodos": []}),
        result(tool_result("toolu_b"), toolUseResult={"oldTodos": [], "newTodos": []}),
    ]
    assert main_items(read_lines(tmp_path, lines).plan) == [("Read", "completed"), ("Fix", "in_progress")]


def test_result_content_as_a_list_of_blocks_is_read_for_errors(tmp_path: Path) -> None:
    ok = [{"type": "text", "text": "Todos have been modified successfully."}]
    refused = [{"type": "text", "text": "<tool_use_error>InputValidationError: todos</tool_use_error>"}]
    lines = [
        call(tool_use("toolu_a", "TodoWrite", todos(("Read", "in_progress")))),
        result(tool_result("toolu_a", ok), toolUseResult={"oldTodos": [], "newTodos": []}),
        call(tool_use("toolu_b", "TodoWrite", todos(("Wrong", "completed")))),
        result(tool_result("toolu_b", refused)),
    ]
    assert main_items(read_lines(tmp_path, lines).plan) == [("Read", "in_progress")]


def test_is_error_on_the_result_block_means_the_call_did_not_apply(tmp_path: Path) -> None:
    lines = [
        call(tool_use("toolu_a", "TodoWrite", todos(("Read", "in_progress")))),
        result(tool_result("toolu_a"), toolUseResult={"oldTodos": [], "newTodos": []}),
        call(tool_use("toolu_b", "TodoWrite", todos(("Wrong", "completed")))),
        # is_error with an object toolUseResult: the block's flag alone decides.
        result(tool_result("toolu_b", "Error: hook blocked", is_error=True), toolUseResult={"error": "blocked"}),
    ]
    assert main_items(read_lines(tmp_path, lines).plan) == [("Read", "in_progress")]


def test_a_batched_result_record_with_a_string_tool_use_result_applies_none_of_its_calls(tmp_path: Path) -> None:
    # Which of the two calls was refused cannot be told: no guessing, neither applies.
    lines = [
        call(tool_use("toolu_0", "TodoWrite", todos(("Read", "in_progress")))),
        result(tool_result("toolu_0"), toolUseResult={"oldTodos": [], "newTodos": []}),
        call(
            tool_use("toolu_a", "TodoWrite", todos(("Wrong A", "completed"))),
            tool_use("toolu_b", "mcp__ccd_turn__update_plan", {"items": ["Wrong B"]}),
        ),
        result(tool_result("toolu_a"), tool_result("toolu_b"), toolUseResult="Error: The user doesn't want to proceed"),
    ]
    assert main_items(read_lines(tmp_path, lines).plan) == [("Read", "in_progress")]


def test_cancelled_is_not_a_todowrite_status_and_reads_as_pending(tmp_path: Path) -> None:
    lines = [
        call(tool_use("toolu_a", "TodoWrite", todos(("Read", "cancelled"), ("Fix", "completed")))),
        result(tool_result("toolu_a"), toolUseResult={"oldTodos": [], "newTodos": []}),
    ]
    assert main_items(read_lines(tmp_path, lines).plan) == [("Read", "pending"), ("Fix", "completed")]


def test_inline_sidechain_records_without_agent_id_never_touch_the_main_plan(tmp_path: Path) -> None:
    # Versions before the subagent files wrote a subagent's records inline, marked only
    # by isSidechain: its own TodoWrite must not replace the session's list.
    lines = [
        call(tool_use("toolu_a", "TodoWrite", todos(("Main step", "in_progress")))),
        result(tool_result("toolu_a"), toolUseResult={"oldTodos": [], "newTodos": []}),
        call(tool_use("toolu_s", "TodoWrite", todos(("Sub step", "completed"))), isSidechain=True),
        result(tool_result("toolu_s"), isSidechain=True),
    ]
    plan = read_lines(tmp_path, lines).plan
    assert main_items(plan) == [("Main step", "in_progress")]
    [side] = [g for g in plan.groups if g.key != ""]
    assert side.key.startswith("agent-") and [(i.text, i.status) for i in side.items] == [("Sub step", "completed")]


def test_subagent_file_todowrite_applies_from_the_result_block_alone(tmp_path: Path) -> None:
    folder = tmp_path / SESSION / "subagents"
    folder.mkdir(parents=True)
    path = folder / "agent-a1b2c3d4e5f607182.jsonl"
    path.write_bytes(
        b"".join(
            [
                call(
                    tool_use("toolu_a", "TodoWrite", todos(("Grep", "completed"), ("Report", "in_progress"))),
                    isSidechain=True,
                    agentId="a1b2c3d4e5f607182",
                ),
                result(tool_result("toolu_a"), isSidechain=True, agentId="a1b2c3d4e5f607182"),  # no toolUseResult
            ]
        )
    )
    _, res = read(path)
    [group] = res.plan.groups
    assert group.key == "agent-a1b2c3d4e5f607182"
    assert [(i.text, i.status) for i in group.items] == [("Grep", "completed"), ("Report", "in_progress")]
    assert res.facts.parent_id == SESSION


def test_todos_empty_list_clears_the_list(tmp_path: Path) -> None:
    lines = [
        call(tool_use("toolu_a", "TodoWrite", todos(("Read", "in_progress")))),
        result(tool_result("toolu_a"), toolUseResult={"oldTodos": [], "newTodos": []}),
        call(tool_use("toolu_b", "TodoWrite", {"todos": []})),
        result(tool_result("toolu_b"), toolUseResult={"oldTodos": [], "newTodos": []}),
    ]
    plan = read_lines(tmp_path, lines).plan
    assert plan.main is not None and plan.main.items == () and plan.main.source == "claude_todos"


def test_a_title_from_the_first_prompt_is_shortened_to_one_line(tmp_path: Path) -> None:
    prompt = _record("user", {"role": "user", "content": "Fix the loader\n\n   It drops  keys.\n" + "x" * 5000})
    facts = read_lines(tmp_path, [prompt]).facts
    assert facts.title().startswith("Fix the loader It drops keys. xxx") and len(facts.title()) == 1000


def test_invisible_bidi_controls_are_shown_as_escapes() -> None:
    """Overrides, isolates and the marks LRM, RLM and ALM can each reorder what a
    person reads while staying invisible: all are shown as escapes; the text around
    them, right-to-left script included, is kept."""
    hostile = "ok \u202e \u2066 \u2069 \u200e \u200f \u061c שלום مرحبا"
    shown = safe_text(hostile)
    for mark in ("\u202e", "\u2066", "\u2069", "\u200e", "\u200f", "\u061c"):
        assert mark not in shown and f"\\u{ord(mark):04x}" in shown
    assert shown.endswith("שלום مرحبا")
