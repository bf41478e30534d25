"""Key names as a person reads them, from Textual's own `format_key` (so the help
screen, the palette and the footer agree)."""

from __future__ import annotations

from textual.keys import format_key

# Textual shows enter as a glyph (⏎); the help screen spells it out, as it is typed.
_SPELLED = {"enter": "enter"}


def key_label(key: str) -> str:
    """`"j,down"` → `"j / ↓"`; `"ctrl+p"` stays `"ctrl+p"`."""
    parts = [part.strip() for part in key.split(",") if part.strip()]
    return " / ".join(_SPELLED.get(part) or format_key(part) for part in parts)
