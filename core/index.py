"""The live session index: every session of every harness, with its plan, in memory.

The index is the one place that holds live transcript state (ARCHITECTURE). It finds
transcripts (discover.py), reads each with its harness's reader through the bounded
IO of lines.py, keeps one reader and one offset per file, and follows the files
(follow.py) so only appended bytes are read. What each reader was fed is remembered
as offsets in the warm-start cache (warmcache.py): the next start replays those lines
instead of scanning the files again. The first scan, when there is much to
read, is spread over worker processes (batch.py), which send each file's results back
without its reader where they can (a file with no reader is read again from scratch at
its first change, which gives what following it would have). It hands out frozen
`SessionEntry` values; callbacks run on the calling or the follower thread and carry
only ids.

The index holds three collaborators, each built with the files read and their locks
(core/index_state.py) and callbacks into the index, none reaching into it: the
follower that watches the folders after the scan (core/index_following.py), the
warm-start cache's loading and saving (core/index_warmstart.py), and the
database-backed sources (OpenCode's database and its -wal, Copilot CLI's session
folders: core/index_databases.py). Which files make which sessions, and the entries
shown, is core/sessions.py.

Privacy: with `read_plans` off no line naming a planning tool reaches a reader, and
every plan is empty. Plan text lives only in these objects, never on disk or in logs.
"""

from __future__ import annotations

import contextlib
import gc
import threading
import time
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from planwatch.core.index_databases import DatabaseSources, database_problems
from planwatch.core.index_following import Following
from planwatch.core.index_state import IndexState
from planwatch.core.index_warmstart import WarmStart
from planwatch.core.logs import get_logger
from planwatch.core.model import EMPTY_PLAN
from planwatch.core.paths import default_roots as default_roots  # its home: core/paths.py
from planwatch.core.sessions import (
    FileState,
    NewestFirst,
    SessionEntry,
    build_entry,
    ids_of,
    newest_first,
    orphan_ids,
    relations,
)
from planwatch.core.settings import load_settings
from planwatch.core.transcripts.batch import FileRead, read_all, read_file, read_remembered
from planwatch.core.transcripts.discover import (
    DATABASE_HARNESSES,
    TranscriptFile,
    WalkTooLong,
    classify,
    discover,
    unusable_root,
)
from planwatch.core.transcripts.reader import SessionResult, SourceReader
from planwatch.core.transcripts.warmcache import WarmCache

if TYPE_CHECKING:
    from planwatch.core.history import PlanHistory

log = get_logger(__name__)  # logging imported at the first record

# The first scan hands its entries on in batches so the list fills in as it goes: the
# first after BATCH_FILES files (the newest: the first screen), then batches that grow
# with what was read. Each batch's rebuild looks at every file read so far, so batches
# of a fixed size made the scan quadratic (10,000 files: 200 batches, 3.4-9.5 s of
# rebuilds); growing by half of what was read keeps it linear (about 15 batches).
BATCH_FILES = 50
BATCH_GROWTH = 2  # a batch holds at least 1/BATCH_GROWTH of the files read before it
BATCH_SECONDS = 0.1
# And at most this share of the scan's time goes to batches (the time between two is at
# least the last one's cost times BATCH_COST_SHARE).
BATCH_COST_SHARE = 4


# How long the app's cold start may walk the folders before its UI starts (`find_ahead`):
# 10,000 files in the page cache take about 0.1 s.
FIND_AHEAD_FOR = 0.3


def _no_pause() -> None:
    """A scan nobody holds (`SessionIndex.pause_point` unset)."""


class SessionIndex:
    """Sessions of every harness, in memory, kept up to date while following.

    It holds three collaborators, each given the files read and their locks
    (`IndexState`) and the callbacks it needs: the warm-start cache (`WarmStart`), the
    database-backed sources (`DatabaseSources`) and the follower (`Following`)."""

    def __init__(self, roots: list[Path] | None = None, *, read_plans: bool = True, summaries: bool = False) -> None:
        """`summaries`: the index is used for facts and counts only (`planwatch
        sessions`): an unchanged remembered file's plans are its summary from the
        warm-start cache, items with statuses and no text (batch.read_file). Not for
        the app, `show` or following."""
        if roots is None:
            settings = load_settings()
            roots = default_roots(settings)
            read_plans = read_plans and settings.read_agent_plans
        self.roots_searched: list[Path] = list(roots)
        # False: the first scan leaves writing the warm-start cache to its caller
        # (`save_cache`), as the app does: it says the scan is done first, since writing
        # the cache of 10,000 sessions holds the interpreter for about a second.
        self.save_after_scan = True
        # False: the first scan leaves all reading to its worker processes while any
        # runs (batch.read_all's `local`), as the app does: its UI thread shares the
        # interpreter with the scan's thread.
        self.read_in_scan_thread = True
        # Called on the scan's thread once a first scan has found every file (after a
        # warm start's first rows are handed on): the app collects garbage there
        # rather than before the scan (tui/live.py).
        self.on_found: Callable[[], None] | None = None
        # Called on the scan's thread between files and before each batch is handed on:
        # the app holds the scan there while a key of the person's is on its way
        # (tui/live.py, `LiveFeed.give_way`); the scan shares the interpreter with its UI.
        self.pause_point: Callable[[], None] | None = None
        # The files `find_ahead` found for the first scan, with the folders searched.
        self._found_ahead: tuple[list[Path], list[TranscriptFile]] | None = None
        self._read_plans = read_plans
        self._summaries = summaries
        # The files read and their locks, shared with the collaborators below; the
        # state's `lock` guards the index's maps too.
        self._state = IndexState()
        self._roots_lock = threading.Lock()  # one change of folders at a time
        # One rebuild of entries at a time: each works outside the lock and swaps in.
        self._rebuild_lock = threading.Lock()
        self._entries: dict[str, SessionEntry] = {}
        self._order = NewestFirst()  # the entries, newest first, kept as they change
        self._on_change: Callable[[list[str]], None] | None = None
        # (files read, files found) by the scan running or last run: its progress.
        self.progress: tuple[int, int] = (0, 0)
        # Sources that cannot be read as they stand (a database, pi's tree cut by a
        # missing parent): file → what is wrong, each logged once; `problems()` hands
        # them to the CLI and the app.
        self._problems: dict[Path, str] = {}
        self._warm = WarmStart(self._state, reads_plans=lambda: self._read_plans, roots=lambda: self.roots_searched)
        self._sources = DatabaseSources(
            self._state, load=self._load, forget=self._forget, note_problem=self._note_problem
        )
        self._following = Following(
            self._state,
            self._sources,
            load=self._load,
            append=self._append,
            forget=self._forget,
            moved=lambda ids: self._notify(self._rebuild(ids, orphans=True)),
        )

    def problems(self) -> list[str]:
        """What keeps sources from being read, each naming the file: a transcript folder
        that is a FIFO, socket or device; a database that cannot be read."""
        unusable = [problem for root in self.roots_searched if (problem := unusable_root(root)) is not None]
        with self._state.lock:
            noted, read = dict(self._problems), set(self._state.files)
        return [*unusable, *database_problems(self.roots_searched, noted, read).values()]

    def _note_problem(self, path: Path, problem: str | None) -> None:
        """Keep what keeps `path` from being read as it stands (None: nothing now),
        logged the first time it is said."""
        with self._state.lock:
            if problem is None:
                self._problems.pop(path, None)
                return
            if self._problems.get(path) == problem:
                return  # reported once
            self._problems[path] = problem
        log.info("not read as it stands: %s", problem)  # the CLI and the app say it

    def save_cache(self) -> None:
        """Write the warm-start cache when it is behind (never with plans off)."""
        self._warm.save()

    def problem_notes(self) -> list[str]:
        """`problems()` as what happened, for a person: `skipped …` for a source none of
        whose sessions is listed (a folder that is a FIFO, a database that cannot be
        opened); a source whose sessions are still listed (a Copilot CLI or Cline
        session without its plan, a pi tree cut short) is named by its problem alone,
        which says how they are shown."""
        notes = [f"skipped {problem}" for root in self.roots_searched if (problem := unusable_root(root)) is not None]
        with self._state.lock:
            noted, files = dict(self._problems), dict(self._state.files)
        for path, problem in database_problems(self.roots_searched, noted, set(files)).items():
            state = files.get(path)
            # A source may say several problems, one a line (a Cline folder's broken files).
            for line in problem.splitlines():
                notes.append(line if state is not None and state.results else f"skipped {line}")
        return notes

    # -- reading -----------------------------------------------------------------------

    def scan(self, on_batch: Callable[[list[SessionEntry]], None] | None = None) -> None:
        """Find and read every transcript, newest first (blocking: call it from a worker
        thread). `on_batch` gets the entries made by each batch of files so the UI fills
        in as the scan goes."""
        with cyclic_gc_paused():
            self._scan(on_batch)

    def preload_cache(self) -> None:
        """Start loading the warm-start cache now, on a thread, for the first scan (the
        app, as it is made: the load overlaps Textual's start)."""
        self._warm.preload()

    def find_ahead(self) -> bool:
        """Find every file now, on the calling thread, for the first scan to take, when
        no warm-start cache is there to show the newest sessions before the folders are
        walked (a cold start; with one, the early pass comes first: `_read_early`). The
        app calls it as it is made, before its UI starts: on the scan's thread the walk
        shared the interpreter with Textual's start, and 10,000 files took 0.25-0.35 s
        (0.1 s of its own) while the scan's workers waited for their first files. A
        walk still going after FIND_AHEAD_FOR (folders not in the page cache, a slow
        disk) is given up, and the scan walks them as before: the app's first frame
        never waits for a slow disk. True when it found them."""
        if self._state.files or self._warm.remembers_any():
            return False
        try:
            found = discover(self.roots_searched, deadline=time.monotonic() + FIND_AHEAD_FOR)
        except WalkTooLong:
            log.info("finding the transcripts took over %g s: left to the scan", FIND_AHEAD_FOR)
            return False
        except Exception:  # the scan walks again, and says what fails (the app shows it)
            log.debug("finding the transcripts ahead failed", exc_info=True)
            return False
        self._found_ahead = (list(self.roots_searched), found)
        return True

    def _scan(self, on_batch: Callable[[list[SessionEntry]], None] | None) -> None:
        cache: WarmCache | None = None
        early: dict[Path, TranscriptFile] = {}
        if on_batch is not None and not self._following.active and not self._state.files:
            # A first scan whose batches are shown: the newest files the cache remembers
            # are replayed and shown before every file is found (the folder walk and a
            # stat of each of 10,000 files take 0.3-0.4 s).
            cache = self._warm.cache()
            if cache is not None:
                early = self._read_early(cache, on_batch)
        ahead, self._found_ahead = self._found_ahead, None
        if ahead is not None and ahead[0] == self.roots_searched and not self._state.files:
            files = every = ahead[1]  # found as the app was made (`find_ahead`)
        else:
            files = every = discover(self.roots_searched)
        if self.on_found is not None:
            self.on_found()
        # A file the early pass read is not read again, unless it is no longer the file
        # it read (changed since, or found as something else).
        found_early = {item.path for item in every if early.get(item.path) == item} if early else set()
        if found_early:
            files = [item for item in every if item.path not in found_early]
        found = len(every)
        self.progress = (len(found_early), found)
        # Files come newest first, subagents among them: a subagent read before its parent
        # waits in `_rebuild` until the parent is read; orphans show once the scan is done.
        batch_ids: set[str] = set()
        last = time.monotonic()
        count = 0
        size, interval = BATCH_FILES, BATCH_SECONDS  # when the next batch is due (see BATCH_FILES)
        each = self._read_each(files, newest_shown_first=on_batch is not None, cache=cache, every=every)
        first = True
        pause = self.pause_point or _no_pause
        try:
            for ids in each:
                pause()
                if first:
                    # The first batch is due BATCH_FILES files or BATCH_SECONDS after the
                    # first read, not after the cache's load and the workers' start: a
                    # batch of one row, then the app's wait between repaints, was what a
                    # warm start first showed.
                    first, last = False, time.monotonic()
                batch_ids |= ids
                count += 1
                self.progress = (self.progress[0] + 1, found)
                # Without a consumer, entries are built once, at the end.
                if on_batch is not None and (count >= size or time.monotonic() - last >= interval):
                    started = time.monotonic()
                    self._emit_batch(batch_ids, on_batch, final=False)
                    last = time.monotonic()
                    size = max(BATCH_FILES, self.progress[0] // BATCH_GROWTH)
                    interval = max(BATCH_SECONDS, (last - started) * BATCH_COST_SHARE)
                    batch_ids, count = set(), 0
        finally:
            each.close()  # an on_batch that stops the scan stops its workers now
        self._emit_batch(batch_ids, on_batch, final=True)
        # Files removed since an earlier scan, or read early and not found since.
        seen = {item.path for item in files} | found_early
        with self._state.lock:
            gone = [path for path in self._state.files if path not in seen]
        gone_ids: set[str] = set()
        for path in gone:
            gone_ids |= self._forget(path)
        if gone_ids:
            self._emit_batch(gone_ids, on_batch, final=True)
        if gone:
            self._state.cache_behind = True
        if self.save_after_scan:
            self.save_cache()

    def _read_early(
        self, cache: WarmCache, on_batch: Callable[[list[SessionEntry]], None]
    ) -> dict[Path, TranscriptFile]:
        """A warm start's early pass, before any folder is walked: the BATCH_FILES files
        the cache remembers as the newest under the folders searched, each classified as
        discovery would and replayed when its entry still fits it (its identity checked
        with a stat as it is read; grown: the appended bytes read too), shown as the first
        batch. A file that went or changed otherwise is left to the scan. The files it
        read, as it found them (the scan reads again one it finds otherwise)."""
        read: dict[Path, TranscriptFile] = {}
        ids: set[str] = set()
        pause = self.pause_point or _no_pause
        for path, harness in cache.newest(self.roots_searched, BATCH_FILES):
            pause()
            entry = cache.get(path, harness)
            item = classify(path) if entry is not None else None
            if entry is None or item is None or item.harness != harness:
                continue
            got = read_remembered(item, self._read_plans, entry)
            if got is None:
                continue
            ids |= self._install(got)
            read[path] = item
        self.progress = (len(read), 0)  # every file is not found yet
        self._emit_batch(ids, on_batch, final=False)
        return read

    def _read_each(
        self,
        files: list[TranscriptFile],
        *,
        newest_shown_first: bool = False,
        cache: WarmCache | None = None,
        every: list[TranscriptFile] | None = None,
    ) -> Generator[set[str], None, None]:
        """Read and install every file; yields the session ids each one touched.
        `newest_shown_first` (a scan whose batches are shown): the files the warm-start
        cache remembers are read in the order of their remembered last activity, newest
        first (`Remembered.newest_first`), so the first batch holds the newest sessions
        however the files' mtimes are ordered."""
        if self._following.active:
            # One at a time under the IO lock, so a reader the follower feeds is never
            # replaced by a read that began before the follower's last append.
            for item in files:
                yield self._load(item)
            return
        # The first scan: what the warm-start cache remembers is replayed; the rest is
        # spread over worker processes when there is enough to read.
        remembered = self._warm.remembered(files if every is None else every, cache)
        if remembered and newest_shown_first:
            files = remembered.newest_first(files)
        reads = read_all(
            files,
            self._read_plans,
            remembered=remembered,
            summaries=self._summaries,
            local=self.read_in_scan_thread,
        )
        try:
            for chunk in reads:
                for read in chunk:
                    yield self._install(read)
        finally:
            reads.close()

    def _emit_batch(self, ids: set[str], on_batch: Callable[[list[SessionEntry]], None] | None, *, final: bool) -> None:
        if on_batch is not None and self.pause_point is not None:
            self.pause_point()
        changed = self._rebuild(ids, orphans=final)
        if on_batch is not None and changed:
            with self._state.lock:
                entries = [self._entries[i] for i in changed if i in self._entries]
            entries = newest_first(entries)
            if entries:
                on_batch(entries)

    def _load(self, item: TranscriptFile) -> set[str]:
        """Read a file from scratch; returns the session ids it touched (before and after)."""
        with self._state.io_lock:
            return self._install(read_file(item, self._read_plans))

    def _install(self, read: FileRead) -> set[str]:
        """Keep what reading a file from scratch gave; returns the session ids it touched."""
        path = read.item.path
        problem = read.reader.problem if read.reader is not None else None
        if read.item.harness in DATABASE_HARNESSES or problem is not None or path in self._problems:
            # A database may hold no sessions and say why; a transcript read in part
            # (pi's tree cut by a parent it does not hold) says what is missing.
            self._note_problem(path, problem)
        if read.gone:
            return self._forget(path)
        if read.failed:
            return set()
        state = FileState(read.item, read.reader, read.results, read.offset, read.item.mtime, read.trace, read.mark)
        if read.warm != "same" and read.trace is not None and read.trace.ident is not None and problem is None:
            self._state.cache_behind = True  # read from scratch or grown: remember what it was fed
        with self._state.io_lock, self._state.lock:
            before = ids_of(self._state.files.get(path))
            self._state.files[path] = state
            return before | ids_of(state)

    def _append(self, path: Path, start: int) -> tuple[set[str], int | None]:
        with self._state.io_lock:
            with self._state.lock:
                state = self._state.files.get(path)
            if state is None or state.reader is None:
                return set(), None
            from planwatch.core.transcripts.lines import read_transcript  # loaded by the first scan already

            try:
                trace = state.trace if self._read_plans else None
                outcome = read_transcript(state.reader, path, start, head=0, plans=self._read_plans, trace=trace)
                results = state.reader.results()
                mtime = path.stat().st_mtime
            except OSError as exc:
                log.info("cannot read %s: %s", path, exc)
                return self._forget(path), None
            problem = state.reader.problem
            if problem is not None or path in self._problems:
                self._note_problem(path, problem)
            with self._state.lock:
                before = ids_of(state)
                state.results, state.offset, state.mtime, state.mark = results, outcome.offset, mtime, None
                self._state.cache_behind = True
                return before | ids_of(state), outcome.offset

    def _forget(self, path: Path) -> set[str]:
        with self._state.lock:
            state = self._state.files.pop(path, None)
            return ids_of(state)

    # -- building entries --------------------------------------------------------------

    def _rebuild(self, ids: Iterable[str], *, orphans: bool) -> list[str]:
        """Recompute the entries of `ids`; returns the ids whose entry changed or went.

        Worked out from the files as they are when it starts, outside the lock, then
        swapped in under it: working out who owns what over every file (relations)
        and building a batch's entries took up to a tenth of a second at 10,000
        sessions, and a reader of the entries (the app's UI thread, at each refresh
        of its list) waited for it. Rebuilds run one at a time, so a later one, which
        started from newer files, always lands after an earlier one."""
        with self._rebuild_lock:
            with self._state.lock:
                files = list(self._state.files.values())
                known = list(self._entries) if orphans else []
                read_plans = self._read_plans
            built = self._built(files, known, set(ids), orphans=orphans, read_plans=read_plans)
            with self._state.lock:
                if self._read_plans != read_plans:
                    # The privacy switch moved meanwhile: built again under the lock with
                    # it as it is now, so no plan read before it went off is kept.
                    files, known = list(self._state.files.values()), list(self._entries) if orphans else []
                    built = self._built(files, known, set(ids), orphans=orphans, read_plans=self._read_plans)
                return self._swap_in(built)

    @staticmethod
    def _built(
        files: list[FileState], known: list[str], wanted: set[str], *, orphans: bool, read_plans: bool
    ) -> dict[str, SessionEntry | None]:
        """The entry of each wanted session (None: it went), from `files`."""
        owners, children = relations(files)
        if orphans:
            # Entries that are not a main session (orphans shown earlier) are looked
            # at again: their parent may have appeared since.
            wanted |= {sid for sid in known if sid not in owners}
            wanted |= orphan_ids(owners, children)
        return {sid: build_entry(sid, owners, children, orphans=orphans, read_plans=read_plans) for sid in wanted}

    def _swap_in(self, built: dict[str, SessionEntry | None]) -> list[str]:
        """Keep the entries built (under the lock); returns the ids that changed or went."""
        changed: list[str] = []
        new: list[SessionEntry] = []  # sessions not held before: put in order together
        for sid, entry in built.items():
            old = self._entries.get(sid)
            if entry is None:
                if old is not None:
                    del self._entries[sid]
                    self._order.drop(old)
                    changed.append(sid)
            elif entry != old:
                self._entries[sid] = entry
                if old is None:
                    new.append(entry)
                else:
                    self._order.put(entry, old)
                changed.append(sid)
        self._order.put_new(new)
        return changed

    # -- the API the app uses ----------------------------------------------------------

    def entries(self) -> list[SessionEntry]:
        """Every session, newest activity first (a snapshot)."""
        with self._state.lock:
            return self._order.entries()

    def file_states(self) -> dict[Path, FileState]:
        """Every file read, with what the index knows of it (a snapshot of the map: the
        remembered listing, core/listing.py, keeps where each file's texts lie)."""
        with self._state.lock:
            return dict(self._state.files)

    def get(self, session_id: str) -> SessionEntry | None:
        with self._state.lock:
            return self._entries.get(session_id)

    @property
    def reads_plans(self) -> bool:
        """Whether plans are read (the privacy switch as the index last took it)."""
        return self._read_plans

    def plan_history(self, session_id: str) -> PlanHistory:
        """The session's plan after each change, from its source: a database that keeps
        each call (OpenCode, `history`), else its transcript replayed again (history.py).
        Reads files: call it from a worker thread. Empty with plan reading off."""
        from planwatch.core.history import PlanHistory, replay_history, with_agents  # only the timeline asks

        with self._state.lock:
            entry = self._entries.get(session_id)
            state = self._state.files.get(entry.session.path) if entry is not None else None
        if entry is None or state is None or not self._read_plans:
            return PlanHistory()
        from planwatch.core.transcripts.copilot import CopilotReader  # only the timeline asks

        reader = state.reader
        if isinstance(reader, (SourceReader, CopilotReader)):  # a source read as a whole, not replayed
            with self._state.io_lock:
                return PlanHistory(tuple(reader.history(session_id)))
        with self._state.lock:
            kids = [self._state.files[path] for path in entry.session.subagents if path in self._state.files]
        try:
            main = replay_history(state.file.path, state.file.harness, session_id)
            agents = [
                (f"agent-{kid.agent_id()}", replay_history(kid.file.path, kid.file.harness, kid.agent_id()))
                for kid in kids
            ]
        except (OSError, ValueError) as exc:  # unreadable now, or no line reader for it
            log.info("cannot read the history of %s: %s", state.file.path, exc)
            return PlanHistory()
        if not self._read_plans:
            return PlanHistory()  # reading was turned off meanwhile: no plan text handed out
        return with_agents(main, agents)

    def start_following(self, on_change: Callable[[list[str]], None]) -> None:
        """Follow every root; `on_change(session ids)` is called from the follower thread
        after each burst of changes."""
        with self._state.lock:
            self._on_change = on_change
            roots = list(self.roots_searched)
        self._following.start(roots)

    def set_roots(self, roots: Sequence[Path]) -> list[str]:
        """Look in `roots` from now on (the person saved other transcript folders):
        sessions of folders no longer listed go, those of new folders are read, the
        others keep what was read, and following restarts on the new folders. Returns
        the ids whose entry changed or went (also told to `on_change` while following).
        Blocking: call it from a worker thread."""
        with self._roots_lock:
            return self._set_roots(roots)

    def _set_roots(self, roots: Sequence[Path]) -> list[str]:
        with self._state.lock:
            if list(roots) == self.roots_searched:
                return []
            self.roots_searched = list(roots)
            on_change = self._on_change
        # The follower's roots are fixed: a new one watches the new folders.
        followed = self._following.stop()
        files = discover(self.roots_searched)
        with self._state.lock:
            known = set(self._state.files)
        ids: set[str] = set()
        for path in known - {item.path for item in files}:
            ids |= self._forget(path)
        for item in files:
            if item.path not in known:
                ids |= self._load(item)
        if ids:
            self._state.cache_behind = True
        changed = self._rebuild(ids, orphans=True)
        if followed and on_change is not None:
            self.start_following(on_change)
        self._notify(changed)
        return changed

    def stop(self) -> None:
        """Stop following (joins the follower's threads). What was appended while
        following is written to the warm-start cache on a thread of its own (the app
        calls this from its UI thread); the process waits for it before it ends."""
        with self._state.lock:
            stale = self._state.cache_behind
        self._following.stop()
        if stale:
            threading.Thread(target=self.save_cache, name="planwatch-cache-save").start()

    def set_read_plans(self, on: bool) -> None:
        """The privacy switch. Off: plans are emptied now and no plan line is read again.
        On: every file is read again in the background, plans included."""
        with self._state.lock:
            if on == self._read_plans:
                return
            self._read_plans = on
            if not on:
                for state in self._state.files.values():
                    state.reader = None  # drop the plan state readers held
                    state.trace = None
                    state.results = [SessionResult(facts=r.facts, plan=EMPTY_PLAN) for r in state.results]
                ids = list(self._entries)
        if not on:
            self._notify(self._rebuild(ids, orphans=True))
        threading.Thread(target=self._reload_all, name="planwatch-reindex", daemon=True).start()

    def _reload_all(self) -> None:
        """Read every known file again from scratch (after the privacy switch moved)."""
        with self._state.lock:
            items = [state.file for state in self._state.files.values()]
        ids: set[str] = set()
        for item in items:
            ids |= self._load(item)
            state = self._state.get(item.path)
            if state is not None:
                self._following.track(item.path, state.offset)
        self._notify(self._rebuild(ids, orphans=True))

    def _notify(self, ids: list[str]) -> None:
        callback = self._on_change
        if ids and callback is not None:
            try:
                callback(sorted(ids))
            except Exception:
                log.exception("on_change callback failed")


@contextlib.contextmanager
def cyclic_gc_paused() -> Iterator[None]:
    """The first scan makes hundreds of thousands of objects (readers, facts, items) and
    no garbage cycles: the cyclic collector would walk them all again and again, about
    a tenth of a scan's time for nothing. Reference counting still frees what goes.
    (`planwatch sessions` keeps it paused for the whole command: tui/cli_sessions.py.)"""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@contextlib.contextmanager
def cyclic_gc_paused_then_frozen(*, collect_first: bool = True) -> Iterator[Callable[[], bool]]:
    """`cyclic_gc_paused` for a process that lives on after its scan (the app): what is
    garbage is collected first, then, when the scan is done, every object alive is moved
    out of the collector's reach (`gc.freeze`) before it runs again. Otherwise its first
    collections walk everything the scan made (about 440,000 objects at 10,000 sessions),
    a pause of a third of a second on every thread at the first refresh of the list that
    makes objects, and again at each later full collection. Those objects hold no cycles
    (above), so reference counting still frees them. Yields a function that tells,
    once the block is left, whether this froze anything: only then is an unfreeze ours.
    `collect_first=False`: the caller collects inside the block, before the freeze."""
    froze = False
    if not gc.isenabled():  # paused by the caller already: nothing of ours to freeze
        yield lambda: froze
        return
    if collect_first:
        gc.collect()
    gc.disable()
    try:
        yield lambda: froze
    finally:
        gc.freeze()
        froze = True
        gc.enable()
