"""`planwatch mcp`: the store's ten tools and the plan channel for agents, over MCP stdio.

Every agent on the host that adds this server works the same list as the person in the
app and the scripts on the CLI (docs/store.md, Agents on the same list):

- **Tools** — the ten of `core.store.tools.TOOLS`, called through the same
  `run_tool` as the CLI. Input schemas are the tools' own pydantic input models, so
  they cannot drift; each tool's description says what every input takes. An answer
  is one text block (one line per item); a refusal is a tool error result
  (`isError: true`) carrying the tool's own sentence, never a crash. A broken record
  a listing left out is reported beside the answer, never inside it: one
  `notifications/message` (level warning, logger `planwatch.store`) per record.
- **Resources** — the plan channel (docs/store.md, What clients see): template `x-ahpd-plans://{plan_id}`,
  read as JSON `{plan, tasks}`; an unknown plan is the MCP error -32001
  `Resource not found: <uri>`. Subscribing (legacy `resources/subscribe`, or a
  2026-07-28 `subscriptions/listen` stream) sends `notifications/resources/updated`
  whenever the plan or its tasks change, by any writer: `core.store.channel` watches
  the folder and diffs the records. The subscriptions themselves live in
  `core.agent_protocols.mcp_subscriptions`; the process (`make_server`, `run_server`, exiting
  when stdin closes) in `core.agent_protocols.mcp_stdio`.

Who calls: `--session` (else `PLANWATCH_SESSION`) is the session the stamps name;
`PLANWATCH_TOKEN`, checked against the user directory, is the person.

Built on the SDK's low-level `Server` rather than `MCPServer`: the high-level class
derives schemas from Python signatures, validates arguments itself (wording refusals
as `Error executing tool …`) and does not expose `resources/subscribe`; here the
store's models and sentences must reach the agent unchanged.
"""

from __future__ import annotations

import json
import logging
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import mcp_types as types
from mcp.server import Server, ServerRequestContext
from mcp.server.session import ServerSession
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

from planwatch.core.agent_protocols.mcp_subscriptions import PlanSubscriptions, channel_error
from planwatch.core.settings import LiveSettings, Settings, SettingsProblem
from planwatch.core.store import grants
from planwatch.core.store.channel import FORBIDDEN, PREFIX, Channel, ChannelError
from planwatch.core.store.errors import StoreError
from planwatch.core.store.identity import Caller, caller_from_env
from planwatch.core.store.sweep import Sweeper
from planwatch.core.store.tool_refusals import ToolRefused
from planwatch.core.store.tools import TOOL_NAMES, TOOLS, run_tool

log = logging.getLogger(__name__)

SERVER_NAME = "planwatch"
PLAN_URI_TEMPLATE = f"{PREFIX}{{plan_id}}"
LOGGER = "planwatch.store"
_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
READ_ONLY_TOOLS = frozenset({"plan_show", "plan_list", "task_list"})

INSTRUCTIONS = (
    "planwatch's shared task store: the plans and tasks every agent and person on this "
    "host works from. Use task_list / plan_list / plan_show to see the work, task_add and "
    "task_set to record and advance your own steps (status todo, doing, blocked, review, "
    "done, dropped), and subscribe to x-ahpd-plans://<plan id> to hear of changes. Each "
    "answer is one line per item: tasks `id status priority title`, plans `id status title`."
)


def _text(text: str) -> list[types.ContentBlock]:
    return [types.TextContent(type="text", text=text)]


class PlanwatchMCP:
    """The server: tools over the store, the plan channel as subscribable resources."""

    def __init__(
        self,
        store_root: Path,
        settings: Settings | LiveSettings,
        caller: Caller | Mapping[str, str],
        *,
        polling: bool = False,
    ) -> None:
        """`settings`: fixed, or a `LiveSettings` re-read on every call. `caller`: fixed,
        or the environment (`PLANWATCH_TOKEN`, `PLANWATCH_SESSION`) resolved against the
        settings of each call, so a revoked token stops working at once."""
        self.store_root = store_root
        self._settings_of: Callable[[], Settings]
        if isinstance(settings, Settings):
            fixed = settings
            self._settings_of = lambda: fixed
        else:
            self._settings_of = settings.current
        self._fixed_caller = caller if isinstance(caller, Caller) else None
        self._env = dict(caller) if not isinstance(caller, Caller) else {}
        self.channel = Channel(store_root, settings=self._settings_of, caller=self._fixed_caller, polling=polling)
        # Settings problems already sent to the client as logging notifications.
        self._told: set[str] = set()
        self._session: ServerSession | None = None
        self.subscriptions = PlanSubscriptions(self.channel, lambda: self.caller)
        self._log_level: str = "debug"  # what `logging/setLevel` asked for (handshake versions)
        with warnings.catch_warnings():  # the logging capability is deprecated only at 2026-07-28
            warnings.simplefilter("ignore")
            self.server: Server[Any] = self._make_server()

    def _make_server(self) -> Server[Any]:
        return Server(
            SERVER_NAME,
            version=_version(),
            title="planwatch",
            description="Plans and tasks shared by every agent and person on this host.",
            instructions=INSTRUCTIONS,
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
            on_list_resources=self._list_resources,
            on_list_resource_templates=self._list_resource_templates,
            on_read_resource=self._read_resource,
            on_subscribe_resource=self.subscriptions.subscribe,
            on_unsubscribe_resource=self.subscriptions.unsubscribe,
            on_subscriptions_listen=self.subscriptions.listen,
            on_set_logging_level=self._set_logging_level,
        )

    @property
    def settings(self) -> Settings:
        """The settings as they are now (re-read when the file changed)."""
        return self._settings_of()

    @property
    def caller(self) -> Caller:
        """Who is behind the calls, resolved against the current user directory."""
        if self._fixed_caller is not None:
            return self._fixed_caller
        return caller_from_env(self.settings, self._env)

    # ------------------------------------------------------------ settings problems

    def _untold_problems(self) -> list[SettingsProblem]:
        problems = [p for p in self.settings.problems if str(p) not in self._told]
        self._told.update(str(p) for p in problems)
        return problems

    async def _tell_problems(self, session: ServerSession | None) -> None:
        """Send each settings problem not yet told as a `notifications/message` warning."""
        if session is None:
            return
        self._session = session
        problems = await anyio.to_thread.run_sync(self._untold_problems)
        for problem in problems:
            await self._send_warning(session, f"planwatch settings: {problem}", "planwatch.settings")

    async def _watch_settings(self) -> None:
        """Re-read a changed settings file about twice a second and tell the client its problems."""
        while True:
            await anyio.sleep(0.5)
            await self._tell_problems(self._session)

    # ------------------------------------------------------------ tools

    async def _list_tools(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        await self._tell_problems(ctx.session)
        return types.ListToolsResult(tools=list_tools())

    async def _call_tool(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        await self._tell_problems(ctx.session)
        result, problems = await anyio.to_thread.run_sync(self.run_call, params.name, params.arguments)
        for problem in problems:
            await self._warn(ctx, f"left out a record that is not valid: {problem}")
        return result

    async def _warn(self, ctx: ServerRequestContext[Any], message: str) -> None:
        await self._send_warning(ctx.session, message, LOGGER)

    async def _send_warning(self, session: ServerSession, message: str, logger: str) -> None:
        """One logging notification (level warning), when the client has not asked for less.
        The SDK's deprecation warning for logging is silenced: it would print the SDK's
        source line on the server's stderr."""
        if _LEVELS.index(self._log_level) > _LEVELS.index("warning"):
            return
        try:
            with warnings.catch_warnings():  # logging is deprecated only at 2026-07-28
                warnings.simplefilter("ignore")
                await session.send_log_message("warning", message, logger=logger)
        except Exception as exc:  # the client went away: nothing to tell
            log.debug("mcp: dropped a warning for the client: %s", exc)

    async def _set_logging_level(
        self, ctx: ServerRequestContext[Any], params: types.SetLevelRequestParams
    ) -> types.EmptyResult:
        self._log_level = params.level
        return types.EmptyResult()

    def call_tool(self, name: str, arguments: Mapping[str, Any] | None) -> types.CallToolResult:
        """Run one tool against the store; every failure becomes an error result."""
        return self.run_call(name, arguments)[0]

    def run_call(self, name: str, arguments: Mapping[str, Any] | None) -> tuple[types.CallToolResult, list[str]]:
        """The call's result, and the broken records it left out (to report beside it)."""
        try:
            settings = self.settings
            caller = self._fixed_caller or caller_from_env(settings, self._env)
            result = run_tool(name, self.channel.store, settings, caller, dict(arguments or {}))
        except ToolRefused as exc:
            return types.CallToolResult(content=_text(exc.message), is_error=True), []
        except StoreError as exc:
            return types.CallToolResult(content=_text(str(exc)), is_error=True), []
        except Exception:  # a bug in a tool must not take the server (and the agent's tools) down
            log.exception("mcp: tool %s failed", name)
            return types.CallToolResult(
                content=_text(f"{name} failed inside planwatch; see its log."), is_error=True
            ), []
        content = _text(result.text())
        if result.notes:
            # Beside the lines, never among them: an agent reads the lines as items.
            content += _text("\n".join(result.notes))
        return types.CallToolResult(content=content), result.problems

    # ------------------------------------------------------------ resources

    async def _list_resource_templates(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        template = types.ResourceTemplate(
            uri_template=PLAN_URI_TEMPLATE,
            name="plan",
            title="Plan channel",
            description="A plan and its tasks as JSON {plan, tasks}; subscribe to hear of every change.",
            mime_type="application/json",
        )
        return types.ListResourceTemplatesResult(resource_templates=[template])

    async def _list_resources(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        settings = self.settings
        caller = self.caller
        root = self.channel.store.root
        if not grants.holds(settings, caller, grants.SESSION_READ, root):
            # The listing names every plan with its title: it needs what reading one needs.
            raise MCPError(
                code=FORBIDDEN,
                message=grants.refusal("resources/list", "listing plans", grants.SESSION_READ, caller, settings, root),
            )
        snap = await anyio.to_thread.run_sync(self.channel.store.load)
        resources = [
            types.Resource(
                uri=f"{PREFIX}{plan.id}",
                name=plan.id,
                title=plan.title,
                description=f"{plan.id} {plan.status} {plan.title}",
                mime_type="application/json",
            )
            for plan in snap.plans_sorted()
        ]
        return types.ListResourcesResult(resources=resources)

    def read_plan(self, uri: str) -> str:
        """The plan channel's state for `uri` as JSON text; raises MCPError when refused."""
        try:
            state, sub = self.channel.subscribe(uri, caller=self.caller)
        except ChannelError as exc:
            raise channel_error(exc, uri) from None
        sub.close()
        return json.dumps(state, ensure_ascii=False)

    async def _read_resource(
        self, ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        uri = str(params.uri)
        text = await anyio.to_thread.run_sync(self.read_plan, uri)
        contents = [types.TextResourceContents(uri=uri, text=text, mime_type="application/json")]
        return types.ReadResourceResult(contents=contents)

    # ------------------------------------------------------------ running

    async def serve(self, read_stream: Any, write_stream: Any) -> None:
        """Serve one connection over the given streams until the client closes it."""
        self.subscriptions.open()
        try:
            self.channel.start()
        except OSError as exc:
            # A store folder that cannot be made (a file where a folder should be, no
            # permission): the server still serves, and each tool answers what is wrong.
            log.warning(
                "the store %s cannot be watched (%s); tools answer with what is wrong",
                self.channel.store.root,
                exc.strerror or exc,
            )
        # The sweep (docs/store.md) looks at the store when the core starts, then every hour.
        sweeper = Sweeper(self.channel.store, self._settings_of)
        sweeper.start()
        # A shared store (docs/sync.md) syncs in the background: one loop per host.
        from planwatch.core.sync.loop import SyncLoop

        syncer = SyncLoop(self.channel.store)
        syncer.start()
        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(self.subscriptions.notify_changes)
                tg.start_soon(self._watch_settings)
                await self.server.run(read_stream, write_stream, self.server.create_initialization_options())
                tg.cancel_scope.cancel()
        finally:
            self.subscriptions.close()
            with anyio.CancelScope(shield=True):  # stop the watcher even when cancelled
                await anyio.to_thread.run_sync(self.channel.stop)
                await anyio.to_thread.run_sync(sweeper.stop)
                await anyio.to_thread.run_sync(syncer.stop)

    async def serve_stdio(self) -> None:
        """Serve over the process's stdin and stdout, every line answered (mcp_wire):
        stdout is a private copy of fd 1 shared under a lock by the SDK's writer and the
        wire's own answers, and fd 1 points at stderr meanwhile, so nothing else printed
        can land on the protocol."""
        import os

        from planwatch.core.agent_protocols.mcp_wire import LockedWriter, WireReader

        saved = os.dup(1)
        os.dup2(2, 1)
        try:
            out_file = open(os.dup(saved), "w", encoding="utf-8", newline="\n")  # noqa: SIM115
            in_file = open(os.dup(0), encoding="utf-8", errors="replace", newline="\n")  # noqa: SIM115
            with out_file, in_file:
                out = LockedWriter(anyio.wrap_file(out_file))
                lines = WireReader(anyio.wrap_file(in_file), out)
                async with stdio_server(stdin=lines, stdout=out) as (read_stream, write_stream):  # type: ignore[arg-type]
                    await self.serve(read_stream, write_stream)
        finally:
            os.dup2(saved, 1)
            os.close(saved)


def list_tools() -> list[types.Tool]:
    """The ten tools as MCP tools; schemas straight from the store's input models."""
    tools = []
    for name in TOOL_NAMES:
        spec = TOOLS[name]
        tools.append(
            types.Tool(
                name=name,
                description=spec.description,
                input_schema=spec.input_schema(),
                annotations=types.ToolAnnotations(
                    read_only_hint=name in READ_ONLY_TOOLS,
                    destructive_hint=False,
                    open_world_hint=False,
                ),
            )
        )
    return tools


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("planwatch")
    except Exception:  # not installed (run from a checkout)
        return "0"
