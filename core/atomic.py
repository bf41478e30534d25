"""One way to write a file so a reader sees the old file or the new one, never half.

Every writer of planwatch's own files uses it: store records and the id counter
(`core/store/store.py`, `core/store/ids.py`), the settings file (`core/settings.py`)
the overrides file (`core/overrides.py`) and the warm-start cache
(`core/transcripts/warmcache.py`).

The steps: a temp file `.<name>.<random>.tmp` in the same folder, written and fsynced,
then renamed over the target (`atomic_write`) or hard-linked to a name that must not
exist yet (`create_exclusive`), then the folder fsynced. A failure removes the temp file
and raises the `OSError`; the target is as it was. Callers turn the error into their own
sentence (`describe_os_error` gives the reason part).

What differs between callers is a parameter: `mode` (records are shared like any file,
0666 less the umask; settings and overrides are the person's own, 0600), and `like`
(a record replaced keeps the mode and, where the writer may, the owner of the file it
replaces).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Callable
from pathlib import Path

# `typing` is not loaded at run time: a quick command's start (docs/performance.md)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

TEMP_SUFFIX = ".tmp"


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


SHARED_FILE_MODE = 0o666 & ~_umask()
"""The mode `open()` would give a new file: what a record in a shared store gets."""
PRIVATE_FILE_MODE = 0o600
"""Only the person: settings (token hashes) and overrides."""


def temp_prefix(name: str) -> str:
    return f".{name}."


# How a temp file is made: only if its name is free, never through a link, not inherited
# by a child process; as tempfile.mkstemp opens its files.
_TEMP_FLAGS = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
_TEMP_TRIES = 100


def make_temp(folder: Path, prefix: str, suffix: str) -> tuple[int, str]:
    """A new file in `folder`, mode 0600, named `prefix` + 12 random hex digits +
    `suffix`: its descriptor (open for reading and writing) and its path. What
    `tempfile.mkstemp` does, without importing tempfile (random and shutil with it,
    ~3-7 ms of a quick command that writes a cache, on each of its two processes): a
    random name opened only if free, another tried when it is taken."""
    for _ in range(_TEMP_TRIES):
        path = os.path.join(folder, f"{prefix}{os.urandom(6).hex()}{suffix}")
        try:
            return os.open(path, _TEMP_FLAGS, 0o600), path
        except FileExistsError:
            continue  # taken (by chance, or by someone who guessed): another name
    raise FileExistsError(errno.EEXIST, "no free temporary name found", os.fspath(folder))


def fsync_dir(folder: Path) -> None:
    """Make a rename in `folder` durable; filesystems that refuse fsync on a folder are fine."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # the rename is still atomic
    finally:
        os.close(fd)


def _as_bytes(data: str | bytes) -> bytes:
    return data.encode("utf-8") if isinstance(data, str) else data


def _mark_made_whole(fd: int) -> None:
    """Leave the file's mtime 1 ns before its ctime. A file written in place has the two
    equal (each write sets both), so a reader can tell a file made whole and renamed in
    from one an editor may still be writing into (core/store/handsave.py waits for those)."""
    st = os.fstat(fd)
    with contextlib.suppress(OSError):
        os.utime(fd, ns=(st.st_atime_ns, st.st_ctime_ns - 1))


def write_temp(
    folder: Path, name: str, data: str | bytes, *, mode: int = SHARED_FILE_MODE, like: os.stat_result | None = None
) -> Path:
    """Write `data` to a fresh temp file in `folder`, fsynced, with `mode`; return its path.

    `like` is the file the temp file will replace: its permission bits are kept instead
    of `mode`, and its owner and group where this process may give them (root, or a
    group the writer is in), so a person's `chmod 600` or another user's ownership
    survives a tool's write.
    """
    fd, tmp = make_temp(folder, temp_prefix(name), TEMP_SUFFIX)
    try:
        if like is not None:
            _take_owner(fd, like)
            mode = stat.S_IMODE(like.st_mode) & 0o777  # never a set-id bit on a record
        if mode != PRIVATE_FILE_MODE or like is not None:
            os.fchmod(fd, mode)  # made 0600
        with os.fdopen(fd, "wb") as fh:
            fh.write(_as_bytes(data))
            fh.flush()
            _mark_made_whole(fh.fileno())
            os.fsync(fh.fileno())
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return Path(tmp)


def _take_owner(fd: int, like: os.stat_result) -> None:
    """Give the file at `fd` the owner and group of `like`, as far as this process may
    (before its mode: a chown by someone other than root clears set-id bits)."""
    st = os.fstat(fd)
    if (st.st_uid, st.st_gid) == (like.st_uid, like.st_gid):
        return
    try:
        os.fchown(fd, like.st_uid, like.st_gid)
    except PermissionError:
        try:  # not root: the group may still be one the writer is in
            os.fchown(fd, -1, like.st_gid)
        except PermissionError:
            pass  # the owner is this writer's: nothing more a plain user can do


def atomic_write(
    path: Path,
    data: str | bytes,
    *,
    mode: int = SHARED_FILE_MODE,
    make_parents: bool = False,
    precondition: Callable[[], bool] | None = None,
    replaced_ok: Callable[[os.stat_result], bool] | None = None,
    like: os.stat_result | None = None,
) -> bool:
    """Replace `path` with `data` (str is written as UTF-8) atomically; raise OSError on failure.

    `precondition` is asked after the temp file is written, right before the rename;
    when it says False nothing is replaced and False is returned (the store checks
    there that a person did not save the file meanwhile).

    `replaced_ok` closes the last gap: where the system can swap two names atomically
    (Linux `renameat2(RENAME_EXCHANGE)`), the new file and the old one change places,
    and `replaced_ok` is shown the `stat` of the file that was really replaced; when it
    says False (a person's save landed after the precondition), the names are swapped
    back — their file is in place again — and False is returned.

    `like`: the `stat` of the file replaced, whose mode and owner the new file keeps
    (see `write_temp`).
    """
    path = Path(path)
    if make_parents:
        path.parent.mkdir(parents=True, exist_ok=True)
    tmp = write_temp(path.parent, path.name, data, mode=mode, like=like)
    try:
        if precondition is not None and not precondition():
            return False
        if replaced_ok is not None and exchange(tmp, path):
            try:
                old = os.lstat(tmp)
            except OSError:
                old = None
            if old is not None and not replaced_ok(old):
                exchange(tmp, path)
                return False
        else:
            os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    fsync_dir(path.parent)
    return True


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100
_renameat2: Any = None
_renameat2_looked_up = False


def exchange(a: Path, b: Path) -> bool:
    """Swap the files named `a` and `b` atomically; False where that is not supported
    (not Linux, an old kernel or C library, a filesystem without it, `b` missing)."""
    global _renameat2, _renameat2_looked_up
    import ctypes  # only for this swap: ~2 ms of every start that never writes otherwise

    if not _renameat2_looked_up:
        _renameat2_looked_up = True
        try:
            func = ctypes.CDLL(None, use_errno=True).renameat2
            func.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
            func.restype = ctypes.c_int
            _renameat2 = func
        except (OSError, AttributeError):
            _renameat2 = None
    if _renameat2 is None:
        return False
    if _renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.ENOENT, errno.ENOTSUP):
        return False
    raise OSError(err, os.strerror(err), str(b))


def create_exclusive(path: Path, data: str | bytes, *, mode: int = SHARED_FILE_MODE) -> bool:
    """Create `path` holding `data`, whole, only if no file has that name; False if taken.

    `os.link` fails with EEXIST rather than replacing: O_EXCL for a whole file.
    """
    path = Path(path)
    tmp = write_temp(path.parent, path.name, data, mode=mode)
    try:
        os.link(tmp, path)
    except FileExistsError:
        return False
    finally:
        tmp.unlink(missing_ok=True)
    fsync_dir(path.parent)
    return True


def describe_os_error(exc: OSError) -> str:
    """The reason part of a sentence about a failed write: 'the disk is full', …"""
    if exc.errno == errno.ENOSPC:
        return "the disk is full"
    if exc.errno == errno.EDQUOT:
        return "the disk quota is used up"
    return exc.strerror or str(exc)
