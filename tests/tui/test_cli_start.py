"""`planwatch sessions` starts lean and says how far it is: it imports only
what it needs, and a slow scan shows a progress line on stderr when that is a terminal,
never on a pipe, and never on stdout."""

from __future__ import annotations

import argparse
import ast
import json
import os
import pty
import struct
import subprocess
import sys
import termios
from fcntl import ioctl
from pathlib import Path

import pytest
from bench.corpus import write_jobs

from planwatch.core import listing
from planwatch.core.index import SessionIndex
from planwatch.tui import cli_sessions

ROOT = Path(__file__).resolve().parents[2]

_MODULES = """
import json, sys
from planwatch.tui.cli import main
main(["sessions", "--json"])
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""


def test_sessions_json_imports_no_textual_no_mcp_no_store_and_no_watchdog(isolated_env) -> None:  # type: ignore[no-untyped-def]
    write_jobs(isolated_env.claude, 2)
    for _ in range(2):  # cold, then warm from the cache
        out = probed(_MODULES)
        assert len(json.loads(out.stdout)) == 2
        modules = json.loads(out.stderr.strip().splitlines()[-1])
        heavy = [m for m in modules if m.split(".")[0] in ("textual", "rich", "mcp", "watchdog")]
        assert heavy == []
        # Only the models it uses: no store records, tools or settings screen models.
        assert [
            m
            for m in modules
            if m.startswith(
                (
                    "planwatch.core.store",
                    "planwatch.core.agent_protocols",
                    "planwatch.tui.screens",
                    "planwatch.tui.widgets",
                )
            )
        ] == []


# What `sessions --json` has no use for: the app (Textual, Rich), the MCP SDK,
# pydantic (the store's models and the user directory; no settings file here) and
# ruamel.yaml, the follower (watchdog), OpenCode's database code when no OpenCode source
# exists (sqlite3), the timeline's plan history. (hashlib it does load: the warm-start
# cache is signed with a host key, HMAC-SHA256, so a forged cache is never trusted; its
# lines still hash with zlib.)
_NEVER = (
    "textual",
    "rich",
    "mcp",
    "pydantic",
    "pydantic_core",
    "ruamel",
    "watchdog",
    "sqlite3",
    "_sqlite3",
    "planwatch.core.history",
    "planwatch.core.transcripts.opencode",
    "planwatch.core.transcripts.opencode_sql",
    "planwatch.core.store",
    "planwatch.core.agent_protocols",
    "planwatch.tui.screens",
    "planwatch.tui.widgets",
    "planwatch.tui.app",
)
# What a warm run of unchanged files has no use for besides: the reading code (it replays
# remembered offsets), the scan's worker processes (pickle, subprocess), and ctypes (only
# the atomic rename swap of a write uses it; nothing is written).
_NEVER_WARM = (
    "planwatch.core.transcripts.lines",
    "planwatch.core.transcripts.linescan",
    "planwatch.core.transcripts.backward",
    "planwatch.core.transcripts.workers",
    "pickle",
    "subprocess",
    "ctypes",
)


def _loaded(modules: list[str], names: tuple[str, ...]) -> list[str]:
    return [m for m in modules if any(m == name or m.startswith(name + ".") for name in names)]


def test_sessions_json_must_not_import_textual_pydantic_models_it_does_not_use_or_the_mcp_sdk(  # type: ignore[no-untyped-def]
    isolated_env, copy_fixture
) -> None:
    """The lean start's rule (docs/performance.md), on the real CLI in a subprocess over the bundled fixtures of the
    line harnesses (Claude with a subagent, Codex, Gemini CLI, an ACP log): neither the
    first run nor a warm one imports what `sessions --json` does not use; a warm one
    from the warm-start cache (the listing the first run kept let go) not even the
    reading code; and one answered from the kept listing (core/listing.py) not even
    the index or a reader."""
    copy_fixture("transcripts/claude", isolated_env.claude)
    copy_fixture("transcripts/codex", isolated_env.codex)
    copy_fixture("transcripts/acp", isolated_env.acp_logs)
    copy_fixture("transcripts/gemini", isolated_env.root / "gemini-home" / ".gemini")
    outputs = []
    for run in ("cold", "remembered", "warm"):
        if run == "warm":
            listing.snapshot_file().unlink()
        out = subprocess.run(
            [sys.executable, "-c", _MODULES],
            cwd=ROOT,
            env=os.environ.copy(),
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert out.returncode == 0, out.stderr
        outputs.append(out.stdout)
        modules = json.loads(out.stderr.strip().splitlines()[-1])
        assert _loaded(modules, _NEVER) == [], run
        if run == "remembered":
            assert _loaded(modules, (*_NEVER_WARM, "planwatch.core.index", "planwatch.core.transcripts.claude")) == []
            continue
        assert "planwatch.core.transcripts.claude" in modules  # the path under test ran
        if run == "warm":
            assert _loaded(modules, _NEVER_WARM) == []
        else:
            assert "planwatch.core.transcripts.lines" in modules  # the cold run read the files
    assert outputs[0] == outputs[1] == outputs[2]
    harnesses = {row["harness"] for row in json.loads(outputs[1])}
    assert harnesses == {"claude", "codex", "gemini", "acp"}
    assert outputs[0] == outputs[1]


def test_the_command_line_looks_its_version_up_only_when_asked() -> None:
    """`--version` reads the package metadata (importlib.metadata, ~25 ms); building the
    parser for any other command does not."""
    probe = (
        "import sys\n"
        "from planwatch.tui.cli import build_parser\n"
        "build_parser().parse_args(['sessions', '--json'])\n"
        "print('importlib.metadata' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"
    shown = subprocess.run(
        [sys.executable, "-m", "planwatch.tui.cli", "--version"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert shown.returncode == 0 and shown.stdout.startswith("planwatch ")


def test_a_slow_scan_prints_progress_on_a_terminal_and_clears_it(isolated_env, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    write_jobs(isolated_env.claude, 60)
    monkeypatch.setattr(cli_sessions, "PROGRESS_AFTER", 0.0)  # every scan is "slow" here
    leader, follower = pty.openpty()
    try:
        with os.fdopen(follower, "w", closefd=False) as tty:
            index = SessionIndex()
            cli_sessions.scan_with_progress(index, tty)
        os.set_blocking(leader, False)
        parts = []
        while True:
            try:
                part = os.read(leader, 1 << 16)
            except BlockingIOError:
                break
            if not part:
                break
            parts.append(part)
        shown = b"".join(parts).decode()
    finally:
        os.close(leader)
        os.close(follower)
    assert "planwatch: reading transcripts, " in shown and "of 60 files read" in shown
    assert shown.endswith("\r\x1b[K")  # cleared: the terminal keeps only the answer
    assert len(index.entries()) == 60


def test_no_progress_on_a_pipe_and_none_on_stdout(isolated_env) -> None:  # type: ignore[no-untyped-def]
    write_jobs(isolated_env.claude, 3)
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    out = subprocess.run(
        [sys.executable, "-m", "planwatch.tui.cli", "sessions", "--json"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0
    assert out.stderr == ""
    assert len(json.loads(out.stdout)) == 3


class HeldIndex(SessionIndex):
    """The real index, its scan held after its first batch until the test lets go: the
    app is caught mid-scan, whatever the machine's speed."""

    def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        import threading

        self.hold = threading.Event()

    def scan(self, on_batch=None) -> None:  # type: ignore[no-untyped-def]
        def held(entries):  # type: ignore[no-untyped-def]
            if on_batch is not None:
                on_batch(entries)
            self.hold.wait(120)  # bounds a failed test only: the test lets go

        super().scan(held)


@pytest.mark.asyncio
async def test_the_app_shows_files_read_of_files_found_while_the_first_scan_runs(isolated_env) -> None:  # type: ignore[no-untyped-def]
    from app_transcripts import until
    from textual.widgets import Static

    from planwatch.tui.app import AppOptions, make_app

    write_jobs(isolated_env.claude, 120)
    index = HeldIndex([isolated_env.claude / "projects"])
    app = make_app(AppOptions(config_path=isolated_env.config, index=index, follow=False))
    async with app.run_test(size=(120, 36)) as pilot:

        def status() -> str:
            return str(app.screen.query_one("#status-line", Static).render())

        # The status line may say "0 of 120" before the first batch lands: wait past it.
        await until(
            pilot,
            lambda: app.screen.id == "browse" and "of 120 files read" in status() and " 0 of 120" not in status(),
            what="progress",
        )
        assert status().startswith("Indexing transcripts… ")
        read = int(status().split(" of ")[0].split()[-1])
        assert 0 < read < 120
        index.hold.set()
        await until(pilot, lambda: app.scan_done is not None, what="the scan")
        await pilot.pause()
        assert "files read" not in status()


_TEARDOWN_PROBE = """
import atexit, sys, threading
from planwatch.tui.cli import run
atexit.register(lambda: sys.stderr.write("torn down"))
if sys.argv[1] == "thread":  # a thread still running: the interpreter ends the usual way
    threading.Thread(target=threading.Event().wait, daemon=True).start()
sys.argv[1:] = ["sessions", "--json"]
run()
"""


def probed(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    """`script` run by a Python of its own with `args`, in this test's folders; it must
    end well."""
    done = subprocess.run(
        [sys.executable, "-c", script, *args],
        cwd=ROOT,
        env=os.environ.copy(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done


def test_a_listing_ends_once_its_answer_is_written_without_tearing_the_interpreter_down(isolated_env) -> None:  # type: ignore[no-untyped-def]
    """The command (`run`) ends a `sessions` listing at once, its whole answer written
    and flushed (more than a pipe holds), with its status: the interpreter's teardown
    (an `atexit` handler stands for it) is skipped. `main()` itself returns (the other
    tests call it in-process), and with another thread alive the usual exit runs."""
    write_jobs(isolated_env.claude, 400)
    answers = {}
    for how in ("alone", "thread"):
        out = probed(_TEARDOWN_PROBE, how)
        assert len(out.stdout) > 1 << 16
        answers[how] = (json.loads(out.stdout), out.stderr)
    assert len(answers["alone"][0]) == 400 and answers["alone"][0] == answers["thread"][0]
    assert "torn down" not in answers["alone"][1]
    assert "torn down" in answers["thread"][1]


_COLLECTOR_PROBE = """
import gc, sys
from planwatch.tui.cli import main, run
said = []
gc.callbacks.append(lambda phase, info: phase == "start" and said.append(info["generation"]))
stdout_write = sys.stdout.write
def write(text):
    said.append("written")
    return stdout_write(text)
sys.stdout.write = write
if sys.argv[1] == "main":  # a caller in the same process: the collector back on after
    main(["sessions", "--json"])
    sys.stderr.write(f"enabled {gc.isenabled()}\\n")
    sys.exit(0)
sys.argv[1:] = ["sessions", "--json"]
import os
real_exit, me = os._exit, os.getpid()
def ending(status):  # the process ends here (run's quick exit): what the collector did
    if os.getpid() == me:  # not a process forked to write a cache
        sys.stderr.write(repr(said))
        sys.stderr.flush()
    real_exit(status)
os._exit = ending
run()
"""


def test_a_listing_that_ends_the_process_never_walks_what_it_made_with_the_collector(isolated_env) -> None:  # type: ignore[no-untyped-def]
    """A listing runs with the cyclic collector paused (its objects hold no cycles worth
    collecting). When the process ends right after it (`run`), no collection runs once
    its answer is written: turned back on, the collector's first pass would walk every
    object the listing made just before the process ends (0.37 s at 10,000 sessions).
    A caller of `main()` in the same process gets the collector back on."""
    write_jobs(isolated_env.claude, 300)
    out = probed(_COLLECTOR_PROBE, "run")
    assert len(json.loads(out.stdout)) == 300
    said = ast.literal_eval(out.stderr.strip().splitlines()[-1])  # generations and "written"
    assert "written" in said
    assert said[said.index("written") :] == ["written"], said
    assert "enabled True" in probed(_COLLECTOR_PROBE, "main").stderr


def test_a_command_named_first_builds_only_its_own_parsers_and_every_command_is_in_the_table() -> None:
    """`planwatch sessions …` builds only the parsers of `sessions` and `show` (the store's,
    sync's and the agents' modules are not even imported), and the table the choice is made
    from names every command the whole parser has, each under the module that adds it."""
    probe = (
        "import sys\n"
        "from planwatch.tui import cli\n"
        "cli._main(['sessions', '--root', '/nonexistent', '--json'])\n"
        "print(sorted(m for m in sys.modules if m.startswith('planwatch.tui.cli_')))"
    )
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.stdout.strip().splitlines()[-1] == "['planwatch.tui.cli_app', 'planwatch.tui.cli_sessions']"
    from planwatch.tui.cli import COMMAND_MODULES, build_parser

    def commands(parser: argparse.ArgumentParser) -> set[str]:
        return set(next(a for a in parser._actions if a.dest == "command").choices)  # type: ignore[arg-type]

    assert commands(build_parser()) == {name for names in COMMAND_MODULES.values() for name in names}
    for names in COMMAND_MODULES.values():
        for name in names:
            assert commands(build_parser(name)) == set(names)


_WIDTH = """
import json, os, shutil, sys
from planwatch.tui import cli
print(json.dumps([cli._columns(), shutil.get_terminal_size().columns]))
"""


def test_help_is_laid_out_at_the_width_argparse_would_take_without_importing_shutil() -> None:
    """The command line's help formatter takes the terminal's width as argparse's own does
    (shutil's: COLUMNS, else stdout's terminal, else 80), for COLUMNS set, unset, zero or
    not a number, on a pipe and on a terminal; building the parser imports no shutil
    (with bz2 and lzma, about 1.6 ms of every start)."""
    probe = "import sys\nfrom planwatch.tui import cli\ncli.build_parser('sessions')\nprint('shutil' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.stdout.split() == ["False"], out.stderr
    for columns in (None, "50", "0", "wide"):
        env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
        if columns is not None:
            env["COLUMNS"] = columns
        piped = subprocess.run([sys.executable, "-c", _WIDTH], cwd=ROOT, env=env, capture_output=True, text=True)
        mine, theirs = json.loads(piped.stdout)
        assert mine == theirs, columns
        # On a terminal (a pty of 37 columns): stdout's own size.
        main, side = pty.openpty()
        ioctl(side, termios.TIOCSWINSZ, struct.pack("HHHH", 20, 37, 0, 0))
        try:
            proc = subprocess.run(
                [sys.executable, "-c", _WIDTH], cwd=ROOT, env=env, stdout=side, stderr=subprocess.PIPE, timeout=60
            )
            assert proc.returncode == 0, proc.stderr
            os.close(side)
            data = b""
            while True:
                try:
                    chunk = os.read(main, 4096)
                except OSError:
                    break
                if not chunk:
                    break
                data += chunk
        finally:
            os.close(main)
        mine, theirs = json.loads(data)
        assert mine == theirs, columns
        if columns in (None, "0", "wide"):
            assert mine == 37
