"""docs/store.md: a record that is not valid is reported (which file, what is wrong) and left
out; every valid record beside it keeps working. Fixture: fixtures/store/broken."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from planwatch.core.settings import Settings
from planwatch.core.store.identity import Caller
from planwatch.core.store.recordfile import MAX_RECORD_BYTES
from planwatch.core.store.store import Store
from planwatch.core.store.tools import run_tool

# file → what the report must say about it (one kind of breakage each)
EXPECTED: dict[str, str] = {
    "tasks/t3.md": "status must be todo, doing, blocked, review, done, or dropped.",
    "tasks/t4.md": "priority must be high, medium, or low.",
    "tasks/t5.md": "id t50 does not match the file name t5.md.",
    "tasks/t6.md": "id must be a task id like t1.",
    "tasks/t7.md": "no frontmatter",
    "tasks/t8.md": "frontmatter is not closed",
    "tasks/t9.md": "frontmatter is not valid YAML",
    "tasks/t10.md": "duplicate key",
    "tasks/t11.md": "anchors and aliases are not allowed",
    "tasks/t12.md": "not UTF-8",
    "tasks/t13.md": "title is required.",
    "tasks/t14.md": "title must be text.",
    "tasks/t15.md": "labels must be a list.",
    "tasks/t16.md": "blockedBy must name task ids like t1.",
    "tasks/t17.md": "plan must be a plan id like p1.",
    "tasks/t18.md": "created must be a stamp",
    "tasks/t19.md": "created at is required.",
    "tasks/t20.md": "frontmatter must be a mapping",
    "tasks/t21.md": "frontmatter must be a mapping",
    "tasks/t22.md": "YAML tag tag:yaml.org,2002:python/object/apply:os.system is not allowed",
    "tasks/task-23.md": "file name must be t<n>.md.",
    "tasks/t024.md": "file name must be t<n>.md.",
    "tasks/t25.md": "source must be a mapping",
    "tasks/t26.md": "reviewed verdict must be approved or changes.",
    "tasks/t27.md": "title must not be empty.",
    "tasks/t28.md": "active must be text.",
    "tasks/t29.md": "created at must be a date and time.",
    "tasks/t32.md": "created mood is not a known field.",
    "tasks/t33.md": "body belongs below the frontmatter",
    "tasks/t35.md": "created at must be a date and time.",
    "tasks/t36.md": "created verdict belongs only on the reviewed stamp.",
    "plans/p2.md": "status must be draft, active, done, or dropped.",
    "plans/p3.md": "scope kind must be folder, bot, or session.",
    "plans/p4.md": "scope must be {kind: folder|bot|session, <kind>: value}.",
    "plans/p5.md": "frontmatter is not valid YAML",
    "plans/p6.md": "id must be a plan id like p1.",
    "plans/p7.md": "approved verdict belongs only on the reviewed stamp.",
}


@pytest.fixture
def broken(copy_fixture: Callable[..., Path]) -> Path:
    root = copy_fixture("store/broken")
    # One more kind, made here rather than kept in git: a file over the size cap.
    (root / "tasks" / "t34.md").write_text("---\nid: t34\ntitle: huge\n---\n" + "x" * (MAX_RECORD_BYTES + 1))
    return root


def test_every_broken_record_is_reported_with_its_file_and_left_out(broken: Path) -> None:
    snap = Store(broken).load()
    reported = {f"{p.path.parent.name}/{p.path.name}": p.message for p in snap.problems}
    expected = {**EXPECTED, "tasks/t34.md": f"file is larger than {MAX_RECORD_BYTES} bytes."}
    assert len(expected) >= 20
    assert set(reported) == set(expected)
    for rel, phrase in expected.items():
        assert reported[rel].startswith(f"{rel}: "), reported[rel]
        assert phrase in reported[rel], (rel, reported[rel])
    # Every valid record beside them is listed.
    assert sorted(snap.tasks) == ["t1", "t2", "t30", "t31"]
    assert sorted(snap.plans) == ["p1"]


def test_a_record_nested_too_deeply_is_reported_in_words_and_left_out(tmp_path: Path) -> None:
    # 50,000 nested lists fit the size cap and overflow the parser's recursion: the
    # report says what is wrong in words a person reads, not Python's own error.
    (tmp_path / "tasks").mkdir()
    (tmp_path / "tasks" / "t1.md").write_text("---\nid: t1\ntitle: " + "[" * 50_000 + "]" * 50_000 + "\n---\n")
    (tmp_path / "tasks" / "t2.md").write_text(
        "---\nid: t2\ntitle: Beside it\ncreated: {at: 2026-12-01T09:00:00Z, by: ana}\n---\n"
    )
    snap = Store(tmp_path).load()
    assert [p.message for p in snap.problems] == [
        "tasks/t1.md: frontmatter is not valid YAML: its values nest too deeply to read."
    ]
    assert sorted(snap.tasks) == ["t2"]


def test_crlf_and_byte_order_mark_records_read_normally(broken: Path) -> None:
    snap = Store(broken).load()
    assert snap.tasks["t30"].title == "Saved on Windows with CRLF line ends"
    assert snap.tasks["t31"].status == "review" and snap.tasks["t31"].priority == "low"


def test_the_tools_keep_working_beside_broken_records(broken: Path) -> None:
    store = Store(broken)
    caller = Caller(by="dana")
    listed = run_tool("task_list", store, Settings(), caller, {}).lines
    assert listed == [
        "t1 done high Read the loader code",
        "t2 doing medium Write the migration",
        "t30 todo medium Saved on Windows with CRLF line ends",
        "t31 review low Saved with a byte-order mark",
    ]
    # The next id counts past every file present, broken or not: t36 is the highest.
    added = run_tool("task_add", store, Settings(), caller, {"title": "After the mess", "plan": "p1"})
    assert added.lines == ["t37 todo medium After the mess"]
    assert run_tool("plan_show", store, Settings(), caller, {"plan": "p1"}).lines == [
        "p1 active Move the API to the new schema",
        "t1 done high Read the loader code",
        "t2 doing medium Write the migration",
        "t37 todo medium After the mess",
    ]


def test_a_broken_record_cannot_be_changed_through_the_tools_and_the_refusal_says_what_is_wrong(broken: Path) -> None:
    """`task set t5` on a broken record says what is wrong with the file, not
    "must match the id of a known task" (the refusal this test pinned before)."""
    from planwatch.core.store.tool_refusals import ToolRefused

    before = (broken / "tasks" / "t3.md").read_bytes()
    with pytest.raises(ToolRefused) as refused:
        run_tool("task_set", Store(broken), Settings(), Caller(by="dana"), {"task": "t3", "status": "done"})
    assert refused.value.message == (
        "Invalid task_set input: task t3 is not a valid record (tasks/t3.md: status must be todo, doing, "
        "blocked, review, done, or dropped.); fix or remove the file."
    )
    assert (broken / "tasks" / "t3.md").read_bytes() == before


@pytest.mark.parametrize("key", ["null", "true", "False", "NULL"])
def test_a_key_yaml_reads_as_no_text_is_a_broken_record_for_every_reader_and_never_rewritten(
    tmp_path: Path, key: str
) -> None:
    """A hand-written key `null:` or `true:` (YAML reads it as null or a boolean, not a
    name): the record is reported and left out whichever reader reads it (the quick one
    used to take it as text, and a tool's write then left a file that was no record);
    a tool refuses to change it and the file stays as the person wrote it."""
    from planwatch.core.store.record_render import render_record
    from planwatch.core.store.schema import RecordInvalid
    from planwatch.core.store.tool_refusals import ToolRefused

    (tmp_path / "tasks").mkdir()
    text = f"---\nid: t1\ntitle: Write the parser\nstatus: todo\n{key}: hand note\n---\n"
    nested = "---\nid: t2\ntitle: Nested\nstatus: todo\nsource:\n  kind: x\n  " + key + ": y\n---\n"
    (tmp_path / "tasks" / "t1.md").write_text(text)
    (tmp_path / "tasks" / "t2.md").write_text(nested)
    snap = Store(tmp_path).load()
    assert sorted(p.path.name for p in snap.problems) == ["t1.md", "t2.md"] and not snap.tasks
    with pytest.raises(ToolRefused):
        run_tool("task_set", Store(tmp_path), Settings(), Caller(by="dana"), {"task": "t1", "status": "doing"})
    assert (tmp_path / "tasks" / "t1.md").read_text() == text
    # Even given such a text to keep hand edits from, the writer never writes what does not read back.
    from planwatch.core.store.record_mapping import task_from_frontmatter

    rec = task_from_frontmatter({"id": "t1", "title": "Write the parser", "status": "todo"}, "")
    with pytest.raises(RecordInvalid, match="would not read back"):
        render_record(rec, text)
