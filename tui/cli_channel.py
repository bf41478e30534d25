"""`planwatch todo SESSION` and `planwatch channel URI`: what clients see of the store.

- `todo SESSION` prints the session's todo lines (`- [x] <title>` / `- [ ] <title>`);
  `--meta` prints the session's `_meta` part (`{"ahpd.tasks": {"open": N}}`, or `{}`).
  SESSION is an id, or the start of one (as `show` takes it), that a plan's scope, a
  task or a transcript names; one that names none is refused (stderr, exit status 1):
  a typo must not read as "no tasks"; a start that several ids share is refused naming
  them. Broken records are reported on stderr.
- `channel URI` prints the plan's state as one JSON line, then one JSON line per
  action until interrupted (Ctrl-C exits 130 without a traceback); `--once` stops
  after the state. A URI with no plan: the error on stderr, exit status 2.

The store is `--store DIR`, else PLANWATCH_STORE, else the `store` setting, else the
XDG data folder. Under a user directory the caller (PLANWATCH_TOKEN) needs `session:read`
for both: without it `todo` is refused on stderr, exit status 2, before the store is read.
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
    todo.add_argument(
        "--meta", action="store_true", help='print the session\'s _meta ({"ahpd.tasks": {"open": N}}) instead'
    )
    add_store_option(todo)
    todo.set_defaults(handler=run_todo)

    channel = sub.add_parser("channel", help="follow a plan channel (x-ahpd-plans://<plan id>) as JSON lines")
    channel.add_argument("uri", metavar="URI", help="x-ahpd-plans://<plan id>")
    channel.add_argument("--once", action="store_true", help="print the state and stop")
    channel.add_argument("--polling", action="store_true", help="poll the store folder instead of filesystem events")
    add_store_option(channel)
    channel.set_defaults(handler=run_channel)


def run_todo(args: argparse.Namespace) -> int:
    from planwatch.core.store import session_todos
    from planwatch.core.store.store import Store

    settings, root = settings_and_root(args)
    refused = _read_refusal(settings, root)
    if refused is not None:
        print(refused, file=sys.stderr)
        return 2
    snap = Store(root).load()
    report_problems([p.message for p in snap.problems])
    session = _resolve_session(args.session, session_todos.session_ids(snap), settings)
    if session is None:
        return 1
    if args.meta:
        print(json.dumps(session_todos.session_meta(snap, session)))
        return 0
    for line in session_todos.todo_lines(snap, session):
        print(line)
    return 0


def _read_refusal(settings: Any, root: Any) -> str | None:
    """Why this command may not read the store (None: it may): the caller needs the
    `session:read` grant `task list` needs, checked before anything is read, so a
    refused caller learns neither titles, counts nor which sessions the store names."""
    from planwatch.core.store import grants
    from planwatch.core.store.identity import caller_from_env

    caller = caller_from_env(settings)
    if grants.holds(settings, caller, grants.SESSION_READ, root):
        return None
    return grants.refusal("planwatch todo", "reading plans and tasks", grants.SESSION_READ, caller, settings, root)


def _resolve_session(target: str, in_store: set[str], settings: Any) -> str | None:
    """The session `target` names: an id the store or a transcript knows, or the one id it
    begins (as `show` takes it); None, told on stderr, for none or several.

    The transcripts are scanned only when the store does not know `target` exactly.
    """
    from planwatch.core.text import names_id, safe_text, shorten

    if target in in_store:
        return target
    known = in_store | _transcript_sessions(settings)
    if target in known:
        return target
    # An id as `sessions` prints it (an escape for an invisible character) names it too.
    printed = [s for s in known if names_id(s, target)]
    if len(printed) == 1:
        return printed[0]
    matches = sorted(s for s in known if names_id(s, target, by_start=True))
    shown = safe_text(target, single_line=True)
    if len(matches) == 1:
        return matches[0]
    if matches:
        names = ", ".join(shorten(safe_text(m, single_line=True), 60) for m in matches[:5])
        more = f" and {len(matches) - 5} more" if len(matches) > 5 else ""
        print(
            f"planwatch: {shown} begins {len(matches)} session ids ({names}{more}): give more of the id",
            file=sys.stderr,
        )
        return None
    print(
        f"planwatch: no session {shown}: no plan or task names it and no transcript holds it (see planwatch sessions)",
        file=sys.stderr,
    )
    return None


def _transcript_sessions(settings: Any) -> set[str]:
    """The ids of the sessions the transcripts hold (no plan read)."""
    from planwatch.core.index import SessionIndex, default_roots

    index = SessionIndex(default_roots(settings, []), read_plans=False)
    index.scan()
    return {entry.session.id for entry in index.entries()}


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
    syncer: Any = None

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
        if not args.once:
            # Imported before the state is out: a Ctrl-C that lands while an import runs
            # a dataclass's generated code (exec of a string) makes CPython 3.11 end the
            # process by SIGINT at exit even though it was caught here, not with 130.
            from planwatch.core.sync.loop import SyncLoop
        _emit(state)
        if args.once:
            return 0
        # A shared store (docs/sync.md) syncs in the background while the feed runs, so
        # other hosts' changes arrive as actions like any other write.
        syncer = SyncLoop(channel.store)
        syncer.start()
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
        if syncer is not None:
            syncer.stop()
        channel.stop()
