"""Bounded JSONL reading (docs/reading.md, Bounded reading)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import zstandard
from line_reads import every_line, everything

from planwatch.core.transcripts.lines import read_transcript
from planwatch.core.transcripts.linescan import LineScan, Prefilter
from planwatch.core.transcripts.reader import SessionResult, TranscriptReader
from planwatch.core.transcripts.registry import reader_for

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("bench_corpus", ROOT / "tests" / "bench" / "corpus.py")
assert _spec and _spec.loader
corpus = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(corpus)

# Small windows so "large file" behaviour shows on a few MB.
SMALL = {"head": 64 << 10, "tail": 128 << 10, "chunk": 32 << 10}


class NeedleReader(TranscriptReader):
    """The contract's default prefilter: lines holding b"PLAN" pass."""

    harness = "acp"
    needles = (b"PLAN",)

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.fed: list[int] = []

    def feed_line(self, line: bytes) -> None:
        record = self._load(line)
        if record is not None:
            self.fed.append(record["i"])

    def is_full_list(self, line: bytes) -> bool:
        return b'"full"' in line

    def results(self) -> list[SessionResult]:
        return []


class StatefulReader(NeedleReader):
    """A reader that extends `wants` (as readers holding pending call ids do)."""

    def wants(self, line: bytes) -> bool:
        return b"PLAN" in line or b"RESULT" in line


def _numbered(path: Path, rows: list[dict[str, object]], tail: bytes = b"") -> None:
    with path.open("wb") as fh:
        for i, row in enumerate(rows):
            fh.write(json.dumps({"i": i, **row}).encode() + b"\n")
        fh.write(tail)


def _codex(path: Path, build) -> Path:  # type: ignore[no-untyped-def]
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as fh:
        writer = corpus.CodexWriter(fh, seed=7)
        writer.meta("0199aa00-0000-7000-8000-000000000001", "/home/dev/api")
        writer.prompt("Add a migration")
        build(writer)
    return path


def _items(reader: TranscriptReader) -> list[tuple[str, str]]:
    [result] = reader.results()
    main = result.plan.main
    return [] if main is None else [(i.text, i.status) for i in main.items]


def test_prefilter_hands_on_exactly_the_lines_holding_a_needle_in_order(tmp_path: Path) -> None:
    rows: list[dict[str, object]] = []
    for i in range(5000):
        if i % 37 == 0:
            rows.append({"k": "PLAN"})
        elif i % 53 == 0:
            rows.append({"k": "RESULT"})
        else:
            rows.append({"pad": "x" * (i % 400)})
    path = tmp_path / "t.jsonl"
    _numbered(path, rows)
    plan_rows = [i for i, r in enumerate(rows) if r.get("k") == "PLAN"]
    both = [i for i, r in enumerate(rows) if "k" in r]

    fast = NeedleReader(path)
    read_transcript(fast, path, chunk=4096)
    assert fast.fed == plan_rows
    own = StatefulReader(path)
    read_transcript(own, path, chunk=4096)
    assert own.fed == both


def test_last_line_without_newline_is_not_read_until_it_arrives(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    _numbered(path, [{"k": "PLAN"}, {"k": "PLAN"}], tail=b'{"i": 2, "k": "PL')
    complete = len(path.read_bytes()) - len(b'{"i": 2, "k": "PL')
    lines, offset = every_line(path)
    assert [json.loads(line)["i"] for _, line in lines] == [0, 1]
    assert offset == complete
    with path.open("ab") as fh:
        fh.write(b'AN"}\n')
    lines, offset = every_line(path, offset)
    assert [json.loads(line) for _, line in lines] == [{"i": 2, "k": "PLAN"}]
    assert offset == path.stat().st_size


def test_a_partial_line_longer_than_a_chunk_waits_at_its_start(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    _numbered(path, [{"k": "PLAN"}], tail=b'{"i": 1, "pad": "' + b"y" * 100_000)
    first = len(json.dumps({"i": 0, "k": "PLAN"})) + 1
    scan = LineScan(path.open("rb"), 0, everything(), reread=lambda o, n: b"", chunk=4096)
    assert [json.loads(line)["i"] for _, line in scan] == [0]
    assert scan.offset == first


_MEMORY_PROBE = textwrap.dedent(
    """
    import json, sys, tracemalloc
    from pathlib import Path
    from planwatch.core.transcripts.reader import SessionResult, TranscriptReader
    from planwatch.core.transcripts.lines import read_transcript

    class R(TranscriptReader):
        harness = "acp"
        needles = (b"PLAN",)
        def __init__(self, path):
            super().__init__(path)
            self.sizes = []
        def feed_line(self, line):
            self.sizes.append(len(line))
        def is_full_list(self, line):
            return False
        def results(self):
            return []

    def hwm_kb():
        # Peak RSS of this process image (ru_maxrss would include the forking parent's).
        for line in open("/proc/self/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
        return 0

    path = Path(sys.argv[1])
    tracemalloc.start()
    reader = R(path)
    outcome = read_transcript(reader, path, head=1 << 40)
    peak = tracemalloc.get_traced_memory()[1]
    print(json.dumps({"peak": peak, "sizes": reader.sizes, "offset": outcome.offset,
                      "hwm_kb": hwm_kb()}))
    """
)


def _big_file_with_long_line(path: Path, *, long_matches: bool) -> int:
    """About 200 MB: 80k ordinary lines (73 MB), one 60 MB line, 73 MB more, plan lines
    spread through; returns the long line's length."""
    block = b"".join(json.dumps({"pad": "z" * 900}).encode() + b"\n" for _ in range(1000))
    plan = b'{"k": "PLAN", "n": 1}\n'
    long_len = 60 << 20
    with path.open("wb") as fh:
        for _ in range(80):
            fh.write(block)
        fh.write(plan)
        inner = b"q" * (long_len // 2)
        needle = b"PLAN" if long_matches else b"nope"
        fh.write(b'{"blob": "' + inner + needle + inner + b'"}\n')
        for _ in range(80):
            fh.write(block)
        fh.write(plan)
    return long_len


def test_a_60mb_line_that_does_not_match_is_never_held(tmp_path: Path) -> None:
    path = tmp_path / "long.jsonl"
    _big_file_with_long_line(path, long_matches=False)
    assert path.stat().st_size > 200_000_000
    out = subprocess.run(
        [sys.executable, "-c", _MEMORY_PROBE, str(path)], cwd=ROOT, capture_output=True, text=True, check=True
    )
    report = json.loads(out.stdout)
    assert report["sizes"] == [21, 21]  # both plan lines, nothing else
    assert report["offset"] == path.stat().st_size
    # Bound: about 3 chunks (1 MB each) of Python memory, never the 60 MB line.
    assert report["peak"] < 8 << 20, report["peak"]
    assert report["hwm_kb"] < 100 * 1024, report["hwm_kb"]


def test_a_60mb_line_that_matches_is_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "long.jsonl"
    long_len = _big_file_with_long_line(path, long_matches=True)
    out = subprocess.run(
        [sys.executable, "-c", _MEMORY_PROBE, str(path)], cwd=ROOT, capture_output=True, text=True, check=True
    )
    report = json.loads(out.stdout)
    assert report["sizes"][0] == 21 and report["sizes"][2] == 21
    assert report["sizes"][1] > long_len  # the whole line, needle and all
    assert report["peak"] >= long_len  # a match costs its own length, documented


def test_a_matching_line_over_the_line_bound_is_skipped_and_counted(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    _numbered(path, [{"k": "PLAN"}, {"k": "PLAN", "blob": "b" * 50_000}, {"k": "PLAN"}])
    reader = NeedleReader(path)
    outcome = read_transcript(reader, path, chunk=4096, max_line=20_000)
    assert reader.fed == [0, 2]
    assert outcome.long_lines_skipped == 1


def test_head_and_tail_windows_skip_the_middle_of_a_large_file(tmp_path: Path) -> None:
    def build(w) -> None:  # type: ignore[no-untyped-def]
        w.update_plan([("Head step", "in_progress")])
        for _ in range(300):
            w.filler(2000)
        w.update_plan([("Head step", "completed"), ("Tail step", "in_progress")])
        w.filler(500)

    path = _codex(tmp_path / "rollout-a.jsonl", build)
    reader = reader_for("codex")(path)
    outcome = read_transcript(reader, path, **SMALL)
    assert outcome.skipped_middle and outcome.backward_scanned == 0
    assert not outcome.partial and outcome.offset == path.stat().st_size
    assert _items(reader) == [("Head step", "completed"), ("Tail step", "in_progress")]
    [result] = reader.results()
    assert result.facts.id == "0199aa00-0000-7000-8000-000000000001"
    assert not result.plan.main.partial  # type: ignore[union-attr]


def test_backward_scan_stops_at_the_latest_full_list_and_replays_from_it(tmp_path: Path) -> None:
    def build(w) -> None:  # type: ignore[no-untyped-def]
        w.update_plan([("First", "in_progress")])
        for _ in range(200):
            w.filler(2000)
        w.update_plan([("Older middle", "in_progress")])
        for _ in range(20):
            w.filler(2000)
        w.update_plan([("Latest middle", "completed"), ("Next", "in_progress")])
        for _ in range(120):  # a tail without any full list
            w.filler(2000)

    path = _codex(tmp_path / "rollout-b.jsonl", build)
    reader = reader_for("codex")(path)
    outcome = read_transcript(reader, path, bound=1 << 20, **SMALL)
    assert outcome.skipped_middle and outcome.found_full_list and not outcome.partial
    # It stopped at the latest list: far less than the bound was scanned.
    assert 64 << 10 < outcome.backward_scanned < 300 << 10
    assert _items(reader) == [("Latest middle", "completed"), ("Next", "in_progress")]
    assert reader.results()[0].plan.main.partial is False  # type: ignore[union-attr]


def test_backward_scan_of_two_full_lists_in_one_chunk_stops_at_the_later_and_scans_exactly_to_it(
    tmp_path: Path,
) -> None:
    # Both lists lie in the same 32 KB chunk: the scan must take the later one, and the
    # bytes it reports are exactly those from that list to the tail window.
    def build(w) -> None:  # type: ignore[no-untyped-def]
        w.update_plan([("First", "in_progress")])
        for _ in range(200):
            w.filler(2000)
        w.update_plan([("Earlier in the chunk", "in_progress")])
        w.filler(1000)
        w.update_plan([("Later in the chunk", "completed"), ("Next", "in_progress")])
        for _ in range(120):  # a tail without any full list
            w.filler(2000)

    path = _codex(tmp_path / "rollout-c.jsonl", build)
    data = path.read_bytes()
    earlier = data.rfind(b"\n", 0, data.find(b"Earlier in the chunk")) + 1
    later = data.rfind(b"\n", 0, data.find(b"Later in the chunk")) + 1
    assert 0 < later - earlier < SMALL["chunk"] // 2, "both lists in one chunk"
    tail_start = data.find(b"\n", len(data) - SMALL["tail"] - 1) + 1
    reader = reader_for("codex")(path)
    outcome = read_transcript(reader, path, bound=1 << 20, **SMALL)
    assert outcome.skipped_middle and outcome.found_full_list and not outcome.partial
    assert outcome.backward_scanned == tail_start - later
    assert _items(reader) == [("Later in the chunk", "completed"), ("Next", "in_progress")]


def test_backward_scan_in_a_claude_transcript_confirms_todowrite_by_its_result(tmp_path: Path) -> None:
    path = tmp_path / "s1.jsonl"
    with path.open("wb") as fh:
        w = corpus.ClaudeWriter(fh, "s1", "/home/dev/api", seed=3)
        w.prompt("Ship the loader")
        for _ in range(200):
            w.filler(2000)
        w.todo_write([("Read the code", "completed"), ("Fix the bug", "in_progress")])
        for _ in range(120):
            w.filler(2000)
    reader = reader_for("claude")(path)
    outcome = read_transcript(reader, path, bound=1 << 20, **SMALL)
    assert outcome.found_full_list
    assert _items(reader) == [("Read the code", "completed"), ("Fix the bug", "in_progress")]


def test_without_a_full_list_the_tasks_within_the_bound_are_replayed_and_marked_partial(tmp_path: Path) -> None:
    path = tmp_path / "s2.jsonl"
    with path.open("wb") as fh:
        w = corpus.ClaudeWriter(fh, "s2", "/home/dev/api", seed=4)
        w.prompt("Plan with tasks")
        for _ in range(100):
            w.filler(2000)
        w.task_create("1", "Early task")  # beyond the bound: cannot be rebuilt
        for _ in range(600):
            w.filler(2000)
        w.task_create("2", "Late task")
        w.task_update("2", "in_progress")
        w.task_update("1", "completed")  # for a task never seen created: ignored
        for _ in range(100):
            w.filler(2000)

    bounded = reader_for("claude")(path)
    outcome = read_transcript(bounded, path, bound=512 << 10, **SMALL)
    assert outcome.skipped_middle and not outcome.found_full_list and outcome.partial
    assert outcome.backward_scanned <= 512 << 10
    [result] = bounded.results()
    assert result.plan.main is not None
    assert result.plan.main.source == "claude_tasks"
    assert [(i.text, i.status) for i in result.plan.main.items] == [("Late task", "in_progress")]
    assert result.plan.main.partial

    # With a bound covering the whole middle, nothing is lost and nothing is partial.
    whole = reader_for("claude")(path)
    outcome = read_transcript(whole, path, bound=1 << 30, **SMALL)
    assert not outcome.partial
    main = whole.results()[0].plan.main
    assert main is not None and not main.partial
    assert [(i.text, i.status) for i in main.items] == [("Early task", "completed"), ("Late task", "in_progress")]


def test_a_large_append_is_read_by_its_tail_and_the_backward_scan(tmp_path: Path) -> None:
    path = _codex(tmp_path / "rollout-c.jsonl", lambda w: w.update_plan([("Before", "in_progress")]))
    reader = reader_for("codex")(path)
    first = read_transcript(reader, path, **SMALL)
    assert _items(reader) == [("Before", "in_progress")]
    with path.open("ab") as fh:
        w = corpus.CodexWriter(fh, seed=9)
        for _ in range(150):
            w.filler(2000)
        w.update_plan([("Before", "completed"), ("Appended", "in_progress")])
        for _ in range(120):
            w.filler(2000)
    outcome = read_transcript(
        reader, path, first.offset, head=0, bound=1 << 20, tail=SMALL["tail"], chunk=SMALL["chunk"]
    )
    assert outcome.skipped_middle and outcome.found_full_list
    assert outcome.offset == path.stat().st_size
    assert _items(reader) == [("Before", "completed"), ("Appended", "in_progress")]


def test_zst_rollout_is_read_by_streaming_decompression(tmp_path: Path) -> None:
    def build(w) -> None:  # type: ignore[no-untyped-def]
        w.filler(3 << 20)  # a line longer than a chunk, not wanted
        w.update_plan([("Compressed step", "completed"), ("Big " + "s" * (2 << 20), "pending")])
        w.filler(1000)

    plain = _codex(tmp_path / "plain" / "rollout-z.jsonl", build)
    packed = tmp_path / "rollout-z.jsonl.zst"
    packed.write_bytes(zstandard.ZstdCompressor().compress(plain.read_bytes()))
    reader = reader_for("codex")(packed)
    outcome = read_transcript(reader, packed, chunk=64 << 10)
    items = _items(reader)
    assert items[0] == ("Compressed step", "completed")
    assert items[1][0].startswith("Big ss") and len(items[1][0]) > 2 << 20
    assert outcome.offset == plain.stat().st_size  # every decompressed line was complete
    lines, _ = every_line(packed)
    assert len(lines) == len(plain.read_bytes().splitlines())


def test_invalid_lines_are_counted_and_reading_goes_on(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"i": 0, "k": "PLAN"}\n{"k": "PLAN", broken\n\x00\xffPLAN\n{"i": 3, "k": "PLAN"}\n')
    reader = NeedleReader(path)
    outcome = read_transcript(reader, path)
    assert reader.fed == [0, 3]
    assert reader.skipped_lines == 2
    assert outcome.errors == 0


def test_plan_lines_are_not_read_when_plan_reading_is_off(tmp_path: Path) -> None:
    path = _codex(tmp_path / "rollout-p.jsonl", lambda w: w.update_plan([("Secret step", "in_progress")]))
    reader = reader_for("codex")(path)
    read_transcript(reader, path, plans=False)
    [result] = reader.results()
    assert result.plan.groups == ()
    assert result.facts.id == "0199aa00-0000-7000-8000-000000000001"
    assert result.facts.first_prompt == "Add a migration"


def test_a_plan_line_longer_than_a_read_is_not_read_when_plan_reading_is_off(tmp_path: Path) -> None:
    """A line over the read chunk is streamed, then re-read whole; with plan reading
    off, one naming a planning tool is still never handed on (the exclusion runs on the
    streamed path too), and the lines around it are."""
    import os

    from planwatch.core.transcripts.linescan import MAX_LINE, Prefilter, fd_scan

    path = _codex(
        tmp_path / "rollout-long.jsonl",
        lambda w: w.update_plan([("Secret step " + "x" * 20_000, "in_progress")]),
    )
    reader = reader_for("codex")(path)
    fd = os.open(path, os.O_RDONLY)
    try:
        private = [line for _, line in fd_scan(fd, 0, Prefilter.of(reader, plans=False), chunk=4096, max_line=MAX_LINE)]
        shown = [line for _, line in fd_scan(fd, 0, Prefilter.of(reader), chunk=4096, max_line=MAX_LINE)]
    finally:
        os.close(fd)
    secret = [line for line in shown if b"Secret step" in line]
    assert len(secret) == 1 and len(secret[0]) > 20_000  # streamed, then re-read whole
    assert private and not any(b"Secret step" in line for line in private)
    assert len(private) == len(shown) - 1


class CallReader(TranscriptReader):
    """A reader with both prefilter kinds, like the real ones: static needles, and a
    dynamic needle per call waiting for its result (`{"call": id}` … `{"result": id}`),
    plus a marker wanted only until the first "hello" line is fed."""

    harness = "acp"
    needles = (b'"PLAN"', b'"kind": "title"')

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.fed: list[int] = []
        self.waiting: set[str] = set()
        self.greeted = False

    def dynamic_needles(self) -> list[bytes]:
        needles = [f'"{call}"'.encode() for call in sorted(self.waiting)]
        return needles if self.greeted else [*needles, b'"hello"']

    def feed_line(self, line: bytes) -> None:
        record = self._load(line)
        if record is None:
            return
        self.fed.append(record["i"])
        if "call" in record:
            self.waiting.add(record["call"])
        self.waiting.discard(record.get("result", ""))
        self.greeted = self.greeted or record.get("say") == "hello"

    def is_full_list(self, line: bytes) -> bool:
        return False

    def results(self) -> list[SessionResult]:
        return []


def _call_rows(n: int, seed: int) -> list[dict[str, object]]:
    import random

    rnd = random.Random(seed)
    rows: list[dict[str, object]] = []
    open_calls: list[str] = []
    for i in range(n):
        roll = rnd.random()
        if roll < 0.05:
            rows.append({"k": "PLAN", "call": f"c{i}"})  # a call: wanted by the pattern
            open_calls.append(f"c{i}")
        elif roll < 0.10 and open_calls:
            # A result: wanted only while its call waits (some come twice, some never).
            rows.append({"result": rnd.choice(open_calls), "blob": "r" * rnd.randint(0, 3000)})
        elif roll < 0.12:
            rows.append({"kind": "title", "t": "x"})
        elif roll < 0.14:
            rows.append({"say": rnd.choice(["hello", "bye"]), "n": i})
        elif roll < 0.16:
            rows.append({"mention": f"c{rnd.randint(0, n)}"})  # an id seen before its call
        else:
            rows.append({"pad": "p" * rnd.randint(0, 2000)})
    return rows


def test_one_pass_locator_yields_exactly_the_lines_per_line_wants_would_in_order(tmp_path: Path) -> None:
    from planwatch.core.transcripts.linescan import wanted_lines

    for seed in range(5):
        path = tmp_path / f"calls-{seed}.jsonl"
        _numbered(path, _call_rows(3000, seed))
        data = path.read_bytes()

        one_by_one = CallReader(path)
        for line in data.splitlines():
            if one_by_one.wants(line):
                one_by_one.feed_line(line)

        located = CallReader(path)
        offsets = []
        for offset, line in wanted_lines(data, 0, Prefilter.of(located)):
            assert data[offset : offset + len(line)] == line
            offsets.append(offset)
            located.feed_line(line)
        assert located.fed == one_by_one.fed
        assert offsets == sorted(offsets)
        # Both kinds of needle were at work: calls, their results and the greeting.
        assert any(r.get("result") for r in map(json.loads, data.splitlines()) if r["i"] in located.fed)

        # The same through the chunked reader (lines cut across chunk boundaries, long
        # lines streamed) and the whole-file read.
        for chunk in (4096, 1 << 20):
            chunked = CallReader(path)
            read_transcript(chunked, path, chunk=chunk)
            assert chunked.fed == one_by_one.fed


def test_one_pass_locator_honours_its_bounds_and_blank_lines(tmp_path: Path) -> None:
    from planwatch.core.transcripts.linescan import wanted_lines

    block = b'{"i": 0, "k": "PLAN"}\n\n  \n{"i": 1}\r\n{"i": 2, "k": "PLAN"}\r\n{"i": 3, "k": "PLAN"}\n'
    reader = NeedleReader(tmp_path / "x.jsonl")
    got = [(o, line) for o, line in wanted_lines(block, 100, Prefilter.of(reader))]
    assert [line for _, line in got] == [b'{"i": 0, "k": "PLAN"}', b'{"i": 2, "k": "PLAN"}', b'{"i": 3, "k": "PLAN"}']
    assert [o - 100 for o, _ in got] == [0, block.index(b'{"i": 2'), block.index(b'{"i": 3')]
    start, end = block.index(b'{"i": 1}'), block.index(b'{"i": 3')
    inner = [line for _, line in wanted_lines(block, 0, Prefilter.of(reader), start, end)]
    assert inner == [b'{"i": 2, "k": "PLAN"}']


def test_a_session_new_result_beside_other_lines_keeps_its_cwd(tmp_path: Path) -> None:
    """ACP's prefilter is positive only: a block holding the session/new result among
    chat lines passes, and the result line itself is found."""
    path = tmp_path / "tap.jsonl"
    with path.open("wb") as fh:
        w = corpus.AcpWriter(fh, seed=3)
        w.new_session("sess_blk", "/home/dev/blocks")
        for _ in range(50):
            w.filler("sess_blk", 300)
        w.plan("sess_blk", [("One", "in_progress")])
    reader = reader_for("acp")(path)
    assert reader.wants(path.read_bytes())  # the whole block passes
    read_transcript(reader, path)
    [result] = reader.results()
    assert (result.facts.id, result.facts.cwd) == ("sess_blk", "/home/dev/blocks")


def _title_line(kind: str, field: str, text: str, session: str) -> bytes:
    return json.dumps({"type": kind, field: text, "sessionId": session}, separators=(",", ":")).encode() + b"\n"


def _claude_with_titles(path: Path, head: list[bytes], middle: list[bytes], tail: list[bytes]) -> Path:
    with path.open("wb") as fh:
        w = corpus.ClaudeWriter(fh, path.stem, "/home/dev/api", seed=5)
        w.prompt("Ship the loader")
        fh.write(b"".join(head))
        for _ in range(150):
            w.filler(2000)
        fh.write(b"".join(middle))
        for _ in range(150):
            w.filler(2000)
        fh.write(b"".join(tail))
        for _ in range(40):
            w.filler(2000)
    return path


def test_last_custom_title_in_the_skipped_middle_outranks_an_ai_title_in_the_tail(tmp_path: Path) -> None:
    # docs/reading.md, Claude Code Titles: the last custom-title wins, and titles may be anywhere in the
    # file: one in the skipped middle of a large file is looked for, not lost.
    sid = "a0000000-0000-4000-8000-000000000001"
    path = _claude_with_titles(
        tmp_path / f"{sid}.jsonl",
        head=[_title_line("custom-title", "customTitle", "First name", sid)],
        middle=[
            _title_line("custom-title", "customTitle", "Older rename", sid),
            _title_line("custom-title", "customTitle", "Loader rewrite", sid),
            _title_line("ai-title", "aiTitle", "Middle ai title", sid),
        ],
        tail=[_title_line("ai-title", "aiTitle", "Rewriting the loader", sid)],
    )
    reader = reader_for("claude")(path)
    outcome = read_transcript(reader, path, bound=64 << 10, **SMALL)
    assert outcome.skipped_middle
    [result] = reader.results()
    assert result.facts.title() == "Loader rewrite"
    assert result.facts.ai_title == "Rewriting the loader"  # the tail's is the last


def test_the_middle_title_look_back_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A multi-GB transcript is never read whole for a title: the look-back reaches as
    # far as the plan recovery (FACTS_BOUND) and no further.
    from planwatch.core.transcripts import lines as lines_module

    sid = "a0000000-0000-4000-8000-000000000009"
    path = _claude_with_titles(
        tmp_path / f"{sid}.jsonl",
        head=[],
        middle=[_title_line("custom-title", "customTitle", "Renamed long ago", sid)],
        tail=[_title_line("ai-title", "aiTitle", "Rewriting the loader", sid)],
    )
    monkeypatch.setattr(lines_module, "FACTS_BOUND", 32 << 10)
    reader = reader_for("claude")(path)
    assert read_transcript(reader, path, bound=16 << 10, **SMALL).skipped_middle
    assert reader.results()[0].facts.title() == "Rewriting the loader"
    monkeypatch.setattr(lines_module, "FACTS_BOUND", 64 << 20)
    reader = reader_for("claude")(path)
    read_transcript(reader, path, bound=16 << 10, **SMALL)
    assert reader.results()[0].facts.title() == "Renamed long ago"


def test_an_ai_title_in_the_skipped_middle_outranks_the_first_prompt(tmp_path: Path) -> None:
    sid = "a0000000-0000-4000-8000-000000000002"
    path = _claude_with_titles(
        tmp_path / f"{sid}.jsonl",
        head=[],
        middle=[
            _title_line("summary", "summary", "Loader summary", sid),
            _title_line("ai-title", "aiTitle", "Rewriting the loader", sid),
        ],
        tail=[],
    )
    reader = reader_for("claude")(path)
    assert read_transcript(reader, path, bound=64 << 10, **SMALL).skipped_middle
    facts = reader.results()[0].facts
    assert facts.title() == "Rewriting the loader"
    # Once an ai-title is found, an older summary could not change the title: not read.
    assert facts.summary is None


def test_a_custom_title_in_the_tail_needs_no_look_into_the_middle(tmp_path: Path) -> None:
    sid = "a0000000-0000-4000-8000-000000000003"
    path = _claude_with_titles(
        tmp_path / f"{sid}.jsonl",
        head=[],
        middle=[_title_line("custom-title", "customTitle", "Older rename", sid)],
        tail=[_title_line("custom-title", "customTitle", "Loader rewrite", sid)],
    )
    reader = reader_for("claude")(path)
    read_transcript(reader, path, bound=64 << 10, **SMALL)
    assert reader.middle_needles() == ()  # type: ignore[attr-defined]
    assert reader.results()[0].facts.title() == "Loader rewrite"


def test_a_middle_title_is_found_across_every_chunk_boundary(tmp_path: Path) -> None:
    # Chunks smaller than a line and chunks that cut the needle: the title is still found.
    sid = "a0000000-0000-4000-8000-000000000004"
    spaced = b'{"type": "custom-title", "customTitle": "Spaced rename", "sessionId": "' + sid.encode() + b'"}\n'
    path = _claude_with_titles(tmp_path / f"{sid}.jsonl", head=[], middle=[spaced], tail=[])
    for chunk in (97, 1000, 4093, 32 << 10):
        reader = reader_for("claude")(path)
        outcome = read_transcript(reader, path, head=16 << 10, tail=64 << 10, chunk=chunk, bound=16 << 10)
        assert outcome.skipped_middle
        assert reader.results()[0].facts.title() == "Spaced rename", chunk


def test_backward_scan_passes_over_a_refused_full_list_to_the_latest_applied_one(tmp_path: Path) -> None:
    # docs/reading.md: only a call whose result is not an error applies. A refused TodoWrite is
    # no full list: the recovery goes on to the one before it.
    path = tmp_path / "s3.jsonl"
    with path.open("wb") as fh:
        w = corpus.ClaudeWriter(fh, "s3", "/home/dev/api", seed=6)
        w.prompt("Ship the loader")
        w.todo_write([("Head step", "in_progress")])
        for _ in range(200):
            w.filler(2000)
        w.todo_write([("Read the code", "completed"), ("Fix the bug", "in_progress")])
        for _ in range(20):
            w.filler(2000)
        call_id = w._call("TodoWrite", {"todos": [{"content": "Wrong", "status": "completed", "activeForm": "Wrong"}]})
        w._result(
            call_id, "<tool_use_error>InputValidationError</tool_use_error>", "InputValidationError: todos", error=True
        )
        for _ in range(120):
            w.filler(2000)
    reader = reader_for("claude")(path)
    outcome = read_transcript(reader, path, bound=1 << 20, **SMALL)
    assert outcome.found_full_list and not outcome.partial
    assert _items(reader) == [("Read the code", "completed"), ("Fix the bug", "in_progress")]
    assert reader.results()[0].plan.main.partial is False  # type: ignore[union-attr]


def test_a_refused_full_list_in_the_tail_does_not_stop_the_recovery(tmp_path: Path) -> None:
    def build(w) -> None:  # type: ignore[no-untyped-def]
        w.update_plan([("Head step", "in_progress")])
        for _ in range(200):
            w.filler(2000)
        w.update_plan([("Middle step", "completed"), ("Next", "in_progress")])
        for _ in range(100):
            w.filler(2000)
        w.update_plan([("Wrong", "completed")], output="unsupported call: update_plan")
        for _ in range(5):
            w.filler(2000)

    path = _codex(tmp_path / "rollout-c.jsonl", build)
    reader = reader_for("codex")(path)
    outcome = read_transcript(reader, path, bound=1 << 20, **SMALL)
    assert outcome.found_full_list
    assert _items(reader) == [("Middle step", "completed"), ("Next", "in_progress")]


def _fixture_lines_files() -> list[Path]:
    from planwatch.core.transcripts.discover import classify, is_whole_document
    from planwatch.core.transcripts.zst import is_zst

    found = []
    for path in sorted((ROOT / "fixtures").rglob("*.json*")):
        item = classify(path)
        if item is not None and item.harness in ("claude", "codex", "acp", "gemini", "qwen", "pi"):
            if not is_zst(path) and not is_whole_document(path):
                found.append(path)
    return found


def _read_all_of(path: Path, harness: str) -> tuple[object, ...]:
    import dataclasses

    from planwatch.core.transcripts.warmcache import Trace

    reader = reader_for(harness)(path)
    trace = Trace()
    outcome = read_transcript(reader, path, trace=trace)
    return ([dataclasses.asdict(r) for r in reader.results()], reader.skipped_lines, outcome, trace.ops, trace.offset)


def test_a_file_read_whole_is_read_once_and_gives_what_reading_it_piece_by_piece_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file small enough to be read whole is read in one call: its first lines (looked
    at for leading garbage), its lines and its last record's time all come from it. Every
    line-read fixture, and a file opening with garbage, gives the same facts, plans,
    trace and offsets as when each of those reads goes to the file (no region read whole).
    Every line is fed both ways (a file read whole may otherwise skip superseded lists:
    test_lists_built_once.py compares that)."""
    import os

    from planwatch.core.transcripts import lines
    from planwatch.core.transcripts.discover import classify

    monkeypatch.setattr(lines, "SUPERSEDE", False)

    garbage = tmp_path / "claude" / "projects" / "-home-dev-app" / "3f2a6b1c-0d4e-4f5a-8b6c-7d8e9f0a1b2c.jsonl"
    garbage.parent.mkdir(parents=True)
    with garbage.open("wb") as fh:
        fh.write(b"not json at all\n{torn\n")
        w = corpus.ClaudeWriter(fh, garbage.stem, "/home/dev/app", seed=3)
        w.prompt("Fix the loader")
        w.todo_write([("Read the code", "completed"), ("Write tests", "in_progress")])
        w.filler(200_000)
    paths = [*_fixture_lines_files(), garbage]
    items = [(p, classify(p)) for p in paths]
    once = [_read_all_of(p, item.harness) for p, item in items if item is not None]

    real = os.pread
    reads: list[int] = []

    def counted(fd: int, n: int, offset: int) -> bytes:
        data = real(fd, n, offset)
        reads.append(len(data))
        return data

    monkeypatch.setattr(os, "pread", counted)
    _read_all_of(garbage, "claude")
    assert sum(reads) == garbage.stat().st_size  # every byte once, nothing twice
    monkeypatch.setattr(lines, "WHOLE_READ", 0)  # every read goes to the file, in chunks
    assert [_read_all_of(p, item.harness) for p, item in items if item is not None] == once
