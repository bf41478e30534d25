"""Which session a pane follows: the most recently active one, of a folder when asked
(`--cwd`, or the tmux pane's folder), and when it follows at all: a pane started as one
(`--pane`) does until the person chooses a session with `s`, which it then keeps. (A
window narrowed into pane mode shows the session under the hidden list's cursor: the
newest until the person chose another.)"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from planwatch.core.sessions import SessionEntry
    from planwatch.tui.screens.browse import BrowseScreen


@lru_cache(maxsize=4096)
def _resolved(folder: str) -> Path | None:
    # Resolving reads the disk; pane mode asks on the UI thread for every session on
    # every change, so each folder is resolved once.
    try:
        return Path(folder).resolve()
    except (OSError, RuntimeError):
        return None


def folder_matches(session_cwd: str | None, folder: Path) -> bool:
    """A session belongs to `folder` when it ran there or in a folder inside it."""
    if not session_cwd:
        return False
    here, there = _resolved(session_cwd), _resolved(str(folder))
    if here is None or there is None:
        return False
    return here == there or there in here.parents


def newest_session(entries: Iterable[SessionEntry], folder: Path | None) -> str | None:
    """The id of the first of `entries` (the index's, newest activity first) that ran in
    `folder` or a folder inside it; any folder's when `folder` is None."""
    for entry in entries:
        if folder is None or folder_matches(entry.session.cwd, folder):
            return str(entry.session.id)
    return None


def follow(screen: BrowseScreen) -> None:
    """Select the newest session (of the --cwd folder, in a pane started as one) when the
    screen follows one."""
    if not screen.started_as_pane or screen.pinned:
        return  # elsewhere the list's cursor is the selection (BrowseScreen.list_selects)
    folder = screen.folder
    newest = newest_session(screen.model.entries(), folder)
    if newest is not None or folder is not None:
        screen.select(newest)
