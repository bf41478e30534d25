"""Making untrusted transcript text safe to print or show.

Text from transcripts and from hand-edited records is untrusted: it must never carry a
raw control character or a terminal escape to the screen. Markup safety (Rich/Textual
`[bold]`) is the widgets' job: they render `Text` objects, never markup strings.
"""

from __future__ import annotations

import re

# C0 controls except \t and \n, DEL, and C1 controls (which include the 8-bit CSI 0x9b).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# Bidi overrides, isolates and marks (LRM, RLM, ALM) can reorder what a person reads
# without showing themselves; show them as escapes too.
_BIDI = re.compile(r"[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def safe_text(text: str, *, single_line: bool = False) -> str:
    """Return `text` with every control character shown as a visible `\\xNN` escape.

    With `single_line`, newlines and tabs become spaces as well (titles, list rows).
    """
    if text.isascii() and text.isprintable():
        return text  # nothing to change (most ids, paths, titles): two C-speed tests
    if single_line:
        text = text.replace("\r\n", " ").replace("\n", " ").replace("\t", " ")
        # Unicode line and paragraph separators end a line for str.splitlines too.
        text = text.replace("\u2028", " ").replace("\u2029", " ")
    text = _CONTROL.sub(_escape, text)
    return _BIDI.sub(_escape, text)


def shorten(text: str, limit: int = 80) -> str:
    """One safe line of at most `limit` characters, with an ellipsis when cut."""
    line = " ".join(safe_text(text, single_line=True).split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def quoted(text: str, limit: int = 40) -> str:
    """An item's text for a toast or a heading: one line, short, in quotes."""
    return f"“{shorten(safe_text(text, single_line=True), limit)}”"
