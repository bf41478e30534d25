"""The app in a real terminal: a tmux server of the test's own (its own socket, no
configuration read) runs a command in a pane of a given size; the test reads the pane's
screen as a person sees it (text and, per row, the colours its first cells are drawn
in) and types into it, bytes included (a terminal's replies to queries).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

TMUX = shutil.which("tmux")
_SGR = re.compile(r"\x1b\[([0-9;:]*)m")
_OTHER_ESCAPE = re.compile(r"\x1b\[[0-9;:?]*[A-Za-ln-z]|\x1b[()][0-9A-Za-z]|\x1b[=>]")


@dataclass(frozen=True)
class Line:
    """One row of the screen: its text, and the background its first cell is drawn on."""

    text: str
    background: str


def parse_screen(captured: str) -> list[Line]:
    """`tmux capture-pane -p -e` output as lines of text, each with the background (the
    SGR parameters that set it, as written) of its first cell."""
    lines: list[Line] = []
    for raw in captured.split("\n"):
        background = ""
        text: list[str] = []
        position = 0
        raw = _OTHER_ESCAPE.sub("", raw)
        for match in _SGR.finditer(raw):
            text.append(raw[position : match.start()])
            position = match.end()
            if not "".join(text):  # still before the first cell
                for part in re.findall(r"48;5;\d+|48;2;\d+;\d+;\d+|4[0-7]|10[0-7]|49", match.group(1)):
                    background = part
        text.append(raw[position:])
        lines.append(Line("".join(text), background))
    return lines


class Terminal:
    """One tmux pane running `command` at `size` with exactly `env` for environment."""

    def __init__(self, command: Sequence[str], size: tuple[int, int], env: Mapping[str, str], socket_dir: Path) -> None:
        assert TMUX is not None
        self.socket = socket_dir / "tmux.sock"
        width, height = size
        line = " ".join(
            [
                "exec",
                "env",
                "-i",
                *(shlex.quote(f"{k}={v}") for k, v in env.items()),
                *(shlex.quote(part) for part in command),
            ]
        )
        self._tmux("-f", "/dev/null", "new-session", "-d", "-x", str(width), "-y", str(height), "-s", "app", line)
        # A crash leaves its traceback on screen for the failure message.
        self._tmux("set-option", "-t", "app", "remain-on-exit", "on")

    def _tmux(self, *args: str) -> str:
        assert TMUX is not None
        out = subprocess.run([TMUX, "-S", str(self.socket), *args], capture_output=True, text=True, timeout=30)
        if out.returncode != 0:
            raise RuntimeError(f"tmux {' '.join(args[:2])} failed: {out.stderr.strip()}")
        return out.stdout

    def screen(self) -> list[Line]:
        return parse_screen(self._tmux("capture-pane", "-p", "-e", "-t", "app"))

    def text(self) -> str:
        return "\n".join(line.text for line in self.screen())

    def send_bytes(self, data: bytes) -> None:
        """Bytes on the app's input, as the terminal would send them."""
        self._tmux("send-keys", "-t", "app", "-H", *(f"{byte:02x}" for byte in data))

    def send_keys(self, *keys: str) -> None:
        self._tmux("send-keys", "-t", "app", *keys)

    def wait_for(self, condition: Callable[[list[Line]], bool], what: str, timeout: float = 60.0) -> list[Line]:
        """The screen once `condition(screen)` holds; fails after `timeout` seconds with
        the screen as it was."""
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen()
            if condition(screen):
                return screen
            if time.monotonic() > deadline:
                shown = "\n".join(line.text for line in screen)
                raise AssertionError(f"timed out waiting for {what}; the screen:\n{shown}")
            time.sleep(0.05)  # polling the screen, not waiting a duration as proof

    def wait_exit(self, timeout: float = 30.0) -> None:
        """Until the command in the pane has ended (a quit key)."""
        deadline = time.monotonic() + timeout
        while self._tmux("display-message", "-p", "-t", "app", "#{pane_dead}").strip() != "1":
            if time.monotonic() > deadline:
                raise AssertionError(f"the app did not end; the screen:\n{self.text()}")
            time.sleep(0.05)

    def close(self) -> None:
        try:
            self._tmux("kill-server")
        except (RuntimeError, subprocess.TimeoutExpired):
            pass
        if self.socket.exists():
            os.unlink(self.socket)
