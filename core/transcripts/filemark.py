"""A followed file's mark: a CRC-32 of its first bytes and of those just before the
offset it was read to (at most `MARK_BYTES` each; no text is kept). An append leaves
it as it was; a rewrite in place (the same inode, as `cat new > file` leaves it, or a
new file on an inode just freed) almost never does. The follower compares it before
reading on (follow.py); a read takes it from the bytes it read (lines.py, batch.py), so
the follower's first look at a file the scan read is a `stat`."""

from __future__ import annotations

import os
import zlib
from collections.abc import Callable

MARK_BYTES = 64


def mark_at(
    fd: int, offset: int, pread: Callable[[int, int, int], bytes] = os.pread, head: bytes | None = None
) -> int | None:
    """The mark of the file open as `fd`, read to `offset`: its first bytes (`head`, when
    read before) and those just before `offset`, read with `pread` (a read's own bytes,
    where it holds them); None when they cannot be read."""
    if offset <= 0:
        return 0
    size = min(MARK_BYTES, offset)
    try:
        if head is None:
            head = pread(fd, MARK_BYTES, 0)
        before = pread(fd, size, offset - size)
    except OSError:
        return None
    return zlib.crc32(before, zlib.crc32(head[:size]))
