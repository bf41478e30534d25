"""GitHub Copilot CLI sessions, one test per rule: the real sample, and folders composed by
fixtures/transcripts/compose/copilot_fix.py (databases made with sqlite3 from the
sample's schema). The plan is the `todos` table of the session's own `session.db`."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planwatch.core import paths
from planwatch.core.checklist import build_checklist
from planwatch.core.index import SessionIndex, default_roots
from planwatch.core.sessions import SessionEntry
from planwatch.core.settings import Settings
from planwatch.core.transcripts.copilot import CopilotReader, session_folder
from planwatch.core.transcripts.copilot_files import _TITLE_KEY, _TOP_KEY, _scalar, _scalars, parse_workspace
from planwatch.core.transcripts.discover import discover
from planwatch.core.transcripts.reader import SessionResult
from planwatch.core.transcripts.sniff import sniff_harness
from planwatch.core.transcripts.warmcache import cache_file

ROOT = Path(__file__).resolve().parents[2]
SAMPLE_ID = "5e806925-4250-446b-9e18-4cd8ceb54145"
SAMPLE_HOME = ROOT / "fixtures/samples/copilot"
SAMPLE = SAMPLE_HOME / "session-state" / SAMPLE_ID
RULES = ROOT / "fixtures/transcripts/rules/copilot/session-state"


def rule(n: str) -> Path:
    return RULES / f"e1000000-0000-4000-8000-00000000000{n}"


def read(folder: Path, *, plans: bool = True) -> tuple[CopilotReader, SessionResult]:
    reader = CopilotReader(folder)
    [result] = reader.read(plans=plans)
    return reader, result


def plan_of(result: SessionResult) -> list[tuple[str, str]]:
    main = result.plan.main
    assert main is not None and main.source == "copilot_todos"
    return [(item.text, item.status) for item in main.items]


def copy_session(source: Path, home: Path) -> Path:
    state = home / "session-state"
    state.mkdir(parents=True, exist_ok=True)
    dest = state / source.name
    shutil.copytree(source, dest)
    for path in [dest, *dest.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return dest


def test_copilot_plan_is_the_todos_table_in_the_order_its_rows_were_made_real_sample() -> None:
    reader, result = read(SAMPLE)
    assert plan_of(result) == [
        ("Inspecting the config loader", "completed"),
        ("Adding YAML parsing", "completed"),
        ("Adding a TOML fallback", "blocked"),
        ("Running the config tests", "completed"),
    ]
    assert reader.problem is None
    facts = result.facts
    assert facts.id == SAMPLE_ID
    assert facts.cwd == "/home/dev/copilot-todos"
    assert facts.title() == "Add YAML support to the config loader and keep a todo list as you go. [[script:main]]"
    # The last event (session.shutdown) is the last activity.
    assert facts.last_timestamp is not None and facts.last_timestamp.isoformat() == "2026-12-01T18:41:15.748000+00:00"


def test_copilot_done_reads_as_completed_and_blocked_as_a_status_of_its_own() -> None:
    _reader, result = read(SAMPLE)
    assert [status for _text, status in plan_of(result)] == ["completed", "completed", "blocked", "completed"]
    assert result.plan.counts() == (3, 4)  # blocked is open, not done and not dropped
    _reader, result = read(rule("2"))
    assert [status for _text, status in plan_of(result)] == ["completed", "in_progress", "pending", "pending"]


def test_copilot_a_failed_batch_that_changed_rows_shows_what_the_table_holds() -> None:
    """The second call's batch failed at its third statement (`success: false` in the
    log), but its first two had run: the table, not the SQL text, is the plan."""
    log = (rule("1") / "events.jsonl").read_text()
    assert '"success":false' in log and "'finished'" in log
    _reader, result = read(rule("1"))
    assert plan_of(result) == [
        ("Find every key", "completed"),
        ("Rename the keys", "in_progress"),
        ("Update the docs", "pending"),
    ]


def test_copilot_todo_deps_are_what_a_step_waits_for() -> None:
    _reader, result = read(rule("2"))
    main = result.plan.main
    assert main is not None
    assert [item.waits_for for item in main.items] == [(), (0,), (), (0, 1, 2)]
    # Shown by text, only the steps not done yet.
    checklist = build_checklist(result.plan)
    waits = {row.text: row.waits_for for row in checklist.sections[0].rows}
    assert waits == {
        "Build the wheel": (),
        "Sign the wheel": (),
        "Write the notes": (),
        "Upload it": ("Sign the wheel", "Write the notes"),
    }


def test_copilot_folders_read_together_give_what_each_read_alone_gives() -> None:
    """A scan reads the session folders it reads from scratch together (every folder's
    facts, then every database): each gives what its own read gives, the folders with
    a database we cannot take, no database or no workspace among them."""
    from planwatch.core.transcripts.batch import read_copilot_folders, read_file

    folders = sorted([SAMPLE, *(path for path in RULES.iterdir() if path.is_dir())])
    items = [found for folder in folders for found in discover([folder]) if found.harness == "copilot"]
    assert len(items) == len(folders) >= 8

    def shown(read: object) -> tuple[object, ...]:
        reader = read.reader  # type: ignore[attr-defined]
        return (read.item.path, read.results, read.gone, reader.problem, reader.warm_state(), read.trace.state)  # type: ignore[attr-defined]

    assert [shown(read) for read in read_copilot_folders(items, True)] == [
        shown(read_file(item, True)) for item in items
    ]
    assert any(read.reader.problem for read in read_copilot_folders(items, True))  # type: ignore[union-attr]


def test_copilot_a_resumed_session_is_the_same_folder_and_its_activity_the_last_event() -> None:
    _reader, result = read(rule("3"))
    assert plan_of(result) == [("Rotate the logs", "completed"), ("Compress old logs", "pending")]
    assert result.facts.title() == "Tidy the logs"  # the first prompt, not the resume's
    assert result.facts.last_timestamp is not None
    assert result.facts.last_timestamp.isoformat().startswith("2026-11-29T15:30")


def test_copilot_a_session_without_a_database_has_no_plan_yet_and_no_problem() -> None:
    reader, result = read(rule("4"))
    assert result.plan.groups == () and reader.problem is None
    assert result.facts.title() == "Explain the build"


@pytest.mark.parametrize(
    ("n", "said"),
    [
        ("5", "corrupt or not an SQLite database"),
        ("6", "an unknown schema (no `todos` table)"),
        ("8", "todo 'b' has no title"),
    ],
)
def test_copilot_a_database_we_cannot_take_is_named_and_the_session_shown_without_a_plan(n: str, said: str) -> None:
    reader, result = read(rule(n))
    assert result.plan.groups == ()
    assert reader.problem is not None
    assert reader.problem.startswith(f"{rule(n) / 'session.db'}: ") and said in reader.problem
    # The session itself is still there: its title, folder and activity.
    assert result.facts.title() and result.facts.cwd == "/home/dev/lab" and result.facts.last_timestamp is not None


def test_copilot_a_status_copilot_cli_does_not_write_reads_as_pending_and_names_no_problem() -> None:
    reader, result = read(rule("7"))
    assert plan_of(result) == [("Step A", "completed"), ("Step B", "pending")]
    assert reader.problem is None


def test_copilot_bad_databases_are_said_once_and_every_other_session_read_as_always() -> None:
    index = SessionIndex([RULES])
    index.scan()
    problems = index.problems()
    assert sorted(p.split(": ", 1)[0] for p in problems) == sorted(str(rule(n) / "session.db") for n in "568")
    index.scan()  # read again: still one sentence each
    assert len(index.problems()) == 3
    entries = {e.session.id: e for e in index.entries()}
    assert len(entries) == 10
    good = entries["e1000000-0000-4000-8000-000000000001"].plan.main
    assert good is not None and len(good.items) == 3
    assert all(entries[f"e1000000-0000-4000-8000-00000000000{n}"].plan.groups == () for n in "568")


def test_copilot_a_sessions_timeline_is_asked_of_its_reader_never_replayed_as_a_transcript(caplog) -> None:  # type: ignore[no-untyped-def]
    # The table holds only the current list: the reader says there is no earlier one.
    # Replaying the folder as a transcript has no reader for Copilot CLI and was logged
    # as a history that "cannot be read".
    import logging

    index = SessionIndex([RULES])
    index.scan()
    with caplog.at_level(logging.INFO, logger="planwatch"):
        history = index.plan_history("e1000000-0000-4000-8000-000000000001")
    assert history.changes == () and history.base is None
    assert not [r for r in caplog.records if "cannot read the history" in r.getMessage()]


def test_copilot_a_locked_database_is_named_and_read_again_once_it_is_free(tmp_path: Path) -> None:
    folder = copy_session(SAMPLE, tmp_path / "home")
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sqlite3, sys\n"
            "db = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
            "db.execute('BEGIN EXCLUSIVE')\n"
            "db.execute(\"UPDATE todos SET status = 'pending'\")\n"
            "print('locked', flush=True)\n"
            "sys.stdin.readline()\n"
            "db.execute('ROLLBACK')\n",
            str(folder / "session.db"),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
        reader, result = read(folder)
        assert result.plan.groups == ()
        assert reader.problem is not None and "locked by another program" in reader.problem
        assert str(folder / "session.db") in reader.problem
    finally:
        assert holder.stdin is not None
        holder.stdin.write("\n")
        holder.stdin.close()
        holder.wait(timeout=30)
    # Free again: read as always (the held write was rolled back).
    reader, result = read(folder)
    assert reader.problem is None and len(plan_of(result)) == 4


def test_copilot_the_database_is_read_read_only_and_no_transaction_is_held(tmp_path: Path) -> None:
    folder = copy_session(SAMPLE, tmp_path / "home")
    database = folder / "session.db"
    before = database.read_bytes(), database.stat().st_mtime_ns
    reader, _result = read(folder)
    assert (database.read_bytes(), database.stat().st_mtime_ns) == before
    assert sorted(p.name for p in folder.iterdir() if p.name.startswith("session.db")) == [
        "session.db",
        "session.db.rows.jsonl",
        "session.db.schema.sql",
    ]
    # Another program can take the write lock at once: nothing of ours holds it.
    other = sqlite3.connect(database, timeout=0, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    other.execute("ROLLBACK")
    other.close()
    # And a read-only folder (the real sample's files are read-only) reads as well.
    folder.chmod(0o555)
    try:
        reader, result = read(folder)
        assert reader.problem is None and len(plan_of(result)) == 4
    finally:
        folder.chmod(0o755)


def test_copilot_without_a_workspace_the_title_is_the_first_prompt_and_a_torn_last_event_waits() -> None:
    _reader, result = read(rule("9"))
    assert result.facts.title() == "Count the lines of code"  # one line
    # The torn last line (no newline yet) is not read: its later time is not the activity.
    assert result.facts.last_timestamp is not None and result.facts.last_timestamp.day == 29


def test_copilot_a_name_in_the_workspace_is_the_title_and_an_emptied_table_is_no_plan() -> None:
    reader, result = read(rule("a"))
    assert result.facts.title() == "Named by the person: two lines"
    assert result.plan.groups == () and reader.problem is None


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("name: plain words here\n", "plain words here"),
        ("name: 'it''s quoted'\n", "it's quoted"),
        ('name: "tab\\tand \\u00e9"\n', "tab\tand é"),
        ("name: >-\n  folded\n  text\nnext: 1\n", "folded text"),
        ("name: a long prompt\n  that goes on\nuser_named: false\n", "a long prompt that goes on"),
        ("name: [1, 2]\n", None),
        ("name: ~\n", None),  # YAML's null: no name (the first prompt is the title)
        ("name: null  # none yet\n", None),
        ("name: NULL\n", None),
        ("name: '~'\n", "~"),  # quoted: the text itself
        ('name: "null"\n', "null"),
        ("name: ~ and more\n", "~ and more"),
        ("name: 'unterminated\n", None),
        ("  name: nested\n", None),
    ],
)
def test_copilot_workspace_scalars_are_read_or_left_out(text: str, name: str | None) -> None:
    assert parse_workspace(text.encode()).name == name


def test_copilot_privacy_switch_opens_no_database(tmp_path: Path) -> None:
    folder = copy_session(SAMPLE, tmp_path / "home")
    (folder / "session.db").write_bytes(b"not a database at all")
    reader, result = read(folder, plans=False)
    assert result.plan.groups == () and reader.problem is None  # never opened, so never found wrong
    assert result.facts.title().startswith("Add YAML support")


def test_copilot_discovery_under_copilot_home(isolated_env) -> None:  # type: ignore[no-untyped-def]
    home = paths.copilot_home()
    assert home == isolated_env.root / "copilot-home"
    copy_session(SAMPLE, home)
    (home / "session-state" / ".session-operation-locks").mkdir()
    (home / "session-store.db").write_bytes(b"SQLite format 3\x00")  # the search index: never read
    roots = default_roots(Settings())
    assert paths.copilot_sessions_dir() in roots
    found = [f for f in discover(roots) if f.harness == "copilot"]
    assert [f.path for f in found] == [home / "session-state" / SAMPLE_ID]
    index = SessionIndex(roots)
    index.scan()
    entry = index.get(SAMPLE_ID)
    assert entry is not None and entry.session.harness == "copilot" and entry.plan.counts() == (3, 4)
    assert index.problems() == []


def test_copilot_default_folder_is_home_dot_copilot(monkeypatch, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.delenv("COPILOT_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert paths.copilot_sessions_dir() == tmp_path / ".copilot" / "session-state"


@pytest.mark.parametrize("given", ["home", "session-state", "folder", "events.jsonl", "session.db", "workspace.yaml"])
def test_copilot_a_root_may_name_its_home_its_session_state_a_session_or_one_of_its_files(
    tmp_path: Path, given: str
) -> None:
    home = tmp_path / "elsewhere"
    folder = copy_session(SAMPLE, home)
    root = {"home": home, "session-state": home / "session-state", "folder": folder}.get(given, folder / given)
    found = discover([root])
    assert [(f.path, f.harness) for f in found] == [(folder, "copilot")]
    index = SessionIndex([root])
    index.scan()
    assert [e.session.id for e in index.entries()] == [SAMPLE_ID] and index.problems() == []
    assert session_folder(root if given not in ("home", "session-state") else folder) == folder


def test_copilot_a_session_folder_anywhere_is_known_by_its_log(tmp_path: Path) -> None:
    folder = copy_session(SAMPLE, tmp_path / "mixed" / "copies")
    assert sniff_harness(folder / "events.jsonl") == "copilot"
    (tmp_path / "mixed" / "notes").mkdir()
    (tmp_path / "mixed" / "notes" / "events.jsonl").write_text('{"type":"note","data":{}}\n')
    found = discover([tmp_path / "mixed"])
    assert [(f.path, f.harness) for f in found] == [(folder, "copilot")]


def _wait_for(index: SessionIndex, sid: str, ready, changed: threading.Event) -> None:  # type: ignore[no-untyped-def]
    """Until the entry of `sid` satisfies `ready` (each change the index tells is looked
    at; 30 s is a failure bound, not a pause)."""
    while True:
        entry = index.get(sid)
        if entry is not None and ready(entry):
            return
        assert changed.wait(30), "the index never told a change"
        changed.clear()


def test_copilot_a_row_inserted_by_another_process_reaches_the_index(isolated_env) -> None:  # type: ignore[no-untyped-def]
    folder = copy_session(SAMPLE, paths.copilot_home())
    index = SessionIndex()
    index.scan()
    changed = threading.Event()
    index.start_following(lambda ids: changed.set())
    try:
        subprocess.run(
            [
                sys.executable,
                "-c",
                "import sqlite3, sys\n"
                "db = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
                "db.execute(\"INSERT INTO todos (id, title, status) VALUES ('docs', 'Documenting YAML', 'in_progress')\")\n"
                "db.execute(\"INSERT INTO todo_deps VALUES ('docs', 'toml-fallback')\")\n",
                str(folder / "session.db"),
            ],
            check=True,
        )

        def five(entry) -> bool:  # type: ignore[no-untyped-def]
            return entry.plan.main is not None and len(entry.plan.main.items) == 5

        _wait_for(index, SAMPLE_ID, five, changed)
        entry = index.get(SAMPLE_ID)
        assert entry is not None and entry.plan.main is not None
        assert (entry.plan.main.items[-1].text, entry.plan.main.items[-1].waits_for) == ("Documenting YAML", (2,))
        # The database changing is activity.
        assert entry.session.updated.year >= 2026 and entry.session.updated > read(SAMPLE)[1].facts.last_timestamp  # type: ignore[operator]
    finally:
        index.stop()


def test_copilot_a_new_session_folder_is_taken_while_following(isolated_env) -> None:  # type: ignore[no-untyped-def]
    (paths.copilot_sessions_dir()).mkdir(parents=True)
    index = SessionIndex()
    index.scan()
    changed = threading.Event()
    index.start_following(lambda ids: changed.set())
    try:
        copy_session(SAMPLE, paths.copilot_home())
        _wait_for(index, SAMPLE_ID, lambda entry: entry.plan.counts() == (3, 4), changed)
    finally:
        index.stop()


def test_copilot_a_folder_saved_in_the_settings_while_running_is_read_and_dropped_again(tmp_path: Path) -> None:
    """Settings → transcript folders: a Copilot CLI home saved while the app runs is read
    at once (`set_roots`), and taken out again its sessions go."""
    home = tmp_path / "saved"
    copy_session(SAMPLE, home)
    index = SessionIndex([tmp_path / "nothing-here"])
    index.scan()
    assert index.entries() == []
    assert SAMPLE_ID in index.set_roots([tmp_path / "nothing-here", home])
    entry = index.get(SAMPLE_ID)
    assert entry is not None and entry.plan.counts() == (3, 4)
    index.set_roots([tmp_path / "nothing-here"])
    assert index.get(SAMPLE_ID) is None


def test_copilot_privacy_switch_off_empties_the_plan_and_on_reads_it_again(tmp_path: Path) -> None:
    copy_session(SAMPLE, tmp_path / "home")
    index = SessionIndex([tmp_path / "home"])
    index.scan()
    changed = threading.Event()
    index.start_following(lambda ids: changed.set())
    try:
        index.set_read_plans(False)
        entry = index.get(SAMPLE_ID)
        assert entry is not None and entry.plan.groups == () and entry.session.title.startswith("Add YAML support")
        index.set_read_plans(True)
        _wait_for(index, SAMPLE_ID, lambda e: e.plan.counts() == (3, 4), changed)
    finally:
        index.stop()


_KEYS = frozenset(("id", "cwd", "name", "updated_at"))
_TITLE_KEYS = frozenset(("cwd", "name"))


def _scalars_every_line_parsed(text: str, keys: frozenset[str]) -> dict[str, str]:
    """The workspace parser's loop without its one-line shortcut: every value gathered
    with its continuation lines and handed to `_scalar`, as before the shortcut."""
    out: dict[str, str] = {}
    for match in _TOP_KEY.finditer(text):
        key, rest = match.group(1), match.group(2)
        if key not in keys or key in out or (rest and rest[0] not in " \t"):
            continue
        more: list[str] = []
        at = match.end() + 1
        while at < len(text) and text[at] in " \t\n":
            end = text.find("\n", at)
            line = text[at:] if end < 0 else text[at:end]
            if line.strip() and line[0] not in " \t":
                break
            more.append(line)
            at = len(text) if end < 0 else end + 1
        while more and not more[-1].strip():
            more.pop()
        value = _scalar(rest.strip(), more)
        if value is not None:
            out[key] = value
    return out


_WORKSPACE_LINES = [
    "id: 5e806925-4250-446b-9e18-4cd8ceb54145",
    "cwd: /home/dev/a project",
    "cwd:   /home/dev/spaced   ",
    "cwd:",
    "cwd: ''",
    "name: plain words # a comment",
    "name: plain#not a comment",
    "name: 'it''s quoted'",
    'name: "tab\\tand \\u00e9"',
    "name: >-",
    "name: |",
    "name: [1, 2]",
    "name: {a: 1}",
    "name: &anchor value",
    "name: *alias",
    "name: ~",
    "name: null  # later",
    "cwd: Null",
    "name: !tag value",
    "name: @at",
    "name: `tick",
    "name: 'unterminated",
    'name: "unterminated',
    "name:no space",
    "  name: nested",
    "  continued text",
    "\tcontinued after a tab",
    "",
    "user_named: false",
    "updated_at: 2026-12-01T18:41:15.141Z",
    "updated_at: not a time",
    "- a list item",
]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_WORKSPACE_LINES), max_size=9), st.booleans(), st.booleans())
def test_copilot_workspace_one_line_shortcut_reads_what_the_full_parse_reads(
    lines: list[str], newline_at_end: bool, crlf: bool
) -> None:
    text = "\n".join(lines) + ("\n" if newline_at_end else "")
    assert _scalars(text, _TOP_KEY) == _scalars_every_line_parsed(text, _KEYS)
    # A warm start matches only the title's and the folder's lines: the same values.
    assert _scalars(text, _TITLE_KEY) == _scalars_every_line_parsed(text, _TITLE_KEYS)
    data = text.replace("\n", "\r\n").encode() if crlf else text.encode()
    full, titles = parse_workspace(data), parse_workspace(data, titles_only=True)
    assert (titles.cwd, titles.name, titles.id, titles.updated_at) == (full.cwd, full.name, None, None)


def test_copilot_workspace_shortcut_reads_every_fixture_as_the_full_parse() -> None:
    found = sorted((Path(__file__).resolve().parents[2] / "fixtures").rglob("workspace.yaml"))
    assert found
    for path in found:
        text = path.read_bytes().decode("utf-8", "replace").replace("\r\n", "\n")
        assert _scalars(text, _TOP_KEY) == _scalars_every_line_parsed(text, _KEYS), path
        assert _scalars(text, _TITLE_KEY) == _scalars_every_line_parsed(text, _TITLE_KEYS), path
        full, titles = parse_workspace(path.read_bytes()), parse_workspace(path.read_bytes(), titles_only=True)
        assert (titles.cwd, titles.name) == (full.cwd, full.name), path


@pytest.mark.parametrize("name", ["plain-name_1.2~x", "with space", "what?#%41é"])
def test_copilot_a_database_is_read_whatever_characters_its_folder_name_holds(tmp_path: Path, name: str) -> None:
    """The database is named to SQLite by a `file:` URI: a name of characters that need
    no quoting is taken as it stands, any other quoted (`?`, `#`, `%`, a space, a
    non-ASCII letter): each reads the same plan, and no other file."""
    home = tmp_path / name
    folder = copy_session(SAMPLE, home)
    (home / "session-state" / "what").mkdir()  # what an unquoted `?` would cut the name to
    reader, result = read(folder)
    _sample, expected = read(SAMPLE)
    assert plan_of(result) == plan_of(expected) and reader.problem is None


def test_copilot_a_cold_listing_of_counts_makes_no_item_text_and_the_same_counts(tmp_path: Path) -> None:
    """The command line's list (`summaries`) shows counts, never text: read from scratch,
    a session's items hold their statuses and empty texts (as a warm start's summary
    gives them), with the counts, sources and waits of a full read; a full read keeps
    the texts."""
    home = tmp_path / "copilot"
    for source in (SAMPLE, rule("2"), rule("1")):
        copy_session(source, home)
    root = home / "session-state"

    def cold(summaries: bool) -> list[SessionEntry]:
        cache_file().unlink(missing_ok=True)  # read from scratch, not from a summary
        index = SessionIndex([root], summaries=summaries)
        index.scan()
        return index.entries()

    def counts(entries: list[SessionEntry]) -> dict[str, tuple[object, ...]]:
        return {
            e.session.id: (e.plan.counts(), [(g.source, [i.status for i in g.items]) for g in e.plan.groups])
            for e in entries
        }

    def texts(entries: list[SessionEntry]) -> set[str]:
        return {i.text for e in entries for g in e.plan.groups for i in g.items}

    listed, full = cold(True), cold(False)
    assert counts(listed) == counts(full) and len(listed) == 3
    assert texts(listed) == {""}
    assert "Adding YAML parsing" in texts(full)


def test_copilot_a_wal_or_journal_is_remembered_by_its_identity_while_there_and_a_fifo_never(tmp_path: Path) -> None:
    """The -wal and -journal are asked for by `access()` before their `stat`: one that
    is there is remembered by its identity (the warm state names it), one that is gone
    as not there, and a FIFO under the name as not there either (never opened)."""
    folder = copy_session(SAMPLE, tmp_path / "copilot")
    reader, _result = read(folder)
    assert reader.warm_state()["files"]["session.db-journal"] is None
    journal = folder / "session.db-journal"
    journal.write_bytes(b"")
    os.mkfifo(folder / "session.db-wal")
    reader.refresh()
    files = reader.warm_state()["files"]
    st = journal.stat()
    assert files["session.db-journal"] == [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]
    assert files["session.db-wal"] is None
    journal.unlink()
    reader.refresh()
    assert reader.warm_state()["files"]["session.db-journal"] is None
