"""The plan channel's subscriptions over MCP: who listens to which plan, and telling them.

Why a module of its own: subscriptions have their own life — shared channel watches
counted per URI, the legacy `resources/subscribe` and the 2026-07-28
`subscriptions/listen` streams, changes crossing from the channel's watcher thread to
the event loop and coalesced per burst — that changes with the MCP protocol's
notification side, apart from the server's set-up and its tools and resources
(core/agent_protocols/mcp.py).

- `PlanSubscriptions(channel, caller)`: `open()` on the event loop before serving,
  `notify_changes()` run as a task while serving, `close()` after; the request handlers
  `subscribe`, `unsubscribe` and `listen`.
- `channel_error(exc, uri)`: a channel refusal as the MCP error the client sees.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import anyio
import anyio.from_thread
import anyio.lowlevel
import anyio.to_thread
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.server import ServerRequestContext
from mcp.server.session import ServerSession
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ResourceUpdated
from mcp.shared.exceptions import MCPError

from planwatch.core.store.channel import Channel, ChannelError, Subscription
from planwatch.core.store.identity import Caller

__all__ = ["PlanSubscriptions", "channel_error"]

log = logging.getLogger(__name__)


def channel_error(exc: ChannelError, uri: str) -> MCPError:
    # The channel's own code and sentence (-32001 `Resource not found: <uri>`, -32003 …).
    return MCPError(code=exc.code, message=exc.message, data={"uri": uri})


@dataclass
class _Watch:
    """One channel subscription per URI, shared by everyone who listens to it."""

    subscription: Subscription
    holders: int = 0


class PlanSubscriptions:
    """Every subscription of the one connection a server serves, legacy and listen streams."""

    def __init__(self, channel: Channel, caller: Callable[[], Caller]) -> None:
        """`caller`: who is behind the requests now (checked by the channel on each subscribe)."""
        self.channel = channel
        self._caller = caller
        self.bus = InMemorySubscriptionBus()
        self._listen = ListenHandler(self.bus)
        self._watches: dict[str, _Watch] = {}
        self._lock = threading.Lock()  # guards _watches (held from worker threads and the loop)
        # Legacy (`resources/subscribe`) subscriptions of the one connection `serve` runs.
        # The SDK hands each request a fresh ServerSession, so subscriptions are kept by
        # URI, and notifications go through the latest session (all of them send on the
        # same connection-wide channel).
        self._legacy_uris: set[str] = set()
        # The URIs whose latest request was a subscribe (set before the subscribe waits).
        self._legacy_wanted: set[str] = set()
        self._legacy_session: ServerSession | None = None
        # Changed URIs cross from the channel's watcher thread to the event loop here.
        # Memory streams (not the abstract ObjectSendStream/ObjectReceiveStream): the
        # watcher thread and the burst loop use their send_nowait/receive_nowait.
        self._changed_send: MemoryObjectSendStream[str] | None = None
        self._changed_recv: MemoryObjectReceiveStream[str] | None = None
        self._token: anyio.lowlevel.EventLoopToken | None = None

    def open(self) -> None:
        """Ready to hand changes to this event loop (call on the loop, before serving)."""
        self._changed_send, self._changed_recv = anyio.create_memory_object_stream[str](1024)
        self._token = anyio.lowlevel.current_token()

    def close(self) -> None:
        """No more changes cross to the loop; open listen streams end."""
        self._token = None
        self._listen.close()

    # Lock order: `self._lock` is never held while calling into the channel. The
    # channel's watcher thread holds the channel's lock while it hands a change to the
    # event loop (and waits for it), so the loop must never wait for the channel's lock
    # either: closing a channel subscription happens on a worker thread.

    def hold(self, uri: str) -> None:
        """Start (or share) the channel subscription behind `uri` (worker thread); raises MCPError."""
        with self._lock:
            watch = self._watches.get(uri)
            if watch is not None:
                watch.holders += 1
                return

        def changed(_action: dict[str, Any]) -> None:
            self._changed_from_thread(uri)

        try:
            _state, sub = self.channel.subscribe(uri, changed, caller=self._caller())
        except ChannelError as exc:
            raise channel_error(exc, uri) from None
        with self._lock:
            watch = self._watches.get(uri)
            if watch is None:
                self._watches[uri] = _Watch(sub, holders=1)
                return
            watch.holders += 1
        sub.close()  # another caller started the same URI meanwhile; share theirs

    async def release(self, uri: str) -> None:
        with self._lock:
            watch = self._watches.get(uri)
            if watch is None:
                return
            watch.holders -= 1
            if watch.holders > 0:
                return
            del self._watches[uri]
        with anyio.CancelScope(shield=True):  # also runs while a listen stream is cancelled
            await anyio.to_thread.run_sync(watch.subscription.close)

    async def subscribe(
        self, ctx: ServerRequestContext[Any], params: types.SubscribeRequestParams
    ) -> types.EmptyResult:
        uri = str(params.uri)
        self._legacy_session = ctx.session
        # What the client asked for last, noted before any wait: an unsubscribe sent
        # right behind this subscribe runs while the channel is still being asked, and
        # must win when it comes last.
        self._legacy_wanted.add(uri)
        if uri in self._legacy_uris:
            return types.EmptyResult()  # subscribing twice is one subscription
        try:
            await anyio.to_thread.run_sync(self.hold, uri)
        except BaseException:
            self._legacy_wanted.discard(uri)
            raise
        if uri in self._legacy_uris or uri not in self._legacy_wanted:
            # The same subscribe raced in meanwhile, or an unsubscribe came after this.
            await self.release(uri)
            return types.EmptyResult()
        self._legacy_uris.add(uri)
        return types.EmptyResult()

    async def unsubscribe(
        self, ctx: ServerRequestContext[Any], params: types.UnsubscribeRequestParams
    ) -> types.EmptyResult:
        uri = str(params.uri)
        self._legacy_wanted.discard(uri)
        if uri in self._legacy_uris:
            self._legacy_uris.discard(uri)
            await self.release(uri)
        return types.EmptyResult()

    async def listen(
        self, ctx: ServerRequestContext[Any], params: types.SubscriptionsListenRequestParams
    ) -> types.SubscriptionsListenResult:
        """A 2026-07-28 listen stream: check and hold its plan URIs while it is open."""
        uris = list(dict.fromkeys(params.notifications.resource_subscriptions or ()))
        held: list[str] = []
        try:
            for uri in uris:
                await anyio.to_thread.run_sync(self.hold, uri)
                held.append(uri)
            return await self._listen(ctx, params)
        finally:
            for uri in held:
                await self.release(uri)

    def _changed_from_thread(self, uri: str) -> None:
        """Channel callback (watcher thread): hand the URI to the event loop, never block long."""
        send, token = self._changed_send, self._token
        if send is None or token is None:
            return
        try:
            anyio.from_thread.run_sync(send.send_nowait, uri, token=token)
        except (anyio.WouldBlock, anyio.ClosedResourceError, anyio.BrokenResourceError, RuntimeError):
            # Buffer full (one notification per URI is pending anyway) or shutting down.
            pass

    async def notify_changes(self) -> None:
        """Send `notifications/resources/updated` once per changed URI per burst."""
        assert self._changed_recv is not None
        async for uri in self._changed_recv:
            pending = {uri}
            while True:  # a burst of actions (taskSet, taskAdded …) is one change to the reader
                try:
                    pending.add(self._changed_recv.receive_nowait())
                except (anyio.WouldBlock, anyio.EndOfStream):
                    break
            for changed in sorted(pending):
                await self.bus.publish(ResourceUpdated(uri=changed))
                session = self._legacy_session
                if session is not None and changed in self._legacy_uris:
                    try:
                        await session.send_resource_updated(changed)
                    except Exception as exc:  # the client went away: nothing to tell
                        log.debug("mcp: dropped resources/updated for %s: %s", changed, exc)
