"""The one list of commands. It drives the key bindings, the footer, the help screen
and the command palette, so none of them can disagree.

`scope` says where a command's binding lives: "app" (everywhere) or "browse" (the
browse screen, which is also pane mode). The help screen lists COMMANDS in order.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from textual.binding import Binding, BindingType
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content
from textual.markup import escape

from planwatch.tui.keys import key_label

if TYPE_CHECKING:
    from textual.screen import Screen

Scope = Literal["app", "browse"]


@dataclass(frozen=True)
class Command:
    """One thing a person can do, with every key that does it."""

    keys: str  # Textual key names, comma separated ("j,down")
    action: str  # the action name, without "action_"
    description: str  # short: footer and palette title
    help: str  # one sentence: tooltip, palette help, help screen
    scope: Scope = "browse"
    show: bool = True  # shown in the footer
    key_display: str | None = None
    palette: bool = True  # offered in the command palette

    @property
    def display_keys(self) -> str:
        """The keys as a person reads them, for the help screen."""
        return self.key_display or key_label(self.keys)


COMMANDS: tuple[Command, ...] = (
    Command("j,down", "cursor_down", "Down", "Move to the next row.", show=False, key_display="j ↓", palette=False),
    Command("k,up", "cursor_up", "Up", "Move to the previous row.", show=False, key_display="k ↑", palette=False),
    Command("g", "cursor_first", "Top", "Move to the first row (in the details: the top).", show=False, palette=False),
    Command("G", "cursor_last", "Bottom", "Move to the last row (in the details: the end).", show=False, palette=False),
    Command("ctrl+d", "half_page_down", "Half page down", "Move half a page down.", show=False, palette=False),
    Command("ctrl+u", "half_page_up", "Half page up", "Move half a page up.", show=False, palette=False),
    Command(
        "tab",
        "switch_focus",
        "Switch",
        "Move to the next part: session list, checklist, details (when open); pane mode has no list.",
        show=False,
        palette=False,
    ),
    Command(
        "space",
        "tick",
        "Tick",
        "Tick or untick the checklist's item: an override on an agent item, todo↔done on your own (from the session list: moves to the checklist first).",
    ),
    Command("a", "add_item", "Add", "Add one of your own items to this session."),
    Command(
        "e",
        "edit_item",
        "Edit",
        "Edit the title of your own item in the checklist (from the session list: moves to the checklist first).",
    ),
    Command(
        "d",
        "drop_item",
        "Drop",
        "Drop your own item in the checklist; it stays in the store as dropped (from the session list: moves to the checklist first).",
    ),
    Command("u", "undo", "Undo", "Undo the last tick, edit or drop."),
    Command("y", "copy_checklist", "Copy", "Copy the checklist as Markdown (- [x] …) to the clipboard."),
    Command(
        "o",
        "open_outside",
        "Open",
        "Open the transcript in $PAGER (an OpenCode session: its plan and prompts as text; with the details focused on a plan document: the document).",
    ),
    Command("E", "edit_record", "Edit file", "Open your item's store record in $EDITOR.", show=False),
    Command(
        "enter", "details", "Details", "Show or hide the details of the session: source, steps, overrides, timeline."
    ),
    Command("slash", "filter", "Filter", "Filter the sessions by typing.", key_display="/"),
    Command(
        "O",
        "cycle_order",
        "Order",
        "Order the sessions: newest first, grouped by folder, grouped by harness.",
        show=False,
    ),
    Command("r", "running_only", "Running", "Show only running sessions, or all again.", show=False),
    Command(
        "s",
        "pick_session",
        "Sessions",
        "Jump to any session, of any folder: fuzzy by title, folder or harness (pane mode then stays on it).",
    ),
    Command("escape", "close", "Back", "Close the filter or the details.", show=False, palette=False),
    Command("t", "store_view", "Store", "Switch to the store view: plans, tasks, approve and review.", scope="app"),
    Command("comma", "settings", "Settings", "Open the settings.", scope="app", key_display=","),
    Command("question_mark", "help", "Help", "Show every key.", scope="app", key_display="?"),
    Command(
        "ctrl+p", "command_palette", "Palette", "Open the command palette.", scope="app", show=False, palette=False
    ),
    Command("q", "quit", "Quit", "Quit planwatch.", scope="app"),
)


# Which footer keys stay when the footer is too narrow for all: the first ones. `help`
# always stays (tui.widgets.key_footer); the rest are in the help and the palette.
FOOTER_PRIORITY: tuple[str, ...] = (
    # back, save and cancel: the store view's and the settings screen's ways out; add_task
    # to filters: the store view's own keys (the browse screen has none of them).
    "help",
    "back",
    "save",
    "cancel",
    "tick",
    "pick_session",
    "add_item",
    "undo",
    "details",
    "quit",
    "add_task",
    "approve",
    "review",
    "edit_task",
    "new_plan",
    "filters",
    "filter",
    "store_view",
    "edit_item",
    "drop_item",
    "settings",
)


def bindings(scope: Scope) -> list[BindingType]:
    """The Textual bindings of one scope, with descriptions and tooltips."""
    return [
        Binding(
            command.keys,
            command.action,
            command.description,
            show=command.show,
            key_display=command.key_display,
            tooltip=command.help,
        )
        for command in COMMANDS
        if command.scope == scope and command.action != "command_palette"
    ]


def runs_on(command: Command, screen: Screen) -> bool:
    """Whether `command` does something on `screen`: an app command where the app allows it,
    a screen's command where that screen has the action and allows it now."""
    if command.scope == "app":
        return True
    # A screen's commands are the ones it binds (the browse screen binds every browse
    # command: `bindings("browse")`).
    if not any(isinstance(b, Binding) and b.action == command.action for b in screen.BINDINGS):
        return False
    return screen.check_action(command.action, ()) is not False


class PlanwatchCommands(Provider):
    """The command palette's provider: every palette command of COMMANDS."""

    def _available(self) -> Iterable[tuple[Command, Screen]]:
        # Only what runs where the palette was opened: the browse screen's keys mean nothing
        # over the store view or the settings (whose own keys ScreenKeysProvider lists).
        screen = self.screen
        for command in COMMANDS:
            if command.palette and runs_on(command, screen):
                yield command, screen

    async def _run(self, command: Command) -> None:
        target = self.app if command.scope == "app" else self.screen
        await target.run_action(command.action)

    async def discover(self) -> Hits:
        for command, _ in self._available():
            yield DiscoveryHit(
                Content(f"{command.description} ({command.display_keys})"),
                lambda c=command: self._run(c),
                help=escape(command.help),
            )

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for command, _ in self._available():
            title = f"{command.description} ({command.display_keys})"
            score = matcher.match(f"{title} {command.help}")
            if score > 0:
                yield Hit(
                    score, matcher.highlight(escape(title)), lambda c=command: self._run(c), help=escape(command.help)
                )
