"""docs/reading.md, ACP agents: ACP logs (wrapped and bare, several sessions), read through the reader
contract."""

from __future__ import annotations

from pathlib import Path

from planwatch.core.transcripts.acp import AcpReader
from planwatch.core.transcripts.reader import SessionResult
from planwatch.core.transcripts.registry import reader_for

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "fixtures/transcripts/acp/claude-code-acp-mobile.jsonl"
RULES = ROOT / "fixtures/transcripts/rules/acp"
PLANS = RULES / "plans-and-sessions.jsonl"
BARE = RULES / "bare.jsonl"
SAMPLE = Path(__file__).resolve().parents[2] / "fixtures" / "samples" / "acp-codex-agent-stream.jsonl"


def read(path: Path) -> tuple[AcpReader, list[SessionResult]]:
    reader = reader_for("acp")(path)
    assert isinstance(reader, AcpReader)
    for line in path.read_bytes().splitlines(keepends=True):
        if reader.wants(line):
            reader.feed_line(line)
    return reader, reader.results()


def group(result: SessionResult, key: str = "") -> list[tuple[str, str]]:
    found = next(g for g in result.plan.groups if g.key == key)
    assert found.source == "acp"
    return [(i.text, i.status) for i in found.items]


def test_each_plan_update_is_a_full_list() -> None:
    _, [result] = read(DEMO)
    assert group(result) == [
        ("Read the failing build log", "completed"),
        ("Update the CocoaPods lockfile", "completed"),
        ("Fix the Swift 6 concurrency warnings", "in_progress"),
        ("Run the UI tests on the simulator", "pending"),
    ]


def test_session_id_and_cwd_come_from_session_new_and_title_from_the_first_prompt() -> None:
    _, [result] = read(DEMO)
    facts = result.facts
    assert (facts.id, facts.cwd) == ("sess_7f3a9c2e41b8", "/home/dev/mobile")
    assert facts.title() == "The iOS build fails after the Xcode 17 update. Get it green again."
    assert facts.last_timestamp is not None


def test_one_log_holds_several_sessions() -> None:
    _, results = read(PLANS)
    assert [(r.facts.id, r.facts.cwd) for r in results] == [
        ("sess_a1", "/home/dev/lab"),
        ("sess_b2", "/home/dev/lab/docs"),
    ]
    assert group(results[1]) == [("Proofread CHANGELOG.md", "in_progress")]
    assert results[1].facts.title() == "Proofread the changelog."


def test_plan_id_keeps_plans_apart() -> None:
    _, results = read(PLANS)
    assert [g.key for g in results[0].plan.groups] == ["", "acp:migrations"]
    assert group(results[0], "acp:migrations") == [("Add the tokens table", "in_progress")]


def test_cancelled_is_kept_and_unknown_status_reads_as_pending() -> None:
    _, results = read(PLANS)
    assert group(results[0]) == [
        ("Sketch the v2 routes", "completed"),
        ("Write the auth middleware", "in_progress"),
        ("Drop the v1 shims", "cancelled"),
        ("Ship", "pending"),  # was "blocked"
    ]
    assert results[0].plan.counts() == (1, 4)  # 3 on the default plan + 1; cancelled counts as neither


def test_plan_update_of_another_type_is_a_document_not_a_checklist() -> None:
    _, results = read(PLANS)
    [document] = results[0].plan.documents
    assert (document.key, document.source) == ("acp:design", "acp")
    assert document.text.startswith("# v2 design")


def test_plan_removed_drops_that_plan() -> None:
    _, results = read(PLANS)
    assert "acp:scratch" not in [g.key for g in results[0].plan.groups]


def test_unrecognised_entries_change_nothing_and_invalid_lines_are_counted() -> None:
    # The later `migrations` update with entries lacking `content`, a `plan` whose
    # entries are not a list, and a torn line.
    reader, results = read(PLANS)
    assert group(results[0], "acp:migrations") == [("Add the tokens table", "in_progress")]
    assert group(results[0])[0] == ("Sketch the v2 routes", "completed")
    assert reader.skipped_lines == 1


def test_bare_log_learns_the_session_from_the_session_new_result() -> None:
    _, [result] = read(BARE)
    assert (result.facts.id, result.facts.cwd) == ("sess_bare", "/home/dev/lab")
    assert result.facts.title() == ""
    assert group(result) == [("Only step", "in_progress")]


def test_real_sample_ends_with_its_last_plan() -> None:
    reader, [result] = read(SAMPLE)
    assert result.facts.id == "01a22b53-29e2-7072-87b2-c2a6439f82d5"
    assert group(result) == [
        ("Inspect the config loader", "completed"),
        ("Add YAML parsing", "completed"),
        ("Write YAML tests", "completed"),
    ]
    assert reader.skipped_lines == 0


def test_wants_skips_tool_output_and_chat_lines() -> None:
    reader = AcpReader(SAMPLE)
    lines = SAMPLE.read_bytes().splitlines(keepends=True)
    wanted = [line for line in lines if reader.wants(line)]
    # The session/new result and the three plan updates; not usage, tool calls or chat.
    assert len(wanted) == 4
    assert not any(b"tool_call" in line or b"agent_message_chunk" in line for line in wanted)


def test_is_full_list_only_for_item_plans() -> None:
    reader = AcpReader(PLANS)
    lines = PLANS.read_bytes().splitlines(keepends=True)
    full = [line for line in lines if reader.is_full_list(line)]
    # plan ×2 (one per session), plan_update items ×2; not the markdown document, the
    # removal, the bad shapes or the torn line.
    assert len(full) == 4
