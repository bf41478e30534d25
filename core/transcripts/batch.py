"""Reading many transcripts at once, on more than one core (the index's first scan).

Reading one file is self-contained: a new reader, `read_transcript`, the reader's
results; nothing is shared. So a scan can hand part of its files to worker processes
while the calling thread reads the rest. A worker sends each read back as plain values
where it can (`plain_read`: its results and warm-start trace, no reader; cheaper to
pickle and take in, and to keep), else whole with its reader (pickled). A file the index
holds no reader for is read again from scratch at its first change.

- Files are grouped into chunks of about `CHUNK_WORK` bytes of reading. The calling
  thread takes chunks from the front of the list (the newest files, so they show
  first), the workers from the back.
- The worker processes (started afresh, or forked from the command line) and the
  thread driving each are workers.py.
- Files the warm-start cache remembers (warmcache.py) are replayed first, in the
  calling thread: re-reading a few remembered lines is cheaper than starting a worker.
- Workers are started only when the scan has enough to read to pay for their start-up
  (`PARALLEL_MIN`), one fewer than the cores (at most `MAX_WORKERS`).
- Anything going wrong with a worker (it cannot start, dies, answers garbage) only
  means its chunks are read by the calling thread instead.
"""

from __future__ import annotations

import os
import sys
import threading
from collections import deque
from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planwatch.core.logs import get_logger
from planwatch.core.regular_files import open_regular_stat
from planwatch.core.transcripts.discover import DATABASE_HARNESSES, TranscriptFile, is_whole_document
from planwatch.core.transcripts.filemark import mark_at
from planwatch.core.transcripts.reader import SessionFacts, SessionResult, TranscriptReader
from planwatch.core.transcripts.registry import reader_for
from planwatch.core.transcripts.warmcache import Entry, Fit, Trace, fits, identity, replay
from planwatch.core.transcripts.warmcache import Remembered as RememberedEntries
from planwatch.core.transcripts.warmsummary import (
    facts_hash,
    summary_matches,
    summary_plans,
    summary_results,
    with_times,
)
from planwatch.core.transcripts.zst import is_zst

if TYPE_CHECKING:
    import queue

    from planwatch.core.transcripts.copilot import CopilotReader

log = get_logger(__name__)  # logging imported at the first record

CHUNK_WORK = 24 << 20  # bytes of reading per chunk handed out
CHUNK_FILES = 64  # and at most this many files per chunk
PARALLEL_MIN = 160 << 20  # less reading than this is done in the calling thread only
MAX_WORKERS = 3
SCAN_NICE = 5  # the app's scan workers' niceness above the app's (fork_ahead)


@dataclass
class FileRead:
    """One file read (from scratch, or replayed from the warm-start cache): what the
    index installs for it."""

    item: TranscriptFile
    reader: TranscriptReader | None = None
    results: list[SessionResult] = field(default_factory=list)
    offset: int = 0  # where following resumes (0 for .zst: never followed by offset)
    gone: bool = False  # vanished or unreadable: the index forgets the file
    failed: bool = False  # the reader failed: the index keeps what it had
    # What the reader was fed, as offsets (for the warm-start cache); None: not cached.
    trace: Trace | None = None
    warm: Fit | None = None  # replayed from the cache, the file unchanged or grown (warmcache.fits)
    # The file's mark at `offset`, from the bytes read (filemark.py: the follower's first
    # look compares with it); None: not taken.
    mark: int | None = None


def read_file(
    item: TranscriptFile, read_plans: bool, remembered: Entry | None = None, *, summaries: bool = False
) -> FileRead:
    """Read one transcript: from what the warm-start cache remembers of it when that
    still fits the file (warmcache.py), else from scratch; never raises. `summaries`:
    the caller needs only facts and counts (`planwatch sessions`): an unchanged file
    then re-reads its fact lines alone and takes its plans' counts from the cache (its
    items hold statuses, no text; never for a checklist or `show`)."""
    if item.harness == "cline":
        return read_cline(item, read_plans, remembered)
    if item.harness in DATABASE_HARNESSES:
        return read_database(item, read_plans, remembered)
    if item.harness == "copilot":
        return read_copilot(item, read_plans, remembered, summaries=summaries)
    try:
        reader = reader_for(item.harness)(item.path)
    except Exception:
        log.exception("no reader for %s", item.path)
        return FileRead(item, failed=True)
    # With plan reading off nothing is remembered (nothing is cached); a .zst has no
    # offsets to re-read cheaply, and a whole document (Gemini CLI before 0.60) is all
    # text: both are read whole every time.
    traced = read_plans and not is_zst(item.path) and not is_whole_document(item.path)
    try:
        if remembered is not None and traced:
            warm = _read_warm(item, reader, remembered, summaries)
            if warm is not None:
                return warm
            reader = reader_for(item.harness)(item.path)  # the replay's reader is spoilt
        # The reading code (windows, line scans, the backward scan) loads only when a
        # file is read from scratch or grew: a warm start of unchanged files replays.
        from planwatch.core.transcripts.lines import read_transcript

        trace = Trace() if traced else None
        outcome = read_transcript(reader, item.path, plans=read_plans, trace=trace)
        results = reader.results()
    except OSError as exc:  # vanished or unreadable: skip it, keep going
        log.info("cannot read %s: %s", item.path, exc)
        return FileRead(item, gone=True)
    except Exception:
        log.exception("failed to read %s", item.path)
        return FileRead(item, failed=True)
    offset = 0 if is_zst(item.path) else outcome.offset
    return FileRead(item, reader, results, offset, trace=trace, mark=outcome.mark)


def read_remembered(item: TranscriptFile, read_plans: bool, remembered: Entry) -> FileRead | None:
    """A file of lines replayed from what the warm-start cache remembers of it, and any
    bytes appended since; None, having read nothing from scratch, when the entry no
    longer fits the file (or the file is gone, or not one replayed: a database, a
    session folder, a .zst, a whole document). For a warm start's early pass (the
    index's `_read_early`), which reads only what is cheap and leaves the rest to the
    scan."""
    if (
        not read_plans
        or item.harness in _NOT_LINES
        or is_zst(item.path)
        or is_whole_document(item.path)
        or item.harness != remembered.harness
    ):
        return None
    try:
        return _read_warm(item, reader_for(item.harness)(item.path), remembered)
    except OSError:
        return None  # gone or unreadable: the scan says so
    except Exception:
        log.exception("failed to replay %s", item.path)
        return None


def read_cline(item: TranscriptFile, read_plans: bool, remembered: Entry | None = None) -> FileRead:
    """Read a Cline data folder (every session in it); never raises. Its text-free state
    (the sessions' file stats, row counts and what their messages gave besides text) is
    what the warm-start cache keeps: with it, the sessions that did not move leave their
    messages documents unread (cline.py)."""
    from planwatch.core.transcripts.cline import ClineReader

    reader = ClineReader(item.path)
    results = reader.read(plans=read_plans, remembered=remembered.state if remembered is not None else None)
    return _source_read(item, reader, results, remembered, traced=read_plans and reader.problem is None)


def read_database(item: TranscriptFile, read_plans: bool, remembered: Entry | None = None) -> FileRead:
    """Read a database source (OpenCode's, Kilo's: every session in it); never raises. A database that
    cannot be read gives no sessions and keeps its reader, whose `problem` says why,
    so that it is read again when it changes. With plans read, what the warm-start
    cache remembers of it lets unchanged sessions skip the search of their parts, and
    the reader's new text-free state is kept for the next start (warmcache.py)."""
    from planwatch.core.transcripts.opencode import OpenCodeReader
    from planwatch.core.transcripts.opencode_storage import OpenCodeStorageReader

    if item.path.is_dir():
        reader: OpenCodeReader = OpenCodeStorageReader(item.path)
        return FileRead(item, reader, reader.read(plans=read_plans), 0)
    if item.harness == "kilo":
        from planwatch.core.transcripts.kilo import KiloReader

        reader = KiloReader(item.path)
    else:
        reader = OpenCodeReader(item.path)
    if not read_plans:
        return FileRead(item, reader, reader.read(plans=False), 0)
    results = reader.read(plans=True, remembered=remembered.state if remembered is not None else None)
    return _source_read(item, reader, results, remembered, traced=reader.problem is None)


def read_copilot(
    item: TranscriptFile, read_plans: bool, remembered: Entry | None = None, *, summaries: bool = False
) -> FileRead:
    """Read a Copilot CLI session folder; never raises. With plans read, what it gave is
    remembered by its files' identities (warmcache.py); `summaries` (the command line's
    list) and every file of it unchanged: its log's ends and its workspace are read for
    the facts, the plan's statuses come from the cache's summary, and its database is
    not opened."""
    from planwatch.core.transcripts.copilot import CopilotReader, remembered_facts

    summary = remembered.summary if remembered is not None else None
    if summaries and read_plans and summary is not None and len(summary) == 1:
        # The listing's warm path: no reader (a listing never follows its files), the
        # facts from the workspace and the cache, the plan's statuses from the summary.
        facts = remembered_facts(os.fspath(item.path), remembered.state, item.log_ident)  # type: ignore[union-attr]
        if facts is not None and facts_hash(facts) == summary[0][0]:
            found = [SessionResult(facts=facts, plan=summary_plans(summary)[0])]
            return FileRead(item, None, found, 0, trace=remembered.trace(), warm="same")  # type: ignore[union-attr]
    reader = CopilotReader(item.path)
    if summaries and read_plans and remembered is not None and remembered.summary is not None:
        if reader.unchanged(remembered.state, item.log_ident):
            if reader.read_remembered(remembered.state) is None:
                reader.read(plans=False)
            results = summary_results(remembered.summary, reader)
            if results is not None:
                reader.problem = None
                return FileRead(item, reader, results, 0, trace=remembered.trace(), warm="same")
            reader = CopilotReader(item.path)
    return _copilot_read(item, reader, reader.read(plans=read_plans, log=item.log_ident), read_plans, remembered)


def read_copilot_folders(
    items: Sequence[TranscriptFile], read_plans: bool, *, summaries: bool = False
) -> list[FileRead]:
    """Read Copilot CLI session folders from scratch (copilot.read_folders: every
    folder's facts, then every database); never raises. `summaries` (the command line's
    list of counts): the plans' items hold their statuses, not their texts."""
    from planwatch.core.transcripts.copilot import read_folders

    readers = read_folders(
        [item.path for item in items],
        plans=read_plans,
        texts=not summaries,
        logs=[item.log_ident for item in items],
    )
    return [
        _copilot_read(item, reader, reader.results(), read_plans) for item, reader in zip(items, readers, strict=True)
    ]


def _copilot_read(
    item: TranscriptFile,
    reader: CopilotReader,
    results: list[SessionResult],
    read_plans: bool,
    remembered: Entry | None = None,
) -> FileRead:
    """What reading a Copilot CLI session folder gave, as the index installs it."""
    if not reader.present():
        return FileRead(item, gone=True)
    return _source_read(item, reader, results, remembered, traced=read_plans)


def _source_read(
    item: TranscriptFile, reader: Any, results: list[SessionResult], remembered: Entry | None, *, traced: bool
) -> FileRead:
    """What a source read whole by its own reader (a database, a session folder) gave,
    with, when `traced`, its text-free warm-start state under the file's identity (none
    when the file went meanwhile), and whether that is the state remembered."""
    trace = None
    if traced:
        try:
            trace = Trace(ident=identity(item.path.stat()), state=reader.warm_state())
        except OSError:
            trace = None
    same = remembered is not None and trace is not None and remembered.state == trace.state
    return FileRead(item, reader, results, 0, trace=trace, warm="same" if same else None)


def _read_warm(
    item: TranscriptFile, reader: TranscriptReader, remembered: Entry, summaries: bool = False
) -> FileRead | None:
    """`reader` fed what `remembered` points at, and then any bytes appended since; None
    when the file changed otherwise (warmcache.fits, a line's hash). With `summaries`
    and the file unchanged, its fact lines only, its plans from the summary (when the
    facts they give are the remembered ones; else the whole trace, with a new reader)."""
    fd, st = open_regular_stat(item.path, blocking=False)  # only ever `pread`
    try:
        fit = fits(remembered, identity(st))
        if fit is None:
            return None
        if summaries and fit == "same" and remembered.summary is not None:
            if replay(remembered, reader, fd, facts_only=True):
                results = summary_results(remembered.summary, reader, times=True)
                if results is not None:
                    trace = remembered.trace()
                    trace.seen(st)
                    return FileRead(item, reader, results, trace.offset, trace=trace, warm="same")
            reader = reader_for(item.harness)(item.path)
        if not replay(remembered, reader, fd):
            return None
        # An index follows the file: its mark, for the follower's first look (two small
        # reads, here rather than on the follower's thread).
        mark = mark_at(fd, remembered.offset) if fit == "same" else None
    finally:
        os.close(fd)
    trace = remembered.trace()
    if fit == "grown":
        from planwatch.core.transcripts.lines import read_transcript  # as in read_file

        mark = read_transcript(reader, item.path, remembered.offset, head=0, trace=trace).mark
    else:
        trace.seen(st)
    return FileRead(item, reader, reader.results(), trace.offset, trace=trace, warm=fit, mark=mark)


# -- a start that shows facts and counts, on every core --------------------------------

# At least this many remembered files on a start that shows facts and counts are shared
# with forked workers (fewer cost less than forking and taking the answers back).
WARM_PARALLEL_MIN = 1000
# The remembered files of such a start and what the cache remembers of them, as the
# workers forked for it inherit them: a chunk handed to one is a range of places in it.
_forked_warm: tuple[Sequence[TranscriptFile], Remembered] | None = None
# What a worker answers for a remembered file: its identity, its results' facts (as
# `SessionFacts.as_tuple`) and its reader's skipped lines; None: read it here instead.
WarmFacts = tuple[tuple[int, int, int, int, int], list[tuple[Any, ...]], int]


def warm_facts(chunk: range) -> list[WarmFacts | None]:
    """A forked worker's job on a start that shows facts and counts (`planwatch
    sessions`): for each remembered file of `chunk` (places in `_forked_warm`, which it
    inherited), its fact lines replayed and checked as `read_file(..., summaries=True)`
    does; None for a file where that did not hold (the caller reads it itself)."""
    shared = _forked_warm
    if shared is None:
        return [None] * len(chunk)
    items, remembered = shared
    return [_warm_facts(items[n], remembered.get(items[n].path)) for n in chunk]


def _warm_facts(item: TranscriptFile, entry: Entry | None) -> WarmFacts | None:
    if (
        entry is None
        or entry.summary is None
        or not entry.ops
        or item.harness in _NOT_LINES
        or is_zst(item.path)
        or is_whole_document(item.path)
    ):
        return None
    try:
        reader = reader_for(item.harness)(item.path)
        fd, st = open_regular_stat(item.path, blocking=False)  # only ever `pread`
        try:
            now = identity(st)
            if fits(entry, now) != "same" or not replay(entry, reader, fd, facts_only=True):
                return None
        finally:
            os.close(fd)
        facts = with_times(entry.summary, reader.result_facts())
        if not summary_matches(entry.summary, facts):
            return None
        return now, [f.as_tuple() for f in facts], reader.skipped_lines
    except Exception:  # anything odd: the caller reads the file as ever
        log.debug("a remembered file's facts were not replayed: %s", item.path, exc_info=True)
        return None


_NOT_LINES = frozenset(("cline", "copilot", *DATABASE_HARNESSES))


def _from_warm_facts(item: TranscriptFile, entry: Entry, answer: WarmFacts) -> FileRead:
    """The read of a remembered file a worker replayed the fact lines of (`warm_facts`):
    its facts, and the plans of its summary (statuses, no text). No reader: an index
    that shows facts and counts never follows its files."""
    now, facts, _skipped = answer
    plans = summary_plans(entry.summary or [])
    results = [SessionResult(facts=SessionFacts.from_tuple(f), plan=p) for f, p in zip(facts, plans, strict=True)]
    trace = entry.trace()
    trace.ident = now
    return FileRead(item, None, results, trace.offset, trace=trace, warm="same")


def _read_warm_facts(
    warm: Sequence[TranscriptFile], remembered: Remembered, read_plans: bool
) -> Generator[list[FileRead], None, None]:
    """The remembered files of a start that shows facts and counts, chunk by chunk:
    this thread from the newest end, forked workers (when there are enough files and
    forking is safe: the command line) from the oldest, each answering with facts
    (`warm_facts`), which cost this thread far less to take in than to replay."""
    global _forked_warm
    chunks: deque[range] = deque(range(at, min(at + CHUNK_FILES, len(warm))) for at in range(0, len(warm), CHUNK_FILES))
    # Only files of lines are replayed by a worker (a Copilot CLI session folder, a
    # database, a Cline folder is answered None and read here after the round trip).
    shareable = sum(1 for item in warm if item.harness not in _NOT_LINES)
    count = min(MAX_WORKERS, _cores() - 1, len(chunks) - 1) if shareable >= WARM_PARALLEL_MIN else 0
    forked: list[Any] = []
    if count > 0:
        from planwatch.core.transcripts.workers import fork_workers

        _forked_warm = (warm, remembered)
        try:
            forked = fork_workers(count)
        finally:
            _forked_warm = None

    def here(places: range) -> list[FileRead]:
        return [read_file(warm[n], read_plans, remembered.get(warm[n].path), summaries=True) for n in places]

    if not forked:
        for places in chunks:
            yield here(places)
        return
    from planwatch.core.transcripts.workers import Driver

    lock = threading.Lock()
    stopped = threading.Event()

    def take_back() -> range | None:
        with lock:
            return None if stopped.is_set() or not chunks else chunks.pop()

    # A worker's answer stands for an entry it checked in its copy of `remembered`.
    checked = remembered.checked_elsewhere if isinstance(remembered, RememberedEntries) else remembered.get
    import queue  # only a scan that forks workers waits on their answers

    answers: queue.SimpleQueue[tuple[str, Any]] = queue.SimpleQueue()
    drivers = [Driver(read_plans, chunks.pop(), take_back, answers, proc, facts=True) for proc in forked]  # type: ignore[arg-type]

    def taken_in(value: Any) -> list[FileRead]:
        facts, places = value
        reads: list[FileRead] = []
        for n, answer in zip(places, facts, strict=True):
            item = warm[n]
            entry = None if answer is None else checked(item.path)
            if answer is None or entry is None:
                reads.append(read_file(item, read_plans, remembered.get(item.path), summaries=True))
            else:
                reads.append(_from_warm_facts(item, entry, answer))
        return reads

    yield from _driven(drivers, answers, chunks, lock, stopped, taken_in, here, local=True)


# A file to read: from scratch, or with what the warm-start cache remembers of it.
Job = TranscriptFile | tuple[TranscriptFile, Entry]
# What the cache remembers of a scan's files: `in` says it may hold an entry, `get`
# checks it (a dict, or warmcache.Remembered, which checks each entry when asked).
Remembered = Mapping[Path, Entry] | RememberedEntries


def read_files(jobs: Sequence[Job], read_plans: bool, *, summaries: bool = False) -> list[FileRead]:
    """A worker's job: read a chunk of files (each from scratch, or replayed from what
    the cache remembers of it when that comes with it). The Copilot CLI session folders
    read from scratch are read together (`read_copilot_folders`, with `summaries`)."""
    folders = [n for n, job in enumerate(jobs) if not isinstance(job, tuple) and job.harness == "copilot"]
    together: dict[int, FileRead] = {}
    if len(folders) > 1:
        items = [jobs[n] for n in folders]
        together = dict(zip(folders, read_copilot_folders(items, read_plans, summaries=summaries), strict=True))  # type: ignore[arg-type]
    return [
        together[n]
        if n in together
        else read_file(job[0], read_plans, job[1])
        if isinstance(job, tuple)
        else read_file(job, read_plans)
        for n, job in enumerate(jobs)
    ]


# At least this many Copilot CLI folders read from scratch for a listing of counts are
# shared with a forked process (fewer cost less than the fork and the answer's way back).
COPILOT_HALVES_MIN = 400


def _copilot_halves(
    chunks: deque[list[Job]], read_here: Callable[[list[Job]], list[FileRead]]
) -> Generator[list[FileRead], None, None]:
    """The chunks of a listing of counts (`planwatch sessions`) read in this thread —
    unless most of what they hold is Copilot CLI folders read from scratch (a few small
    reads and one query each, about 0.2 ms, pure Python and SQLite around them): then a
    forked process reads the first half of the chunks while this thread reads the rest,
    and hands its reads back pickled as plain values (`plain_read`: a listing never
    follows its files, so no reader; a file or folder with a problem to say is read
    here again). Forked as core/forked.py allows (no other thread, a second core)."""
    folders = sum(1 for chunk in chunks for job in chunk if not isinstance(job, tuple) and job.harness == "copilot")
    total = sum(len(chunk) for chunk in chunks)
    ordered = list(chunks)
    half = len(ordered) // 2
    mine, theirs = ordered[half:], ordered[:half]
    answer = None
    if folders >= COPILOT_HALVES_MIN and folders * 2 >= total:
        import pickle

        from planwatch.core.forked import forked

        answer = forked(
            lambda: [plain_read(read) for chunk in theirs for read in read_here(chunk)],
            encode=lambda value: pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL),
            decode=pickle.loads,
        )
    if answer is None:
        for each in ordered:
            yield read_here(each)
        return
    try:
        here = [read_here(each) for each in mine]
    finally:
        ok, got = answer()  # waited for however this half ends: the child is not left behind
    jobs = [job for chunk in theirs for job in chunk]
    if not ok or type(got) is not list or len(got) != len(jobs):
        got = [None] * len(jobs)
    # In the order of the chunks, as one process reads them (the problems are said in
    # the order their files are taken in): what the forked process could not hand back
    # read here, in its place.
    again = iter(read_here([job for job, plain in zip(jobs, got, strict=True) if plain is None]) if None in got else [])
    yield [next(again) if plain is None else from_plain(job, plain) for job, plain in zip(jobs, got, strict=True)]  # type: ignore[arg-type]
    yield from here


def plain_read(read: FileRead, *, text: bool = False) -> tuple[Any, ...] | None:
    """A read as another process hands it back without its reader, in plain values
    (pickled and taken back several times faster than the objects): what reading a
    small file left behind besides its results, the reader, is most of what a read
    costs to pickle and take back, and only following the file needs it.

    - Counts (`planwatch sessions`, which never follows its files): its results' facts
      and their plans' text-free summary (statuses: what a listing shows), its trace
      for the warm-start cache, where reading stopped.
    - `text` (the app's first scan, whose workers read every file): its results whole,
      plans with their text, the same trace (its summary made again from the results:
      a replay that read appended bytes holds the remembered one), the offset, its mark,
      and whether it was replayed from the cache. The index keeps no reader for the
      file: the first change it sees to it reads it again from scratch
      (index_following.py), which gives what feeding the reader the appended bytes
      would have. Not a Copilot CLI folder (its reader answers the timeline).

    None when it is not a plain read (a problem or skipped lines to say, gone, failed,
    for counts replayed from the cache, a database's or a Cline folder's): the caller
    takes it whole, or reads it again."""
    from planwatch.core.transcripts.warmsummary import summarize

    reader, trace, item = read.reader, read.trace, read.item
    if (
        read.gone
        or read.failed
        or (read.warm is not None and not text)
        or reader is None
        or reader.problem is not None
        or reader.skipped_lines
        or trace is None
        or item.harness in DATABASE_HARNESSES
        or item.harness == "cline"
        or (text and item.harness == "copilot")
    ):
        return None
    # Whether the warm-start cache keeps the summary (index_warmstart._with_summary asks
    # the reader, which does not come back: the trace says it instead).
    kept = bool(trace.ops) or reader.warm_summary
    if text:
        summary = summarize(read.results) if kept else None
        traced = (trace.ops, trace.ident, trace.offset, trace.state, summary)
        return read.results, traced, read.offset, read.mark, read.warm
    facts = [result.facts.as_tuple() for result in read.results]
    return facts, summarize(read.results), kept, trace.ops, trace.ident, trace.offset, trace.state, read.offset


def from_plain(item: TranscriptFile, plain: tuple[Any, ...]) -> FileRead:
    """The read `plain_read` handed back, with no reader: its results whole (`text`), or
    made from the summary (their plans' items hold a status and no text, as a warm
    listing's do: `summary_plans`)."""
    if len(plain) == 5:  # with text
        results, traced, offset, mark, warm = plain
        return FileRead(item, None, results, offset, trace=Trace(*traced), mark=mark, warm=warm)
    facts, summary, kept, ops, ident, traced_to, state, offset = plain
    plans = summary_plans(summary)
    results = [SessionResult(facts=SessionFacts.from_tuple(f), plan=p) for f, p in zip(facts, plans, strict=True)]
    # A summary held when the cache keeps one, with no reader to say so
    # (index_warmstart._with_summary), as for a listing's warm read.
    trace = Trace(ops, ident, traced_to, state, summary if kept else None)
    return FileRead(item, None, results, offset, trace=trace)


def _cost(item: TranscriptFile) -> int:
    if item.harness == "copilot":
        # A few small reads and one query (~0.3 ms): read in this thread (a worker
        # measured slower for a thousand of them on two busy cores, and no faster on
        # two quiet ones). Asked first: a listing of Copilot CLI folders alone never
        # loads the reading code of files of lines (lines.py, its logging, msgspec).
        return _REPLAY_COST
    # Only files read from scratch are costed: the reading code is loaded by then.
    from planwatch.core.transcripts.lines import HEAD_WINDOW, TAIL_WINDOW
    from planwatch.core.transcripts.linescan import CHUNK

    if item.harness in DATABASE_HARNESSES:
        return CHUNK  # SQLite reads what the queries need, not the file
    whole = HEAD_WINDOW + TAIL_WINDOW + CHUNK  # what read_transcript reads whole
    # A file beyond the head + tail windows costs about the windows plus a backward scan.
    return item.size if item.size <= whole else HEAD_WINDOW + 3 * TAIL_WINDOW


# A remembered file costs a few lines re-read, not its size.
_REPLAY_COST = 64 << 10


def _chunks(jobs: Sequence[TranscriptFile], remembered: Remembered) -> list[list[Job]]:
    """`jobs` in chunks of about CHUNK_WORK bytes of reading (a file `remembered` holds
    costs a replay) and at most CHUNK_FILES files."""
    chunks: list[list[Job]] = []
    current: list[Job] = []
    work = 0
    for job in jobs:
        current.append(job)
        work += _REPLAY_COST if job.path in remembered else _cost(job)
        if work >= CHUNK_WORK or len(current) >= CHUNK_FILES:
            chunks.append(current)
            current, work = [], 0
    if current:
        chunks.append(current)
    return chunks


def worker_count(items: Sequence[TranscriptFile]) -> int:
    """How many worker processes a scan of `items` is worth (0: read them here)."""
    spare = min(MAX_WORKERS, _cores() - 1)
    if spare < 1 or sum(_cost(item) for item in items) < PARALLEL_MIN:
        return 0
    return spare


def fork_ahead(*, every_core: bool = False) -> int:
    """Fork the first scan's workers now, while this process has no other thread (an app
    about to start its own): its scan, which runs on a thread, then takes them ready,
    every module already imported, instead of starting fresh interpreters that import
    for a tenth of a second first. How many were forked (0: that scan starts its own).
    `every_core`: one per core, not per spare core, for a scan that leaves the reading
    to its workers (`read_all(local=False)`: the app, whose UI thread needs the
    interpreter the calling thread would hold). Those workers also run at a lower
    priority (SCAN_NICE): on a busy machine a key waits for the UI thread's turn on a
    core, which two workers at the UI's priority, one a core, took most of. (At +10 a
    scan on a machine at load 13 took five times as long; at +5 about as long as at 0.)"""
    count = min(MAX_WORKERS, _cores() - (0 if every_core else 1))
    if count < 1:
        return 0
    from planwatch.core.transcripts.workers import fork_spares

    return fork_spares(count, nice=SCAN_NICE if every_core else 0)


def release_ahead() -> None:
    """Let go of the workers `fork_ahead` made that no scan took (an app that ends first)."""
    pool = sys.modules.get("planwatch.core.transcripts.workers")
    if pool is not None:
        pool.release(pool.take_spares())


def _cores() -> int:
    """The cores this process may run on (a container may allow fewer than it has)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def read_all(
    items: Sequence[TranscriptFile],
    read_plans: bool,
    workers: int | None = None,
    remembered: Remembered | None = None,
    *,
    summaries: bool = False,
    local: bool = True,
) -> Generator[list[FileRead], None, None]:
    """`_read_all` (below), with the workers forked ahead for it (workers.fork_spares:
    the app forks them before it starts its threads) used first; those it does not
    use are let go when it ends. `local=False`: while workers run, the calling thread
    reads nothing itself (see `_read_all`)."""
    # Loaded only if something forked spares: a scan without workers imports none of it.
    pool = sys.modules.get("planwatch.core.transcripts.workers")
    spares = pool.take_spares() if pool is not None else []
    try:
        yield from _read_all(items, read_plans, workers, remembered, summaries=summaries, spares=spares, local=local)
    finally:
        if spares:
            assert pool is not None
            pool.release(spares)


def _read_all(
    items: Sequence[TranscriptFile],
    read_plans: bool,
    workers: int | None,
    remembered: Remembered | None,
    *,
    summaries: bool,
    spares: list[Any],
    local: bool = True,
) -> Generator[list[FileRead], None, None]:
    """Read every file; yields the reads chunk by chunk as they are done. Files the
    warm-start cache remembers (`remembered`) come first, replayed in the calling
    thread (cheap) — unless workers forked ahead wait ready (`spares`: the app), which
    then replay their share too; then the rest, the calling thread's chunks newest
    first, the workers' from the oldest end. Every item is read exactly once. Closing
    the iterator early (an exception in the consumer) stops the workers. `summaries`:
    as `read_file`'s, for the remembered files (the command line: no spares).

    `local=False` (the app): while a worker runs, the calling thread only hands out
    chunks and passes the reads on, newest first, to every worker; reading is pure
    Python, and in the app the thread reading would hold the interpreter its UI thread
    needs for every key (a key then waited up to a second behind a scan of 10,000
    sessions). It reads only what no worker can: everything when none could be forked,
    and a failed worker's chunks once the workers are gone."""
    # An entry is checked (`get`) only when its file is read: the first rows wait for
    # their own entries, not for all of them. `in` may hold for an entry that turns out
    # unfit; its file is then read from scratch.
    jobs: list[TranscriptFile] = list(items)
    if remembered and summaries:
        warm = [item for item in items if item.path in remembered]
        yield from _read_warm_facts(warm, remembered, read_plans)
        jobs = [item for item in items if item.path not in remembered]
    elif remembered and not spares:
        warm = [item for item in items if item.path in remembered]
        for at in range(0, len(warm), CHUNK_FILES):
            yield [
                read_file(item, read_plans, remembered.get(item.path), summaries=summaries)
                for item in warm[at : at + CHUNK_FILES]
            ]
        jobs = [item for item in items if item.path not in remembered]
    known: Remembered = remembered or {}
    chunks: deque[list[Job]] = deque(_chunks(jobs, known))

    def resolve(chunk: list[Job]) -> list[Job]:
        """A chunk's remembered files with their entries (checked now), or read afresh."""
        resolved: list[Job] = []
        for job in chunk:
            entry = None if isinstance(job, tuple) or job.path not in known else known.get(job.path)
            resolved.append(job if entry is None else (job, entry))  # type: ignore[arg-type]
        return resolved

    def read_here(chunk: list[Job]) -> list[FileRead]:
        """A chunk read in this thread (a listing of counts: its Copilot CLI folders'
        statuses only, `read_copilot_folders`)."""
        if summaries:
            return read_files(resolve(chunk), read_plans, summaries=True)
        return read_files(resolve(chunk), read_plans)

    if workers is None:
        workers = worker_count([item for item in jobs if item.path not in known])
    if spares:  # forked ahead, ready now: each is worth using
        workers = max(workers, len(spares))
    if workers < 1 or len(chunks) < 2:
        if summaries and local:
            yield from _copilot_halves(chunks, read_here)
            return
        for each in chunks:
            yield read_here(each)
        return
    lock = threading.Lock()
    stopped = threading.Event()

    # The workers read from the oldest end while this thread reads the newest; alone,
    # they read newest first, so the first rows are the newest still.
    take = chunks.pop if local else chunks.popleft

    def take_back() -> list[Job] | None:
        with lock:
            chunk = None if stopped.is_set() or not chunks else take()
        return None if chunk is None else resolve(chunk)

    # Worker processes (pickle, subprocess) load only when a scan is worth them.
    import queue  # as the workers: only a scan that forks them waits on their answers

    from planwatch.core.transcripts.workers import Driver, fork_workers

    answers: queue.SimpleQueue[tuple[str, Any]] = queue.SimpleQueue()
    count = min(workers, len(chunks) - (1 if local else 0))  # a chunk left for this thread when it reads
    forked = fork_workers(count)
    if not forked and spares:  # the spares used are the drivers' now; the rest go at the end
        forked, spares[:] = spares[:count], spares[count:]
        count = len(forked)
    # Each worker's first chunk is handed out now, before this thread starts reading.
    drivers = [
        Driver(
            read_plans,
            resolve(take()),
            take_back,
            answers,
            forked[n] if forked else None,
            plain="counts" if summaries else "text",
        )
        for n in range(count)
    ]
    yield from _driven(
        drivers,
        answers,
        chunks,
        lock,
        stopped,
        lambda reads: reads,
        read_here,
        local=local,
    )


def _driven(
    drivers: Sequence[Any],
    answers: queue.SimpleQueue[tuple[str, Any]],
    chunks: deque[Any],
    lock: threading.Lock,
    stopped: threading.Event,
    taken_in: Callable[[Any], list[FileRead]],
    here: Callable[[Any], list[FileRead]],
    *,
    local: bool,
) -> Generator[list[FileRead], None, None]:
    """The loop both scans run beside their worker drivers: each answer taken in as it
    comes (`taken_in`: a chunk's reads, or its facts), a failed worker's chunk given back
    to this thread, and, with `local`, this thread reading chunks itself (`here`) while
    none is waiting; once no worker runs, what is left is read here. The drivers stop
    however the loop ends (the caller may stop taking reads)."""
    import queue  # loaded by the caller already (its workers answer on one)

    running = len(drivers)
    try:
        for driver in drivers:
            driver.start()
        while True:
            try:
                wait = running and (not chunks or not local)
                kind, value = answers.get() if wait else answers.get_nowait()
            except queue.Empty:
                kind, value = "", None
            if kind in ("reads", "facts"):
                yield taken_in(value)
                continue
            if kind == "failed":  # the worker's chunk comes back to this thread
                with lock:
                    chunks.appendleft(value)
                continue
            if kind == "exit":
                running -= 1
                continue
            with lock:
                chunk = chunks.popleft() if chunks else None
            if chunk is not None:
                yield here(chunk)
            elif not running:
                return
    finally:
        stopped.set()
        for driver in drivers:
            driver.stop()
