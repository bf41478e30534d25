"""The pill: done/total over both sections with a small pie (○◔◑◕●)."""

from __future__ import annotations

from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

from planwatch.tui import colours

PIE = "○◔◑◕●"


def pie(done: int, total: int) -> str:
    """One character: empty, quarters, full. A started list never shows empty and an
    unfinished one never shows full, so the pie does not claim more than is true."""
    if total <= 0 or done <= 0:
        return PIE[0]
    if done >= total:
        return PIE[4]
    step = round(4 * done / total)
    return PIE[min(max(step, 1), 3)]


def pill_text(done: int, total: int) -> Content:
    """The pill as Content, for rows of the session list and for the Pill widget."""
    if total <= 0:
        return Content.styled("○ –", colours.MUTED)
    style = colours.DONE if done >= total else (colours.WARNING if done else "")
    return Content.assemble((pie(done, total), style), " ", (f"{done}/{total}", style))


class Pill(Widget):
    """The pill as a widget; its tooltip is the hover card (set by its owner)."""

    DEFAULT_CSS = """
    Pill {
        width: auto;
        height: 1;
        padding: 0 1;
    }
    """

    # Repainted when they change; laid out again only when the pill's width does (its
    # box is as wide as its text, and a layout repaints the whole screen: boxed.py).
    done: reactive[int] = reactive(0)
    total: reactive[int] = reactive(0)

    def set_counts(self, done: int, total: int) -> None:
        width = pill_text(self.done, self.total).cell_length
        self.done, self.total = done, total
        if pill_text(done, total).cell_length != width:
            self.refresh(layout=True)

    def render(self) -> Content:
        return pill_text(self.done, self.total)
