"""Whether a widget's box follows what it shows.

Textual lays the whole screen out again when a widget asks for a layout, and a layout
repaints every widget on the screen (about 20 ms of the UI thread at 120x36). A widget
whose box the stylesheet fixes (a height of 1 or `1fr`, a width from its container)
only needs repainting when its text or its lines change; one sized by its content
(`height: auto`, `width: auto`) needs the layout.
"""

from __future__ import annotations

from textual.widget import Widget


def sized_by_content(widget: Widget) -> bool:
    """True when a change of what `widget` shows may change the size of its box."""
    height, width = widget.styles.height, widget.styles.width
    return height is None or height.is_auto or (width is not None and width.is_auto)
