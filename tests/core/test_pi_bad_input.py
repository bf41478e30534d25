"""pi, bad input. A line that is not valid JSON is skipped (and counted), so a torn entry
(a write cut off, with the next entry appended to it on the same line, as pi's
`appendFileSync` leaves it after a crash and a resume) is no entry: the current state is
the path from the last *whole* entry back to the root, as pi itself loads it. And a
successful `todo` result of no known shape gives no plan rather than a wrong one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from planwatch.core.transcripts.lines import read_transcript
from planwatch.core.transcripts.pi import PiReader

NAME = "2026-12-01T18-58-51-609Z_01a232f9-5858-71c1-b1b0-7ed98b089974.jsonl"


def compact(record: dict[str, Any]) -> str:
    return json.dumps(record, separators=(",", ":"))


def user(entry: str, parent: str | None, text: str, at: str) -> dict[str, Any]:
    return {
        "type": "message",
        "id": entry,
        "parentId": parent,
        "timestamp": at,
        "message": {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1796151531687},
    }


def todo_result(entry: str, parent: str, texts: list[str], at: str) -> dict[str, Any]:
    todos = [{"id": n + 1, "text": text, "done": False} for n, text in enumerate(texts)]
    return {
        "type": "message",
        "id": entry,
        "parentId": parent,
        "timestamp": at,
        "message": {
            "role": "toolResult",
            "toolCallId": f"call_{entry}",
            "toolName": "todo",
            "content": [{"type": "text", "text": f"Added todo #{len(texts)}: {texts[-1]}"}],
            "details": {"action": "add", "todos": todos, "nextId": len(texts) + 1},
            "isError": False,
            "timestamp": 1796151531841,
        },
    }


def head() -> list[dict[str, Any]]:
    """The session's header, its first prompt and a first list, ["One"]."""
    return [
        {
            "type": "session",
            "version": 3,
            "id": "01a232f9-5858-71c1-b1b0-7ed98b089974",
            "timestamp": "2026-12-01T18:58:51.609Z",
            "cwd": "/home/dev/pi-todos",
        },
        user("a0000001", None, "Plan the loader", "2026-12-01T18:58:52.000Z"),
        todo_result("b0000001", "a0000001", ["One"], "2026-12-01T18:58:53.000Z"),
    ]


def session_with_torn_line(tmp_path: Path, appended: dict[str, Any]) -> Path:
    """A session whose last whole entry holds the list ["One", "Two"]; after it, an entry
    on another branch (child of the first prompt) was cut off mid-write and `appended`
    (the first entry of the resumed run) was written onto the same line."""
    records = [
        *head(),
        todo_result("c0000001", "b0000001", ["One", "Two"], "2026-12-01T18:58:54.000Z"),
    ]
    torn = compact(user("d0000001", "a0000001", "Start over", "2026-12-01T18:58:55.000Z"))[:60]
    path = tmp_path / NAME
    path.write_text("".join(compact(r) + "\n" for r in records) + torn + compact(appended) + "\n")
    return path


def read(path: Path) -> tuple[PiReader, list[str] | None]:
    reader = PiReader(path)
    read_transcript(reader, path)
    [result] = reader.results()
    main = result.plan.main
    return reader, None if main is None else [item.text for item in main.items]


def test_a_torn_line_is_skipped_and_counted_and_the_plan_is_the_last_whole_entrys_path(tmp_path: Path) -> None:
    path = session_with_torn_line(tmp_path, user("e0000001", "c0000001", "Carry on", "2026-12-01T18:59:00.000Z"))
    reader, plan = read(path)
    assert plan == ["One", "Two"]
    assert reader.skipped_lines == 1
    assert reader.problem is None


def test_a_torn_last_line_naming_the_todo_tool_does_not_move_the_leaf(tmp_path: Path) -> None:
    path = session_with_torn_line(
        tmp_path, todo_result("e0000001", "c0000001", ["One", "Two", "Three"], "2026-12-01T18:59:00.000Z")
    )
    reader, plan = read(path)
    assert plan == ["One", "Two"]
    assert reader.skipped_lines == 1


def test_a_successful_todo_result_without_details_gives_no_plan_rather_than_the_earlier_list(tmp_path: Path) -> None:
    """An unrecognised shape (a successful `todo` result that carries no list) gives no
    plan rather than a wrong one: the list before it may no longer hold."""
    bare = todo_result("c0000001", "b0000001", ["One", "Two"], "2026-12-01T18:58:54.000Z")
    del bare["message"]["details"]
    records = [
        *head(),
        bare,
    ]
    path = tmp_path / NAME
    path.write_text("".join(compact(r) + "\n" for r in records))
    _, plan = read(path)
    assert plan is None


def test_a_parent_id_that_is_neither_null_nor_a_string_cuts_the_path_and_is_named(tmp_path: Path) -> None:
    """An entry whose `parentId` is a number (or a list, an object) names no entry: the
    path is cut there, as at a parent the file does not hold — no plan (the branch may
    hold another list) and the file named — never taken for the root."""
    for parent in (5, ["b0000001"], {"id": "b0000001"}, True):
        later = user("c0000001", "b0000001", "Next", "2026-12-01T18:58:54.000Z")
        later["parentId"] = parent
        records = [*head(), later, user("d0000001", "c0000001", "And then", "2026-12-01T18:58:55.000Z")]
        path = tmp_path / NAME
        path.write_text("".join(compact(r) + "\n" for r in records))
        reader, plan = read(path)
        assert plan is None, parent
        assert reader.problem is not None and "parentId is neither null nor an entry's id" in reader.problem
    records = [*head(), user("c0000001", "b0000001", "Next", "2026-12-01T18:58:54.000Z")]
    path.write_text("".join(compact(r) + "\n" for r in records))
    assert read(path)[1] == ["One"]  # the same tree with the id: the list on its path
