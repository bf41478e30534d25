"""Gemini CLI: a message line that is not valid JSON (a copy torn by a crash, or glued to
the next record) is skipped and counted, never read as a copy of that message."""

from __future__ import annotations

import json
from pathlib import Path

from planwatch.core.transcripts.gemini import GeminiReader
from planwatch.core.transcripts.lines import read_transcript
from planwatch.core.transcripts.registry import reader_for

META = {
    "sessionId": "a2000000-0000-4000-8000-000000000001",
    "projectHash": "bae3b00e7094a85e558269effaf2d8591b76a9f9036626652a40318bf1206ae4",
    "startTime": "2026-11-29T10:00:00.000Z",
    "lastUpdated": "2026-11-29T10:00:00.000Z",
    "kind": "main",
}
TODOS = [
    {"description": "Inspect the current config loader", "status": "in_progress"},
    {"description": "Add YAML parsing", "status": "pending"},
]
MODEL = {
    "id": "be4b1edb-71db-45fd-ad42-658eec43ea55",
    "timestamp": "2026-11-29T10:00:01.000Z",
    "type": "gemini",
    "content": "I'll track this with a todo list.",
    "toolCalls": [
        {
            "id": "write_todos__write_todos_1796079584733_0",
            "name": "write_todos",
            "args": {"todos": TODOS},
            "status": "success",
        }
    ],
}


def _session(tmp_path: Path, tail: bytes) -> Path:
    path = tmp_path / "tmp" / "app" / "chats" / "session-2026-11-29T10-00-a2000000.jsonl"
    path.parent.mkdir(parents=True)
    lines = [json.dumps(record, separators=(",", ":")).encode() for record in (META, MODEL)]
    path.write_bytes(b"\n".join(lines) + b"\n" + tail)
    return path


def _read(path: Path) -> GeminiReader:
    reader = reader_for("gemini")(path)
    assert isinstance(reader, GeminiReader)
    read_transcript(reader, path)
    return reader


def test_a_torn_copy_of_a_message_is_skipped_and_counted_and_keeps_the_list_before_it(tmp_path: Path) -> None:
    # The message written again, cut short before its toolCalls: not valid JSON.
    torn = b'{"id":"be4b1edb-71db-45fd-ad42-658eec43ea55","timestamp":"2026-11-29T10:00:02.000Z","type":"gemini","content":"I\'ll tr\n'
    reader = _read(_session(tmp_path, torn))
    [result] = reader.results()
    main = result.plan.main
    assert main is not None
    assert [(i.text, i.status) for i in main.items] == [
        ("Inspect the current config loader", "in_progress"),
        ("Add YAML parsing", "pending"),
    ]
    assert reader.skipped_lines == 1


def test_a_torn_copy_glued_to_the_next_record_is_skipped_and_counted(tmp_path: Path) -> None:
    glued = (
        b'{"id":"be4b1edb-71db-45fd-ad42-658eec43ea55","timestamp":"2026-11-29T10:00:02.000Z","type":"gemini","content":"I'
        b'{"$set":{"lastUpdated":"2026-11-29T10:00:02.000Z"}}\n'
    )
    reader = _read(_session(tmp_path, glued))
    [result] = reader.results()
    main = result.plan.main
    assert main is not None and len(main.items) == 2
    assert reader.skipped_lines == 1
