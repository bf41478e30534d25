"""Making untrusted transcript text safe to print or show.

Text from transcripts, hand-edited records and file names is untrusted: it must never
carry a raw control character, a terminal escape or an invisible character to a person.
`safe_text` is the one function every such text passes through on its way to any output
(the screen, a toast, the clipboard, a pager, stderr, a log line). Markup safety
(Rich/Textual `[bold]`) is the widgets' job: they render `Text` objects, never markup
strings.

What is shown as an escape instead of sent (docs/privacy.md, Untrusted text):
- C0 controls except tab and newline, DEL, and C1 controls (the 8-bit CSI 0x9b too);
- lone surrogates (U+D800..U+DFFF: an escaped `\ud800` in a JSON line, a file name's
  undecodable byte), which are no character and cannot be written as UTF-8;
- every format character (Unicode category Cf): bidi overrides, isolates and marks,
  zero-width space, joiners and non-joiner, word joiner, invisible operators, the byte
  order mark, interlinear annotation marks, the tag characters U+E0000..U+E007F (the
  whole block, unassigned ones too), soft hyphen, the prepended number signs;
- other characters that draw nothing: the combining grapheme joiner, Hangul fillers,
  Khmer inherent vowels, Mongolian free variation selectors;
- variation selectors, except VS15/VS16 (U+FE0E/U+FE0F) directly after a visible
  character, where they choose text or emoji presentation (❤️). A run of selectors, one
  at the start or after a space, and the other 254 selectors (which draw nothing and
  can each carry a byte) are escapes.
"""

from __future__ import annotations

import io
import re

# `typing` is not loaded at run time: a quick command's start (docs/performance.md)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO

# C0 controls except \t and \n, DEL, and C1 controls (which include the 8-bit CSI 0x9b);
# and lone surrogates (a JSON line's `\ud800` escape, a file name's undecodable byte as
# Python keeps it): no character at all, which no UTF-8 output can even carry.
_CONTROLS = "\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff"
# Category Cf as of Unicode 15.1 (a test checks this against the running Python's
# unicodedata), with the whole tag block rather than only its assigned characters.
_FORMAT = "\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb"
_FORMAT_ASTRAL = (
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e007f"
)
# Not Cf, but drawn as nothing: combining grapheme joiner, Hangul fillers, Khmer
# inherent vowels, Mongolian free variation selectors.
_BLANK = "\u034f\u115f\u1160\u3164\uffa0\u17b4\u17b5\u180b-\u180d\u180f"
# Variation selectors other than VS15/VS16 (standardised and ideographic sequences are
# rare in plans; each of these 254 can hide a byte after any character).
_SELECTORS = "\ufe00-\ufe0d"
_SELECTORS_ASTRAL = "\U000e0100-\U000e01ef"


class _Patterns:
    """The patterns `safe_text` tests text with, compiled at its first text that is not
    printable ASCII (about 1 ms of a start that prints only ids, paths and plain titles)."""

    def __init__(self) -> None:
        self.unsafe = re.compile(f"[{_CONTROLS}{_FORMAT}{_BLANK}{_SELECTORS}{_FORMAT_ASTRAL}{_SELECTORS_ASTRAL}]")
        # The same for text with no character past U+FFFF (nearly all): `re` tests a
        # class without astral ranges about four times faster.
        self.unsafe_bmp = re.compile(f"[{_CONTROLS}{_FORMAT}{_BLANK}{_SELECTORS}]")
        self.astral = re.compile("[\U00010000-\U0010ffff]")  # one range: a fast test
        # VS15/VS16 at the start, after whitespace or after another selector (a second
        # pass, taken only when the text holds one: a lookbehind tried at every character
        # would make every non-ASCII text several times slower).
        self.lone_presentation = re.compile(f"(?<![^\\s\ufe00-\ufe0f{_SELECTORS_ASTRAL}])[\ufe0e\ufe0f]")


_PATTERNS: list[_Patterns] = []


def _patterns() -> _Patterns:
    if not _PATTERNS:
        _PATTERNS.append(_Patterns())
    return _PATTERNS[0]


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def safe_text(text: str, *, single_line: bool = False) -> str:
    """Return `text` with every control, format and invisible character shown as a
    visible escape (`\\x1b`, `\\u200b`, `\\U000e0041`).

    With `single_line`, newlines and tabs become spaces as well (titles, list rows).
    Safe text is a fixed point: passing it through again changes nothing.
    """
    if text.isascii() and text.isprintable():
        return text  # nothing to change (most ids, paths, titles): two C-speed tests
    if single_line:
        text = text.replace("\r\n", " ").replace("\n", " ").replace("\t", " ")
        # Unicode line and paragraph separators end a line for str.splitlines too.
        text = text.replace("\u2028", " ").replace("\u2029", " ")
    patterns = _PATTERNS[0] if _PATTERNS else _patterns()
    if "\ufe0f" in text or "\ufe0e" in text:
        text = patterns.lone_presentation.sub(_escape, text)
    unsafe = patterns.unsafe if patterns.astral.search(text) else patterns.unsafe_bmp
    return unsafe.sub(_escape, text)


def kept_unless_typed(value: str, raw: str | None) -> str:
    """What a form's field saves: `raw`, the text it opened with, while the field still
    holds it as shown (`safe_text`, one line), else what was typed. A text shown safely
    (an escape in place of a control character) is never written back as its escape."""
    if raw is not None and value == safe_text(raw, single_line=True):
        return raw
    return value


def shorten(text: str, limit: int = 80) -> str:
    """One safe line of at most `limit` characters, with an ellipsis when cut."""
    line = " ".join(safe_text(text, single_line=True).split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def quoted(text: str, limit: int = 40) -> str:
    """An item's text for a toast or a heading: one line, short, in quotes."""
    return f"“{shorten(safe_text(text, single_line=True), limit)}”"


class SafeWriter(io.TextIOBase):
    """A text stream that passes every write through `safe_text` (newlines and tabs kept)
    on to `stream`: the command line's stderr, so no sentence, warning, log line or
    traceback it prints can carry a file name's or a record's escape to the terminal.
    `terminal` is the stream itself, for the command line's own control sequences (the
    progress line's carriage return and erase). Closing the writer (or its going away)
    leaves `terminal` open."""

    def __init__(self, stream: TextIO) -> None:
        self.terminal = stream

    def write(self, text: str) -> int:
        self.terminal.write(safe_text(text))
        return len(text)

    def writable(self) -> bool:
        return True

    def flush(self) -> None:
        self.terminal.flush()

    def isatty(self) -> bool:
        return self.terminal.isatty()

    def fileno(self) -> int:
        return self.terminal.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self.terminal, "encoding", "utf-8")


def names_id(session_id: str, target: str, *, by_start: bool = False) -> bool:
    """Whether `target`, given on a command line, names `session_id`: the id as it is, or
    as the commands print it (safe text: an escape for an invisible or control character,
    so a printed id given back names its session); with `by_start`, the start of either."""
    printed = safe_text(session_id, single_line=True)
    if by_start:
        return bool(target) and (session_id.startswith(target) or printed.startswith(target))
    return target in (session_id, printed)
