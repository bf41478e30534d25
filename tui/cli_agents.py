"""Subcommands that put planwatch between agents and their list: `mcp` and `acp-tap`."""

from __future__ import annotations

import argparse
from pathlib import Path


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    mcp = sub.add_parser(
        "mcp",
        help="serve the ten store tools and the plan channel to an agent (MCP over stdio)",
        description=(
            "An MCP server over stdio offering the store's ten tools and the plan channel "
            "(x-ahpd-plans://<plan id>) so every agent on the host works the same list."
        ),
    )
    mcp.add_argument(
        "--session",
        metavar="ID",
        help="the session the calls come from (default: $PLANWATCH_SESSION)",
    )
    mcp.add_argument(
        "--store", metavar="DIR", help="the record store (default: $PLANWATCH_STORE, the setting, or the data folder)"
    )
    mcp.set_defaults(handler=_run_mcp)

    tap = sub.add_parser(
        "acp-tap",
        help="run an ACP agent through a transparent proxy that records its plans",
        description=(
            "Forward an ACP agent's stdio unchanged and record every message in the ACP "
            "log folder, so planwatch shows the session and its plans live. "
            "Usage: planwatch acp-tap [--log FILE] -- <agent command…>"
        ),
    )
    tap.add_argument("--log", metavar="FILE", help="write the log here instead of a new file in the ACP log folder")
    tap.add_argument("agent", nargs=argparse.REMAINDER, metavar="-- AGENT COMMAND", help="the agent and its arguments")
    tap.set_defaults(handler=_run_acp_tap)


def _run_mcp(args: argparse.Namespace) -> int:
    from planwatch.core.agent_protocols.mcp_stdio import run_server

    return run_server(session=args.session, store=Path(args.store) if args.store else None)


def _run_acp_tap(args: argparse.Namespace) -> int:
    from planwatch.core.agent_protocols.acp_tap import run_tap

    command = list(args.agent)
    if command and command[0] == "--":
        command = command[1:]
    return run_tap(command, Path(args.log).expanduser() if args.log else None)
