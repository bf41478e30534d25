"""What the browse screen is built with: the model it shows, and the requests it sends up.

The app builds the screen with a `BrowseModel` (itself: tui/app.py), the store service
(the store's contents and signals: tui/store_service.py) and the start-up choices that
never change (pane mode, the folder a pane follows). The screen reads the sessions, a
session's checklist, counts and timeline, the scan's state and the reading switch
through the model, and is told of changes by the model's signals; it never names the
app. What it asks for goes up as messages the app acts on: an override set, a store
tool run, a session shown (which the opt-in mirror keeps in the store).
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

from textual.message import Message

if TYPE_CHECKING:
    from textual.signal import Signal

    from planwatch.core.checklist import Checklist, OverrideStatus
    from planwatch.core.sessions import SessionEntry
    from planwatch.core.timeline import Rebuild, TimelineEntry
    from planwatch.tui.messages import ScanFinished


class BrowseModel(Protocol):
    """The sessions and what the browse screen shows of each, as the app holds them."""

    @property
    def sessions_changed(self) -> Signal[set[str]]:
        """Published with the ids of sessions that changed (read, appended, an override)."""
        ...

    @property
    def scan_finished(self) -> Signal[ScanFinished]:
        """Published when a scan of every transcript folder ended."""
        ...

    @property
    def reading(self) -> bool:
        """Whether agents' plans are read (the privacy switch)."""
        ...

    @property
    def scan_done(self) -> ScanFinished | None:
        """The first scan's end, or None while it runs."""
        ...

    @property
    def scan_progress(self) -> tuple[int, int]:
        """(files read, files found) of the scan that runs."""
        ...

    def now(self) -> datetime: ...

    def entries(self) -> list[SessionEntry]:
        """Every session, newest activity first."""
        ...

    def entry(self, session_id: str) -> SessionEntry | None: ...

    def session_title(self, session_id: str) -> str:
        """The session's title as its row reads (its own, or what it is)."""
        ...

    def checklist_for(self, session_id: str) -> Checklist: ...

    def pill_counts(self, session_id: str) -> tuple[int, int, bool]:
        """`checklist_for(session_id)`'s (done, total, partial), without building it."""
        ...

    def timeline(self, session_id: str) -> list[TimelineEntry]: ...

    def timeline_rebuild(self, session_id: str) -> Rebuild: ...


class OverrideRequested(Message):
    """The person ticked or unticked an agent's item (an override), or took one back."""

    def __init__(self, session_id: str, key: str, status: OverrideStatus | None) -> None:
        super().__init__()
        self.session_id = session_id
        self.key = key
        self.status = status


class ToolRequested(Message):
    """The person changed their own items: run this store tool with this payload."""

    def __init__(self, name: str, payload: dict[str, Any]) -> None:
        super().__init__()
        self.name = name
        self.payload = payload


class SessionShown(Message):
    """The browse screen shows another session (None: no session)."""

    def __init__(self, session_id: str | None) -> None:
        super().__init__()
        self.session_id = session_id
