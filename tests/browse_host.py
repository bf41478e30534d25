"""The browse screen on a small host app with a model of its own (no index, no scan).

`BrowseHost` builds the screen as the app does, with a `BrowseModel` held in memory
(`Model`: sessions given by the test, overrides the host sets, the person's own items
read from a real store) and a real `StoreService`. It acts on the screen's requests as
the app does (an override set, a store tool run) and keeps every request it received
(`sent`) and every notice it showed (`notices`), so a test asserts on what went up.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from textual import on
from textual.app import App
from textual.message import Message
from textual.notifications import SeverityLevel
from textual.signal import Signal

from planwatch.core.checklist import Checklist, OverrideStatus, build_checklist, pill_counts
from planwatch.core.model import AgentPlan, PlanGroup, PlanItem, Session
from planwatch.core.sessions import SessionEntry
from planwatch.core.settings import Settings
from planwatch.core.timeline import Rebuild, TimelineEntry
from planwatch.tui import app as tui_app
from planwatch.tui.messages import ScanFinished
from planwatch.tui.screens.browse import BrowseScreen
from planwatch.tui.screens.browse_model import OverrideRequested, SessionShown, ToolRequested
from planwatch.tui.store_service import StoreService
from planwatch.tui.theme import readable_variables
from planwatch.tui.widgets.session_rows import untitled

NOW = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


def entry(
    session_id: str,
    title: str,
    items: Iterable[str | PlanItem] = (),
    minutes_ago: int = 0,
    *,
    harness: str = "claude",
    cwd: str = "/srv/work",
    branch: str | None = None,
) -> SessionEntry:
    """A session `minutes_ago` old with an agent plan of `items` (texts, or items with a status)."""
    session = Session(
        id=session_id,
        harness=harness,
        path=Path(f"/nowhere/{session_id}.jsonl"),
        title=title,
        cwd=cwd,
        git_branch=branch,
        updated=NOW - timedelta(minutes=minutes_ago),
    )
    plan_items = tuple(item if isinstance(item, PlanItem) else PlanItem(text=item) for item in items)
    groups = (PlanGroup(source="claude_todos", items=plan_items),) if plan_items else ()
    return SessionEntry(session=session, plan=AgentPlan(groups=groups))


def two_sessions() -> list[SessionEntry]:
    return [
        entry("s-new", "Ship the parser", ("Write the parser", "Test it"), 1),
        entry("s-old", "Tidy the docs", ("Read them",), 30),
    ]


def web_and_api() -> list[SessionEntry]:
    """Two Claude Code sessions as a scan of their transcripts gives them: a web session
    20 minutes old with a step in progress, an API session five hours old."""
    return [
        entry(
            "web",
            "Web: add dark mode",
            (
                PlanItem(text="Add the theme switch", status="completed"),
                PlanItem(text="Wire the CSS", status="in_progress", active_form="Working on Wire the CSS"),
                PlanItem(text="Write tests"),
            ),
            20,
            cwd="/home/dev/web",
            branch="main",
        ),
        entry(
            "api",
            "Refactor the API",
            (PlanItem(text="Read the handlers", status="completed"), PlanItem(text="Split the router")),
            300,
            cwd="/home/dev/api",
            branch="main",
        ),
    ]


class Model:
    """A BrowseModel over sessions held in memory: a test changes them (`put`, `drop`)
    and the model tells the screen as the app does (`sessions_changed`)."""

    def __init__(self, app: App[Any], store: StoreService, entries: Iterable[SessionEntry]) -> None:
        self.sessions_changed: Signal[set[str]] = Signal(app, "sessions-changed")
        self.scan_finished: Signal[ScanFinished] = Signal(app, "scan-finished")
        self.reading = True
        self.scan_done: ScanFinished | None = ScanFinished([])
        self.scan_progress = (0, 0)
        self.overrides: dict[str, dict[str, OverrideStatus]] = {}
        self.clock = NOW
        self._store = store
        self._entries = sorted(entries, key=lambda e: e.session.updated, reverse=True)  # as the index lists them

    # -- changed by a test

    def put(self, changed: SessionEntry, *, tell: bool = True) -> None:
        """Add or replace a session (newest first); `tell`: publish the change."""
        self._entries = [e for e in self._entries if e.session.id != changed.session.id] + [changed]
        self._entries.sort(key=lambda e: e.session.updated, reverse=True)
        if tell:
            self.sessions_changed.publish({changed.session.id})

    def drop(self, session_id: str) -> None:
        self._entries = [e for e in self._entries if e.session.id != session_id]
        self.sessions_changed.publish({session_id})

    # -- the BrowseModel

    def now(self) -> datetime:
        return self.clock

    def entries(self) -> list[SessionEntry]:
        return list(self._entries)

    def entry(self, session_id: str) -> SessionEntry | None:
        return next((e for e in self._entries if e.session.id == session_id), None)

    def session_title(self, session_id: str) -> str:
        """As the app names a session: its title, or for one no prompt titles, what it is."""
        found = self.entry(session_id)
        if found is None:
            return "(a session no longer listed)"
        return found.session.title or untitled(found.session.harness, self.pill_counts(session_id)[1])

    def _plan(self, session_id: str) -> AgentPlan:
        found = self.entry(session_id)
        return found.plan if found is not None and found.plan is not None and self.reading else AgentPlan()

    def checklist_for(self, session_id: str) -> Checklist:
        own = self._store.summary.tasks_by_session.get(session_id, [])
        return build_checklist(self._plan(session_id), self.overrides.get(session_id, {}), own)

    def pill_counts(self, session_id: str) -> tuple[int, int, bool]:
        own = self._store.summary.tasks_by_session.get(session_id, [])
        return pill_counts(self._plan(session_id), self.overrides.get(session_id, {}), own)

    def timeline(self, session_id: str) -> list[TimelineEntry]:
        return []

    def timeline_rebuild(self, session_id: str) -> Rebuild:
        return Rebuild(done=True)


class BrowseHost(App[None]):
    """A bare app: the browse screen over a `Model` and a store service, acting on the
    screen's requests as the app does and keeping them (`sent`) and its notices. It
    styles and colours the screen as the app does (the app's stylesheet, the theme's
    readable text colours), so what a test measures is what the app lays out."""

    CSS_PATH = str(Path(tui_app.__file__).with_name("app.tcss"))

    def __init__(
        self,
        store_root: Path,
        entries: Iterable[SessionEntry] | None = None,
        *,
        pane: bool = False,
        folder: Path | None = None,
    ) -> None:
        super().__init__()
        self.store_service = StoreService(self, store_root, Settings(), clock=lambda: NOW)
        self.model = Model(self, self.store_service, two_sessions() if entries is None else entries)
        self.pane = pane
        self.folder = folder
        self.sent: list[Message] = []
        self.notices: list[str] = []

    def get_css_variables(self) -> dict[str, str]:
        variables = super().get_css_variables()
        variables.update(readable_variables(variables))
        return variables

    @property
    def browse(self) -> BrowseScreen:
        screen = self.screen
        assert isinstance(screen, BrowseScreen)
        return screen

    def on_mount(self) -> None:
        self.store_service.start(watch=False)
        self.store_service.reload()
        self.push_screen(BrowseScreen(self.model, self.store_service, pane=self.pane, folder=self.folder))

    def on_unmount(self) -> None:
        self.store_service.stop()

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        self.notices.append(message)
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)

    @on(OverrideRequested)
    def _override(self, event: OverrideRequested) -> None:
        self.sent.append(event)
        session = self.model.overrides.setdefault(event.session_id, {})
        if event.status is None:
            session.pop(event.key, None)
        else:
            session[event.key] = event.status
        self.model.sessions_changed.publish({event.session_id})

    @on(ToolRequested)
    def _tool(self, event: ToolRequested) -> None:
        self.sent.append(event)
        self.store_service.submit(event.name, event.payload, lambda _answer, _refused: None)

    @on(SessionShown)
    def _shown(self, event: SessionShown) -> None:
        self.sent.append(event)

    def requests(self, kind: type[Message]) -> list[Any]:
        """The requests of one kind the screen sent up, in order."""
        return [message for message in self.sent if isinstance(message, kind)]
