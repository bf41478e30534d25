"""The store's parse cache: each record file parsed once while it is unchanged.

Why a module of its own: how a load avoids re-reading 10,000 files (the key that says
a file is unchanged, when an entry is forgotten, what a listing that fails reports) is a
performance policy that changes apart from the rules of a record file
(core/store/recordfile.py) and from how the `Store` writes (core/store/store.py).

- `ParsedFiles.parse(path, kind, fresh=)` → (the record, a problem or None; the text when
  it was read now). An entry is reused while (inode, size, mtime) is unchanged.
- `ParsedFiles.scan(folder, pattern, kind, out, problems)`: every record file of one
  folder, a problem for each badly named or invalid one; entries of files gone are
  forgotten.
- `StoreSnapshot(tasks, plans, problems)`: what a load returns.
"""

from __future__ import annotations

import os
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from planwatch.core.store.recordfile import Record, RecordProblem, read_record_settled, relative_name
from planwatch.core.store.schema import PlanRecord, TaskRecord, id_number

__all__ = ["KIND_FOLDER_LINK", "ParsedFiles", "StoreSnapshot", "problem_order"]

KIND_FOLDER_LINK = "is a symlink, not a folder of the store (its records would live elsewhere)"
"""Why `tasks/` or `plans/` as a symlink is refused: records stay inside the store."""


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


class ParsedFiles:
    """The last parse of each record file, keyed by path; safe to share between threads."""

    def __init__(self) -> None:
        self._entries: dict[Path, tuple[tuple[int, int, int], Record | RecordProblem]] = {}
        self._lock = threading.Lock()

    def parse(self, path: Path, kind: str, *, fresh: bool = False) -> tuple[Record | RecordProblem | None, str | None]:
        """Parse `path`, reusing the last parse while (inode, size, mtime) is unchanged;
        with the text when the file was read now (None when the parse was reused).

        `fresh` skips the reuse: a replaced file can get a freed inode back with the
        same size within one coarse mtime tick, so a read that a write will build on
        (under the lock) always reads the bytes.
        """
        try:
            st = os.lstat(path)  # a symlink (even a dangling one) is reported, never followed
        except FileNotFoundError:
            with self._lock:
                self._entries.pop(path, None)
            return None, None
        except OSError as exc:
            return RecordProblem(path, f"{relative_name(path)}: cannot be read ({exc.strerror or exc})."), None
        key = (st.st_ino, st.st_size, st.st_mtime_ns)
        with self._lock:
            hit = self._entries.get(path)
        if hit is not None and hit[0] == key and not fresh:
            return hit[1], None
        result, text = read_record_settled(path, kind)
        if result is not None:
            with self._lock:
                self._entries[path] = (key, result)
        return result, text

    def scan(
        self, folder: Path, pattern: re.Pattern[str], kind: str, out: dict[str, Any], problems: list[RecordProblem]
    ) -> None:
        """Every record file in `folder` into `out` (by id), each bad one into `problems`."""
        try:
            if os.path.islink(folder):
                problems.append(RecordProblem(folder, f"{folder.name}/: {KIND_FOLDER_LINK}; left out."))
                return
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
                problems.append(RecordProblem(path, f"{relative_name(path)}: file name must be {kind[0]}<n>.md."))
                continue
            result, _text = self.parse(path, kind)
            if result is None:
                continue
            if isinstance(result, RecordProblem):
                problems.append(result)
            else:
                out[result.id] = result
        # Forget files that are gone (compared by name: building a Path per file is slow).
        seen = set(names)
        with self._lock:
            for path in [p for p in self._entries if p.name not in seen and p.parent == folder]:
                del self._entries[path]


def problem_order(problem: RecordProblem) -> tuple[str, int, str]:
    """Problems sorted by folder, then by id number (`t2` before `t10`), odd names last."""
    name = problem.path.name
    digits = name[1:-3]
    return (problem.path.parent.name, *((int(digits), name) if digits.isdigit() else (1 << 62, name)))
