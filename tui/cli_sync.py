"""`planwatch sync …`: the store shared across hosts through git (docs/sync.md).

- `planwatch sync init REMOTE` — publish this store to an empty remote (records keep their ids).
- `planwatch sync join REMOTE` — make this store a replica; its own records are kept,
  renumbered where their ids clash with ids the team already claimed.
- `planwatch sync` — one pass; exit 0 when it reached the remote, 3 with a sentence
  when it could not (the local store works as before, its changes kept for later).
- `planwatch sync --status` (`--json`) — the hosts (how far this store is behind each,
  when each last pushed; the remote fetched first), what is held back, contested or
  unverified, the team policy, the last pass. Contested values are records' text: under
  a user directory they are shown only to a caller holding `session:read` (others see
  each contest's record and field, and on stderr why).
- `planwatch sync policy FILE` — publish a new team policy, signed by an owner of the
  current one (`--signing-key`, `--signer`, else the ones given at init or join).
Exit 1 with a sentence when the store cannot be synced at all (not shared, damaged).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from planwatch.tui.cli_store import add_store_option, settings_and_root


def register(sub: Any) -> None:
    sync = sub.add_parser("sync", help="share the store with other hosts through a git remote")
    sync.add_argument("--status", action="store_true", help="say how this replica stands instead of syncing")
    sync.add_argument("--json", dest="json_out", action="store_true", help="with --status: as JSON")
    add_store_option(sync)
    sync.set_defaults(handler=run_sync)
    inner = sync.add_subparsers(dest="sync_command", metavar="init|join|policy")
    pol = inner.add_parser("policy", help="publish a new team policy, signed by an owner of the current one")
    pol.add_argument("file", metavar="FILE", help="the new policy.json (users, roles, public keys)")
    pol.add_argument("--signing-key", default=None, help="the owner's SSH private key (default: this host's)")
    pol.add_argument(
        "--signer", default=None, help="the owner's user name in the current policy (default: this host's)"
    )
    add_store_option(pol)
    pol.set_defaults(handler=run_sync)
    for name, what in (
        ("init", "publish this store to an empty remote"),
        ("join", "make this store a replica of the remote's (its own records kept)"),
    ):
        cmd = inner.add_parser(name, help=what)
        cmd.add_argument("remote", metavar="REMOTE", help="any URL or path git takes")
        cmd.add_argument(
            "--host", default=None, help="this host's id in the team (default: its name and a random tail)"
        )
        cmd.add_argument("--signing-key", default=None, help="the SSH private key approvals made here are signed with")
        cmd.add_argument("--signer", default=None, help="the policy's user whose approvals that key signs")
        cmd.add_argument(
            "--share-session-plans",
            action="store_true",
            default=None,
            help="also push the agents' plans kept in the store (off: they stay on this host)",
        )
        cmd.add_argument(
            "--range", type=int, default=None, help="how many task ids this host claims ahead at a time (default 32)"
        )
        cmd.add_argument(
            "--poll", type=float, default=None, help="seconds between background checks of the remote (default 30)"
        )
        if name == "init":
            cmd.add_argument("--policy", default=None, help="the team's policy (JSON: users, roles, public keys)")
        add_store_option(cmd)
        cmd.set_defaults(handler=run_sync)


def run_sync(args: argparse.Namespace) -> int:
    from planwatch.core.store.errors import StoreError
    from planwatch.core.store.store import Store
    from planwatch.core.sync.git import GitFailed, GitUnreachable
    from planwatch.core.sync.replica import Replica, SyncError

    settings, root = settings_and_root(args)
    if getattr(args, "poll", None) is not None and not 0.1 <= args.poll <= 86_400:
        print("Invalid sync input: --poll must be a number of seconds from 0.1 to 86400.", file=sys.stderr)
        return 2
    if getattr(args, "range", None) is not None and not 1 <= args.range <= 100_000:
        print("Invalid sync input: --range must be a number of ids from 1 to 100000.", file=sys.stderr)
        return 2
    try:
        replica = Replica(Store(root))
        command = getattr(args, "sync_command", None)
        options = {
            "signingKey": str(Path(args.signing_key).expanduser().resolve())
            if getattr(args, "signing_key", None)
            else None,
            "signer": getattr(args, "signer", None),
            "shareSessionPlans": getattr(args, "share_session_plans", None),
            "taskRange": getattr(args, "range", None),
            "pollSeconds": getattr(args, "poll", None),
        }
        if command == "init":
            policy = Path(args.policy).read_bytes() if args.policy else None
            if policy is not None:
                json.loads(policy)  # refuse a policy that is no JSON before publishing it
            report = replica.init(args.remote, args.host, policy, **options)
        elif command == "join":
            report = replica.join(args.remote, args.host, **options)
        elif command == "policy":
            if not replica.shared:
                raise SyncError(
                    "This store is not shared; use planwatch sync init <remote> or planwatch sync join <remote>."
                )
            commit = replica.publish_policy(Path(args.file).read_bytes(), options["signingKey"], options["signer"])
            print(f"sync: published the team policy {commit[:12]}")
            return 0
        elif args.status:
            return _status(replica, args.json_out, _contest_refusal(settings, root))
        else:
            report = replica.sync()
    except BrokenPipeError:
        raise  # the reader stopped reading (`| head`): the command ends quietly (tui/cli.py)
    except (SyncError, StoreError, GitFailed) as exc:
        print(f"planwatch sync: {exc}", file=sys.stderr)
        return 1
    except GitUnreachable as exc:
        print(f"planwatch sync: could not reach the remote ({exc}); the store works as before.", file=sys.stderr)
        return 3
    except (OSError, ValueError) as exc:
        print(f"planwatch sync: {exc}", file=sys.stderr)
        return 1
    for problem in dict.fromkeys(report.problems):
        print(f"planwatch sync: {problem}", file=sys.stderr)
    print(report.line())
    return 0 if report.reached else 3


def _plural(n: int, what: str) -> str:
    return f"{n} {what}{'s' * (n != 1)}"


def _host_line(host: str, info: dict[str, Any], status: dict[str, Any]) -> str:
    """One host as this replica sees it: how far behind it is, and when it last pushed."""
    mine = host == status["host"]
    name = f"{host} (this host)" if mine else host
    if mine:
        waiting = int(info.get("unpushed") or 0) + int(status["pending"])
        state = f"{_plural(waiting, 'change')} not yet pushed" if waiting else "nothing waits to be pushed"
    elif info.get("behind"):
        state = f"this store is {_plural(int(info['behind']), 'change')} behind it (the next sync takes them)"
    else:
        state = "up to date"
    if info.get("pushedAt"):
        pushed = (
            f"last pushed {info['pushedAt']} by its clock, {_plural(int(info.get('changes') or 0), 'change')} in all"
        )
    else:
        pushed = "claimed ids, pushed no change yet"
    return f"{name}: {state} · {pushed}"


def _contest_refusal(settings: Any, root: Path) -> str | None:
    """Why the contested values may not be shown (None: they may): they are records'
    text, which the caller reads only holding `session:read`, as with `task list`."""
    from planwatch.core.store import grants
    from planwatch.core.store.identity import caller_from_env

    caller = caller_from_env(settings)
    if grants.holds(settings, caller, grants.SESSION_READ, root):
        return None
    return grants.refusal(
        "planwatch sync --status", "showing contested values", grants.SESSION_READ, caller, settings, root
    )


def _status(replica: Any, as_json: bool, withheld: str | None = None) -> int:
    """The replica's standing; with `withheld` (why the caller may not read records) each
    contest is named by its record and field only, and `withheld` is said on stderr."""
    from planwatch.core.sync.replica import SyncError

    if not replica.shared:
        raise SyncError("This store is not shared; use planwatch sync init <remote> or planwatch sync join <remote>.")
    status = replica.status()
    if withheld is not None and status["contested"]:
        status["contested"] = [{"id": c["id"], "field": c["field"]} for c in status["contested"]]
        print(f"{withheld} The contests are named without their values.", file=sys.stderr)
    if as_json:
        print(json.dumps(status, indent=1))  # ASCII: no text from another host reaches the terminal raw
        return 0
    from planwatch.core.text import safe_text

    def say(line: str) -> None:
        # Host names, ids, fields and values come from other hosts' logs and the remote:
        # every line is shown as safe text, whatever part of it came from where.
        print(safe_text(line, single_line=True))

    last = status["last"] or {}
    say(f"host {status['host']} · remote {safe_text(status['remote'], single_line=True)}")
    say(f"last sync: {last.get('at', 'never')}{'' if last.get('reached', True) else ' (offline)'}")
    if status.get("reached") is False:
        say(f"remote not reached ({safe_text(status['reason'], single_line=True)}): the hosts as of the last sync")
    policy = status["policy"]
    if policy["problem"]:
        say(f"policy: cannot be verified: {safe_text(policy['problem'], single_line=True)}; no call holds a grant")
    elif policy["pinned"]:
        say(f"policy: verified at {str(policy['tip'])[:12]}")
    else:
        print("policy: none (approvals made on other hosts never count here)")
    for host, info in sorted(status["hosts"].items()):
        say(f"  {_host_line(host, info, status)}")
    say(
        f"held back: {status['pending']} change(s) not yet pushed; provisional ids: {', '.join(status['provisional']) or 'none'}"
    )
    for c in status["contested"]:
        if "kept" not in c:
            say(f"contested {c['id']} {c['field']}")
            continue
        lost = "; ".join(safe_text(str(v), single_line=True) for v in c["lost"])
        if c["kept"] is None:  # a text both hosts edited: merged, some lines of one side left out
            say(f"contested {c['id']} {c['field']}: both edits merged; lines one host wrote that could not be: {lost}")
            continue
        say(
            f"contested {c['id']} {c['field']}: kept {safe_text(str(c['kept']), single_line=True)}, also written: {lost}"
        )
    for u in status["unverified"]:
        say(
            f"unverified approval of {u['id']} by {safe_text(str(u['by']), single_line=True)} (from {u['host']}): not counted"
        )
    for h in status.get("heldBack", ()):
        say(
            f"held back {h['id']}: a move to doing from host {h['host']} with no verified approval "
            "(the team requires approval); not applied"
        )
    for p in status["problems"]:
        say(f"problem: {safe_text(p, single_line=True)}")
    for r in status["removed"]:
        say(f"removed: {r}")
    return 0
