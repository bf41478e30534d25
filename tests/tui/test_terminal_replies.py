"""A terminal's replies to queries are never keys (tui/terminal_replies.py): each reply
xterm or tmux sends is taken out of the input, whole or cut across reads, while every
key, mouse report, paste and the replies Textual reads itself pass as they came."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from textual import events
from textual._xterm_parser import XTermParser
from textual.messages import TerminalSupportsSynchronizedOutput

from planwatch.tui.app import make_app
from planwatch.tui.terminal_replies import PlanwatchDriver, ReplyFilter, ReplyFilteringParser

REPLIES = {
    "DA1 (xterm)": "\x1b[?64;1;2;6;9;15;18;21;22c",
    "DA1 (tmux)": "\x1b[?1;2c",
    "DA2 (xterm)": "\x1b[>41;354;0c",
    "DA2 (tmux)": "\x1b[>84;0;0c",
    "DA3": "\x1b[=00000000c",
    "OSC 10, ended by ST": "\x1b]10;rgb:ffff/ffff/ffff\x1b\\",
    "OSC 11, ended by BEL": "\x1b]11;rgb:1e1e/1e1e/2e2e\x07",
    "OSC 4 (a palette colour)": "\x1b]4;1;rgb:cdcd/0000/0000\x1b\\",
    "XTVERSION": "\x1bP>|tmux 3.3a\x1b\\",
    "DECRQSS": "\x1bP1$r0m\x1b\\",
    "XTGETTCAP": "\x1bP1+r544e=787465726d\x1b\\",
    "kitty keyboard flags": "\x1b[?0u",
    "kitty graphics": "\x1b_Gi=1;OK\x1b\\",
    "DECRPM of an ANSI mode": "\x1b[4;2$y",
    "DECXCPR": "\x1b[?12;40;1R",
    "device status": "\x1b[0n",
    "window size in characters": "\x1b[8;36;120t",
}

# What Textual's parser reads itself (events, not keys), and keys: passed untouched.
PASSED = {
    "DECRQM of synchronized output": "\x1b[?2026;2$y",
    "DECRQM of the in-band resize": "\x1b[?2048;0$y",
    "in-band resize": "\x1b[48;36;120;720;1200t",
    "cursor position report": "\x1b[36;1R",
    "focus in": "\x1b[I",
    "focus out": "\x1b[O",
    "up": "\x1b[A",
    "shift+up": "\x1b[1;2A",
    "F1": "\x1bOP",
    "alt+x": "\x1bx",
    "alt+]": "\x1b]",
    "escape": "\x1b",
    "letters": "jk q",
    "an SGR mouse click": "\x1b[<0;12;5M\x1b[<0;12;5m",
    "a kitty key": "\x1b[97;5u",
    "a paste holding a reply's bytes": "\x1b[200~\x1b[?1;2c and /r\x1b[201~",
}


@pytest.mark.parametrize("reply", REPLIES.values(), ids=REPLIES.keys())
def test_a_reply_is_taken_out_of_the_input(reply: str) -> None:
    replies = ReplyFilter()
    assert replies.feed(f"j{reply}k") == "jk"
    assert not replies.holding


@pytest.mark.parametrize("reply", REPLIES.values(), ids=REPLIES.keys())
def test_a_reply_cut_by_a_read_is_taken_out_whole(reply: str) -> None:
    for cut in range(2, len(reply)):
        replies = ReplyFilter()
        assert replies.feed("j" + reply[:cut]) == "j", cut
        assert replies.feed(reply[cut:] + "k") == "k", cut


@pytest.mark.parametrize("text", PASSED.values(), ids=PASSED.keys())
def test_keys_and_what_textual_reads_itself_pass_as_they_came(text: str) -> None:
    replies = ReplyFilter()
    assert replies.feed(text) + replies.flush(force=True) == text


def keys(parser: XTermParser, *reads: str) -> list[str]:
    found = []
    for data in reads:
        found += [event.key for event in parser.feed(data) if isinstance(event, events.Key)]
    return found


def test_textuals_own_parser_reads_these_replies_as_keys() -> None:
    """Why the filter exists: the pinned Textual reissues an unknown sequence as the
    keys of its characters (`?` help, `/` filter, `r` running only…)."""
    # (The end of input stands for the parser's timeout, which reissues them the same.)
    assert "question_mark" in keys(XTermParser(), REPLIES["DA1 (xterm)"], "")
    assert {"slash", "r", "g"} <= set(keys(XTermParser(), REPLIES["OSC 11, ended by BEL"], ""))


def test_through_the_filter_the_parser_sees_only_the_keys_around_the_replies() -> None:
    parser = ReplyFilteringParser()
    everything = "".join(REPLIES.values())
    assert keys(parser, "j", everything, "k") == ["j", "k"]
    assert keys(ReplyFilteringParser(), everything, "") == []
    # Cut in the middle of an OSC reply by a read: still no key from it.
    osc = REPLIES["OSC 11, ended by BEL"]
    assert keys(parser, "j" + osc[:9], osc[9:] + "k") == ["j", "k"]
    # What Textual reads itself still reaches it.
    events_read = list(parser.feed(PASSED["DECRQM of synchronized output"]))
    assert any(isinstance(e, TerminalSupportsSynchronizedOutput) for e in events_read)
    assert any(isinstance(e, events.AppFocus) for e in parser.feed(PASSED["focus in"]))


def test_a_held_start_of_a_reply_is_let_through_when_nothing_follows() -> None:
    """An `alt+]` and digits typed by a person look like the start of an OSC reply: once
    nothing more comes, they reach the parser as they were."""
    replies = ReplyFilter()
    assert replies.feed("\x1b]11;") == ""
    assert replies.holding
    assert replies.flush(force=True) == "\x1b]11;"


def test_the_app_reads_the_terminal_through_the_filtering_driver() -> None:
    assert make_app().driver_class is PlanwatchDriver


def test_the_input_thread_wakes_when_a_lone_esc_becomes_the_escape_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """A lone ESC is the escape key once the escape delay passes with nothing after it;
    the input thread waits for input only until then (not its whole 0.1 s, which made
    `esc` take up to twice the delay), and the delay is planwatch's 50 ms unless the
    person sets ESCDELAY."""
    from textual import constants

    from planwatch.tui.terminal_replies import ESCAPE_DELAY, escape_delay

    monkeypatch.delenv("ESCDELAY", raising=False)
    assert escape_delay() == ESCAPE_DELAY == 0.05
    monkeypatch.setattr(constants, "ESCAPE_DELAY", ESCAPE_DELAY)
    parser = ReplyFilteringParser()
    assert parser.wait_at_most(0.1) == 0.1  # nothing pending: the input thread's own wait
    assert list(parser.feed("\x1b")) == []  # a sequence may follow
    assert 0 <= parser.wait_at_most(0.1) <= ESCAPE_DELAY
    parser._timeout_time = 0.0  # the delay has passed (Textual's parser: when it is due)
    assert [e.key for e in parser.tick() if isinstance(e, events.Key)] == ["escape"]
    assert parser.wait_at_most(0.1) == 0.1
    # A held start of a reply is let through once it waited HOLD_FOR: woken for that too.
    assert list(parser.feed("\x1b]11;")) == []
    assert 0 <= parser.wait_at_most(1.0) <= 0.3


_DRIVER_DELAY = """
import asyncio

from textual import constants
from textual.drivers.linux_driver import LinuxDriver
from planwatch.tui.app import make_app
from planwatch.tui.terminal_replies import PlanwatchDriver

# The terminal half of starting (modes, queries) needs a terminal; what is checked is
# the delay the driver installs for Textual's parser before it.
LinuxDriver.start_application_mode = lambda self: None


async def start() -> None:  # a driver is made inside the app's running loop
    PlanwatchDriver(make_app(), debug=False, mouse=False).start_application_mode()


asyncio.run(start())
print(constants.ESCAPE_DELAY)
"""


@pytest.mark.parametrize(("escdelay", "installed"), [(None, "0.05"), ("250", "0.25")], ids=["ours", "ESCDELAY"])
def test_the_driver_installs_the_escape_delay_unless_the_person_set_escdelay(
    escdelay: str | None, installed: str
) -> None:
    """In a fresh interpreter, as the app starts: 50 ms by default, and a person's
    ESCDELAY (milliseconds, read by Textual at import) stands."""
    env = {k: v for k, v in os.environ.items() if k != "ESCDELAY"}
    if escdelay is not None:
        env["ESCDELAY"] = escdelay
    done = subprocess.run(
        [sys.executable, "-c", _DRIVER_DELAY], env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == installed
