"""The plan channel `x-ahpd-plans://<plan id>` (docs/store.md, What clients see): a live, read-only plan feed.

Subscribing answers the plan's state, `{"plan": {...}, "tasks": [...]}` (the records
as `record_mapping.task_json`/`plan_json` give them, stamps included), then one action per
change, each exactly `{type, <its one payload key>}`:

- `{"type": "x-ahpd-plans/taskAdded", "task": {...}}` — a task now names the plan;
- `{"type": "x-ahpd-plans/taskSet", "task": {...}}` — one of its tasks changed;
- `{"type": "x-ahpd-plans/taskRemoved", "taskId": "t3"}` — a task left (deleted, moved
  to another plan, or no longer a valid record), with the id it had;
- `{"type": "x-ahpd-plans/set", "plan": {...}}` — the plan record changed (`plan` is
  None while the plan's file is missing or not a valid record).

Changes are found by watching the store folder (core.store.watch) and diffing the
parsed records against what each subscriber last saw, so every writer produces them:
the tools, a translation, another process, an editor (in place, or temp file and
rename), a file deleted by hand. A burst of filesystem events gives one diff.

An unknown URI or plan is refused with `ChannelError(-32001, "Resource not found: <uri>")`.
Under a user directory, subscribing needs the `session:read` grant. There is no write
API: clients change the store through the tools.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from planwatch.core.settings import Settings
from planwatch.core.store import grants
from planwatch.core.store.identity import Caller, caller_from_env
from planwatch.core.store.record_mapping import plan_json, task_json
from planwatch.core.store.schema import id_number, is_plan_id
from planwatch.core.store.snapshot import StoreSnapshot
from planwatch.core.store.store import Store
from planwatch.core.store.watch import StoreWatcher

log = logging.getLogger(__name__)

SCHEME = "x-ahpd-plans"
PREFIX = f"{SCHEME}://"
TASK_ADDED = f"{SCHEME}/taskAdded"
TASK_SET = f"{SCHEME}/taskSet"
TASK_REMOVED = f"{SCHEME}/taskRemoved"
PLAN_SET = f"{SCHEME}/set"

NOT_FOUND = -32001
FORBIDDEN = -32003

Action = dict[str, Any]
ActionCallback = Callable[[Action], None]


class ChannelError(Exception):
    """A refused subscription, shaped like a JSON-RPC error (`code`, `message`)."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message}


def plan_uri(plan_id: str) -> str:
    return f"{PREFIX}{plan_id}"


def plan_id_of(uri: str) -> str | None:
    """`x-ahpd-plans://p3` → `p3`; None for any other URI."""
    if not isinstance(uri, str) or not uri.startswith(PREFIX):
        return None
    rest = uri[len(PREFIX) :].rstrip("/")
    return rest if is_plan_id(rest) else None


class _PlanSeen:
    """What one subscriber knows of its plan: the plan's JSON and its tasks' JSON by id."""

    __slots__ = ("plan", "tasks")

    def __init__(self, plan: dict[str, Any] | None, tasks: dict[str, dict[str, Any]]) -> None:
        self.plan = plan
        self.tasks = tasks

    @classmethod
    def of(cls, snap: StoreSnapshot, plan_id: str) -> _PlanSeen:
        plan = snap.plans.get(plan_id)
        tasks = {t.id: task_json(t) for t in snap.tasks.values() if t.plan == plan_id}
        return cls(plan_json(plan) if plan is not None else None, tasks)

    def state(self) -> dict[str, Any]:
        return {"plan": self.plan, "tasks": [self.tasks[k] for k in sorted(self.tasks, key=id_number)]}


def diff_seen(old: _PlanSeen, new: _PlanSeen) -> list[Action]:
    """The actions that bring a subscriber from `old` to `new`, in a stable order."""
    actions: list[Action] = []
    if old.plan != new.plan:
        actions.append({"type": PLAN_SET, "plan": new.plan})
    for task_id in sorted(old.tasks.keys() - new.tasks.keys(), key=id_number):
        actions.append({"type": TASK_REMOVED, "taskId": task_id})
    for task_id in sorted(new.tasks.keys() - old.tasks.keys(), key=id_number):
        actions.append({"type": TASK_ADDED, "task": new.tasks[task_id]})
    for task_id in sorted(new.tasks.keys() & old.tasks.keys(), key=id_number):
        if new.tasks[task_id] != old.tasks[task_id]:
            actions.append({"type": TASK_SET, "task": new.tasks[task_id]})
    return actions


_CLOSED = object()


class Subscription:
    """One client's feed of one plan: read actions with `get()` / iteration, or a callback.

    With a callback, actions are handed to it on the watcher thread (keep it quick) and
    not queued.
    """

    def __init__(
        self,
        channel: Channel,
        uri: str,
        plan_id: str,
        seen: _PlanSeen,
        callback: ActionCallback | None,
        caller: Caller | None = None,
    ) -> None:
        self.uri = uri
        self.plan_id = plan_id
        self.caller = caller
        """Who subscribed: each change is sent only while they still hold session:read."""
        self._channel = channel
        self._seen = seen
        self._callback = callback
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._closed = False

    @property
    def closed(self) -> bool:
        return self._closed

    def get(self, timeout: float | None = None) -> Action | None:
        """The next action; None on timeout or once the subscription is closed."""
        if self._closed and self._queue.empty():
            return None
        try:
            item = self._queue.get(timeout=timeout)
        except queue.Empty:
            return None
        if item is _CLOSED:
            self._queue.put(_CLOSED)  # wake any other reader too
            return None
        return item  # type: ignore[no-any-return]

    def __iter__(self) -> Iterator[Action]:
        """Every action until the subscription is closed."""
        while True:
            action = self.get()
            if action is None:
                return
            yield action

    def close(self) -> None:
        """Stop receiving actions; safe to call twice."""
        self._channel._unsubscribe(self)

    def _mark_closed(self) -> None:
        if not self._closed:
            self._closed = True
            self._queue.put(_CLOSED)

    def _deliver(self, actions: list[Action]) -> None:
        for action in actions:
            if self._callback is not None:
                try:
                    self._callback(action)
                except Exception:  # a client's bug must not stop the feed of others
                    log.exception("plan channel: subscriber callback failed for %s", self.uri)
            else:
                self._queue.put(action)

    def __enter__(self) -> Subscription:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Channel:
    """The plan channel over one store folder. Thread-safe.

    `start()` starts the folder watcher (subscribe starts it too); `stop()` stops it,
    joins its threads, and closes every subscription. `caller` is who subscribes when
    `subscribe` is not told (default: from the environment, as the CLI and MCP do).
    """

    def __init__(
        self,
        store_root: Path | str,
        *,
        settings: Settings | Callable[[], Settings] | None = None,
        caller: Caller | None = None,
        polling: bool = False,
        # Long enough that an editor's truncate-then-write is one change, not a removal
        # followed by an addition; short enough to feel live.
        settle: float = 0.1,
    ) -> None:
        self._store = Store(store_root)
        # A callable (core.settings.LiveSettings) is asked on every check, so a changed
        # user directory applies at once.
        self._settings_of: Callable[[], Settings]
        if isinstance(settings, Settings) or settings is None:
            fixed = settings or Settings()
            self._settings_of = lambda: fixed
        else:
            self._settings_of = settings
        self._caller = caller
        self._lock = threading.RLock()
        self._subs: list[Subscription] = []
        self._known_problems: set[str] = set()
        self._watcher = StoreWatcher(self._store.root, self.refresh, settle=settle, polling=polling)

    @property
    def store(self) -> Store:
        """The store the channel reads (for the MCP server's tools: writes go through them)."""
        return self._store

    @property
    def settings(self) -> Settings:
        return self._settings_of()

    # -- life

    def start(self) -> None:
        with self._lock:
            self._watcher.start()

    def stop(self) -> None:
        self._watcher.stop()
        with self._lock:
            subs, self._subs = self._subs, []
        for sub in subs:
            sub._mark_closed()

    def __enter__(self) -> Channel:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- subscribing

    def subscribe(
        self, uri: str, callback: ActionCallback | None = None, *, caller: Caller | None = None
    ) -> tuple[dict[str, Any], Subscription]:
        """Answer the plan's state and a subscription to its changes.

        Raises `ChannelError` (-32001) for a URI naming no plan, and (-32003) when a
        user directory is set and the caller lacks the `session:read` grant.
        """
        plan_id = plan_id_of(uri)
        if plan_id is None:
            raise ChannelError(NOT_FOUND, f"Resource not found: {uri}")
        settings = self._settings_of()
        who = caller or self._caller or caller_from_env(settings)
        root = self._store.root
        if not grants.holds(settings, who, grants.SESSION_READ, root):
            raise ChannelError(FORBIDDEN, grants.refusal(uri, "reading it", grants.SESSION_READ, who, settings, root))
        if self._store.read_plan(plan_id) is None:
            # Checked before the watcher starts, so a refused URI leaves no trace on disk.
            raise ChannelError(NOT_FOUND, f"Resource not found: {uri}")
        # The watcher runs before the state is read, so no change can fall in between.
        self.start()
        with self._lock:
            snap = self._load()
            if plan_id not in snap.plans:
                raise ChannelError(NOT_FOUND, f"Resource not found: {uri}")
            seen = _PlanSeen.of(snap, plan_id)
            sub = Subscription(self, uri, plan_id, seen, callback, who)
            self._subs.append(sub)
            return seen.state(), sub

    def _unsubscribe(self, sub: Subscription) -> None:
        with self._lock:
            if sub in self._subs:
                self._subs.remove(sub)
        sub._mark_closed()

    # -- changes

    def refresh(self) -> None:
        """Re-read the store and send each subscriber what changed (the watcher calls this)."""
        with self._lock:
            if not self._subs:
                return
            snap = self._load()
            settings = self._settings_of()
            for sub in list(self._subs):
                new = _PlanSeen.of(snap, sub.plan_id)
                actions = diff_seen(sub._seen, new)
                sub._seen = new
                if sub.caller is not None and not grants.holds(
                    settings, sub.caller, grants.SESSION_READ, self._store.root
                ):
                    continue  # the grant was taken away since they subscribed
                if actions:
                    sub._deliver(actions)

    def _load(self) -> StoreSnapshot:
        snap = self._store.load()
        # Invalid records are left out of the feed; each is reported once, not per burst.
        messages = {p.message for p in snap.problems}
        for message in sorted(messages - self._known_problems):
            log.warning("plan channel: left out a record that is not valid: %s", message)
        self._known_problems = messages
        return snap
