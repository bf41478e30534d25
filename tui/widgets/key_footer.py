"""The footer that keeps the keys that matter: Textual's Footer, fitted to its width.

Textual's Footer lays every shown binding out in a row and cuts what does not fit, so at
80 columns `? Help` and `q Quit` fell off the end. This one hides, when the row is too
narrow, the keys that matter least first (tui.commands.FOOTER_PRIORITY), always keeps
`?` (which lists every key), and drops the palette hint below PALETTE_WIDTH columns (the
help names ctrl+p). Keys keep their order; a hidden key still works.
"""

from __future__ import annotations

from textual.events import Resize
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

from planwatch.tui.commands import FOOTER_PRIORITY

PALETTE_WIDTH = 70
ALWAYS = "help"


def _rank(action: str) -> int:
    name = action.rpartition(".")[2]
    return FOOTER_PRIORITY.index(name) if name in FOOTER_PRIORITY else len(FOOTER_PRIORITY)


class KeysFooter(Footer):
    """A Footer that fits its keys to its width, most important first, `?` always."""

    def on_mount(self) -> None:
        self.call_after_refresh(self.fit_keys)

    def on_resize(self, event: Resize) -> None:
        self.call_after_refresh(self.fit_keys)

    async def recompose(self) -> None:
        await super().recompose()
        self.fit_keys()

    def fit_keys(self) -> None:
        width = self.size.width
        if not width:
            return
        keys = [key for key in self.query_children(FooterKey) if not key.has_class("-command-palette")]
        palette = [key for key in self.query_children(FooterKey) if key.has_class("-command-palette")]
        show_palette = width >= PALETTE_WIDTH
        for key in palette:
            key.display = show_palette
        room = width - (14 if show_palette and palette else 0)
        used = 0
        keep: set[int] = set()
        for key in sorted(keys, key=lambda k: (k.action.rpartition(".")[2] != ALWAYS, _rank(k.action))):
            cells = len(key.key_display) + 1 + len(key.description) + 2  # padding 0 1
            if used + cells <= room or key.action.rpartition(".")[2] == ALWAYS:
                keep.add(id(key))
                used += cells
        for key in keys:
            key.display = id(key) in keep
