"""Where any of a few literal needles occurs in raw bytes: the readers' prefilter, the
backward scans, the look back for titles (the byte search that most of a cold scan is).

`Needles(needles)` answers three questions, each about the occurrences lying wholly
inside `data[pos:endpos]`:
- `first(data, pos, endpos)`: the position of the first one (-1: none);
- `positions(data, pos, endpos)`: positions, increasing, at least one on every line
  that holds an occurrence;
- `occurs(data)`: whether there is one.
A position is an occurrence's last byte. Needles hold no newline, so it lies on the
needle's line, which is all IO needs: it cuts the line around it. (Occurrences that
overlap lie on one line; the engines may report different ones of them.)

Two engines give the same answers:
- Hyperscan (the `hyperscan` wheel, x86-64 Linux), a SIMD multi-literal matcher: all
  needles in one pass at about 3 GB/s on chat transcripts and 7 GB/s on tool output,
  2.2-2.5x Python's `re` (measured on the benchmark corpus: docs/performance.md);
- else Python's `re` on a trie of the needles, anchored on their colon when every
  needle has one (`needle_pattern`).
Each `Needles` compiles its engine's form on first use. Hyperscan's scratch space is
not shared between threads: each thread gets its own.
"""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Iterator, Sequence
from typing import Any

from planwatch.core.logs import get_logger

log = get_logger(__name__)  # logging imported at the first record

# Needles are searched by anchoring on this byte when every needle holds one: in JSON a
# colon is several times rarer than a quote, the byte most needles would start with.
_ANCHOR = ord(":")

_engine: str | None = None  # None: hyperscan when it can be used, else "re"
_hyperscan: Any = None  # the module, once imported (False: it cannot be used here)


def engine() -> str:
    """The engine searches use now: "hyperscan" or "re"."""
    if _engine is not None:
        return _engine
    return "hyperscan" if _load_hyperscan() else "re"


@contextlib.contextmanager
def using(name: str) -> Iterator[None]:
    """Searches use engine `name` ("re" or "hyperscan") inside the block (the tests run
    both engines on the same inputs)."""
    global _engine
    before, _engine = _engine, name
    try:
        yield
    finally:
        _engine = before


def _load_hyperscan() -> Any:
    global _hyperscan
    if _hyperscan is None:
        try:
            import hyperscan  # a C library: only where its wheel installs (x86-64 Linux)

            _hyperscan = hyperscan
        except Exception:  # not installed, or its library cannot load on this CPU
            log.debug("hyperscan cannot be used; needles are searched with re", exc_info=True)
            _hyperscan = False
    return _hyperscan


class Needles:
    """A set of literal needles, searched all at once (see the module doc)."""

    def __init__(self, needles: Sequence[bytes]) -> None:
        self.needles: tuple[bytes, ...] = tuple(dict.fromkeys(n for n in needles if n))
        self.longest = max((len(n) for n in self.needles), default=0)
        self._re: re.Pattern[bytes] | None = None
        self._hs: Any = None  # the compiled database; False: it failed to compile
        self._local = threading.local()

    def __reduce__(self) -> tuple[type[Needles], tuple[tuple[bytes, ...]]]:
        return Needles, (self.needles,)  # compiled forms are per process

    def __repr__(self) -> str:
        return f"Needles({list(self.needles)!r})"

    @property
    def pattern(self) -> re.Pattern[bytes]:
        """The `re` form (`needle_pattern`)."""
        if self._re is None:
            self._re = needle_pattern(self.needles)
        return self._re

    def first(self, data: bytes | memoryview | Any, pos: int = 0, endpos: int | None = None) -> int:
        end = len(data) if endpos is None else min(endpos, len(data))
        if pos >= end or not self.needles:
            return -1
        database = self._database()
        if database is None:
            with memoryview(data) as whole, whole[pos:end] as view:
                match = self.pattern.search(view)
                return -1 if match is None else pos + match.end() - 1
        hit = -1

        def on(_id: int, _start: int, stop: int, _flags: int, _context: object) -> bool:
            nonlocal hit
            hit = stop - 1
            return True  # the first is enough: stop the scan

        self._scan(database, data, pos, end, on)
        return -1 if hit < 0 else pos + hit

    def positions(self, data: bytes | memoryview | Any, pos: int = 0, endpos: int | None = None) -> list[int]:
        end = len(data) if endpos is None else min(endpos, len(data))
        if pos >= end or not self.needles:
            return []
        database = self._database()
        if database is None:
            with memoryview(data) as whole, whole[pos:end] as view:
                return [pos + match.end() - 1 for match in self.pattern.finditer(view)]
        found: list[int] = []

        def on(_id: int, _start: int, stop: int, _flags: int, _context: object) -> None:
            if not found or found[-1] != pos + stop - 1:  # several needles may end on one byte
                found.append(pos + stop - 1)

        self._scan(database, data, pos, end, on)
        return found

    def occurs(self, data: bytes) -> bool:
        return self.first(data) >= 0

    def _database(self) -> Any:
        """The compiled Hyperscan database, or None when `re` is to be used."""
        if engine() != "hyperscan":
            return None
        if self._hs is None:
            hs = _load_hyperscan()
            try:
                database = hs.Database(mode=hs.HS_MODE_BLOCK)
                count = len(self.needles)
                database.compile(
                    expressions=list(self.needles),
                    ids=list(range(count)),
                    elements=count,
                    flags=[0] * count,
                    literal=True,
                )
                self._hs = database
            except Exception:  # an unusable platform (hs_valid_platform) or library
                log.debug("hyperscan could not compile %r; using re", self, exc_info=True)
                self._hs = False
        return self._hs or None

    def _scan(self, database: Any, data: Any, pos: int, end: int, on: Any) -> None:
        scratch = getattr(self._local, "scratch", None)
        if scratch is None:
            scratch = self._local.scratch = _hyperscan.Scratch(database)
        # Views, not copies; released before returning, so an mmap can still be closed.
        with memoryview(data) as whole, whole[pos:end] as view:
            try:
                database.scan(view, match_event_handler=on, scratch=scratch)
            except _hyperscan.ScanTerminated:
                pass


def needle_pattern(needles: Sequence[bytes]) -> re.Pattern[bytes]:
    """One regex that matches exactly where any of `needles` occurs (`Needles`' `re`
    engine): one pass over the bytes for all needles, instead of one pass per needle.
    Matches end where their needle ends.

    The needles are factored into a trie (`"(?:T(?:ask…|odo…)|…)`), so the regex engine
    looks for one literal first byte and rejects most candidates on the next one. How
    fast that goes depends on how often that byte occurs: when every needle holds a
    colon, the trie starts at each needle's first colon, and what comes before it is
    checked by a lookbehind at the end (`:"(?:summary"(?<="type":"summary")|…)`).
    """
    needles = [needle for needle in needles if needle]
    if not needles:
        return re.compile(b"(?!)")  # matches nothing
    # byte -> child node; the key -1 holds the set of needles that end at this node.
    trie: dict[int, Any] = {}
    anchored = all(_ANCHOR in needle for needle in needles)
    for needle in needles:
        at = needle.index(_ANCHOR) if anchored else 0
        node = trie
        for byte in needle[at:]:
            node = node.setdefault(byte, {})
        # A needle ends here; the bytes before its anchor are to be checked behind it.
        node.setdefault(-1, set()).add(needle if at else b"")
    return re.compile(_trie_regex(trie))


def _trie_regex(node: dict[int, Any]) -> bytes:
    ends: set[bytes] = node.get(-1, set())
    if b"" in ends:
        return b""  # a needle ends here: longer ones with this prefix add nothing
    alternatives = [re.escape(bytes([byte])) + _trie_regex(child) for byte, child in sorted(node.items()) if byte != -1]
    # Needles ending here that start before the anchor: fixed-width lookbehinds.
    alternatives += [b"(?<=" + re.escape(needle) + b")" for needle in sorted(ends)]
    if len(alternatives) == 1:
        return alternatives[0]
    return b"(?:" + b"|".join(alternatives) + b")"
