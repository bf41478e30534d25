"""Zstandard-compressed transcripts (idle Codex rollouts, `.jsonl.zst`): decompressed
as a stream, memory bounded like a plain file; a plain `.jsonl` beside a `.jsonl.zst`
wins (discover.py). The stdlib has no zstd before 3.14, hence `zstandard`."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from planwatch.core.regular_files import open_regular

if TYPE_CHECKING:
    from planwatch.core.transcripts.linescan import Stream


def is_zst(path: Path) -> bool:
    return path.name.endswith(".zst")


def zst_stream(path: Path) -> Stream:
    import zstandard

    fh = os.fdopen(open_regular(path), "rb")
    return zstandard.ZstdDecompressor().stream_reader(fh, read_across_frames=True, closefd=True)


def zst_reread(path: Path) -> Callable[[int, int], bytes]:
    """Read decompressed bytes [offset, offset + n) by decompressing again from the start
    (only for long lines that match, which are rare)."""
    # Here, not at the top: `is_zst` is asked of every file, warm starts included.
    from planwatch.core.transcripts.linescan import CHUNK

    def reread(offset: int, n: int) -> bytes:
        stream = zst_stream(path)
        try:
            skip = offset
            while skip:
                got = stream.read(min(CHUNK, skip))
                if not got:
                    return b""
                skip -= len(got)
            parts: list[bytes] = []
            while n:
                got = stream.read(min(CHUNK, n))
                if not got:
                    break
                parts.append(got)
                n -= len(got)
            return b"".join(parts)
        finally:
            stream.close()  # type: ignore[attr-defined]

    return reread
