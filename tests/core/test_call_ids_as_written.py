"""A planning call is matched with its result by the call's id, looked for in the raw
bytes before any line is decoded (core/transcripts/reader.py `quoted_needles`). An id
is found however a JSON writer spelt it — its UTF-8 bytes, `\\u` escapes for what is not
ASCII, an escaped quote or backslash — and an id holding a lone surrogate (`\\ud800`) is
read, not a failed file: the plan is the one the same session gives with plain ids.

Each case is a real-shaped transcript (the Claude Code and Codex CLI fixtures) whose
every call id is rewritten, in every place it occurs, into one such spelling."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from planwatch.core.index import SessionIndex
from planwatch.core.transcripts.reader import quoted_needles

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "transcripts"
CLAUDE = FIXTURES / "claude" / "projects" / "-home-dev-api" / "4f6b2a9e-1c3d-4e8f-9a7b-2d5c8e1f0a3b.jsonl"
CODEX = next((FIXTURES / "codex" / "sessions").rglob("rollout-*.jsonl"))

# How the id's added part is written in the JSON text (each decodes to a different id).
SPELLINGS = {
    "utf-8": "é".encode(),
    "escaped": b"\\u00e9",
    "quote and backslash": b'\\"q\\\\',
    "lone surrogate": b"\\ud800",
    "escaped pair": b"\\ud83d\\ude00",
}


def plans(root: Path) -> list[tuple[str, list[tuple[str, str]]]]:
    index = SessionIndex([root])
    index.scan()
    return [
        (entry.session.id, [(item.status, item.text) for group in entry.plan.groups for item in group.items])
        for entry in index.entries()
    ]


@pytest.mark.parametrize("spelling", sorted(SPELLINGS))
@pytest.mark.parametrize(("source", "prefix"), [(CLAUDE, b"toolu_"), (CODEX, b'"call_id":"call_')])
def test_a_call_id_is_matched_with_its_result_however_it_is_spelt(
    tmp_path: Path, source: Path, prefix: bytes, spelling: str
) -> None:
    plain = tmp_path / "plain" / source.name
    plain.parent.mkdir()
    shutil.copyfile(source, plain)
    odd = tmp_path / "odd" / source.name
    odd.parent.mkdir()
    data = source.read_bytes()
    assert data.count(prefix) >= 4  # calls and their results
    odd.write_bytes(data.replace(prefix, prefix + SPELLINGS[spelling]))
    expected = plans(plain.parent)
    assert expected and any(items for _sid, items in expected)
    assert plans(odd.parent) == expected


def test_the_needles_are_the_spellings_of_the_two_writers() -> None:
    assert quoted_needles("toolu_01") == (b'"toolu_01"',)
    assert quoted_needles("a\u00e9") == ('"a\u00e9"'.encode(), b'"a\\u00e9"')
    assert quoted_needles('q"\\') == (b'"q\\"\\\\"',)
    assert quoted_needles("x\ud800") == (b'"x\\ud800"',)
    assert quoted_needles("tab\there") == (b'"tab\\there"',)
