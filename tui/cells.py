"""Text fitted to terminal cells: a CJK character or an emoji takes two cells, a
combining mark none, so a column is measured in cells, never in characters
(`rich.cells.cell_len`). A cut never splits a character from the marks that follow it,
and ends (or starts) with an ellipsis.
"""

from __future__ import annotations

import unicodedata

from rich.cells import cell_len

ELLIPSIS = "…"


def _boundaries(text: str) -> list[int]:
    """Where `text` may be cut: before each character that is not a combining mark, a
    joiner or a variation selector (those belong to the character before them)."""
    return [i for i, ch in enumerate(text) if i == 0 or not _joins(ch)] + [len(text)]


def _joins(ch: str) -> bool:
    return unicodedata.combining(ch) != 0 or ch in "\u200d\ufe0e\ufe0f" or unicodedata.category(ch) == "Me"


def head(text: str, cells: int) -> str:
    """The longest start of `text` that takes at most `cells` cells."""
    if cells <= 0:
        return ""
    if text.isascii():
        return text[:cells]
    if cell_len(text) <= cells:
        return text
    cuts = _boundaries(text)
    low, high = 0, len(cuts) - 1  # cell_len(text[:cuts[low]]) fits; text[:cuts[high]] does not
    while high - low > 1:
        middle = (low + high) // 2
        if cell_len(text[: cuts[middle]]) <= cells:
            low = middle
        else:
            high = middle
    return text[: cuts[low]]


def tail(text: str, cells: int) -> str:
    """The longest end of `text` that takes at most `cells` cells."""
    if cells <= 0:
        return ""
    if text.isascii():
        return text[len(text) - cells :] if cells < len(text) else text
    if cell_len(text) <= cells:
        return text
    cuts = _boundaries(text)
    low, high = len(cuts) - 1, 0  # text[cuts[low]:] fits; text[cuts[high]:] does not
    while low - high > 1:
        middle = (low + high) // 2
        if cell_len(text[cuts[middle] :]) <= cells:
            low = middle
        else:
            high = middle
    return text[cuts[low] :]


def width_of(text: str) -> int:
    """The cells `text` takes."""
    return len(text) if text.isascii() else cell_len(text)


def cut(text: str, cells: int) -> str:
    """`text` in at most `cells` cells: whole, or its start and an ellipsis."""
    if cells <= 0:
        return ""
    if width_of(text) <= cells:
        return text
    return head(text, cells - 1) + ELLIPSIS


def cut_left(text: str, cells: int) -> str:
    """`text` in at most `cells` cells: whole, or an ellipsis and its end (the end of a
    folder path says most)."""
    if cells <= 0:
        return ""
    if width_of(text) <= cells:
        return text
    return ELLIPSIS + tail(text, cells - 1)


def pad(text: str, cells: int) -> str:
    """`text` padded with spaces to `cells` cells (text already no wider)."""
    return text + " " * max(0, cells - width_of(text))


def fit(text: str, cells: int) -> str:
    """`text` in exactly `cells` cells: padded, or cut with an ellipsis."""
    return pad(cut(text, cells), cells)


def fit_left(text: str, cells: int) -> str:
    """`text` in exactly `cells` cells: padded, or cut from the left with an ellipsis."""
    return pad(cut_left(text, cells), cells)


def shorten_cells(text: str, cells: int) -> str:
    """One safe line of `text` in at most `cells` cells, with an ellipsis when cut (as
    `core.text.shorten`, which counts characters, but measured in cells)."""
    from planwatch.core.text import safe_text

    return cut(" ".join(safe_text(text, single_line=True).split()), cells)
