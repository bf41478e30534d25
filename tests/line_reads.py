"""What tests of the line scan need and the product does not: every complete line of a
file, plain or zstd-compressed, with the offset where the next read resumes."""

from __future__ import annotations

import os
from pathlib import Path

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
