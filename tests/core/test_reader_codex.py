"""docs/reading.md, Codex CLI: Codex rollouts (enveloped and bare), read through the reader contract."""

from __future__ import annotations

import json
from pathlib import Path

from line_reads import Decoded

from planwatch.core.model import AgentPlan
from planwatch.core.transcripts.codex import CodexReader
from planwatch.core.transcripts.reader import SessionResult
from planwatch.core.transcripts.registry import reader_for

ROOT = Path(__file__).resolve().parents[2]
DEMO = (
    ROOT
    / "fixtures/transcripts/codex/sessions/2026/11/30/rollout-2026-11-30T07-19-15-019ad3f1-7c2e-7b40-9a51-3e8d0c6f2b17.jsonl"
)
RULES = ROOT / "fixtures/transcripts/rules/codex/sessions"
ERRORS = RULES / "2026/11/29/rollout-2026-11-29T15-00-00-019ad3f1-0000-7000-8000-00000000e001.jsonl"
BARE = RULES / "2025/08/14/rollout-2025-08-14T10-02-33-5f8e2c1a-3b4d-4e6f-8a9b-0c1d2e3f4a5b.jsonl"
FORK = RULES / "2026/11/29/rollout-2026-11-29T16-00-00-019ad3f1-0000-7000-8000-00000000f001.jsonl"
SUBAGENT = RULES / "2026/11/29/rollout-2026-11-29T17-00-00-019ad3f1-0000-7000-8000-00000000a001.jsonl"
SAMPLE = Path(__file__).resolve().parents[2] / "fixtures" / "samples" / "codex-rollout.jsonl"


def lines_of(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def read(path: Path, lines: list[bytes] | None = None) -> tuple[CodexReader, SessionResult]:
    reader = reader_for("codex")(path)
    assert isinstance(reader, CodexReader)
    for line in lines_of(path) if lines is None else lines:
        if reader.wants(line):
            reader.feed_line(line)
    [result] = reader.results()
    return reader, result


def plan_of(result: SessionResult) -> list[tuple[str, str]]:
    main = result.plan.main
    assert main is not None and main.source == "codex"
    return [(i.text, i.status) for i in main.items]


def test_update_plan_is_a_full_list_each_call() -> None:
    _, result = read(DEMO)
    assert plan_of(result) == [
        ("Read the orders query and its indexes", "completed"),
        ("Add an opaque cursor encoder", "completed"),
        ("Support cursor and offset in the handler", "completed"),
        ("Write pagination tests", "in_progress"),
        ("Update the OpenAPI spec", "pending"),
    ]


def test_real_sample_ends_with_the_resumed_two_step_plan() -> None:
    reader, result = read(SAMPLE)
    assert plan_of(result) == [("Add TOML parsing", "in_progress"), ("Write TOML tests", "pending")]
    assert reader.skipped_lines == 0
    facts = result.facts
    assert facts.id == "01a22b52-79cb-7653-8066-3e085f4b65ca"
    assert facts.cwd == "/home/dev/codex"
    assert facts.title() == "Add YAML support to the config loader; keep a plan as you go. [[script:main]]"
    assert facts.last_timestamp is not None and facts.last_timestamp.isoformat().startswith("2026-11-30T07:19:15")


def test_real_sample_arguments_cut_short_are_an_unrecognised_shape() -> None:
    # The sample's long `arguments` strings were elided into invalid JSON; those calls
    # must change nothing, so the plan before the resumed turn is still empty.
    lines = lines_of(SAMPLE)
    resumed = next(i for i, line in enumerate(lines) if b"[[script:resume]]" in line)
    _, result = read(SAMPLE, lines[:resumed])
    assert result.plan == AgentPlan()


def test_plan_applies_only_when_its_output_arrives() -> None:
    lines = lines_of(DEMO)
    calls = [i for i, line in enumerate(lines) if b'"name":"update_plan"' in line]
    _, before = read(DEMO, lines[: calls[0] + 1])
    assert before.plan == AgentPlan()
    _, after = read(DEMO, lines[: calls[0] + 2])
    assert plan_of(after)[0] == ("Read the orders query and its indexes", "in_progress")


def test_error_outputs_unknown_shapes_and_unanswered_calls_change_nothing() -> None:
    # "unsupported call", a parse failure, `plan` not a list, a plan-mode refusal, an
    # object output with success false, a torn line and a call with no output.
    reader, result = read(ERRORS)
    assert plan_of(result) == [
        ("Find where rows are loaded", "completed"),
        ("Stream with a server-side cursor", "in_progress"),
    ]
    assert reader.skipped_lines == 1


def test_bare_pre_september_2025_rollout() -> None:
    _, result = read(BARE)
    assert plan_of(result) == [
        ("Parse --since", "completed"),
        ("Filter rows by date", "in_progress"),
        ("Document the flag", "pending"),
    ]
    facts = result.facts
    assert facts.id == "5f8e2c1a-3b4d-4e6f-8a9b-0c1d2e3f4a5b"
    assert facts.git_branch == "legacy-export"
    assert facts.cwd == "/home/dev/lab"  # from the environment context
    assert facts.title() == "Add a --since flag to the export command."


def test_first_session_meta_is_the_identity_and_forked_from_id_is_lineage() -> None:
    _, result = read(FORK)
    assert result.facts.id == "019ad3f1-0000-7000-8000-00000000f001"
    assert result.facts.parent_id == "019ad3f1-0000-7000-8000-00000000f000"
    assert not result.facts.is_subagent


def test_subagent_rollout_names_its_parent_thread() -> None:
    _, result = read(SUBAGENT)
    assert result.facts.parent_id == "019ad3f1-0000-7000-8000-00000000a000"
    assert result.facts.is_subagent
    assert plan_of(result)[-1] == ("Check for table locks", "in_progress")


def test_facts_cwd_branch_and_title_skip_context_messages() -> None:
    _, result = read(DEMO)
    facts = result.facts
    assert (facts.cwd, facts.git_branch) == ("/home/dev/api", "feat/pagination")
    assert facts.title() == "Add cursor pagination to GET /v1/orders and keep the old offset params working."


def test_wants_passes_a_huge_output_only_for_a_pending_plan_call_and_decodes_none(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The prefilter decides on raw bytes: a 20 MB output is never handed to the JSON
    decoder to be turned away, and the one the plan call waits for is (its positive
    twin: fed, it is decoded whole)."""
    lines = lines_of(DEMO)
    call = next(line for line in lines if b'"name":"update_plan"' in line)
    call_id = json.loads(call)["payload"]["call_id"]
    body = "y" * (20 * 1024 * 1024)

    def output(cid: str) -> bytes:
        payload = {"type": "function_call_output", "call_id": cid, "output": body}
        return json.dumps(
            {"timestamp": "2026-11-30T07:20:00.000Z", "type": "response_item", "payload": payload}
        ).encode()

    reader = CodexReader(DEMO)
    reader.feed_line(lines[0])
    reader.feed_line(call)
    decoded = Decoded(monkeypatch)
    assert not reader.wants(output("call_SomeShellCommand0000000"))
    answering = output(call_id)
    assert reader.wants(answering)
    assert decoded.sizes == []  # deciding read no line as JSON
    reader.feed_line(answering)
    assert decoded.largest >= len(answering)


def test_is_full_list_confirms_the_call_shape() -> None:
    reader = CodexReader(ERRORS)
    full = [line for line in lines_of(ERRORS) if reader.is_full_list(line)]
    # Every well-formed call (whatever its output said), not the parse failure, `plan`
    # not a list, or the torn line.
    assert len(full) == 5
    assert not any(b"Broken JSON" in line or b"not a list" in line for line in full)


def test_a_status_outside_codex_vocabulary_reads_as_pending(tmp_path: Path) -> None:
    # docs/reading.md, Gemini CLI: Codex statuses are pending, in_progress, completed; `cancelled` is ACP's.
    meta = {
        "timestamp": "2026-11-29T15:00:00.000Z",
        "type": "session_meta",
        "payload": {
            "id": "019ad3f1-0000-7000-8000-00000000c001",
            "timestamp": "2026-11-29T15:00:00.000Z",
            "cwd": "/home/dev/api",
            "originator": "codex_cli_rs",
            "cli_version": "0.169.0",
            "source": "cli",
            "git": {"branch": "main"},
        },
    }
    plan = {
        "explanation": "Steps",
        "plan": [{"step": "Read", "status": "cancelled"}, {"step": "Fix", "status": "completed"}],
    }
    call = {
        "timestamp": "2026-11-29T15:00:01.000Z",
        "type": "response_item",
        "payload": {
            "type": "function_call",
            "name": "update_plan",
            "arguments": json.dumps(plan),
            "call_id": "call_v1",
        },
    }
    output = {
        "timestamp": "2026-11-29T15:00:01.100Z",
        "type": "response_item",
        "payload": {"type": "function_call_output", "call_id": "call_v1", "output": "Plan updated"},
    }
    path = tmp_path / "rollout-2026-11-29T15-00-00-019ad3f1-0000-7000-8000-00000000c001.jsonl"
    path.write_text("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in (meta, call, output)))
    _, result = read(path)
    assert plan_of(result) == [("Read", "pending"), ("Fix", "completed")]
