"""A write never lands over a person's save: the store's guard against hand edits.

Why a module of its own: a person may edit a record file in their editor while a tool
writes it. How the `Store` (core/store/store.py) notices that and reconciles the two
changes evolves on its own — editors' ways of saving, timings, merge rules — apart from
caching, minting and locking.

- `current_text(path)`: the file's text and identity read together.
- `ReplacedFile`: the file a write replaces, held open across the rename: `check` is the
  write's precondition (still the file read, not being written in place right now);
  `late_text` returns what an editor saved into it after the check, once settled.
- `reapply_onto_their_save(...)`: a write's changes re-applied to a file a person saved
  after it was read; `merge_late_save(...)`: the same for a save that landed in the
  replaced file. Each raises `RecordChanged` (their edit kept, nothing written) when both
  changed the same field or the result is not a valid record.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from planwatch.core.atomic import atomic_write
from planwatch.core.regular_files import file_identity, open_regular, read_regular
from planwatch.core.store.errors import RecordChanged, failed_write
from planwatch.core.store.recordfile import (
    HALF_WRITTEN_SECONDS,
    MAX_RECORD_BYTES,
    Record,
    RecordProblem,
    kind_of,
    parse_record_text,
    read_record_settled,
    read_record_text,
    relative_name,
)
from planwatch.core.store.schema import RecordInvalid, TaskRecord

__all__ = [
    "ReplacedFile",
    "current_text",
    "wait_for_in_place_save",
    "merge_late_save",
    "parsed_or_none",
    "reapply_onto_their_save",
]

LATE_WATCH_SECONDS = 0.1
"""How long a write watches the file it replaced, when that file was edited moments ago."""
SETTLE_SECONDS = 0.05
"""A file modified less than this long ago may still be being written in place."""


def current_text(path: Path) -> tuple[str | None, tuple[int, int, int, int] | None]:
    """The file's text now (None: missing or unreadable) and its identity at that read."""
    for _ in range(10):
        identity = file_identity(path)
        try:
            text: str | None = read_record_text(path)
        except (OSError, RecordInvalid):
            text = None
        if file_identity(path) == identity:
            break
        time.sleep(0.01)  # changed while read: read it again
    return text, identity


IN_PLACE_QUIET_SECONDS = 2.0
"""A file written in place less than this long ago may be an editor's save paused half-way."""
IN_PLACE_LIMIT_SECONDS = 10.0
"""How long a write waits for a file being written in place before it gives up."""


def written_in_place_recently(identity: tuple[int, int, int, int] | None) -> bool:
    """True when the file's last change was data written into it (mtime equals ctime:
    not a file made whole and renamed in, see `core.atomic`) less than
    `IN_PLACE_QUIET_SECONDS` ago."""
    return (
        identity is not None
        and identity[2] == identity[3]
        and time.time_ns() - identity[2] < IN_PLACE_QUIET_SECONDS * 1e9
    )


def _held_for_writing(dev: int, ino: int) -> bool | None:
    """True when some process holds the file (dev, ino) open for writing (Linux `/proc`:
    the processes this one may see, which include every process of the same user); None
    where that cannot be told (no `/proc`). The file is matched by inode, so a file
    renamed away or unlinked (the one a write just replaced) is still found."""
    if not os.path.isdir("/proc/self/fd"):
        return None
    try:
        pids = [name for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return None
    for pid in pids:
        folder = f"/proc/{pid}/fd"
        try:
            fds = os.listdir(folder)
        except OSError:
            continue  # gone, or another user's
        for fd in fds:
            try:
                st = os.stat(f"{folder}/{fd}")  # follows the link to the open file itself
                if (st.st_dev, st.st_ino) != (dev, ino):
                    continue
                info = read_regular(f"/proc/{pid}/fdinfo/{fd}", 4096).decode("ascii", "replace")
            except OSError:
                continue  # closed meanwhile
            flags = next((line.split()[1] for line in info.splitlines() if line.startswith("flags:")), "2")
            if int(flags, 8) & (os.O_WRONLY | os.O_RDWR):
                return True
    return False


def open_for_writing(path: Path) -> bool | None:
    """True when some process holds `path` open for writing; None where that cannot be
    told (no `/proc`); False for a missing file."""
    try:
        st = os.stat(path)
    except OSError:
        return False
    return _held_for_writing(st.st_dev, st.st_ino)


def wait_for_in_place_save(path: Path) -> None:
    """Wait while a file written in place moments ago is still open for writing.

    An editor that truncates the file and writes it anew may pause half-way (a slow disk,
    a large file, a stopped process); a write that replaced the file then would lose the
    rest of the person's save, which lands in the file replaced. Comparing the file
    before and after a read cannot see a pause, so a file written in place in the last
    `IN_PLACE_QUIET_SECONDS` is waited for while a process holds it open for writing
    (where that cannot be told, until it has been still that long). Raises
    `RecordChanged` when it is still being written after `IN_PLACE_LIMIT_SECONDS`.
    """
    deadline = time.monotonic() + IN_PLACE_LIMIT_SECONDS
    while written_in_place_recently(file_identity(path)) and open_for_writing(path) is not False:
        if time.monotonic() > deadline:
            raise RecordChanged(
                f"{relative_name(path)} is still being written in place (held open for writing for "
                f"{IN_PLACE_LIMIT_SECONDS:g} s); nothing was written — try again once it is saved."
            )
        time.sleep(SETTLE_SECONDS)


def _settled(path: Path, identity: tuple[int, int, int, int] | None, *, quiet: bool = False) -> bool:
    """True when the file is still the one read, and not being written in place right now."""
    if file_identity(path) != identity:
        return False
    if identity is not None and not quiet and time.time_ns() - identity[2] < SETTLE_SECONDS * 1e9:
        time.sleep(SETTLE_SECONDS)  # an editor may be mid-save: give it a moment
        return file_identity(path) == identity
    return True


def parsed_or_none(path: Path, text: str | None) -> Record | None:
    """The record `text` holds as the file `path`; None when there is none or it is not valid."""
    if text is None:
        return None
    try:
        return parse_record_text(path, text, kind_of(path))
    except RecordInvalid:
        return None


class ReplacedFile:
    """The file a write replaces, held open across the rename.

    `check` (the write's precondition) makes sure the file is still the one read and
    keeps a descriptor on it; `late_text` tells, after the rename, whether someone
    wrote into that file after the check (an editor saving in place through a file it
    had open) and returns what they wrote, once it has settled.
    """

    def __init__(self, path: Path, identity: tuple[int, int, int, int] | None, *, quiet: bool = False) -> None:
        self.path = path
        self.identity = identity
        self.quiet = quiet
        self.fd: int | None = None

    def check(self) -> bool:
        if not _settled(self.path, self.identity, quiet=self.quiet):
            return False
        if self.identity is None:
            return True
        try:
            self.fd = open_regular(self.path)
        except OSError:
            return False
        st = os.fstat(self.fd)
        return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns) == self.identity

    def is_the_one(self, st: os.stat_result) -> bool:
        """Was the file the rename replaced the one read, unchanged? (see atomic_write)"""
        if self.identity is None:
            return False  # there was no file when read: a person created one meanwhile
        return (st.st_ino, st.st_size, st.st_mtime_ns) == self.identity[:3]

    def _shape(self) -> tuple[int, int]:
        assert self.fd is not None
        st = os.fstat(self.fd)
        return (st.st_size, st.st_mtime_ns)

    def _held_by_a_writer(self) -> bool:
        """Does another process hold the replaced file open for writing (an editor that
        opened it before the rename and may write into it after)?"""
        assert self.fd is not None
        st = os.fstat(self.fd)
        return _held_for_writing(st.st_dev, st.st_ino) is True

    def late_text(self) -> str | None:
        """What a person saved into the replaced file after `check`, once they are done
        writing it; None when nobody did."""
        if self.fd is None or self.identity is None:
            return None
        shape = self._shape()
        if shape == (self.identity[1], self.identity[2]):
            # Someone edited it moments ago and may have it open in their editor right
            # now: watch the replaced file a little longer for a save landing in it. And
            # whoever last wrote it, an editor may have opened it before the rename and
            # write into it after (descheduled between its open and its write): watch for
            # as long as a process holds it open for writing.
            recent = not self.quiet and time.time_ns() - self.identity[2] <= HALF_WRITTEN_SECONDS * 1e9
            if not recent and not self._held_by_a_writer():
                # Nobody has been editing it and nobody has it open now; a writer that
                # closed it right before that look may still have written: look once more.
                shape = self._shape()
                if shape == (self.identity[1], self.identity[2]):
                    return None
            watch_until = time.monotonic() + (LATE_WATCH_SECONDS if recent else 0.0)
            limit = time.monotonic() + IN_PLACE_LIMIT_SECONDS
            while shape == (self.identity[1], self.identity[2]):
                now = time.monotonic()
                if now > limit or (now > watch_until and not self._held_by_a_writer()):
                    # No writer left: one that closed right before this look may still
                    # have written, so look at the file once more.
                    if self._shape() == (self.identity[1], self.identity[2]):
                        return None
                time.sleep(0.01)
                shape = self._shape()
        # Wait for the editor to finish writing: the file must keep its shape for a
        # moment and nobody may hold it open for writing (an editor paused half-way
        # through its save), up to the limit.
        limit = time.monotonic() + IN_PLACE_LIMIT_SECONDS
        while True:
            time.sleep(SETTLE_SECONDS)
            now_shape = self._shape()
            settled = now_shape == shape and not self._held_by_a_writer()
            shape = now_shape
            if settled or time.monotonic() > limit:
                break
        raw = os.pread(self.fd, min(shape[0], MAX_RECORD_BYTES + 1), 0)
        return raw.decode("utf-8", errors="replace")

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def merge_late_save(
    path: Path, late: str, base: Record | None, rec: Record, written: tuple[int, int, int, int] | None
) -> Record:
    """The person's late save `late` with `rec`'s changes (relative to `base`) on top;
    when that cannot be done, their text is put back as it was and RecordChanged raised.

    `written` is the identity of the file this write put at `path`: their text is put
    back only over that file, never over a save they made since (theirs is newer)."""
    person = parsed_or_none(path, late)
    if base is not None and person is not None:
        fields = [name for name in type(rec).model_fields if name != "extra"]
        ours = {n for n in fields if getattr(rec, n) != getattr(base, n)}
        theirs = {n for n in fields if getattr(person, n) != getattr(base, n)}
        if not any(getattr(rec, n) != getattr(person, n) for n in ours & theirs):
            merged = person.model_copy(update={n: getattr(rec, n) for n in ours})
            try:
                return type(rec).model_validate(merged.model_dump(by_alias=False))
            except ValueError:
                pass
    try:
        try:
            like: os.stat_result | None = os.lstat(path)
        except OSError:
            like = None
        atomic_write(path, late, like=like, precondition=lambda: file_identity(path) == written)
    except OSError as exc:
        raise failed_write(path, exc, "restore") from exc
    raise RecordChanged(
        f"{relative_name(path)} was saved by hand while this change was written; the edit is kept and this change "
        "was not made — read it again and retry."
    )


def reapply_onto_their_save(path: Path, base: Record, rec: Record) -> tuple[Record, tuple[str, Record]]:
    """`rec`'s changes to `base`, applied to the file a person saved meanwhile; with
    the (text, record) of that file, the new base."""
    current, text = read_record_settled(path, "task" if isinstance(rec, TaskRecord) else "plan")
    if current is None:
        raise RecordChanged(f"{relative_name(path)} was removed while this change was made; nothing was written.")
    if isinstance(current, RecordProblem) or text is None:
        raise RecordChanged(
            f"{relative_name(path)} was edited by hand meanwhile and is not a valid record now "
            f"({str(current).split(': ', 1)[-1].rstrip('.')}); the edit is kept and this change was not made."
        )
    fields = [name for name in type(rec).model_fields if name != "extra"]
    ours = {n for n in fields if getattr(rec, n) != getattr(base, n)}
    theirs = {n for n in fields if getattr(current, n) != getattr(base, n)}
    clash = sorted(n for n in ours & theirs if getattr(rec, n) != getattr(current, n))
    if clash:
        names = ", ".join((type(rec).model_fields[n].alias or n) for n in clash)
        raise RecordChanged(
            f"{relative_name(path)} was edited by hand meanwhile ({names}); the edit is kept and this change "
            "was not made — read it again and retry."
        )
    merged = current.model_copy(update={n: getattr(rec, n) for n in ours})
    try:
        return type(rec).model_validate(merged.model_dump(by_alias=False)), (text, current)
    except ValueError as exc:
        raise RecordChanged(
            f"{relative_name(path)} was edited by hand meanwhile and this change no longer fits it ({exc}); "
            "the edit is kept and this change was not made."
        ) from None
