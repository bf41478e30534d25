"""The store view's table: a DataTable whose status marks take the theme's colours.

Each status has a component class (`store-table--doing`, …) styled with the theme's
variables ($text-warning, $text-error, $text-success, $text-muted …), as Textual's own
widgets style their parts; `status_style` hands the screen the Rich style to build a
status cell with. The app makes those variables read at ≥ 4.5:1 on this table's
backgrounds (tui.theme); under the cursor a cell takes the cursor's colours (the
DataTable's default `cursor_foreground_priority="css"`).

Cells are Rich `Text` built once per fill, so their colours are the theme's at that
moment: the owner fills the table again when the theme changes.
"""

from __future__ import annotations

from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual.widgets import DataTable

from planwatch.core.store.schema import PLAN_STATUSES, TASK_STATUSES

STATUSES = tuple(dict.fromkeys((*TASK_STATUSES, *PLAN_STATUSES)))


def status_class(status: str) -> str:
    """The component class that colours `status`."""
    return f"store-table--{status}"


class StoreTable(DataTable[Text]):
    """Plans and their tasks, one row each; marks coloured from the theme."""

    COMPONENT_CLASSES: ClassVar[set[str]] = DataTable.COMPONENT_CLASSES | {status_class(s) for s in STATUSES}

    # Self-contained, as Textual's widgets style their component classes: the roles
    # match tui.colours (doing and blocked bold, done in the success colour, dropped
    # and draft quiet).
    DEFAULT_CSS = """
    StoreTable {
        & > .store-table--todo { color: $foreground; }
        & > .store-table--doing { color: $text-warning; text-style: bold; }
        & > .store-table--blocked { color: $text-error; text-style: bold; }
        & > .store-table--review { color: $text-secondary; }
        & > .store-table--done { color: $text-success; }
        & > .store-table--dropped { color: $text-muted; }
        & > .store-table--draft { color: $text-muted; }
        & > .store-table--active { color: $text-primary; text-style: bold; }
        /* Without focus (a filter being typed) the cursor stays in sight in the
           cursor's own colours (made readable per theme in tui.theme), underlined to
           say the table is not where keys go. DataTable's own blurred cursor is the
           primary colour at 30%, 1.3:1 against a row in several themes, and nothing at
           all in the ANSI themes; a half-strength cursor left its text under 4.5:1 in
           some themes. The underline shows in every theme. */
        &:blur > .datatable--cursor {
            background: $block-cursor-background;
            color: $block-cursor-foreground;
            text-style: underline;
        }
        &:ansi:blur > .datatable--cursor { background: ansi_default; }
    }
    """

    def status_style(self, status: str) -> Style:
        """The Rich style of `status`'s mark and word (colour and emphasis only: the
        row's background stays the table's, or the cursor's)."""
        name = status_class(status)
        if name not in self.COMPONENT_CLASSES:
            return Style()
        own = self.get_component_rich_style(name, partial=True)
        styles = self.get_component_styles(name)
        if not styles.has_rule("color"):
            return own
        # A translucent or "auto" colour ($text-muted is "auto 60%") is only known over a
        # background: the table's own, not the tint focus adds (which comes and goes), so a
        # fill gives the same colours whatever has focus at that moment.
        background = self.styles.background
        color = background.get_contrast_text(styles.color.a) if styles.auto_color else styles.color
        return own + Style(color=(background + color).rich_color)
