"""What tests of the line scan need and the product does not: every complete line of a
file, plain or zstd-compressed, with the offset where the next read resumes; the bytes
the readers decode as JSON, counted."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from planwatch.core.transcripts.linescan import LineScan, Prefilter, fd_scan
from planwatch.core.transcripts.zst import is_zst, zst_reread, zst_stream

CHUNK = 1 << 20


def everything() -> Prefilter:
    """A prefilter every line passes."""
    return Prefilter(lambda _data: True)


def every_line(path: Path, start: int = 0) -> tuple[list[tuple[int, bytes]], int]:
    """Every complete line of `path` from `start` as (offset, line), and the resume offset."""
    if is_zst(path):
        stream = zst_stream(path)
        try:
            scan = LineScan(stream, 0, everything(), reread=zst_reread(path), chunk=CHUNK, max_line=256 << 20)
            return list(scan), scan.offset
        finally:
            stream.close()  # type: ignore[attr-defined]
    fd = os.open(path, os.O_RDONLY)
    try:
        scan = fd_scan(fd, start, everything(), chunk=CHUNK, max_line=256 << 20)
        return list(scan), scan.offset
    finally:
        os.close(fd)


class Decoded:
    """The bytes the readers' JSON decoding is handed, counted (msgspec's decoder and
    the standard library's behind it, the one path every reader parses a line by):
    installed with `monkeypatch`, it calls the real decoders."""

    def __init__(self, monkeypatch: Any) -> None:
        from planwatch.core.transcripts import reader

        self.sizes: list[int] = []
        fast, slow = reader._FAST_DECODE, reader._DECODE

        def counted_fast(data: Any) -> Any:
            self.sizes.append(len(data))
            return fast(data)

        def counted_slow(text: str) -> Any:
            self.sizes.append(len(text))
            return slow(text)

        monkeypatch.setattr(reader, "_FAST_DECODE", counted_fast)
        monkeypatch.setattr(reader, "_DECODE", counted_slow)

    @property
    def largest(self) -> int:
        return max(self.sizes, default=0)
