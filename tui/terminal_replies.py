"""A terminal's replies to queries are never keys.

A terminal answers queries (device attributes, colours, modes, its version) with escape
sequences on the app's input, at start-up above all: tmux, the shell before the app or
the app's own driver ask, and the answers may land after the app took over. Textual's
parser knows a few of them (mode reports, cursor positions, focus) and reissues any
other sequence it does not know as the keys of its characters: a DA1 reply
`ESC [ ? 6 4 ; 1 c` became `?` (help), `6`, `4`, `c`…, an OSC 11 colour reply
`rgb:1e1e/…` became `/` (the filter) and `r` (running only). `ReplyFilter` takes those
replies out of the input before the parser sees them; `PlanwatchDriver` is Textual's
Linux driver reading through it.

Kept for Textual: mode reports of private modes (`CSI ? 2026 ; 2 $ y`: synchronized
output), the in-band resize (`CSI 48 ; … t`), cursor position reports and focus in/out,
which its parser turns into events, not keys. A bracketed paste passes untouched.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable

from textual import constants
from textual._time import get_time
from textual._xterm_parser import XTermParser
from textual.drivers.linux_driver import LinuxDriver
from textual.message import Message

ESC = "\x1b"
PASTE_START = "\x1b[200~"
PASTE_END = "\x1b[201~"
# A reply cut by a read is held for the rest; one longer than this is no reply (or none
# worth holding keys for): it is let through as it came.
HOLD_AT_MOST = 4096
# A reply's start held this long with nothing after it is let through (seconds).
HOLD_FOR = 0.3
# How long a lone ESC waits for the rest of a sequence before it is the escape key, unless
# the person sets ESCDELAY (milliseconds, as for curses; Textual's own default is 100). A
# terminal writes a key's sequence at once, so its bytes arrive in one read.
ESCAPE_DELAY = 0.05


def _csi_end(data: str, start: int) -> int | None:
    """The index after the CSI sequence at `start` (ESC [ params intermediates final),
    or None when `data` ends before its final byte."""
    i = start + 2
    while i < len(data) and "\x30" <= data[i] <= "\x3f":
        i += 1
    while i < len(data) and "\x20" <= data[i] <= "\x2f":
        i += 1
    if i >= len(data):
        return None
    return i + 1


def _csi_is_reply(sequence: str) -> bool:
    """Whether a whole CSI sequence is a terminal's reply Textual would read as keys."""
    body, final = sequence[2:-1], sequence[-1]
    if final == "c" and body[:1] in ("?", ">", "="):
        return True  # device attributes: DA1, DA2, DA3
    if final == "u" and body[:1] == "?":
        return True  # the kitty keyboard flags
    if final == "y" and body.endswith("$"):
        return not body.startswith("?")  # a mode report of an ANSI mode (private ones are Textual's)
    if final == "R" and body[:1] == "?":
        return True  # the extended cursor position report (DECXCPR)
    if final == "n":
        return True  # device status reports
    if final == "t":
        return not body.startswith("48;")  # window reports; 48 is Textual's in-band resize
    return False


def _string_end(data: str, start: int) -> int | None:
    """The index after a string sequence at `start` ended by BEL or ST (ESC \\), or None
    when `data` ends first."""
    bel = data.find("\x07", start)
    st = data.find("\x1b\\", start)
    ends = [i + 1 for i in (bel,) if i >= 0] + [i + 2 for i in (st,) if i >= 0]
    return min(ends) if ends else None


def _is_string_reply_start(data: str, start: int) -> bool | None:
    """Whether the sequence at `start` opens a reply carried as a string (True), does not
    (False), or cannot be told yet (None: `data` ends too soon). Only the shapes replies
    take count, so alt+] or alt+P typed by a person stay keys."""
    head = data[start + 1 : start + 8]
    kind = head[:1]
    if kind == "]":
        # OSC: a number then `;` (colours 4, 10, 11, 12; clipboard 52; …)
        rest = head[1:]
        digits = len(rest) - len(rest.lstrip("0123456789"))
        if digits < len(rest):
            return digits > 0 and rest[digits] == ";"
        return None if len(rest) < 6 else False
    if kind == "P":
        # DCS: XTVERSION (`>|`), DECRQSS (`1$r`, `0$r`), XTGETTCAP (`1+r`, `0+r`)
        rest = head[1:]
        for shape in (">|", "1$r", "0$r", "1+r", "0+r"):
            if rest.startswith(shape):
                return True
            if shape.startswith(rest):
                return None
        return False
    if kind == "_":
        # APC: the kitty graphics protocol's answer
        if len(head) < 2:
            return None
        return head[1] == "G"
    return None if not kind else False


class ReplyFilter:
    """Takes terminal replies out of the text read from the terminal, across reads."""

    def __init__(self) -> None:
        self._held = ""
        self._held_since = 0.0
        self._paste = False

    @property
    def holding(self) -> bool:
        return bool(self._held)

    def feed(self, data: str) -> str:
        """`data` without the replies in it; the start of a reply cut by the read is held
        for the next read."""
        was_holding = bool(self._held)
        data, self._held = self._held + data, ""
        kept = self._filter(data)
        if self._held and not was_holding:
            self._held_since = time.monotonic()
        return kept

    def _filter(self, data: str) -> str:
        out: list[str] = []
        i = 0
        while i < len(data):
            if self._paste:
                end = data.find(PASTE_END, i)
                if end < 0:
                    keep = _partial_suffix(data, PASTE_END)
                    out.append(data[i : len(data) - keep])
                    self._hold(data[len(data) - keep :])
                    break
                out.append(data[i : end + len(PASTE_END)])
                i = end + len(PASTE_END)
                self._paste = False
                continue
            at = data.find(ESC, i)
            if at < 0:
                out.append(data[i:])
                break
            out.append(data[i:at])
            after, drop = self._sequence(data, at)
            if after is None:
                self._hold(data[at:])
                break
            if not drop:
                out.append(data[at:after])
                if data.startswith(PASTE_START, at):
                    self._paste = True
            i = after
        return "".join(out)

    def held_for_at_most(self) -> float:
        """Seconds until what is held is let through (`flush`)."""
        return self._held_since + HOLD_FOR - time.monotonic() if self._held else 0.0

    def flush(self, *, force: bool = False) -> str:
        """What is held, let through once it waited long enough for its end (or now)."""
        if self._held and (force or time.monotonic() - self._held_since >= HOLD_FOR):
            held, self._held = self._held, ""
            return held
        return ""

    def _hold(self, text: str) -> None:
        self._held = text

    def _sequence(self, data: str, at: int) -> tuple[int | None, bool]:
        """Where the escape sequence at `at` ends (None: not yet known) and whether it is
        a reply to drop. What is no reply ends right after its ESC: the parser reads it."""
        if at + 1 >= len(data):
            return at + 1, False  # a lone ESC: the escape key (the parser times it)
        if data[at + 1] == "[":
            end = _csi_end(data, at)
            if end is None:
                if len(data) - at > HOLD_AT_MOST:
                    return at + 1, False
                return None, False
            return end, _csi_is_reply(data[at:end])
        opens = _is_string_reply_start(data, at)
        if opens is None:  # too little read to tell
            return None, False
        if not opens:
            return at + 1, False
        end = _string_end(data, at + 2)
        if end is None:
            if len(data) - at > HOLD_AT_MOST:
                return at + 1, False
            return None, False
        return end, True


def _partial_suffix(data: str, marker: str) -> int:
    """How many characters at the end of `data` begin `marker` (a marker cut by a read)."""
    for size in range(min(len(marker) - 1, len(data)), 0, -1):
        if marker.startswith(data[-size:]):
            return size
    return 0


class ReplyFilteringParser(XTermParser):
    """Textual's parser, fed through a ReplyFilter."""

    def __init__(self, debug: bool = False) -> None:
        super().__init__(debug)
        self.replies = ReplyFilter()

    def feed(self, data: str) -> Iterable[Message]:
        if not data:  # the end of input: what is held goes to the parser first
            held = self.replies.flush(force=True)
            if held:
                yield from super().feed(held)
            yield from super().feed("")
            return
        kept = self.replies.feed(data)
        if kept:  # (an empty feed would be the end of input)
            yield from super().feed(kept)

    def tick(self) -> Iterable[Message]:
        held = self.replies.flush()
        if held:
            yield from super().feed(held)
        yield from super().tick()

    def wait_at_most(self, longest: float) -> float:
        """How long the input thread may wait for input before the next `tick` falls
        due: the escape key's wait (a lone ESC becomes the key `ESCAPE_DELAY` after it,
        unless a sequence follows) or a held reply's. Waiting the input thread's whole
        0.1 s instead made `esc` take up to twice the escape delay."""
        waits = [longest]
        if self._timeout_time is not None:  # Textual's Parser: when the awaited read times out
            waits.append(self._timeout_time - get_time())
        if self.replies.holding:
            waits.append(self.replies.held_for_at_most())
        return max(0.0, min(waits))


def escape_delay() -> float:
    """The escape key's delay for this run: ESCDELAY when set (Textual reads it), else ours."""
    return constants.ESCAPE_DELAY if os.environ.get("ESCDELAY") else ESCAPE_DELAY


class PlanwatchDriver(LinuxDriver):
    """Textual's Linux driver reading its input through ReplyFilteringParser, with
    the escape key's delay `escape_delay()`."""

    def start_application_mode(self) -> None:
        # Textual's parser reads the delay from its constants at each ESC.
        constants.ESCAPE_DELAY = escape_delay()  # type: ignore[misc]
        super().start_application_mode()

    def run_input_thread(self) -> None:
        # LinuxDriver.run_input_thread of the pinned Textual with the parser replaced:
        # it makes its parser inside this method, with no hook to hand it another.
        import selectors
        from codecs import getincrementaldecoder
        from os import read

        from textual._loop import loop_last
        from textual._parser import ParseError

        selector = selectors.SelectSelector()
        selector.register(self.fileno, selectors.EVENT_READ)
        fileno = self.fileno
        parser = ReplyFilteringParser(self._debug)
        feed, tick = parser.feed, parser.tick
        decode = getincrementaldecoder("utf-8")().decode

        def process_selector_events(
            selector_events: list[tuple[selectors.SelectorKey, int]], final: bool = False
        ) -> None:
            for last, (_selector_key, mask) in loop_last(selector_events):
                if mask & selectors.EVENT_READ:
                    unicode_data = decode(read(fileno, 1024 * 4), final=final and last)
                    if not unicode_data:
                        break  # stdin piped and at its end
                    for event in feed(unicode_data):
                        self.process_message(event)
            for event in tick():
                self.process_message(event)

        try:
            while not self.exit_event.is_set():
                process_selector_events(selector.select(parser.wait_at_most(0.1)))
            selector.unregister(self.fileno)
            process_selector_events(selector.select(0.1), final=True)
        finally:
            selector.close()
            try:
                for _event in feed(""):
                    pass
            except (EOFError, ParseError):
                pass
