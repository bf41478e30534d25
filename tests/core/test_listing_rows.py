"""A listing's row (`core.listing.Listed`) is made by `collections.namedtuple` at run
time, and type checkers see a `NamedTuple` class of the same fields: the two must name
the same fields in the same order."""

from __future__ import annotations

import ast
from pathlib import Path

from planwatch.core import listing

SOURCE = Path(listing.__file__).read_text(encoding="utf-8")


def test_the_checked_class_names_the_run_time_fields_in_order() -> None:
    [checked] = [
        node for node in ast.walk(ast.parse(SOURCE)) if isinstance(node, ast.ClassDef) and node.name == "Listed"
    ]
    fields = tuple(
        statement.target.id
        for statement in checked.body
        if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name)
    )
    assert fields == listing.LISTED_FIELDS == listing.Listed._fields


def test_a_row_is_a_tuple_with_named_fields() -> None:
    row = listing.Listed(
        "id-1", "claude", "A title", None, None, "/x.jsonl", "2026-12-01T00:00:00+00:00", None, 1, 2, False, None, 0
    )
    assert row.title == "A title" and row[8:10] == (1, 2) and row._replace(done=2).done == 2
    assert tuple(row) == (
        "id-1",
        "claude",
        "A title",
        None,
        None,
        "/x.jsonl",
        "2026-12-01T00:00:00+00:00",
        None,
        1,
        2,
        False,
        None,
        0,
    )


def test_a_copilot_folder_is_kept_with_each_file_s_identity_as_one_string_and_not_when_one_is_foreign() -> None:
    """A Copilot CLI folder's files as its reader traced them: each identity kept as one
    string, an absent file as None; an identity that is not five numbers (not one this
    code made) leaves the folder uncovered (no listing kept) rather than failing."""
    from planwatch.core.sessions import FileState
    from planwatch.core.transcripts.discover import TranscriptFile
    from planwatch.core.transcripts.warmcache import Trace

    def kept(files: dict[str, object]) -> object:
        trace = Trace(state={"files": files})
        state = FileState(TranscriptFile(Path("/s/abc"), "copilot", 1.0, 0), None, trace=trace)
        return listing._kept_file(state)

    assert kept({"session.db": [1, 2, 3, 4, 5], "session.db-wal": None}) == [
        "/s/abc",
        "copilot",
        {"session.db": "1:2:3:4:5", "session.db-wal": None},
    ]
    assert kept({"session.db": [1, 2, 3]}) is None
    assert kept({"session.db": ["1", 2, 3, 4, 5]}) is None


_INTERRUPTED = """
import json, os, sys
from planwatch.core import listing
parent = os.getpid()
calls = []

def save(key, entries, states, rows):
    if os.getpid() != parent:
        raise KeyboardInterrupt  # Ctrl-C reaches the forked child too
    calls.append("here")
    return True

listing.save = save
rows = [None] * listing.FORK_ROWS
interrupted = listing.save_beside("k", [], {}, rows)(False)
again = listing.save_beside("k", [], {}, rows)()
print(json.dumps({"interrupted": interrupted, "again": again, "calls": calls}))
"""


def test_an_interrupted_listing_waits_for_its_forked_keeping_and_does_not_keep_it_again() -> None:
    """The listing is kept on a forked process beside the warm-start cache's writing; when
    the command is interrupted (Ctrl-C, which the child gets too, so its keeping fails),
    the child is waited for and nothing is kept in its place, where an ordinary failure of
    the child has the keeping done here. A fresh interpreter (no other thread: it forks)."""
    import json
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", _INTERRUPTED], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == {"interrupted": False, "again": True, "calls": ["here"]}
