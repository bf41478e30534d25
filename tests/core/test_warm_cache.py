"""The warm-start cache (core/transcripts/warmcache.py): a start after the
first replays what each reader was fed, from offsets, and gives exactly what reading
the files from scratch gives; any change it cannot account for is read from scratch;
a broken, foreign or other-version cache is ignored; two processes may write it at
once; it holds no text; with plan reading off it is never written."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from bench.corpus import ClaudeWriter, write_jobs
from waiting import caches_written

from planwatch.core import listing, paths, signed
from planwatch.core.index import SessionIndex
from planwatch.core.transcripts import warmcache, warmsummary
from planwatch.core.transcripts.batch import FileRead, read_file
from planwatch.core.transcripts.discover import TranscriptFile, classify, is_whole_document
from planwatch.core.transcripts.warmcache import FACT, GAP, LINE, MIDDLE, TOUCH, WHEN, WarmCache

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"
SID = "7d1c2b3a-4e5f-4a6b-8c7d-9e0f1a2b3c4d"


def item_of(path: Path) -> TranscriptFile:
    item = classify(path)
    assert item is not None, path
    return item


def cold(path: Path) -> FileRead:
    read = read_file(item_of(path), True)
    assert read.reader is not None and read.trace is not None
    return read


def remember(*reads: FileRead) -> None:
    """Write the cache the way the index does, for these reads."""
    traces = [(r.item.path, r.item.harness, r.trace) for r in reads if r.trace is not None]
    assert warmcache.save(traces, [r.item.path for r in reads])


def warm(path: Path) -> FileRead:
    item = item_of(path)
    return read_file(item, True, WarmCache.load().get(item.path, item.harness))


def answer(read: FileRead) -> tuple[object, ...]:
    """Everything a read gives the index: facts, plans, counts and the resume offset."""
    assert read.reader is not None
    return (
        [dataclasses.asdict(r) for r in read.results],
        read.reader.skipped_lines,
        read.offset,
    )


def fixture_transcripts() -> list[Path]:
    found = []
    for path in sorted(FIXTURES.rglob("*.json*")):
        item = classify(path)
        # A Copilot CLI session is its folder, not lines: tests/core/test_warm_copilot.py.
        if item is not None and item.harness != "copilot" and not path.name.endswith(".zst"):
            found.append(path)
    return found


@pytest.mark.parametrize("path", fixture_transcripts(), ids=lambda p: str(p.relative_to(FIXTURES)))
def test_every_fixture_transcript_reads_the_same_cold_and_warm(path: Path) -> None:
    """The reader suite's transcripts, every harness: the second read comes from the
    cache (no scan) and is identical to the first. A whole document (Gemini CLI's
    legacy `.json`) is all text: it is read whole both times, never cached."""
    if is_whole_document(path):
        first = read_file(item_of(path), True)
        assert first.trace is None
        remember(first)
        assert WarmCache.load().get(path, "gemini") is None
        second = warm(path)
        assert second.warm is None and answer(second) == answer(first)
        return
    first = cold(path)
    remember(first)
    second = warm(path)
    assert second.warm == "same"
    assert answer(second) == answer(first)


def write_long(path: Path, *, title_in_middle: bool = True) -> None:
    """A transcript over the head + tail windows: a full list in the middle (found by
    the backward scan), a custom title further back (found by the look-back), tasks and
    lists in the tail."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as fh:
        w = ClaudeWriter(fh, SID, "/home/dev/long", seed=3)
        w.prompt("Start the long job")
        while fh.tell() < 3 << 20:
            w.filler(60_000)
        if title_in_middle:
            w.custom_title("The long job")
        while fh.tell() < 6 << 20:
            w.filler(60_000)
        w.todo_write([("Read", "completed"), ("Write", "in_progress")])
        while fh.tell() < 14 << 20:
            w.filler(60_000)
        w.task_create("1", "A task in the tail")
        w.filler(1000)


def test_a_long_transcript_replays_its_gap_and_middle_title(tmp_path: Path) -> None:
    path = tmp_path / "claude" / "projects" / "-home-dev-long" / f"{SID}.jsonl"
    write_long(path)
    first = cold(path)
    assert first.trace is not None
    kinds = set(first.trace.ops[0::4])
    # Lines fed are tagged by what they changed (LINE, FACT or WHEN: format 4).
    assert {MIDDLE, GAP} <= kinds and kinds & {LINE, FACT, WHEN}
    assert first.results[0].facts.title() == "The long job"
    remember(first)
    second = warm(path)
    assert second.warm == "same"
    assert answer(second) == answer(first)


def claude_file(tmp_path: Path, items: list[tuple[str, str]]) -> Path:
    path = tmp_path / "claude" / "projects" / "-home-dev-app" / f"{SID}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as fh:
        w = ClaudeWriter(fh, SID, "/home/dev/app", seed=1)
        w.prompt("Fix the loader")
        w.filler(5000)
        w.todo_write(items)
        w.filler(5000)
    return path


def append_todo(path: Path, items: list[tuple[str, str]]) -> None:
    with path.open("ab") as fh:
        ClaudeWriter(fh, SID, "/home/dev/app", seed=2).todo_write(items)


def main_items(read: FileRead) -> list[tuple[str, str]]:
    main = read.results[0].plan.main
    assert main is not None
    return [(i.text, i.status) for i in main.items]


def test_a_grown_file_is_replayed_then_read_from_its_last_offset(tmp_path: Path) -> None:
    path = claude_file(tmp_path, [("Read the code", "in_progress"), ("Write tests", "pending")])
    first = cold(path)
    remember(first)
    append_todo(path, [("Read the code", "completed"), ("Write tests", "in_progress")])
    second = warm(path)
    assert second.warm == "grown"
    assert main_items(second) == [("Read the code", "completed"), ("Write tests", "in_progress")]
    assert answer(second) == answer(cold(path))
    # What the grown read was fed is remembered in turn: the next start is a plain hit.
    remember(second)
    assert warm(path).warm == "same"


def test_a_truncated_file_is_read_from_scratch(tmp_path: Path) -> None:
    path = claude_file(tmp_path, [("Read the code", "in_progress")])
    append_todo(path, [("Read the code", "completed")])
    remember(cold(path))
    data = path.read_bytes()
    path.write_bytes(data[: data.rindex(b"\n", 0, len(data) - 1) + 1])  # the last line gone
    second = warm(path)
    assert second.warm is None
    assert answer(second) == answer(cold(path))


def test_a_replaced_file_a_new_inode_is_read_from_scratch(tmp_path: Path) -> None:
    path = claude_file(tmp_path, [("Read the code", "in_progress")])
    remember(cold(path))
    other = claude_file(tmp_path / "other", [("Something else", "pending"), ("And more", "pending")])
    st = path.stat()
    os.replace(other, path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    second = warm(path)
    assert second.warm is None
    assert main_items(second) == [("Something else", "pending"), ("And more", "pending")]


def test_a_rewrite_in_place_of_the_same_size_and_time_is_caught_by_the_line_hash(tmp_path: Path) -> None:
    path = claude_file(tmp_path, [("Read the code", "in_progress"), ("Write tests", "pending")])
    remember(cold(path))
    st = path.stat()
    data = path.read_bytes()
    assert data.count(b"Write tests") == 2  # the call and its result
    with path.open("r+b") as fh:  # same inode, same size
        fh.write(data.replace(b"Write tests", b"Ship fixes!"))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))  # and the same mtime
    # Size and mtime are as remembered, but the ctime is new (nobody can put it back).
    assert warmcache.identity(path.stat())[:4] == warmcache.identity(st)[:4]
    assert warmcache.identity(path.stat()) != warmcache.identity(st)
    second = warm(path)
    assert second.warm is None
    assert main_items(second) == [("Read the code", "in_progress"), ("Ship fixes!", "pending")]


def test_the_same_size_with_another_mtime_is_read_from_scratch(tmp_path: Path) -> None:
    path = claude_file(tmp_path, [("Read the code", "in_progress")])
    remember(cold(path))
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
    assert warm(path).warm is None


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    """`planwatch ARGS`, the listing the last run kept let go first (core/listing.py):
    these tests are of the warm-start cache, which answers a listing only then."""
    listing.snapshot_file().unlink(missing_ok=True)
    done = subprocess.run(
        [sys.executable, "-m", "planwatch.tui.cli", *args],
        cwd=ROOT,
        env=os.environ.copy(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    caches_written()  # written after the answer, by a process of its own
    return done


def sessions_json(isolated_env, count: int = 3) -> Path:  # type: ignore[no-untyped-def]
    return write_jobs(isolated_env.claude, count)


def test_a_corrupt_cache_file_is_ignored_and_replaced(isolated_env) -> None:  # type: ignore[no-untyped-def]
    sessions_json(isolated_env)
    first = run_cli("sessions", "--json")
    assert first.returncode == 0, first.stderr
    cache = warmcache.cache_file()
    cache.write_bytes(b'{"format": 1, "code": "\x00garbage')
    second = run_cli("sessions", "--json")
    assert second.returncode == 0, second.stderr
    assert second.stdout == first.stdout
    assert len(WarmCache.load()) == 3  # written again, valid
    # A valid JSON document of another shape is not trusted either.
    doc = json.loads(cache.read_bytes())
    for raw in doc["files"].values():
        raw[6] = ["not", "ints"]
    cache.write_text(json.dumps(doc))
    assert WarmCache.load().get(next(iter(Path(k) for k in doc["files"])), "claude") is None
    assert run_cli("sessions", "--json").stdout == first.stdout


def test_a_cache_from_another_version_or_format_is_discarded(isolated_env) -> None:  # type: ignore[no-untyped-def]
    sessions_json(isolated_env)
    assert run_cli("sessions", "--json").returncode == 0
    cache = warmcache.cache_file()
    doc = json.loads(cache.read_bytes())
    assert len(WarmCache.load()) == 3
    for change in ({"code": "another planwatch"}, {"format": warmcache.FORMAT + 1}):
        cache.write_text(json.dumps({**doc, **change}))
        assert len(WarmCache.load()) == 0
    assert run_cli("sessions", "--json").returncode == 0
    assert json.loads(cache.read_bytes())["code"] == signed.code_stamp()


def test_two_processes_writing_the_cache_at_once_keep_both(isolated_env, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    roots = []
    for name in ("a", "b"):
        root = tmp_path / name / "projects" / "-home-dev-x"
        for n in range(20):
            sid = f"{n:08d}-4e5f-4a6b-8c7d-{name * 12}"
            root.mkdir(parents=True, exist_ok=True)
            with (root / f"{sid}.jsonl").open("wb") as fh:
                w = ClaudeWriter(fh, sid, f"/home/dev/{name}", seed=n)
                w.prompt(f"Job {name}{n}")
                w.todo_write([(f"Step {n}", "pending")])
        roots.append(root.parent)
    env = os.environ.copy()
    argv = [sys.executable, "-m", "planwatch.tui.cli", "sessions", "--json"]
    for _ in range(3):  # a few rounds: the two writes race each time
        warmcache.cache_file().unlink(missing_ok=True)
        listing.snapshot_file().unlink(missing_ok=True)  # not answered from the last listing
        procs = [
            subprocess.Popen([*argv, "--root", str(root)], cwd=ROOT, env=env, stdout=subprocess.PIPE) for root in roots
        ]
        outs = [proc.communicate(timeout=120)[0] for proc in procs]
        assert [proc.returncode for proc in procs] == [0, 0]
        caches_written()  # one wrote after its answer, the other (the lock taken) before
        cache = WarmCache.load()
        assert len(cache) == 40  # both processes' files, merged under the lock
    both = run_cli("sessions", "--json", "--root", str(roots[0]), "--root", str(roots[1]))
    assert len(json.loads(both.stdout)) == 40
    for root, out in zip(roots, outs, strict=True):
        assert run_cli("sessions", "--json", "--root", str(root)).stdout == out.decode()


def test_the_index_writes_the_cache_once_and_a_second_start_replays_it(isolated_env) -> None:  # type: ignore[no-untyped-def]
    base = sessions_json(isolated_env)
    first = SessionIndex([base])
    first.scan()
    cache = warmcache.cache_file()
    written = cache.stat().st_mtime_ns
    second = SessionIndex([base])
    second.scan()
    assert cache.stat().st_mtime_ns == written  # nothing new: not written again
    assert [dataclasses.asdict(e) for e in second.entries()] == [dataclasses.asdict(e) for e in first.entries()]
    assert second.progress == (3, 3)


def test_with_plan_reading_off_no_cache_is_written(isolated_env) -> None:  # type: ignore[no-untyped-def]
    sessions_json(isolated_env)
    isolated_env.config.write_text("readAgentPlans: false\n")
    result = run_cli("sessions", "--json")
    assert result.returncode == 0
    assert len(json.loads(result.stdout)) == 3
    assert not paths.cache_dir().exists() or not any(paths.cache_dir().iterdir())


@contextlib.contextmanager
def _saving_held(index: SessionIndex, monkeypatch) -> Iterator[threading.Thread]:  # type: ignore[no-untyped-def]
    """The index writing its cache (a thread), held inside the summaries of its files
    while the block runs; the write goes on and ends when it is left."""
    entered, release = threading.Event(), threading.Event()
    summarize = warmsummary.summarize

    def held(results):  # type: ignore[no-untyped-def]
        entered.set()
        assert release.wait(30)
        return summarize(results)

    monkeypatch.setattr(warmsummary, "summarize", held)
    saving = threading.Thread(target=index.save_cache)
    saving.start()
    try:
        assert entered.wait(30)
        yield saving
    finally:
        release.set()
        saving.join(30)
    assert not saving.is_alive()


def _scanned_unsaved(base: Path) -> SessionIndex:
    index = SessionIndex([base])
    index.save_after_scan = False
    index.scan()
    return index


def test_the_sessions_stay_listable_while_the_cache_is_summarized(isolated_env, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The app's UI thread lists the sessions under the index's lock; summarizing every
    file for the cache (tens of milliseconds at 10,000) is done outside it."""
    index = _scanned_unsaved(sessions_json(isolated_env))
    with _saving_held(index, monkeypatch):
        listed: list[int] = []
        lister = threading.Thread(target=lambda: listed.append(len(index.entries())))
        lister.start()
        lister.join(10)
        assert listed == [3]  # listed while the summaries are held
    assert warmcache.cache_file().exists()


def test_plans_turned_off_while_the_cache_is_summarized_write_nothing(isolated_env, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    index = _scanned_unsaved(sessions_json(isolated_env))
    with _saving_held(index, monkeypatch):
        index.set_read_plans(False)
    assert not warmcache.cache_file().exists()


def test_a_removed_file_leaves_the_cache_at_the_next_start(isolated_env) -> None:  # type: ignore[no-untyped-def]
    base = sessions_json(isolated_env)
    SessionIndex([base]).scan()
    assert len(WarmCache.load()) == 3
    gone = sorted(base.glob("*.jsonl"))[0]
    gone.unlink()
    index = SessionIndex([base])
    index.scan()
    cache = WarmCache.load()
    assert len(cache) == 2 and cache.get(gone, "claude") is None
    assert len(index.entries()) == 2


# -- OpenCode: a database, not lines: the reader's own text-free state ---------------------

MARK = "QZX-OPENCODE-SECRET"


def opencode_db(tmp_path: Path):  # type: ignore[no-untyped-def]
    from opencode_db import T0, OpenCodeDb

    db = OpenCodeDb(tmp_path / "opencode.db")
    db.session("ses_named", f"{MARK} named", updated=T0)
    db.prompt("ses_named", f"{MARK} prompt one", T0 + 10)
    db.todowrite("ses_named", [(f"{MARK} step", "in_progress", "high")], T0 + 20)
    # No todo rows: the list comes from its last completed todowrite part; unnamed: the
    # title is its first prompt.
    db.session("ses_parts", "New session - 2026-11-30T06:00:00.000Z", updated=T0)
    db.prompt("ses_parts", f"{MARK} prompt two", T0 + 30)
    db.todowrite("ses_parts", [(f"{MARK} early", "pending", "low")], T0 + 40, rows=False)
    db.todowrite("ses_parts", [(f"{MARK} late", "completed", "low")], T0 + 50, rows=False)
    return db


def opencode_answer(read: FileRead) -> list[object]:
    return sorted((dataclasses.asdict(r) for r in read.results), key=lambda r: str(r["facts"]["id"]))


def test_an_opencode_database_reads_the_same_from_its_remembered_parts(tmp_path: Path) -> None:
    db = opencode_db(tmp_path)
    item = TranscriptFile(db.path, "opencode", 0.0, db.path.stat().st_size)
    first = read_file(item, True)
    assert first.trace is not None and first.trace.state is not None
    sessions = first.trace.state["sessions"]
    assert sessions["ses_parts"][3] and sessions["ses_parts"][4]  # the list's and the prompt's parts
    warmcache.save([(item.path, "opencode", first.trace)], [item.path])
    remembered = WarmCache.load().get(item.path, "opencode")
    assert remembered is not None
    second = read_file(item, True, remembered)
    assert second.warm == "same"
    assert opencode_answer(second) == opencode_answer(first)
    titles = {r.facts.id: r.facts.title() for r in second.results}
    assert titles["ses_parts"] == f"{MARK} prompt two"
    # A session that moved is searched again; a remembered part that is not its list
    # any more is never trusted over the database.
    from opencode_db import T0

    db.todowrite("ses_parts", [(f"{MARK} newest", "pending", "low")], T0 + 90, rows=False)
    third = read_file(item, True, remembered)
    assert third.warm is None
    [parts] = [r for r in third.results if r.facts.id == "ses_parts"]
    assert parts.plan.main is not None and [i.text for i in parts.plan.main.items] == [f"{MARK} newest"]
    db.close()


def test_the_opencode_state_in_the_cache_holds_no_text(tmp_path: Path) -> None:
    db = opencode_db(tmp_path)
    item = TranscriptFile(db.path, "opencode", 0.0, db.path.stat().st_size)
    first = read_file(item, True)
    assert first.trace is not None
    warmcache.save([(item.path, "opencode", first.trace)], [item.path])
    data = warmcache.cache_file().read_bytes()
    assert b"ses_parts" in data  # ids are kept …
    assert MARK.encode() not in data and b"prompt" not in data  # … never titles, items or prompts
    db.close()


def test_a_foreign_opencode_state_is_ignored(tmp_path: Path) -> None:
    db = opencode_db(tmp_path)
    item = TranscriptFile(db.path, "opencode", 0.0, db.path.stat().st_size)
    first = read_file(item, True)
    assert first.trace is not None and first.trace.state is not None
    for state in ({"sessions": {"ses_parts": ["x", 1, 2, 3, 4]}}, {"sessions": 7}, {"other": 1}):
        bogus = warmcache.Entry("opencode", first.trace.ident or (0, 0, 0, 0, 0), 0, [], state)
        assert opencode_answer(read_file(item, True, bogus)) == opencode_answer(first)
    # Remembered part ids that name no part, or parts of the wrong kind (the list's and
    # the prompt's swapped): searched as on a first read.
    own = first.trace.state["sessions"]["ses_parts"]
    for list_part, prompt_part in (("prt_not_there", "prt_nor_this"), (own[4], own[3])):
        sessions = {sid: list(raw) for sid, raw in first.trace.state["sessions"].items()}
        sessions["ses_parts"][3:5] = [list_part, prompt_part]
        wrong = warmcache.Entry("opencode", first.trace.ident or (0, 0, 0, 0, 0), 0, [], {"sessions": sessions})
        assert opencode_answer(read_file(item, True, wrong)) == opencode_answer(first)
    db.close()


# -- summaries: a start that shows facts and counts only (`planwatch sessions`) --------


def signed_as_this_host(doc: dict[str, object]) -> None:
    """Write `doc` as the cache, signed with this host's key, as planwatch's own save
    does: what a cache that passes the keyed checksum is still checked for."""
    raw = json.dumps(doc, separators=(",", ":")).encode()
    warmcache.cache_file().write_bytes(signed.sign(raw))


def forge(path: Path, change: object) -> None:
    """Edit the cache by hand (as an agent with a shell could), without the host's key."""
    doc = json.loads(warmcache.cache_file().read_bytes())
    change(doc)  # type: ignore[operator]
    warmcache.cache_file().write_text(json.dumps(doc, separators=(",", ":")))


def test_a_forged_summary_is_never_trusted(isolated_env) -> None:  # type: ignore[no-untyped-def]
    """A summary holds counts the `sessions` list shows without reading the file: one
    edited by hand would change them. The cache carries a keyed checksum made with a
    per-host secret (0600, in the state folder): a forged cache is ignored whole."""
    base = sessions_json(isolated_env)
    first = run_cli("sessions", "--json")
    assert first.returncode == 0, first.stderr
    assert len(WarmCache.load()) == 3  # the positive twin: planwatch's own cache is trusted
    key = paths.state_dir() / signed.KEY_NAME
    assert key.stat().st_mode & 0o777 == 0o600

    def done_everywhere(doc: dict) -> None:  # type: ignore[type-arg]
        for row in doc["files"].values():
            for _facts, groups, _when in row[9]:
                for group in groups:
                    group[3] = [2 for _ in group[3]]  # every status "completed"

    forge(base, done_everywhere)
    assert len(WarmCache.load()) == 0
    second = run_cli("sessions", "--json")
    assert second.returncode == 0, second.stderr
    assert json.loads(second.stdout) == json.loads(first.stdout)


def test_a_rewrite_in_place_with_size_and_mtime_put_back_is_not_kept_warm(isolated_env) -> None:  # type: ignore[no-untyped-def]
    base = sessions_json(isolated_env, count=1)
    before = json.loads(run_cli("sessions", "--json").stdout)
    assert (before[0]["done"], before[0]["total"]) == (0, 1)
    path = next(base.glob("*.jsonl"))
    st = path.stat()
    data = path.read_bytes()
    assert b'"in_progress"' in data
    with path.open("r+b") as fh:  # same inode, same size
        fh.write(data.replace(b'"in_progress"', b'"completed"'.ljust(len(b'"in_progress"'))))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))  # and the mtime put back
    assert (path.stat().st_size, path.stat().st_mtime_ns) == (st.st_size, st.st_mtime_ns)
    after = json.loads(run_cli("sessions", "--json").stdout)
    assert (after[0]["done"], after[0]["total"]) == (1, 1)  # read again, not the old counts kept warm


def summary_read(path: Path) -> FileRead:
    item = item_of(path)
    return read_file(item, True, WarmCache.load().get(item.path, item.harness), summaries=True)


def counts_of(read: FileRead) -> list[object]:
    """What `sessions` shows of a read's results: facts, and per group its key, source,
    statuses and partial (no item text)."""
    return [
        (
            dataclasses.asdict(r.facts),
            [(g.key, g.source, [i.status for i in g.items], g.partial) for g in r.plan.groups],
        )
        for r in read.results
    ]


def index_summaries(base: Path) -> None:
    """A cold scan through the index, which writes each file's summary in the cache."""
    SessionIndex([base]).scan()


# A transcript whose reader names a problem (pi's tree cut by a missing parent).
CUT_TREE = (
    FIXTURES
    / "transcripts/rules/pi/sessions/--home-dev-lab--/2026-11-29T13-00-00-000Z_c3000000-0000-7000-8000-000000000004.jsonl"
)


def test_a_file_with_a_problem_is_not_remembered_and_says_it_each_start() -> None:
    for _ in range(2):
        index = SessionIndex([CUT_TREE.parent])
        index.scan()
        assert [p for p in index.problems() if str(CUT_TREE) in p], index.problems()
        cache = WarmCache.load()
        assert cache.get(CUT_TREE, "pi") is None
        assert all(cache.get(p, "pi") is not None for p in CUT_TREE.parent.glob("*.jsonl") if p != CUT_TREE)


@pytest.mark.parametrize(
    "path",
    [p for p in fixture_transcripts() if not is_whole_document(p) and p != CUT_TREE],
    ids=lambda p: str(p.relative_to(FIXTURES)),
)
def test_an_unchanged_file_needing_only_counts_rereads_its_fact_lines_alone(path: Path) -> None:
    """Every line-read fixture of every harness: a start that needs only facts and
    counts feeds the lines that carried facts, takes the counts from the cache's
    summary, and gives the facts and counts of a cold read; its items hold no text."""
    first = cold(path)
    index_summaries(path)
    second = summary_read(path)
    assert second.warm == "same"
    assert counts_of(second) == counts_of(first)
    assert all(i.text == "" for r in second.results for g in r.plan.groups for i in g.items)
    entry = WarmCache.load().get(path, first.item.harness)
    assert entry is not None and entry.summary is not None


def test_the_summary_start_reads_fewer_lines_than_the_full_replay(tmp_path: Path) -> None:
    path = claude_file(tmp_path, [("Read the code", "in_progress"), ("Write tests", "pending")])
    index_summaries(path)
    entry = WarmCache.load().get(path, "claude")
    assert entry is not None
    kinds = entry.ops[0::4]
    assert FACT in kinds and (LINE in kinds or kinds.count(WHEN) > 1)  # plan lines are not fact lines
    assert summary_read(path).warm == "same"


def test_a_file_needing_the_plan_still_replays_every_line(tmp_path: Path) -> None:
    path = claude_file(tmp_path, [("Read the code", "in_progress"), ("Write tests", "pending")])
    index_summaries(path)
    assert main_items(warm(path)) == [("Read the code", "in_progress"), ("Write tests", "pending")]


def test_a_changed_file_needing_only_counts_is_read_as_before(tmp_path: Path) -> None:
    """Grown: replayed whole, then the append read; rewritten in place: from scratch.
    Either way the plan holds the file's text again, not a summary."""
    path = claude_file(tmp_path, [("Read the code", "in_progress")])
    index_summaries(path)
    append_todo(path, [("Read the code", "completed"), ("Ship", "pending")])
    grown = summary_read(path)
    assert grown.warm == "grown"
    assert main_items(grown) == [("Read the code", "completed"), ("Ship", "pending")]
    index_summaries(path)
    st = path.stat()
    data = path.read_bytes()
    with path.open("r+b") as fh:  # same inode, size and mtime; other bytes
        fh.write(data.replace(b"Read the code", b"Mend the dog"))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    rewritten = summary_read(path)
    assert rewritten.warm is None
    assert main_items(rewritten) == [("Mend the dog", "completed"), ("Ship", "pending")]


def test_a_summary_whose_facts_do_not_match_falls_back_to_the_full_replay(tmp_path: Path) -> None:
    """A summary is trusted only when the fact lines give the facts it was made from."""
    path = claude_file(tmp_path, [("Read the code", "in_progress")])
    index_summaries(path)
    doc = json.loads(warmcache.cache_file().read_bytes())
    row = doc["files"][str(path)]
    row[9][0][0] ^= 1  # another facts hash
    signed_as_this_host(doc)  # past the keyed checksum: the facts check still holds
    read = summary_read(path)
    assert read.warm == "same"
    assert main_items(read) == [("Read the code", "in_progress")]


def test_a_summary_that_is_not_counts_and_places_is_ignored(tmp_path: Path) -> None:
    path = claude_file(tmp_path, [("Read the code", "in_progress")])
    index_summaries(path)
    doc = json.loads(warmcache.cache_file().read_bytes())
    doc["files"][str(path)][9][0][1][0][3] = ["Read the code"]  # text where a status goes
    signed_as_this_host(doc)  # past the keyed checksum: the summary's own check still holds
    entry = WarmCache.load().get(path, "claude")
    assert entry is not None and entry.summary is None
    assert main_items(summary_read(path)) == [("Read the code", "in_progress")]


def test_remembered_lines_that_lie_close_together_are_reread_in_one_call(tmp_path: Path) -> None:
    """A replay reads a run of nearby lines with one pread (gaps up to COALESCE_GAP, runs
    up to COALESCE_SPAN), a far line on its own; and the file's real lines, re-read that
    way and checked against their hashes, give the cold read's session."""
    gap = warmcache.COALESCE_GAP
    ops = [FACT, 0, 100, 0, WHEN, 150, 40, 0, GAP, 0, 0, 0, FACT, 190 + gap, 10, 0, WHEN, 10 * gap, 30, 0]
    wanted = list(range(0, len(ops), 4))
    assert warmcache._spans(ops, wanted) == {0: (0, 200 + gap)}
    far = [FACT, 0, 100, 0, FACT, warmcache.COALESCE_SPAN, 10, 0]
    assert warmcache._spans(far, [0, 4]) == {}
    path = claude_file(tmp_path, [("Read the code", "in_progress"), ("Write tests", "pending")])
    first = cold(path)
    index_summaries(path)
    again = summary_read(path)
    assert again.warm == "same" and counts_of(again) == counts_of(first)
    assert again.results[0].facts == first.results[0].facts


def test_an_unchanged_file_needing_only_counts_is_one_read_at_its_head(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Its last activity comes from the summary (a number): the last record, read cold
    for its time, is not read again, and the fact lines at its head take one pread;
    the facts are the cold read's, time included."""
    path = claude_file(tmp_path, [("Read the code", "in_progress"), ("Write tests", "pending")])
    first = cold(path)
    index_summaries(path)
    entry = WarmCache.load().get(path, "claude")
    assert entry is not None and entry.summary is not None
    [[_digest, _groups, when]] = entry.summary
    assert when == warmsummary.when_number(first.results[0].facts.last_timestamp) and type(when) is int
    timed = [entry.ops[i + 1] for i in range(0, len(entry.ops), 4) if entry.ops[i] in (TOUCH, WHEN)]
    reads: list[tuple[int, int]] = []
    real_pread = os.pread

    def pread(fd: int, length: int, offset: int) -> bytes:
        reads.append((offset, length))
        return real_pread(fd, length, offset)

    monkeypatch.setattr(os, "pread", pread)
    again = summary_read(path)
    monkeypatch.undo()
    assert again.warm == "same" and counts_of(again) == counts_of(first)
    assert all(i.text == "" for r in again.results for g in r.plan.groups for i in g.items)  # from the summary
    assert len(reads) == 1 and reads[0][0] == 0
    assert max(timed) >= reads[0][0] + reads[0][1], "the last record is not read again"


def test_a_summary_read_back_from_the_cache_is_the_one_written_in_its_typed_form(tmp_path: Path) -> None:
    """The cache holds a summary as JSON arrays; read back (checked, or as a worker
    checked it) it is the summary `summarize` made, with its typed shape (a tuple per
    result and per group), and one of another shape is not trusted."""
    path = claude_file(tmp_path, [("Read the code", "in_progress"), ("Write tests", "pending")])
    written = warmsummary.summarize(cold(path).results)
    as_json = json.loads(json.dumps(written))
    assert as_json != written  # arrays come back as lists
    assert warmsummary.checked_summary(as_json) == written
    assert warmsummary.summary_of_checked(as_json) == written
    [[digest, groups, when]] = as_json
    assert warmsummary.checked_summary([[digest, [[*groups[0], 0]], when]]) is None  # a group of five
    assert warmsummary.checked_summary([[digest, groups, "yesterday"]]) is None


def test_a_first_scan_checks_each_remembered_entry_only_when_it_reads_its_file(tmp_path: Path) -> None:
    """The newest files' entries are checked as they are read, not all before the first:
    after the first chunk of a warm scan only that chunk's entries were looked at, and
    the whole scan gives every file warm, as when each entry was checked up front."""
    from planwatch.core.transcripts import batch
    from planwatch.core.transcripts.discover import discover

    folder = tmp_path / "claude" / "projects" / "-home-dev-app"
    folder.mkdir(parents=True)
    for n in range(batch.CHUNK_FILES * 3):
        sid = f"0b7a3c1e-1111-4222-8333-{n:012d}"
        with (folder / f"{sid}.jsonl").open("wb") as fh:
            w = ClaudeWriter(fh, sid, "/home/dev/app", seed=n)
            w.prompt(f"Fix loader {n}")
            w.todo_write([("Read the code", "in_progress")])
    index_summaries(tmp_path / "claude" / "projects")
    files = discover([tmp_path / "claude" / "projects"])
    remembered = warmcache.Remembered(WarmCache.load(), {f.path: f.harness for f in files})
    assert len(remembered) == len(files)
    reads = batch.read_all(files, True, workers=0, remembered=remembered)
    first = next(reads)
    assert len(remembered._checked) == len(first) <= batch.CHUNK_FILES
    rest = [read for chunk in reads for read in chunk]
    assert all(read.warm == "same" for read in [*first, *rest]) and len(first) + len(rest) == len(files)


def test_many_remembered_files_needing_only_counts_are_shared_with_a_forked_worker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A start that shows facts and counts hands part of its remembered files to forked
    workers (from the oldest end), which answer with each file's facts; what the index
    is given is what reading every file in this thread gives: the same facts, counts,
    resume offsets and identities, every file warm. Fixtures of every line-read
    harness are among them."""
    from planwatch.core.transcripts import batch
    from planwatch.core.transcripts.discover import discover

    folder = tmp_path / "claude" / "projects" / "-home-dev-app"
    folder.mkdir(parents=True)
    for n in range(batch.CHUNK_FILES * 4):
        sid = f"0b7a3c1e-1111-4222-8333-{n:012d}"
        with (folder / f"{sid}.jsonl").open("wb") as fh:
            w = ClaudeWriter(fh, sid, f"/home/dev/app{n % 3}", seed=n)
            w.prompt(f"Fix loader {n}")
            w.todo_write([("Read the code", "completed"), ("Write tests", "in_progress" if n % 2 else "pending")])
    roots = [tmp_path / "claude" / "projects", FIXTURES / "transcripts"]
    SessionIndex(roots).scan()
    files = [f for f in discover(roots) if f.path != CUT_TREE]

    def reads(parallel_from: int) -> list[FileRead]:
        monkeypatch.setattr(batch, "WARM_PARALLEL_MIN", parallel_from)
        remembered = warmcache.Remembered(WarmCache.load(), {f.path: f.harness for f in files})
        return [read for chunk in batch.read_all(files, True, remembered=remembered, summaries=True) for read in chunk]

    def shown(read: FileRead) -> tuple[object, ...]:
        trace = read.trace  # none for what is read whole every time (Gemini CLI's documents)
        kept = None if trace is None else (trace.ident, trace.ops, trace.offset)
        return (str(read.item.path), read.warm, repr(counts_of(read)), read.offset, kept)

    here = sorted(map(shown, reads(parallel_from=10**9)))
    shared = reads(parallel_from=1)
    by_worker = [read for read in shared if read.reader is None]  # taken from a worker's answer
    assert by_worker, "no file was replayed by a worker"
    assert sorted(map(shown, shared)) == here
    assert all(read.warm == "same" for read in by_worker)


def test_a_small_cache_and_a_large_one_read_the_same_by_either_decoder(isolated_env, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The cache is decoded by the standard library when small and msgspec is not loaded,
    by msgspec otherwise: the entries are the same values either way."""
    sessions_json(isolated_env, count=5)
    assert run_cli("sessions", "--json").returncode == 0
    raw = warmcache.cache_file().read_bytes()
    monkeypatch.setattr(signed, "SMALL_CACHE_BYTES", 0)
    by_msgspec = WarmCache.load()._raw
    monkeypatch.setattr(signed, "SMALL_CACHE_BYTES", len(raw))
    monkeypatch.delitem(sys.modules, "msgspec")
    by_json = WarmCache.load()._raw
    assert len(by_json) == 5 and by_json == by_msgspec
    assert json.dumps(by_json) == json.dumps(by_msgspec)
