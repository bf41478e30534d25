"""Writes obey the read limits. A tool write whose file would be larger than
reads accept is refused in the tools' wording; list lengths are bounded like string
lengths; and no tool input, however large or strange, produces a record that reads
refuse (proved over the largest input of every field, in the costliest characters)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from planwatch.core.settings import Settings
from planwatch.core.store.identity import Caller
from planwatch.core.store.recordfile import MAX_RECORD_BYTES
from planwatch.core.store.store import Store
from planwatch.core.store.tool_inputs import MAX_LIST
from planwatch.core.store.tool_refusals import ToolRefused
from planwatch.core.store.tools import run_tool

CALLER = Caller(by="dana", session="s-1")
SETTINGS = Settings()


def tool(store: Store, name: str, args: dict[str, Any]) -> list[str]:
    return run_tool(name, store, SETTINGS, CALLER, args).lines


@pytest.fixture
def store(tmp_path: Path) -> Store:
    s = Store(tmp_path / "store")
    tool(s, "plan_create", {"title": "Plan"})
    tool(s, "task_add", {"title": "Task"})
    return s


def _near_the_limit(store: Store) -> bytes:
    """t1 edited by hand to just under the read limit (a long body)."""
    path = store.tasks_dir / "t1.md"
    text = path.read_text()
    path.write_text(text + "x" * (MAX_RECORD_BYTES - len(text.encode()) - 10))
    assert store.read_task("t1") is not None
    return path.read_bytes()


def test_a_write_larger_than_reads_accept_is_refused_in_the_tools_wording(store: Store) -> None:
    before = _near_the_limit(store)
    with pytest.raises(ToolRefused) as refused:
        tool(store, "task_set", {"task": "t1", "labels": ["a-label-that-does-not-fit"]})
    assert refused.value.message == "Invalid task_set input: the record would be larger than 1,000,000 bytes."
    assert (store.tasks_dir / "t1.md").read_bytes() == before
    assert tool(store, "task_list", {}) == ["t1 todo medium Task"]


def test_a_stamp_that_would_not_fit_is_refused_too(store: Store) -> None:
    before = _near_the_limit(store)
    with pytest.raises(
        ToolRefused, match=r"^Invalid task_approve input: the record would be larger than 1,000,000 bytes\.$"
    ):
        tool(store, "task_approve", {"task": "t1"})
    assert (store.tasks_dir / "t1.md").read_bytes() == before


@pytest.mark.parametrize("field", ["labels", "refs", "blockedBy"])
def test_list_lengths_are_bounded(store: Store, field: str) -> None:
    items = ["t1"] * (MAX_LIST + 1) if field == "blockedBy" else [f"x{i}" for i in range(MAX_LIST + 1)]
    with pytest.raises(ToolRefused) as refused:
        tool(store, "task_set", {"task": "t1", field: items})
    assert refused.value.message == f"Invalid task_set input: {field} must hold at most {MAX_LIST} items."


# The costliest characters to store: 4-byte UTF-8, characters YAML must escape
# (each written as \\U0001F600-style or \\x escapes), quotes, and line breaks.
COSTLY = ["😀", "\x01", "\u2028", '"', "'", "\\", "\t", "\x85", "\ufeff"]


def _fill(alphabet: str, length: int) -> str:
    return (alphabet * (length // len(alphabet) + 1))[:length]


@pytest.mark.parametrize("char", COSTLY)
def test_no_tool_input_yields_an_unreadable_record(tmp_path: Path, char: str) -> None:
    store = Store(tmp_path / "store")
    one_line = char if char not in ("\u2028", "\x85") else "😀"
    long_text = _fill(char, 100_000)
    short = _fill(one_line + "b", 1000)
    line = _fill(one_line + "x", 500)
    tool(store, "plan_create", {"title": "P"})
    tool(store, "task_add", {"title": "T"})
    everything = {
        "title": line,
        "note": line,
        "active": line,
        "body": long_text,
        "labels": [short] * MAX_LIST,
        "refs": [short] * MAX_LIST,
        "topic": short,
        "bot": short,
        "folder": short,
        "session": short,
        "blockedBy": ["t1"] * MAX_LIST,
        "plan": "p1",
        "priority": "high",
    }
    attempts: list[tuple[str, dict[str, Any]]] = [
        ("task_add", everything),
        ("task_set", {"task": "t1", **{k: v for k, v in everything.items() if k != "blockedBy"}, "status": "doing"}),
        ("task_set", {"task": "t1", "body": long_text}),
        (
            "plan_create",
            {
                "title": line,
                "goal": long_text,
                "refs": [short] * MAX_LIST,
                "scope": {"kind": "folder", "folder": short},
            },
        ),
        ("plan_set", {"plan": "p1", "goal": long_text, "refs": [short] * MAX_LIST, "title": line}),
        ("plan_approve", {"plan": "p1"}),
        ("task_approve", {"task": "t1"}),
        ("task_review", {"task": "t1", "verdict": "changes"}),
        ("task_review", {"plan": "p1", "verdict": "approved"}),
        ("task_set", {"task": "t1", "status": "done"}),
    ]
    for name, args in attempts:
        try:
            tool(store, name, args)
        except ToolRefused as exc:
            assert exc.message == f"Invalid {name} input: the record would be larger than 1,000,000 bytes.", exc.message
        snap = store.load()
        assert snap.problems == [], (name, snap.problems)
        for path in [*store.tasks_dir.iterdir(), *store.plans_dir.iterdir()]:
            assert path.stat().st_size <= MAX_RECORD_BYTES
    assert {"t1", "t2"} <= set(store.load().tasks)
