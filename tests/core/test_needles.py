"""The byte search (core/transcripts/needles.py): Hyperscan where its wheel
installs, else re on a trie; both find the same lines, and every transcript reads the
same whichever engine searched it."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from bench.corpus import ClaudeWriter

from planwatch.core.transcripts import needles as engines
from planwatch.core.transcripts.batch import read_file
from planwatch.core.transcripts.discover import classify

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"
ENGINES = ["re", "hyperscan"]


def _engine(name: str) -> None:
    if name == "hyperscan" and not engines._load_hyperscan():
        pytest.skip("hyperscan is not installed on this platform")


@pytest.mark.parametrize("engine", ENGINES)
def test_needles_are_found_on_exactly_the_lines_that_hold_one_by_either_engine(engine: str) -> None:
    """`Needles` (Hyperscan, or re on a trie anchored on the colon when every needle has
    one) is the same test as "any needle in the bytes", on random needles and texts of a
    few lines: `occurs` agrees; within [pos, endpos), `positions` is increasing, each the
    last byte of an occurrence, and names every line that holds one; `first` is on the
    first such line (IO cuts lines around positions: needles hold no newline)."""
    import random

    from planwatch.core.transcripts.needles import Needles, needle_pattern
    from planwatch.core.transcripts.reader import json_needles, json_value_needles

    _engine(engine)

    def line_of(text: bytes, at: int) -> int:
        return text.count(b"\n", 0, at)

    rnd = random.Random(7)
    alphabet = b'ab:" {'
    with engines.using(engine):
        for _ in range(1500):
            needles = [bytes(rnd.choice(alphabet) for _ in range(rnd.randint(1, 6))) for _ in range(rnd.randint(1, 6))]
            found = Needles(needles)
            for _ in range(10):
                text = b"\n".join(
                    bytes(rnd.choice(alphabet) for _ in range(rnd.randint(0, 12))) for _ in range(rnd.randint(1, 3))
                )
                pos, endpos = sorted(rnd.randint(0, len(text)) for _ in range(2))
                occurrences = [
                    (at, at + len(n) - 1)
                    for n in set(needles)
                    for at in range(pos, endpos - len(n) + 1)
                    if text.startswith(n, at)
                ]
                lines = sorted({line_of(text, at) for at, _ in occurrences})
                got = found.positions(text, pos, endpos)
                case = (needles, text, pos, endpos, got)
                assert found.occurs(text) == any(n in text for n in needles), case
                assert got == sorted(set(got)), case
                assert all(any(end == p for _, end in occurrences) for p in got), case
                assert sorted({line_of(text, p) for p in got}) == lines, case
                first = found.first(text, pos, endpos)
                assert (line_of(text, first) if first >= 0 else None) == (lines[0] if lines else None), case
        real = Needles(
            [*json_value_needles("TodoWrite"), *json_needles("type", "summary"), *json_needles("method", "session/new")]
        )
        assert real.occurs(b'{"type": "summary", "summary": "x"}')
        assert real.occurs(b'{"name":"TodoWrite","input":{}}')
        assert not real.occurs(b'{"summary":"type","tools":["TodoWrite"]}')
        assert Needles([]).first(b"abc") == -1 and Needles([b""]).positions(b"abc") == []
    assert needle_pattern(real.needles).pattern.startswith(b":")  # re's trie anchors on the colon


def _long(path: Path) -> Path:
    """Over the head and tail windows: a custom title and a full list in the skipped
    middle (the look back and the backward scan), task calls in the tail."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as fh:
        w = ClaudeWriter(fh, path.stem, "/home/dev/long", seed=11)
        w.prompt("Start the long job")
        while fh.tell() < 3 << 20:
            w.filler(60_000)
        w.custom_title("The long job")
        while fh.tell() < 6 << 20:
            w.filler(60_000)
        w.todo_write([("Read", "completed"), ("Write", "in_progress"), ("Ship", "pending")])
        while fh.tell() < 14 << 20:
            w.filler(60_000)
        w.task_create("1", "A task in the tail")
        w.filler(1000)
    return path


def _transcripts() -> list[Path]:
    return [p for p in sorted(FIXTURES.rglob("*.json*")) if classify(p) is not None]


def _answer(path: Path) -> object:
    item = classify(path)
    assert item is not None
    read = read_file(item, True)
    assert read.reader is not None
    return [dataclasses.asdict(r) for r in read.results], read.reader.skipped_lines, read.offset


def test_every_transcript_reads_the_same_whichever_engine_searched_it(tmp_path: Path) -> None:
    """Every fixture transcript of every harness, and a long one whose title and full
    list lie in the skipped middle: the same results, counts and offsets with re and
    with Hyperscan (the suite itself runs on the engine the platform has)."""
    _engine("hyperscan")
    paths = [
        *_transcripts(),
        _long(tmp_path / "claude" / "projects" / "-home-dev-long" / "7d1c2b3a-4e5f-4a6b-8c7d-9e0f1a2b3c4d.jsonl"),
    ]
    assert len(paths) > 40
    with engines.using("re"):
        by_re = [_answer(p) for p in paths]
    with engines.using("hyperscan"):
        by_hyperscan = [_answer(p) for p in paths]
    for path, one, other in zip(paths, by_re, by_hyperscan, strict=True):
        assert one == other, path
    long_title = by_re[-1][0][0]["facts"]["custom_title"]  # type: ignore[index]
    assert long_title == "The long job"


def test_hyperscan_scratch_space_is_per_thread() -> None:
    """Two threads searching with one `Needles` at once (the app's scan and its
    follower) each get their own Hyperscan scratch space, and both get every answer."""
    import threading

    _engine("hyperscan")
    found = engines.Needles([b':"TodoWrite"', b'"type":"summary"'])
    block = (b'{"type":"user"}\n' * 5000 + b'{"name":"TodoWrite"}\n') * 20
    expected = found.positions(block)
    assert len(expected) == 20
    errors: list[object] = []

    def search() -> None:
        try:
            with engines.using("hyperscan"):
                for _ in range(30):
                    assert found.positions(block) == expected
        except BaseException as exc:  # noqa: BLE001 (reported by the main thread)
            errors.append(exc)

    threads = [threading.Thread(target=search) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
