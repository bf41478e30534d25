"""What the store view says around its table, as pure functions of what it holds: the
columns and their widths at a terminal width, the summary line, and the message shown
in place of an empty table (an unreadable folder, an empty store, no match)."""

from __future__ import annotations

from pathlib import Path

from planwatch.core.store.snapshot import StoreSnapshot
from planwatch.core.text import safe_text
from planwatch.tui.screens.store_rows import TITLE_WIDTH, Filters, count_noun

NARROW = 70
"""Below this many columns the filter bar stacks and the table drops its side columns."""

# Wide: every column. Narrow (a side pane): id, status and title only.
COLUMNS = (
    ("Id", "id"),
    ("Status", "status"),
    ("Pri", "priority"),
    ("Title", "title"),
    ("Approved", "approved"),
    ("Notes", "notes"),
)
NARROW_COLUMNS = ("id", "status", "title")

# The columns that do not share the rest of the width (marks, counts, names).
FIXED_WIDTHS = {"id": 6, "status": 10, "priority": 6, "approved": 12}


def column_widths(total: int) -> dict[str, int]:
    """Each column's width at `total` columns: the table always fits, so the notes
    are never pushed behind a horizontal scrollbar; title and notes share the rest."""
    keys = [key for _, key in COLUMNS if not (total < NARROW) or key in NARROW_COLUMNS]
    widths = {key: FIXED_WIDTHS[key] for key in keys if key in FIXED_WIDTHS}
    # Each cell has one column of padding on either side; 2 for the vertical scrollbar.
    rest = max(12, total - sum(widths.values()) - 2 * len(keys) - 2)
    if "notes" in keys:
        widths["title"] = min(TITLE_WIDTH, max(16, rest * 3 // 5))
        widths["notes"] = max(8, rest - widths["title"])
    else:
        widths["title"] = rest
    return widths


def summary_text(
    snap: StoreSnapshot,
    task_count: int,
    shown: set[str] | None,
    filters: Filters,
    require_approval: bool,
    *,
    refused: bool = False,
) -> str:
    """The line above the table: how many plans and tasks (of how many, when filtered),
    unreadable files, the filters in force — or, when task_list `refused` them, that
    they are not (every task shows) —, and whether approval is required."""
    plans, tasks = count_noun(len(snap.plans), "plan"), count_noun(len(snap.tasks), "task")
    parts = [plans, f"{task_count} of {tasks}" if shown is not None else tasks]
    if snap.problems:
        parts.append(f"{len(snap.problems)} unreadable")
    if filters.active and refused:
        parts.append(f"not filtered: {filters.describe()} was refused (x clears)")
    elif filters.active:
        parts.append(f"filtered: {filters.describe()} (x clears)")
    if require_approval:
        parts.append("approval required to start")
    return " · ".join(parts)


def empty_text(snap: StoreSnapshot, task_count: int, shown: set[str] | None, unreadable: str | None, root: Path) -> str:
    """What shows in place of the table's rows ("" when it has some to show)."""
    if unreadable:
        return unreadable
    if not snap.tasks and not snap.plans:
        return (
            "The store is empty. Press a to add a task; agents add theirs with "
            "`planwatch task add` or through `planwatch mcp`.\n"
            f"Store folder: {safe_text(str(root))}"
        )
    if shown is not None and task_count == 0:
        return "No task matches the filters. Press x to clear them."
    return ""
