"""`planwatch todo SESSION` and `planwatch channel URI`: what clients see of the store.

- `todo SESSION` prints the session's todo lines (`- [x] <title>` / `- [ ] <title>`);
  `--meta` prints the session's `_meta` part (`{"ahpd.tasks": {"open": N}}`, or `{}`).
  A session id that no task names and no transcript holds is refused (stderr, exit
  status 1): a typo must not read as "no tasks". Broken records are reported on stderr.
- `channel URI` prints the plan's state as one JSON line, then one JSON line per
  action until interrupted (Ctrl-C exits 130 without a traceback); `--once` stops
  after the state. A URI with no plan: the error on stderr, exit status 2.

The store is `--store DIR`, else PLANWATCH_STORE, else the `store` setting, else the
XDG data folder. Under a user directory the caller (PLANWATCH_TOKEN) needs `session:read`.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from planwatch.tui.cli_store import add_store_option, report_problems, settings_and_root


def register(sub: Any) -> None:
    todo = sub.add_parser("todo", help="a session's todo lines from the record store")
    todo.add_argument("session", metavar="SESSION", help="the session id")
    todo.add_argument("--meta", action="store_true", help='print the session\'s _meta ({"ahpd.tasks": {"open": N}}) instead')
    add_store_option(todo)
    todo.set_defaults(handler=run_todo)

    channel = sub.add_parser("channel", help="follow a plan channel (x-ahpd-plans://<plan id>) as JSON lines")
    channel.add_argument("uri", metavar="URI", help="x-ahpd-plans://<plan id>")
    channel.add_argument("--once", action="store_true", help="print the state and stop")
    channel.add_argument("--polling", action="store_true", help="poll the store folder instead of filesystem events")
    add_store_option(channel)
    channel.set_defaults(handler=run_channel)


def run_todo(args: argparse.Namespace) -> int:
    from planwatch.core.store import views
    from planwatch.core.store.records import Store
    from planwatch.core.text import safe_text

    settings, root = settings_and_root(args)
    snap = Store(root).load()
    report_problems([p.message for p in snap.problems])
    if not views.session_tasks(snap, args.session) and not _session_exists(args.session, settings):
        print(
            f"planwatch: no session {safe_text(args.session, single_line=True)}: no task names it and no transcript "
            "holds it (see planwatch sessions)",
            file=sys.stderr,
        )
        return 1
    if args.meta:
        print(json.dumps(views.session_meta(snap, args.session)))
        return 0
    for line in views.todo_lines(snap, args.session):
        print(line)
    return 0


def _session_exists(session_id: str, settings: Any) -> bool:
    """Whether a transcript holds this session (asked only when no task names it)."""
    from planwatch.core.index import SessionIndex, default_roots

    index = SessionIndex(default_roots(settings, []), read_plans=False)
    index.scan()
    return index.get(session_id) is not None


class _Terminated(Exception):
    """SIGTERM arrived: stop following."""


def _emit(obj: Any) -> None:
    # ASCII JSON: a hand-written title's C1 control or bidi character stays an escape.
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def run_channel(args: argparse.Namespace) -> int:
    import signal

    from planwatch.core.settings import LiveSettings
    from planwatch.core.store.channel import Channel, ChannelError

    settings, root = settings_and_root(args)
    # Re-read when the file changes: a revoked user stops receiving changes at once.
    channel = Channel(root, settings=LiveSettings(initial=settings), polling=args.polling)

    def _terminate(signum: int, frame: object) -> None:
        raise _Terminated

    # A supervisor's SIGTERM ends the feed cleanly (exit 0): watcher joined, no traceback.
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        try:
            state, sub = channel.subscribe(args.uri)
        except ChannelError as exc:
            print(exc.message, file=sys.stderr)
            return 2
        _emit(state)
        if args.once:
            return 0
        while True:
            # A timeout keeps the main thread responsive to signals.
            action = sub.get(timeout=0.5)
            if action is not None:
                _emit(action)
            elif sub.closed:
                return 0
    except _Terminated:
        return 0
    except KeyboardInterrupt:
        return 130
    finally:
        signal.signal(signal.SIGTERM, previous)
        channel.stop()
