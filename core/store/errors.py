"""The store's failures, as exceptions whose message is a sentence for a person.

Shared by the `Store` (core/store/store.py), the guard that keeps a person's save
(core/store/handsave.py) and every caller that reports a failed write (the tools, the
CLI, the MCP server, the sweep, the mirror); one module so none of them imports the
store's machinery just to catch its errors.
"""

from __future__ import annotations

from pathlib import Path

from planwatch.core.atomic import describe_os_error

__all__ = ["RecordChanged", "RecordMissing", "RecordTooLarge", "StoreError", "failed_write"]


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


def failed_write(path: Path, exc: OSError, what: str) -> StoreError:
    """`Could not <what> tasks/t7.md: <reason>; the record on disk is unchanged.`"""
    reason = describe_os_error(exc)
    return StoreError(f"Could not {what} {path.parent.name}/{path.name}: {reason}; the record on disk is unchanged.")
