"""Jump anywhere: every session in the command palette, fuzzy by title, folder and harness.

The app offers it in its palette (ctrl+p); the browse screen's `s` opens the session
switcher, a palette with sessions only, which is how pane mode picks another session of
any folder. Choosing a hit asks the screen it was opened over to show that session
(`show_session`); a screen without one (the store view) gets no session hits. Titles
are shown as Content, literal. The switcher's footer and help list its own keys, never
the browse screen's behind it (typed keys go to its search box there).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

from textual.binding import Binding, BindingType
from textual.command import CommandPalette, DiscoveryHit, Hit, Hits, Provider
from textual.content import Content
from textual.markup import escape

from planwatch.core.model import harness_label
from planwatch.core.text import safe_text, shorten
from planwatch.tui.widgets.key_footer import KeysFooter
from planwatch.tui.widgets.session_rows import age, short_folder, untitled

# The palette lists this many sessions before anything is typed (newest first).
DISCOVER_LIMIT = 30


class SessionsProvider(Provider):
    """Sessions as palette hits; choosing one shows it on the browse screen."""

    def _sessions(self) -> Iterator[tuple[str, str, str]]:
        """(session id, title shown, what else a search matches: folder and harness)."""
        entries = getattr(self.app, "entries", None)
        if entries is None or getattr(self.screen, "show_session", None) is None:
            return
        for entry in entries():
            session = entry.session
            title = safe_text(session.title or untitled(session.harness), single_line=True)
            folder = short_folder(session.cwd or "", str(Path.home()))
            yield (
                session.id,
                shorten(title, 80),
                f"{harness_label(session.harness)} {safe_text(folder, single_line=True)}",
            )

    def _help(self, session_id: str, facts: str) -> str:
        entry = self.app.entry(session_id) if hasattr(self.app, "entry") else None  # type: ignore[attr-defined]
        when = ""
        if entry is not None and hasattr(self.app, "now"):
            when = f" · {age(entry.session.updated, self.app.now())} ago"  # type: ignore[attr-defined]
        harness, _, folder = facts.partition(" ")
        # The palette reads help as markup: a folder's own `[…]` is shown, never styled.
        return escape(f"{harness} · {folder or 'no folder'}{when}")

    def _show(self, session_id: str) -> Any:
        async def show() -> None:
            target = getattr(self.screen, "show_session", None)
            if target is not None:
                target(session_id)

        return show

    async def discover(self) -> Hits:
        for n, (session_id, title, facts) in enumerate(self._sessions()):
            if n >= DISCOVER_LIMIT:
                break
            yield DiscoveryHit(Content(title), self._show(session_id), help=self._help(session_id, facts))

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for session_id, title, facts in self._sessions():
            score = matcher.match(f"{title} {facts}")
            if score > 0:
                yield Hit(
                    score,
                    matcher.highlight(escape(title)),
                    self._show(session_id),
                    text=title,
                    help=self._help(session_id, facts),
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
