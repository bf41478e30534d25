"""`planwatch show` and `planwatch sessions`: sessions and their plans, for people and scripts.

Every string taken from a transcript (titles, folders, item texts, ids) passes
`core.text.safe_text`/`shorten` before it is printed: no raw control character or
terminal escape ever reaches the terminal or a pipe.
"""

from __future__ import annotations

import argparse
import errno
import os
import sys
import time
from pathlib import Path

# Loaded by the command line before any command (its stderr is made safe by core.text).
from planwatch.core.forked import PROCESS_ENDS, detached, wait_detached
from planwatch.core.text import names_id
from planwatch.core.text import safe_text as _safe_text

# `typing` is not loaded at run time: a quick command's start (docs/performance.md)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from datetime import datetime
    from typing import TextIO

    from planwatch.core.index import SessionIndex
    from planwatch.core.listing import Listed
    from planwatch.core.model import PlanGroup
    from planwatch.core.sessions import SessionEntry
    from planwatch.core.settings import Settings

MARKS = {"completed": "[x]", "in_progress": "[>]", "pending": "[ ]", "cancelled": "[-]", "blocked": "[!]"}


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    show = sub.add_parser(
        "show",
        help="print one session's plan (by session id or transcript file)",
        description=(
            "Print a session's agent plan. The argument is a session id (or the start of "
            "one) from `planwatch sessions`, or the path of any transcript file."
        ),
    )
    show.add_argument("target", metavar="PATH_OR_SESSION_ID")
    show.add_argument(
        "--plain",
        action="store_true",
        help="for scripts: '# <source>' then '<status>\\t<text>' per item, per group",
    )
    _add_roots(show)
    show.set_defaults(handler=run_show, quick_exit=True)

    sessions = sub.add_parser(
        "sessions",
        help="list every session, newest activity first",
        description="List every session of every harness, newest activity first: its id (what show and todo take; "
        "the first column, for cut -d' ' -f1), age, harness, steps done, title and folder.",
    )
    sessions.add_argument("--json", action="store_true", help="a JSON array (ids, facts and counts; no plan text)")
    _add_roots(sessions)
    sessions.set_defaults(handler=run_sessions, quick_exit=True)


def _add_roots(parser: argparse.ArgumentParser) -> None:
    """`--root DIR`, repeatable, after the subcommand (`_roots` takes both places)."""
    parser.add_argument(
        "--root",
        dest="roots",
        metavar="DIR",
        action="append",
        default=[],
        help="an extra transcript folder (repeatable)",
    )


# -- building the index ----------------------------------------------------------------


def _roots(args: argparse.Namespace) -> list[str]:
    # `--root` may come before the subcommand (the app's option) or after it.
    return [*getattr(args, "root", []), *getattr(args, "roots", [])]


def missing_roots(args: argparse.Namespace) -> bool:
    """Say so (stderr) when a `--root` given does not exist, or is a FIFO, socket or
    device (never opened: it could block for ever); True when one is."""
    from planwatch.core.text import shorten
    from planwatch.core.transcripts.discover import unusable_root

    wrong = False
    for root in _roots(args):
        if not _there(Path(root).expanduser()):
            print(f"planwatch: --root {shorten(str(root), 200)}: no such file or folder", file=sys.stderr)
        elif (problem := unusable_root(Path(root))) is not None:
            print(f"planwatch: --root {shorten(problem, 300)}", file=sys.stderr)
        else:
            continue
        wrong = True
    return wrong


def _there(path: Path) -> bool:
    """Whether something is at `path`, or at least may be: False only when nothing is
    (a name the system cannot look up at all, too long or looping, or not allowed, is
    left to `unusable_root` to say so, where `Path.exists` raised)."""
    try:
        os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError:
        return True
    return True


def _settings() -> Settings:
    """The settings, with a word on stderr when they keep agents' plans from being read."""
    from planwatch.core.settings import load_settings

    settings = load_settings()
    if not settings.read_agent_plans:
        print("planwatch: reading agents' plans is off in the settings", file=sys.stderr)
    return settings


def _index(args: argparse.Namespace, *, summaries: bool = False) -> SessionIndex:
    """`summaries`: only facts and counts are shown (`sessions`): an unchanged file's
    plan counts come from the warm-start cache (core/transcripts/batch.read_file)."""
    from planwatch.core.index import SessionIndex, default_roots

    settings = _settings()
    roots = default_roots(settings, _roots(args))
    index = SessionIndex(roots, read_plans=settings.read_agent_plans, summaries=summaries)
    scan_with_progress(index)
    return index


def _file_index(path: Path, args: argparse.Namespace) -> SessionIndex:
    """An index of one transcript file and the subagent files beside it."""
    from planwatch.core.index import SessionIndex

    settings = _settings()
    roots = [path]
    if path.is_dir():  # a Copilot CLI session folder: the session is all of it
        index = SessionIndex(roots, read_plans=settings.read_agent_plans)
        scan_with_progress(index)
        return index
    stem = path.name.removesuffix(".zst").removesuffix(".jsonl")
    subagents = path.parent / stem / "subagents"
    if subagents.is_dir():
        roots.append(subagents)
    if not stem.startswith("agent-"):
        roots += sorted(path.parent.glob("agent-*.jsonl"))  # the older subagent layout
    if path.parent.name == "chats" and stem.startswith("session-"):
        # Gemini CLI: subagents in chats/<parent session id>/, the name ends in its first 8.
        short = stem.removesuffix(".json").rsplit("-", 1)[-1]
        roots += sorted(p for p in path.parent.glob(f"{short}*") if p.is_dir())
    index = SessionIndex(roots, read_plans=settings.read_agent_plans)
    scan_with_progress(index)
    return index


# A scan taking longer than this says how far it is on stderr (when that is a terminal).
PROGRESS_AFTER = 1.0
# Seconds a listing waits at most for the caches the last one writes after its answer
# (`_listed`): a few tenths of a second at 10,000 sessions; held longer (a writer stuck on
# a stalled disk, another process holding the lock), it lists without them and says so.
WRITING_WAIT = 5.0


def scan_with_progress(index: SessionIndex, stream: TextIO | None = None) -> None:
    """`index.scan()`; once it has run `PROGRESS_AFTER` seconds and `stream` (stderr) is
    a terminal, one line there says how many of the files found are read, rewritten in
    place and cleared at the end (stdout stays the answer alone)."""
    # The progress line's carriage return and erase are the command's own: written to
    # the terminal itself, past the safe-text stderr (tui.cli).
    terminal: TextIO = getattr(sys.stderr, "terminal", sys.stderr)
    out = terminal if stream is None else stream
    try:
        tty = out.isatty()
    except (AttributeError, ValueError):
        tty = False
    if not tty:
        index.scan()
        _report_problems(index)
        return
    started = time.monotonic()
    shown = False

    def progress(_entries: object) -> None:
        nonlocal shown
        if time.monotonic() - started < PROGRESS_AFTER:
            return
        done, found = index.progress
        out.write(f"\rplanwatch: reading transcripts, {done:,} of {found:,} files read")
        out.flush()
        shown = True

    try:
        index.scan(progress)
    finally:
        if shown:
            out.write("\r\033[K")  # the line cleared: only the answer stays
            out.flush()
    _report_problems(index)


def _report_problems(index: SessionIndex) -> None:
    """A source that cannot be read as it stands, once, on stderr (which file, what is
    wrong, what happened: skipped, or its session shown without its plan): the other
    harnesses' sessions are still listed."""
    from planwatch.core.text import shorten

    for note in index.problem_notes():
        print(f"planwatch: {shorten(note, 600)}", file=sys.stderr)  # a path and its reason, whole


# -- show ------------------------------------------------------------------------------


def run_show(args: argparse.Namespace) -> int:
    from planwatch.core.text import shorten

    target: str = args.target
    if missing_roots(args):
        return 2
    path: Path | None = Path(target).expanduser()
    try:
        os.stat(Path(target).expanduser())
    except (FileNotFoundError, NotADirectoryError, ValueError):
        pass  # no such file: an id, a file's name taken by a Copilot CLI folder's, or nothing
    except OSError as exc:
        if exc.errno != errno.ENAMETOOLONG:  # no permission, a loop: said, not raised
            print(f"planwatch: {shorten(target, 200)}: cannot be looked at ({exc.strerror or exc})", file=sys.stderr)
            return 1
        path = None  # too long for a name: no file, but it may still start an id
    copilot = _copilot_session(path) if path is not None else None
    cline = _cline_session(path) if copilot is None and path is not None else None
    if cline is not None:
        # A Cline session is a folder whose plan sits on its data folder's board: the
        # folder or either of its files names it, the board every session of it.
        index, entries = cline
        if not entries:
            print(f"planwatch: {shorten(str(path), 200)} is not a Cline session planwatch can read", file=sys.stderr)
            return 1
    elif copilot is not None:
        # A Copilot CLI session is its folder: the folder or any of its files names it.
        path = copilot.resolve()
        index = _file_index(path, args)
        entries = [e for e in index.entries() if e.session.path == path]
        if not entries:
            print(f"planwatch: {shorten(str(path), 200)} is not a session planwatch can read", file=sys.stderr)
            return 1
    elif path is not None and path.is_dir():
        print(
            f"planwatch: {shorten(str(path), 200)} is a folder, not a transcript: give a transcript file or a "
            f"session id (planwatch sessions --root {shorten(str(path), 200)} lists the sessions in it)",
            file=sys.stderr,
        )
        return 1
    elif path is not None and path.exists() and not path.is_file():
        from planwatch.core.regular_files import describe_kind

        kind = describe_kind(path.stat().st_mode)
        print(f"planwatch: {shorten(str(path), 200)} is {kind}, not a regular file: not read", file=sys.stderr)
        return 1
    elif path is not None and path.is_file():
        path = path.resolve()
        index = _file_index(path, args)
        entries = [e for e in index.entries() if e.session.path == path]
        if not entries:
            print(f"planwatch: {shorten(str(path), 200)} is not a transcript planwatch can read", file=sys.stderr)
            return 1
    else:
        index = _index(args)
        entry = index.get(target)
        if entry is None:
            # An id as `sessions` prints it (safe text: an escape for an invisible or
            # control character) names its session as the raw id does.
            printed = [e for e in index.entries() if names_id(e.session.id, target)]
            entry = printed[0] if len(printed) == 1 else None
        if entry is None:
            matches = [e for e in index.entries() if names_id(e.session.id, target, by_start=True)]
            if len(matches) > 1:
                print(
                    f"planwatch: {shorten(target)} names {len(matches)} sessions; give more of the id", file=sys.stderr
                )
                return 1
            if not matches:
                print(f"planwatch: no session or file {shorten(target)}", file=sys.stderr)
                return 1
            entry = matches[0]
        entries = [entry]
    out: list[str] = []
    for n, entry in enumerate(entries):
        if args.plain:
            # Several sessions (a Cline board): each after a header naming it, never a
            # blank line (every line of --plain is a header, an item or a framed line).
            if len(entries) > 1:
                out.append(f"# session {_safe_text(entry.session.id, single_line=True)}")
            out += _plain(entry)
            continue
        if n:
            out.append("")
        out += _person(entry)
    sys.stdout.write("\n".join(out) + "\n")
    return 0


def _cline_session(path: Path) -> tuple[SessionIndex, list[SessionEntry]] | None:
    """A Cline session given by its folder or one of its two files (that session), or
    the board `db/teams.db` or the data folder itself (every session of it), read from
    the data folder; None when `path` is no such thing."""
    from planwatch.core.index import SessionIndex
    from planwatch.core.transcripts.discover import CLINE_BOARD_NAME, cline_data_of, cline_session_of

    if not path.exists():
        return None
    path = path.resolve()
    found = cline_session_of(path)
    if found is None and (path.name == CLINE_BOARD_NAME or path.is_dir()):
        # The board, or the data folder itself (the path `sessions --json` lists for a
        # Cline session): every session of it.
        data = cline_data_of(path)
        found = (data, None) if data is not None and (data == path or path.name == CLINE_BOARD_NAME) else None  # type: ignore[assignment]
    if found is None:
        return None
    data, sid = found
    settings = _settings()
    index = SessionIndex([data], read_plans=settings.read_agent_plans)
    scan_with_progress(index)
    if sid is None:
        return index, index.entries()
    entry = index.get(sid)
    return index, [entry] if entry is not None else []


def _copilot_session(path: Path) -> Path | None:
    """The Copilot CLI session folder `path` names (itself, or one of its files)."""
    from planwatch.core.transcripts.copilot import SESSION_FILES, session_folder

    if not (path.is_dir() or path.name in SESSION_FILES):
        return None
    return session_folder(path)


def _group_header(group: PlanGroup) -> str:
    from planwatch.core.text import safe_text

    if group.key == "":
        return f"# {group.source}"
    if group.key.startswith("acp:"):
        return f"# acp {safe_text(group.key[4:], single_line=True)}"
    return f"# {group.source} {safe_text(group.key, single_line=True)}"


def _plain(entry: SessionEntry) -> list[str]:
    """`# <source>` for the main plan (`# none` without one), `<status>\\t<text>` per
    item, then each further group under its own header, then each plan document after
    its `# document …` header, each of its lines framed as `> <line>` (`>` alone for an
    empty one), so a document's own `# ` lines never read as headers and its lines never
    as items (docs/store.md, For scripts)."""
    from planwatch.core.text import safe_text

    plan = entry.plan
    lines = [_group_header(plan.main) if plan.main is not None else "# none"]
    ordered = ([plan.main] if plan.main is not None else []) + [g for g in plan.groups if g.key != ""]
    for n, group in enumerate(ordered):
        if n or plan.main is None:
            lines.append(_group_header(group))
        lines += [f"{item.status}\t{safe_text(item.text, single_line=True)}" for item in group.items]
    for document in plan.documents:
        # The whole document after its own header, each line framed and made safe to print.
        # Always three fields: `-` for a key or type the document has none of (Claude's
        # plan mode of the main session has neither), so a script splits every header
        # alike.
        key = safe_text(document.key, single_line=True) if document.key else "-"
        kind = document.plan_type or "-"
        lines.append(safe_text(f"# document {document.source} {key} {kind}", single_line=True))
        lines += [_framed(safe_text(line, single_line=True)) for line in document.text.splitlines()]
    return lines


def _framed(line: str) -> str:
    """A document's line in `--plain`: `> <line>`, or `>` alone for an empty line."""
    return f"> {line}" if line else ">"


def _person(entry: SessionEntry) -> list[str]:
    from planwatch.core.checklist import waits_for
    from planwatch.core.model import SOURCE_LABELS, partial_label
    from planwatch.core.text import quoted, safe_text, shorten

    session, plan = entry.session, entry.plan
    title = shorten(session.title or f"Session {session.id}", 100)
    lines = [title]
    facts = [session.harness, shorten(session.cwd or "(no folder)", 80)]
    if session.git_branch:
        facts.append(f"branch {shorten(session.git_branch, 40)}")
    facts.append(_age(session.updated))
    lines.append("  " + " · ".join(facts))
    lines.append(f"  id {shorten(session.id, 100)}")
    lines.append(f"  file {shorten(str(session.path), 200)}")
    if session.parent_id:
        lines.append(f"  forked from {shorten(session.parent_id, 100)}")
    if entry.skipped_lines:
        lines.append(f"  {entry.skipped_lines} unreadable line(s) skipped")
    if not plan.groups:
        lines.append("  no agent plan")
    groups = sorted(plan.groups, key=lambda g: g.key != "")
    for group in groups:
        label = SOURCE_LABELS.get(group.source, group.source)
        done = sum(i.status == "completed" for i in group.items)
        total = sum(i.status != "cancelled" for i in group.items)
        name = "" if group.key == "" else f"{shorten(group.key, 60)} — "
        partial = f" — {partial_label(group.source)}" if group.partial else ""
        lines.append("")
        lines.append(f"  {name}{label} {done}/{total}{partial}")
        if not group.items:
            lines.append("    (empty list)")
        for item in group.items:
            text = safe_text(item.text, single_line=True)
            if item.status == "in_progress" and item.active_form:
                text += f"  ({shorten(item.active_form, 60)})"
            high = "! " if item.priority == "high" else ""
            waiting = waits_for(group.items, item)
            if waiting:
                text += "  waits for " + ", ".join(quoted(blocker) for blocker in waiting)
            lines.append(f"    {MARKS.get(item.status, '[ ]')} {high}{text}")
    for document in plan.documents:
        key = f"{shorten(document.key, 60)} — " if document.key else ""
        kind = f", type {shorten(document.plan_type, 40)}" if document.plan_type else ""
        lines.append("")
        lines.append(f"  {key}plan document ({shorten(document.source, 40)}{kind}):")
        # The whole document, indented under its heading, each line made safe to print.
        lines += [f"    {safe_text(line, single_line=True)}".rstrip() for line in document.text.splitlines()]
    return lines


# -- sessions --------------------------------------------------------------------------


def _age(moment: datetime, now: datetime | None = None) -> str:
    from datetime import UTC, datetime  # loaded here: `sessions --json` never needs it

    seconds = max(0, int(((now or datetime.now(UTC)) - moment).total_seconds()))
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit} ago"
    return "now"


def _other(value: object) -> str:
    """A count or flag that is not an int (or a bool) as JSON: `null`, or what `json`
    makes of it (loaded only then)."""
    if value is None:
        return "null"
    import json

    return json.dumps(value)


def rows_json(rows: list[Listed]) -> str:
    """`sessions --json`: each session's facts and counts (never plan text), every text
    made safe to print: byte for byte `json.dumps([row._asdict() …], ensure_ascii=False,
    indent=1)`, at a third of the cost. The rows are laid out by one template (a member
    a line, the row's fields in order) and only the values encoded, each string by the
    C encoder's own string function: the encoder itself cannot indent in C, and with
    `indent` sends every token through Python (tests/tui/test_cli_sessions.py)."""
    try:
        # C, as ensure_ascii=False encodes a string; from `_json`, whose `json` package
        # (its decoder and scanner included) a warm listing need not import: about 2 ms.
        from _json import encode_basestring as string
    except ImportError:  # an interpreter without the C module
        from json.encoder import encode_basestring as string

    from planwatch.core.listing import LISTED_FIELDS

    if not rows:
        return "[]"
    template = "{\n  " + ",\n  ".join(f"{string(name)}: %s" for name in LISTED_FIELDS) + "\n }"
    safe = _safe_text  # a thousand rows: no lookup per row
    out = []
    for row in rows:
        title, cwd, branch, source, parent = row.title, row.cwd, row.git_branch, row.source, row.parent_id
        done, total, subagents = row.done, row.total, row.subagents
        out.append(
            template
            % (
                string(safe(row.id, single_line=True)),
                string(row.harness),
                "null" if title is None else string(safe(title, single_line=True)),
                "null" if cwd is None else string(safe(cwd, single_line=True)),
                "null" if branch is None else string(safe(branch, single_line=True)),
                string(safe(row.path, single_line=True)),
                string(row.updated),
                "null" if source is None else string(source),
                done if type(done) is int else _other(done),
                total if type(total) is int else _other(total),
                "true" if row.partial is True else "false" if row.partial is False else _other(row.partial),
                "null" if parent is None else string(safe(parent, single_line=True)),
                subagents if type(subagents) is int else _other(subagents),
            )
        )
    return "[\n " + ",\n ".join(out) + "\n]"


def run_sessions(args: argparse.Namespace) -> int:
    # Run with the cyclic collector paused (tui/cli.py `_collector_paused`).
    if missing_roots(args):
        return 2
    return _list_sessions(args)


def _list_sessions(args: argparse.Namespace) -> int:
    from planwatch.core import listing
    from planwatch.core.paths import default_roots

    settings = _settings()
    roots = default_roots(settings, _roots(args))
    # The caches the last listing wrote after its answer (`_listed`), once written.
    lock = writing_lock()
    if not wait_detached(str(lock), at_most=WRITING_WAIT):
        print(
            f"planwatch: {_safe_text(str(lock), single_line=True)} is still locked after {WRITING_WAIT:g} s"
            " (the last listing's caches being written, or another process holding it):"
            " listing without waiting for them",
            file=sys.stderr,
        )
    # The last listing, when not one file of it changed (core/listing.py): its rows,
    # their texts read again from the files, without the index.
    key = listing.key_for(roots) if settings.read_agent_plans else None
    rows = listing.remembered_rows(roots, key) if key is not None else None
    if rows is not None:
        return _print_rows(args, rows, roots)
    rows, settle = _listed(roots, settings.read_agent_plans, key)
    try:
        return _print_rows(args, rows, roots)
    finally:
        settle()  # the caches written meanwhile (`_listed`), waited for


def _print_rows(args: argparse.Namespace, rows: list[Listed], roots: list[Path]) -> int:
    from planwatch.core.text import shorten

    if args.json:
        # One write: `json.dump` would write each token on its own.
        sys.stdout.write(rows_json(rows) + "\n")
        return 0
    if not rows:
        searched = ", ".join(shorten(str(r), 120) for r in roots)
        print(f"No transcripts found. Looked in: {searched}")
        return 0
    from datetime import UTC, datetime

    now = datetime.now(UTC)
    lines = [
        (
            # The whole id, first: what `show` and `todo` take, cut by a script with
            # `cut -d' ' -f1` or `awk '{print $1}'` (never shortened: a cut id names nothing).
            _safe_text(row.id, single_line=True),
            _age(datetime.fromisoformat(row.updated), now),
            row.harness,
            f"{row.done}/{row.total}" if row.total else "-",
            shorten(row.title or f"Session {row.id}", 60),
            shorten(row.cwd or "", 50),
        )
        for row in rows
    ]
    widths = [max(len(line[i]) for line in lines) for i in range(4)]
    for line in lines:
        head = "  ".join(cell.ljust(widths[i]) for i, cell in enumerate(line[:4]))
        sys.stdout.write(f"{head}  {line[4]}  {line[5]}".rstrip() + "\n")
    return 0


def _listed(roots: list[Path], read_plans: bool, key: str | None) -> tuple[list[Listed], Callable[[], object]]:
    """The listing made by the index (facts and counts only: an unchanged file's plan
    counts come from the warm-start cache, core/transcripts/batch.read_file), kept for
    the next one (core/listing.py) unless plans are not read or a problem was said; and
    the function that waits for the caches to be written. The listing is kept on a
    forked process while this one writes the warm-start cache and the answer (0.3 s of
    a cold listing of 10,000 sessions, no longer after the rest)."""
    from planwatch.core import listing
    from planwatch.core.index import SessionIndex

    index = SessionIndex(roots, read_plans=read_plans, summaries=True)
    index.save_after_scan = False  # written below, beside the listing's keeping
    scan_with_progress(index)
    entries = index.entries()
    rows = [listing.listed(entry) for entry in entries]
    keep = key is not None and not index.problem_notes()
    if PROCESS_ENDS and read_plans:  # the installed command (tui/cli.py `run`); caches are kept
        # The command ends with its answer: the caches are written after it, by a
        # process of its own (0.3-0.4 s of a cold listing of 10,000 sessions, which the
        # answer need not wait for); the next listing waits for it (`_list_sessions`).
        def write() -> None:
            if keep and key is not None:
                listing.save(key, entries, index.file_states(), rows)
            index.save_cache()

        lock = writing_lock()
        try:
            lock.parent.mkdir(parents=True, exist_ok=True)  # the caches' folder, as a save makes it
        except OSError:
            pass  # the lock cannot be made: written here below, as ever
        if detached(write, str(lock)):
            return rows, _nothing
    kept: Callable[..., object] = _nothing
    if keep and key is not None:
        kept = listing.save_beside(key, entries, index.file_states(), rows)
    try:
        index.save_cache()
    except BaseException:  # interrupted: the listing's keeping is waited for, not done here
        kept(False)
        raise
    return rows, kept


def writing_lock() -> Path:
    """The lock a listing's caches are written under after its answer (`_listed`)."""
    from planwatch.core.paths import cache_dir

    return cache_dir() / "writing.lock"


def _nothing(again: bool = True) -> None:
    """Nothing to wait for."""
