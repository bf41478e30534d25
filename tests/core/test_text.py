"""Untrusted text made safe to print (core/text.py): every control character and bidi
override shown as an escape, plain text kept as it is (the fast path for ASCII)."""

from __future__ import annotations

import pytest

from planwatch.core.text import safe_text


@pytest.mark.parametrize(
    ("text", "single_line", "shown"),
    [
        ("plain ASCII title ~!", False, "plain ASCII title ~!"),
        ("", True, ""),
        ("tab\there", False, "tab\there"),
        ("tab\there", True, "tab here"),
        ("two\r\nlines\n", True, "two lines "),
        ("esc \x1b[31mred", True, "esc \\x1b[31mred"),
        ("del \x7f and csi \x9b", False, "del \\x7f and csi \\x9b"),
        ("nul \x00", True, "nul \\x00"),
        ("bidi \u202e reversed \u2066", True, "bidi \\u202e reversed \\u2066"),
        ("line\u2028sep\u2029par", True, "line sep par"),
        ("accents é and emoji 😀", True, "accents é and emoji 😀"),
    ],
)
def test_safe_text_escapes_controls_and_bidi_and_keeps_plain_text(text: str, single_line: bool, shown: str) -> None:
    assert safe_text(text, single_line=single_line) == shown
