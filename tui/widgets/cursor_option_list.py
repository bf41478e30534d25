"""An OptionList whose row under the cursor takes the cursor's colours.

A row's colours (tui/colours.py) are chosen to read on the list's background; on the
cursor's they often do not, so the highlighted row is drawn without them, in the cursor's
own colours, which tui/theme.py makes readable per theme.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Self

from textual.content import Content, Span
from textual.strip import Strip
from textual.style import Style
from textual.widgets import OptionList
from textual.widgets.option_list import Option


def without_colour(style: str | Style) -> str | Style:
    """A span style with its colours removed (bold, italic, strike… kept)."""
    if isinstance(style, Style):
        return Style(bold=style.bold, italic=style.italic, strike=style.strike, underline=style.underline)
    kept = [word for word in style.split() if word in ("bold", "italic", "strike", "underline", "not")]
    return " ".join(kept)


def plain_for_cursor(content: Content) -> Content:
    """`content` as it shows under the cursor: the cursor's colours, the row's emphasis."""
    spans = [Span(span.start, span.end, without_colour(span.style)) for span in content.spans]
    return Content(content.plain, spans=[span for span in spans if span.style])


class CursorPlainOptionList(OptionList):
    """An OptionList whose highlighted row drops its own colours for the cursor's.

    A row's colours are chosen to read on the list's background; on the cursor's they
    often do not (textual-dark's green on its blue cursor is 2.6:1). The cursor's text
    colour is made readable per theme (readable_variables), so the highlighted row reads
    whatever its state; the marks still tell states apart by their glyphs."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # option -> (the prompt it was made from, its colourless twin)
        self._cursor_twins: dict[Option, tuple[object, Option]] = {}

    def _get_option_render(self, option: Option, style: Style) -> list[Strip]:
        # Textual draws (and caches) an option per style; the highlighted one is drawn
        # from a colourless twin of its prompt. Overrides a private hook of the pinned
        # Textual: no public one sees the prompt and the highlight together.
        index = self._option_to_index.get(option)
        prompt = option.prompt
        if index is None or index != self.highlighted or option.disabled or not isinstance(prompt, Content):
            return super()._get_option_render(option, style)
        made_from, twin = self._cursor_twins.get(option, (None, None))
        if twin is None or made_from is not prompt:
            twin = Option(plain_for_cursor(prompt))
            self._cursor_twins[option] = (prompt, twin)
        self._option_to_index[twin] = index  # the rendered row's click target
        return super()._get_option_render(twin, style)

    def clear_options(self) -> Self:
        self._cursor_twins.clear()
        return super().clear_options()

    def set_options(self, options: Iterable[Any]) -> Self:
        self._cursor_twins.clear()
        return super().set_options(options)
