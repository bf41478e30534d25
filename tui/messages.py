"""App-wide messages (past tense). Most are posted from core threads through tui.live.

Change messages carry no payload and replace each other in the queue (`can_replace`):
the thread records what changed in the LiveFeed, and the handler drains it, so a burst
of appends becomes one repaint without losing any session id.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from planwatch.core.settings import Settings
    from planwatch.core.store.schema import TaskRecord
    from planwatch.core.store.snapshot import StoreSnapshot
    from planwatch.core.sync.contests import Contest


class SessionsChanged(Message):
    """Sessions were indexed or changed on disk; drain `LiveFeed.take_changed()`."""

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, SessionsChanged)


class ScanFinished(Message):
    """The first full scan of every transcript folder ended."""

    def __init__(self, roots_searched: list[Path], error: str | None = None, problems: list[str] | None = None) -> None:
        super().__init__()
        self.roots_searched = roots_searched
        self.error = error
        # Sources that could not be read as they stand (`SessionIndex.problem_notes`),
        # each "skipped which file: what is wrong", or, for a source whose sessions are
        # still listed, "which file: what is wrong; how its session is shown".
        self.problems = problems or []


class FollowingStarted(Message):
    """The index now follows every transcript folder: appends from here on show live."""


@dataclass
class StoreSummary:
    """One read of the store, for every screen that shows it: own items per session,
    open counts and problems (the browse screen), and the records themselves with what
    the store view marks on them (contests, approvals that do not count, the team's
    approval rule)."""

    tasks_by_session: dict[str, list[TaskRecord]] = field(default_factory=dict)
    open_counts: dict[str, int] = field(default_factory=dict)
    # One line per broken record: "<file>: <what is wrong>".
    problems: list[str] = field(default_factory=list)
    error: str | None = None
    # The records as read; None until the store was first read, or when it could not be.
    snapshot: StoreSnapshot | None = None
    # The store view's sentence when the folder cannot be read (a file in its place too).
    unreadable: str | None = None
    # A shared store's contested records by id, as its last sync pass left them.
    contests: dict[str, list[Contest]] = field(default_factory=dict)
    # The records whose approved stamp does not count (core/store/approvals.py).
    uncounted: frozenset[str] = frozenset()
    # A shared store's team policy requires approval to start (None: not known).
    require_approval: bool | None = None


class SettingsSaved(Message):
    """The Settings screen saved the settings; the app applies them (reading on/off, …).

    Post it to the app: `self.app.post_message(SettingsSaved(settings))`.
    """

    def __init__(self, settings: Settings) -> None:
        super().__init__()
        self.settings = settings


class OwnItemsChanged(Message):
    """The app wrote own items through the store tools; carries the tool's answer."""

    def __init__(self, answer: str, error: bool = False) -> None:
        super().__init__()
        self.answer = answer
        self.error = error
