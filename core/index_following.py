"""The session index's follower, a collaborator the index holds: watching the transcript
folders once the first scan is done, reading what each change appended (or the file
again when it was rewritten), forgetting files that went. Moving to other folders when
the person saves them (`SessionIndex.set_roots`) stops it and starts a new one on the
new folders. The index that holds the state is core/index.py; the watcher itself (watchdog, debounce, offsets) is
core/transcripts/follow.py.

Callbacks run on the follower thread and carry only session ids.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from planwatch.core.index_databases import DatabaseSources, database_of, opencode_root
from planwatch.core.index_state import IndexState
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
    """The index's follower: it watches the folders searched and, on the follower
    thread, reads what changed through the callbacks the index gives it (`load` a file
    from scratch, `append` from an offset, `forget` one that went), refreshes database
    sources through `sources`, and hands the ids touched by each burst of changes to
    `moved`. Built with the index's shared state (index_state.py); `lock` guards the
    follower and the ids gathered."""

    def __init__(
        self,
        state: IndexState,
        sources: DatabaseSources,
        *,
        load: Callable[[TranscriptFile], set[str]],
        append: Callable[[Path, int], tuple[set[str], int | None]],
        forget: Callable[[Path], set[str]],
        moved: Callable[[set[str]], None],
    ) -> None:
        self._state = state
        self._sources = sources
        self._load = load
        self._append = append
        self._forget = forget
        self._moved = moved
        self._follower: Follower | None = None
        self._changed: set[str] = set()  # ids touched by the burst of changes being read

    @property
    def active(self) -> bool:
        """Whether the folders are being followed."""
        with self._state.lock:
            return self._follower is not None

    @property
    def observer_kind(self) -> str:
        """How the folders are watched: "native", "polling", or "" when not following."""
        follower = self._follower
        return follower.observer_kind if follower is not None else ""

    def start(self, roots: list[Path]) -> None:
        """Follow `roots` (nothing when already following): every file read is tracked
        from the offset it was read to, and files that appeared since are read."""
        state = self._state
        with state.lock:
            if self._follower is not None:
                return
            from planwatch.core.transcripts.follow import Follower  # watchdog: only when following

            # OpenCode's database: its folder is watched without subfolders, for the
            # database and its -wal (which changes on every write). Its older storage/
            # folder: the session files and the todo files only.
            databases = self._sources.sources(roots)
            storages = {db for db in databases if db.name == "storage"}
            # Cline's data folder: its sessions/ (a folder per session, two JSON files
            # each, rewritten whole) and, without subfolders, db/ (the board and its -wal).
            clines = {db for db in databases if db.name != "storage" and db.suffix != ".db"}
            # Copilot CLI's home is watched through its session-state only; a session
            # given by one of its files, through that session's folder.
            watched = [copilot_root(r) or r for r in roots if not r.is_file() and not opencode_root(r, databases)]
            copilot_files = {
                r.parent for r in roots if r.is_file() and r.name in SESSION_FILES and r.parent in state.files
            }
            follower = Follower(
                [*watched, *(storage / "session" for storage in storages), *(c / "sessions" for c in clines)],
                self._consume,
                accept=lambda path: (
                    is_transcript_name(path) or database_of(path) in databases or path.name in SESSION_FILES
                ),
                rewritten=lambda path: database_of(path) is not None or self._sources.copilot_folder(path) is not None,
                flat_roots=sorted(
                    {db.parent for db in databases - storages - clines}
                    | {s / "todo" for s in storages}
                    | {c / "db" for c in clines}
                    | copilot_files
                ),
                on_removed=self._removed,
                after_batch=self._after_batch,
            )
            for path, file in state.files.items():
                # The file as its read found it, and its mark from the bytes read: the
                # first look is then a `stat` (follow.py).
                seen = file.trace.ident if file.trace is not None and file.mark is not None else None
                follower.track(path, file.offset, seen, file.mark)
            self._follower = follower
        follower.start()
        # Files that appeared between the scan and now.
        with state.lock:
            known = set(state.files)
        follower.poke(item.path for item in discover(roots) if item.path not in known)

    def track(self, path: Path, offset: int) -> None:
        """Follow `path` from `offset` on (it was read again up to there); nothing when
        not following."""
        with self._state.lock:
            follower = self._follower
        if follower is not None:
            follower.track(path, offset)

    def stop(self) -> bool:
        """Stop following (joins the follower's threads); returns whether it was."""
        with self._state.lock:
            follower, self._follower = self._follower, None
        if follower is None:
            return False
        follower.stop()
        return True

    # -- follower callbacks (follower thread) ------------------------------------------

    def _consume(self, path: Path, start: int, reset: bool) -> int | None:
        if path.name in SESSION_FILES and (
            self._sources.copilot_folder(path) is not None or classify_copilot(path.parent) is not None
        ):
            self._gather(self._sources.refresh_copilot(path.parent))  # read again, or read first when new
            return 0
        database = database_of(path)
        if database is not None:
            self._gather(self._sources.refresh_database(database))
            return 0
        # A plain rollout beside its compressed copy wins (docs/reading.md, Codex CLI), also while live.
        if path.name.endswith(".jsonl.zst") and path.with_name(path.name[:-4]).exists():
            self._removed(path)
            return None
        twin = path.with_name(path.name + ".zst")
        if path.name.endswith(".jsonl") and twin in self._state.files:
            self._removed(twin)
        state = self._state.get(path)
        if reset or state is None or state.reader is None:
            item = classify(path)
            if item is None:
                return None
            ids = self._load(item)
            with self._state.lock:
                state = self._state.files.get(path)
                self._changed |= ids
            return state.offset if state is not None else None
        ids, offset = self._append(path, start)
        self._gather(ids)
        return offset

    def _removed(self, path: Path) -> None:
        copilot = self._sources.copilot_folder(path)
        if copilot is not None:  # a file of a session went: the folder may still be one
            self._gather(self._sources.refresh_copilot(copilot))
            return
        source = database_of(path)
        if source is not None and source != path and source.is_dir() and source in self._state.files:
            self._gather(self._sources.refresh_database(source))  # a Cline session's file went: read the folder again
            return
        self._gather(self._forget(path))

    def _gather(self, ids: set[str]) -> None:
        with self._state.lock:
            self._changed |= ids

    def _after_batch(self, _paths: list[Path]) -> None:
        with self._state.lock:
            ids, self._changed = self._changed, set()
        self._moved(ids)
