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
  round-trip, `core/store/frontmatter.py`); the body is replaced by the record's body.
- Ids are never reused (the lock and the counter: `core/store/ids.py`): `<root>/.ids` remembers the highest id ever minted, and the
  next id is one above both that and every file present. Creation links a fully
  written temp file into place (`os.link`, which fails when the name exists), so two
  minters can never overwrite each other even without the lock.
- Every write: temp file in the same folder, fsync, rename (or link), fsync the folder
  (`core/atomic.py`).
  A failed write (ENOSPC …) removes the temp file, keeps the old record, and raises
  `StoreError` with a sentence saying so.
- Reading: `core/store/frontmatter.py` (a fast path for the plain YAML subset the store
  writes, ruamel.yaml's safe loader for anything else).
- A file is refused when it is larger than `MAX_RECORD_BYTES`, not UTF-8, has no
  frontmatter, is not YAML, has duplicate keys, or uses YAML anchors/aliases or tags
  (no alias bombs); its file name must match its id.
"""

from __future__ import annotations

import contextlib
import os
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from planwatch.core.atomic import atomic_write, create_exclusive, describe_os_error, fsync_dir
from planwatch.core.regular import NotRegularFile, file_identity, open_regular, read_regular
from planwatch.core.store.frontmatter import load_frontmatter, render_record, split_frontmatter
from planwatch.core.store.ids import ID_LIMIT, IdCounter, StoreLock, highest_on_disk
from planwatch.core.store.schema import (
    PlanRecord,
    RecordInvalid,
    TaskRecord,
    id_number,
    is_plan_id,
    is_task_id,
    plan_from_frontmatter,
    task_from_frontmatter,
)

__all__ = [
    "MAX_RECORD_BYTES",
    "RecordMissing",
    "RecordProblem",
    "Store",
    "StoreError",
    "StoreSnapshot",
    "parse_plan_file",
    "parse_record_file",
    "parse_task_file",
    "render_record",
]

MAX_RECORD_BYTES = 1_000_000
"""A record file larger than this is refused unread (a record is a few KB at most)."""

_TASK_FILE = re.compile(r"t[0-9]+\.md")
_PLAN_FILE = re.compile(r"p[0-9]+\.md")

Record = TaskRecord | PlanRecord
R = TypeVar("R", TaskRecord, PlanRecord)


class StoreError(RuntimeError):
    """A write to the store failed; the record on disk is as it was before."""


class RecordTooLarge(StoreError):
    """A write whose file would be larger than reads accept (`MAX_RECORD_BYTES`)."""


class RecordChanged(StoreError):
    """A person changed (or removed) the file between a write's read and its rename, in a
    way the write cannot be re-applied to; their edit is kept and nothing was written."""


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


def _read_text(path: Path) -> str:
    """The file's text; only a regular file is opened (a FIFO is never waited on)."""
    raw = read_regular(path, MAX_RECORD_BYTES)
    if len(raw) > MAX_RECORD_BYTES:
        raise RecordInvalid(f"file is larger than {MAX_RECORD_BYTES} bytes.")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RecordInvalid(f"file is not UTF-8 text (byte {exc.start}).") from None


def _rel(path: Path) -> str:
    return f"{path.parent.name}/{path.name}"


def _parse_text(path: Path, text: str, kind: str) -> Record:
    front, body = split_frontmatter(text)
    data = load_frontmatter(front)
    if kind == "task":
        rec: Record = task_from_frontmatter(data, body)
    else:
        rec = plan_from_frontmatter(data, body)
    if path.name != f"{rec.id}.md":
        raise RecordInvalid(f"id {rec.id} does not match the file name {path.name}.")
    return rec


def _read_record(path: Path, kind: str) -> tuple[Record | RecordProblem | None, str | None]:
    """(the record, a problem, or None when the file is gone; the text read, if any)."""
    try:
        text = _read_text(path)
    except FileNotFoundError:
        return None, None
    except RecordInvalid as exc:
        return RecordProblem(path, f"{_rel(path)}: {exc.reason}"), None
    except NotRegularFile as exc:
        return RecordProblem(path, f"{_rel(path)}: {exc.strerror}; left out."), None
    except OSError as exc:
        return RecordProblem(path, f"{_rel(path)}: cannot be read ({exc.strerror or exc})."), None
    try:
        return _parse_text(path, text, kind), text
    except RecordInvalid as exc:
        return RecordProblem(path, f"{_rel(path)}: {exc.reason}"), text


HALF_WRITTEN_SECONDS = 2.0
"""A file modified this recently that does not parse may be an editor's save in progress."""
HALF_WRITTEN_RETRIES = 5
HALF_WRITTEN_PAUSE = 0.05


def _parse(path: Path, kind: str) -> Record | RecordProblem | None:
    return _read_record_settled(path, kind)[0]


def _read_record_settled(path: Path, kind: str) -> tuple[Record | RecordProblem | None, str | None]:
    """`_read_record`, but a freshly modified file that does not parse is read again a
    few times (~0.25 s) before its problem counts: it may be half-written."""
    result, text = _read_record(path, kind)
    for _ in range(HALF_WRITTEN_RETRIES):
        if not (isinstance(result, RecordProblem) and text is not None and _recently_modified(path)):
            break
        time.sleep(HALF_WRITTEN_PAUSE)
        result, text = _read_record(path, kind)
    return result, text


def _recently_modified(path: Path) -> bool:
    try:
        return time.time() - os.stat(path).st_mtime < HALF_WRITTEN_SECONDS
    except OSError:
        return False


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


def _failed(path: Path, exc: OSError, what: str) -> StoreError:
    reason = describe_os_error(exc)
    return StoreError(f"Could not {what} {_rel(path)}: {reason}; the record on disk is unchanged.")


def _create_exclusive(path: Path, text: str) -> bool:
    """Create `path` holding `text`, whole, only if no file has that name. False if taken."""
    try:
        return create_exclusive(path, text)
    except OSError as exc:
        raise _failed(path, exc, "create") from exc


# ---------------------------------------------------------------- the store


class Store:
    """One record store folder. Safe to use from several threads and processes."""

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)
        self.tasks_dir = self.root / "tasks"
        self.plans_dir = self.root / "plans"
        self._lock_path = self.root / ".lock"
        self._ids_path = self.root / ".ids"
        self._lock = StoreLock(self._lock_path)
        self._ids = IdCounter(self._ids_path)
        self._cache: dict[Path, tuple[tuple[int, int, int], Record | RecordProblem]] = {}
        self._cache_lock = threading.Lock()
        # Per thread, while it holds the lock: path → (text, record) of each fresh read,
        # so a write can tell whether the file changed since the record was read.
        self._local = threading.local()
        # The identity (inode, size, mtime, ctime) of each file as this store last wrote it.
        self._written: dict[Path, tuple[int, int, int, int]] = {}

    # -- locking

    def _ensure_dirs(self) -> None:
        try:
            self.tasks_dir.mkdir(parents=True, exist_ok=True)
            self.plans_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"Could not create the store at {self.root}: {exc.strerror or exc}.") from exc

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """Hold the store's exclusive lock (fcntl.flock on `<root>/.lock`); re-entrant per thread.

        Raises `StoreError` with a sentence when the lock cannot be taken (a read-only
        store, a `.lock` that is a symlink, a FIFO or unwritable).
        """
        if self._lock.held():
            with self._lock.hold():
                yield
            return
        self._ensure_dirs()
        try:
            self._lock.acquire()
        except OSError as exc:
            raise StoreError(
                f"Could not lock the store {self.root}: .lock {_reason(exc)}; nothing was changed."
            ) from exc
        try:
            yield
        finally:
            self._local.seen = {}
            self._lock.release()

    # -- reading

    def _holding_lock(self) -> bool:
        return self._lock.held()

    def _seen(self) -> dict[Path, tuple[str, Record]]:
        seen = getattr(self._local, "seen", None)
        if seen is None:
            seen = self._local.seen = {}
        return seen  # type: ignore[no-any-return]

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
        result, text = _read_record_settled(path, kind)
        if fresh and text is not None and not isinstance(result, RecordProblem) and result is not None:
            self._seen()[path] = (text, result)
        if result is not None:
            with self._cache_lock:
                self._cache[path] = (key, result)
        return result

    def _scan(
        self, folder: Path, pattern: re.Pattern[str], kind: str, out: dict[str, Any], problems: list[RecordProblem]
    ) -> None:
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
        # Forget files that are gone (compared by name: building a Path per file is slow).
        seen = set(names)
        with self._cache_lock:
            for path in [p for p in self._cache if p.name not in seen and p.parent == folder]:
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
            return self._ids.read()
        except OSError as exc:
            raise StoreError(
                f"Could not read {_rel(self._ids_path)}: it {_reason(exc)}; no id was minted "
                "(without it a removed record's id could be handed out again)."
            ) from exc

    def _write_ids(self, ids: dict[str, int]) -> None:
        try:
            self._ids.write(ids)
        except OSError as exc:
            raise _failed(self._ids_path, exc, "write") from exc

    def _mint(self, prefix: str, folder: Path, render: Callable[[str], tuple[Record, str]]) -> Record:
        with self.lock():
            ids = self._read_ids()
            number = max(ids.get(prefix, 0), highest_on_disk(folder, prefix)) + 1
            while True:
                if number > ID_LIMIT:
                    kind = "task" if prefix == "t" else "plan"
                    raise StoreError(
                        f"No {kind} id is left: ids go up to {prefix}{ID_LIMIT}, and {folder.name}/ or "
                        f"{_rel(self._ids_path)} has reached it; nothing was added."
                    )
                record_id = f"{prefix}{number}"
                rec, text = render(record_id)
                _check_size(text)
                # Remember the id before the file exists: a crash in between leaves a
                # gap in the numbers, never an id handed out twice.
                ids[prefix] = number
                self._write_ids(ids)
                path = folder / f"{record_id}.md"
                if _create_exclusive(path, text):
                    now = file_identity(path)
                    with self._cache_lock:
                        if now is not None:
                            self._written[path] = now
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
        """Replace `path` with `rec`, keeping the file's hand edits; never over a person's save.

        When this thread read the record under the lock (`read_task` / `read_plan`),
        the file is checked again just before the rename: if a person saved it in
        between, the fields this write changes are re-applied to what they saved, or
        `RecordChanged` is raised when they changed the same field. A file still being
        written in place is waited for (briefly) first.
        """
        with self.lock():
            base = self._seen().get(path)
            render_from: str | None = None  # keep hand edits from this text instead of the file's
            for _attempt in range(WRITE_ATTEMPTS):
                existing, identity = _current_text(path)
                if base is not None and existing != base[0]:
                    rec, base = self._reapply(path, base[1], rec)
                    render_from = None
                    continue  # check the file again before writing over it
                text = render_record(rec, existing if render_from is None else render_from)
                _check_size(text)
                # A file exactly as this store last wrote it was touched by nobody since:
                # no editor to wait for.
                with self._cache_lock:
                    quiet = identity is not None and self._written.get(path) == identity
                replaced = _Replaced(path, identity, quiet=quiet)
                try:
                    written = atomic_write(path, text, precondition=replaced.check, replaced_ok=replaced.is_the_one)
                except OSError as exc:
                    replaced.close()
                    raise _failed(path, exc, "write") from exc
                if not written:
                    replaced.close()
                    continue  # changed while we rendered: read it again
                late = replaced.late_text()
                replaced.close()
                self._seen()[path] = (text, rec)
                now = file_identity(path)
                with self._cache_lock:
                    if now is not None:
                        self._written[path] = now
                if late is None:
                    break
                # A person's in-place save landed in the file just replaced (it was open in
                # their editor): put it back, with this write's change on top.
                ours_base = base[1] if base is not None else _parsed(path, existing)
                merged = self._merge_late(path, late, ours_base, rec)
                base, rec, render_from = (text, rec), merged, late
            else:
                raise RecordChanged(
                    f"{_rel(path)} kept changing while it was being written; nothing was written — try again."
                )
            self._bump_ids(rec.id)

    def _merge_late(self, path: Path, late: str, base: Record | None, rec: Record) -> Record:
        """The person's late save `late` with `rec`'s changes (relative to `base`) on top;
        when that cannot be done, their text is put back as it was and RecordChanged raised."""
        person = _parsed(path, late)
        if base is not None and person is not None:
            fields = [name for name in type(rec).model_fields if name != "extra"]
            ours = {n for n in fields if getattr(rec, n) != getattr(base, n)}
            theirs = {n for n in fields if getattr(person, n) != getattr(base, n)}
            if not any(getattr(rec, n) != getattr(person, n) for n in ours & theirs):
                merged = person.model_copy(update={n: getattr(rec, n) for n in ours})
                try:
                    return type(rec).model_validate(merged.model_dump(by_alias=False))
                except ValueError:
                    pass
        try:
            atomic_write(path, late)
        except OSError as exc:
            raise _failed(path, exc, "restore") from exc
        raise RecordChanged(
            f"{_rel(path)} was saved by hand while this change was written; the edit is kept and this change "
            "was not made — read it again and retry."
        )

    def _reapply(self, path: Path, base: Record, rec: Record) -> tuple[Record, tuple[str, Record]]:
        """`rec`'s changes to `base`, applied to the file a person saved meanwhile; with
        the (text, record) of that file, the new base."""
        current, text = _read_record_settled(path, "task" if isinstance(rec, TaskRecord) else "plan")
        if current is None:
            raise RecordChanged(f"{_rel(path)} was removed while this change was made; nothing was written.")
        if isinstance(current, RecordProblem) or text is None:
            raise RecordChanged(
                f"{_rel(path)} was edited by hand meanwhile and is not a valid record now "
                f"({str(current).split(': ', 1)[-1].rstrip('.')}); the edit is kept and this change was not made."
            )
        fields = [name for name in type(rec).model_fields if name != "extra"]
        ours = {n for n in fields if getattr(rec, n) != getattr(base, n)}
        theirs = {n for n in fields if getattr(current, n) != getattr(base, n)}
        clash = sorted(n for n in ours & theirs if getattr(rec, n) != getattr(current, n))
        if clash:
            names = ", ".join((type(rec).model_fields[n].alias or n) for n in clash)
            raise RecordChanged(
                f"{_rel(path)} was edited by hand meanwhile ({names}); the edit is kept and this change "
                "was not made — read it again and retry."
            )
        merged = current.model_copy(update={n: getattr(rec, n) for n in ours})
        try:
            return type(rec).model_validate(merged.model_dump(by_alias=False)), (text, current)
        except ValueError as exc:
            raise RecordChanged(
                f"{_rel(path)} was edited by hand meanwhile and this change no longer fits it ({exc}); "
                "the edit is kept and this change was not made."
            ) from None

    def _bump_ids(self, record_id: str) -> None:
        # A record written under an id never minted (an import, a restore) still counts.
        ids = self._read_ids()
        prefix, number = record_id[0], id_number(record_id)
        if ids.get(prefix, 0) < number:
            ids[prefix] = number
            self._write_ids(ids)

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
            fsync_dir(path.parent)
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
                    if _OWN_TEMP.fullmatch(name):
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


WRITE_ATTEMPTS = 5
LATE_WATCH_SECONDS = 0.1
"""How long a write watches the file it replaced, when that file was edited moments ago."""
SETTLE_SECONDS = 0.05
"""A file modified less than this long ago may still be being written in place."""

# The temp files the store's own writers make (core.atomic.write_temp): `.t12.md.<random>.tmp`,
# `.ids.<random>.tmp`. Only these are tidied away; an editor's files never are.
_OWN_TEMP = re.compile(r"\.(?:[tp][1-9][0-9]{0,8}\.md|\.ids)\.[A-Za-z0-9_]{6,12}\.tmp")


def _reason(exc: OSError) -> str:
    if isinstance(exc, NotRegularFile):
        return exc.strerror or "is not a regular file"
    return f"cannot be used ({describe_os_error(exc)})"


def _check_size(text: str) -> None:
    if len(text.encode("utf-8")) > MAX_RECORD_BYTES:
        raise RecordTooLarge(f"the record would be larger than {MAX_RECORD_BYTES:,} bytes.")



def _current_text(path: Path) -> tuple[str | None, tuple[int, int, int, int] | None]:
    """The file's text now (None: missing or unreadable) and its identity at that read."""
    for _ in range(10):
        identity = file_identity(path)
        try:
            text: str | None = _read_text(path)
        except (OSError, RecordInvalid):
            text = None
        if file_identity(path) == identity:
            break
        time.sleep(0.01)  # changed while read: read it again
    return text, identity


def _settled(path: Path, identity: tuple[int, int, int, int] | None, *, quiet: bool = False) -> bool:
    """True when the file is still the one read, and not being written in place right now."""
    if file_identity(path) != identity:
        return False
    if identity is not None and not quiet and time.time_ns() - identity[2] < SETTLE_SECONDS * 1e9:
        time.sleep(SETTLE_SECONDS)  # an editor may be mid-save: give it a moment
        return file_identity(path) == identity
    return True


def _parsed(path: Path, text: str | None) -> Record | None:
    if text is None:
        return None
    try:
        return _parse_text(path, text, "plan" if path.parent.name == "plans" else "task")
    except RecordInvalid:
        return None


class _Replaced:
    """The file a write replaces, held open across the rename.

    `check` (the write's precondition) makes sure the file is still the one read and
    keeps a descriptor on it; `late_text` tells, after the rename, whether someone
    wrote into that file after the check (an editor saving in place through a file it
    had open) and returns what they wrote, once it has settled.
    """

    def __init__(self, path: Path, identity: tuple[int, int, int, int] | None, *, quiet: bool = False) -> None:
        self.path = path
        self.identity = identity
        self.quiet = quiet
        self.fd: int | None = None

    def check(self) -> bool:
        if not _settled(self.path, self.identity, quiet=self.quiet):
            return False
        if self.identity is None:
            return True
        try:
            self.fd = open_regular(self.path)
        except OSError:
            return False
        st = os.fstat(self.fd)
        return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns) == self.identity

    def is_the_one(self, st: os.stat_result) -> bool:
        """Was the file the rename replaced the one read, unchanged? (see atomic_write)"""
        if self.identity is None:
            return False  # there was no file when read: a person created one meanwhile
        return (st.st_ino, st.st_size, st.st_mtime_ns) == self.identity[:3]

    def _shape(self) -> tuple[int, int]:
        assert self.fd is not None
        st = os.fstat(self.fd)
        return (st.st_size, st.st_mtime_ns)

    def late_text(self) -> str | None:
        if self.fd is None or self.identity is None:
            return None
        shape = self._shape()
        if shape == (self.identity[1], self.identity[2]):
            if self.quiet or time.time_ns() - self.identity[2] > HALF_WRITTEN_SECONDS * 1e9:
                return None  # nobody has been editing it: nothing to wait for
            # Someone edited it moments ago and may have it open in their editor right
            # now: watch the replaced file a little longer for a save landing in it.
            deadline = time.monotonic() + LATE_WATCH_SECONDS
            while shape == (self.identity[1], self.identity[2]):
                if time.monotonic() > deadline:
                    return None
                time.sleep(0.01)
                shape = self._shape()
        for _ in range(20):  # wait (≤ 1 s) for the editor to finish writing
            time.sleep(SETTLE_SECONDS)
            now = self._shape()
            if now == shape:
                break
            shape = now
        raw = os.pread(self.fd, min(shape[0], MAX_RECORD_BYTES + 1), 0)
        return raw.decode("utf-8", errors="replace")

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
