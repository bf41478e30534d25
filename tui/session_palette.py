"""Jump anywhere: every session in the command palette, fuzzy by title, folder and harness.

The app offers it in its palette (ctrl+p); the browse screen's `s` opens the session
switcher, a palette with sessions only, which is how pane mode picks another session of
any folder. Choosing a hit asks the screen it was opened over to show that session
(a `SessionScreen`: its sessions, its clock, its `show_session`); another screen (the
store view) gets no session hits. Titles
are shown as Content, literal. The switcher's footer and help list its own keys, never
the browse screen's behind it (typed keys go to its search box there).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual.binding import Binding, BindingType
from textual.command import CommandPalette, DiscoveryHit, Hit, Hits, Provider
from textual.content import Content
from textual.fuzzy import Matcher
from textual.screen import Screen

from planwatch.core.model import harness_label
from planwatch.core.text import safe_text, shorten
from planwatch.tui.widgets.key_footer import KeysFooter
from planwatch.tui.widgets.session_rows import age, short_folder, untitled

if TYPE_CHECKING:
    from planwatch.core.sessions import SessionEntry

# The palette lists this many sessions before anything is typed (newest first).
DISCOVER_LIMIT = 30


def literal_markup(text: str) -> str:
    """`text` as Textual markup that reads back as exactly `text` (for the palette's help,
    which it reads as markup). Textual's parser takes `\\[` as a literal bracket and every
    other character as itself, so a bracket escaped is all it takes; `textual.markup.escape`
    is Rich's and leaves `[$accent]`, `[B]` or `[ @click=…]` as markup (and doubles a
    backslash before a bracket, which Textual then shows twice)."""
    return text.replace("[", "\\[")


def highlighted(matcher: Matcher, text: str) -> Content:
    """`text` as literal Content with the query's matched characters highlighted, as
    `Matcher.highlight` does for markup (which would read a title's `[…]` as markup)."""
    content = Content(text)
    score, offsets = matcher.fuzzy_search.match(matcher.query, text)
    if not score:
        return content
    for offset in offsets:
        if not text[offset].isspace():
            content = content.stylize(matcher.match_style, offset, offset + 1)
    return content


class SessionScreen(Screen[None]):
    """A screen that shows one session at a time (the browse screen): the palette's
    session hits are its sessions, and choosing one shows it there."""

    def listed_sessions(self) -> list[SessionEntry]:
        """Every session the screen can show, newest first."""
        raise NotImplementedError

    def clock(self) -> datetime:
        """Now, by the clock the screen's ages are counted from."""
        raise NotImplementedError

    def show_session(self, session_id: str) -> None:
        """Show the session chosen in the palette."""
        raise NotImplementedError


class SessionsProvider(Provider):
    """Sessions as palette hits; choosing one shows it on the browse screen."""

    def _sessions(self) -> Iterator[tuple[SessionScreen, SessionEntry, str, str, str]]:
        """(the screen, the session, title shown, its harness's name, its folder) for each
        session of a screen that shows sessions (a search matches the last three)."""
        screen = self.screen
        if not isinstance(screen, SessionScreen):
            return
        for entry in screen.listed_sessions():
            session = entry.session
            title = safe_text(session.title or untitled(session.harness), single_line=True)
            folder = short_folder(session.cwd or "", str(Path.home()))
            yield screen, entry, shorten(title, 80), harness_label(session.harness), safe_text(folder, single_line=True)

    def _help(self, screen: SessionScreen, entry: SessionEntry, harness: str, folder: str) -> str:
        """`Claude Code · ~/api · 2h ago`: the harness's name as a whole (two words, some)."""
        when = f" · {age(entry.session.updated, screen.clock())} ago"
        # The palette reads help as markup: a folder's own `[…]` is shown, never styled.
        return literal_markup(f"{harness} · {folder or 'no folder'}{when}")

    def _show(self, screen: SessionScreen, session_id: str) -> Any:
        async def show() -> None:
            screen.show_session(session_id)

        return show

    async def discover(self) -> Hits:
        for n, (screen, entry, title, harness, folder) in enumerate(self._sessions()):
            if n >= DISCOVER_LIMIT:
                break
            yield DiscoveryHit(
                Content(title), self._show(screen, entry.session.id), help=self._help(screen, entry, harness, folder)
            )

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for screen, entry, title, harness, folder in self._sessions():
            score = matcher.match(f"{title} {harness} {folder}")
            if score > 0:
                yield Hit(
                    score,
                    highlighted(matcher, title),
                    self._show(screen, entry.session.id),
                    text=title,
                    help=self._help(screen, entry, harness, folder),
                )


class SessionSwitcher(CommandPalette):
    """The browse screen's `s`: every session, fuzzy by title, folder and harness, with a
    footer of the switcher's own keys over the browse screen's (whose keys would type
    into the search box here). `?` is a character of a search, so help is f1."""

    HELP_GROUP = "session switcher"
    inherit_bindings = False
    # ↑↓ and enter do what the palette does with them, bound first (priority) so the
    # footer names them: its search box binds them too, hidden (it passes them on).
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "down", "cursor_down", "Move", key_display="↑↓", tooltip="The next or the previous session", priority=True
        ),
        Binding("up", "command_list('cursor_up')", "Previous session", show=False, priority=True),
        Binding("pagedown", "command_list('page_down')", "Next page", show=False),
        Binding("pageup", "command_list('page_up')", "Previous page", show=False),
        Binding("ctrl+home,shift+home", "command_list('first')", "First session", show=False),
        Binding("ctrl+end,shift+end", "command_list('last')", "Last session", show=False),
        Binding("enter", "show_session", "Show", tooltip="Show the session under the cursor", priority=True),
        Binding("escape", "escape", "Close", tooltip="Close the switcher; the session shown stays"),
        Binding("f1", "help", "Help", tooltip="The switcher's keys"),
    ]

    def __init__(self) -> None:
        super().__init__(providers=[SessionsProvider], placeholder="Jump to a session…")

    def compose(self) -> Any:
        yield from super().compose()
        yield KeysFooter()

    def action_show_session(self) -> None:
        # What enter in the search box does: the highlighted session (the first, when
        # none is highlighted yet and it is the only one).
        self._select_or_command()

    def action_help(self) -> None:
        from planwatch.tui.screens.help import SwitcherHelp

        self.app.push_screen(SwitcherHelp(self.HELP_GROUP, self.BINDINGS))
