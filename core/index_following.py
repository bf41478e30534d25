"""The session index's following half: watching the transcript folders once the first
scan is done, reading what each change appended (or the file again when it was
rewritten), forgetting files that went, and moving to other folders when the person
saves them (Settings) without a restart. The index that holds the state is
core/index.py; the watcher itself (watchdog, debounce, offsets) is
core/transcripts/follow.py.

Callbacks run on the follower thread and carry only session ids.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from planwatch.core.index_databases import database_of, opencode_root
from planwatch.core.sessions import FileState
from planwatch.core.transcripts.copilot import SESSION_FILES
from planwatch.core.transcripts.discover import (
    TranscriptFile,
    classify,
    classify_copilot,
    copilot_root,
    discover,
    is_transcript_name,
)

if TYPE_CHECKING:
    from planwatch.core.transcripts.follow import Follower


class Following:
    """`SessionIndex`'s following half: it reads and writes the index's own state (the
    files read, the follower, the changed ids) under the index's locks."""

    roots_searched: list[Path]
    _cache_stale: bool
    _lock: threading.RLock
    _roots_lock: threading.Lock
    _files: dict[Path, FileState]
    _follower: Follower | None
    _on_change: Callable[[list[str]], None] | None
    _changed: set[str]
    _databases: Callable[[], set[Path]]
    _refresh_database: Callable[[Path], int | None]
    _copilot_folder: Callable[[Path], Path | None]
    _refresh_copilot: Callable[[Path], int | None]
    _load: Callable[[TranscriptFile], set[str]]
    _forget: Callable[[Path], set[str]]
    _append: Callable[[Path, int], tuple[set[str], int | None]]
    _rebuild: Callable[..., list[str]]
    _notify: Callable[[list[str]], None]

    def start_following(self, on_change: Callable[[list[str]], None]) -> None:
        """Follow every root; `on_change(session ids)` is called from the follower thread
        after each burst of changes."""
        with self._lock:
            if self._follower is not None:
                self._on_change = on_change
                return
            self._on_change = on_change
            from planwatch.core.transcripts.follow import Follower  # watchdog: only when following

            # OpenCode's database: its folder is watched without subfolders, for the
            # database and its -wal (which changes on every write). Its older storage/
            # folder: the session files and the todo files only.
            databases = self._databases()
            storages = {db for db in databases if db.name == "storage"}
            # Cline's data folder: its sessions/ (a folder per session, two JSON files
            # each, rewritten whole) and, without subfolders, db/ (the board and its -wal).
            clines = {db for db in databases if db.name != "storage" and db.suffix != ".db"}
            # Copilot CLI's home is watched through its session-state only; a session
            # given by one of its files, through that session's folder.
            roots = [
                copilot_root(r) or r for r in self.roots_searched if not r.is_file() and not opencode_root(r, databases)
            ]
            copilot_files = {
                r.parent
                for r in self.roots_searched
                if r.is_file() and r.name in SESSION_FILES and r.parent in self._files
            }
            follower = Follower(
                [*roots, *(storage / "session" for storage in storages), *(c / "sessions" for c in clines)],
                self._consume,
                accept=lambda path: (
                    is_transcript_name(path) or database_of(path) in databases or path.name in SESSION_FILES
                ),
                rewritten=lambda path: database_of(path) is not None or self._copilot_folder(path) is not None,
                flat_roots=sorted(
                    {db.parent for db in databases - storages - clines}
                    | {s / "todo" for s in storages}
                    | {c / "db" for c in clines}
                    | copilot_files
                ),
                on_removed=self._removed,
                after_batch=self._after_batch,
            )
            for path, state in self._files.items():
                follower.track(path, state.offset)
            self._follower = follower
        follower.start()
        # Files that appeared between the scan and now.
        with self._lock:
            known = set(self._files)
        follower.poke(item.path for item in discover(self.roots_searched) if item.path not in known)

    def set_roots(self, roots: Sequence[Path]) -> list[str]:
        """Look in `roots` from now on (the person saved other transcript folders):
        sessions of folders no longer listed go, those of new folders are read, the
        others keep what was read, and following restarts on the new folders. Returns
        the ids whose entry changed or went (also told to `on_change` while following).
        Blocking: call it from a worker thread."""
        with self._roots_lock:
            return self._set_roots(roots)

    def _set_roots(self, roots: Sequence[Path]) -> list[str]:
        with self._lock:
            if list(roots) == self.roots_searched:
                return []
            self.roots_searched = list(roots)
            follower, self._follower = self._follower, None
            on_change = self._on_change
        if follower is not None:
            follower.stop()  # its roots are fixed: a new one watches the new folders
        files = discover(self.roots_searched)
        with self._lock:
            known = set(self._files)
        ids: set[str] = set()
        for path in known - {item.path for item in files}:
            ids |= self._forget(path)
        for item in files:
            if item.path not in known:
                ids |= self._load(item)
        if ids:
            self._cache_stale = True
        changed = self._rebuild(ids, orphans=True)
        if follower is not None and on_change is not None:
            self.start_following(on_change)
        self._notify(changed)
        return changed

    # -- follower callbacks (follower thread) ------------------------------------------

    def _consume(self, path: Path, start: int, reset: bool) -> int | None:
        if path.name in SESSION_FILES and (
            self._copilot_folder(path) is not None or classify_copilot(path.parent) is not None
        ):
            return self._refresh_copilot(path.parent)  # read again, or read first when new
        database = database_of(path)
        if database is not None:
            return self._refresh_database(database)
        # A plain rollout beside its compressed copy wins (docs/reading.md, Codex CLI), also while live.
        if path.name.endswith(".jsonl.zst") and path.with_name(path.name[:-4]).exists():
            self._removed(path)
            return None
        twin = path.with_name(path.name + ".zst")
        if path.name.endswith(".jsonl") and twin in self._files:
            self._removed(twin)
        with self._lock:
            state = self._files.get(path)
        if reset or state is None or state.reader is None:
            item = classify(path)
            if item is None:
                return None
            ids = self._load(item)
            with self._lock:
                state = self._files.get(path)
                self._changed |= ids
            return state.offset if state is not None else None
        ids, offset = self._append(path, start)
        with self._lock:
            self._changed |= ids
        return offset

    def _removed(self, path: Path) -> None:
        copilot = self._copilot_folder(path)
        if copilot is not None:  # a file of a session went: the folder may still be one
            self._refresh_copilot(copilot)
            return
        source = database_of(path)
        if source is not None and source != path and source.is_dir() and source in self._files:
            self._refresh_database(source)  # a Cline session's file went: read the folder again
            return
        ids = self._forget(path)
        with self._lock:
            self._changed |= ids

    def _after_batch(self, _paths: list[Path]) -> None:
        with self._lock:
            ids, self._changed = self._changed, set()
        self._notify(self._rebuild(ids, orphans=True))
