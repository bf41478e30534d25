"""The `planwatch` command: the app by default, and subcommands for scripts.

Each group of subcommands lives in its own module with a `register(subparsers)`
function; heavy imports happen inside the handlers so `planwatch show` starts fast.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import os
import sys
from collections.abc import Iterator

from planwatch.core.forked import PROCESS_ENDS, only_thread

# `typing` is not loaded at run time: a quick command's start (docs/performance.md)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# Modules that add subcommands, in the order they appear in --help, with the commands
# each adds (a command line naming one first builds only its module's parsers).
COMMAND_MODULES = {
    "planwatch.tui.cli_sessions": ("show", "sessions"),
    "planwatch.tui.cli_store": ("plan", "task", "sweep"),
    "planwatch.tui.cli_channel": ("todo", "channel"),
    "planwatch.tui.cli_agents": ("mcp", "acp-tap"),
    "planwatch.tui.cli_sync": ("sync",),
}


def version() -> str:
    """The installed distribution's version (`0` when run from a bare checkout)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    try:
        return dist_version("planwatch")
    except PackageNotFoundError:
        return "0"


class _VersionAction(argparse.Action):
    """`--version`, the version looked up only when asked: `importlib.metadata` costs
    about 25 ms of every start (`planwatch sessions --json` included) otherwise."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help="show the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *_args: object, **_kwargs: object) -> None:
        sys.stdout.write(f"planwatch {version()}\n")
        parser.exit()


def _columns() -> int:
    """The terminal's width as `shutil.get_terminal_size()` tells it (COLUMNS, else the
    terminal of stdout, else 80), without importing shutil (with bz2 and lzma, about
    1.6 ms of every start: argparse imports it to lay out help it usually never shows)."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns or 80  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 80
    return columns


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's own layout, its width worked out as argparse does (`_columns`)."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24, width: int | None = None):
        super().__init__(prog, indent_increment, max_help_position, _columns() - 2 if width is None else width)


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser laying out its help with `_HelpFormatter` (its subcommands'
    parsers are of its class)."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _HelpFormatter)
        super().__init__(**kwargs)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole command line's parser; with `command`, only that command's module's
    subcommands (a third of the parser's cost for `sessions`: every other module
    imported and its dozens of parsers built would serve nothing)."""
    parser = _Parser(
        prog="planwatch",
        description="Watch coding agents' plans as live checklists.",
    )
    from planwatch.tui import cli_app

    parser.add_argument("--version", action=_VersionAction)
    cli_app.add_app_arguments(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, commands in COMMAND_MODULES.items():
        if command is not None and command not in commands:
            continue
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            continue
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    from planwatch.core.text import SafeWriter

    # Everything the command prints on stderr (its sentences, argparse's, log records)
    # is safe text: a file name or title there never sends an escape to the terminal.
    stderr, sys.stderr = sys.stderr, SafeWriter(sys.stderr)
    try:
        return _main(argv)
    except SystemExit as exc:
        if isinstance(exc.code, str):  # `sys.exit("message")`: said here, while stderr is safe
            print(exc.code, file=sys.stderr)
            return 1
        raise
    except Exception:
        # An error nothing foresaw: its traceback (which may quote a file name, a title or
        # a transcript's value) is printed here, through the safe writer, rather than by
        # the interpreter after this function has put the raw stderr back.
        import traceback

        print("planwatch: unexpected error (a bug; please report it):", file=sys.stderr)
        traceback.print_exc(file=sys.stderr)
        return 1
    finally:
        sys.stderr.flush()
        sys.stderr = stderr


# Set by a command that only reads and prints (`sessions`, `show`), and by the app once
# it has given the terminal back: `run` may end the process as soon as `main()` returns.
_quick_exit: list[bool] = []
# Set by the app: its atexit handlers run before the process ends (the demo's temporary
# folder is removed by one); a listing registers none it needs.
_exit_handlers: list[bool] = []
# Set by `run`: this process ends when `main()` returns (not a caller in the same
# process, which lives on). Kept in core/forked.py, one list for the process: run as
# `python -m planwatch.tui.cli`, this module is `__main__`, and a command module that
# imports `planwatch.tui.cli` gets a second copy of it.
_process_ends = PROCESS_ENDS


def run() -> None:
    """The installed `planwatch` command (and `python -m planwatch.tui.cli`): `main()`,
    and then, after a command that only reads and prints, or the app once it has ended,
    with no other thread left, the process ends at once: the answer is flushed (after the
    app, its atexit handlers run first: the demo's temporary folder removed, log handlers
    flushed), and tearing down the interpreter (every module and object freed one by
    one: about 20 ms after a listing of 1,000 sessions, 0.9 s after the app showed
    10,000) would serve nothing. `main()` itself returns, for callers in
    the same process."""
    from planwatch.tui.deferred import defer_inspect

    defer_inspect()  # a process starting here: `inspect` imported only if used (deferred.py)
    _process_ends[:] = [True]
    status = main()
    if _quick_exit and only_thread():
        if _exit_handlers:
            import atexit

            atexit._run_exitfuncs()
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except (OSError, ValueError):
            sys.exit(status)  # let the interpreter's own exit say what it makes of it
        os._exit(status)
    sys.exit(status)


@contextlib.contextmanager
def _collector_paused(paused: bool) -> Iterator[None]:
    """A command that only reads and prints (`paused`) runs with the cyclic collector
    paused: its imports (about 100 modules), the index's objects, the rows and their JSON
    are hundreds of thousands of objects and no garbage cycles worth collecting, which
    the collector would walk again and again. Reference counting still frees what goes.
    When the process ends right after (`run`), the collector is left paused: turned on,
    its first pass, at the next allocation, would walk every object the command made
    (0.37 s after a cold listing of 10,000 sessions) just before the process ends."""
    enabled = gc.isenabled()
    if paused:
        gc.disable()
    try:
        yield
    finally:
        if paused and enabled and not _process_ends:
            gc.enable()


def _main(argv: list[str] | None) -> int:
    words = sys.argv[1:] if argv is None else argv
    # The command named first (`planwatch sessions --json`): only its parsers are built.
    # Anything else (options first, --help, a mistyped command) gets the whole parser.
    command = words[0] if words and any(words[0] in names for names in COMMAND_MODULES.values()) else None
    parser = build_parser(command) if command is not None else build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    _quick_exit[:] = [True] if getattr(args, "quick_exit", False) else []
    if handler is None:
        from planwatch.tui import cli_app

        status = cli_app.run_app(args)
        _quick_exit[:] = _exit_handlers[:] = [True]  # the app has ended and given the terminal back
        return status
    try:
        with _collector_paused(bool(_quick_exit)):
            status = int(handler(args) or 0)
        sys.stdout.flush()  # here, not at exit: a reader gone by then is a broken pipe caught below
        return status
    except BrokenPipeError:  # `planwatch sessions | head`: the reader has all it wanted
        # What is still buffered would be written at exit into the closed pipe again,
        # and that second failure ends the process with status 120 ("lost sys.stderr"):
        # the rest goes to /dev/null instead.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return 0
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    run()
