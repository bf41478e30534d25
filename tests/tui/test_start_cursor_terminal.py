"""The first screen, in a real terminal: the app started by its command in a tmux pane
(a real pty) on the demo's sessions, cold (no warm-start cache) and warm (the cache the
cold start wrote), at 120×36, 80×24 and 40×30, opens with the cursor and the checklist on
the newest session — whatever order the scan delivers the sessions in — and a terminal's
replies to queries arriving at start-up are never read as keys. A cursor moved by keys
repaints only the rows it leaves and reaches (tui/widgets/list_moves.py): the terminal
then shows one cursor row, never a row it left still drawn as the cursor."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from terminal import TMUX, Line, Terminal

from planwatch.tui.app_options import copy_fixture_transcripts

pytestmark = pytest.mark.skipif(TMUX is None, reason="needs tmux: the app runs in a real terminal")

BORDER = "▕"  # between the session list and the checklist

# What a terminal (xterm, tmux) answers to the queries sent at start-up: device
# attributes (DA1, DA2), mode reports (DECRQM: synchronized output, in-band resize), the
# colours (OSC 10/11, ended by ST or BEL), the version (XTVERSION), the kitty keyboard
# flags, a cursor position report, focus in and out.
TERMINAL_REPLIES = (
    b"\x1b[?64;1;2;6;9;15;18;21;22c"
    b"\x1b[?1;2c"
    b"\x1b[>41;354;0c"
    b"\x1b[>84;0;0c"
    b"\x1b[?2026;2$y"
    b"\x1b[?2048;0$y"
    b"\x1b]10;rgb:ffff/ffff/ffff\x1b\\"
    b"\x1b]11;rgb:1e1e/1e1e/2e2e\x07"
    b"\x1bP>|tmux 3.3a\x1b\\"
    b"\x1b[?0u"
    b"\x1b[36;1R"
    b"\x1b[O\x1b[I"
)


def environment(base: Path, cache: Path) -> dict[str, str]:
    """A whole environment of folders under `base` (nothing of the person running the
    tests is read), the warm-start cache in `cache`."""
    env = {
        "HOME": str(base / "home"),
        "PATH": "/usr/bin:/bin",
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        "PLANWATCH_DATA": str(base / "data"),
        "PLANWATCH_STATE": str(base / "state"),
        "PLANWATCH_STORE": str(base / "store"),
        "PLANWATCH_CONFIG": str(base / "config.yaml"),
        "PLANWATCH_ACP_LOGS": str(base / "acp"),
        "PLANWATCH_CACHE": str(cache),
        "CLAUDE_CONFIG_DIR": str(base / "claude"),
        "CODEX_HOME": str(base / "codex"),
        "GEMINI_CLI_HOME": str(base / "gemini"),
        "XDG_DATA_HOME": str(base / "xdg-data"),
        "XDG_CONFIG_HOME": str(base / "xdg-config"),
        "XDG_STATE_HOME": str(base / "xdg-state"),
        "XDG_CACHE_HOME": str(base / "xdg-cache"),
    }
    for name in ("home", "claude", "codex", "gemini"):
        (base / name).mkdir(parents=True, exist_ok=True)
    return env


@pytest.fixture
def demo(tmp_path: Path) -> tuple[Path, list[dict[str, object]]]:
    """The demo's transcripts copied (a day old), and their sessions newest first as
    `planwatch sessions --json` lists them (with a cache of its own: the app's cold start
    must stay cold)."""
    transcripts = tmp_path / "transcripts"
    copy_fixture_transcripts(transcripts, time.time() - 86_400)
    env = environment(tmp_path / "cli", tmp_path / "cli-cache")
    out = subprocess.run(
        [sys.executable, "-m", "planwatch.tui.cli", "sessions", "--json", "--root", str(transcripts)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    sessions = json.loads(out.stdout)
    assert len(sessions) >= 5
    return transcripts, sessions


def start(tmp_path: Path, transcripts: Path, size: tuple[int, int], name: str, *extra: str) -> Terminal:
    env = environment(tmp_path / "app", tmp_path / "app-cache")
    socket_dir = tmp_path / f"tmux-{name}"
    socket_dir.mkdir()
    return Terminal(
        [sys.executable, "-m", "planwatch.tui.cli", "--root", str(transcripts), *extra], size, env, socket_dir
    )


def label(session: dict[str, object], cells: int) -> str:
    """The start of a session's title as a row of `cells` shows it at least."""
    return str(session["title"] or session["id"])[:cells]


def scanned(screen: list[Line]) -> bool:
    """The app is drawn (its footer) and its first scan has finished."""
    text = "\n".join(line.text for line in screen)
    return "Help" in text and "Indexing transcripts" not in text and "Looking for" not in text


def session_rows(screen: list[Line], sessions: list[dict[str, object]]) -> list[tuple[int, Line]]:
    """The list's rows: (which session, its line), top to bottom."""
    found: list[tuple[int, Line]] = []
    for line in screen:
        left = line.text.split(BORDER)[0]
        for n, session in enumerate(sessions):
            if label(session, 14) in left:
                found.append((n, line))
                break
    return found


def cursor_row(rows: list[tuple[int, Line]]) -> int:
    """Which session the list's cursor is on: the one row drawn on another background."""
    backgrounds = [line.background for _, line in rows]
    odd = [n for n, line in rows if backgrounds.count(line.background) == 1]
    assert len(odd) == 1, f"no single cursor row among backgrounds {backgrounds}"
    return odd[0]


def head(screen: list[Line], *, pane: bool) -> str:
    """The checklist's head (the selected session's title)."""
    first = next(line.text for line in screen if line.text.strip())
    return first.strip() if pane else first.split(BORDER)[-1].strip()


def assert_on_newest(terminal: Terminal, sessions: list[dict[str, object]], *, pane: bool) -> None:
    if pane:
        screen = terminal.wait_for(scanned, "the first scan")
    else:
        screen = terminal.wait_for(
            lambda s: scanned(s) and len(session_rows(s, sessions)) == len(sessions), "every session listed"
        )
        rows = session_rows(screen, sessions)
        assert [n for n, _ in rows] == list(range(len(sessions))), "the list is not newest first"
        assert cursor_row(rows) == 0, f"the cursor is on {sessions[cursor_row(rows)]['title']!r}"
    # The checklist beside the list follows the selection a frame later: wait for it.
    terminal.wait_for(lambda s: head(s, pane=pane).startswith(label(sessions[0], 10)), "the newest session's checklist")


@pytest.mark.parametrize("size", [(120, 36), (80, 24), (40, 30)], ids=["120x36", "80x24", "40x30"])
def test_the_cursor_starts_on_the_newest_session_cold_and_warm(tmp_path: Path, demo, size) -> None:  # type: ignore[no-untyped-def]
    transcripts, sessions = demo
    pane = size[0] < 60
    for run in ("cold", "warm"):
        terminal = start(tmp_path, transcripts, size, run)
        try:
            assert_on_newest(terminal, sessions, pane=pane)
            terminal.send_keys("q")
            terminal.wait_exit()
        finally:
            terminal.close()
        if run == "cold":  # the warm start has the cache the cold one wrote
            assert any((tmp_path / "app-cache").rglob("*")), "the cold start wrote no warm-start cache"


def test_the_pane_started_as_one_starts_on_the_newest_session(tmp_path: Path, demo) -> None:  # type: ignore[no-untyped-def]
    transcripts, sessions = demo
    terminal = start(tmp_path, transcripts, (40, 30), "pane", "--pane")
    try:
        assert_on_newest(terminal, sessions, pane=True)
    finally:
        terminal.close()


def test_terminal_replies_at_start_up_are_not_keys(tmp_path: Path, demo) -> None:  # type: ignore[no-untyped-def]
    """The replies land on the app's input before it reads any (and again once it runs):
    read as keys they opened the help (`?`), the filter (`/` with `1e1e` typed in), the
    running-only view (`r`), the order (`g`), the store view (`t`)… Instead the list
    stays whole, newest first, the cursor on its first row."""
    transcripts, sessions = demo
    terminal = start(tmp_path, transcripts, (120, 36), "replies")
    try:
        terminal.send_bytes(TERMINAL_REPLIES)
        assert_on_newest(terminal, sessions, pane=False)
        terminal.send_bytes(TERMINAL_REPLIES)
        terminal.send_keys("j")  # a key after them: proof the input is read, and in order
        screen = terminal.wait_for(lambda s: cursor_row(session_rows(s, sessions)) == 1, "the cursor on row 2")
        text = "\n".join(line.text for line in screen)
        assert "filter sessions" not in text and "1e1e" not in text
        assert len(session_rows(screen, sessions)) == len(sessions)
        terminal.send_keys("k")
        # The checklist follows the cursor a frame later: wait for both.
        terminal.wait_for(
            lambda s: (
                cursor_row(session_rows(s, sessions)) == 0 and head(s, pane=False).startswith(label(sessions[0], 10))
            ),
            "the cursor on row 1 and its checklist beside it",
        )
    finally:
        terminal.close()


def one_cursor_at(screen: list[Line], sessions: list[dict[str, object]], row: int) -> bool:
    """Every session listed, exactly one row drawn on the cursor's background, at `row`."""
    rows = session_rows(screen, sessions)
    if len(rows) != len(sessions):
        return False
    backgrounds = [line.background for _, line in rows]
    return [n for n, line in rows if backgrounds.count(line.background) == 1] == [row]


def test_a_moved_cursor_leaves_no_row_drawn_as_the_cursor(tmp_path: Path, demo) -> None:  # type: ignore[no-untyped-def]
    transcripts, sessions = demo
    terminal = start(tmp_path, transcripts, (120, 36), "moves")
    try:
        assert_on_newest(terminal, sessions, pane=False)
        expected = 0
        for key in ("j", "j", "j", "k", "G", "k", "g", "j"):
            last = len(sessions) - 1
            expected = {"j": min(expected + 1, last), "k": max(expected - 1, 0), "G": last, "g": 0}[key]
            terminal.send_keys(key)
            terminal.wait_for(
                lambda s, at=expected: one_cursor_at(s, sessions, at), f"one cursor row, at {expected + 1}"
            )
    finally:
        terminal.close()
