"""Open only regular files: a FIFO, socket, device or folder is a problem, never a wait.

A `mkfifo` where a record, the id counter, the settings file or a transcript should be
would otherwise block the reader forever (`open()` on a FIFO waits for a writer). So a
path is `stat`ed first (a device is never opened at all), then opened with
`O_NONBLOCK` and checked again with `fstat` on the descriptor (the name may have been
swapped in between). Symlinks to regular files are followed unless `follow=False`.

- `open_regular(path, flags=O_RDONLY, *, follow=True) -> fd` (`open_regular_stat`: and
  its `fstat`) — raises `NotRegularFile`
  (an `OSError`) with `strerror` like `is a FIFO, not a regular file`, or the `OSError`
  of `open` itself (`FileNotFoundError`, `PermissionError`, …).
- `read_regular(path, limit=None) -> bytes` — the whole file, or `limit + 1` bytes at
  most so a caller can tell "larger than limit".
- `file_identity(path)` — (inode, size, mtime_ns, ctime_ns), or None: has it changed?
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path


class NotRegularFile(OSError):
    """The path names something other than a regular file."""


def describe_kind(mode: int) -> str:
    """'a FIFO', 'a socket', 'a device', 'a folder', 'a symlink', or 'not a regular file'."""
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISLNK(mode):
        return "a symlink"
    return "not a regular file"


def _refuse(path: Path | str, mode: int) -> NotRegularFile:
    return NotRegularFile(errno.EINVAL, f"is {describe_kind(mode)}, not a regular file", str(path))


def check_regular(path: Path | str, *, follow: bool = True) -> os.stat_result:
    """`stat` (or `lstat`) the path; raise NotRegularFile unless it is a regular file."""
    st = os.stat(path) if follow else os.lstat(path)
    if not stat.S_ISREG(st.st_mode):
        raise _refuse(path, st.st_mode)
    return st


def open_regular(path: Path | str, flags: int = os.O_RDONLY, mode: int = 0o644, *, follow: bool = True) -> int:
    """Open `path` only if it is a regular file; never blocks on a FIFO. Returns the fd.

    With `os.O_CREAT` in `flags` a missing file is created (no stat first).
    """
    return open_regular_stat(path, flags, mode, follow=follow)[0]


def open_regular_stat(
    path: Path | str, flags: int = os.O_RDONLY, mode: int = 0o644, *, follow: bool = True, blocking: bool = True
) -> tuple[int, os.stat_result]:
    """`open_regular`, with the `fstat` of the descriptor it checked (a caller that needs
    the file's identity need not ask again: a warm start asks it of every file).
    `blocking=False` leaves the descriptor non-blocking, for a caller that only
    `pread`s it (a regular file never blocks: a warm start saves a call a file)."""
    if not flags & os.O_CREAT:
        check_regular(path, follow=follow)
    extra = os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    if not follow:
        extra |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags | extra, mode)
    except OSError as exc:
        if exc.errno == errno.ELOOP and not follow:
            raise NotRegularFile(errno.ELOOP, "is a symlink, not a regular file", str(path)) from None
        if exc.errno in (errno.ENXIO, errno.EISDIR, errno.ENODEV, errno.EOPNOTSUPP):
            # Opened for writing, a FIFO with no reader says "No such device or address",
            # a folder "Is a directory": say what the path is instead.
            try:
                st = os.stat(path) if follow else os.lstat(path)
            except OSError:
                raise exc from None
            if not stat.S_ISREG(st.st_mode):
                raise _refuse(path, st.st_mode) from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise _refuse(path, st.st_mode)
        # Back to blocking reads: a regular file never blocks anyway, and some callers
        # hand the fd to code that does not expect EAGAIN.
        if blocking:
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def file_identity(path: Path | str) -> tuple[int, int, int, int] | None:
    """(inode, size, mtime_ns, ctime_ns) of the file at `path`, None when it cannot be
    stat'ed: equal identities mean nobody wrote or replaced it in between."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def read_regular(path: Path | str, limit: int | None = None, *, follow: bool = True) -> bytes:
    """The bytes of a regular file (at most `limit + 1` when `limit` is given); with
    `follow=False` a symlink is refused (`NotRegularFile`, 'is a symlink')."""
    fd = open_regular(path, follow=follow)
    with os.fdopen(fd, "rb") as fh:
        return fh.read() if limit is None else fh.read(limit + 1)
