"""The record store on disk: Markdown files with YAML frontmatter, one per record.

API summary (stable; the tools, the channel's watcher and the app build on it):

- `Store(root)` — one folder: `<root>/tasks/t<n>.md`, `<root>/plans/p<n>.md`.
  - `load() -> StoreSnapshot`: every valid record, plus a `RecordProblem` for each file
    that is not one. Never raises on bad files. Parsed files are cached by
    (inode, size, mtime), so a second load only re-reads what changed
    (core/store/snapshot.py).
  - `read_task(id)`, `read_plan(id)` → the record, or None when missing or invalid.
    Inside `lock()` they always read the file itself (what a write builds on), once
    an editor's save in progress into it has finished.
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
- One file read, and what is wrong with a file that is not a record:
  core/store/recordfile.py (`parse_record_file`, `RecordProblem`, `MAX_RECORD_BYTES`).
- The failures (`StoreError`, `RecordMissing`, `RecordChanged`): core/store/errors.py.

Decisions, so hand edits and concurrency behave predictably:
- Unknown keys a person adds to a record are kept and written back; they are not
  validated. Comments and key order of the frontmatter survive a write (ruamel.yaml
  round-trip, `core/store/record_render.py`); the body is replaced by the record's body.
  A person's save that lands while a tool writes is never overwritten
  (core/store/handsave.py).
- Ids are never reused (the lock and the counter: `core/store/ids.py`): `<root>/.ids`
  remembers the highest id ever minted (`.lock` a second copy, `tasks/.ids` and
  `plans/.ids` a third of each kind's), and the next id is one above both that and
  every file present. Creation links a fully written temp file into place (`os.link`,
  which fails when the name exists), so two minters can never overwrite each other
  even without the lock.
- Every write: temp file in the same folder, fsync, rename (or link), fsync the folder
  (`core/atomic.py`). The new file keeps the mode of the one it replaces, and its owner
  where the writer may give it (root): a person's `chmod 600` stays. A failed write (ENOSPC …) removes the temp file, keeps the old
  record, and raises `StoreError` with a sentence saying so.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

from planwatch.core.atomic import atomic_write, create_exclusive, describe_os_error, fsync_dir
from planwatch.core.regular_files import NotRegularFile, describe_kind, file_identity
from planwatch.core.store.errors import RecordChanged, RecordMissing, RecordTooLarge, StoreError, failed_write
from planwatch.core.store.handsave import (
    ReplacedFile,
    current_text,
    merge_late_save,
    parsed_or_none,
    reapply_onto_their_save,
    wait_for_in_place_save,
)
from planwatch.core.store.ids import ID_LIMIT, IdCounter, StoreLock, highest_on_disk
from planwatch.core.store.record_render import render_record
from planwatch.core.store.recordfile import (
    MAX_RECORD_BYTES,
    Record,
    RecordProblem,
    relative_name,
)
from planwatch.core.store.schema import PlanRecord, TaskRecord, id_number, is_plan_id, is_task_id
from planwatch.core.store.snapshot import KIND_FOLDER_LINK, ParsedFiles, StoreSnapshot, problem_order

__all__ = ["Store", "StoreSnapshot"]

_TASK_FILE = re.compile(r"t[0-9]+\.md")
_PLAN_FILE = re.compile(r"p[0-9]+\.md")


def _create_exclusive(path: Path, text: str) -> bool:
    """Create `path` holding `text`, whole, only if no file has that name. False if taken."""
    try:
        return create_exclusive(path, text)
    except OSError as exc:
        raise failed_write(path, exc, "create") from exc


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
        # The counter's third copy, each kind's in its own folder, survives losing both
        # `.ids` and `.lock` (core/store/ids.py).
        marks = {"t": self.tasks_dir / ".ids", "p": self.plans_dir / ".ids"}
        self._ids = IdCounter(self._ids_path, self._lock, marks)
        self._parsed = ParsedFiles()
        self._written_lock = threading.Lock()
        # Per thread, while it holds the lock: path → (text, record) of each fresh read,
        # so a write can tell whether the file changed since the record was read.
        self._local = threading.local()
        # The identity (inode, size, mtime, ctime) of each file as this store last wrote it.
        self._written: dict[Path, tuple[int, int, int, int]] = {}

    # -- locking

    def _ensure_dirs(self) -> None:
        for folder in (self.tasks_dir, self.plans_dir):
            # A kind folder that is a symlink would put new records outside the store.
            if os.path.islink(folder):
                raise StoreError(
                    f"Could not use the store {self.root}: {folder.name}/ {KIND_FOLDER_LINK}; nothing was changed."
                )
        try:
            self.tasks_dir.mkdir(parents=True, exist_ok=True)
            self.plans_dir.mkdir(parents=True, exist_ok=True)
        except FileExistsError as exc:
            # Something other than a folder where tasks/ or plans/ should be: say what.
            for folder in (self.tasks_dir, self.plans_dir):
                try:
                    mode = os.lstat(folder).st_mode
                except OSError:
                    continue
                if not stat.S_ISDIR(mode):
                    kind = "a file" if stat.S_ISREG(mode) else describe_kind(mode)
                    raise StoreError(
                        f"Could not use the store {self.root}: {folder.name}/ is {kind}, not a folder; "
                        "nothing was changed."
                    ) from exc
            raise StoreError(f"Could not create the store at {self.root}: {exc.strerror or exc}.") from exc
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
        """The file's record through the parse cache; a fresh read under the lock is
        remembered for this thread, so a write can tell whether the file changed since.

        A fresh read first lets an editor's save in progress finish (a file written in
        place moments ago and still open for writing), as a write does: read between the
        editor's truncate and its writes, the record would be refused as not valid.
        Unlocked reads (the app's) never wait."""
        if fresh:
            wait_for_in_place_save(path)
        result, text = self._parsed.parse(path, kind, fresh=fresh)
        if fresh and text is not None and not isinstance(result, RecordProblem) and result is not None:
            self._seen()[path] = (text, result)
        return result

    def load(self) -> StoreSnapshot:
        """Every valid record and every problem; never raises on bad files."""
        tasks: dict[str, TaskRecord] = {}
        plans: dict[str, PlanRecord] = {}
        problems: list[RecordProblem] = []
        self._parsed.scan(self.tasks_dir, _TASK_FILE, "task", tasks, problems)
        self._parsed.scan(self.plans_dir, _PLAN_FILE, "plan", plans, problems)
        problems.sort(key=problem_order)
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

    def read_ids(self) -> dict[str, int]:
        """The id counter: the highest number handed out for each prefix (`t`, `p`), so
        a removed record's id is never minted again (the sync claims ranges above it)."""
        try:
            return self._ids.read()
        except OSError as exc:
            where = Path(exc.filename) if exc.filename else self._ids_path
            raise StoreError(
                f"Could not read {relative_name(where)}: it {_reason(exc)}; no id was minted "
                "(without it a removed record's id could be handed out again)."
            ) from exc

    def _write_ids(self, ids: dict[str, int]) -> None:
        try:
            self._ids.write(ids)
        except OSError as exc:
            raise failed_write(self._ids_path, exc, "write") from exc

    def _mint(self, prefix: str, folder: Path, render: Callable[[str], tuple[Record, str]]) -> Record:
        with self.lock():
            ids = self.read_ids()
            number = max(ids.get(prefix, 0), highest_on_disk(folder, prefix)) + 1
            # A shared store mints from the range its host claimed (core/sync/mint.py);
            # without one (offline, used up) the id is provisional until the next sync.
            from planwatch.core.sync.mint import claimed_number

            claimed = claimed_number(self.root, prefix, lambda n: (folder / f"{prefix}{n}.md").exists())
            if claimed is not None:
                number = claimed
            while True:
                if number > ID_LIMIT:
                    kind = "task" if prefix == "t" else "plan"
                    raise StoreError(
                        f"No {kind} id is left: ids go up to {prefix}{ID_LIMIT}, and {folder.name}/ or "
                        f"{relative_name(self._ids_path)} has reached it; nothing was added."
                    )
                record_id = f"{prefix}{number}"
                rec, text = render(record_id)
                _check_size(text)
                # Remember the id before the file exists: a crash in between leaves a
                # gap in the numbers, never an id handed out twice.
                ids[prefix] = max(ids.get(prefix, 0), number)
                self._write_ids(ids)
                path = folder / f"{record_id}.md"
                if _create_exclusive(path, text):
                    now = file_identity(path)
                    with self._written_lock:
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
                with self._written_lock:
                    ours = self._written.get(path)
                if ours is None or file_identity(path) != ours:
                    wait_for_in_place_save(path)  # an editor's save paused half-way is let finish
                existing, identity = current_text(path)
                if base is not None and existing != base[0]:
                    rec, base = reapply_onto_their_save(path, base[1], rec)
                    render_from = None
                    continue  # check the file again before writing over it
                text = render_record(rec, existing if render_from is None else render_from)
                _check_size(text)
                # A file exactly as this store last wrote it was touched by nobody since:
                # no editor to wait for.
                with self._written_lock:
                    quiet = identity is not None and self._written.get(path) == identity
                replaced = ReplacedFile(path, identity, quiet=quiet)
                try:
                    written = atomic_write(
                        path,
                        text,
                        precondition=replaced.check,
                        replaced_ok=replaced.is_the_one,
                        like=_stat_or_none(path),
                    )
                except OSError as exc:
                    replaced.close()
                    raise failed_write(path, exc, "write") from exc
                if not written:
                    replaced.close()
                    continue  # changed while we rendered: read it again
                now = file_identity(path)  # this write's file, before anyone may change it
                late = replaced.late_text()
                replaced.close()
                self._seen()[path] = (text, rec)
                with self._written_lock:
                    if now is not None:
                        self._written[path] = now
                if late is None:
                    break
                # A person's in-place save landed in the file just replaced (it was open in
                # their editor): put it back, with this write's change on top.
                ours_base = base[1] if base is not None else parsed_or_none(path, existing)
                merged = merge_late_save(path, late, ours_base, rec, now)
                base, rec, render_from = (text, rec), merged, late
            else:
                raise RecordChanged(
                    f"{relative_name(path)} kept changing while it was being written; nothing was written — try again."
                )
            self.count_id(rec.id)

    def count_id(self, record_id: str) -> None:
        """Raise the id counter to `record_id`'s number when it is below it: a record
        written under an id never minted here (an import, a restore, another host's
        record brought by the sync) still counts. Call it holding the store lock."""
        ids = self.read_ids()
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
                raise failed_write(path, exc, "delete") from exc
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


WRITE_ATTEMPTS = 5

# The temp files the store's own writers make (core.atomic.write_temp): `.t12.md.<random>.tmp`,
# `.ids.<random>.tmp`. Only these are tidied away; an editor's files never are.
_OWN_TEMP = re.compile(r"\.(?:[tp][1-9][0-9]{0,8}\.md|\.ids)\.[A-Za-z0-9_]{6,12}\.tmp")


def _reason(exc: OSError) -> str:
    if isinstance(exc, NotRegularFile):
        return exc.strerror or "is not a regular file"
    return f"cannot be used ({describe_os_error(exc)})"


def _stat_or_none(path: Path) -> os.stat_result | None:
    """The `stat` of the file a write replaces (its mode and owner are kept), None when none."""
    try:
        return os.lstat(path)
    except OSError:
        return None


def _check_size(text: str) -> None:
    if len(text.encode("utf-8")) > MAX_RECORD_BYTES:
        raise RecordTooLarge(f"the record would be larger than {MAX_RECORD_BYTES:,} bytes.")
