"""The modal to add or edit one of the person's own items: returns the title or None."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label

from planwatch.tui.widgets.key_footer import KeysFooter


class ItemEditor(ModalScreen[str | None]):
    """Ask for an item's title. Enter saves, Escape cancels (dismisses with None)."""

    DEFAULT_CSS = """
    /* At the bottom, over a lightly dimmed screen: the checklist stays readable behind. */
    ItemEditor {
        align: center bottom;
    }
    ItemEditor > Vertical {
        width: 70;
        max-width: 95%;
        height: auto;
        border: round $accent;
        padding: 0 1;
        background: $surface;
    }
    ItemEditor Label { width: 1fr; }
    ItemEditor .hint { color: $text-muted; }
    """

    BINDINGS = [Binding("escape", "cancel", "Cancel", tooltip="Close without saving.")]

    def __init__(self, title: str = "", *, heading: str = "New item") -> None:
        super().__init__()
        self._title = title
        self._heading = heading

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self._heading, markup=False)
            # Editing adds to the text rather than replacing it: the cursor starts at the
            # end, nothing selected.
            yield Input(value=self._title, placeholder="What needs doing?", id="item-title", select_on_focus=False)
            yield Label("enter saves · esc cancels", classes="hint", markup=False)
        # The dialog's own keys at the bottom, over the browse screen's: the footer shows
        # what the focused screen does, never keys that would act behind it.
        yield KeysFooter()

    def on_mount(self) -> None:
        box = self.query_one("#item-title", Input)
        box.cursor_position = len(box.value)

    @on(Input.Submitted, "#item-title")
    def _save(self, event: Input.Submitted) -> None:
        title = " ".join(event.value.split())
        self.dismiss(title or None)

    def action_cancel(self) -> None:
        self.dismiss(None)
