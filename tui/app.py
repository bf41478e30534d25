"""The planwatch app: `make_app(...)` and the App that wires core to the screens.

One factory serves the CLI, the Pilot tests, the snapshot tests and the screenshot
script. Everything that touches the host is injectable: the session source (index), the
store root, the settings file, the state folder (overrides), the clock, and whether the
follower threads run at all (snapshots run without them).

The app owns the live state the screens show: the index, the store view, the overrides
and the in-memory timeline of plan changes. Screens read it (attributes down) and ask
for writes through methods here, which run the IO in thread workers.
"""

from __future__ import annotations

import argparse
import logging
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from pathlib import Path
from typing import Any

from textual import on, work
from textual.app import App
from textual.binding import Binding

from core import paths
from core.checklist import Checklist, OverrideStatus, build_checklist
from core.model import EMPTY_PLAN, AgentPlan
from core.overrides import FILE_NAME as OVERRIDES_FILE
from core.overrides import Overrides
from core.settings import LiveSettings, Settings, load_settings
from tui.commands import PlanwatchCommands, bindings
from tui.live import LiveFeed
from tui.messages import (
    FollowingStarted,
    OwnItemsChanged,
    ScanFinished,
    SessionsChanged,
    SettingsSaved,
    StoreChanged,
    StoreLoaded,
    StoreView,
)
from tui.options import AppOptions, options_from_args
from tui.palette import readable_variables
from tui.widgets.details import TimelineEntry

log = logging.getLogger(__name__)

TIMELINE_LENGTH = 50
# How often the list repaints while the first scan is still filling it (seconds).
SCAN_REPAINT_EVERY = 0.4


def make_app(args_or_options: argparse.Namespace | AppOptions | None = None) -> PlanwatchApp:
    """The one factory: from CLI arguments, from AppOptions, or the defaults."""
    if args_or_options is None:
        options = AppOptions()
    elif isinstance(args_or_options, AppOptions):
        options = args_or_options
    else:
        options = options_from_args(args_or_options)
    return PlanwatchApp(options)


def _default_index(roots: list[Path], read_plans: bool) -> Any:
    from core.index import SessionIndex

    return SessionIndex(roots, read_plans=read_plans)


def _default_roots(settings: Settings, extra: list[Path]) -> list[Path]:
    from core.index import default_roots

    return list(default_roots(settings, extra))


class PlanwatchApp(App[None]):
    """Browse sessions, tick checklists, follow an agent in a side pane."""

    TITLE = "planwatch"
    CSS_PATH = "app.tcss"
    BINDINGS = [*bindings("app"), Binding("ctrl+c", "quit", "Quit", show=False, priority=True)]
    COMMANDS = App.COMMANDS | {PlanwatchCommands}

    def __init__(self, options: AppOptions) -> None:
        super().__init__()
        self.options = options
        self.config_path = options.config_path or paths.config_file()
        # Problems in the settings file show as a banner in the app, not on stderr.
        self.settings: Settings = load_settings(self.config_path, report=False)
        self._live_settings = LiveSettings(self.config_path, report=False, initial=self.settings)
        self._live_seen = self.settings
        self._shown_problems: tuple[str, ...] = ()
        self.clock = options.clock
        self.store_root = options.store_root or paths.store_dir(self.settings.store)
        state = options.state_dir or paths.state_dir()
        self.overrides = Overrides(state / OVERRIDES_FILE)
        if options.index is not None:
            self.index = options.index
        else:
            roots = options.roots
            if roots is None:
                roots = _default_roots(self.settings, options.extra_roots)
            self.index = _default_index(roots, self.settings.read_agent_plans)
        self.store_view = StoreView()
        self.scan_done: ScanFinished | None = None
        # True once the index follows the transcript folders (appends show live).
        self.following = False
        self.timelines: dict[str, deque[TimelineEntry]] = {}
        self._plans: dict[str, AgentPlan] = {}
        self._pending_ids: set[str] = set()
        self._flush_timer: Any = None
        self._flushed_once = False
        from core.mirror import Mirror
        from core.store.records import Store

        # Neither touches the disk until used (the mirror not at all while it is off).
        self._store = Store(self.store_root)
        self._mirror = Mirror(self._store, lambda: self.settings)
        # One writer thread for store tools: off the UI thread, in the order asked.
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="planwatch-store-write")
        self.feed = LiveFeed(self, self.index, self.store_root, follow=options.follow, scan=options.scan)

    # -- life cycle

    def on_mount(self) -> None:
        from tui.screens.browse import BrowseScreen

        self.push_screen(BrowseScreen())
        self._show_settings_problems(self.settings)
        # A changed settings file (a revoked user, a fixed typo) applies within a second.
        self.set_interval(1.0, self._check_settings, name="settings-watch")
        self.feed.start()
        self.load_store()
        if not self.options.scan:
            self._remember_plans([entry.session.id for entry in self.index.entries()], record=False)

    def on_unmount(self) -> None:
        self.feed.stop()
        # Let writes already asked for finish: a tick made just before quitting counts.
        self._writer.shutdown(wait=True)

    def get_css_variables(self) -> dict[str, str]:
        """The theme's variables, with the text colours the rows use made readable on
        this theme's backgrounds and cursor (tui.palette)."""
        variables = super().get_css_variables()
        variables.update(readable_variables(variables))
        self.theme_variables = variables
        return variables

    # -- what the screens read

    @property
    def reading(self) -> bool:
        return self.settings.read_agent_plans

    def now(self) -> datetime:
        return self.clock()

    def entries(self) -> list[Any]:
        return list(self.index.entries())

    def entry(self, session_id: str) -> Any | None:
        return self.index.get(session_id)

    def own_tasks(self, session_id: str) -> list[Any]:
        return self.store_view.tasks_by_session.get(session_id, [])

    def checklist_for(self, session_id: str) -> Checklist:
        entry = self.entry(session_id)
        plan = entry.plan if entry is not None and self.reading and entry.plan is not None else EMPTY_PLAN
        return build_checklist(plan, self.overrides.for_session(session_id), self.own_tasks(session_id))

    def timeline(self, session_id: str) -> list[TimelineEntry]:
        return list(self.timelines.get(session_id, ()))

    @property
    def browse(self) -> Any:
        from tui.screens.browse import BrowseScreen

        # Data can still arrive while the app shuts down (a store read finishing as a
        # person quits): a screen being torn down has lost its widgets, so it gets none.
        if self._exit or self._closing:
            return None
        for screen in self.screen_stack:
            if isinstance(screen, BrowseScreen):
                return screen if screen.is_attached and not screen._closing else None
        return None

    # -- live updates

    @on(SessionsChanged)
    def _sessions_changed(self) -> None:
        changed = self.feed.take_changed()
        if not changed:
            return
        self._remember_plans(sorted(changed), record=self.scan_done is not None)
        self._pending_ids |= changed
        if self.scan_done is None and self._flushed_once:
            # While the first scan fills the list, repaint it a few times a second rather
            # than per batch: each repaint of a long list competes with the scan thread.
            if self._flush_timer is None:
                self._flush_timer = self.set_timer(SCAN_REPAINT_EVERY, self._flush_changes)
            return
        self._flush_changes()

    def _flush_changes(self) -> None:
        self._flush_timer = None
        changed, self._pending_ids = self._pending_ids, set()
        if changed and self.browse is not None:
            self._flushed_once = True
            self.browse.sessions_changed(changed)

    def _remember_plans(self, ids: list[str], *, record: bool) -> None:
        """Keep each session's last plan to note what changed in its timeline (memory only)
        and hand changed plans to the opt-in mirror."""
        mirrored: list[tuple[Any, AgentPlan]] = []
        for session_id in ids:
            entry = self.entry(session_id)
            if entry is None:
                continue
            plan = entry.plan or EMPTY_PLAN
            before = self._plans.get(session_id)
            self._plans[session_id] = plan
            if before is None and not record:
                continue
            if before is not None and before == plan:
                continue
            if record or before is not None:
                what = describe_change(before, plan)
                if what:
                    line = self.timelines.setdefault(session_id, deque(maxlen=TIMELINE_LENGTH))
                    line.append(TimelineEntry(self.now(), what))
            mirrored.append((entry.session, plan))
        if mirrored and self.settings.keep_plans_in_store and self.reading:
            self.mirror(mirrored)

    @on(ScanFinished)
    def _scan_finished(self, event: ScanFinished) -> None:
        self.scan_done = event
        if self._flush_timer is not None:
            self._flush_timer.stop()
        self._flush_changes()
        # Changes seen from here on are the session's timeline; the first read is not a change.
        for entry in self.entries():
            self._plans.setdefault(entry.session.id, entry.plan or EMPTY_PLAN)
        # With the opt-in on, every session's list is kept in the store (SPEC §5), not
        # only those that change while the app runs (idempotent: unchanged lists write nothing).
        if self.settings.keep_plans_in_store and self.reading:
            self.mirror([(e.session, e.plan) for e in self.entries() if e.plan is not None and e.plan.groups])
        if self.browse is not None:
            self.browse.scan_finished(event)
        for problem in event.problems:  # said once; the other harnesses are read
            self.notify(f"Skipped {problem}", severity="warning", markup=False, timeout=10)

    @on(FollowingStarted)
    def _following_started(self) -> None:
        self.following = True

    @on(StoreChanged)
    def _store_changed(self) -> None:
        self.load_store()
        # An open store view reads its own (filtered) table; the feed's watcher is the one
        # watching the folder, so the view hears of other writers from here.
        from tui.screens.store import StoreScreen

        for screen in self.screen_stack:
            if isinstance(screen, StoreScreen) and screen.is_mounted:
                screen.reload()

    @work(thread=True, exclusive=True, group="store-read", exit_on_error=False)
    def load_store(self) -> None:
        """Read the store off the UI thread; StoreLoaded carries the result."""
        self.post_message(StoreLoaded(read_store_view(self._store)))

    @on(StoreLoaded)
    def _store_loaded(self, event: StoreLoaded) -> None:
        self.store_view = event.view
        if self.browse is not None:
            self.browse.store_changed()

    # -- writes (all IO in thread workers)

    def set_override(self, session_id: str, key: str, status: OverrideStatus | None) -> None:
        """Change an override in memory now (the screen repaints at once), save off-thread."""
        self.overrides.set(session_id, key, status)
        self._save_overrides()

    @work(thread=True, group="overrides", exit_on_error=False)
    def _save_overrides(self) -> None:
        try:
            self.overrides.save()
        except OSError as exc:
            self.call_from_thread(self.notify, f"Could not save your ticks: {exc}", severity="error", markup=False)

    def run_tool(self, name: str, payload: dict[str, Any]) -> None:
        """Run one of the store's tools (the same functions as the CLI and MCP) off the
        UI thread. Calls run one at a time in the order made, so a tick and its undo
        land in that order; the person's own item shows the change at once."""
        self._optimistic(payload)
        self._writer.submit(self._run_tool, name, dict(payload))

    def _run_tool(self, name: str, payload: dict[str, Any]) -> None:
        answer, failed = call_tool(self._store, self.settings, name, payload)
        self.post_message(OwnItemsChanged(answer, failed))
        self.post_message(StoreLoaded(read_store_view(self._store)))

    def _optimistic(self, payload: dict[str, Any]) -> None:
        """Show a status or title change of an existing task before the write lands; the
        store read that follows the write replaces it with what is on disk."""
        task_id = payload.get("task")
        change = {k: payload[k] for k in ("status", "title") if payload.get(k) is not None}
        if not task_id or not change:
            return
        for tasks in self.store_view.tasks_by_session.values():
            for index, task in enumerate(tasks):
                if task.id == task_id:
                    tasks[index] = task.model_copy(update=change)
        if self.browse is not None:
            self.browse.store_changed()

    @on(OwnItemsChanged)
    def _own_items_changed(self, event: OwnItemsChanged) -> None:
        if event.error:
            self.notify(event.answer, severity="error", markup=False)

    @work(thread=True, group="mirror", exit_on_error=False)
    def mirror(self, changed: list[tuple[Any, AgentPlan]]) -> None:
        """The opt-in translation of SPEC §5: the one path by which plan text is written.
        The mirror itself does nothing while the setting is off."""
        for session, plan in changed:
            try:
                self._mirror.update(session, plan)
            except Exception:
                log.exception("keeping session %s's plan in the store failed", session.id)

    # -- settings

    @work(thread=True, exclusive=True, group="settings-watch", exit_on_error=False)
    def _check_settings(self) -> None:
        settings = self._live_settings.current()
        if settings is not self._live_seen:  # the file changed since the last look
            self._live_seen = settings
            self.call_from_thread(self.post_message, SettingsSaved(settings))

    def _show_settings_problems(self, settings: Settings) -> None:
        """A banner (a notification that stays) for each new set of settings problems."""
        shown = tuple(str(p) for p in settings.problems)
        if shown == self._shown_problems:
            return
        self._shown_problems = shown
        if not shown:
            return
        lines = [f"{p.key or p.file.name}: {p.problem}" for p in settings.problems]
        if settings.directory_error:
            lines.append("Approving is refused until the user directory is fixed.")
        self.notify(
            "\n".join(lines),
            title=f"Problems in {self.config_path} (those settings are at their defaults)",
            severity="error",
            timeout=24 * 3600,
            markup=False,
        )

    @on(SettingsSaved)
    def _settings_saved(self, event: SettingsSaved) -> None:
        before = self.settings
        self.settings = event.settings
        self._show_settings_problems(self.settings)
        if before.read_agent_plans != self.settings.read_agent_plans:
            self._set_reading(self.settings.read_agent_plans)
        if self.settings.keep_plans_in_store and not before.keep_plans_in_store and self.reading:
            self.mirror([(e.session, e.plan) for e in self.entries() if e.plan is not None and e.plan.groups])
        if (before.transcript_roots != self.settings.transcript_roots
                or before.store != self.settings.store):
            self.notify("Restart planwatch to use the new folders.", markup=False)
        if self.browse is not None:
            self.browse.refresh_all()

    @work(thread=True, group="index", exit_on_error=False)
    def _set_reading(self, on: bool) -> None:
        setter = getattr(self.index, "set_read_plans", None)
        if setter is not None:
            setter(on)
        ids = [entry.session.id for entry in self.index.entries()]
        self.feed._mark(ids)

    # -- app-level actions (keys from tui.commands)

    def action_store_view(self) -> None:
        from tui.screens.store import StoreScreen

        self.push_screen(StoreScreen())

    def action_settings(self) -> None:
        from tui.screens.settings import SettingsScreen

        self.push_screen(SettingsScreen(self.settings, self.config_path))

    def action_help(self) -> None:
        from tui.screens.help import HelpScreen

        self.push_screen(HelpScreen())


def describe_change(before: AgentPlan | None, after: AgentPlan) -> str:
    """One timeline line for a plan change: counts and statuses, in memory only."""
    if before is None:
        before = EMPTY_PLAN
    b_done, b_total = before.counts()
    a_done, a_total = after.counts()
    parts = []
    if a_total != b_total:
        parts.append(f"{b_total} → {a_total} steps")
    if a_done != b_done:
        parts.append(f"{b_done} → {a_done} done")
    started = [
        item.active_form or item.text
        for group in after.groups
        for item in group.items
        if item.status == "in_progress"
    ]
    before_started = {
        item.active_form or item.text
        for group in before.groups
        for item in group.items
        if item.status == "in_progress"
    }
    for step in started:
        if step not in before_started:
            parts.append(f"started: {step}")
    if not parts and before != after:
        parts.append("plan updated")
    return "; ".join(parts)


def read_store_view(store: Any) -> StoreView:
    """A StoreView from one read of the store; never raises (the error is shown)."""
    try:
        snapshot = store.load()
    except Exception as exc:
        return StoreView(error=f"The store at {getattr(store, 'root', '?')} cannot be read: {exc}")
    by_session: dict[str, list[Any]] = {}
    for task in snapshot.tasks_sorted():
        # Tasks the opt-in translation wrote carry a `source`; they are the agent's plan,
        # already shown above, not the person's own items.
        if task.session and task.source is None:
            by_session.setdefault(task.session, []).append(task)
    from core.store.views import open_counts

    counts = open_counts(snapshot)
    return StoreView(
        tasks_by_session=by_session,
        open_counts=counts,
        problems=[str(problem) for problem in snapshot.problems],
    )


def call_tool(store: Any, settings: Settings, name: str, payload: dict[str, Any]) -> tuple[str, bool]:
    """Call a store tool (the same run_tool as the CLI and MCP); (answer, failed).

    Refusals and failed writes come back as their sentence, never raise."""
    from core.store.identity import caller_from_env
    from core.store.tools import run_tool

    try:
        result = run_tool(name, store, settings, caller_from_env(settings), payload)
    except Exception as exc:  # ToolRefused / StoreError carry the sentence to show
        return str(exc), True
    return result.text(), False
