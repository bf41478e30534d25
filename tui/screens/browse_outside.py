"""The browse screen's ways out of the app: `y` copies the checklist as Markdown, `o`
pages the transcript (or, with the details focused, the plan documents; for an OpenCode
session, whose transcript is a database, its plan and prompts as text), `E` opens the
person's own item's store record in $EDITOR. The screen's keys call these with itself;
running a program suspends the app (tui.outside)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from planwatch.core.model import harness_label
from planwatch.core.text import safe_text
from planwatch.core.transcripts.sniff import is_database_file
from planwatch.tui.outside import (
    DEFAULT_EDITOR,
    DEFAULT_PAGER,
    checklist_markdown,
    command_from,
    regular_file,
    run_outside,
)
from planwatch.tui.widgets.details import DetailsPanel

if TYPE_CHECKING:
    from planwatch.core.checklist import Checklist
    from planwatch.core.sessions import SessionEntry
    from planwatch.tui.screens.browse import BrowseScreen


def copy_checklist(screen: BrowseScreen) -> None:
    """`y`: the selected session's checklist as Markdown (`- [x] …`) on the clipboard."""
    entry = screen.model.entry(screen.selected_id) if screen.selected_id else None
    if entry is None:
        screen.notify("Select a session first.", markup=False)
        return
    title = screen.model.session_title(entry.session.id)
    text = checklist_markdown(title, screen.model.checklist_for(entry.session.id), screen.model.reading)
    screen.app.copy_to_clipboard(text)
    screen.notify(f"Copied the checklist ({len(text.splitlines())} lines) as Markdown.", markup=False)


def open_outside(screen: BrowseScreen) -> None:
    """`o`: the transcript in $PAGER; with the details focused, the plan documents."""
    entry = screen.model.entry(screen.selected_id) if screen.selected_id else None
    if entry is None:
        screen.notify("Select a session first.", markup=False)
        return
    pager = command_from("PAGER", DEFAULT_PAGER)
    details = screen.query_one("#details", DetailsPanel)
    documents = screen.model.checklist_for(entry.session.id).documents if screen.model.reading else ()
    if documents and screen.focused is details:
        # The documents on the pager's standard input: plan text never goes to a file (and
        # `less -R` would act on an escape in it: shown instead).
        text = safe_text("\n\n".join(d.text for d in documents))
        problem = run_outside(screen.app, pager, stdin_text=text)
    elif entry.session.harness in ("opencode", "kilo") and is_database_file(entry.session.path):
        # OpenCode's (and Kilo's) sessions live in an SQLite database, which a pager shows as bytes:
        # the session's plan and prompts as text instead, on the pager's standard input.
        problem = _page_database_session(screen, entry, pager)
    elif regular_file(document := paged_file(entry)):
        # Through our safe text, not named to the pager: it would show raw escapes.
        problem = run_outside(screen.app, pager, stdin_file=document)
    else:
        problem = f"{safe_text(str(document), single_line=True)} is not a regular file."
    if problem:
        screen.notify(problem, severity="error", markup=False)


def paged_file(entry: SessionEntry) -> Path:
    """The file `o` gives the pager for a session: its transcript, or for a session that
    is a folder, the document in it of what was said (FOLDER_DOCUMENTS)."""
    document = FOLDER_DOCUMENTS.get(entry.session.harness)
    return document(entry.session.path, entry.session.id) if document else entry.session.path


# The harnesses whose session is a folder, and the file in it a pager can show: Copilot
# CLI's event log; Cline's messages document, in its data folder (what the person and the
# agent said).
FOLDER_DOCUMENTS: dict[str, Callable[[Path, str], Path]] = {
    "copilot": lambda folder, _sid: folder / "events.jsonl",
    "cline": lambda data, sid: data / "sessions" / sid / f"{sid}.messages.json",
}


def _page_database_session(screen: BrowseScreen, entry: SessionEntry, pager: list[str]) -> str | None:
    """An OpenCode (or Kilo) session to the pager as text: what the app holds (its plan,
    its title) taken here, its prompts read from the database in a thread worker (a busy
    database is tried again for up to about a second: never on the UI thread), the pager
    run back on the UI thread. Returns why not at once (None: the worker goes on)."""
    if not screen.model.reading:
        # The privacy switch: no transcript is read, and the database is OpenCode's one.
        name = harness_label(entry.session.harness)
        return f"Reading agents' plans is off (Settings → Privacy): the {name} database is not read."
    session = entry.session
    checklist, title = screen.model.checklist_for(session.id), screen.model.session_title(session.id)

    def read_then_page() -> None:
        from planwatch.core.transcripts.opencode import DatabaseProblem, session_prompts

        try:
            prompts = session_prompts(session.path, session.id)
        except DatabaseProblem as exc:
            screen.app.call_from_thread(
                screen.notify, safe_text(str(exc), single_line=True), severity="error", markup=False
            )
            return
        paged = opencode_session_text(entry, checklist, prompts, title)
        screen.app.call_from_thread(_page, screen, pager, paged)

    screen.run_worker(read_then_page, thread=True, group="outside", exit_on_error=False)
    return None


def _page(screen: BrowseScreen, pager: list[str], text: str) -> None:
    problem = run_outside(screen.app, pager, stdin_text=text)
    if problem:
        screen.notify(problem, severity="error", markup=False)


def opencode_session_text(
    entry: SessionEntry, checklist: Checklist, prompts: list[tuple[datetime | None, str]], title: str
) -> str:
    """The session's plan (the checklist, as `y` copies it, under `title`: the session's
    title as the list shows it) and then every prompt typed in it with its time, oldest
    first; every line through safe_text."""
    session = entry.session
    head = [f"{harness_label(session.harness)} session {session.id}"]
    if session.cwd:
        head.append(f"Folder: {session.cwd}")
    head.append(f"Database: {session.path}")
    lines = [checklist_markdown(title, checklist, True).rstrip("\n"), "", *head, "", "## Prompts"]
    if not prompts:
        lines.append("(none)")
    for moment, text in prompts:
        lines += ["", f"### {moment:%Y-%m-%d %H:%M:%S} UTC" if moment is not None else "### (no time)", text]
    return safe_text("\n".join(lines) + "\n")


def edit_record(screen: BrowseScreen) -> None:
    """`E`: the own item under the cursor's store record in $VISUAL or $EDITOR."""
    own = screen.checklist_view().current_own_row()
    if own is None:
        screen.notify("Move to one of your own items: its store record opens in $EDITOR.", markup=False)
        return
    path = Path(screen.store.root) / "tasks" / f"{own.task_id}.md"
    if not regular_file(path):
        screen.notify(f"No record file for {own.task_id} at {safe_text(str(path), single_line=True)}.", markup=False)
        return
    editor = command_from("VISUAL", "") or command_from("EDITOR", DEFAULT_EDITOR)
    problem = run_outside(screen.app, [*editor, str(path)])
    if problem:
        screen.notify(problem, severity="error", markup=False)
