"""`planwatch mcp` as a process: the server configured from the environment, served over
stdio, and gone when its client is.

Why a module of its own: how the process starts and ends (stderr logging, the settings
file and store folder it picks, exiting when stdin closes with work still in flight)
changes with how agents launch servers, apart from what the server answers
(core/agent_protocols/mcp.py).
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from collections.abc import Mapping
from pathlib import Path

import anyio

from planwatch.core import paths
from planwatch.core.agent_protocols.mcp import PlanwatchMCP
from planwatch.core.settings import LiveSettings

__all__ = ["make_server", "run_server"]

log = logging.getLogger(__name__)


def make_server(
    *,
    session: str | None = None,
    store: Path | None = None,
    environ: Mapping[str, str] | None = None,
    polling: bool = False,
) -> PlanwatchMCP:
    """The server as `planwatch mcp` configures it: settings file, store folder, caller."""
    env = dict(os.environ if environ is None else environ)
    if session:
        env["PLANWATCH_SESSION"] = session
    live = LiveSettings()  # problems go to stderr as they appear, and to the client
    root = store.expanduser() if store else paths.store_dir(live.current().store)
    return PlanwatchMCP(root, live, env, polling=polling)


def run_server(*, session: str | None = None, store: Path | None = None) -> int:
    """`planwatch mcp`: serve over stdio until the client goes away."""
    # stdout is the protocol; anything else goes to stderr, warnings and up only.
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="planwatch mcp: %(message)s")
    server = make_server(session=session, store=store)
    done = threading.Event()
    _exit_when_stdin_closes(done)
    try:
        anyio.run(server.serve_stdio)
    except KeyboardInterrupt:
        return 130
    finally:
        done.set()
    if any(t.is_alive() and not t.daemon for t in threading.enumerate() if t is not threading.current_thread()):
        # A tool still in flight on a worker thread must not keep the process alive
        # after its client is gone.
        sys.stdout.flush()
        sys.stderr.flush()
        _end_network_steps()  # os._exit runs no exit handler
        os._exit(0)
    return 0


def _end_network_steps() -> None:
    """No git of the background sync (its ssh) outlives the process (core/sync/git.py)."""
    from planwatch.core.sync.git import end_network

    end_network()


STDIN_GRACE = 3.0
"""Seconds the server gets to finish on its own once its stdin is closed."""


def _exit_when_stdin_closes(done: threading.Event, fd: int = 0) -> None:
    """Exit the process once stdin is closed and the server has not ended by itself.

    The SDK's stdio loop stops reading at EOF, but a request in flight (a tool blocked
    in IO) would keep the process alive. A daemon thread waits for the hang-up on fd 0
    (poll's POLLHUP: every writer is gone), gives the server `STDIN_GRACE` seconds, and
    then ends the process.
    """
    import select

    if not hasattr(select, "poll"):
        return
    try:
        # A duplicate: the SDK may close fd 0 at EOF, and the number be reused by a file.
        fd = os.dup(fd)
    except OSError:
        return

    def watch() -> None:
        poller = select.poll()
        poller.register(fd, select.POLLHUP | select.POLLERR)
        while not done.is_set():
            try:
                events = poller.poll(500)
            except (OSError, ValueError):
                return
            if any(mask & (select.POLLHUP | select.POLLERR | select.POLLNVAL) for _fd, mask in events):
                if not done.wait(STDIN_GRACE):
                    log.warning("stdin closed; exiting with work still in flight")
                    sys.stderr.flush()
                    _end_network_steps()  # os._exit runs no exit handler
                    os._exit(0)
                return

    threading.Thread(target=watch, name="planwatch-mcp-stdin", daemon=True).start()
