"""The help screen (`?`): every key of the app, read from the one list in `tui.commands`,
then what the marks mean (tui.legend).

The screen does not keep its own list: it reads `tui.commands.COMMANDS`, so it cannot disagree with the bindings, the footer and
the command palette. An entry is anything with a key and a description: a
`textual.binding.Binding`, or a command object with `key`/`keys`, `description`, and
optionally `key_display`, `tooltip` or `help`, and `group`/`scope`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.markup import escape
from textual.screen import ModalScreen
from textual.widgets import Static

from planwatch.tui.cells import fit, width_of
from planwatch.tui.commands import COMMANDS, Command
from planwatch.tui.keys import key_label
from planwatch.tui.legend import legend
from planwatch.tui.widgets.key_footer import KeysFooter


@dataclass(frozen=True)
class HelpRow:
    """One line of the help table: the keys shown, what they do, and where they work."""

    keys: str
    description: str
    detail: str = ""
    group: str = ""


# Where a command works, as a person would say it (tui.commands scopes).
_SCOPE_NAMES = {"app": "everywhere", "browse": "sessions"}


def help_row(entry: Command | Binding) -> HelpRow | None:
    """The help line of one of the app's commands or of a screen's own binding; None for
    one without a description (a hidden internal)."""
    if not entry.description:
        return None
    if isinstance(entry, Command):
        # The command's own display form: it is what the footer shows too.
        return HelpRow(entry.display_keys, entry.description, entry.help, _SCOPE_NAMES.get(entry.scope, entry.scope))
    shown = entry.key_display or key_label(entry.key)
    return HelpRow(shown, entry.description, entry.tooltip)


def help_rows(commands: Iterable[Command | Binding]) -> list[HelpRow]:
    """The help lines of the app's command list (or a screen's bindings), in its order;
    entries without a key or a description (hidden internals) are left out."""
    return [row for entry in commands if (row := help_row(entry)) is not None and row.keys]


def screen_rows(group: str, bindings: Iterable[BindingType], known: Iterable[HelpRow]) -> list[HelpRow]:
    """The keys a screen binds itself (the store view's `v`, settings' `ctrl+s`) that the
    app's command list does not already hold, under the screen's `HELP_GROUP` name."""
    if not group:
        return []
    # A key listed the same way (keys, words and detail) is not repeated; the same key
    # doing something else here (the store view's `e` edits a record) is listed.
    seen = {(row.keys, row.description, row.detail) for row in known}
    rows = []
    for row in help_rows(b for b in bindings if isinstance(b, Binding)):
        if (row.keys, row.description, row.detail) not in seen:
            rows.append(HelpRow(row.keys, row.description, row.detail, group))
    return rows


class ScreenKeysProvider(Provider):
    """Command palette entries for a screen's own keys (the store view's approve, review…),
    so the palette lists them as the help screen does. Add it to a screen's `COMMANDS`."""

    def _bindings(self) -> list[tuple[str, Binding]]:
        screen = self.screen
        found = []
        for binding in screen.BINDINGS:
            if isinstance(binding, Binding) and binding.description:
                keys = binding.key_display or key_label(binding.key)
                found.append((f"{binding.description} ({keys})", binding))
        return found

    async def discover(self) -> Hits:
        for title, binding in self._bindings():
            yield DiscoveryHit(
                Content(title), partial(self.screen.run_action, binding.action), help=escape(binding.tooltip) or None
            )

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, binding in self._bindings():
            score = matcher.match(f"{title} {binding.tooltip}")
            if score > 0:
                yield Hit(
                    score,
                    matcher.highlight(escape(title)),
                    partial(self.screen.run_action, binding.action),
                    help=escape(binding.tooltip) or None,
                )


NARROW = 60


def legend_text() -> Content:
    """What the marks mean (tui.legend), under the keys: each mark drawn as the screen
    draws it, in its theme colour, and its meaning in words."""
    groups = legend()
    width = max(width_of(row.mark) for _, rows in groups for row in rows) + 2
    parts: list[Content | tuple[str, str] | str] = [("\nWhat the marks mean", "bold")]
    for title, rows in groups:
        parts += ["\n", (title, "bold italic")]
        for row in rows:
            parts += ["\n  ", (fit(row.mark, width), row.style), row.meaning]
    return Content.assemble(*parts)


class HelpScreen(ModalScreen[None]):
    """Every key of the app (and of the screen it was opened over); esc, q or ? closes it."""

    CSS_PATH = "help.tcss"
    BINDINGS = [
        Binding("escape,q,question_mark", "dismiss_help", "Close", tooltip="Close the help screen"),
    ]

    def __init__(
        self,
        group: str = "",
        bindings: Iterable[BindingType] = (),
        check_action: Callable[[str, tuple[object, ...]], bool | None] | None = None,
    ) -> None:
        """The screen that opens it hands it what it lists: its own keys (`HELP_GROUP`,
        `BINDINGS`), listed above the app's under that name, and its `check_action`."""
        super().__init__()
        commands = self.commands()
        if check_action is not None:
            # Keys the screen below turns off in its current mode (pane mode's filter)
            # are not listed: every key shown works where it is shown.
            commands = [
                c
                for c in commands
                if not isinstance(c, Command) or c.scope != "browse" or check_action(c.action, ()) is not False
            ]
        rows = help_rows(commands)
        self._rows = screen_rows(group, bindings, rows) + rows

    def commands(self) -> Iterable[Command | Binding]:
        """What the screen lists: the app's one list of commands."""
        return COMMANDS

    @property
    def rows(self) -> list[HelpRow]:
        return list(self._rows)

    def compose(self) -> ComposeResult:
        with Vertical(id="help-box"):
            yield Static("Keys", id="help-title")
            with VerticalScroll(id="help-scroll"):
                yield Static(id="help-table")
                yield Static(legend_text(), id="help-legend")
            yield Static(
                "Every command is also in the command palette (ctrl+p). The mouse works too.",
                id="help-hint",
            )
        yield KeysFooter()

    def on_mount(self) -> None:
        self.query_one("#help-table", Static).update(self.table())
        self.query_one("#help-scroll").focus()

    def on_resize(self) -> None:
        self.query_one("#help-table", Static).update(self.table())

    def table(self) -> Table:
        """The rows as a Rich table; long descriptions wrap rather than being cut. Narrow
        (under NARROW columns), "where" becomes a heading over its keys instead of a
        column, so the descriptions keep the width."""
        table = Table(box=None, expand=True, show_edge=False, pad_edge=False, header_style="bold")
        grouped = any(row.group for row in self._rows)
        narrow = self.size.width and self.size.width < NARROW
        as_column = grouped and not narrow
        if as_column:
            table.add_column("Where", no_wrap=True)
        table.add_column("Key", no_wrap=True, style="bold")
        table.add_column("Does", ratio=1)
        group = None
        for row in self._rows:
            if grouped and not as_column and row.group != group:
                group = row.group
                table.add_row(Text(row.group.capitalize(), style="bold italic"), Text(""))
            # Text, not markup: a description like "[x] done" must show as written.
            description = Text(row.description, style="bold")
            if row.detail and row.detail != row.description:
                description.append("  " + row.detail, style="")
            cells: list[Text] = [Text(row.group)] if as_column else []
            table.add_row(*cells, Text(row.keys), description)
        return table

    def action_dismiss_help(self) -> None:
        self.dismiss(None)


class SwitcherHelp(HelpScreen):
    """The session switcher's help: its own keys only. The app's keys do nothing there
    (a letter types into its search box), so they are not listed."""

    def commands(self) -> Iterable[Command | Binding]:
        return ()
