"""Where the person's overrides of agent items live: keys only, never text.

docs/app.md, The checklist, says what an override is; docs/privacy.md why its text is
never kept.

The file is `<state>/overrides.json`:
    {"version": 1, "sessions": {"<session id>": {"<item key>": "completed" | "pending"}}}
Item keys are hashes (core.checklist.item_key), so the file never holds plan text.
Writes are atomic (temp file in the same folder, fsync, os.replace).
"""

from __future__ import annotations

import json
import logging
import re
import threading
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

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or default_path()
        self._lock = threading.Lock()
        # Held for a whole save so two saves from two workers land in order.
        self._save_lock = threading.Lock()
        self._sessions: dict[str, dict[str, OverrideStatus]] = {}
        self.load()

    def load(self) -> None:
        """(Re)read the file; a missing or broken file means no overrides (logged)."""
        sessions: dict[str, dict[str, OverrideStatus]] = {}
        try:
            data = read_regular(self.path, MAX_OVERRIDES_BYTES)  # a FIFO is refused, never waited on
            if len(data) > MAX_OVERRIDES_BYTES:
                raise ValueError(f"larger than {MAX_OVERRIDES_BYTES:,} bytes")
            raw = json.loads(data.decode("utf-8"))
        except FileNotFoundError:
            raw = {}
        except (OSError, ValueError) as exc:
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
        with self._lock:
            self._sessions = sessions

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
            keys = self._sessions.setdefault(session_id, {})
            if status is None:
                keys.pop(key, None)
            else:
                keys[key] = status
            if not keys:
                del self._sessions[session_id]

    def save(self) -> None:
        """Write every override atomically. Blocking IO: call it off the UI thread."""
        with self._save_lock:
            with self._lock:
                data = {"version": 1, "sessions": {sid: dict(keys) for sid, keys in self._sessions.items()}}
            self._write(json.dumps(data, indent=1, sort_keys=True))

    def _write(self, payload: str) -> None:
        atomic_write(self.path, payload, mode=PRIVATE_FILE_MODE, make_parents=True)
