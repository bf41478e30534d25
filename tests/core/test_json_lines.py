"""A transcript line is decoded by msgspec's C decoder, with the standard library taking
what msgspec refuses: a line must parse exactly when the standard library parses it, to
the same value, and fail with the standard library's error otherwise."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planwatch.core.transcripts.reader import _BAD_JSON, load_json_line, load_json_text

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def standard(line: bytes) -> Any:
    """What a line decoded to before msgspec: the standard library over UTF-8 with
    surrogates passed through, a BOM dropped."""
    if line.startswith(b"\xef\xbb\xbf"):
        line = line[3:]
    return json.JSONDecoder().decode(line.decode("utf-8", "surrogatepass"))


def outcome(decode: Any, line: bytes) -> tuple[str, Any]:
    try:
        value = decode(line)
    except _BAD_JSON as error:
        return "refused", type(error).__name__
    return "parsed", _comparable(value)


def _comparable(value: Any) -> Any:
    # NaN is not equal to itself: compare it by name, and keep types apart (1 != 1.0 here).
    if isinstance(value, float):
        return ("float", "nan" if math.isnan(value) else value)
    if isinstance(value, dict):
        return {key: _comparable(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_comparable(item) for item in value]
    return (type(value).__name__, value)


def assert_same(line: bytes) -> None:
    assert outcome(load_json_line, line) == outcome(standard, line), line[:200]


EDGES = [
    b'{"a":1,"a":2}',  # a duplicate key: the last wins in both
    b'{"x":"\\ud800"}',  # an escaped lone surrogate (Python's own writer emits these)
    b'{"s":"\xed\xa0\x80"}',  # a raw surrogate in the bytes
    b'["\\udc00\\ud800"]',
    b'["\\ud83d\\ude00"]',
    b'{"f":NaN}',
    b"[Infinity]",
    b"[-Infinity]",
    b'{"f":1e400}',
    b"[1e-400]",
    b"[18446744073709551616]",
    b"[-9223372036854775809]",
    b"[123456789012345678901234567890.5]",
    b'{"a":"x\ny"}',
    b'{"a":"x\ty"}',
    b'{"a":"\x00"}',  # control characters in a string
    b"[01]",
    b"[1.]",
    b"[.5]",
    b"[-0]",
    b"[1E5]",
    b'["\\x"]',
    b"[True]",
    b"['a']",
    b'{"a":1,}',
    b"[1,]",
    b'["\xc0\xaf"]',
    b'["\xf4\x90\x80\x80"]',
    b'["\xff"]',  # invalid UTF-8
    b'\xef\xbb\xbf{"a":1}',  # a byte-order mark
    b'{"a":1}\r',
    b' {"a":1} ',
    b"\x0c[1]",
    b'{"a":1} trailing',
    b"",
    b"   ",
    b'{"a":',
    b'"just a string"',
    b"3",
    *(b"[" * depth + b"]" * depth for depth in (100, 990, 998, 999, 1000, 1001, 3000)),
]


@pytest.mark.parametrize("line", EDGES)
def test_json_lines_decode_as_the_standard_library_does_at_the_edges(line: bytes) -> None:
    assert_same(line)


def test_json_lines_decode_as_the_standard_library_does_on_every_fixture_line() -> None:
    lines = [
        line
        for path in sorted(FIXTURES.rglob("*.json*"))
        if path.is_file() and path.suffix in (".jsonl", ".json")
        for line in path.read_bytes().splitlines()
    ]
    assert len(lines) > 500
    for line in lines:
        assert_same(line)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True, allow_infinity=True) | st.text(),
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=8), children, max_size=5),
    max_leaves=30,
)


@settings(max_examples=400, deadline=None)
@given(json_values, st.booleans())
def test_json_lines_decode_as_the_standard_library_does_on_generated_values(value: Any, ascii_only: bool) -> None:
    line = json.dumps(value, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")
    assert_same(line)


@settings(max_examples=400, deadline=None)
@given(json_values, st.data())
def test_json_lines_decode_as_the_standard_library_does_when_a_line_is_damaged(value: Any, data: st.DataObject) -> None:
    line = bytearray(json.dumps(value, ensure_ascii=False).encode("utf-8", "surrogatepass"))
    for _ in range(data.draw(st.integers(1, 3))):
        if not line:
            break
        at = data.draw(st.integers(0, len(line) - 1))
        action = data.draw(st.sampled_from(["flip", "cut", "insert"]))
        if action == "flip":
            line[at] = data.draw(st.integers(0, 255))
        elif action == "cut":
            del line[at:]
        else:
            line[at:at] = data.draw(st.binary(min_size=1, max_size=3))
    assert_same(bytes(line))


@pytest.mark.parametrize("line", EDGES)
def test_json_in_a_string_decodes_as_the_standard_library_does(line: bytes) -> None:
    """A tool call's `arguments` (JSON in a string): the same value or refusal as json.loads."""
    try:
        text = line.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        text = line.decode("latin-1")  # not UTF-8: some other text all the same
    for candidate in (text, text.replace("\\ud800", "\ud800")):  # a lone surrogate in the str itself too
        assert outcome(load_json_text, candidate) == outcome(json.loads, candidate)
