"""The remembered listing (core/listing.py): a listing kept without its text answers the
next one, with every text read again from its file, exactly as the index would list —
and only while nothing it depends on changed.

Each test lists with the index (`summaries`, as `planwatch sessions` does), keeps the
listing, and compares `remembered_rows` with the index's rows over the same files."""

from __future__ import annotations

import json
import marshal
import os
import shutil
import threading
from pathlib import Path

import pytest
from bench.corpus import ClaudeWriter

from planwatch.core import listing
from planwatch.core.index import SessionIndex
from planwatch.core.paths import default_roots
from planwatch.core.settings import load_settings

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"


def listed_by_index(roots: list[Path]) -> tuple[list[listing.Listed], bool]:
    """The index's listing of `roots` (plans read, facts and counts only), kept; and
    whether it was kept."""
    index = SessionIndex(roots, summaries=True)
    index.scan()
    entries = index.entries()
    rows = [listing.listed(entry) for entry in entries]
    kept = not index.problem_notes() and listing.save(listing.key_for(roots), entries, index.file_states(), rows)
    return rows, kept


def roots_of(folder: Path) -> list[Path]:
    return default_roots(load_settings(), [folder])


def remembered(roots: list[Path]) -> list[listing.Listed] | None:
    return listing.remembered_rows(roots, listing.key_for(roots))


def units() -> list[Path]:
    """Every fixture transcript of a harness read as lines, and every Copilot CLI session
    folder: what one listing is made of."""
    found: set[Path] = set()
    for base in (FIXTURES / "transcripts", FIXTURES / "samples"):
        for path in sorted(base.rglob("*")):
            if path.parent.parent.name == "session-state":
                found.add(path.parent)
            elif path.is_file() and path.name.endswith((".jsonl", ".json")) and "cline" not in path.parts:
                found.add(path)
    return sorted(found)


# What a listing is not kept for: a Gemini CLI legacy document (read whole, no trace of
# its lines), a Copilot CLI session without a workspace (its facts come from its log),
# and listings reporting a problem (a Copilot database not read, a pi tree cut short).
NOT_KEPT = {
    "transcripts/rules/gemini/tmp/oldproj/chats/session-2026-11-29T17-00-a1000000.json",
    "transcripts/rules/copilot/session-state/e1000000-0000-4000-8000-000000000009",
    "transcripts/rules/copilot/session-state/e1000000-0000-4000-8000-000000000005",
    "transcripts/rules/copilot/session-state/e1000000-0000-4000-8000-000000000006",
    "transcripts/rules/copilot/session-state/e1000000-0000-4000-8000-000000000008",
    "transcripts/rules/pi/sessions/--home-dev-lab--/2026-11-29T13-00-00-000Z_c3000000-0000-7000-8000-000000000004.jsonl",
}


def copy_unit(unit: Path, tmp_path: Path) -> Path:
    """The unit in a folder of its own (a Copilot CLI session in a `session-state`)."""
    if unit.is_dir():
        dest = tmp_path / "session-state" / unit.name
        shutil.copytree(unit, dest)
        return tmp_path / "session-state"
    dest = tmp_path / "root" / unit.relative_to(FIXTURES)
    dest.parent.mkdir(parents=True)
    shutil.copy(unit, dest)
    return tmp_path / "root"


@pytest.mark.parametrize("unit", units(), ids=lambda p: str(p.relative_to(FIXTURES)))
def test_a_remembered_listing_is_the_index_listing_for_every_fixture(unit: Path, tmp_path: Path) -> None:
    roots = roots_of(copy_unit(unit, tmp_path))
    rows, kept = listed_by_index(roots)
    name = str(unit.relative_to(FIXTURES))
    assert kept == (name not in NOT_KEPT)
    if kept:
        assert remembered(roots) == rows
        assert listed_by_index(roots)[0] == rows  # the index, again, agrees
    else:
        assert remembered(roots) is None


def test_a_remembered_listing_of_every_fixture_at_once(tmp_path: Path) -> None:
    """Every fixture of the harnesses covered in one folder (subagents beside their
    parents, forks beside their origins, sessions sharing a time): kept, and the same."""
    root = tmp_path / "all"
    for unit in units():
        if str(unit.relative_to(FIXTURES)) in NOT_KEPT:
            continue
        dest = root / unit.relative_to(FIXTURES)
        if unit.is_dir():
            shutil.copytree(unit, dest)
        else:
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(unit, dest)
    roots = roots_of(root)
    rows, kept = listed_by_index(roots)
    assert kept and len(rows) > 50
    assert remembered(roots) == rows


# Titles a person may type: escapes, every script, control characters, a prompt longer
# than a title's bound, whitespace to fold, quotes and backslashes.
PROMPTS = [
    'Fix the "quoted" path C:\\Users\\dev and a tab\there',
    "Ré-écrire le module — naïve façade ✓ 日本語のテスト 🚀",
    "line one\nline two\r\n\n   indented   line three",
    "x" * 1500 + " beyond the bound",
    "\u2028separators\u2029 and \x07 bell and \x1b[31m escape",
    "  leading and trailing blanks  ",
    "</script> & <b>markup</b> [bold]not markup[/bold]",
]


def generated(root: Path, count: int) -> None:
    base = root / "projects"
    for n in range(count):
        sid = f"{n:08x}-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
        folder = base / f"-home-dev-p{n % 7}"
        folder.mkdir(parents=True, exist_ok=True)
        with (folder / f"{sid}.jsonl").open("wb") as fh:
            writer = ClaudeWriter(fh, sid, f"/home/dev/p{n % 7}/ünïcode {n % 3}", seed=n)
            writer.prompt(PROMPTS[n % len(PROMPTS)] + f" #{n}")
            writer.todo_write([(f"Step {k}", "completed" if k < n % 4 else "pending") for k in range(1 + n % 5)])


def test_a_remembered_listing_of_generated_sessions_with_every_kind_of_text(tmp_path: Path) -> None:
    generated(tmp_path / "claude", 300)
    roots = roots_of(tmp_path / "claude")
    rows, kept = listed_by_index(roots)
    assert kept and len(rows) == 300
    assert remembered(roots) == rows
    assert {row.title[:20] for row in rows} >= {" ".join(p.split())[:20] for p in PROMPTS}
    # Titles kept as they are and titles made from a longer prompt, both placed.
    doc = listing._load(listing.snapshot_file())
    assert doc is not None
    kept_rows = doc["rows"]
    assert {row[10][2] for row in kept_rows} == {listing.AS_IS, listing.PROMPT}


def test_a_remembered_listing_reads_its_texts_on_a_second_process_or_here_the_same(tmp_path: Path) -> None:
    """Enough rows: a forked process reads the texts while discovery runs; with another
    thread running (forking then is unsafe), this one reads them: the same rows."""
    generated(tmp_path / "claude", listing.FORK_ROWS + 20)
    roots = roots_of(tmp_path / "claude")
    rows, kept = listed_by_index(roots)
    assert kept
    assert remembered(roots) == rows
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert remembered(roots) == rows
    finally:
        stop.set()
        other.join()


def kept_texts(tmp_path: Path, count: int) -> tuple[list, list, list]:  # type: ignore[type-arg]
    """A kept listing of `count` generated sessions: its files, its rows, and every row's
    texts read in one go."""
    generated(tmp_path / "claude", count)
    roots = roots_of(tmp_path / "claude")
    assert listed_by_index(roots)[1]
    doc = listing._load(listing.snapshot_file())
    assert doc is not None
    files, rows = doc["files"], doc["rows"]
    whole = listing._texts(files, rows, 0, len(rows))
    assert whole is not None and len(whole) == count
    return files, rows, whole


def test_a_remembered_listings_texts_are_read_from_both_ends_until_they_meet(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A forked child reads the rows' texts from the first row, this process from the
    last: wherever the two meet (each side's speed, each run's size), every row's texts
    come back once, in order, as read in one go."""
    from planwatch.core.forked import only_thread

    assert only_thread()  # the child is forked (with another thread running, none is)
    files, rows, whole = kept_texts(tmp_path, listing.FORK_ROWS + 40)
    count = len(rows)
    for met in (0, 1, listing.RUN_ROWS - 1, count // 2, count - 1, count):
        meeting = listing._meeting(count)
        meeting[0] = met  # the child has read this far: this process reads the rest
        assert listing._texts_back(files, rows, meeting) == (met, whole[met:])
        assert meeting[1] == met  # and took each run before reading it
        meeting = listing._meeting(count)
        meeting[1] = met  # this process has taken the rows from here: the child stops there
        assert listing._texts_ahead(files, rows, meeting) == whole[:met]
        assert meeting[0] == met
    for run in (1, 7, listing.RUN_ROWS, count + 1):
        monkeypatch.setattr(listing, "RUN_ROWS", run)
        assert listing._read_elsewhere(files, rows)(True) == whole


def test_a_child_that_fails_on_the_way_leaves_its_rows_to_this_process(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The child read some rows and failed (its answer lost): this process reads every
    row it did not take itself, and the texts are whole."""
    files, rows, whole = kept_texts(tmp_path, listing.FORK_ROWS + 10)

    def fails(files, rows, meeting):  # type: ignore[no-untyped-def]
        meeting[0] = 50  # as if it had read fifty rows
        raise RuntimeError("the child fails")

    monkeypatch.setattr(listing, "_texts_ahead", fails)
    assert listing._read_elsewhere(files, rows)(True) == whole


def test_a_row_that_cannot_be_read_again_fails_the_texts_on_either_side(tmp_path: Path) -> None:
    """A file changed since the listing was kept, met by the child (a first row) or by
    this process (a last row): no texts, and the listing is made as ever; not wanted
    (discovery found other files), the child is stopped and nothing is given."""
    for which in (0, -1):
        files, rows, _whole = kept_texts(tmp_path / str(which), listing.FORK_ROWS + 10)
        assert listing._read_elsewhere(files, rows)(False) is None
        with Path(files[rows[which][2]][0]).open("ab") as fh:
            fh.write(b"\n")
        assert listing._read_elsewhere(files, rows)(True) is None


# -- only while nothing changed ------------------------------------------------------------


@pytest.fixture
def kept_listing(tmp_path: Path) -> tuple[list[Path], list[listing.Listed], Path]:
    generated(tmp_path / "claude", 12)
    roots = roots_of(tmp_path / "claude")
    rows, kept = listed_by_index(roots)
    assert kept and remembered(roots) == rows
    return roots, rows, tmp_path / "claude" / "projects"


def some_file(base: Path) -> Path:
    return sorted(base.rglob("*.jsonl"))[0]


def test_an_appended_line_is_not_answered_from_the_remembered_listing(kept_listing) -> None:  # type: ignore[no-untyped-def]
    roots, _rows, base = kept_listing
    with some_file(base).open("ab") as fh:
        fh.write(b'{"type":"user","message":{"role":"user","content":"more"}}\n')
    assert remembered(roots) is None


def test_a_touched_file_is_not_answered_from_the_remembered_listing(kept_listing) -> None:  # type: ignore[no-untyped-def]
    roots, _rows, base = kept_listing
    path = some_file(base)
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    assert remembered(roots) is None


def test_a_file_rewritten_in_place_with_its_size_and_time_kept_is_not_answered(kept_listing) -> None:  # type: ignore[no-untyped-def]
    """The same size and mtime put back: its ctime, which nobody sets, tells."""
    roots, _rows, base = kept_listing
    path = some_file(base)
    st = path.stat()
    data = path.read_bytes()
    path.write_bytes(data.replace(b"Step 0", b"Step X"))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert path.stat().st_size == st.st_size
    assert remembered(roots) is None


def test_a_new_file_a_removed_one_or_a_renamed_one_is_not_answered(kept_listing) -> None:  # type: ignore[no-untyped-def]
    roots, _rows, base = kept_listing
    path = some_file(base)
    copy = path.with_name("0" * 8 + "-aaaa-4aaa-8aaa-aaaaaaaaaaaa.jsonl")
    shutil.copy(path, copy)
    assert remembered(roots) is None
    copy.unlink()
    assert remembered(roots) is not None
    moved = path.with_name("f" * 8 + "-aaaa-4aaa-8aaa-aaaaaaaaaaaa.jsonl")
    path.rename(moved)
    assert remembered(roots) is None
    moved.rename(path)
    path.unlink()
    assert remembered(roots) is None


@pytest.mark.parametrize("change", ["wal", "journal", "database", "workspace", "workspace-same-size", "log"])
def test_a_copilot_folder_whose_files_changed_is_not_answered(tmp_path: Path, change: str) -> None:
    """A Copilot CLI session folder is answered only while each of its files is the one
    read: a `-wal` or `-journal` that appeared (new rows may lie there alone), the
    database, the workspace (rewritten in place with its size and time put back: its
    ctime, asked on the descriptor the texts are read from) or the log."""
    sample = next((FIXTURES / "samples" / "copilot" / "session-state").iterdir())
    state = copy_unit(sample, tmp_path)
    folder = state / sample.name
    roots = roots_of(state)
    rows, kept = listed_by_index(roots)
    assert kept and remembered(roots) == rows
    if change in ("wal", "journal"):
        (folder / f"session.db-{change}").write_bytes(b"")
    elif change == "database":
        st = (folder / "session.db").stat()
        os.utime(folder / "session.db", ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    elif change == "log":
        with (folder / "events.jsonl").open("ab") as fh:
            fh.write(b"\n")
    else:
        path = folder / "workspace.yaml"
        st = path.stat()
        data = path.read_bytes()
        if change == "workspace":
            path.write_bytes(data + b"# edited\n")
        else:
            path.write_bytes(data.replace(b"name: ", b"name:\t", 1))
            os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
            assert path.stat().st_size == st.st_size
    assert remembered(roots) is None


def test_another_root_or_other_code_is_not_answered(kept_listing, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    roots, _rows, _base = kept_listing
    (tmp_path / "more").mkdir()
    assert remembered([*roots, tmp_path / "more"]) is None
    from planwatch.core import signed

    monkeypatch.setattr(signed, "_STAMP", ["another planwatch"])
    assert remembered(roots) is None


def test_a_root_that_became_a_fifo_is_not_answered(kept_listing) -> None:  # type: ignore[no-untyped-def]
    """The index says a FIFO root is skipped: the remembered listing cannot say it."""
    roots, _rows, _base = kept_listing
    fifo = next(root for root in roots if not root.exists() and root.suffix != ".db")
    fifo.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(fifo)
    assert remembered(roots) is None


def test_a_forged_or_edited_snapshot_is_not_trusted(kept_listing) -> None:  # type: ignore[no-untyped-def]
    roots, _rows, _base = kept_listing
    path = listing.snapshot_file()
    raw = path.read_bytes()
    doc = listing._load(path)
    assert doc is not None
    doc["rows"][0][5] = 99  # made-up counts, the checksum kept
    head = raw[: len(listing._HEAD)]
    path.write_bytes(head + marshal.dumps(doc, 4))
    assert remembered(roots) is None
    path.write_bytes(raw)
    assert remembered(roots) is not None  # the file put back is trusted again
    path.write_bytes(raw[:-40])
    assert remembered(roots) is None


def test_a_snapshot_that_is_a_symlink_or_a_fifo_is_never_opened(kept_listing, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    roots, _rows, _base = kept_listing
    path = listing.snapshot_file()
    real = tmp_path / "elsewhere.json"
    shutil.move(path, real)
    path.symlink_to(real)
    assert remembered(roots) is None
    path.unlink()
    os.mkfifo(path)
    assert remembered(roots) is None  # never waited on


def test_a_listing_with_a_file_it_does_not_cover_is_not_kept_and_the_old_one_goes(tmp_path: Path) -> None:
    """A Gemini CLI legacy document (read whole, no trace of its lines) among the files:
    not kept, and the snapshot kept before is removed (it could only be refused now)."""
    generated(tmp_path / "claude", 3)
    extra = tmp_path / "extra"
    extra.mkdir()
    roots = [*roots_of(tmp_path / "claude"), extra]
    assert listed_by_index(roots)[1] and listing.snapshot_file().is_file()
    legacy = FIXTURES / "transcripts/rules/gemini/tmp/oldproj/chats/session-2026-11-29T17-00-a1000000.json"
    copy = extra / legacy.relative_to(legacy.parents[3])  # tmp/<project>/chats/session-….json
    copy.parent.mkdir(parents=True)
    shutil.copy(legacy, copy)
    assert remembered(roots) is None
    rows, kept = listed_by_index(roots)
    assert not kept and not listing.snapshot_file().exists()
    assert any(row.path == str(copy) for row in rows)


# -- no text kept --------------------------------------------------------------------------


def test_the_remembered_listing_holds_no_text(tmp_path: Path) -> None:
    """Titles, prompts, folders and branches are never written: only where they lie."""
    generated(tmp_path / "claude", 30)
    root = tmp_path / "more"
    for unit in units():
        if str(unit.relative_to(FIXTURES)) not in NOT_KEPT and not unit.is_dir():
            dest = root / unit.relative_to(FIXTURES)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(unit, dest)
    roots = roots_of(tmp_path / "claude") + [root]
    rows, kept = listed_by_index(roots)
    assert kept
    raw = listing.snapshot_file().read_bytes()
    doc = listing._load(listing.snapshot_file())
    assert doc is not None
    paths = " ".join(kept_file[0] for kept_file in doc["files"])
    for row in rows:
        for text in (row.title, row.git_branch, row.cwd):
            if text and len(text) > 3 and text not in paths:
                assert text.encode() not in raw and json.dumps(text).encode() not in raw, text
    for prompt in PROMPTS:
        assert prompt[:12].encode() not in raw
