"""The host's own record of the approvals it made: which stamps count (docs/store.md, Approvals).

Why a module of its own: an `approved` stamp in a record is text anyone with the file
can write (`approved: {at, by: ana}` by hand), and a task's title or body can change
after it was approved. A stamp counts only when an approval call of this host wrote
it, for what the record says now; this module keeps that record and answers the
question, apart from the tools that approve (core/store/tool_effects.py).

`<store>/.approvals`: one JSON line per approval call, appended under the store lock
and fsynced: `{"id": "t1", "at": "2026-10-18T10:00:00.000Z", "by": "ana", "in": null,
"digest": "<sha256 hex>"}`. It holds no plan text: the digest is the SHA-256 of the
record's title and body (a plan's title and goal), so an approval binds what was
approved, and a change of either makes the stamp stop counting.

- `Approvals(root)`; `approvals_of(store)` — the one per Store.
- `record(rec, stamp)` — an approval call wrote `stamp` on `rec` (as it is now).
- `record_digest(id, stamp, digest)` — a signed approval made on another host of a
  shared store, verified by the sync (core/sync/signing.py), counts here too.
- `why_not(rec)` — None when `rec` carries no `approved` stamp or its stamp counts;
  else why it does not (`its approved stamp was not written by an approval call of
  this host`, `its title or body changed after ana approved it`).
- `counts(rec)` — an `approved` stamp that counts.

What this guarantees holds against callers that reach the store through the tools
only; one with a shell as the store's own user can append to this file as well as to a
record (docs/store.md, What approval guarantees, and the set-up it needs).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import stat
import threading
import weakref
from pathlib import Path
from typing import TYPE_CHECKING

from planwatch.core.atomic import describe_os_error
from planwatch.core.regular_files import file_identity, open_regular_stat
from planwatch.core.store.errors import StoreError
from planwatch.core.store.schema import PlanRecord, Stamp, TaskRecord, format_stamp

if TYPE_CHECKING:
    from planwatch.core.store.store import Store

LEDGER = ".approvals"
MAX_LEDGER_BYTES = 64_000_000


def digest(rec: TaskRecord | PlanRecord) -> str:
    """SHA-256 of what an approval approves: the title and the body (a plan's goal)."""
    return digest_of(rec.title, rec.body if isinstance(rec, TaskRecord) else rec.goal)


def digest_of(title: str, body: str) -> str:
    """The digest of a title and body (what the merge checks an approval against)."""
    return hashlib.sha256(json.dumps([title, body], ensure_ascii=False).encode("utf-8", "surrogatepass")).hexdigest()


def _key(record_id: str, stamp: Stamp) -> tuple[str, str, str, str | None]:
    return (record_id, format_stamp(stamp.at), stamp.by, stamp.in_ or None)


class Approvals:
    """The ledger of one store's approvals."""

    def __init__(self, root: Path) -> None:
        self.path = Path(root) / LEDGER
        self._lock = threading.Lock()
        self._identity: tuple[int, int, int, int] | None = None
        self._entries: dict[tuple[str, str, str, str | None], set[str]] = {}
        self._error: str | None = None

    def record(self, rec: TaskRecord | PlanRecord, stamp: Stamp) -> None:
        """Remember that an approval call wrote `stamp` on `rec`; raises StoreError when it
        cannot (then the caller writes no stamp)."""
        record_id, at, by, in_ = _key(rec.id, stamp)
        line = json.dumps({"id": record_id, "at": at, "by": by, "in": in_, "digest": digest(rec)}, ensure_ascii=False)
        self._append(line, rec.id)

    def record_digest(self, record_id: str, stamp: Stamp, approved_digest: str) -> None:
        """Remember an approval made elsewhere whose signature this host verified (the
        shared store's sync): the digest is the one the approver signed."""
        key = _key(record_id, stamp)
        line = json.dumps(
            {"id": key[0], "at": key[1], "by": key[2], "in": key[3], "digest": approved_digest}, ensure_ascii=False
        )
        self._append(line, record_id)

    def _append(self, line: str, record_id: str) -> None:
        """Append one whole line, or nothing: a write cut short (a full disk) is taken
        back, so no torn line is left for the next approval's line to be glued onto."""
        flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
        data = (line + "\n").encode("utf-8", "surrogatepass")
        try:
            fd, st = open_regular_stat(self.path, flags, 0o644, follow=False)
            try:
                size = st.st_size
                if size and os.pread(fd, 1, size - 1) != b"\n":
                    data = b"\n" + data  # a line torn before (a writer killed) ends there, not in this one
                try:
                    view = memoryview(data)
                    while view:
                        written = os.write(fd, view)
                        if written <= 0:
                            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
                        view = view[written:]
                    os.fsync(fd)
                except OSError:
                    with contextlib.suppress(OSError):
                        os.ftruncate(fd, size)  # the ledger as it was: whole lines only
                    raise
            finally:
                os.close(fd)
        except OSError as exc:
            raise StoreError(
                f"Could not record the approval of {record_id} in {self.path} ({describe_os_error(exc)}); it was not approved."
            ) from exc

    def _load(self) -> None:
        identity = file_identity(self.path)
        if identity is not None and identity == self._identity:
            return
        entries: dict[tuple[str, str, str, str | None], set[str]] = {}
        error = None
        try:
            fd, st = open_regular_stat(self.path)
            with os.fdopen(fd, "rb") as fh:
                raw = fh.read(MAX_LEDGER_BYTES + 1)
            folder = os.stat(self.path.parent).st_mode
            if st.st_mode & 0o002 or (folder & 0o002 and not folder & stat.S_ISVTX):
                # Anyone on the host could add a line for any record (its digest is a
                # hash of text they can read): such a ledger proves nothing.
                error = "may be written by every user of this host (chmod o-w the store and its .approvals)"
            elif len(raw) > MAX_LEDGER_BYTES:
                error = f"is larger than {MAX_LEDGER_BYTES:,} bytes"
            else:
                for line in raw.decode("utf-8", "replace").splitlines():
                    try:
                        item = json.loads(line)
                        key = (str(item["id"]), str(item["at"]), str(item["by"]), item.get("in") or None)
                        entries.setdefault(key, set()).add(str(item["digest"]))
                    except (ValueError, KeyError, TypeError):
                        continue  # a torn or foreign line approves nothing
        except FileNotFoundError:
            pass
        except OSError as exc:
            error = f"cannot be read ({describe_os_error(exc)})"
        self._identity, self._entries, self._error = identity, entries, error

    def why_not(self, rec: TaskRecord | PlanRecord) -> str | None:
        """None when `rec`'s approved stamp counts (or it has none); else why it does not."""
        stamp = rec.approved
        if stamp is None:
            return None
        with self._lock:
            self._load()
            if self._error is not None:
                return f"the host's record of approvals {self.path} {self._error}, so no approved stamp counts"
            digests = self._entries.get(_key(rec.id, stamp))
        if not digests:
            return "its approved stamp was not written by an approval call of this host, so it does not count"
        if digest(rec) not in digests:
            return f"its title or body changed after {stamp.by} approved it"
        return None

    def counts(self, rec: TaskRecord | PlanRecord) -> bool:
        return rec.approved is not None and self.why_not(rec) is None


_stores_lock = threading.Lock()
# Each Store's ledger, for as long as the Store lives.
_ledgers: weakref.WeakKeyDictionary[Store, Approvals] = weakref.WeakKeyDictionary()


def approvals_of(store: Store) -> Approvals:
    """The ledger of `store` (one per Store, so its parse is shared)."""
    with _stores_lock:
        found = _ledgers.get(store)
        if found is None:
            found = _ledgers[store] = Approvals(store.root)
        return found
