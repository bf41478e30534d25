"""Finding every transcript on disk and what kind each one is (docs/reading.md, Sessions).

Where each harness writes (docs/reading.md describes each):
- Claude: `$CLAUDE_CONFIG_DIR/projects/<slug>/<sessionId>.jsonl`; subagents in
  `<slug>/<sessionId>/subagents/agent-<agentId>.jsonl` (beside a `.meta.json`), or in
  the older layout `<slug>/agent-<agentId>.jsonl`, whose parent is named by the
  `sessionId` of its records (the reader reports it as `parent_id`).
- Codex: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl[.zst]` and
  `archived_sessions/`; a plain `.jsonl` beside a `.jsonl.zst` wins. A sub-thread rollout
  names its parent in its records (`parent_id` with `is_subagent`).
- ACP: the logs `planwatch acp-tap` writes under `core.paths.acp_log_dir()`.
- Gemini CLI: `$GEMINI_CLI_HOME/.gemini/tmp/<slug>/chats/session-*.jsonl` (before 0.60
  `session-*.json`, rewritten whole); subagents in `chats/<parent session id>/<id>.jsonl`.
  The folder of a slug is in `tmp/<slug>/.project_root`, else in `projects.json`.
- Qwen Code: `$QWEN_HOME/projects/<slug>/chats/<session id>.jsonl` (default `~/.qwen`);
  a `--fork-session` file is a session of its own.
- pi: `$PI_CODING_AGENT_DIR/sessions/--<folder>--/<time>_<id>.jsonl` (default
  `~/.pi/agent`); a `--fork` file is a session of its own naming its origin.
- Copilot CLI: `$COPILOT_HOME/session-state/<session id>/` (default `~/.copilot`), one
  folder per session (`events.jsonl`, `workspace.yaml`, `session.db`): the folder is
  found as the session's file and read by `core.transcripts.copilot`. Given as a root,
  `~/.copilot`, its `session-state`, one session's folder or one of its files will do;
  elsewhere a folder is one when its `events.jsonl` opens with Copilot's `session.start`.
- OpenCode: one SQLite database (`core.paths.opencode_db()`) holding every session; read
  by `core.transcripts.opencode`, found here like a file.
- Cline CLI: its data folder (`core.paths.cline_data_dir()`), `sessions/<id>/` with two
  JSON files each and the task board `db/teams.db`; the folder is found as one source
  (read by `core.transcripts.cline`), given as itself, `CLINE_DIR`, the board, a
  session's folder or one of its files.
- Kilo CLI: its own database of OpenCode's tables (`core.paths.kilo_db()`, a file named
  `kilo.db`), read by OpenCode's reader under Kilo's names (core/transcripts/kilo.py).
- Extra roots (settings `transcriptRoots`, `--root DIR`): any layout; the harness is
  detected per file from its name and folder shape, else from its first lines. A folder
  holding `opencode.db` or `kilo.db` (OpenCode's or Kilo's data folder) or a `.db` file
  given itself is read as that database (`kilo.db`, or the one `KILO_DB` names, is Kilo's;
  any other OpenCode's).

This module only finds files and tells their kind; sniffing a few KB of each is
sniff.py's job, reading them lines.py's.
"""

from __future__ import annotations

import os
import re
import stat
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from planwatch.core import paths
from planwatch.core.logs import get_logger
from planwatch.core.regular_files import read_regular
from planwatch.core.transcripts.sniff import (
    SNIFF_BYTES,
    first_lines,
    is_database_file,
    json_loads,
    read_small,
    sniff_harness,
)

# `typing` is not loaded at run time: a quick command's start (docs/performance.md)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from planwatch.core.model import Harness  # annotations only: a listing need not load the model

log = get_logger(__name__)  # logging imported at the first record


@dataclass(frozen=True, init=False)
class TranscriptFile:
    """One transcript file found on disk."""

    path: Path
    harness: Harness
    mtime: float
    size: int
    # A subagent's transcript (Claude agent-<id>.jsonl): it belongs to another session.
    subagent: bool = False
    # The parent session's id when the folder layout names it (Claude's new layout,
    # Gemini's `chats/<parent id>/`); otherwise the reader finds it in the records.
    parent_hint: str | None = None
    # The working folder when the layout tells it and the records do not (Gemini CLI).
    folder_hint: str | None = None
    # A Copilot CLI session's log's identity as found (device, inode, size, mtime and
    # ctime in ns; None: no regular log): a warm start compares it with the cache's
    # rather than asking again (warmcache.Identity; not part of the file's equality).
    log_ident: tuple[int, int, int, int, int] | None = field(default=None, compare=False)
    # A file's own identity as discovery's stat found it (the same five numbers; None
    # where discovery did not stat the file itself): the remembered listing
    # (core/listing.py) compares it with the one the file was read at.
    ident: tuple[int, int, int, int, int] | None = field(default=None, compare=False)

    def __init__(
        self,
        path: Path,
        harness: Harness,
        mtime: float,
        size: int,
        subagent: bool = False,
        parent_hint: str | None = None,
        folder_hint: str | None = None,
        log_ident: tuple[int, int, int, int, int] | None = None,
        ident: tuple[int, int, int, int, int] | None = None,
    ) -> None:
        # The fields in one write of the instance's dict: the frozen class's own
        # `__init__` sets each through `object.__setattr__` (1.8 -> 0.8 µs a file found,
        # 10 ms of a 10,000-file discovery). Its parameters are the fields, in order, with
        # their defaults (tests/core/test_discover_file.py).
        self.__dict__.update(
            path=path,
            harness=harness,
            mtime=mtime,
            size=size,
            subagent=subagent,
            parent_hint=parent_hint,
            folder_hint=folder_hint,
            log_ident=log_ident,
            ident=ident,
        )

    @property
    def agent_id(self) -> str | None:
        """The subagent's id from its file name (`agent-<agentId>.jsonl`)."""
        name = self.path.name
        if name.startswith("agent-") and name.endswith(".jsonl"):
            return name[len("agent-") : -len(".jsonl")]
        return None


def is_transcript_name(path: Path) -> bool:
    """Files that may be transcripts (found by the scan, followed while live): JSON
    Lines, plain or zstd-compressed, not hidden; and Gemini CLI's legacy whole-file
    sessions (`chats/session-*.json`)."""
    name = path.name
    return _transcript_name(name, path.parent.name if name.endswith(".json") else "")


def _transcript_name(name: str, folder: str) -> bool:
    """`is_transcript_name` from the file's name and its folder's name (only a `.json`
    file's folder matters): the walk tells both without making a Path."""
    if name.startswith("."):
        return False
    return name.endswith(".jsonl") or name.endswith(".jsonl.zst") or _legacy_gemini_name(name, folder)


def _legacy_gemini_name(name: str, folder: str) -> bool:
    return name.startswith("session-") and name.endswith(".json") and folder == "chats"


def _is_legacy_gemini_name(path: Path) -> bool:
    name = path.name
    return name.endswith(".json") and _legacy_gemini_name(name, path.parent.name)


def is_whole_document(path: Path) -> bool:
    """A transcript rewritten whole rather than appended to (Gemini CLI before 0.60):
    read at once, and read again whenever it changes."""
    return _is_legacy_gemini_name(path)


def is_gemini_name(path: Path) -> bool:
    """Gemini CLI's name rule (docs/reading.md, Gemini CLI): `session-….jsonl` /
    `session-….json` in a `chats` folder,
    or `<id>.jsonl` in a folder inside one (a subagent), whatever the folders above."""
    name = path.name
    if name.startswith("."):
        return False
    if path.parent.name == "chats":
        return name.startswith("session-") and (name.endswith(".jsonl") or name.endswith(".json"))
    return path.parent.parent.name == "chats" and name.endswith(".jsonl")


_GEMINI_KEYS = (b'"sessionId"', b'"projectHash"', b'"startTime"')
_BOM = b"\xef\xbb\xbf"


def is_gemini_session(path: Path) -> bool:
    """A file given by path is a Gemini CLI session: its name (`is_gemini_name`) and a
    first line (or object) holding `sessionId`, `projectHash` and `startTime`."""
    if not is_gemini_name(path):
        return False
    if path.name.endswith(".json"):
        # One object rewritten whole, metadata keys first: judge its opening bytes.
        try:
            head = read_regular(path, SNIFF_BYTES - 1)
        except OSError:
            return False
        # A byte order mark before it (an editor's save) is read past, as the reader does.
        return head.removeprefix(_BOM).lstrip().startswith(b"{") and all(key in head for key in _GEMINI_KEYS)
    lines = first_lines(path)
    if not lines:
        return False
    try:
        record = json_loads(lines[0].removeprefix(_BOM))
    except (ValueError, UnicodeDecodeError, RecursionError):
        return False
    return isinstance(record, dict) and all(
        isinstance(record.get(key), str) for key in ("sessionId", "projectHash", "startTime")
    )


def gemini_folder(path: Path) -> str | None:
    """The project folder of a Gemini session file: `tmp/<slug>/.project_root`, else the
    folder `projects.json` maps to `<slug>` (`{"projects": {folder: slug}}`)."""
    chats = path.parent if path.parent.name == "chats" else path.parent.parent
    slug_dir = chats.parent
    root = read_small(slug_dir / ".project_root")
    if root is not None:
        folder = root.decode("utf-8", "replace").strip()
        if folder:
            return folder
    data = read_small(slug_dir.parent.parent / "projects.json")
    if data is None:
        return None
    try:
        projects = json_loads(data).get("projects")
    except (ValueError, UnicodeDecodeError, RecursionError, AttributeError):
        return None
    if isinstance(projects, dict):
        for folder, slug in projects.items():
            if slug == slug_dir.name and isinstance(folder, str) and folder:
                return folder
    return None


OPENCODE_DB_NAME = "opencode.db"
KILO_DB_NAME = "kilo.db"
CLINE_BOARD_NAME = "teams.db"
# The database files a folder walk picks up besides transcripts.
DATABASE_NAMES = frozenset({OPENCODE_DB_NAME, KILO_DB_NAME, CLINE_BOARD_NAME})
# Harnesses whose sessions come from a source read whole by its own reader (`read()`,
# then `refresh()` when the source changes: core/index_databases.py), not line by line.
DATABASE_HARNESSES: frozenset[str] = frozenset({"opencode", "kilo", "cline"})


def cline_data_of(path: Path) -> Path | None:
    """The Cline data folder `path` is or belongs to: the folder itself (`sessions/`
    beside `db/teams.db`; the default one may have no board yet), `CLINE_DIR` holding
    `data/`, the board `db/teams.db`, a session's folder `sessions/<id>/` or one of its
    two files; None for anything else."""
    for candidate in (path, path / "data"):
        if (candidate / "sessions").is_dir() and (
            (candidate / "db" / CLINE_BOARD_NAME).is_file()
            or candidate == paths.cline_data_dir()
            or _holds_cline_sessions(candidate / "sessions")
        ):
            return candidate
    if path.name == CLINE_BOARD_NAME and path.parent.name == "db":
        data = path.parent.parent
        return data if (data / "sessions").is_dir() else None
    folder = path if path.is_dir() else path.parent
    if folder.parent.name == "sessions" and (
        path.is_dir() or path.name in (f"{folder.name}.json", f"{folder.name}.messages.json")
    ):
        return cline_data_of(folder.parent.parent) if folder.parent.parent != path else None
    return None


# A Cline session id (`1796150957437_jfzg6`: the time in ms, a short tag).
_CLINE_ID = re.compile(r"[0-9]{10,}_[0-9A-Za-z]+")
# How many of `sessions/`'s entries are looked at for a Cline session's folder.
_CLINE_LOOKS = 64


def _holds_cline_sessions(sessions: Path) -> bool:
    """Whether `sessions` holds a Cline session's folder (`<id>/<id>.json` or
    `<id>.messages.json`, the id of Cline's shape): a data folder with no board yet
    (Cline makes `db/teams.db` only once agent teams are on; its yolo and ACP modes turn
    them off), given as a root or holding a session `show` was given. Names are matched
    before anything is asked of the disk, and at most `_CLINE_LOOKS` entries are."""
    try:
        with os.scandir(sessions) as entries:
            for looked, entry in enumerate(entries):
                if looked >= _CLINE_LOOKS:
                    return False
                name = entry.name
                if _CLINE_ID.fullmatch(name) and any(
                    os.path.isfile(os.path.join(sessions, name, f"{name}{suffix}"))
                    for suffix in (".json", ".messages.json")
                ):
                    return True
    except OSError:
        return False
    return False


def cline_session_of(path: Path) -> tuple[Path, str] | None:
    """(the data folder, the session id) when `path` is a Cline session's folder or one
    of its two files (what `show` takes by path)."""
    folder = path if path.is_dir() else path.parent
    if folder.parent.name != "sessions":
        return None
    if not path.is_dir() and path.name not in (f"{folder.name}.json", f"{folder.name}.messages.json"):
        return None
    data = cline_data_of(folder.parent.parent)
    return (data, folder.name) if data is not None else None


def _found_folder(folder: Path, harness: Harness) -> TranscriptFile | None:
    """A folder read whole as one source, found as of its mtime; None when it went."""
    try:
        st = folder.stat()
    except OSError:
        return None
    return TranscriptFile(folder, harness, st.st_mtime, 0)


def classify_cline(path: Path) -> TranscriptFile | None:
    """Cline's data folder (the one `path` is or belongs to) as a found source."""
    data = cline_data_of(path)
    if data is None:
        return None
    return _found_folder(data, "cline")


def classify_storage(path: Path) -> TranscriptFile | None:
    """OpenCode's pre-database `storage/` folder (`path` itself or `path/storage`) as a
    found source; None when it is not one, or when a database sits beside it (the
    database holds what was migrated from it)."""
    storage = path if path.name == "storage" else path / "storage"
    if not (storage / "session").is_dir() or is_database_file(storage.parent / OPENCODE_DB_NAME):
        return None
    return _found_folder(storage, "opencode")


def database_harness(path: Path) -> Harness:
    """Whose database a file is: Kilo's when it is named `kilo.db` or is the one
    `KILO_DB` names (Kilo's tables are OpenCode's: the name tells them apart), else
    OpenCode's."""
    if path.name == KILO_DB_NAME or path == paths.kilo_db():
        return "kilo"
    return "opencode"


def classify_database(path: Path) -> TranscriptFile | None:
    """OpenCode's (or Kilo's) database as a found file (None when it is not a database)."""
    if not is_database_file(path):
        return None
    try:
        st = path.stat()
    except OSError:
        return None
    return TranscriptFile(path, database_harness(path), st.st_mtime, st.st_size)


def classify_copilot(folder: Path, *, checked: bool = False) -> TranscriptFile | None:
    """A Copilot CLI session folder as a found file (None when it is not one); its time
    is its log's (else the folder's). `checked`: the caller knows it is one (a folder of
    Copilot's own `session-state`)."""
    from planwatch.core.transcripts.copilot_files import EVENTS

    if not checked:
        from planwatch.core.transcripts.copilot import is_copilot_session

        if not is_copilot_session(folder):
            return None
    try:
        st = os.stat(folder / EVENTS)
    except OSError:
        try:
            st = os.stat(folder)
        except OSError:
            return None
    return TranscriptFile(folder, "copilot", st.st_mtime, 0)


def _copilot_layout(root: Path) -> Iterator[TranscriptFile]:
    """Copilot CLI's `session-state`: each folder holding a log, a workspace or a
    database is a session (its `.session-operation-locks/` and anything else are not)."""
    from planwatch.core.transcripts.copilot_files import DATABASE, EVENTS, WORKSPACE

    try:
        with os.scandir(root) as it:
            folders = [
                entry.name for entry in it if not entry.name.startswith(".") and entry.is_dir(follow_symlinks=False)
            ]
    except OSError as exc:
        log.debug("cannot list %s: %s", root, exc)
        return
    base = os.fspath(root)
    child = _child_maker(root)
    for name in folders:
        folder = child(name)
        ident = None
        try:
            st = os.stat(f"{base}/{name}/{EVENTS}")  # a string: one path made, not two
            if stat.S_ISREG(st.st_mode):
                ident = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
        except OSError:
            if not ((folder / WORKSPACE).is_file() or (folder / DATABASE).is_file()):
                continue
            try:
                st = os.stat(folder)
            except OSError:
                continue
        yield TranscriptFile(folder, "copilot", st.st_mtime, 0, log_ident=ident)


def copilot_root(root: Path) -> Path | None:
    """The `session-state` folder a root stands for: itself, or Copilot CLI's home
    holding one; None for any other folder."""
    if root == paths.copilot_sessions_dir() or root.name == "session-state":
        return root
    if root == paths.copilot_home() or (root / "session-state").is_dir():
        return root / "session-state"
    return None


def _known_harness(path: Path) -> Harness | None:
    """The harness a file's place tells, for the harnesses' own folders."""
    try:
        claude = paths.claude_projects_dir()
        if path.is_relative_to(claude):
            return "claude"
        for codex in paths.codex_session_dirs():
            if path.is_relative_to(codex):
                return "codex"
        if path.is_relative_to(paths.acp_log_dir()):
            return "acp"
        if path.is_relative_to(paths.gemini_tmp_dir()):
            return "gemini"
        if path.is_relative_to(paths.qwen_projects_dir()):
            return "qwen"
        if path.is_relative_to(paths.pi_sessions_dir()):
            return "pi"
        if path.is_relative_to(paths.copilot_sessions_dir()):
            return "copilot"
    except (OSError, ValueError):
        return None
    return None


def classify(
    path: Path, stat: os.stat_result | None = None, *, known: Harness | None = None, named: str | None = None
) -> TranscriptFile | None:
    """What kind of transcript `path` is, or None when it is not one. `known`: the
    harness its folder already tells (a harness's own folder, found by `discover`).
    `named`: the file's name, from a walk that kept only transcript names (a Path's
    `name` is worked out again at every ask: ten thousand files a start)."""
    if named is not None:
        name = named
    elif is_transcript_name(path):
        name = path.name
    else:
        return None
    try:
        st = stat or path.stat()
    except OSError:
        return None
    located: Harness | None = None
    if name.startswith("rollout-"):
        harness: Harness | None = "codex"
    else:
        located = harness = known or _known_harness(path)
        if harness is None and is_gemini_session(path):
            harness = "gemini"  # Gemini CLI's name rule (docs/reading.md), before the sniff (which sees sessionId)
        harness = harness or sniff_harness(path)
    if harness is None:
        return None
    subagent = False
    parent_hint = None
    folder_hint = None
    if harness == "claude" and name.startswith("agent-") and name.endswith(".jsonl"):
        subagent = True
        if path.parent.name == "subagents":
            parent_hint = path.parent.parent.name or None
    elif harness == "gemini":
        in_chats = is_gemini_name(path)
        if not in_chats and located == "gemini":
            return None  # other files in Gemini's folders (logs, checkpoints)
        if in_chats and path.parent.name != "chats":
            subagent, parent_hint = True, path.parent.name or None
        folder_hint = gemini_folder(path) if in_chats else None
    elif harness == "qwen" and located == "qwen" and path.parent.name != "chats":
        return None  # Qwen Code's sessions are `projects/<slug>/chats/<id>.jsonl`
    elif harness == "copilot":
        # A Copilot CLI session is its folder; of its files only its log names it.
        # The sniff read its session.start already; in Copilot's own folder the place says it.
        if name != "events.jsonl":
            return None
        return classify_copilot(
            path.parent, checked=located is None or path.parent.parent == paths.copilot_sessions_dir()
        )
    elif name.endswith(".json") and _legacy_gemini_name(name, path.parent.name):
        return None  # a whole document (is_whole_document) of another harness
    ident = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    return TranscriptFile(path, harness, st.st_mtime, st.st_size, subagent, parent_hint, folder_hint, ident=ident)


def _walk(root: Path) -> Iterator[tuple[Path, tuple[str, ...], os.stat_result]]:
    """Every transcript-named file under root, with the names of the folders and file
    below root and its stat; unreadable folders skipped. Each Path is its folder's and
    a name (parsing whole paths was most of a warm start's walk)."""
    stack: list[tuple[Path, tuple[str, ...]]] = [(root, ())]
    while stack:
        folder, rel = stack.pop()
        folder_name = rel[-1] if rel else root.name
        child = _child_maker(folder)
        try:
            with os.scandir(folder) as it:
                for entry in it:
                    try:
                        name = entry.name
                        if entry.is_dir(follow_symlinks=False):
                            stack.append((child(name), (*rel, name)))
                        elif entry.is_file() and (name in DATABASE_NAMES or _transcript_name(name, folder_name)):
                            yield child(name), (*rel, name), entry.stat()
                    except OSError:
                        continue
        except OSError as exc:
            log.debug("cannot list %s: %s", folder, exc)


def _child_maker(folder: Path) -> Callable[[str], Path]:
    """`folder / name` for a name a folder listing gave (no separator in it): pathlib's
    own child-path maker where this Python has it (what its glob uses: a tenth of the
    cost of `/`, which parses the name again; 10,000 files a start), else `/`. On 3.11
    the child's text is set as it is made, as 3.12's maker does itself: made later from
    its parts, it cost ~2 µs a file (each found file's text is asked at least once)."""
    make = getattr(folder, "_make_child_relpath", None)
    if not callable(make):
        return folder.__truediv__
    text = str(folder)
    if sys.version_info >= (3, 12) or getattr(folder, "_str", None) != text:
        return make  # type: ignore[no-any-return]
    prefix = "" if text == "." else text if text.endswith("/") else text + "/"

    def child(name: str) -> Path:
        path = make(name)
        path._str = prefix + name  # what str() would make of its parts (tests/core/test_discover_file.py)
        return path  # type: ignore[no-any-return]

    return child


def _claude_layout(root: Path) -> Iterator[tuple[Path, str, os.stat_result]]:
    """Claude's projects folder: session files one level down, subagents below them.
    Other JSONL files in a session's folder (tool outputs and the like) are not sessions."""
    for path, rel, st in _walk(root):
        if len(rel) == 2:  # <slug>/<sessionId>.jsonl or <slug>/agent-<id>.jsonl
            yield path, rel[-1], st
        elif len(rel) == 4 and rel[2] == "subagents" and rel[3].startswith("agent-"):
            yield path, rel[-1], st


def _gemini_layout(root: Path) -> Iterator[tuple[Path, str, os.stat_result]]:
    """Gemini's tmp folder: `<slug>/chats/session-*` and `<slug>/chats/<parent>/<id>.jsonl`.
    Other files there (logs, checkpoints, tool outputs) are not sessions."""
    for path, rel, st in _walk(root):
        if len(rel) in (3, 4) and rel[1] == "chats" and is_gemini_name(path):
            yield path, rel[-1], st


def _qwen_layout(root: Path) -> Iterator[tuple[Path, str, os.stat_result]]:
    """Qwen Code's projects folder: `<slug>/chats/<session id>.jsonl` (docs/reading.md, Qwen Code)."""
    for path, rel, st in _walk(root):
        if len(rel) == 3 and rel[1] == "chats":
            yield path, rel[-1], st


def _pi_layout(root: Path) -> Iterator[tuple[Path, str, os.stat_result]]:
    """pi's sessions folder: `--<folder>--/<time>_<id>.jsonl` (docs/reading.md, pi)."""
    for path, rel, st in _walk(root):
        if len(rel) == 2:
            yield path, rel[-1], st


def unusable_root(root: Path) -> str | None:
    """What is wrong with a transcript folder that is there but is neither a folder nor a
    regular file (a FIFO, a socket, a device: never opened, so never waited on), or that
    cannot be looked at (its name too long, no permission); None for a folder, a file,
    or nothing there (a harness's folder may come later)."""
    from planwatch.core.text import shorten

    try:
        mode = os.stat(Path(root).expanduser()).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:  # not to be looked at: a name too long for the system, no permission, a loop
        return f"{shorten(str(root), 200)}: cannot be looked at ({exc.strerror or exc}); nothing is read from it"
    if stat.S_ISDIR(mode) or stat.S_ISREG(mode):
        return None
    kind = "a FIFO" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode) else "a device or other special file"
    return f"{shorten(str(root), 200)}: is {kind}, not a folder or a transcript file; nothing is read from it"


def _copilot_file(path: Path) -> TranscriptFile | None:
    """One file of a Copilot CLI session folder given by itself: that session."""
    from planwatch.core.transcripts.copilot_files import SESSION_FILES

    return classify_copilot(path.parent) if path.name in SESSION_FILES else None


class WalkTooLong(Exception):
    """`discover` was still walking at its deadline (what it had found is dropped)."""


def discover(roots: Sequence[Path], *, deadline: float | None = None) -> list[TranscriptFile]:
    """Every transcript under `roots`, newest first. Missing roots are skipped.
    `deadline` (a `time.monotonic()` value): raise WalkTooLong once past it, looked at
    every 256 files and at each root (a walk made where it would hold up a start)."""
    # Keyed by the path's text: a Path's hash works its parts out first, several times
    # the cost of a string's (ten thousand files a start); the text is kept on the Path.
    found: dict[str, TranscriptFile] = {}
    claude_root = paths.claude_projects_dir()
    gemini_root = paths.gemini_tmp_dir()
    qwen_root = paths.qwen_projects_dir()
    pi_root = paths.pi_sessions_dir()
    count = 0
    for root in roots:
        if deadline is not None and time.monotonic() > deadline:
            raise WalkTooLong
        root = Path(root).expanduser()
        try:
            mode = os.stat(root).st_mode
        except OSError:  # not there, or not to be looked at (`unusable_root` says which)
            continue
        if not stat.S_ISDIR(mode):
            if stat.S_ISREG(mode):  # a single file given as a root
                item = _copilot_file(root) or classify_cline(root)
                if item is None:
                    item = classify_database(root) if root.suffix == ".db" else classify(root)
                if item is not None:
                    found.setdefault(str(item.path), item)
            continue
        # Copilot CLI's home or its session-state: a folder per session, not walked.
        copilot = copilot_root(root)
        if copilot is not None:
            for item in _copilot_layout(copilot):
                found.setdefault(str(item.path), item)
            continue
        session = classify_copilot(root)
        if session is not None:  # one Copilot CLI session's folder
            found.setdefault(str(session.path), session)
            continue
        # Cline's data folder (or CLINE_DIR): its sessions are JSON files and a board.
        cline = classify_cline(root)
        if cline is not None and (cline.path == root or cline.path == root / "data"):
            found.setdefault(str(cline.path), cline)
            continue
        # OpenCode's data folder (its database, or the storage/ of older versions) and
        # Kilo's hold no transcripts besides: they are not walked (their snapshot folders
        # are large).
        databases = [
            item
            for item in (
                classify_database(root / OPENCODE_DB_NAME) or classify_storage(root),
                classify_database(root / KILO_DB_NAME),
            )
            if item is not None
        ]
        if databases:
            for item in databases:
                found.setdefault(str(item.path), item)
            continue
        # Each file with its name (the walk's: kept only when it is a transcript's or a
        # database's) and its stat.
        walker: Iterable[tuple[Path, str, os.stat_result]]
        if root == claude_root:
            walker = _claude_layout(root)
        elif root == gemini_root:
            walker = _gemini_layout(root)
        elif root == qwen_root:
            walker = _qwen_layout(root)
        elif root == pi_root:
            walker = _pi_layout(root)
        else:
            walker = ((path, rel[-1], st) for path, rel, st in _walk(root))
        # Every file under a harness's own folder is that harness's: told once per root.
        known = _known_harness(root)
        for path, name, st in walker:
            count += 1
            if deadline is not None and not count & 255 and time.monotonic() > deadline:
                raise WalkTooLong
            if str(path) in found:
                continue
            if name == CLINE_BOARD_NAME:
                item = classify_cline(path)  # a Cline data folder met on the walk
            elif name in DATABASE_NAMES:
                item = classify_database(path)
            else:
                item = classify(path, st, known=known, named=name)
            if item is not None:
                found.setdefault(str(item.path), item)
    # A plain rollout beside its compressed copy wins (docs/reading.md, Codex CLI).
    for name in [p for p in found if p.endswith(".jsonl.zst")]:
        if name[: -len(".zst")] in found:
            del found[name]
    return sorted(found.values(), key=lambda f: f.mtime, reverse=True)
