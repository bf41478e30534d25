"""Open and copy: the transcript or a plan document in `$PAGER`, a
store record in `$EDITOR` (the app suspends, as lazygit does), the checklist as Markdown
on the clipboard (OSC 52).

A plan document goes to the pager on its standard input, never through a file: agent
plan text stays in memory (docs/privacy.md). The transcript goes there too, read here: the pager
(or `PAGER=cat`) never reads a transcript's raw escapes itself. What a pager and the
clipboard get is safe text (core/text.py). Only regular files are opened.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path
from typing import Any

from textual.app import App, SuspendNotSupported

from planwatch.core.checklist import Checklist
from planwatch.core.regular_files import open_regular
from planwatch.core.text import safe_text

DEFAULT_PAGER = "less -R"
DEFAULT_EDITOR = "vi"


def command_from(variable: str, default: str) -> list[str]:
    return shlex.split(os.environ.get(variable) or default)


PAGE_CHUNK = 1 << 20
"""Bytes of a transcript read, made safe and piped to the pager at a time."""


def run_outside(
    app: App[Any], argv: list[str], *, stdin_text: str | None = None, stdin_file: Path | None = None
) -> str | None:
    """Run a terminal program with the app suspended; None, or why it could not run.
    `stdin_text`, or the text of `stdin_file`, goes to its standard input as safe text."""
    try:
        with app.suspend():
            return _run(argv, stdin_text, stdin_file)
    except SuspendNotSupported:
        # No terminal to hand over (a headless run): the program still runs.
        return _run(argv, stdin_text, stdin_file)


def _run(argv: list[str], stdin_text: str | None, stdin_file: Path | None) -> str | None:
    source: int | None = None
    try:
        if stdin_file is not None:
            source = open_regular(stdin_file)
        if stdin_text is None and source is None:
            subprocess.run(argv, check=False)
            return None
        with subprocess.Popen(argv, stdin=subprocess.PIPE) as proc:
            assert proc.stdin is not None
            try:
                if source is None:
                    proc.stdin.write(safe_text(stdin_text or "").encode("utf-8"))
                else:
                    _pipe_safe(source, proc.stdin)
                proc.stdin.close()
            except BrokenPipeError:
                pass  # the pager quit before reading it all
    except OSError as exc:
        return f"Could not run {shlex.join(argv[:1])}: {exc.strerror or exc}"
    finally:
        if source is not None:
            os.close(source)
    return None


def _pipe_safe(fd: int, sink: Any) -> None:
    """The file's text, as safe text, chunk by chunk (a transcript may be gigabytes: the
    pipe's back-pressure paces the reading to the pager's)."""
    import codecs

    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    while chunk := os.read(fd, PAGE_CHUNK):
        sink.write(safe_text(decoder.decode(chunk)).encode("utf-8"))
    sink.write(safe_text(decoder.decode(b"", final=True)).encode("utf-8"))


def regular_file(path: Path) -> bool:
    try:
        return path.is_file() and not path.is_symlink()
    except OSError:
        return False


def checklist_markdown(title: str, checklist: Checklist, reading: bool) -> str:
    """The checklist as a Markdown task list (`- [x] …`), both sections."""
    lines = [f"# {safe_text(title, single_line=True)}", ""]
    if reading and checklist.sections:
        lines.append("## Agent plan")
        for row in checklist.agent_rows:
            text = safe_text(row.text, single_line=True)
            if row.status == "cancelled":
                lines.append(f"- [ ] ~~{text}~~")
            else:
                mark = "x" if row.done else " "
                note = (
                    " (in progress)"
                    if row.status == "in_progress"
                    else (" (blocked)" if row.status == "blocked" else "")
                )
                lines.append(f"- [{mark}] {text}{note}")
        lines.append("")
    lines.append("## My items")
    for own in checklist.own:
        text = safe_text(own.title, single_line=True)
        if own.status == "dropped":
            lines.append(f"- [ ] ~~{text}~~")
        else:
            note = "" if own.status in ("todo", "done") else f" ({own.status})"
            lines.append(f"- [{'x' if own.done else ' '}] {text}{note}")
    if not checklist.own:
        lines.append("(none)")
    return "\n".join(lines) + "\n"
