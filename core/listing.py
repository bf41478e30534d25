"""The last listing of sessions, remembered without its text: a warm `planwatch
sessions` in one look (docs/performance.md, "A warm listing in one look").

`planwatch sessions` (facts and counts, no plan text) is what a person runs again and
again and what a script polls. When no transcript changed since the last listing, its
answer is the last one's: the index's whole work (readers fed their fact lines again,
the relations between sessions, the order) would only rebuild the same rows. So a
listing keeps its rows here, without their text, and the next one asks only:

1. the same planwatch code, settings and folders searched (`key_for`), in a file
   signed with this host's key (the warm-start cache's: a forged one could show
   made-up counts), holding no problem to report;
2. discovery, run as ever, finds the same files, each with the identity the listing
   read it at (device, inode, size, mtime and ctime in ns; a Copilot CLI session
   folder: each of its files' — its database's too, never opened here);
3. each row's text is then read again from the file itself. A title, a folder or a
   branch is never kept, only where it lies: the offset and length of the bytes that,
   read as the inside of a JSON string, give it (a whole string, or a part of one), and
   how it was made from them (as it is, or a first prompt made into a title) — or, for
   a Copilot CLI session, its `workspace.yaml`, read and parsed again. Any such bytes
   will do: in a file of the same identity they are the same bytes.

Anything else (a file added, gone or changed, another setting, a folder that became a
FIFO, a database among the roots) and the listing is made by the index as ever. What
this covers: sessions in files of lines (Claude Code, Codex, ACP logs, Gemini CLI's
JSON Lines, Qwen Code, pi) and Copilot CLI session folders. A listing holding anything
else (a database, a Cline folder, a compressed rollout, a Gemini legacy document) or
reporting a problem is not kept, nor one whose every text cannot be found again
exactly: what is kept always gives, byte for byte, what the index would.

Every listing made by the index is kept this way (the second listing is answered in
one look). Keeping it searches each file's fact lines (the warm-start trace says which
lines those are) for its texts, half of the files on a forked process; a file whose
identity did not change since the last snapshot keeps its places without a search.
"""

from __future__ import annotations

import os
import stat
import zlib
from collections import namedtuple
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from planwatch.core import paths
from planwatch.core.logs import get_logger
from planwatch.core.signed import UNSIGNED_MAC
from planwatch.core.titles import TITLE_LIMIT, prompt_title

# Copilot CLI's file names and workspace parser (a small module: its reader's helpers are
# imported where they are used): imported here once, not by each folder's check (an
# `import` statement in a function costs ~0.7 µs a call, 2 ms of a warm listing of 1,000).
from planwatch.core.transcripts import copilot_files

_EVENTS, _WORKSPACE = copilot_files.EVENTS, copilot_files.WORKSPACE

# `typing` is not loaded at run time: a quick command's start (docs/performance.md)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, NamedTuple

    from planwatch.core.sessions import FileState, SessionEntry
    from planwatch.core.transcripts.discover import TranscriptFile

log = get_logger(__name__)

FORMAT = 3  # 2: identities as one string each (`_identity`); 3: marshal's values
SNAPSHOT_NAME = "listing.marshal"
# The name a listing was kept under before (JSON): removed when one is kept now.
OLD_SNAPSHOT_NAME = "listing.json"
# The snapshot's first line: the keyed checksum's place, as core/signed.py signs a cache
# (`"mac":"…"`); the document follows it in `marshal`'s format, version 4 (Python 3.4
# on), which loads a thousand rows in about a third of the time JSON takes, with no
# decoder to import (the `json` package costs a start about 2 ms). `marshal` reads
# only what it wrote, and this file is read only when its checksum, made with this
# host's secret, holds.
_HEAD = b'{"mac":"' + UNSIGNED_MAC.encode() + b'"}\n'
_MARSHAL_VERSION = 4
# A snapshot larger than this is not read (a foreign file, or one gone wrong).
MAX_SNAPSHOT_BYTES = 64 << 20
# Spans of one file closer together than this are read with one `pread`.
ONE_READ = 64 << 10
# How a text was made from the JSON string it came from.
AS_IS, PROMPT = 0, 1
# Where a text comes from besides a JSON string in the file: the folder discovery tells
# (Gemini CLI's `.project_root`), a Copilot CLI session's workspace.
HINT, WORKSPACE_KEY = "hint", "workspace"
# The harnesses whose files of lines the warm-start trace covers.
LINE_HARNESSES = frozenset(("claude", "codex", "acp", "gemini", "qwen", "pi"))


def _identity(st: os.stat_result) -> str:
    """A file's identity as the listing keeps it: device, inode, size, mtime and ctime in
    ns, as the warm-start cache's five numbers (warmcache.identity), in one string (one
    value to decode rather than a list of five: a kept listing of 1,000 Copilot CLI
    folders decodes in 1.2 ms instead of 2.7)."""
    return f"{st.st_dev}:{st.st_ino}:{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}"


def _five_numbers(ident: object) -> bool:
    """Whether `ident` is an identity's five numbers (a list or tuple of ints)."""
    return isinstance(ident, (list, tuple)) and len(ident) == 5 and all(type(n) is int for n in ident)


def _identity_of(ident: Sequence[int]) -> str:
    """`_identity` of the five numbers discovery or a reader's trace keeps."""
    dev, ino, size, mtime, ctime = ident
    return f"{dev}:{ino}:{size}:{mtime}:{ctime}"


# The fields of a row, in order. Made by `collections.namedtuple` at run time; the class
# below, the same fields with their types, is what type checkers see (`typing`, whose
# `NamedTuple` would make it, costs a start about 3 ms: tests/core/test_listing_rows.py
# checks the two name the same fields).
LISTED_FIELDS = (
    "id",
    "harness",
    "title",
    "cwd",
    "git_branch",
    "path",
    "updated",
    "source",
    "done",
    "total",
    "partial",
    "parent_id",
    "subagents",
)

if TYPE_CHECKING:

    class Listed(NamedTuple):
        """One row of `planwatch sessions`: a session's facts and counts, no plan text
        (`title`, `cwd` and `git_branch` as read, not yet made safe to print)."""

        id: str
        harness: str
        title: str
        cwd: str | None
        git_branch: str | None
        path: str
        updated: str  # ISO 8601, as `datetime.isoformat` writes it
        source: str | None
        done: int
        total: int
        partial: bool
        parent_id: str | None
        subagents: int
else:
    Listed = namedtuple("Listed", LISTED_FIELDS)
    Listed.__doc__ = """One row of `planwatch sessions`: a session's facts and counts, no plan text."""


def listed(entry: SessionEntry) -> Listed:
    """An index's entry as a row."""
    session, plan = entry.session, entry.plan
    done, total = plan.counts()
    main = plan.main
    return Listed(
        id=session.id,
        harness=session.harness,
        title=session.title,
        cwd=session.cwd,
        git_branch=session.git_branch,
        path=str(session.path),
        updated=session.updated.isoformat(),
        source=main.source if main is not None else (plan.groups[0].source if plan.groups else None),
        done=done,
        total=total,
        partial=any(g.partial for g in plan.groups),
        parent_id=session.parent_id,
        subagents=len(session.subagents),
    )


def snapshot_file() -> Path:
    return paths.cache_dir() / SNAPSHOT_NAME


def key_for(roots: Sequence[Path]) -> str:
    """What the listing depends on besides the files: the code that reads them and the
    folders searched (each harness's own among them, which tell a file's harness by its
    place); a CRC-32 and an Adler-32 of them (no text is kept)."""
    from planwatch.core.signed import code_stamp

    # Whether a missing OpenCode or Kilo database was named (then its absence is a problem
    # the listing reports, and no listing with a problem is kept).
    named = f"{paths.opencode_db_named()}{paths.kilo_db_named()}"
    parts = [f"{FORMAT}", code_stamp(), named, str(paths.copilot_home()), *(str(root) for root in roots)]
    data = "\0".join(parts).encode("utf-8", "surrogatepass")
    return f"{zlib.crc32(data):08x}{zlib.adler32(data):08x}"


# -- the warm answer ---------------------------------------------------------------------

# A kept file: [path, harness, identity] for a file of lines, [path, "copilot", {file
# name: identity or None}] for a Copilot CLI session folder (`_identity`).
# A kept row: [id, harness, file (its place in the files), updated, source, done,
# total, partial, parent_id, subagents, title, cwd, branch], each text None, "", or
# where it lies: [offset, length, how] (a JSON string in the file), [HINT], or
# [WORKSPACE_KEY, key, how].
ROW_LENGTH = 13


def remembered_rows(roots: Sequence[Path], key: str) -> list[Listed] | None:
    """The rows of the last listing, their texts read again, when nothing it depends on
    changed since; None otherwise (the caller lists as ever)."""
    doc = _load(snapshot_file())
    if doc is None or doc.get("key") != key or _root_problems(roots):
        return None
    from planwatch.core.transcripts.discover import discover

    files: list[Any] = doc["files"]
    rows: list[Any] = doc["rows"]
    for row in rows:  # a loop, not a generator: a thousand rows checked in a third of the time
        if type(row) is not list or len(row) != ROW_LENGTH or type(row[2]) is not int:
            return None
    # The texts are read from the files themselves (each checked on its descriptor to be
    # the file kept), so a second core reads them while this one runs discovery, and this
    # one reads what is left once it is done (`_read_elsewhere`).
    reading = _read_elsewhere(files, rows)
    items = discover(roots)
    found = _found(items, files, _workspaces_read(rows))
    texts = reading(found is not None)
    if found is None or texts is None:
        return None
    out: list[Listed] = []
    for row, got in zip(rows, texts, strict=True):
        title, cwd, branch = got
        if cwd is HINTED:
            cwd = found[row[2]].folder_hint
        if type(title) is not str:
            return None
        out.append(Listed(row[0], row[1], title[:TITLE_LIMIT], cwd, branch, files[row[2]][0], *row[3:10]))
    return out


def _found(
    items: Sequence[TranscriptFile], files: list[Any], read_elsewhere: frozenset[int] = frozenset()
) -> list[TranscriptFile] | None:
    """Discovery's files in the order kept, when they are the files kept, each of the
    identity it was read at; None otherwise. `read_elsewhere`: the places of Copilot CLI
    folders whose workspace the texts' read checks on its own descriptor (`_workspace`),
    not asked here again."""
    if len(items) != len(files):
        return None
    place = {kept[0]: n for n, kept in enumerate(files) if type(kept) is list and len(kept) > 2}
    found: list[TranscriptFile | None] = [None] * len(files)
    for item in items:
        n = place.get(str(item.path), -1)
        if n < 0 or found[n] is not None:
            return None
        kept = files[n]
        if kept[1] != item.harness:
            return None
        if item.harness == "copilot":
            if not _same_folder(item, kept[2], workspace_read=n in read_elsewhere):
                return None
        elif item.ident is None or kept[2] != _identity_of(item.ident):
            return None
        found[n] = item
    return found  # type: ignore[return-value]  # every place filled: as many items as files, none twice


def _workspaces_read(rows: list[Any]) -> frozenset[int]:
    """The places of the files whose workspace a row's texts are read from."""
    places = []
    for row in rows:
        for source in (row[10], row[11], row[12]):  # a loop, not a generator a row: 0.65 -> 0.13 ms for 1,000
            if type(source) is list and len(source) == 3 and source[0] == WORKSPACE_KEY:
                places.append(row[2])
                break
    return frozenset(places)


# The stand-in for a folder discovery tells (filled in from its files, not read).
HINTED = True
# At least this many rows are read by a forked process (fewer cost less than the fork).
FORK_ROWS = 200
# The texts of this many rows are read by one process before it looks again at where
# the other has got to (about half a millisecond of reading).
RUN_ROWS = 32


def _read_elsewhere(files: list[Any], rows: list[Any]) -> Callable[[bool], list[Any] | None]:
    """Start reading the rows' texts (`_row_texts`) on a forked process, first row
    first, while this one runs discovery; the function returned reads them here from the
    last row back until the two meet, and gives them all (None when a row's could not
    be read). Where they meet is where each has got to: the two share two numbers (a
    page mapped before the fork), the end of the rows the child has read and the start
    of those this process took, and each looks at the other's before each run of
    `RUN_ROWS`. Which half is faster does not matter (discovery of a thousand folders
    takes about as long as their workspaces' read, less for files of lines). A stale
    look only makes both read a run (the same texts twice, never a row by neither):
    the child stops at a start this process has taken, this one at an end the child
    has read. Called with False (discovery found other files), it stops the child and
    gives None."""
    count = len(rows)
    meeting: Any = _meeting(count) if count >= FORK_ROWS else None
    answer = None
    if meeting is not None:
        from planwatch.core.forked import forked

        answer = forked(lambda: _texts_ahead(files, rows, meeting))

    def taken(wanted: bool) -> list[Any] | None:
        back = _texts_back(files, rows, meeting if answer is not None else None) if wanted else None
        if back is None:
            if answer is not None:
                meeting[1] = 0  # the child stops at its next run
                answer()  # and is reaped; its answer is not needed
            return None
        start, texts = back
        front: list[Any] | None = []
        if answer is not None:
            ok, got = answer()
            front = got if ok and (got is None or type(got) is list) else []
        if front is None:
            return None
        if len(front) < start:  # the child failed on the way: the rest read here
            rest = _texts(files, rows, len(front), start)
            if rest is None:
                return None
            front = front + rest
        return front[:start] + texts

    return taken


def _meeting(count: int) -> Any:
    """Two shared numbers: the end of the rows read from the front (0), the start of
    those taken from the back (`count`); None when no page can be mapped."""
    import mmap

    try:
        page = mmap.mmap(-1, 8)  # anonymous and shared: the forked child writes the same page
    except (OSError, ValueError):
        return None
    numbers = memoryview(page).cast("i")
    numbers[0], numbers[1] = 0, count
    return numbers


def _texts_ahead(files: list[Any], rows: list[Any], meeting: Any) -> list[Any] | None:
    """The forked child's part: rows' texts from the first on, a run at a time, until
    it reaches the rows the other process took."""
    out: list[Any] = []
    end = 0
    while end < (limit := meeting[1]):
        texts = _texts(files, rows, end, min(end + RUN_ROWS, limit))
        if texts is None:
            return None
        out += texts
        end = len(out)
        meeting[0] = end
    return out


def _texts_back(files: list[Any], rows: list[Any], meeting: Any) -> tuple[int, list[Any]] | None:
    """This process's part: rows' texts from the last back, a run at a time, until it
    reaches the rows the child has read (all of them when no child reads: `meeting`
    None); where it started, and the texts."""
    runs: list[list[Any]] = []
    start = len(rows)
    while start > (done := meeting[0] if meeting is not None else 0):
        first = max(start - RUN_ROWS, done)
        if meeting is not None:
            meeting[1] = first  # taken before it is read: the child stops short of it
        texts = _texts(files, rows, first, start)
        if texts is None:
            return None
        runs.append(texts)
        start = first
    return start, [text for run in reversed(runs) for text in run]


def _forked(work: Callable[[], list[Any] | None], count: int) -> Callable[..., list[Any] | None]:
    """`work` (of `count` files) started on a forked process when there are enough files
    (core/forked.py); the function returned gives its answer — the work done here instead
    when no process was forked, or it failed, unless it is called with `again=False`
    (the caller was interrupted: the child is waited for, nothing is done here; None)."""
    if count >= FORK_ROWS:
        from planwatch.core.forked import forked

        answer = forked(work)
    else:
        answer = None

    def taken(again: bool = True) -> list[Any] | None:
        if answer is not None:
            ok, got = answer()
            if ok and (got is None or type(got) is list):
                return got
        return work() if again else None

    return taken


def _texts(files: list[Any], rows: list[Any], first: int, end: int) -> list[Any] | None:
    """The three texts of rows `first` to `end`; None when one cannot be read as kept."""
    out = []
    for row in rows[first:end]:
        at = row[2]
        if not 0 <= at < len(files):
            return None
        kept = files[at]
        if row[10] == _WORKSPACE_TITLE and row[11] == _WORKSPACE_FOLDER and row[12] is None and type(kept) is list:
            got = _workspace_texts(kept[0], kept[2])  # a Copilot CLI row, the usual sources
        else:
            got = _row_texts(kept, row[10], row[11], row[12])
        if got is None:
            return None
        out.append(got)
    return out


# The files of a Copilot CLI session folder the listing keeps an identity (or None) of.
_SESSION_NAMES = frozenset(copilot_files.SESSION_FILES)


def _same_folder(item: TranscriptFile, files: Any, *, workspace_read: bool = False) -> bool:
    """Whether a Copilot CLI session folder holds the files the listing read: its log's
    identity as discovery asked it (when it did), every other file's asked here (one
    not there then must not be there now) — its workspace's and database's not, when
    `workspace_read` (the texts' read checks them, `_workspace`, on whichever of the two
    processes reads that row: the stat calls shared between two cores)."""
    if type(files) is not dict or files.keys() != _SESSION_NAMES:
        return False
    log_ident = item.log_ident
    if log_ident is not None:
        if files[_EVENTS] != _identity_of(log_ident):  # as Copilot's own folder's listing asked it
            return False
        names = _AFTER_LOG if not workspace_read else ()
    else:
        names = _EVERY_NAME if not workspace_read else (_EVENTS,)
    return _same_files(f"{item.path}/", files, names)


# The names `_same_folder` asks of a folder whose log discovery asked; every name.
_AFTER_LOG = tuple(name for name in copilot_files.SESSION_FILES if name != _EVENTS)
_EVERY_NAME = tuple(copilot_files.SESSION_FILES)
# The names the texts' read asks of a folder whose workspace it reads (`_workspace`).
_BESIDE_WORKSPACE = copilot_files.DATABASE_FILES


def _same_files(base: str, files: dict[str, Any], names: Sequence[str]) -> bool:
    """Whether each of `names` in the folder `base` is as kept: of the identity kept, or
    not there when it was not (a plain loop: a thousand folders a warm listing)."""
    for name in names:
        was = files[name]
        if was is None:
            # Not there then (the -wal and -journal, usually): whether anything is there
            # now, asked without a stat and its exception (as the reader's own warm
            # check, core/transcripts/copilot.py `unchanged`).
            if os.access(base + name, os.F_OK):
                return False
        else:
            try:
                st = os.stat(base + name)
            except OSError:
                return False
            if not stat.S_ISREG(st.st_mode) or was != _identity(st):
                return False
    return True


def _row_texts(kept: list[Any], *wanted: Any) -> list[Any] | None:
    """A row's three texts (title, folder, branch), each from where it lies in the file
    kept (`HINTED`: the folder discovery tells, filled in by the caller)."""
    out: list[Any] = [None, None, None]
    spans: list[tuple[int, int, int, int]] = []  # (place in out, offset, length, how)
    workspace: list[tuple[int, str, int]] = []
    for at, source in enumerate(wanted):
        if source is None or source == "":
            out[at] = source
        elif type(source) is not list:
            return None
        elif len(source) == 3 and type(source[0]) is int:
            spans.append((at, source[0], source[1], source[2]))
        elif source == [HINT] and at == 1:
            out[at] = HINTED
        elif len(source) == 3 and source[0] == WORKSPACE_KEY and source[1] in ("name", "cwd"):
            workspace.append((at, source[1], source[2]))
        else:
            return None
    if spans and (kept[1] not in LINE_HARNESSES or not _read_spans(kept[0], kept[2], spans, out)):
        return None
    if workspace:
        ws = _workspace(kept[0], kept[2])
        if ws is None:
            return None
        for at, name, how in workspace:
            value = getattr(ws, name)
            if value is None:
                return None
            out[at] = _made(value, how)
    return out


_OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)


def _read_spans(path: str, ident: str, spans: list[tuple[int, int, int, int]], out: list[Any]) -> bool:
    """Each span's string, read from the file (one `pread` when they lie close)."""
    # Discovery's stat just found a regular file of this identity here; the descriptor
    # is checked again (a file swapped in since is refused, never waited on).
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError:
        return False
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or _identity(st) != ident:
            return False
        low, high = spans[0][1], 0
        for _at, offset, length, _how in spans:
            low, high = min(low, offset), max(high, offset + length)
        together = os.pread(fd, high - low, low) if high - low <= ONE_READ else None
        pieces = [
            together[offset - low : offset - low + length] if together is not None else os.pread(fd, length, offset)
            for _at, offset, length, _how in spans
        ]
        # Each piece is the inside of a JSON string (as found when the listing was kept,
        # in a file of the same identity): decoded together, in one call.
        texts = _strings(b'["' + b'","'.join(pieces) + b'"]')
        if texts is None or len(texts) != len(spans):
            return False
        for (at, _offset, _length, how), text in zip(spans, texts, strict=True):
            out[at] = _made(text, how) if how else text
        return True
    except (OSError, ValueError, TypeError):
        return False
    finally:
        os.close(fd)


def _made(text: str, how: int) -> str:
    if how == PROMPT:
        return prompt_title(text)
    return text


def _string(data: bytes) -> str | None:
    """The JSON string `data` holds, or None when it holds anything else."""
    try:
        value = _decode(data)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    return value if type(value) is str else None


def _decode(data: bytes) -> Any:
    import msgspec  # the readers' decoder (core/transcripts/reader.py)

    return msgspec.json.decode(data)


_STRINGS: list[Any] = []


def _strings(data: bytes) -> list[str] | None:
    """The JSON array of strings `data` holds, or None when it holds anything else."""
    if not _STRINGS:
        import msgspec

        _STRINGS.append(msgspec.json.Decoder(list[str]).decode)
    try:
        return _STRINGS[0](data)  # type: ignore[no-any-return]
    except (ValueError, UnicodeDecodeError, RecursionError):  # msgspec's errors are ValueErrors
        return None


# A Copilot CLI row's usual sources (`_workspace_sources`): its title the workspace's
# name made a title, its folder the workspace's cwd, no branch.
_WORKSPACE_TITLE, _WORKSPACE_FOLDER = [WORKSPACE_KEY, "name", PROMPT], [WORKSPACE_KEY, "cwd", AS_IS]


def _workspace_texts(folder: Any, files: Any) -> list[Any] | None:
    """`_row_texts` of a row with the usual Copilot CLI sources, the same texts in a
    third of its time (a thousand rows a warm listing)."""
    if type(folder) is not str:
        return None
    ws = _workspace(folder, files)
    if ws is None:
        return None
    title, cwd = ws.name, ws.cwd
    if title is None or cwd is None:
        return None
    return [prompt_title(title), cwd, None]


def _workspace(folder: str, files: Any) -> Any:
    """A Copilot CLI session's workspace, read again from the file it was read from
    (`folder`: the session folder's path, as kept)."""
    name = copilot_files.WORKSPACE
    was = files.get(name) if type(files) is dict else None
    if (
        type(was) is not str
        or files.keys() != _SESSION_NAMES
        or not _same_files(f"{folder}/", files, _BESIDE_WORKSPACE)
    ):
        return None
    try:
        fd = os.open(f"{folder}/{name}", _OPEN_FLAGS)  # checked regular below, never waited on
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or _identity(st) != was:
                return None
            data = os.pread(fd, min(st.st_size, copilot_files.WORKSPACE_MAX) + 1, 0)
        finally:
            os.close(fd)
    except OSError:
        return None
    return copilot_files.parse_workspace(data, titles_only=True)


def _root_problems(roots: Sequence[Path]) -> bool:
    """Whether the index could report a problem with a root itself: a FIFO, a socket or
    a device where a folder was looked for, or a database among the roots (which a
    snapshot never covers: any `.db` root that is there)."""
    from planwatch.core.transcripts.discover import unusable_root

    return any(unusable_root(root) is not None or (root.suffix == ".db" and os.path.lexists(root)) for root in roots)


def _load(path: Path) -> dict[str, Any] | None:
    from planwatch.core.regular_files import open_regular_stat
    from planwatch.core.signed import code_stamp, signed

    try:
        fd, st = open_regular_stat(path, follow=False, blocking=False)
    except OSError:
        return None
    try:
        if st.st_size > MAX_SNAPSHOT_BYTES:
            return None
        raw = os.pread(fd, st.st_size + 1, 0)
    except OSError:
        return None
    finally:
        os.close(fd)
    if not (raw.startswith(_HEAD[:8]) and raw[len(_HEAD) - 3 : len(_HEAD)] == _HEAD[-3:] and signed(raw)):
        return None
    import marshal

    try:
        doc = marshal.loads(memoryview(raw)[len(_HEAD) :])
    except (ValueError, EOFError, TypeError):
        return None
    if not (
        type(doc) is dict
        and doc.get("format") == FORMAT
        and doc.get("code") == code_stamp()
        and type(doc.get("files")) is list
        and type(doc.get("rows")) is list
    ):
        return None
    return doc


# -- keeping a listing -------------------------------------------------------------------


def save_beside(
    key: str, entries: Sequence[SessionEntry], states: Mapping[Path, FileState], rows: Sequence[Listed]
) -> Callable[..., bool]:
    """`save`, started on a forked process when the listing is large enough to be worth
    one (core/forked.py), so that the caller writes the warm-start cache and its answer
    meanwhile; the function returned waits for it and says whether it was kept (it is
    `save` itself, run then, when no process was forked or the fork failed). Called with
    `again=False` (the command was interrupted: Ctrl-C reaches the child too), it only
    waits for the child, and keeps nothing itself."""
    kept = _forked(lambda: [save(key, entries, states, rows)], len(rows))

    def waited(again: bool = True) -> bool:
        return bool((kept(again) or [False])[0])

    return waited


def save(key: str, entries: Sequence[SessionEntry], states: Mapping[Path, FileState], rows: Sequence[Listed]) -> bool:
    """Keep the listing `rows` (made from `entries`, read from the files `states`) for
    the next one, when every file and every text of it can be found again exactly;
    otherwise remove any snapshot kept before. True when kept."""
    path = snapshot_file()
    before = _load(path)
    doc = _snapshot(key, entries, states, rows, before)
    if doc is None:
        try:
            path.unlink(missing_ok=True)  # it could only be refused from now on
        except OSError:
            pass
        return False

    import marshal

    from planwatch.core.atomic import PRIVATE_FILE_MODE, atomic_write
    from planwatch.core.signed import sign

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, sign(_HEAD + marshal.dumps(doc, _MARSHAL_VERSION)), mode=PRIVATE_FILE_MODE)
        (path.parent / OLD_SNAPSHOT_NAME).unlink(missing_ok=True)
    except OSError as exc:
        log.info("cannot keep the listing in %s: %s", path, exc)
        return False
    return True


def _snapshot(
    key: str,
    entries: Sequence[SessionEntry],
    states: Mapping[Path, FileState],
    rows: Sequence[Listed],
    before: dict[str, Any] | None,
) -> dict[str, Any] | None:
    from planwatch.core.signed import code_stamp

    files: list[list[Any]] = []
    place: dict[str, int] = {}
    for state in states.values():
        kept = _kept_file(state)
        if kept is None:
            return None
        place[kept[0]] = len(files)
        files.append(kept)
    # Rows kept before whose file has the same identity: their texts' places carry over.
    carried: dict[tuple[str, str], list[Any]] = {}
    if before is not None:
        old_files = before["files"]
        for row in before["rows"]:
            if type(row) is list and len(row) == ROW_LENGTH and type(row[2]) is int and 0 <= row[2] < len(old_files):
                old = old_files[row[2]]
                n = place.get(old[0]) if type(old) is list and old else None
                if n is not None and files[n] == old:
                    carried[(row[0], old[0])] = row
    out: list[list[Any]] = []
    searched: list[tuple[int, SessionEntry, FileState, list[Any]]] = []  # (row, ...) to search
    # Looked up by the path's text: a Path's hash and equality (its parts worked out
    # first) cost several times a string's, 10,000 times.
    by_name = {str(path): state for path, state in states.items()}
    for entry, row in zip(entries, rows, strict=True):
        n = place.get(row.path)
        own = by_name.get(row.path)
        if n is None or own is None:
            return None
        values = [row.id, row.harness, n, *row[6:]]
        old = carried.get((row.id, row.path))
        if old is not None and old[3:10] == values[3:]:
            values += old[10:]
        else:
            searched.append((len(out), entry, own, files[n]))
        out.append(values)
    # The search for the others' texts, half of the files of lines on a second core (a
    # Copilot CLI folder's reader says where its texts lie: nothing to search).
    searched.sort(key=lambda job: job[2].file.harness == "copilot")  # files of lines first
    half = sum(1 for job in searched if job[2].file.harness != "copilot") // 2

    def search(part: list[tuple[int, SessionEntry, FileState, list[Any]]]) -> list[Any] | None:
        found = []
        for _at, entry, own, kept in part:
            sources = _sources(entry, own, kept)
            if sources is None:
                log.debug("the listing is not kept: the texts of %s were not found again", entry.session.path)
                return None
            found.append(sources)
        return found

    first = _forked(lambda: search(searched[:half]), half)
    second = search(searched[half:])
    found = first()  # waited for even when this half failed: the child is not left behind
    if found is None or second is None or len(found) + len(second) != len(searched):
        return None
    for (at, _entry, _own, _kept), sources in zip(searched, found + second, strict=True):
        out[at] += sources
    return {"format": FORMAT, "code": code_stamp(), "key": key, "files": files, "rows": out}


def _kept_file(state: FileState) -> list[Any] | None:
    """What identifies one file the listing read, as kept; None for a file this does not
    cover."""
    item, trace = state.file, state.trace
    if trace is None:
        return None
    if item.harness == "copilot":
        files = trace.state.get("files") if isinstance(trace.state, dict) else None
        if not isinstance(files, dict):
            return None
        kept: dict[str, str | None] = {}
        for file_name, ident in files.items():
            if ident is not None and not _five_numbers(ident):
                return None  # not an identity this code made: the folder is not covered
            kept[file_name] = None if ident is None else _identity_of(ident)
        return [str(item.path), "copilot", kept]
    name = str(item.path)
    # Files of JSON Lines only: not a compressed rollout (`.jsonl.zst`: offsets in a
    # compressed stream) nor Gemini CLI's legacy whole documents (`.json`).
    if item.harness not in LINE_HARNESSES or not name.endswith(".jsonl") or trace.ident is None:
        return None
    return [name, item.harness, _identity_of(trace.ident)]


def _sources(entry: SessionEntry, state: FileState, kept: list[Any]) -> list[Any] | None:
    """Where each of the row's three texts lies, found in the file as it was read; None
    when one is not found exactly."""
    session = entry.session
    if state.file.harness == "copilot":
        return _workspace_sources(entry, state, kept)
    # The facts of this session's own result (any result of the file, when none is
    # named by its id: whatever a text is found from is checked to give it exactly).
    facts = [r.facts for r in state.results if r.facts.id == session.id] or [r.facts for r in state.results]
    if not facts:
        return None
    wanted: dict[int, list[tuple[str, int]]] = {}
    sources: list[Any] = [None, None, None]
    if session.title:
        # The candidate the title was made from (SessionFacts.title), as it is or as a
        # first prompt made into a title.
        targets = dict.fromkeys(f.title() for f in facts if f.title()[:TITLE_LIMIT] == session.title)
        if not targets:
            return None
        wanted[0] = [(t, how) for t in targets for how in (AS_IS, PROMPT)]
    else:
        sources[0] = session.title  # ""
    cwd = session.cwd
    if cwd is None or cwd == "":
        sources[1] = cwd
    elif any(f.cwd == cwd for f in facts):
        wanted[1] = [(cwd, AS_IS)]
    elif state.file.folder_hint == cwd and not any(f.cwd for f in facts):
        sources[1] = [HINT]
    else:
        return None
    branch = session.git_branch
    if branch is None or branch == "":
        sources[2] = branch
    else:
        wanted[2] = [(branch, AS_IS)]
    if wanted and not _find_spans(state, kept, wanted, sources):
        return None
    return sources


# Fact lines lying within this many bytes of each other are read with one `pread`.
SEARCH_READ = 256 << 10


def _find_spans(
    state: FileState, kept: list[Any], wanted: dict[int, list[tuple[str, int]]], sources: list[Any]
) -> bool:
    """Search the file's fact lines (as the warm-start trace names them) for each wanted
    text; fills `sources`. The file must still be the one read: every text is first
    looked for as it is (one byte search, most are found so), and only then are the
    lines decoded for a string a first prompt was made from."""
    from planwatch.core.transcripts.warmcache import FACT, MIDDLE

    trace = state.trace
    if trace is None:
        return False
    ops = trace.ops
    lines = [(ops[at + 1], ops[at + 2]) for at in range(0, len(ops) - 3, 4) if ops[at] in (FACT, MIDDLE)]
    if not lines:
        return False
    try:
        fd = os.open(state.file.path, _OPEN_FLAGS)
    except OSError:
        return False
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or _identity(st) != kept[2]:
            return False
        blocks = _blocks(fd, lines)
        if blocks is None:
            return False
        for place, targets in wanted.items():
            for how in (AS_IS, PROMPT):
                for target, allowed in targets:
                    if allowed != how:
                        continue
                    for offset, data, ends in blocks:
                        span = _literal(data, target) if how == AS_IS else _prompt_literal(data, ends, target)
                        if span is not None:
                            sources[place] = [offset + span[0], span[1], how]
                            break
                    if sources[place] is not None:
                        break
                if sources[place] is not None:
                    break
            if sources[place] is None:
                return False
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


def _blocks(fd: int, lines: list[tuple[int, int]]) -> list[tuple[int, bytes, list[tuple[int, int]]]] | None:
    """The fact lines' bytes, those lying close together read at once: (offset, bytes,
    each line's start and end in them)."""
    lines.sort()
    groups: list[list[tuple[int, int]]] = [[lines[0]]]
    for offset, length in lines[1:]:
        first = groups[-1][0][0]
        if offset + length - first <= SEARCH_READ:
            groups[-1].append((offset, length))
        else:
            groups.append([(offset, length)])
    blocks = []
    for group in groups:
        low = group[0][0]
        high = max(offset + length for offset, length in group)
        data = os.pread(fd, high - low, low)
        if len(data) != high - low:
            return None
        blocks.append((low, data, [(offset - low, offset - low + length) for offset, length in group]))
    return blocks


def _literal(data: bytes, text: str) -> tuple[int, int] | None:
    """Where in `data` bytes lie that, read as the inside of a JSON string, give `text`
    (start, length): a whole string's inside, or a part of a longer one (Codex CLI's
    folder inside its environment context). Any such bytes will do: at the same place of
    a file of the same identity they give the same text."""
    for encoded in _encodings(text):
        at = data.find(encoded)
        while at != -1:
            if _string(b'"' + data[at : at + len(encoded)] + b'"') == text:
                return at, len(encoded)
            at = data.find(encoded, at + 1)
    return None


def _encodings(text: str) -> list[bytes]:
    """The ways a writer spells a text inside a JSON string: raw UTF-8 (JavaScript's
    JSON.stringify, Rust's serde_json) and \\u escapes for what is not ASCII."""
    from planwatch.core.transcripts.reader import quoted_needles  # keeping a listing loads it already

    return [needle[1:-1] for needle in quoted_needles(text)]


def _prompt_literal(data: bytes, ends: list[tuple[int, int]], target: str) -> tuple[int, int] | None:
    """Where the string lies that `prompt_title` made `target` from: looked for in the
    lines (`ends`) holding the title's first word, each decoded."""
    words = target.split(None, 1)
    if not words:
        return None
    first = words[0]
    needles = _encodings(first)
    for start, end in ends:
        line = data[start:end]
        if not any(needle in line for needle in needles):
            continue
        for text in _strings_of(line):
            if first in text and prompt_title(text) == target:
                span = _literal(line, text)
                if span is not None:
                    return start + span[0], span[1]
    return None


def _strings_of(data: bytes) -> list[str]:
    """Every string value in a JSON line (none when it is not JSON)."""
    try:
        value = _decode(data)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return []
    found: list[str] = []
    stack = [value]
    while stack:
        value = stack.pop()
        if type(value) is str:
            found.append(value)
        elif type(value) is dict:
            stack.extend(value.values())
        elif type(value) is list:
            stack.extend(value)
    return found


def _workspace_sources(entry: SessionEntry, state: FileState, kept: list[Any]) -> list[Any] | None:
    """A Copilot CLI session's title and folder from its workspace, when that is where
    they came from (as its reader says, or read again now from the file the listing
    read)."""
    session = entry.session
    if session.git_branch is not None:
        return None
    sources = [[WORKSPACE_KEY, "name", PROMPT], [WORKSPACE_KEY, "cwd", AS_IS], None]
    trace = state.trace
    hint = trace.state.get("facts") if trace is not None and isinstance(trace.state, dict) else None
    if isinstance(hint, dict) and hint.get("workspace") is True:
        # The reader says the workspace alone gives its title and folder again (what
        # the warm-start cache's own warm path takes them from, core/transcripts/
        # copilot.remembered_facts): nothing to read.
        return sources
    ws = _workspace(kept[0], kept[2])
    if ws is None or ws.name is None or ws.cwd is None:
        return None
    if _made(ws.name, PROMPT)[:TITLE_LIMIT] != session.title or ws.cwd != session.cwd:
        return None
    return sources
