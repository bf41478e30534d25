"""The command line prints untrusted text only as safe text (docs/privacy.md, Untrusted text):
a store file's name, a record's title and a transcript's items reach stdout and stderr
with every terminal escape and invisible character shown as an escape — the installed
command run as a real process, its bytes read as they are."""

from __future__ import annotations

import os
import subprocess
import sys
import unicodedata
from pathlib import Path

from app_transcripts import ClaudeTranscript

ROOT = Path(__file__).resolve().parents[2]
CLIPBOARD = "\x1b]52;c;ZWNobyBoaQ==\x07"
# Invisible text an agent can read and an approver cannot see: zero-width space,
# joiner and non-joiner, word joiner, byte order mark, tag characters spelling "rm",
# a run of variation selectors.
INVISIBLE = "\u200b\u200c\u200d\u2060\ufeff\U000e0072\U000e006d\ufe01\U000e0100"
SHOWN = "\\u200b\\u200c\\u200d\\u2060\\ufeff\\U000e0072\\U000e006d\\ufe01\\U000e0100"


def planwatch(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "planwatch.tui.cli", *args],
        cwd=ROOT,
        env=os.environ.copy(),
        capture_output=True,
        timeout=60,
    )


def hidden(data: bytes) -> list[str]:
    """The raw control and format characters in what a command printed (tab and
    newline aside)."""
    text = data.decode("utf-8")
    return [f"U+{ord(c):04X}" for c in text if c not in "\t\n" and unicodedata.category(c) in ("Cc", "Cf")]


def test_a_store_file_named_with_a_terminal_escape_is_reported_with_the_escape_shown(isolated_env) -> None:
    assert planwatch("task", "add", "Real task", "--session", "s1").returncode == 0
    tasks = isolated_env.store / "tasks"
    (tasks / f"t9{CLIPBOARD}.md").write_bytes((tasks / "t1.md").read_bytes())
    (isolated_env.store / "plans" / f"p{CLIPBOARD}.md").write_text("not a record\n")
    for command in (("task", "list"), ("plan", "list"), ("todo", "s1")):
        out = planwatch(*command)
        assert out.returncode == 0, out.stderr
        assert b"\x1b" not in out.stderr and b"\x07" not in out.stderr and hidden(out.stderr) == [], command
        assert "\\x1b]52;c;ZWNobyBoaQ==\\x07" in out.stderr.decode(), command  # reported, shown


def test_invisible_characters_in_titles_and_items_are_shown_as_escapes_by_every_command(isolated_env) -> None:
    added = planwatch("task", "add", f"Deploy{INVISIBLE} now", "--session", "s1")
    assert added.returncode == 0, added.stderr
    web = ClaudeTranscript(isolated_env.claude, "/home/dev/web")
    web.custom_title(f"Web{INVISIBLE}").todo_write([(f"Step{INVISIBLE} one", "in_progress")])
    outputs = {("task", "add"): added}
    for command in (("task", "list"), ("todo", "s1"), ("show", web.session_id), ("show", web.session_id, "--plain")):
        outputs[command] = planwatch(*command)
    for command, out in outputs.items():
        assert out.returncode == 0, (command, out.stderr)
        assert hidden(out.stdout) == [], command
        assert SHOWN in out.stdout.decode(), command
