"""Untrusted text made safe to print (core/text.py): every control character, bidi
override and invisible character shown as an escape, plain text kept as it is (the
fast path for ASCII)."""

from __future__ import annotations

import io
import logging
import unicodedata

import pytest

from planwatch.core.text import SafeWriter, safe_text


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


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("zero\u200bwidth\u200c\u200d joiners\u2060\ufeff", "zero\\u200bwidth\\u200c\\u200d joiners\\u2060\\ufeff"),
        (
            "tags \U000e0001\U000e0072\U000e006d\U000e007f\U000e0000",
            "tags \\U000e0001\\U000e0072\\U000e006d\\U000e007f\\U000e0000",
        ),
        ("soft\u00adhyphen and \u2062invisible times", "soft\\xadhyphen and \\u2062invisible times"),
        ("fillers \u115f\u3164\uffa0 cgj a\u034fb", "fillers \\u115f\\u3164\\uffa0 cgj a\\u034fb"),
        # VS16 after a visible character chooses the emoji; a run, a lone one, or any
        # of the other 254 selectors hides data.
        ("love \u2764\ufe0f ok", "love \u2764\ufe0f ok"),
        ("run a\ufe0f\ufe0f\ufe0e", "run a\ufe0f\\ufe0f\\ufe0e"),
        ("\ufe0fstart and \ufe0fafter a space", "\\ufe0fstart and \\ufe0fafter a space"),
        ("a\ufe00\U000e0100\U000e01ef", "a\\ufe00\\U000e0100\\U000e01ef"),
        ("family 👨\u200d👩\u200d👧", "family 👨\\u200d👩\\u200d👧"),
        ("accents é, emoji 😀, CJK 漢字", "accents é, emoji 😀, CJK 漢字"),
    ],
)
def test_invisible_characters_are_shown_as_escapes(text: str, shown: str) -> None:
    assert safe_text(text) == shown
    assert safe_text(shown) == shown  # a fixed point: safe text passed again is unchanged


def test_every_format_character_of_this_pythons_unicode_is_shown_as_an_escape() -> None:
    """Category Cf as the running interpreter knows it, and the whole tag block."""
    format_chars = [chr(c) for c in range(0x110000) if unicodedata.category(chr(c)) == "Cf"]
    format_chars += [chr(c) for c in range(0xE0000, 0xE0080)]
    assert len(format_chars) > 150
    kept = [f"U+{ord(c):04X}" for c in format_chars if safe_text(f"a{c}b") == f"a{c}b"]
    assert kept == []


def test_lone_surrogates_are_shown_as_escapes_and_the_text_then_encodes_as_utf8() -> None:
    """A JSON line's `\\ud800` (the standard library decodes it to a lone surrogate) and
    a file name's undecodable byte (`\\udcff`, as Python keeps it) are no characters:
    shown as escapes, so the text can be written as UTF-8 (it used to stop a listing)."""
    every = "".join(chr(c) for c in range(0xD800, 0xE000))
    shown = safe_text(f"a{every}b")
    assert shown == "a" + "".join(f"\\u{c:04x}" for c in range(0xD800, 0xE000)) + "b"
    assert safe_text("fix \ud800 the \udcff bug 😀", single_line=True) == "fix \\ud800 the \\udcff bug 😀"
    assert safe_text("\ud83d\ude00") == "\\ud83d\\ude00"  # a pair in a Python str is still two lone halves
    assert safe_text(shown) == shown
    shown.encode("utf-8")


def test_stderr_through_safe_writer_gets_every_sentence_and_log_line_as_safe_text() -> None:
    sink = io.StringIO()
    writer = SafeWriter(sink)
    print("file tasks/t9\x1b]52;c;eA==\x07.md\tleft out", file=writer)
    handler = logging.StreamHandler(writer)
    logger = logging.getLogger("planwatch.test.safe_writer")
    logger.addHandler(handler)
    try:
        logger.warning("skipped %s", "a\u200b\x9bb")
    finally:
        logger.removeHandler(handler)
    assert sink.getvalue() == "file tasks/t9\\x1b]52;c;eA==\\x07.md\tleft out\nskipped a\\u200b\\x9bb\n"
    assert writer.terminal is sink
