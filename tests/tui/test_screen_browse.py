"""The browse screen on a host app with a model of its own (no index, no scan): it shows
what its `BrowseModel` holds and sends the person's requests up as messages."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from app_transcripts import until
from textual import on
from textual.app import App
from textual.message import Message
from textual.signal import Signal

from planwatch.core.checklist import Checklist, OverrideStatus, build_checklist, pill_counts
from planwatch.core.model import AgentPlan, PlanGroup, PlanItem, Session
from planwatch.core.sessions import SessionEntry
from planwatch.core.settings import Settings
from planwatch.core.timeline import Rebuild, TimelineEntry
from planwatch.tui.messages import ScanFinished
from planwatch.tui.screens.browse import BrowseScreen
from planwatch.tui.screens.browse_model import OverrideRequested, SessionShown
from planwatch.tui.store_service import StoreOwner, StoreService
from planwatch.tui.widgets.checklist import ChecklistView

NOW = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


def entry(session_id: str, title: str, items: tuple[str, ...], minutes_ago: int) -> SessionEntry:
    session = Session(
        id=session_id,
        harness="claude",
        path=Path(f"/nowhere/{session_id}.jsonl"),
        title=title,
        cwd="/srv/work",
        updated=NOW - timedelta(minutes=minutes_ago),
    )
    group = PlanGroup(source="claude_todos", items=tuple(PlanItem(text=text) for text in items))
    return SessionEntry(session=session, plan=AgentPlan(groups=(group,)))


class Model:
    """A BrowseModel of two sessions held in memory, with overrides the host sets."""

    def __init__(self, app: App[None]) -> None:
        self.sessions_changed: Signal[set[str]] = Signal(app, "sessions-changed")
        self.scan_finished: Signal[ScanFinished] = Signal(app, "scan-finished")
        self.reading = True
        self.scan_done: ScanFinished | None = ScanFinished([])
        self.scan_progress = (0, 0)
        self.overrides: dict[str, dict[str, OverrideStatus]] = {}
        self._entries = [
            entry("s-new", "Ship the parser", ("Write the parser", "Test it"), 1),
            entry("s-old", "Tidy the docs", ("Read them",), 30),
        ]

    def now(self) -> datetime:
        return NOW

    def entries(self) -> list[SessionEntry]:
        return list(self._entries)

    def entry(self, session_id: str) -> SessionEntry | None:
        return next((e for e in self._entries if e.session.id == session_id), None)

    def session_title(self, session_id: str) -> str:
        found = self.entry(session_id)
        return found.session.title if found is not None else ""

    def checklist_for(self, session_id: str) -> Checklist:
        found = self.entry(session_id)
        plan = found.plan if found is not None else AgentPlan()
        return build_checklist(plan, self.overrides.get(session_id, {}))

    def pill_counts(self, session_id: str) -> tuple[int, int, bool]:
        found = self.entry(session_id)
        return pill_counts(found.plan if found is not None else AgentPlan(), self.overrides.get(session_id, {}))

    def timeline(self, session_id: str) -> list[TimelineEntry]:
        return []

    def timeline_rebuild(self, session_id: str) -> Rebuild:
        return Rebuild(done=True)


class Host(StoreOwner, App[None]):
    """A bare app: the browse screen over a Model and a store service, acting on overrides."""

    def __init__(self, store_root: Path) -> None:
        super().__init__()
        self.model = Model(self)
        self.store_service = StoreService(self, store_root, Settings(), clock=lambda: NOW)

    def on_mount(self) -> None:
        self.store_service.start(watch=False)
        self.store_service.reload()
        self.push_screen(BrowseScreen(self.model, self.store_service))

    def on_unmount(self) -> None:
        self.store_service.stop()

    @on(OverrideRequested)
    def _override(self, event: OverrideRequested) -> None:
        session = self.model.overrides.setdefault(event.session_id, {})
        if event.status is None:
            session.pop(event.key, None)
        else:
            session[event.key] = event.status
        self.model.sessions_changed.publish({event.session_id})


@pytest.mark.asyncio
async def test_the_screen_shows_its_models_newest_session_and_sends_a_tick_up(isolated_env) -> None:
    app = Host(isolated_env.store)
    sent: list[Message] = []

    def hook(message: Message) -> None:
        # Once each: the hook sees a message at every node it bubbles through.
        if isinstance(message, OverrideRequested | SessionShown) and all(message is not m for m in sent):
            sent.append(message)

    async with app.run_test(size=(120, 36), message_hook=hook) as pilot:
        screen = app.screen
        assert isinstance(screen, BrowseScreen)
        await until(pilot, lambda: screen.selected_id == "s-new", what="the newest session")
        checklist = screen.query_one("#checklist", ChecklistView)
        assert [row.text for row in checklist.checklist.agent_rows] == ["Write the parser", "Test it"]
        await until(pilot, lambda: any(isinstance(m, SessionShown) and m.session_id == "s-new" for m in sent))

        await pilot.press("tab", "space")  # the checklist, then tick its first item
        await until(pilot, lambda: any(isinstance(m, OverrideRequested) for m in sent), what="the tick sent up")
        tick = next(m for m in sent if isinstance(m, OverrideRequested))
        assert (tick.session_id, tick.status) == ("s-new", "completed")
        await until(pilot, lambda: checklist.checklist.agent_rows[0].status == "completed", what="the tick shown")

        await pilot.press("u")  # undo: the override taken back, sent up the same way
        await until(pilot, lambda: checklist.checklist.agent_rows[0].status == "pending", what="the undo shown")
        assert [m.status for m in sent if isinstance(m, OverrideRequested)] == ["completed", None]

        await pilot.press("tab", "j")  # back to the list (the details are closed), the next session
        await until(pilot, lambda: screen.selected_id == "s-old", what="the other session")
        assert [row.text for row in checklist.checklist.agent_rows] == ["Read them"]
