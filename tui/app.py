"""The planwatch app: `make_app(...)` and the App that wires core to the screens.

One factory serves the CLI, the Pilot tests, the snapshot tests and the screenshot
script. Everything that touches the host is injectable: the session source (index), the
store root, the settings file, the state folder (overrides), the clock, and whether the
follower threads run at all (snapshots run without them).

The app owns the live state the screens show: the index, the store service (the one
store, settings object, writer and watcher: tui/store_service.py), the overrides and
the in-memory timelines. It builds each screen with what it shows (attributes down:
the browse screen with the app itself as its `BrowseModel`, tui/screens/browse_model.py,
and the store service); screens subscribe to its signals (`sessions_changed`,
`scan_finished`, and the store service's `changed` and `settings_changed`) and send
their requests up as messages (an override, a store tool, the session shown), which the
handlers here act on, running the IO in thread workers. The app never reaches into a
screen. The settings (the file watched, a saved change
applied, the theme) are kept by a `SettingsKeeper` the app holds, tui/app_settings.py,
which tells the app what a saved change means for what it owns.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import time
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import events, on, work
from textual.app import App
from textual.binding import Binding
from textual.notifications import SeverityLevel
from textual.signal import Signal

from planwatch.core import paths
from planwatch.core.checklist import Checklist, OverrideStatus, build_checklist, pill_counts
from planwatch.core.history import PlanHistory
from planwatch.core.model import EMPTY_PLAN, AgentPlan
from planwatch.core.overrides import FILE_NAME as OVERRIDES_FILE
from planwatch.core.overrides import Overrides
from planwatch.core.settings import Settings, load_settings
from planwatch.core.text import safe_text
from planwatch.core.timeline import Rebuild, TimelineEntry, Timelines
from planwatch.tui.app_options import AppOptions, options_from_args
from planwatch.tui.app_settings import SettingsEffects, SettingsKeeper, default_roots
from planwatch.tui.commands import PlanwatchCommands, bindings
from planwatch.tui.live import LiveFeed
from planwatch.tui.messages import (
    FollowingStarted,
    OwnItemsChanged,
    ScanFinished,
    SessionsChanged,
    SettingsSaved,
    StoreSummary,
)
from planwatch.tui.notices import Notice, desktop_escapes, idle_notice, plan_notices
from planwatch.tui.screens.browse_model import OverrideRequested, SessionShown, ToolRequested
from planwatch.tui.session_palette import SessionsProvider, SessionSwitcher
from planwatch.tui.store_service import StoreService
from planwatch.tui.theme import readable_variables
from planwatch.tui.widgets.session_rows import RUNNING_WINDOW, untitled

if TYPE_CHECKING:
    from textual.actions import ActionParseResult
    from textual.dom import DOMNode
    from textual.driver import Driver
    from textual.timer import Timer

    from planwatch.core.checklist import OwnTask
    from planwatch.core.index import SessionIndex
    from planwatch.core.model import Session
    from planwatch.core.sessions import SessionEntry

log = logging.getLogger(__name__)

# How often running sessions are checked for going idle (seconds).
IDLE_CHECK_EVERY = 20.0
# How often the list repaints while the first scan is still filling it (seconds), at
# the most: a repaint of a long list (every row's option made anew, the screen drawn)
# holds the interpreter the scan thread shares, so the wait after one is also at least
# SCAN_REPAINT_SHARE times what it took, and repainting takes at most about a fifth of
# the scan's time however long the list grows.
SCAN_REPAINT_EVERY = 0.4
SCAN_REPAINT_SHARE = 4.0
# Until the list holds this many sessions (a tall terminal's first screen), each batch of
# the first scan is shown as it comes: the wait between repaints starts after them.
FIRST_SCREEN_ROWS = 50
# The end of a scan is taken in slices of this many sessions, with SCAN_END_GAP seconds
# of the event loop between them for the keys pressed meanwhile.
SCAN_END_SLICE = 5000
SCAN_END_GAP = 0.003
# Turns of the event loop the scan's end waits at most for a screen still making and
# showing the last batches' rows in slices (a long list: tui/screens/browse.py).
SCAN_END_SETTLE_TURNS = 200


def make_app(args_or_options: argparse.Namespace | AppOptions | None = None) -> PlanwatchApp:
    """The one factory: from CLI arguments, from AppOptions, or the defaults."""
    if args_or_options is None:
        options = AppOptions()
    elif isinstance(args_or_options, AppOptions):
        options = args_or_options
    else:
        options = options_from_args(args_or_options)
    return PlanwatchApp(options)


def _default_index(roots: list[Path], read_plans: bool) -> SessionIndex:
    from planwatch.core.index import SessionIndex

    index = SessionIndex(roots, read_plans=read_plans)
    # The scan's thread shares the interpreter with the UI's: the reading is left to the
    # worker processes forked for it (fork_ahead below, one per core).
    index.read_in_scan_thread = False
    return index


class PlanwatchApp(App[None]):
    """Browse sessions, tick checklists, follow an agent in a side pane."""

    TITLE = "planwatch"
    CSS_PATH = "app.tcss"
    BINDINGS = [*bindings("app"), Binding("ctrl+c", "quit", "Quit", show=False, priority=True)]
    COMMANDS = App.COMMANDS | {PlanwatchCommands, SessionsProvider}

    def __init__(self, options: AppOptions) -> None:
        super().__init__()
        self.options = options
        self.config_path = options.config_path or paths.config_file()
        # Problems in the settings file show as a banner in the app, not on stderr.
        settings = load_settings(self.config_path, report=False)
        self.clock = options.clock
        state = options.state_dir or paths.state_dir()
        self.overrides = Overrides(state / OVERRIDES_FILE)
        if options.index is not None:
            self.index = options.index
        else:
            roots = options.roots
            if roots is None:
                roots = default_roots(settings, options.extra_roots)
            self.index = _default_index(roots, settings.read_agent_plans)
        store_root = options.store_root or paths.store_dir(settings.store)
        self.store_service = StoreService(self, store_root, settings, clock=self.clock)
        effects = SettingsEffects(
            reading_set=self._reading_set, mirror_all=self._mirror_all, roots_saved=self._roots_saved
        )
        self.settings_keeper = SettingsKeeper(self, self.store_service, self.config_path, settings, effects)
        # Transcript folders saved while the first scan ran: looked in once it ends.
        self._reroot_after_scan: Settings | None = None
        self.scan_done: ScanFinished | None = None
        # The scan ended and its end is being taken in slices (`_finish_scan`).
        self.scan_finishing: ScanFinished | None = None
        # True once the index follows the transcript folders (appends show live).
        self.following = False
        self.timelines = Timelines()
        # What the screens subscribe to (the store service has its own two).
        self.sessions_changed: Signal[set[str]] = Signal(self, "sessions-changed")
        self.scan_finished: Signal[ScanFinished] = Signal(self, "scan-finished")
        # The sessions running at the last idle check (tui.notices).
        self._running_sessions: set[str] = set()
        self._pending_ids: set[str] = set()
        self._flush_timer: Timer | None = None
        # The sessions shown while the first scan fills the list, until a first screen's
        # worth (FIRST_SCREEN_ROWS): till then each batch is shown as it comes.
        self._first_screen: set[str] | None = set()
        self._flush_cost = 0.0  # seconds the last repaint of the list took (SCAN_REPAINT_SHARE)
        from planwatch.core.mirror import Mirror

        # Touches the disk only when used (not at all while the setting is off).
        self._mirror = Mirror(self.store_service.store, lambda: self.settings)
        self.feed = LiveFeed(self, self.index, follow=options.follow, scan=options.scan)
        if options.scan and options.index is None:
            # The first scan runs on a thread, where forking is unsafe: its workers are
            # forked now, before the app starts any thread, and wait for it.
            from planwatch.core.transcripts.batch import fork_ahead

            fork_ahead(every_core=not self.index.read_in_scan_thread)
            # With no warm-start cache to show the newest sessions first (a cold start),
            # the folders are walked now, before Textual starts, so its workers read
            # from its first moment (core/index.py `find_ahead`).
            self.index.find_ahead()
            # The warm-start cache loads on a thread of its own while Textual starts (after
            # the fork: no thread before it), for the scan to take on mount.
            self.index.preload_cache()

    def get_driver_class(self) -> type[Driver]:
        """Textual's driver for this platform; on Linux and macOS one that reads a
        terminal's replies to queries as replies, never as keys (tui/terminal_replies.py)."""
        driver_class = super().get_driver_class()
        if driver_class.__module__ == "textual.drivers.linux_driver" and driver_class.__name__ == "LinuxDriver":
            from planwatch.tui.terminal_replies import PlanwatchDriver

            return PlanwatchDriver
        return driver_class

    # -- life cycle

    def on_mount(self) -> None:
        from planwatch.tui.screens.browse import BrowseScreen

        options = self.options
        self.push_screen(BrowseScreen(self, self.store_service, pane=options.pane, folder=options.cwd))
        self.settings_keeper.start()
        self.set_interval(IDLE_CHECK_EVERY, self._check_idle, name="idle-watch")
        self.feed.start()
        self.store_service.start(watch=self.options.follow)
        self.store_service.reload()
        if not self.options.scan:
            self._remember_plans([entry.session.id for entry in self.index.entries()], record=False)

    def on_unmount(self) -> None:
        self.feed.stop()
        from planwatch.core.transcripts.batch import release_ahead

        release_ahead()  # workers forked for a scan that never took them
        # Let writes already asked for finish: a tick made just before quitting counts.
        self.store_service.stop()

    # -- keys ahead of the scan

    async def on_event(self, event: events.Event) -> None:
        # A key holds the first scan's thread between files until it is handled
        # (tui/live.py, `LiveFeed.give_way`): the two share one interpreter. Noted as
        # it arrives from the terminal, not again as it bubbles back to the app.
        if isinstance(event, events.Key) and not event.is_forwarded:
            self.feed.key_arrived()
        await super().on_event(event)

    async def run_action(
        self,
        action: str | ActionParseResult,
        default_namespace: DOMNode | None = None,
        namespaces: Mapping[str, DOMNode] | None = None,
    ) -> bool:
        # Every binding's action runs here: once it has and the screen is painted
        # after it, the key is handled. A key no binding takes (typed into the filter)
        # holds the scan for KEY_WAIT_AT_MOST.
        try:
            return await super().run_action(action, default_namespace, namespaces)
        finally:
            self.call_after_refresh(self.feed.key_handled)

    # -- what the screens read

    @property
    def store_root(self) -> Path:
        return self.store_service.root

    @property
    def store_summary(self) -> StoreSummary:
        return self.store_service.summary

    @property
    def scan_progress(self) -> tuple[int, int]:
        return self.index.progress

    def now(self) -> datetime:
        return self.clock()

    def entries(self) -> list[SessionEntry]:
        return list(self.index.entries())

    def entry(self, session_id: str) -> SessionEntry | None:
        return self.index.get(session_id)

    def session_title(self, session_id: str) -> str:
        """The session's title as its row in the list reads: its own, or for a session no
        prompt titles, what it is (`(no prompt) · Codex · 3 steps`), never its id. For
        every place a session is named: toasts, notices, the pager, the copied list."""
        entry = self.entry(session_id)
        if entry is None:
            return "(a session no longer listed)"
        return entry.session.title or untitled(entry.session.harness, self.pill_counts(session_id)[1])

    def own_tasks(self, session_id: str) -> Sequence[OwnTask]:
        return self.store_summary.tasks_by_session.get(session_id, [])

    def checklist_for(self, session_id: str) -> Checklist:
        entry = self.entry(session_id)
        plan = entry.plan if entry is not None and self.reading and entry.plan is not None else EMPTY_PLAN
        return build_checklist(plan, self.overrides.for_session(session_id), self.own_tasks(session_id))

    def pill_counts(self, session_id: str) -> tuple[int, int, bool]:
        """`checklist_for(session_id)`'s (done, total, partial), without building it."""
        entry = self.entry(session_id)
        plan = entry.plan if entry is not None and self.reading and entry.plan is not None else EMPTY_PLAN
        return pill_counts(plan, self.overrides.for_session(session_id), self.own_tasks(session_id))

    def timeline(self, session_id: str) -> list[TimelineEntry]:
        """The session's timeline. The first time it is asked for, the changes from
        before are rebuilt from the session's transcript in a worker (core/history.py);
        `timeline_rebuild` says how far that went."""
        if self.entry(session_id) is not None and self.reading and self.timelines.begin_rebuild(session_id):
            self._read_history(session_id, self.timelines)
        return self.timelines.of(session_id)

    def timeline_rebuild(self, session_id: str) -> Rebuild:
        return self.timelines.rebuild(session_id)

    @work(thread=True, group="history", exit_on_error=False)
    def _read_history(self, session_id: str, timelines: Timelines) -> None:
        """Rebuild the session's plan changes from its transcript (OpenCode: from its
        completed todowrite parts) for `timelines`, in memory only like the changes seen
        live."""
        if self.reading and not self.index.reads_plans:
            # Reading was just turned back on and the index has not taken it yet: its
            # history would be empty. Asked again once the index has read the plans (its
            # change of every session refreshes the panel).
            self.call_from_thread(timelines.cancel_rebuild, session_id)
            return
        found = PlanHistory()
        try:
            if self.reading:
                found = self.index.plan_history(session_id)
        except Exception:  # a reader's bug must not leave the panel "reading" for ever
            log.exception("rebuilding the timeline of %s failed", session_id)
        self.call_from_thread(self._seed_timeline, session_id, found, timelines)

    def _seed_timeline(self, session_id: str, history: PlanHistory, timelines: Timelines) -> None:
        if timelines is not self.timelines or not self.reading:
            # Reading was turned off while the transcript was read (docs/privacy.md): the
            # timelines it was read for are gone, and the plan text read goes with them.
            return
        self.timelines.seed(session_id, history.changes, history.unread, history.base)
        self._pending_ids.add(session_id)
        self._flush_changes()

    # -- live updates

    @on(SessionsChanged)
    def _on_sessions_changed(self) -> None:
        changed = self.feed.take_changed()
        if not changed:
            return
        self._remember_plans(sorted(changed), record=self.scan_done is not None)
        self._pending_ids |= changed
        if self.scan_done is None and self._first_screen is None:
            # While the first scan fills the list, repaint it a few times a second rather
            # than per batch: each repaint of a long list competes with the scan thread.
            if self._flush_timer is None:
                wait = max(SCAN_REPAINT_EVERY, self._flush_cost * SCAN_REPAINT_SHARE)
                self._flush_timer = self.set_timer(wait, self._flush_changes)
            return
        self._flush_changes()

    def _flush_changes(self) -> None:
        self._flush_timer = None
        changed, self._pending_ids = self._pending_ids, set()
        if changed and not (self._exit or self._closing):
            if self._first_screen is not None:
                self._first_screen |= changed
                if len(self._first_screen) >= FIRST_SCREEN_ROWS:
                    self._first_screen = None
            started = time.perf_counter()
            self.sessions_changed.publish(changed)
            self._flush_cost = time.perf_counter() - started

    def _remember_plans(self, ids: list[str], *, record: bool) -> None:
        """Keep each session's last plan to note what changed in its timeline (memory only)
        and hand changed plans to the opt-in mirror."""
        mirrored: list[tuple[Session, AgentPlan]] = []
        for session_id in ids:
            entry = self.entry(session_id)
            if entry is None:
                continue
            plan = entry.plan or EMPTY_PLAN
            before = self.timelines.last_plan(session_id)
            if self.timelines.note(session_id, plan, self.now(), record=record):
                mirrored.append((entry.session, plan))
                if record and self.reading:
                    for notice in plan_notices(self.session_title(session_id), before, plan):
                        self.announce(notice)
        if mirrored and self.settings.keep_plans_in_store and self.reading:
            self.mirror(mirrored)

    # -- output to the terminal

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Every toast passes through here (the app's, each screen's and widget's, which
        call the app's, and Textual's own): its message and title are made safe text, so
        a session title or file name holding a terminal escape is shown, never sent
        (docs/privacy.md, Untrusted text)."""
        super().notify(
            safe_text(message),
            title=safe_text(title, single_line=True),
            severity=severity,
            timeout=timeout,
            markup=markup,
        )

    def copy_to_clipboard(self, text: str) -> None:
        """The clipboard (OSC 52) gets safe text only: what is pasted from it is what
        the screen showed, never a raw escape, carriage return or end of a bracketed
        paste that a shell would act on."""
        super().copy_to_clipboard(safe_text(text))

    # -- notifications

    def announce(self, notice: Notice) -> None:
        """Ring the bell and show a toast (and a desktop notification when asked), if the
        person wants this kind of notice (Settings → Notifications)."""
        wanted = {
            "complete": self.settings.notify_plan_complete,
            "blocked": self.settings.notify_item_blocked,
            "idle": self.settings.notify_session_idle,
        }[notice.kind]
        if not wanted:
            return
        self.bell()
        self.notify(notice.message, title="planwatch", markup=False)
        if self.settings.desktop_notifications and not self.is_headless and self._driver is not None:
            # As App.bell and App.copy_to_clipboard do: escapes go straight to the terminal.
            self._driver.write(desktop_escapes(notice))

    def _check_idle(self) -> None:
        """Sessions that were running at the last look and are not now went idle."""
        if self.scan_done is None:
            return
        now = self.now()
        running = {e.session.id for e in self.entries() if now - e.session.updated <= RUNNING_WINDOW}
        for session_id in self._running_sessions - running:
            entry = self.entry(session_id)
            if entry is not None:
                self.announce(idle_notice(self.session_title(session_id)))
        self._running_sessions = running

    @on(ScanFinished)
    def _on_scan_finished(self, event: ScanFinished) -> None:
        # The end of a scan is several pieces of UI work (the last batch's refresh, every
        # session's first plan kept, the full repaint), each up to tens of milliseconds at
        # ten thousand sessions: done in turns of the event loop (`_finish_scan`), so a key
        # pressed meanwhile is acted on between them, not after all of them. A handler's
        # own awaits would not do: the app handles no message of its queue (a key is one)
        # until the handler returns.
        self.scan_finishing = event
        self._finish_scan(event)

    @work(group="scan-end", exclusive=True, exit_on_error=True)
    async def _finish_scan(self, event: ScanFinished) -> None:
        """Take the scan's end in slices, with a turn of the loop for the keys queued
        meanwhile between them; `scan_done` is set at the last, with the full repaint
        (what waited for it, a test or a benchmark, sees the list as the scan left it)."""
        # The batch of sessions still waiting for its refresh.
        if self._flush_timer is not None:
            self._flush_timer.stop()
        self._flush_changes()
        await self._between_slices()
        # Changes seen from here on are the session's timeline; the first read is not a
        # change (sessions changed meanwhile were noted without being recorded: the scan
        # is not done yet).
        entries = self.entries()
        for start in range(0, len(entries), SCAN_END_SLICE):
            for entry in entries[start : start + SCAN_END_SLICE]:
                self.timelines.keep(entry.session.id, entry.plan or EMPTY_PLAN)
            await self._between_slices()
        # A long list makes and shows the last batches' rows a few hundred a turn: those
        # turns first, so the full repaint below finds every row made and shown (done in
        # one turn, it held a key 40-50 ms at ten thousand sessions).
        from planwatch.tui.screens.browse import BrowseScreen  # loaded with the first screen

        for _ in range(SCAN_END_SETTLE_TURNS):
            if not any(isinstance(screen, BrowseScreen) and screen.rows_pending for screen in self.screen_stack):
                break
            await self._between_slices()
        first = self.scan_done is None
        self.scan_done = event
        self.scan_finishing = None
        if self._reroot_after_scan is not None:
            settings, self._reroot_after_scan = self._reroot_after_scan, None
            self._reroot(settings)
        if self._flush_timer is not None:
            self._flush_timer.stop()
        self._flush_changes()  # sessions changed during the slices (usually none)
        # With the opt-in on, every session's list is kept in the store (docs/store.md, Agents' lists in the store), not
        # only those that change while the app runs (idempotent: unchanged lists write nothing).
        if self.settings.keep_plans_in_store and self.reading:
            self.mirror([(e.session, e.plan) for e in self.entries() if e.plan is not None and e.plan.groups])
        if not (self._exit or self._closing):
            self.scan_finished.publish(event)
        self.feed.scan_end_taken.set()  # the warm-start cache is written now (tui/live.py)
        for note in event.problems if first else ():  # said once; the other harnesses are read
            self.notify(note[:1].upper() + note[1:], severity="warning", markup=False, timeout=10)

    async def _between_slices(self) -> None:
        """A turn of the event loop long enough for a key queued meanwhile (posted from
        the driver's thread) to pass from the app to the screen's action."""
        await asyncio.sleep(SCAN_END_GAP)

    @on(FollowingStarted)
    def _following_started(self) -> None:
        self.following = True

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
        """Run one of the store's tools (the same functions as the CLI and MCP) on the
        store service's one writer: off the UI thread, one at a time in the order made,
        so a tick and its undo land in that order; the person's own item shows the
        change at once."""
        self._optimistic(payload)
        self.store_service.submit(name, payload, self._answered)

    def _answered(self, answer: str, refused: bool) -> None:
        self.post_message(OwnItemsChanged(answer, refused))

    def _optimistic(self, payload: dict[str, Any]) -> None:
        """Show a status or title change of an existing task before the write lands; the
        store read that follows the write replaces it with what is on disk."""
        task_id = payload.get("task")
        change = {k: payload[k] for k in ("status", "title") if payload.get(k) is not None}
        if not task_id or not change:
            return
        view = self.store_summary
        for tasks in view.tasks_by_session.values():
            for index, task in enumerate(tasks):
                if task.id == task_id:
                    tasks[index] = task.model_copy(update=change)
        self.store_service.changed.publish(view)

    # -- what the browse screen asks for (tui/screens/browse_model.py)

    @on(OverrideRequested)
    def _override_requested(self, event: OverrideRequested) -> None:
        self.set_override(event.session_id, event.key, event.status)
        self.sessions_changed.publish({event.session_id})  # its pill, checklist and row again

    @on(ToolRequested)
    def _tool_requested(self, event: ToolRequested) -> None:
        self.run_tool(event.name, event.payload)

    @on(SessionShown)
    def _session_shown(self, event: SessionShown) -> None:
        """With the opt-in on, the session shown has its list kept in the store."""
        if event.session_id is None or not (self.settings.keep_plans_in_store and self.reading):
            return
        entry = self.entry(event.session_id)
        if entry is not None and entry.plan is not None and entry.plan.groups:
            self.mirror([(entry.session, entry.plan)])

    @on(OwnItemsChanged)
    def _own_items_changed(self, event: OwnItemsChanged) -> None:
        if event.error:
            self.notify(event.answer, severity="error", markup=False)

    @work(thread=True, group="mirror", exit_on_error=False)
    def mirror(self, changed: list[tuple[Session, AgentPlan]]) -> None:
        """The opt-in translation (docs/store.md, Agents' lists in the store): the one path
        by which plan text is written.
        The mirror itself does nothing while the setting is off."""
        for session, plan in changed:
            try:
                self._mirror.update(session, plan)
            except Exception:
                log.exception("keeping session %s's plan in the store failed", session.id)

    # -- the settings: kept by the SettingsKeeper, their effects on what the app owns

    @property
    def settings(self) -> Settings:
        return self.store_service.settings

    @property
    def reading(self) -> bool:
        return self.settings.read_agent_plans

    def get_css_variables(self) -> dict[str, str]:
        """The theme's variables, with the text colours the rows use made readable on
        this theme's backgrounds and cursor (tui.theme)."""
        variables = super().get_css_variables()
        variables.update(readable_variables(variables))
        self.theme_variables = variables
        return variables

    @on(SettingsSaved)
    def _settings_saved(self, event: SettingsSaved) -> None:
        self.settings_keeper.apply(event.settings)

    def _reading_set(self, on: bool) -> None:
        if not on:
            # The timelines hold plan text (steps started): gone with the reading.
            self.timelines = Timelines()
        self._set_reading(on)

    def _mirror_all(self) -> None:
        self.mirror([(e.session, e.plan) for e in self.entries() if e.plan is not None and e.plan.groups])

    def _roots_saved(self, after: Settings) -> None:
        if self.options.index is not None or self.options.roots is not None:
            # The folders were handed to this app (--demo, tests): they stay.
            self.notify("This app keeps the transcript folders it was started on.", markup=False)
        elif self.scan_done is None:
            # The first scan still runs on the old folders: once it ends (ScanFinished).
            self._reroot_after_scan = after
        else:
            self._reroot(after)

    @work(thread=True, group="reroot", exclusive=True, exit_on_error=False)
    def _reroot(self, settings: Settings) -> None:
        """The saved transcript folders, looked in now: the index reads the new ones,
        drops the sessions of those removed, and follows the new set."""
        roots = default_roots(settings, self.options.extra_roots)
        self.feed.mark_changed(self.index.set_roots(roots))
        # As after the first scan: the empty state names the folders now looked in.
        self.post_message(ScanFinished(roots, None, self.index.problem_notes()))

    @work(thread=True, group="index", exit_on_error=False)
    def _set_reading(self, on: bool) -> None:
        self.index.set_read_plans(on)
        ids = [entry.session.id for entry in self.index.entries()]
        self.feed.mark_changed(ids)

    # -- app-level actions (keys from tui.commands)

    def action_store_view(self) -> None:
        from planwatch.tui.screens.store import StoreScreen

        self.push_screen(StoreScreen(self.store_service, session_title=self._own_title))

    def _own_title(self, session_id: str) -> str | None:
        """A session's own title (None: untitled, or not listed), for the store view."""
        entry = self.entry(session_id)
        return entry.session.title if entry is not None else None

    def action_settings(self) -> None:
        from planwatch.tui.screens.settings import SettingsScreen

        self.push_screen(SettingsScreen(self.settings, self.config_path))

    def action_help(self) -> None:
        from planwatch.tui.screens.help import HelpScreen
        from planwatch.tui.screens.settings import SettingsScreen
        from planwatch.tui.screens.store import StoreScreen

        # The keys the screen it opens over binds itself (settings' save) are listed too.
        screen = self.screen
        group = screen.HELP_GROUP if isinstance(screen, SettingsScreen | StoreScreen | SessionSwitcher) else ""
        self.push_screen(HelpScreen(group, screen.BINDINGS, screen.check_action))
