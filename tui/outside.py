"""Open and copy (issue 12, Beyond): the transcript or a plan document in `$PAGER`, a
store record in `$EDITOR` (the app suspends, as lazygit does), the checklist as Markdown
on the clipboard (OSC 52).

A plan document goes to the pager on its standard input, never through a file: agent
plan text stays in memory (SPEC §3). Only regular files are opened.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path
from typing import Any

from textual.app import App, SuspendNotSupported

from planwatch.core.checklist import Checklist

DEFAULT_PAGER = "less -R"
DEFAULT_EDITOR = "vi"


def command_from(variable: str, default: str) -> list[str]:
    return shlex.split(os.environ.get(variable) or default)


def run_outside(app: App[Any], argv: list[str], *, stdin_text: str | None = None) -> str | None:
    """Run a terminal program with the app suspended; None, or why it could not run."""
    try:
        with app.suspend():
            return _run(argv, stdin_text)
    except SuspendNotSupported:
        # No terminal to hand over (a headless run): the program still runs.
        return _run(argv, stdin_text)


def _run(argv: list[str], stdin_text: str | None) -> str | None:
    try:
        subprocess.run(argv, input=stdin_text, text=stdin_text is not None, check=False)
    except OSError as exc:
        return f"Could not run {shlex.join(argv[:1])}: {exc.strerror or exc}"
    return None


def regular_file(path: Path) -> bool:
    try:
        return path.is_file() and not path.is_symlink()
    except OSError:
        return False


def checklist_markdown(title: str, checklist: Checklist, reading: bool) -> str:
    """The checklist as a Markdown task list (`- [x] …`), both sections."""
    lines = [f"# {title}", ""]
    if reading and checklist.sections:
        lines.append("## Agent plan")
        for row in checklist.agent_rows:
            text = row.text.replace("\n", " ")
            if row.status == "cancelled":
                lines.append(f"- [ ] ~~{text}~~")
            else:
                mark = "x" if row.done else " "
                note = " (in progress)" if row.status == "in_progress" else (" (blocked)" if row.status == "blocked" else "")
                lines.append(f"- [{mark}] {text}{note}")
        lines.append("")
    lines.append("## My items")
    for own in checklist.own:
        text = own.title.replace("\n", " ")
        if own.status == "dropped":
            lines.append(f"- [ ] ~~{text}~~")
        else:
            note = "" if own.status in ("todo", "done") else f" ({own.status})"
            lines.append(f"- [{'x' if own.done else ' '}] {text}{note}")
    if not checklist.own:
        lines.append("(none)")
    return "\n".join(lines) + "\n"
