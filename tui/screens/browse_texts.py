"""What the browse screen says: the session's head, the notes when there is nothing to
show, and its status line — pure functions of the app's state (untrusted titles, paths
and errors stay literal)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from textual.content import Content

from planwatch.core.model import harness_label
from planwatch.core.text import safe_text, shorten
from planwatch.tui import colours
from planwatch.tui.widgets.session_rows import RUNNING_WINDOW, age, short_folder, untitled

if TYPE_CHECKING:
    from planwatch.core.checklist import Checklist
    from planwatch.core.model import Session
    from planwatch.core.sync.loop import SyncStatus
    from planwatch.tui.messages import ScanFinished, StoreSummary

READING_OFF = "Reading agents' plans is off. Turn it on in Settings (press ,) → Privacy."


def head_text(session: Session, now: datetime, *, pane: bool) -> Content:
    """The head above the checklist: the session's title; in pane mode, with no list
    beside it, also where it runs, how long ago it moved and whether it is running."""
    parts: list[tuple[str, str]] = [(shorten(session.title or untitled(session.harness), 80), "bold")]
    if pane:
        where = (
            short_folder(shorten(session.cwd, 60), str(Path.home())) if session.cwd else harness_label(session.harness)
        )
        parts.append((f"\n{where} · {age(session.updated, now)} ago", colours.MUTED))
        if now - session.updated <= RUNNING_WINDOW:
            parts.append((" · ● running", colours.RUNNING))
    return Content.assemble(*parts)


def agent_note(checklist: Checklist, reading: bool) -> str | None:
    """What the Agent plan section says in place of a plan (None: the plan is shown)."""
    if not reading:
        return READING_OFF
    if not checklist.sections and not checklist.documents:
        return "No plan yet: this agent has made no plan calls in this session."
    return None


def no_selection_text(folder: Path | None, *, scanned: bool) -> str:
    """The head when no session is selected (`folder`: the one a pane waits on)."""
    if folder is not None:
        return f"No session in {safe_text(str(folder), single_line=True)} yet."
    if not scanned:
        return "Looking for sessions…"
    return "No session selected."


def empty_text(scan: ScanFinished | None) -> Content:
    """The session list when it has no session: still looking, or where it looked and
    how to point planwatch elsewhere."""
    if scan is None:
        return Content.styled("Looking for transcripts…", colours.NOTE)
    parts: list[str | tuple[str, str]] = []
    if scan.error:
        parts += [("Reading the transcript folders failed:\n", f"bold {colours.ERROR}"), safe_text(scan.error) + "\n\n"]
    parts += [("No agent transcripts found.\n\n", "bold"), "Looked in:\n"]
    for root in scan.roots_searched:
        parts.append((f"  {safe_text(str(root), single_line=True)}\n", colours.MUTED))
    if not scan.roots_searched:
        parts.append(("  (no folders)\n", colours.MUTED))
    parts += [
        "\nPoint planwatch elsewhere with ",
        ("planwatch --root DIR", "bold"),
        ", or add folders in Settings (press ,) → transcript folders. CLAUDE_CONFIG_DIR and CODEX_HOME are honoured.",
    ]
    return Content.assemble(*parts)


def _clock(seconds: float, now: datetime) -> str:
    when = datetime.fromtimestamp(seconds, now.tzinfo)
    return f"{when:%H:%M}" if when.date() == now.date() else f"{when:%-d %b %H:%M}"


def sync_text(status: SyncStatus | None, now: datetime) -> list[str | tuple[str, str]]:
    """What the status line says of a shared store's background sync (nothing for a
    store that is not shared): when it last synced, or that it is offline."""
    if status is None:
        return []
    if status.reached:
        # A pass that reached the remote says so even when its time could not be read.
        when = f" {_clock(status.synced_at, now)}" if status.synced_at is not None else ""
        return [(f"⇅ synced{when}", colours.MUTED)]
    since = f" since {_clock(status.at, now)}" if status.at is not None else ""
    last = f"last synced {_clock(status.synced_at, now)}" if status.synced_at is not None else "never synced"
    return [(f"⇅ sync offline{since}", colours.WARNING), (f" · {last}; changes kept for the next sync", colours.MUTED)]


def status_text(
    summary: StoreSummary,
    scanned: bool,
    progress: tuple[int, int],
    sync: SyncStatus | None = None,
    now: datetime | None = None,
) -> Content:
    """The status line: the store's trouble first, else the first scan's progress; then
    how a shared store's sync stands."""
    parts: list[str | tuple[str, str]] = []
    if summary.error:
        parts.append((f"⚠ {safe_text(summary.error, single_line=True)}", colours.ERROR))
    elif summary.problems:
        count = len(summary.problems)
        parts += [
            (f"⚠ {count} broken store record{'s' if count > 1 else ''} left out: ", colours.WARNING),
            shorten("; ".join(summary.problems), 200),
            (" — fix or remove the file (press t for the store view).", colours.MUTED),
        ]
    elif not scanned:
        parts.append(("Indexing transcripts…", colours.NOTE))
        done, found = progress
        if found:
            parts.append((f" {done:,} of {found:,} files read", colours.MUTED))
    synced = sync_text(sync, now or datetime.now().astimezone())
    if synced and parts:
        parts.append(("  ·  ", colours.MUTED))
    return Content.assemble(*parts, *synced)
