"""Where the person's overrides of agent items live: keys only, never text.

docs/app.md, The checklist, says what an override is; docs/privacy.md why its text is
never kept.

The file is `<state>/overrides.json`:
    {"version": 1, "sessions": {"<session id>": {"<item key>": "completed" | "pending"}}}
Item keys are hashes (core.checklist.item_key), so the file never holds plan text.
Writes are atomic (temp file in the same folder, fsync, os.replace). A save re-reads the
file under a lock on its folder and applies only this process's changes, so two apps
open at once (a pane beside a full window) never drop each other's overrides.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import re
import threading
from collections.abc import Iterator
from pathlib import Path

from planwatch.core import paths
from planwatch.core.atomic import PRIVATE_FILE_MODE, atomic_write
from planwatch.core.checklist import OVERRIDE_STATUSES, OverrideStatus
from planwatch.core.regular_files import read_regular

log = logging.getLogger(__name__)

FILE_NAME = "overrides.json"
# Keys are hex digests; anything else in the file was not written by us and is dropped
# on load, so a hand-edited file can never smuggle text into a later save.
_KEY = re.compile(r"[0-9a-f]{16,64}")  # whole keys only: fullmatch


def default_path() -> Path:
    return paths.state_dir() / FILE_NAME


MAX_OVERRIDES_BYTES = 16 << 20
"""An overrides file larger than this is refused (it holds a few keys per session)."""


class Overrides:
    """The person's overrides, loaded once and saved on every change (thread-safe)."""

    def __init__(self, path: Path | str | None = None) -> None:
        self.path = Path(path) if path else default_path()
        self._lock = threading.Lock()
        # Held for a whole save so two saves from two workers land in order.
        self._save_lock = threading.Lock()
        self._sessions: dict[str, dict[str, OverrideStatus]] = {}
        # What this process set or removed since the last save: a save applies only
        # these to the file as it is then, so another app's overrides saved meanwhile stay.
        self._changes: dict[tuple[str, str], OverrideStatus | None] = {}
        self.load()

    def load(self) -> None:
        """(Re)read the file; a missing or broken file means no overrides (logged)."""
        sessions = self._read()
        with self._lock:
            self._sessions = sessions
            self._changes = {}

    def _read(self, *, to_save: bool = False) -> dict[str, dict[str, OverrideStatus]]:
        """The overrides the file holds now ({} when missing, or broken: logged). With
        `to_save` a file that is there and cannot be read whole raises OSError instead:
        a file planwatch could not fully read is never overwritten (the person may be
        editing it, or it is not planwatch's)."""
        sessions: dict[str, dict[str, OverrideStatus]] = {}
        try:
            data = read_regular(self.path, MAX_OVERRIDES_BYTES)  # a FIFO is refused, never waited on
            if len(data) > MAX_OVERRIDES_BYTES:
                raise ValueError(f"larger than {MAX_OVERRIDES_BYTES:,} bytes")
            raw = json.loads(data.decode("utf-8"))
        except FileNotFoundError:
            raw = {}
        except (OSError, ValueError) as exc:
            if to_save:
                raise OSError(
                    f"{self.path} cannot be read whole ({exc}); it is not overwritten: fix or remove it"
                ) from exc
            log.warning("overrides file %s is unreadable (%s); starting without overrides", self.path, exc)
            raw = {}
        stored = raw.get("sessions") if isinstance(raw, dict) else None
        if isinstance(stored, dict):
            for session_id, keys in stored.items():
                if not isinstance(session_id, str) or not isinstance(keys, dict):
                    continue
                clean = {
                    key: value
                    for key, value in keys.items()
                    if isinstance(key, str) and _KEY.fullmatch(key) and value in OVERRIDE_STATUSES
                }
                if clean:
                    sessions[session_id] = clean
        return sessions

    def for_session(self, session_id: str) -> dict[str, OverrideStatus]:
        """A copy of one session's overrides (item key → chosen status)."""
        with self._lock:
            return dict(self._sessions.get(session_id, {}))

    def set(self, session_id: str, key: str, status: OverrideStatus | None) -> None:
        """Set (or with None, remove) one override, in memory only; call save() after."""
        if not _KEY.fullmatch(key):
            raise ValueError("an override key must be an item key (a hex digest)")
        if status is not None and status not in OVERRIDE_STATUSES:
            raise ValueError(f"an override must be one of {OVERRIDE_STATUSES}")
        with self._lock:
            self._changes[(session_id, key)] = status
            keys = self._sessions.setdefault(session_id, {})
            if status is None:
                keys.pop(key, None)
            else:
                keys[key] = status
            if not keys:
                del self._sessions[session_id]

    def save(self) -> None:
        """Write every override atomically. Blocking IO: call it off the UI thread."""
        with self._save_lock, self._file_lock():
            # Another app (a pane beside a full window) may have saved since this one
            # read the file: its overrides are kept, and this one's changes put on top.
            sessions = self._read(to_save=True)
            with self._lock:
                changes = dict(self._changes)
                for (session_id, key), status in changes.items():
                    keys = sessions.setdefault(session_id, {})
                    if status is None:
                        keys.pop(key, None)
                    else:
                        keys[key] = status
                    if not keys:
                        del sessions[session_id]
                self._sessions = {sid: dict(keys) for sid, keys in sessions.items()}
                data = {"version": 1, "sessions": sessions}
            self._write(json.dumps(data, indent=1, sort_keys=True))
            with self._lock:
                # Written: these changes are the file's now (not those made meanwhile,
                # nor any when the write failed: the next save applies them again).
                for change, status in changes.items():
                    if change in self._changes and self._changes[change] == status:
                        del self._changes[change]

    @contextlib.contextmanager
    def _file_lock(self) -> Iterator[None]:
        """An exclusive `flock` on the file's folder (planwatch's own state folder), so two
        apps' saves never interleave; the file itself is replaced on every save."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path.parent, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def _write(self, payload: str) -> None:
        atomic_write(self.path, payload, mode=PRIVATE_FILE_MODE, make_parents=True)
