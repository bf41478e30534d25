"""One record file read: what makes a file a record, and what is wrong when it is not.

Why a module of its own: the rules for accepting a file (its size, its encoding, its
frontmatter, the name matching the id) change with the file format, while the `Store`
(core/store/store.py) changes with how records are cached, minted and written. The
watchers read single files through the same rules (`parse_record_file`).

- `parse_task_file(path)`, `parse_plan_file(path)`, `parse_record_file(path)` → the
  record, a `RecordProblem`, or None when the file does not exist.
- `RecordProblem(path, message)` — `message` reads `tasks/t7.md: status must be …`.
- A file is refused when it is larger than `MAX_RECORD_BYTES`, not UTF-8, has no
  frontmatter, is not YAML, has duplicate keys, or uses YAML anchors/aliases or tags
  (no alias bombs, core/store/frontmatter.py); its file name must match its id. Only a
  regular file is opened, never through a symlink.
- A file modified moments ago that does not parse is read again a few times before its
  problem counts: an editor may be half-way through saving it.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

from planwatch.core.regular_files import NotRegularFile, read_regular
from planwatch.core.store.frontmatter import load_frontmatter, split_frontmatter
from planwatch.core.store.record_mapping import plan_from_frontmatter, task_from_frontmatter
from planwatch.core.store.schema import PlanRecord, RecordInvalid, TaskRecord
from planwatch.core.text import safe_text

__all__ = [
    "MAX_RECORD_BYTES",
    "Record",
    "RecordProblem",
    "kind_of",
    "parse_plan_file",
    "parse_record_file",
    "parse_record_text",
    "parse_task_file",
    "read_record_settled",
    "read_record_text",
    "relative_name",
]

MAX_RECORD_BYTES = 1_000_000
"""A record file larger than this is refused unread (a record is a few KB at most)."""

Record = TaskRecord | PlanRecord


@dataclass(frozen=True)
class RecordProblem:
    """A file in the store that is not a valid record: which file, and what is wrong."""

    path: Path
    message: str
    """`<kind folder>/<file name>: <reason>` — ready to show a person: safe text, as
    the file name (and what a reason quotes of the file) is untrusted."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "message", safe_text(self.message, single_line=True))

    def __str__(self) -> str:
        return self.message


def read_record_text(path: Path) -> str:
    """The file's text; only a regular file is opened (a FIFO is never waited on), and
    never through a symlink: a record is a file of the store's own folder, so a link to a
    file elsewhere is neither listed as a record nor written through."""
    raw = read_regular(path, MAX_RECORD_BYTES, follow=False)
    if len(raw) > MAX_RECORD_BYTES:
        raise RecordInvalid(f"file is larger than {MAX_RECORD_BYTES} bytes.")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RecordInvalid(f"file is not UTF-8 text (byte {exc.start}).") from None


def relative_name(path: Path) -> str:
    """`tasks/t7.md`: how messages name a record file."""
    return f"{path.parent.name}/{path.name}"


def parse_record_text(path: Path, text: str, kind: str) -> Record:
    """The record `text` holds, as the file `path` of `kind`; `RecordInvalid` when it is none."""
    front, body = split_frontmatter(text)
    data = load_frontmatter(front)
    if kind == "task":
        rec: Record = task_from_frontmatter(data, body)
    else:
        rec = plan_from_frontmatter(data, body)
    if path.name != f"{rec.id}.md":
        raise RecordInvalid(f"id {rec.id} does not match the file name {path.name}.")
    return rec


def _read_record_once(path: Path, kind: str) -> tuple[Record | RecordProblem | None, str | None]:
    """(the record, a problem, or None when the file is gone; the text read, if any)."""
    try:
        text = read_record_text(path)
    except FileNotFoundError:
        return None, None
    except RecordInvalid as exc:
        return RecordProblem(path, f"{relative_name(path)}: {exc.reason}"), None
    except NotRegularFile as exc:
        return RecordProblem(path, f"{relative_name(path)}: {exc.strerror}; left out."), None
    except OSError as exc:
        return RecordProblem(path, f"{relative_name(path)}: cannot be read ({exc.strerror or exc})."), None
    try:
        return parse_record_text(path, text, kind), text
    except RecordInvalid as exc:
        return RecordProblem(path, f"{relative_name(path)}: {exc.reason}"), text


HALF_WRITTEN_SECONDS = 2.0
"""A file modified this recently that does not parse may be an editor's save in progress."""
HALF_WRITTEN_RETRIES = 5
HALF_WRITTEN_PAUSE = 0.05


def _parse(path: Path, kind: str) -> Record | RecordProblem | None:
    return read_record_settled(path, kind)[0]


def read_record_settled(path: Path, kind: str) -> tuple[Record | RecordProblem | None, str | None]:
    """`_read_record_once`, but a freshly modified file that does not parse is read again a
    few times (~0.25 s) before its problem counts: it may be half-written."""
    result, text = _read_record_once(path, kind)
    for _ in range(HALF_WRITTEN_RETRIES):
        if not (isinstance(result, RecordProblem) and text is not None and _recently_modified(path)):
            break
        time.sleep(HALF_WRITTEN_PAUSE)
        result, text = _read_record_once(path, kind)
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
    return _parse(path, kind_of(path))


def kind_of(path: Path) -> str:
    """The kind of record a file holds, by its folder: `plan` in `plans/`, else `task`."""
    return "plan" if path.parent.name == "plans" else "task"
