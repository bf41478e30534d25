"""CI: start `planwatch mcp` (the command given) over stdio with the SDK client,
initialize, and check the store's tools are offered. Exits non-zero otherwise."""

from __future__ import annotations

import sys

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters


async def main(command: str) -> None:
    params = StdioServerParameters(command=command, args=["mcp"])
    with anyio.fail_after(60):
        async with Client(params, mode="legacy") as client:  # type: ignore[arg-type]
            names = {tool.name for tool in (await client.list_tools()).tools}
    missing = {"task_add", "task_list", "plan_create"} - names
    if missing:
        raise SystemExit(f"planwatch mcp does not offer {sorted(missing)}")
    print(f"planwatch mcp: initialized, {len(names)} tools")


if __name__ == "__main__":
    anyio.run(main, sys.argv[1])
