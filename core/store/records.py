"""The record store on disk: Markdown files with YAML frontmatter, one per record.

API summary (stable; the tools, the channel's watcher and the app build on it):

- `Store(root)` — one folder: `<root>/tasks/t<n>.md`, `<root>/plans/p<n>.md`.
  - `load() -> StoreSnapshot`: every valid record, plus a `RecordProblem` for each file
    that is not one. Never raises on bad files. Parsed files are cached by
    (inode, size, mtime), so a second load only re-reads what changed.
  - `read_task(id)`, `read_plan(id)` → the record, or None when missing or invalid.
    Inside `lock()` they always read the file itself (what a write builds on).
  - `add_task(make)`, `add_plan(make)`: mint the next id under the store lock, call
    `make(id)` for the record, and create its file exclusively. Never reuses an id.
  - `write_task(rec)`, `write_plan(rec)`: atomic replace; a person's comments, key order
    and unknown keys in the existing file survive.
  - `update_task(id, change)`, `update_plan(id, change)`: locked read-modify-write;
    raise `RecordMissing` when there is no valid record with that id.
  - `delete_task(id)`, `delete_plan(id)`.
  - `lock()`: the store's cross-process lock (re-entrant within a thread) for callers
    that check several records before writing (the tools do).
  - `remove_stale_temp_files()`: tidy up after writers killed mid-write (the sweep
    calls it).
- `StoreSnapshot(tasks, plans, problems)`.
- `RecordProblem(path, message)` — `message` reads `tasks/t7.md: status must be …`.
- `parse_task_file(path)`, `parse_plan_file(path)`, `parse_record_file(path)` → the
  record, a `RecordProblem`, or None when the file does not exist (for watchers).
- `StoreError` (writes that failed: full disk, permissions), `RecordMissing`.

Decisions, so hand edits and concurrency behave predictably:
- Unknown keys a person adds to a record are kept and written back; they are not
  validated. Comments and key order of the frontmatter survive a write (ruamel.yaml
  round-trip); the body is replaced by the record's body.
- Ids are never reused: `<root>/.ids` remembers the highest id ever minted, and the
  next id is one above both that and every file present. Creation links a fully
  written temp file into place (`os.link`, which fails when the name exists), so two
  minters can never overwrite each other even without the lock.
- Every write: temp file in the same folder, fsync, rename (or link), fsync the folder.
  A failed write (ENOSPC …) removes the temp file, keeps the old record, and raises
  `StoreError` with a sentence saying so.
- Reading: the plain YAML subset the store writes is read by a small fast path
  (checked against ruamel.yaml in the tests); anything else goes through ruamel.yaml's
  safe loader. A cold read of 10,000 tasks takes about a second instead of ~15.
- A file is refused when it is larger than `MAX_RECORD_BYTES`, not UTF-8, has no
  frontmatter, is not YAML, has duplicate keys, or uses YAML anchors/aliases or tags
  (no alias bombs); its file name must match its id.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import logging
import os
import re
import tempfile
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from io import StringIO
from pathlib import Path
from typing import Any, TypeVar

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import YAMLError
from ruamel.yaml.nodes import ScalarNode

from core.store.schema import (
    PLAN_FIELDS,
    TASK_FIELDS,
    PlanRecord,
    RecordInvalid,
    TaskRecord,
    id_number,
    is_plan_id,
    is_task_id,
    plan_from_frontmatter,
    plan_to_frontmatter,
    task_from_frontmatter,
    task_to_frontmatter,
)

log = logging.getLogger(__name__)

MAX_RECORD_BYTES = 1_000_000
"""A record file larger than this is refused unread (a record is a few KB at most)."""

_TASK_FILE = re.compile(r"t[0-9]+\.md")
_PLAN_FILE = re.compile(r"p[0-9]+\.md")
_ANCHOR_OR_TAG = re.compile(r"[&*!]")
_PLAIN_TAGS = {
    f"tag:yaml.org,2002:{name}" for name in ("str", "int", "float", "bool", "null", "map", "seq", "timestamp")
} | {f"!!{name}" for name in ("str", "int", "float", "bool", "null", "map", "seq", "timestamp")}


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_FILE_MODE = 0o666 & ~_umask()

Record = TaskRecord | PlanRecord
R = TypeVar("R", TaskRecord, PlanRecord)


class StoreError(RuntimeError):
    """A write to the store failed; the record on disk is as it was before."""


class RecordMissing(KeyError):
    """No valid record with that id."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "record missing"


@dataclass(frozen=True)
class RecordProblem:
    """A file in the store that is not a valid record: which file, and what is wrong."""

    path: Path
    message: str
    """`<kind folder>/<file name>: <reason>` — ready to show a person."""

    def __str__(self) -> str:
        return self.message


@dataclass(frozen=True)
class StoreSnapshot:
    """Everything valid in the store at one moment, and every file that was not."""

    tasks: dict[str, TaskRecord] = field(default_factory=dict)
    plans: dict[str, PlanRecord] = field(default_factory=dict)
    problems: list[RecordProblem] = field(default_factory=list)

    def tasks_sorted(self) -> list[TaskRecord]:
        return sorted(self.tasks.values(), key=lambda t: id_number(t.id))

    def plans_sorted(self) -> list[PlanRecord]:
        return sorted(self.plans.values(), key=lambda p: id_number(p.id))


# ---------------------------------------------------------------- parsing


def _safe_yaml() -> YAML:
    yaml = YAML(typ="safe", pure=True)
    yaml.allow_duplicate_keys = False
    return yaml


def _rt_yaml() -> YAML:
    yaml = YAML(typ="rt")
    yaml.allow_duplicate_keys = False
    yaml.preserve_quotes = True
    yaml.default_flow_style = False
    yaml.width = 4096  # never fold a long title over two lines
    yaml.indent(mapping=2, sequence=4, offset=2)  # block lists as people write them: "  - db"
    return yaml


_thread_yaml = threading.local()


def _loader() -> YAML:
    # A YAML instance is not thread-safe; one per thread, reused (building one is slow).
    yaml = getattr(_thread_yaml, "safe", None)
    if yaml is None:
        yaml = _thread_yaml.safe = _safe_yaml()
    return yaml


def _split(text: str) -> tuple[str, str]:
    """`---\\n<yaml>---\\n<body>` → (yaml, body); raise RecordInvalid without frontmatter."""
    if text.startswith("\ufeff"):
        text = text[1:]
    text = text.replace("\r\n", "\n")
    if not text.startswith("---\n"):
        raise RecordInvalid("no frontmatter: the file must start with a line '---'.")
    end = text.find("\n---\n", 3)
    if end == -1:
        if text.endswith("\n---"):
            end = len(text) - 4
        else:
            raise RecordInvalid("frontmatter is not closed by a line '---'.")
    front = text[4 : end + 1]
    body = text[end + 5 :]
    if body.startswith("\n"):
        body = body[1:]
    return front, body


def _check_no_aliases(front: str) -> None:
    """Refuse anchors, aliases and tags: no alias bombs, no custom types.

    The raw text is looked at first (fast path); only a frontmatter holding `&`, `*` or
    `!` somewhere is parsed into events to see whether they are YAML syntax or text.
    """
    if not _ANCHOR_OR_TAG.search(front):
        return
    for event in _loader().parse(front):
        if type(event).__name__ == "AliasEvent" or getattr(event, "anchor", None):
            raise RecordInvalid("YAML anchors and aliases are not allowed in a record.")
        tag = getattr(event, "tag", None)
        if tag and str(tag) not in _PLAIN_TAGS and str(tag) != "!":
            raise RecordInvalid(f"YAML tag {tag} is not allowed in a record.")


def _read_text(path: Path) -> str:
    with path.open("rb") as fh:
        raw = fh.read(MAX_RECORD_BYTES + 1)
    if len(raw) > MAX_RECORD_BYTES:
        raise RecordInvalid(f"file is larger than {MAX_RECORD_BYTES} bytes.")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RecordInvalid(f"file is not UTF-8 text (byte {exc.start}).") from None


# ---- fast path: the plain subset of YAML the store itself writes
#
# ruamel.yaml in pure Python takes milliseconds per file; a store of 10,000 tasks would
# take many seconds to read cold. The store writes a small, regular subset of YAML, so
# that subset is read here directly; anything outside it (comments after values, block
# scalars, multi-line values, numbers, anchors, …) returns None and goes to ruamel. The
# subset is chosen so both readings are the same (tests/test_store_records.py checks
# the fixtures and generated records both ways).

_KEY_LINE = re.compile(r"([A-Za-z][A-Za-z0-9_-]*):(?: (.*))?")
_SUB_LINE = re.compile(r"  ([A-Za-z][A-Za-z0-9_-]*):(?: (.*))?")
_TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:\.\d{1,6})?(?:Z|[+-]\d\d:\d\d)?")
_UNUSUAL_CHARS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]")
_NOT_FAST = object()
_WORDS = {"true", "True", "TRUE", "false", "False", "FALSE", "null", "Null", "NULL"}


def _fast_scalar(text: str, *, in_flow: bool = False) -> Any:
    text = text.strip(" ")
    if not text:
        return None if not in_flow else _NOT_FAST
    first = text[0]
    if first == "'":
        inner = text[1:-1]
        if len(text) < 2 or text[-1] != "'" or "'" in inner.replace("''", ""):
            return _NOT_FAST
        return inner.replace("''", "'")
    if first == '"':
        inner = text[1:-1]
        if len(text) < 2 or text[-1] != '"' or '"' in inner or "\\" in inner:
            return _NOT_FAST
        return inner
    if not (first.isalnum() or first in "/_."):
        return _NOT_FAST  # YAML indicators and odd starts: the full parser decides
    if (
        "#" in text or ": " in text or text.endswith(":") or "'" in text or '"' in text
        or any(c in text for c in "[]{}")
        or (in_flow and "," in text)
    ):
        return _NOT_FAST
    if first.isascii() and first.isalpha():
        # Starting with a letter, only YAML 1.2's true/false/null words are not text.
        return _NOT_FAST if text in _WORDS else text
    # Otherwise YAML's own resolver says whether it is text, a number, a date, …
    tag = _loader().resolver.resolve(ScalarNode, text, (True, False))
    if tag == "tag:yaml.org,2002:str":
        return text
    if tag == "tag:yaml.org,2002:timestamp" and _TIMESTAMP.fullmatch(text):
        try:
            return datetime.fromisoformat(text)
        except ValueError:
            return _NOT_FAST
    return _NOT_FAST


def _fast_value(text: str | None) -> Any:
    if text is None:
        return None
    stripped = text.strip(" ")
    if stripped.startswith("["):
        if not stripped.endswith("]"):
            return _NOT_FAST
        inner = stripped[1:-1].strip(" ")
        if not inner:
            return []
        items = [_fast_scalar(part, in_flow=True) for part in inner.split(",")]
        return _NOT_FAST if any(i is _NOT_FAST or not isinstance(i, str) for i in items) else items
    return _fast_scalar(stripped)


def _fast_front(front: str) -> dict[str, Any] | None:
    """The frontmatter as a dict when it is in the plain subset, else None (use ruamel)."""
    if _UNUSUAL_CHARS.search(front):
        return None  # characters YAML refuses or reads as line breaks: let ruamel judge
    out: dict[str, Any] = {}
    nested: dict[str, Any] | None = None
    for line in front.split("\n"):
        if not line or line.startswith("#"):
            continue
        if "\t" in line:
            return None
        if line.startswith(" "):
            if nested is None:
                return None
            m = _SUB_LINE.fullmatch(line)
            if m is None or m.group(1) in nested:
                return None
            value = _fast_value(m.group(2))
            if value is _NOT_FAST or isinstance(value, list) or (m.group(2) is None):
                return None
            nested[m.group(1)] = value
            continue
        m = _KEY_LINE.fullmatch(line)
        if m is None or m.group(1) in out:
            return None
        key, raw = m.group(1), m.group(2)
        if raw is None or raw.strip(" ") == "":
            nested = {}
            out[key] = nested
            continue
        value = _fast_value(raw)
        if value is _NOT_FAST:
            return None
        out[key] = value
        nested = None
    if not out:
        return None  # empty frontmatter is null in YAML, not a mapping
    # `key:` with nothing under it is null in YAML, not an empty mapping.
    return {k: (None if v == {} else v) for k, v in out.items()}


def _load_front(front: str) -> Any:
    fast = _fast_front(front)
    if fast is not None:
        return fast
    _check_no_aliases(front)
    try:
        return _loader().load(front)
    except YAMLError as exc:
        problem = getattr(exc, "problem", None) or type(exc).__name__
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 2})" if mark is not None else ""
        if "Duplicate" in type(exc).__name__ or "duplicate" in str(problem):
            return _raise(f"frontmatter has a duplicate key{where}.")
        return _raise(f"frontmatter is not valid YAML: {problem}{where}.")
    except (ValueError, TypeError, RecursionError) as exc:
        return _raise(f"frontmatter is not valid YAML: {exc}.")


def _raise(reason: str) -> Any:
    raise RecordInvalid(reason)


def _rel(path: Path) -> str:
    return f"{path.parent.name}/{path.name}"


def _parse(path: Path, kind: str) -> Record | RecordProblem | None:
    try:
        text = _read_text(path)
        front, body = _split(text)
        data = _load_front(front)
        if kind == "task":
            rec: Record = task_from_frontmatter(data, body)
        else:
            rec = plan_from_frontmatter(data, body)
        if path.name != f"{rec.id}.md":
            raise RecordInvalid(f"id {rec.id} does not match the file name {path.name}.")
        return rec
    except FileNotFoundError:
        return None
    except RecordInvalid as exc:
        return RecordProblem(path, f"{_rel(path)}: {exc.reason}")
    except (IsADirectoryError, PermissionError, OSError) as exc:
        return RecordProblem(path, f"{_rel(path)}: cannot be read ({exc.strerror or exc}).")


def parse_task_file(path: Path) -> TaskRecord | RecordProblem | None:
    """One task file → the record, what is wrong with it, or None when it is gone."""
    return _parse(Path(path), "task")  # type: ignore[return-value]


def parse_plan_file(path: Path) -> PlanRecord | RecordProblem | None:
    """One plan file → the record, what is wrong with it, or None when it is gone."""
    return _parse(Path(path), "plan")  # type: ignore[return-value]


def parse_record_file(path: Path) -> Record | RecordProblem | None:
    """A task or plan file, told apart by its folder (`tasks/` or `plans/`)."""
    path = Path(path)
    return _parse(path, "plan" if path.parent.name == "plans" else "task")


# ---------------------------------------------------------------- writing


def _plain(value: Any) -> Any:
    """A loaded or new YAML value in a comparable form (datetimes as UTC instants)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, datetime):
        from datetime import UTC

        aware = value if value.tzinfo is not None else value.replace(tzinfo=UTC)
        return ("dt", aware.astimezone(UTC).replace(microsecond=0).isoformat())
    return value


def _to_yaml_node(value: Any) -> Any:
    if isinstance(value, dict):
        node = CommentedMap()
        for k, v in value.items():
            node[k] = _to_yaml_node(v)
        return node
    if isinstance(value, list | tuple):
        seq = CommentedSeq(_to_yaml_node(v) for v in value)
        if all(isinstance(v, str) and "\n" not in v for v in value) and len(value) <= 12:
            seq.fa.set_flow_style()  # labels: [a, b] reads better than a block list
        return seq
    return value


def _merge(doc: CommentedMap, new: dict[str, Any], order: tuple[str, ...]) -> None:
    """Bring `doc` to `new` for the known keys, in place, keeping comments and extras."""
    for key in list(doc.keys()):
        if key in order and key not in new:
            del doc[key]
    for key, value in new.items():
        if key in doc:
            current = doc[key]
            if _plain(current) == _plain(value):
                continue
            if isinstance(current, CommentedMap) and isinstance(value, dict):
                _merge_map(current, value)
                continue
            node = _to_yaml_node(value)
            if isinstance(current, CommentedSeq) and isinstance(node, CommentedSeq) and not current.fa.flow_style():
                node.fa.set_block_style()  # the person wrote it as a block list: keep that
            doc[key] = node
            continue
        # A new key goes right after the nearest earlier known key present in the file.
        position = 0
        for earlier in order[: order.index(key)] if key in order else order:
            if earlier in doc:
                position = list(doc.keys()).index(earlier) + 1
        doc.insert(position, key, _to_yaml_node(value))


def _merge_map(node: CommentedMap, value: dict[str, Any]) -> None:
    for key in list(node.keys()):
        if key not in value:
            del node[key]
    for key, item in value.items():
        if key not in node or _plain(node[key]) != _plain(item):
            node[key] = _to_yaml_node(item)


def render_record(rec: Record, existing_text: str | None = None) -> str:
    """The file text for `rec`; when `existing_text` is a readable record, keep its
    comments, key order and unknown keys."""
    if isinstance(rec, TaskRecord):
        new, order, body = task_to_frontmatter(rec), TASK_FIELDS, rec.body
    else:
        new, order, body = plan_to_frontmatter(rec), PLAN_FIELDS, rec.goal
    yaml = _rt_yaml()
    doc: CommentedMap | None = None
    if existing_text is not None:
        try:
            front, _ = _split(existing_text)
            _check_no_aliases(front)
            loaded = yaml.load(front)
            if isinstance(loaded, CommentedMap):
                doc = loaded
        except (RecordInvalid, YAMLError, ValueError, TypeError):
            doc = None
    if doc is not None and "priority" not in doc and new.get("priority") == "medium":
        del new["priority"]  # medium is what an absent priority means: leave the file as written
    if doc is None:
        doc = CommentedMap()
        for key, value in rec.extra.items():
            doc[key] = _to_yaml_node(value)
    else:
        for key, value in rec.extra.items():
            if key not in doc:
                doc[key] = _to_yaml_node(value)
    _merge(doc, new, order)
    buf = StringIO()
    yaml.dump(doc, buf)
    text = "---\n" + buf.getvalue() + "---\n"
    if body:
        text += body if body.endswith("\n") else body + "\n"
    return text


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some filesystems refuse fsync on a folder; the rename is still atomic
    finally:
        os.close(fd)


def _write_temp(folder: Path, name: str, text: str) -> Path:
    """Write `text` to a fresh temp file in `folder` and fsync it; return its path."""
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{name}.", suffix=".tmp")
    try:
        os.fchmod(fd, _FILE_MODE)  # mkstemp makes 0600; records are shared like any file
        with os.fdopen(fd, "wb") as fh:
            fh.write(text.encode("utf-8"))
            fh.flush()
            os.fsync(fh.fileno())
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return Path(tmp)


def _failed(path: Path, exc: OSError, what: str) -> StoreError:
    if exc.errno == errno.ENOSPC:
        reason = "the disk is full"
    elif exc.errno == errno.EDQUOT:
        reason = "the disk quota is used up"
    else:
        reason = exc.strerror or str(exc)
    return StoreError(f"Could not {what} {_rel(path)}: {reason}; the record on disk is unchanged.")


def atomic_write_text(path: Path, text: str) -> None:
    """Replace `path` with `text` so a reader sees the old file or the new, never half."""
    try:
        tmp = _write_temp(path.parent, path.name, text)
    except OSError as exc:
        raise _failed(path, exc, "write") from exc
    try:
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise _failed(path, exc, "write") from exc
    _fsync_dir(path.parent)


def _create_exclusive(path: Path, text: str) -> bool:
    """Create `path` holding `text`, whole, only if no file has that name. False if taken."""
    try:
        tmp = _write_temp(path.parent, path.name, text)
    except OSError as exc:
        raise _failed(path, exc, "create") from exc
    try:
        os.link(tmp, path)  # fails with EEXIST rather than replacing: O_EXCL for a whole file
    except FileExistsError:
        return False
    except OSError as exc:
        raise _failed(path, exc, "create") from exc
    finally:
        tmp.unlink(missing_ok=True)
    _fsync_dir(path.parent)
    return True


# ---------------------------------------------------------------- the store


class Store:
    """One record store folder. Safe to use from several threads and processes."""

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)
        self.tasks_dir = self.root / "tasks"
        self.plans_dir = self.root / "plans"
        self._lock_path = self.root / ".lock"
        self._ids_path = self.root / ".ids"
        self._local = threading.local()
        self._cache: dict[Path, tuple[tuple[int, int, int], Record | RecordProblem]] = {}
        self._cache_lock = threading.Lock()

    # -- locking

    def _ensure_dirs(self) -> None:
        try:
            self.tasks_dir.mkdir(parents=True, exist_ok=True)
            self.plans_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"Could not create the store at {self.root}: {exc.strerror or exc}.") from exc

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """Hold the store's exclusive lock (fcntl.flock on `<root>/.lock`); re-entrant per thread."""
        depth = getattr(self._local, "depth", 0)
        if depth:
            self._local.depth = depth + 1
            try:
                yield
            finally:
                self._local.depth -= 1
            return
        self._ensure_dirs()
        fd = os.open(self._lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            self._local.depth = 1
            try:
                yield
            finally:
                self._local.depth = 0
                fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)

    # -- reading

    def _holding_lock(self) -> bool:
        return getattr(self._local, "depth", 0) > 0

    def task_path(self, task_id: str) -> Path:
        return self.tasks_dir / f"{task_id}.md"

    def plan_path(self, plan_id: str) -> Path:
        return self.plans_dir / f"{plan_id}.md"

    def _parse_cached(self, path: Path, kind: str, *, fresh: bool = False) -> Record | RecordProblem | None:
        """Parse `path`, reusing the last parse while (inode, size, mtime) is unchanged.

        `fresh` skips the reuse: a replaced file can get a freed inode back with the
        same size within one coarse mtime tick, so a read that a write will build on
        (under the lock) always reads the bytes.
        """
        try:
            st = path.stat()
        except FileNotFoundError:
            with self._cache_lock:
                self._cache.pop(path, None)
            return None
        except OSError as exc:
            return RecordProblem(path, f"{_rel(path)}: cannot be read ({exc.strerror or exc}).")
        key = (st.st_ino, st.st_size, st.st_mtime_ns)
        with self._cache_lock:
            hit = self._cache.get(path)
        if hit is not None and hit[0] == key and not fresh:
            return hit[1]
        result = _parse(path, kind)
        if result is not None:
            with self._cache_lock:
                self._cache[path] = (key, result)
        return result

    def _scan(self, folder: Path, pattern: re.Pattern[str], kind: str, out: dict[str, Any], problems: list[RecordProblem]) -> None:
        try:
            names = os.listdir(folder)
        except FileNotFoundError:
            return
        except OSError as exc:
            problems.append(RecordProblem(folder, f"{folder.name}/: cannot be listed ({exc.strerror or exc})."))
            return
        for name in names:
            if name.startswith(".") or not name.endswith(".md"):
                continue  # temp files of a write in progress, editor swap files, notes
            path = folder / name
            if not pattern.fullmatch(name) or name[1] == "0":
                problems.append(RecordProblem(path, f"{_rel(path)}: file name must be {kind[0]}<n>.md."))
                continue
            result = self._parse_cached(path, kind)
            if result is None:
                continue
            if isinstance(result, RecordProblem):
                problems.append(result)
            else:
                out[result.id] = result
        seen = {folder / n for n in names}
        with self._cache_lock:
            for path in [p for p in self._cache if p.parent == folder and p not in seen]:
                del self._cache[path]

    def load(self) -> StoreSnapshot:
        """Every valid record and every problem; never raises on bad files."""
        tasks: dict[str, TaskRecord] = {}
        plans: dict[str, PlanRecord] = {}
        problems: list[RecordProblem] = []
        self._scan(self.tasks_dir, _TASK_FILE, "task", tasks, problems)
        self._scan(self.plans_dir, _PLAN_FILE, "plan", plans, problems)
        problems.sort(key=lambda p: (p.path.parent.name, _sort_key(p.path.name)))
        return StoreSnapshot(tasks, plans, problems)

    def read_task(self, task_id: str) -> TaskRecord | None:
        if not is_task_id(task_id):
            return None
        result = self._parse_cached(self.task_path(task_id), "task", fresh=self._holding_lock())
        return result if isinstance(result, TaskRecord) else None

    def read_plan(self, plan_id: str) -> PlanRecord | None:
        if not is_plan_id(plan_id):
            return None
        result = self._parse_cached(self.plan_path(plan_id), "plan", fresh=self._holding_lock())
        return result if isinstance(result, PlanRecord) else None

    # -- minting

    def _read_ids(self) -> dict[str, int]:
        try:
            data = json.loads(self._ids_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict):
            return {}
        return {k: v for k, v in data.items() if k in ("t", "p") and isinstance(v, int) and v >= 0}

    def _highest_on_disk(self, folder: Path, prefix: str) -> int:
        highest = 0
        try:
            names = os.listdir(folder)
        except FileNotFoundError:
            return 0
        for name in names:
            if name.startswith(prefix) and name.endswith(".md") and name[1:-3].isdigit():
                highest = max(highest, int(name[1:-3]))
        return highest

    def _mint(self, prefix: str, folder: Path, render: Callable[[str], tuple[Record, str]]) -> Record:
        with self.lock():
            ids = self._read_ids()
            number = max(ids.get(prefix, 0), self._highest_on_disk(folder, prefix)) + 1
            while True:
                record_id = f"{prefix}{number}"
                rec, text = render(record_id)
                # Remember the id before the file exists: a crash in between leaves a
                # gap in the numbers, never an id handed out twice.
                ids[prefix] = number
                atomic_write_text(self._ids_path, json.dumps(ids, sort_keys=True) + "\n")
                if _create_exclusive(folder / f"{record_id}.md", text):
                    return rec
                number += 1  # a name taken by hand between the scan and now

    def add_task(self, make: Callable[[str], TaskRecord]) -> TaskRecord:
        """Mint the next task id, build the record with `make(id)`, create its file."""

        def render(task_id: str) -> tuple[Record, str]:
            rec = make(task_id)
            if rec.id != task_id:
                raise ValueError(f"make() must use the id it was given ({task_id}), not {rec.id}")
            return rec, render_record(rec)

        return self._mint("t", self.tasks_dir, render)  # type: ignore[return-value]

    def add_plan(self, make: Callable[[str], PlanRecord]) -> PlanRecord:
        """Mint the next plan id, build the record with `make(id)`, create its file."""

        def render(plan_id: str) -> tuple[Record, str]:
            rec = make(plan_id)
            if rec.id != plan_id:
                raise ValueError(f"make() must use the id it was given ({plan_id}), not {rec.id}")
            return rec, render_record(rec)

        return self._mint("p", self.plans_dir, render)  # type: ignore[return-value]

    # -- writing

    def _write(self, path: Path, rec: Record) -> None:
        with self.lock():
            try:
                existing: str | None = _read_text(path)
            except (FileNotFoundError, RecordInvalid, OSError):
                existing = None
            atomic_write_text(path, render_record(rec, existing))
            self._bump_ids(rec.id)

    def _bump_ids(self, record_id: str) -> None:
        # A record written under an id never minted (an import, a restore) still counts.
        ids = self._read_ids()
        prefix, number = record_id[0], id_number(record_id)
        if ids.get(prefix, 0) < number:
            ids[prefix] = number
            atomic_write_text(self._ids_path, json.dumps(ids, sort_keys=True) + "\n")

    def write_task(self, rec: TaskRecord) -> None:
        """Write a task's file atomically, keeping the hand edits of the file it replaces."""
        self._write(self.task_path(rec.id), rec)

    def write_plan(self, rec: PlanRecord) -> None:
        """Write a plan's file atomically, keeping the hand edits of the file it replaces."""
        self._write(self.plan_path(rec.id), rec)

    def update_task(self, task_id: str, change: Callable[[TaskRecord], TaskRecord]) -> TaskRecord:
        """Locked read-modify-write of one task; `change` returns the new record."""
        with self.lock():
            current = self.read_task(task_id)
            if current is None:
                raise RecordMissing(f"no task {task_id}")
            new = change(current)
            if new.id != task_id:
                raise ValueError("update_task cannot change a task's id")
            if new != current:
                self.write_task(new)
            return new

    def update_plan(self, plan_id: str, change: Callable[[PlanRecord], PlanRecord]) -> PlanRecord:
        """Locked read-modify-write of one plan; `change` returns the new record."""
        with self.lock():
            current = self.read_plan(plan_id)
            if current is None:
                raise RecordMissing(f"no plan {plan_id}")
            new = change(current)
            if new.id != plan_id:
                raise ValueError("update_plan cannot change a plan's id")
            if new != current:
                self.write_plan(new)
            return new

    def _delete(self, path: Path) -> bool:
        with self.lock():
            try:
                path.unlink()
            except FileNotFoundError:
                return False
            except OSError as exc:
                raise _failed(path, exc, "delete") from exc
            _fsync_dir(path.parent)
            return True

    def remove_stale_temp_files(self) -> list[Path]:
        """Remove temp files left by writers that were killed mid-write; returns them.

        Every write happens under the store lock, so while this holds the lock no temp
        file belongs to a write in progress: any that exists is a leftover.
        """
        removed: list[Path] = []
        with self.lock():
            for folder in (self.tasks_dir, self.plans_dir, self.root):
                try:
                    names = os.listdir(folder)
                except OSError:
                    continue
                for name in names:
                    if name.startswith(".") and name.endswith(".tmp"):
                        try:
                            (folder / name).unlink()
                            removed.append(folder / name)
                        except OSError:
                            continue
        return removed

    def delete_task(self, task_id: str) -> bool:
        """Remove a task's file; False when there was none. Its id is never minted again."""
        return is_task_id(task_id) and self._delete(self.task_path(task_id))

    def delete_plan(self, plan_id: str) -> bool:
        """Remove a plan's file; False when there was none. Its id is never minted again."""
        return is_plan_id(plan_id) and self._delete(self.plan_path(plan_id))


def _sort_key(name: str) -> tuple[int, str]:
    digits = name[1:-3]
    return (int(digits), name) if digits.isdigit() else (1 << 62, name)
