"""The incremental follower (docs/reading.md, Live): real watchdog, real files in tmp_path."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from line_reads import every_line

from planwatch.core.transcripts import follow as follow_module
from planwatch.core.transcripts.follow import Follower

# watchdog's inotify warns when `mkdir -p` races its own recursive watch; harmless.
pytestmark = pytest.mark.filterwarnings("ignore:Callback with id:RuntimeWarning")

DEADLINE = 60.0  # seconds; generous for a loaded 2-core machine, never slept through


@dataclass
class Recorder:
    """A consumer that reads appended lines like the index does, and records them."""

    lines: dict[Path, list[dict[str, object]]] = field(default_factory=dict)
    calls: list[tuple[Path, int, bool]] = field(default_factory=list)
    removed: list[Path] = field(default_factory=list)
    changed: threading.Condition = field(default_factory=threading.Condition)

    def consume(self, path: Path, start: int, reset: bool) -> int:
        found, offset = every_line(path, start)
        with self.changed:
            self.calls.append((path, start, reset))
            if reset:
                self.lines[path] = []
            self.lines.setdefault(path, []).extend(json.loads(line) for _, line in found)
            self.changed.notify_all()
        return offset

    def on_removed(self, path: Path) -> None:
        with self.changed:
            self.removed.append(path)
            self.changed.notify_all()

    def wait_for(self, predicate) -> None:  # type: ignore[no-untyped-def]
        with self.changed:
            assert self.changed.wait_for(predicate, timeout=DEADLINE), "the follower did not report in time"

    def texts(self, path: Path) -> list[object]:
        with self.changed:
            return [row.get("t") for row in self.lines.get(path, [])]


def _line(text: str) -> bytes:
    return json.dumps({"t": text}).encode() + b"\n"


@pytest.fixture(params=["native", "polling"])
def follow(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Follower, Recorder, Path]]:
    root = tmp_path / "root"
    root.mkdir()
    recorder = Recorder()
    follower = Follower(
        [root],
        recorder.consume,
        on_removed=recorder.on_removed,
        polling=request.param == "polling",
        poll_interval=0.1,
    )
    follower.start()
    assert follower.observer_kind == request.param
    try:
        yield follower, recorder, root
    finally:
        follower.stop()


def test_appended_lines_are_read_incrementally(follow: tuple[Follower, Recorder, Path]) -> None:
    follower, recorder, root = follow
    path = root / "s.jsonl"
    path.write_bytes(_line("one"))
    recorder.wait_for(lambda: recorder.texts(path) == ["one"])
    with path.open("ab") as fh:
        fh.write(_line("two") + _line("three"))
    recorder.wait_for(lambda: recorder.texts(path) == ["one", "two", "three"])
    # Only appended bytes were read: the second read began where the first ended.
    starts = [start for p, start, reset in recorder.calls if p == path and not reset]
    assert starts and starts[-1] == len(_line("one"))
    assert follower.offset(path) == path.stat().st_size


def test_a_partial_last_line_waits_for_its_newline(follow: tuple[Follower, Recorder, Path]) -> None:
    follower, recorder, root = follow
    path = root / "s.jsonl"
    whole = _line("half written")
    path.write_bytes(_line("first") + whole[:7])
    recorder.wait_for(lambda: recorder.texts(path) == ["first"])
    assert follower.offset(path) == len(_line("first"))
    with path.open("ab") as fh:
        fh.write(whole[7:])
    recorder.wait_for(lambda: recorder.texts(path) == ["first", "half written"])


def test_a_truncated_file_is_read_again_from_scratch(follow: tuple[Follower, Recorder, Path]) -> None:
    _, recorder, root = follow
    path = root / "s.jsonl"
    path.write_bytes(_line("old one") + _line("old two"))
    recorder.wait_for(lambda: recorder.texts(path) == ["old one", "old two"])
    with path.open("r+b") as fh:
        fh.truncate(0)
        fh.write(_line("new"))
    recorder.wait_for(lambda: recorder.texts(path) == ["new"])
    assert any(reset for p, _, reset in recorder.calls[1:] if p == path)


def test_a_replaced_file_is_read_again_from_scratch(follow: tuple[Follower, Recorder, Path]) -> None:
    _, recorder, root = follow
    path = root / "s.jsonl"
    path.write_bytes(_line("a") + _line("b"))
    recorder.wait_for(lambda: recorder.texts(path) == ["a", "b"])
    # Same size or longer, other inode: an offset check alone would miss it.
    tmp = root / "s.jsonl.tmp"
    tmp.write_bytes(_line("c") + _line("d") + _line("e"))
    os.replace(tmp, path)
    recorder.wait_for(lambda: recorder.texts(path) == ["c", "d", "e"])


@pytest.mark.parametrize("longer", [True, False])
def test_a_file_rewritten_in_place_is_read_again_from_scratch(
    follow: tuple[Follower, Recorder, Path], longer: bool
) -> None:
    """Rewritten in place (`cat new > file`: the same inode, the truncate and the write
    one burst), to a longer content or one of the same length: the bytes before the
    offset are no longer the ones read (the follower's mark of them), so it is read from
    scratch, never taken for an append read from the middle of a line."""
    _, recorder, root = follow
    path = root / "s.jsonl"
    path.write_bytes(_line("old one") + _line("old two"))
    recorder.wait_for(lambda: recorder.texts(path) == ["old one", "old two"])
    ino = path.stat().st_ino
    new = _line("new one") + _line("new two") + (_line("and a third, longer") if longer else b"")
    with path.open("r+b") as fh:
        fh.write(new)
        fh.truncate()
    assert path.stat().st_ino == ino and (len(new) == 2 * len(_line("old one"))) != longer
    expected = ["new one", "new two", *(["and a third, longer"] if longer else [])]
    recorder.wait_for(lambda: recorder.texts(path) == expected)
    assert recorder.calls[-1][1:] == (0, True)
    with path.open("ab") as fh:  # and followed on from there as ever
        fh.write(_line("appended"))
    recorder.wait_for(lambda: recorder.texts(path) == [*expected, "appended"])


def test_a_file_moved_out_of_the_roots_is_gone_not_followed_there(
    follow: tuple[Follower, Recorder, Path], tmp_path: Path
) -> None:
    follower, recorder, root = follow
    path = root / "s.jsonl"
    path.write_bytes(_line("one"))
    recorder.wait_for(lambda: recorder.texts(path) == ["one"])
    outside = tmp_path / "elsewhere.jsonl"
    os.rename(path, outside)
    recorder.wait_for(lambda: path in recorder.removed)
    with outside.open("ab") as fh:
        fh.write(_line("two"))
    inside = root / "t.jsonl"  # a file moved within the roots is followed where it went
    inside.write_bytes(_line("three"))
    recorder.wait_for(lambda: recorder.texts(inside) == ["three"])
    moved = root / "u.jsonl"
    os.rename(inside, moved)
    recorder.wait_for(lambda: recorder.texts(moved) == ["three"])
    assert outside not in recorder.lines and follower.offset(outside) is None


def test_a_new_file_in_a_new_folder_appears(follow: tuple[Follower, Recorder, Path]) -> None:
    _, recorder, root = follow
    day = root / "2026" / "11" / "30"
    day.mkdir(parents=True)
    path = day / "rollout-x.jsonl"
    path.write_bytes(_line("fresh"))
    recorder.wait_for(lambda: recorder.texts(path) == ["fresh"])
    assert (path, 0, True) in recorder.calls


def test_a_removed_file_is_reported(follow: tuple[Follower, Recorder, Path]) -> None:
    follower, recorder, root = follow
    path = root / "gone.jsonl"
    path.write_bytes(_line("x"))
    recorder.wait_for(lambda: recorder.texts(path) == ["x"])
    path.unlink()
    recorder.wait_for(lambda: path in recorder.removed)
    assert follower.offset(path) is None


def test_other_files_are_ignored(follow: tuple[Follower, Recorder, Path]) -> None:
    _, recorder, root = follow
    (root / "agent-1.meta.json").write_text("{}")
    marker = root / "marker.jsonl"
    marker.write_bytes(_line("m"))
    recorder.wait_for(lambda: recorder.texts(marker) == ["m"])
    assert all(p.name.endswith(".jsonl") for p, _, _ in recorder.calls)


def test_a_burst_of_writes_is_coalesced(tmp_path: Path) -> None:
    recorder = Recorder()
    batches: list[list[Path]] = []
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"")
    follower = Follower([tmp_path], recorder.consume, after_batch=batches.append, debounce=0.2)
    follower.track(path, 0)
    follower.start()
    try:
        with path.open("ab") as fh:
            for n in range(100):
                fh.write(_line(f"line {n}"))
                fh.flush()
        recorder.wait_for(lambda: len(recorder.texts(path)) == 100)
    finally:
        follower.stop()
    assert recorder.texts(path) == [f"line {n}" for n in range(100)]
    assert len(recorder.calls) < 10  # 100 writes, a handful of reads
    assert batches and all(b == [path] for b in batches)


def test_changes_made_before_start_are_caught_up(tmp_path: Path) -> None:
    recorder = Recorder()
    path = tmp_path / "s.jsonl"
    path.write_bytes(_line("seen"))
    follower = Follower([tmp_path], recorder.consume)
    follower.track(path, path.stat().st_size)
    with path.open("ab") as fh:
        fh.write(_line("written before start"))
    follower.start()
    try:
        recorder.wait_for(lambda: recorder.texts(path) == ["written before start"])
    finally:
        follower.stop()


def test_an_append_during_the_first_look_at_many_files_is_read_before_the_rest_are_looked_at(
    tmp_path: Path,
) -> None:
    """A first scan hands the follower thousands of files, each looked at once when it
    starts (a change made while they were read). That look goes a slice at a time after
    the files events named: an append an agent makes meanwhile is read after the slice
    being looked at, not after every other file (a second, at 10,000 files)."""
    recorder = Recorder()
    files = [tmp_path / f"s{n:04d}.jsonl" for n in range(3 * follow_module.LOOK_SLICE)]
    live = tmp_path / "zz-live.jsonl"  # looked at last
    follower = Follower([tmp_path], lambda path, start, reset: consume(path, start, reset))
    for path in [*files, live]:
        path.write_bytes(_line("seen"))
        follower.track(path, path.stat().st_size)
        with path.open("ab") as fh:
            fh.write(_line("written while it was read"))  # every first look reads
    named = threading.Event()
    real_poke = follower.poke

    def poke(paths):  # type: ignore[no-untyped-def]
        paths = list(paths)
        real_poke(paths)
        if live in paths:
            named.set()

    follower.poke = poke  # type: ignore[method-assign]
    order: list[Path] = []

    def consume(path: Path, start: int, reset: bool) -> int:
        if not order:  # the first look's first file: the agent appends now
            with live.open("ab") as fh:
                fh.write(_line("the agent's append"))
            assert named.wait(DEADLINE), "no event named the append"
        order.append(path)
        return recorder.consume(path, start, reset)

    follower.start()
    try:
        recorder.wait_for(lambda: "the agent's append" in recorder.texts(live))
        assert order.index(live) <= follow_module.LOOK_SLICE  # after the first slice, not the rest
        recorder.wait_for(lambda: all(recorder.texts(path) == ["written while it was read"] for path in files))
    finally:
        follower.stop()


def _read_as_the_scan_does(tmp_path: Path) -> tuple[Path, int, object, int | None]:
    """A Claude Code transcript read from scratch as the index's scan reads it: its path,
    the offset read to, the file as the read found it and its mark from the bytes read."""
    from app_transcripts import ClaudeTranscript

    from planwatch.core.transcripts.batch import read_file
    from planwatch.core.transcripts.discover import classify

    session = ClaudeTranscript(tmp_path, "/home/dev/api")
    session.prompt("Add rate limiting").todo_write([("Read the code", "in_progress")])
    item = classify(session.path)
    assert item is not None
    read = read_file(item, True)
    assert read.trace is not None and read.mark is not None
    return session.path, read.offset, read.trace.ident, read.mark


def test_the_first_look_at_a_file_as_its_read_found_it_opens_nothing(tmp_path: Path) -> None:
    """A file tracked with the identity its read found and the mark of the bytes it read
    is looked at with a `stat` alone when following starts: the first look at 10,000
    files the scan read costs their `stat` calls, not an open and two reads each."""
    from file_opens import opens_in

    path, offset, seen, mark = _read_as_the_scan_does(tmp_path)
    recorder = Recorder()
    follower = Follower([tmp_path], recorder.consume)
    follower.track(path, offset, seen, mark)  # type: ignore[arg-type]
    with opens_in([path.parent]) as opens:
        follower.start()
        try:
            assert follower.looked.wait(DEADLINE)
            assert opens.seen() == []
            assert recorder.calls == []
            with path.open("ab") as fh:  # and it is followed from there
                fh.write(_line("appended"))
            recorder.wait_for(lambda: recorder.texts(path) == ["appended"])
            assert recorder.calls == [(path, offset, False)]
        finally:
            follower.stop()


def test_a_file_rewritten_in_place_after_its_read_is_read_again_from_scratch_at_the_first_look(
    tmp_path: Path,
) -> None:
    """Rewritten in place between the scan's read and following (the same inode and size,
    other bytes): the first look compares the file with the bytes the read took its mark
    from, and reads it again from scratch (a mark taken at that look would have been of
    the new bytes, and the change never seen)."""
    path, offset, seen, mark = _read_as_the_scan_does(tmp_path)
    data = path.read_bytes()
    assert b"Read the code" in data
    with path.open("r+b") as fh:  # same inode, same size
        fh.write(data.replace(b"Read the code", b"Ship it now!!"))
    assert path.stat().st_size == len(data)
    # Its modification time moved, as a rewrite moves it (set, not left to the clock's
    # tick: a rewrite within the tick of the read keeps it, and is not told, as before).
    os.utime(path, ns=(seen[3], seen[3] + 1_000_000_000))  # type: ignore[index]
    recorder = Recorder()
    follower = Follower([tmp_path], recorder.consume)
    follower.track(path, offset, seen, mark)  # type: ignore[arg-type]
    follower.start()
    try:
        recorder.wait_for(lambda: any(call[0] == path for call in recorder.calls))
        assert recorder.calls[0] == (path, 0, True)
    finally:
        follower.stop()


def test_bytes_appended_between_the_first_read_and_track_are_read(tmp_path: Path) -> None:
    """The index reads a file, then (later) hands its offset to the follower: whatever
    was appended in between must still be read once following starts."""
    recorder = Recorder()
    path = tmp_path / "s.jsonl"
    path.write_bytes(_line("seen"))
    offset = path.stat().st_size  # what the first read reached
    with path.open("ab") as fh:
        fh.write(_line("appended before track"))
    follower = Follower([tmp_path], recorder.consume)
    follower.track(path, offset)
    follower.start()
    try:
        recorder.wait_for(lambda: recorder.texts(path) == ["appended before track"])
    finally:
        follower.stop()


def test_stop_joins_every_thread(tmp_path: Path) -> None:
    before = set(threading.enumerate())
    follower = Follower([tmp_path], Recorder().consume)
    follower.start()
    follower.stop()
    assert set(threading.enumerate()) <= before


def test_a_failing_consumer_does_not_kill_the_follower(tmp_path: Path) -> None:
    recorder = Recorder()

    def consume(path: Path, start: int, reset: bool) -> int:
        if path.name == "bad.jsonl":
            raise RuntimeError("reader bug")
        return recorder.consume(path, start, reset)

    follower = Follower([tmp_path], consume)
    follower.start()
    try:
        (tmp_path / "bad.jsonl").write_bytes(_line("boom"))
        good = tmp_path / "good.jsonl"
        good.write_bytes(_line("fine"))
        recorder.wait_for(lambda: recorder.texts(good) == ["fine"])
    finally:
        follower.stop()


def test_a_root_created_after_start_is_watched_once_it_appears(tmp_path: Path) -> None:
    recorder = Recorder()
    root = tmp_path / "codex" / "sessions"
    follower = Follower([root], recorder.consume)
    follower.root_check = 0.05
    follower.start()
    try:
        day = root / "2026" / "11" / "30"
        day.mkdir(parents=True)
        early = day / "rollout-early.jsonl"
        early.write_bytes(_line("written as the folder appeared"))
        recorder.wait_for(lambda: recorder.texts(early) == ["written as the folder appeared"])
        later = day / "rollout-later.jsonl"
        later.write_bytes(_line("watched now"))
        recorder.wait_for(lambda: recorder.texts(later) == ["watched now"])
    finally:
        follower.stop()


def test_a_database_read_while_it_was_changing_is_read_again_once_still(tmp_path: Path) -> None:
    """SQLite shows a commit to readers only once its writer has updated the WAL index,
    which no file event announces: a read that came while the database was still being
    written may have seen the commit before. Such a file is read once more, without any
    event, when it has been still for `settle` seconds; an appended transcript is read
    once per write."""
    import time

    root = tmp_path / "root"
    root.mkdir()
    ages: dict[str, list[float]] = {}
    changed = threading.Condition()

    def consume(path: Path, start: int, reset: bool) -> int:
        with changed:
            ages.setdefault(path.suffix, []).append(time.time() - path.stat().st_mtime)
            changed.notify_all()
        return path.stat().st_size

    def reads(suffix: str, count: int) -> None:
        with changed:
            assert changed.wait_for(lambda: len(ages.get(suffix, [])) >= count, timeout=DEADLINE), (suffix, ages)

    follower = Follower(
        [root], consume, accept=lambda path: path.suffix in (".db", ".jsonl"), rewritten=lambda p: p.suffix == ".db"
    )
    # Longer than the product's, so that even on a busy machine the event's read comes
    # within it (the file still "changing"), and the test can say what must follow.
    follower.settle = 2.0
    follower.start()
    try:
        database = root / "opencode.db"
        database.write_bytes(b"SQLite format 3\x00" + b"\x00" * 100)
        reads(".db", 2)  # the event's read, then the one once still
        first, again = ages[".db"][:2]
        assert first < follower.settle <= again
        transcript = root / "s.jsonl"
        transcript.write_bytes(_line("one"))
        reads(".jsonl", 1)
        with database.open("ab") as fh:
            fh.write(b"\x00")
        reads(".db", 3)  # a later event, read after the transcript's
        assert len(ages[".jsonl"]) == 1  # read once: appends have an offset, nothing to settle
    finally:
        follower.stop()
