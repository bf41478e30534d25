"""What the browse screen says when there is nothing to show, and its status line:
pure functions of the app's state (untrusted paths and errors stay literal)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.content import Content

from planwatch.core.text import safe_text, shorten
from planwatch.tui import palette

if TYPE_CHECKING:
    from planwatch.tui.messages import ScanFinished, StoreView


def empty_text(scan: ScanFinished | None) -> Content:
    """The session list when it has no session: still looking, or where it looked and
    how to point planwatch elsewhere."""
    if scan is None:
        return Content.styled("Looking for transcripts…", palette.NOTE)
    parts: list[str | tuple[str, str]] = []
    if scan.error:
        parts += [("Reading the transcript folders failed:\n", f"bold {palette.ERROR}"), safe_text(scan.error) + "\n\n"]
    parts += [("No agent transcripts found.\n\n", "bold"), "Looked in:\n"]
    for root in scan.roots_searched:
        parts.append((f"  {safe_text(str(root), single_line=True)}\n", palette.MUTED))
    if not scan.roots_searched:
        parts.append(("  (no folders)\n", palette.MUTED))
    parts += [
        "\nPoint planwatch elsewhere with ",
        ("planwatch --root DIR", "bold"),
        ", or add folders in Settings (press ,) → transcript folders. "
        "CLAUDE_CONFIG_DIR and CODEX_HOME are honoured.",
    ]
    return Content.assemble(*parts)


def status_text(view: StoreView, scanned: bool, progress: tuple[int, int]) -> Content:
    """The status line: the store's trouble first, else the first scan's progress."""
    parts: list[str | tuple[str, str]] = []
    if view.error:
        parts.append((f"⚠ {safe_text(view.error, single_line=True)}", palette.ERROR))
    elif view.problems:
        count = len(view.problems)
        parts += [
            (f"⚠ {count} broken store record{'s' if count > 1 else ''} left out: ", palette.WARNING),
            shorten("; ".join(view.problems), 200),
            (" — fix or remove the file (press t for the store view).", palette.MUTED),
        ]
    elif not scanned:
        parts.append(("Indexing transcripts…", palette.NOTE))
        done, found = progress
        if found:
            parts.append((f" {done:,} of {found:,} files read", palette.MUTED))
    return Content.assemble(*parts)
