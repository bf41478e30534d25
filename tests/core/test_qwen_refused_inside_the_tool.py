"""Qwen Code: a `todo_write` the tool itself refuses changed nothing. Qwen Code records
such a call with `toolCallResult.status: "success"` (the tool returned without an
`error`), but its `resultDisplay` is the refusal's text, not a `todo_list`: the merged
list failed validation (a step kept the `blockedBy` the call left out, naming a step the
call removed) or a todo hook blocked the write. The list the harness holds is the one
before it, so the plan stays that list."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from planwatch.core.transcripts.lines import read_transcript
from planwatch.core.transcripts.qwen import QwenReader

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "fixtures/samples/qwen/650333ef-8d48-49e8-abbd-2f740e50ee0a.jsonl"
SESSION = "650333ef-8d48-49e8-abbd-2f740e50ee0a"


def envelope(uuid: str, parent: str, kind: str, provenance: str, at: str, message: dict[str, Any]) -> dict[str, Any]:
    return {
        "uuid": uuid,
        "parentUuid": parent,
        "sessionId": SESSION,
        "timestamp": at,
        "type": kind,
        "provenance": provenance,
        "cwd": "/home/dev/qwen-todos",
        "version": "0.24.4",
        "message": message,
    }


def session_with_a_refusal(tmp_path: Path, display: str) -> Path:
    # The real session up to its first successful todo_write result (four steps, "tests"
    # blocked by "yaml").
    lines = SAMPLE.read_text().splitlines(keepends=True)
    first_result = next(n for n, line in enumerate(lines) if '"type":"tool_result"' in line)
    head = lines[: first_result + 1]
    last_uuid = json.loads(head[-1])["uuid"]
    # The agent drops "yaml" and restates "tests" without its blockedBy: the parameters
    # pass validation, the list merged with the kept blockedBy does not.
    todos = [
        {"id": "inspect", "content": "Inspect the current config loader", "status": "in_progress"},
        {"id": "toml", "content": "Add a TOML fallback", "status": "pending"},
        {"id": "tests", "content": "Run the config tests", "status": "pending"},
    ]
    call = envelope(
        "7c0c1b9e-1111-4a4a-9b9b-000000000001",
        last_uuid,
        "assistant",
        "assistant_output",
        "2026-12-01T19:02:09.000Z",
        {
            "role": "model",
            "parts": [{"functionCall": {"id": "call_refused", "name": "todo_write", "args": {"todos": todos}}}],
        },
    )
    result = envelope(
        "7c0c1b9e-1111-4a4a-9b9b-000000000002",
        call["uuid"],
        "tool_result",
        "tool_result",
        "2026-12-01T19:02:09.050Z",
        {
            "role": "user",
            "parts": [
                {
                    "functionResponse": {
                        "id": "call_refused",
                        "name": "todo_write",
                        "response": {
                            "output": "Failed to modify todos. An error occurred during the operation.\n\n"
                            "<system-reminder>\nTodo list modification failed with error: "
                            f"{display}. You may need to retry or handle this error appropriately.\n"
                            "</system-reminder>"
                        },
                    }
                }
            ],
        },
    )
    result["toolCallResult"] = {
        "callId": "call_refused",
        "status": "success",
        "resultDisplay": display,
        "executionStatus": "success",
    }
    path = tmp_path / SAMPLE.name
    path.write_text(
        "".join(head)
        + json.dumps(call, separators=(",", ":"))
        + "\n"
        + json.dumps(result, separators=(",", ":"))
        + "\n"
    )
    return path


@pytest.mark.parametrize(
    "display",
    [
        'Error writing todos: Todo "tests" references unknown dependency "yaml".',
        # A TodoCreated or TodoCompleted hook's block (`createBlockedTodoResult`).
        "Todo creation blocked: Hook blocked todo creation",
        "Todo completion blocked: tests must pass",
    ],
    ids=["validation", "creation-hook", "completion-hook"],
)
def test_a_todo_write_the_tool_refused_leaves_the_list_before_it(tmp_path: Path, display: str) -> None:
    path = session_with_a_refusal(tmp_path, display)
    reader = QwenReader(path)
    read_transcript(reader, path)
    [result] = reader.results()
    main = result.plan.main
    assert main is not None, "the refused call hid the list the harness still holds"
    assert [(i.text, i.status) for i in main.items] == [
        ("Inspect the current config loader", "in_progress"),
        ("Add YAML parsing to load_config()", "pending"),
        ("Add a TOML fallback", "pending"),
        ("Run the config tests", "pending"),
    ]
    assert main.items[3].waits_for == (1,)
