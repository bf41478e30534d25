"""The app's one store service: one `Store` (one parse cache), one settings
object, one ordered writer, one watcher and the sweeper. The browse screen, the store
view, the settings keeper (tui/app_settings.py, which applies a saved Settings screen
through it) and the mirror (writing through its `Store`) all use it; none builds its
own copy, because two copies would disagree about the same files.

The app builds it and hands it to each screen that shows the store when the screen is
made (`BrowseScreen(app, service)`, `StoreScreen(service)`); the screens subscribe to
its signals rather than being called by the app:
- `changed` (the fresh `StoreSummary`): the store's contents were read again after a write
  made here or one the watcher saw (agents, the CLI, an editor); the one read per change,
  which every screen that shows the store paints from;
- `settings_changed` (the new `Settings`): a save applied, so a rule such as *Require
  approval* holds for every screen at once;
- `sync_changed` (a `SyncStatus`, also kept as `sync_status`): a shared store's
  background sync passed, found the remote unmoved, or could not reach it.

Threads: the watcher, the writer and the sync loop never touch the UI. Each hands
what it has to the service on the UI thread as a callback on the app's queue
(`App.call_later`, safe from any thread), so the owner has nothing to forward: a
change on disk asks for one read in a worker (a burst of changes asked before the
read began is one read), a fresh read is kept and `changed` published, and the sync
loop's latest status is kept and `sync_changed` published.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.app import App
from textual.signal import Signal

from planwatch.core.settings import Settings
from planwatch.core.store.approvals import approvals_of
from planwatch.core.store.errors import StoreError
from planwatch.core.store.identity import Caller, caller_from_env
from planwatch.core.store.schema import PlanRecord, TaskRecord
from planwatch.core.store.session_todos import open_counts
from planwatch.core.store.snapshot import StoreSnapshot
from planwatch.core.store.store import Store
from planwatch.core.store.team import team_of
from planwatch.core.store.tool_refusals import ToolRefused
from planwatch.core.store.tools import run_tool
from planwatch.core.sync.contests import read_contests
from planwatch.core.text import safe_text
from planwatch.tui.messages import StoreSummary

if TYPE_CHECKING:
    from planwatch.core.store.sweep import Sweeper
    from planwatch.core.store.watch import StoreWatcher
    from planwatch.core.sync.loop import SyncLoop, SyncStatus

log = logging.getLogger(__name__)

Answered = Callable[[str, bool], None]
"""Called on the writer thread with a tool's answer and whether it was refused."""


def _uncounted(store: Store, snapshot: StoreSnapshot) -> frozenset[str]:
    """The ids of the records in `snapshot` whose approved stamp does not count: the
    host's ledger of approvals is a file (read again when it changed), so this is asked
    in the thread that read the store, never while a table is filled."""
    records: list[TaskRecord | PlanRecord] = [*snapshot.tasks.values(), *snapshot.plans.values()]
    approved = [rec for rec in records if rec.approved is not None]
    try:
        ledger = approvals_of(store)
        return frozenset(rec.id for rec in approved if not ledger.counts(rec))
    except Exception:  # noqa: BLE001 - whatever the ledger's reading raised: no approval counts (fail closed)
        return frozenset(rec.id for rec in approved)


class StoreService:
    """The store, the settings and the one writer the app and every screen share."""

    def __init__(
        self,
        app: App[None],
        root: Path,
        settings: Settings,
        *,
        clock: Callable[[], datetime] | None = None,
        caller: Caller | None = None,
    ) -> None:
        self.app = app
        self.root = root
        # Touches the disk only when used.
        self.store = Store(root)
        self.clock = clock
        self._settings = settings
        self._caller = caller
        self.summary = StoreSummary()
        self.changed: Signal[StoreSummary] = Signal(app, "store-changed")
        self.settings_changed: Signal[Settings] = Signal(app, "settings-changed")
        self.sync_changed: Signal[SyncStatus] = Signal(app, "sync-changed")
        self.sync_status: SyncStatus | None = None  # once a shared store's loop said one
        # One writer thread for every tool call: off the UI thread, in the order asked,
        # so a tick and its undo land in that order whichever screen made them.
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="planwatch-store-write")
        self._watcher: StoreWatcher | None = None
        self._sweeper: Sweeper | None = None
        self.syncer: SyncLoop | None = None
        # What the threads have handed over and the UI thread has not taken yet: a read
        # asked for (one for a burst of changes), the sync loop's latest status.
        self._handoff_lock = threading.Lock()
        self._read_asked = False
        self._status_waiting: SyncStatus | None = None

    # -- what screens read

    @property
    def settings(self) -> Settings:
        return self._settings

    @property
    def caller(self) -> Caller:
        """Who the app's tool calls are made as (the environment and the settings)."""
        return self._caller if self._caller is not None else caller_from_env(self._settings)

    @property
    def watching(self) -> bool:
        """Whether the watcher runs (other writers' changes show live)."""
        return self._watcher is not None and bool(self._watcher.running)

    def apply_settings(self, settings: Settings) -> None:
        """Use `settings` from now on, for every screen and call (UI thread)."""
        self._settings = settings
        self.settings_changed.publish(settings)

    # -- life cycle (the owning app's mount and unmount)

    def start(self, *, watch: bool) -> None:
        """Watch the store folder for other writers and sweep it (docs/store.md, The sweep: when the
        core starts, then every hour); `watch=False` (snapshots) runs neither."""
        if not watch:
            return
        from planwatch.core.store.sweep import Sweeper
        from planwatch.core.store.watch import StoreWatcher

        try:
            watcher = StoreWatcher(self.root, self._changed_on_disk)
            watcher.start()
            self._watcher = watcher
        except Exception as exc:  # a store that cannot be watched still reads on demand
            log.warning("cannot watch the store at %s: %s", self.root, exc)
            self._watcher = None
        self._sweeper = Sweeper(self.store, lambda: self._settings)
        self._sweeper.start()
        from planwatch.core.sync.loop import SyncLoop

        # A shared store syncs in the background (docs/sync.md); the loop's thread hands
        # over how it stands, and the status line says it.
        self.syncer = SyncLoop(self.store, on_status=self._sync_status_on_thread)
        self.syncer.start()

    def stop(self) -> None:
        """Stop watching and sweeping; let the writes already asked for land."""
        watcher, self._watcher = self._watcher, None
        if watcher is not None:
            watcher.stop()
        sweeper, self._sweeper = self._sweeper, None
        if sweeper is not None:
            sweeper.stop()
        syncer, self.syncer = self.syncer, None
        if syncer is not None:
            syncer.stop()
        self._writer.shutdown(wait=True)

    def _changed_on_disk(self) -> None:
        # The watcher's thread: a read already asked for and not begun reads this change
        # too, so a burst of writes becomes one read.
        with self._handoff_lock:
            if self._read_asked:
                return
            self._read_asked = True
        self.app.call_later(self._read_after_change)

    def _read_after_change(self) -> None:
        with self._handoff_lock:
            self._read_asked = False
        self.reload()

    # -- reading

    def read_summary(self) -> StoreSummary:
        """A StoreSummary from one read of the store; never raises (the error is shown).
        Blocking: call it from a worker thread."""
        root = self.store.root
        try:
            # A file where the folder should be reads as a store of two problems; the
            # store view says instead that the store cannot be read.
            not_a_folder = root.exists() and not root.is_dir()
            snapshot = self.store.load()
        except Exception as exc:  # an unreadable folder: say so, keep every screen usable
            return StoreSummary(
                error=f"The store at {self.root} cannot be read: {exc}",
                unreadable=f"The store at {safe_text(str(root))} cannot be read: {exc}",
            )
        by_session: dict[str, list[TaskRecord]] = {}
        for task in snapshot.tasks_sorted():
            # Tasks the opt-in translation wrote carry a `source`; they are the agent's
            # plan, already shown above, not the person's own items.
            if task.session and task.source is None:
                by_session.setdefault(task.session, []).append(task)
        summary = StoreSummary(
            tasks_by_session=by_session,
            open_counts=open_counts(snapshot),
            problems=[str(problem) for problem in snapshot.problems],
        )
        if not_a_folder:
            summary.unreadable = f"The store at {safe_text(str(root))} cannot be read: it is a file, not a folder"
            return summary
        summary.snapshot = snapshot
        # A shared store's contested records, as its last sync pass left them (docs/sync.md).
        summary.contests = read_contests(root) if (root / ".sync").is_dir() else {}
        summary.uncounted = _uncounted(self.store, snapshot)
        # A shared store's team policy may require approval whatever this host's settings say.
        team = team_of(root)
        summary.require_approval = bool(team and team["requireApproval"])
        return summary

    def reload(self) -> None:
        """Read the store again off the UI thread; `changed` is published once it is in."""
        self.app.run_worker(self._reload, thread=True, exclusive=True, group="store-read", exit_on_error=False)

    def _reload(self) -> None:
        self.app.call_later(self.loaded, self.read_summary())

    def loaded(self, summary: StoreSummary) -> None:
        """Keep a fresh read and tell every subscriber (UI thread)."""
        self.summary = summary
        self.changed.publish(summary)

    def _sync_status_on_thread(self, status: SyncStatus) -> None:
        # The loop's thread: only the latest status not yet taken is kept.
        with self._handoff_lock:
            first = self._status_waiting is None
            self._status_waiting = status
        if first:
            self.app.call_later(self._take_sync_status)

    def _take_sync_status(self) -> None:
        with self._handoff_lock:
            status, self._status_waiting = self._status_waiting, None
        if status is not None:
            self.sync_reported(status)

    def sync_reported(self, status: SyncStatus) -> None:
        """Keep how the shared store's sync stands and tell every subscriber (UI thread)."""
        self.sync_status = status
        self.sync_changed.publish(status)

    # -- writing

    def call(self, tool: str, payload: dict[str, Any]) -> tuple[str, bool]:
        """Call a store tool (the same `run_tool` as the CLI and MCP) now, on this thread;
        (answer, refused). Refusals and failed writes come back as their sentence."""
        try:
            result = run_tool(tool, self.store, self._settings, self.caller, payload, now=self.clock)
        except ToolRefused as exc:
            return exc.message, True
        except (StoreError, OSError) as exc:
            return str(exc), True
        except Exception as exc:  # a bug must not kill the writer thread
            log.exception("the store tool %s failed", tool)
            return str(exc), True
        # An approval the call withdrew is said with the answer (the app shows it whole).
        return "\n".join([result.text(), *result.notes]).strip("\n"), False

    def submit(self, tool: str, payload: dict[str, Any], answered: Answered | None = None) -> Future[tuple[str, bool]]:
        """Queue a tool call on the one writer; the future holds (answer, refused).
        `answered(answer, refused)` runs on the writer thread (post a message from it).
        The store is read again after the call, before the future is done."""
        args = dict(payload)

        def run() -> tuple[str, bool]:
            answer, refused = self.call(tool, args)
            if answered is not None:
                answered(answer, refused)
            self.app.call_later(self.loaded, self.read_summary())
            return answer, refused

        return self._writer.submit(run)

    def drained(self) -> Future[None]:
        """Done once every call queued so far has landed."""
        return self._writer.submit(lambda: None)
