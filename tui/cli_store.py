"""`planwatch plan …`, `planwatch task …`, `planwatch sweep`: the store tools for scripts.

Each subcommand maps 1:1 onto a tool of core.store.tools: every input is an option named
after its field (`--title`, `--blocked-by t1,t2`, `--scope folder:/srv/work`), and the
record acted on (the tool's `plan` / `task` input) is the first positional argument
(`planwatch task set t1 --status doing`). Lists are comma-separated. In `set`, an empty
value removes the field (`--note ""`). `--body -` / `--goal -` read the text from stdin.
The answer lines go to stdout (`--json` on `task list`, `plan list`, `plan show`: the
records as JSON); a refusal goes to stderr with exit status 2, a failed write with exit
status 1, each naming the command (`see planwatch plan list`), not the tool. A broken
record a listing left out is reported on stderr, once per command (file and what is
wrong); the answer on stdout stays one line per item.

The store is `--store DIR`, else PLANWATCH_STORE, else the `store` setting, else the
XDG data folder. The caller is the user of PLANWATCH_TOKEN (under a user directory),
else the settings' owner; PLANWATCH_SESSION names the session stamps record.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

SUPPRESS = argparse.SUPPRESS


def _csv(value: str) -> list[str]:
    return [part.strip() for part in value.split(",") if part.strip()]


def _scope(value: str) -> dict[str, str] | None:
    if value == "":
        return None
    kind, sep, rest = value.partition(":")
    if not sep:
        return {"kind": kind}  # plan list --scope folder: any folder; the tool judges the rest
    return {"kind": kind, kind: rest}


def _text(value: str) -> str:
    return sys.stdin.read() if value == "-" else value


def _opt(value: str) -> str | None:
    return value if value != "" else None


# field name → (flag, converter, help). The converter turns the option's text into the
# tool input's value; "" means "remove" for the set tools.
TASK_OPTIONS: dict[str, tuple[str, Callable[[str], Any], str]] = {
    "title": ("--title", str, "the task's one-line title"),
    "status": ("--status", str, "todo, doing, blocked, review, done or dropped"),
    "priority": ("--priority", _opt, "high, medium or low"),
    "labels": ("--labels", _csv, "comma-separated labels"),
    "topic": ("--topic", _opt, "a topic"),
    "plan": ("--plan", _opt, "the plan id the task belongs to (p<n>)"),
    "bot": ("--bot", _opt, "the bot the task is for"),
    "folder": ("--folder", _opt, "the working folder"),
    "session": ("--session", _opt, "the session id the task belongs to (add: PLANWATCH_SESSION when not given)"),
    "blockedBy": ("--blocked-by", _csv, "comma-separated task ids that must be done first"),
    "active": ("--active", _opt, "the '-ing' form shown while in progress"),
    "note": ("--note", _opt, "a short note"),
    "refs": ("--refs", _csv, "comma-separated references"),
    "body": ("--body", _text, "the Markdown body ('-' reads stdin)"),
}
PLAN_OPTIONS: dict[str, tuple[str, Callable[[str], Any], str]] = {
    "title": ("--title", str, "the plan's one-line title"),
    "scope": ("--scope", _scope, "KIND:VALUE, KIND one of folder, bot, session"),
    "goal": ("--goal", _text, "the Markdown goal ('-' reads stdin)"),
    "status": ("--status", str, "draft, active, done or dropped"),
    "refs": ("--refs", _csv, "comma-separated references"),
}


def add_store_option(parser: argparse.ArgumentParser) -> None:
    """`--store DIR`, for every subcommand that works on the store (here and in cli_channel)."""
    parser.add_argument(
        "--store",
        metavar="DIR",
        default=None,
        help="the store folder (default: PLANWATCH_STORE, the setting, or the XDG data folder)",
    )


def _add_fields(
    parser: argparse.ArgumentParser,
    options: dict[str, tuple[str, Callable[[str], Any], str]],
    names: tuple[str, ...] | None = None,
    *,
    skip: tuple[str, ...] = (),
) -> None:
    for name, (flag, _convert, help_text) in options.items():
        if (names is not None and name not in names) or name in skip:
            continue
        parser.add_argument(
            flag,
            dest=f"field_{name}",
            metavar=name.upper() if name != "blockedBy" else "IDS",
            default=SUPPRESS,
            help=help_text,
        )


def _leaf(
    sub: Any, name: str, tool: str, help_text: str, positional: str | None = None, *, json_out: bool = False
) -> argparse.ArgumentParser:
    parser = sub.add_parser(name, help=help_text, description=f"{help_text} (tool {tool}).")
    if positional:
        parser.add_argument("record", metavar=positional, help=f"the {positional.lower()} acted on")
    if json_out:
        parser.add_argument(
            "--json",
            dest="json_out",
            action="store_true",
            help="the records as JSON (fields as in the files, stamps included) instead of lines",
        )
    add_store_option(parser)
    parser.set_defaults(handler=_run, tool=tool)
    return parser


def register(sub: Any) -> None:
    """Add `plan`, `task` and `sweep` to the `planwatch` command."""
    plan = sub.add_parser("plan", help="plans in the record store (create, set, show, list, approve)")
    plan_sub = plan.add_subparsers(dest="plan_command", metavar="ACTION", required=True)
    p = _leaf(plan_sub, "create", "plan_create", "create a plan (it starts as a draft)")
    p.add_argument("title_arg", nargs="?", metavar="TITLE", help="the title (or --title)")
    _add_fields(p, PLAN_OPTIONS, skip=("status",))
    p = _leaf(plan_sub, "set", "plan_set", "change a plan", "PLAN")
    _add_fields(p, PLAN_OPTIONS)
    _leaf(plan_sub, "show", "plan_show", "a plan and its tasks", "PLAN", json_out=True)
    p = _leaf(plan_sub, "list", "plan_list", "list plans", json_out=True)
    _add_fields(p, PLAN_OPTIONS, ("status", "scope"))
    _leaf(plan_sub, "approve", "plan_approve", "stamp a plan approved", "PLAN")

    task = sub.add_parser("task", help="tasks in the record store (add, set, list, approve, review)")
    task_sub = task.add_subparsers(dest="task_command", metavar="ACTION", required=True)
    p = _leaf(task_sub, "add", "task_add", "add a task (a new task is always todo)")
    p.add_argument("title_arg", nargs="?", metavar="TITLE", help="the title (or --title)")
    _add_fields(p, TASK_OPTIONS, skip=("status",))
    p = _leaf(task_sub, "set", "task_set", "change a task", "TASK")
    _add_fields(p, TASK_OPTIONS)
    p = _leaf(task_sub, "list", "task_list", "list tasks", json_out=True)
    p.add_argument("--status", dest="list_status", metavar="STATUS", default=SUPPRESS, help="comma-separated statuses")
    for name, meaning in (("approved", "with (or without) an approved stamp"), ("ready", "ready to start (or not)")):
        p.add_argument(
            f"--{name}",
            dest=f"list_{name}",
            action=argparse.BooleanOptionalAction,
            default=SUPPRESS,
            help=f"only tasks {meaning}",
        )
    p.add_argument("--by", dest="list_by", metavar="NAME", default=SUPPRESS, help="a stamp by this person")
    p.add_argument(
        "--since", dest="list_since", metavar="WHEN", default=SUPPRESS, help="a stamp at or after this ISO date/time"
    )
    p.add_argument("--plan", dest="list_plan", metavar="PLAN", default=SUPPRESS, help="tasks of this plan")
    p.add_argument(
        "--session", dest="list_session", metavar="SESSION", default=SUPPRESS, help="tasks naming this session"
    )
    _leaf(task_sub, "approve", "task_approve", "stamp a task approved", "TASK")
    p = _leaf(task_sub, "review", "task_review", "stamp a task (or a plan) reviewed", "TASK_OR_PLAN")
    p.add_argument("--verdict", dest="field_verdict", metavar="VERDICT", default=SUPPRESS, help="approved or changes")

    sweep = sub.add_parser("sweep", help="remove finished plans and their tasks older than sweepAfterDays (one pass)")
    add_store_option(sweep)
    sweep.add_argument(
        "--after-days", type=float, default=None, metavar="DAYS", help="use this instead of the sweepAfterDays setting"
    )
    sweep.set_defaults(handler=_run_sweep)


def tool_input(args: argparse.Namespace) -> dict[str, Any]:
    """The tool input dict a parsed command line stands for (only the options given)."""
    tool: str = args.tool
    options = PLAN_OPTIONS if tool.startswith("plan_") else TASK_OPTIONS
    data: dict[str, Any] = {}
    record = getattr(args, "record", None)
    if record is not None:
        # The record acted on is the tool's `plan` or `task` input (task review takes either).
        if tool == "task_review":
            data["plan" if record.startswith("p") else "task"] = record
        else:
            data["plan" if tool.startswith("plan_") else "task"] = record
    if getattr(args, "title_arg", None) is not None:
        data["title"] = args.title_arg
    for key, value in vars(args).items():
        if key.startswith("field_"):
            name = key[len("field_") :]
            convert = options[name][1] if name in options else str
            data[name] = convert(value)
        elif key.startswith("list_"):
            name = key[len("list_") :]
            data[name] = _csv(value) if name == "status" else value
    if tool == "plan_list" and "scope" in data and data["scope"] is None:
        del data["scope"]
    if tool in ("task_add", "plan_create"):
        # Adding: an empty option means "not given", not "remove" (except `--session ""`:
        # no session, rather than the one the command runs in).
        data = {k: v for k, v in data.items() if v not in (None, []) or k == "session"}
    return data


_TOOL_NAME = re.compile(r"\b(plan|task)_(create|set|show|list|add|approve|review)\b")


def cli_wording(message: str) -> str:
    """A tool's sentence as the command line says it: `see plan_list` → `see planwatch plan list`."""
    return _TOOL_NAME.sub(lambda m: f"planwatch {m.group(1)} {m.group(2)}", message)


def report_problems(problems: list[str]) -> None:
    """The broken records a command left out, on stderr, once each (never on stdout)."""
    for problem in dict.fromkeys(problems):
        print(f"planwatch: left out a record that is not valid: {problem}", file=sys.stderr)


def settings_and_root(args: argparse.Namespace) -> tuple[Any, Path]:
    """The settings and the store folder: `--store`, else PLANWATCH_STORE, the setting, XDG."""
    from planwatch.core import paths
    from planwatch.core.settings import load_settings

    settings = load_settings()
    root = Path(args.store).expanduser() if getattr(args, "store", None) else paths.store_dir(settings.store)
    return settings, root


def _context(args: argparse.Namespace) -> tuple[Any, Any]:
    from planwatch.core.store.store import Store

    settings, root = settings_and_root(args)
    return Store(root), settings


def _run(args: argparse.Namespace) -> int:
    from planwatch.core.store.errors import StoreError
    from planwatch.core.store.identity import caller_from_env
    from planwatch.core.store.tool_refusals import ToolRefused
    from planwatch.core.store.tools import run_tool

    store, settings = _context(args)
    try:
        result = run_tool(args.tool, store, settings, caller_from_env(settings), tool_input(args))
    except ToolRefused as exc:
        print(cli_wording(exc.message), file=sys.stderr)
        return 2
    except StoreError as exc:
        print(str(exc), file=sys.stderr)
        return 1
    report_problems(result.problems)
    for note in result.notes:
        print(f"planwatch: {cli_wording(note)}", file=sys.stderr)
    if getattr(args, "json_out", False):
        print(json.dumps(_as_json(args.tool, result.records), indent=1))
        return 0
    for line in result.lines:
        print(line)
    return 0


def _as_json(tool: str, records: list[Any]) -> Any:
    """`plan show`: `{plan, tasks}` (the plan channel's state); the lists: an array."""
    from planwatch.core.store.record_mapping import plan_json, task_json
    from planwatch.core.store.schema import PlanRecord

    def one(rec: Any) -> dict[str, Any]:
        return plan_json(rec) if isinstance(rec, PlanRecord) else task_json(rec)

    if tool == "plan_show":
        return {"plan": one(records[0]), "tasks": [one(r) for r in records[1:]]}
    return [one(r) for r in records]


def _run_sweep(args: argparse.Namespace) -> int:
    from planwatch.core.store.errors import StoreError
    from planwatch.core.store.sweep import run_sweep

    store, settings = _context(args)
    if args.after_days is not None:
        try:  # the setting's own check: a number of days, 0 or more (not inf, not nan)
            settings = replace(settings, sweep_after_days=args.after_days)
        except ValueError:
            print("Invalid sweep input: --after-days must be a number of days, 0 or more.", file=sys.stderr)
            return 2
    try:
        report = run_sweep(store, settings)
    except StoreError as exc:
        print(str(exc), file=sys.stderr)
        return 1
    if report.temp_files:
        count = len(report.temp_files)
        print(f"removed {count} temp file{'s' if count != 1 else ''} left by writers that stopped mid-write")
    if report.refused is not None:
        print(f"planwatch sweep: {report.refused}.", file=sys.stderr)
        return 1
    if report.after_days is not None and report.after_days != settings.sweep_after_days:
        print(
            f"planwatch sweep: the team's policy keeps records {report.after_days:g} days; swept by that.",
            file=sys.stderr,
        )
    if report.after_days is None:
        print("sweepAfterDays is not set: the store keeps everything.")
    elif not report.plans:
        print("nothing to sweep")
    else:
        print(
            f"removed plans {', '.join(report.plans)}"
            + (f" and tasks {', '.join(report.tasks)}" if report.tasks else "")
        )
    return 0
