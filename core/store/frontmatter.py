"""Frontmatter read: the text of a record file → its YAML mapping and body.

- `split_frontmatter(text)` → (yaml text, body); `RecordInvalid` without frontmatter.
- `load_frontmatter(yaml)` → the mapping: the plain YAML subset the store writes is read
  by a small fast path (`fast_front`, checked against ruamel.yaml in the tests); anything
  else goes through ruamel.yaml's safe loader. Anchors, aliases and custom tags are
  refused (no alias bombs), as are duplicate keys. A cold read of 10,000 tasks takes
  about a second instead of ~15.
- The way back, a record → its file's text keeping hand edits: core/store/record_render.py.

A C loader was measured against the fast path on the benchmark's records
(`tests/bench/bench_store.py --loaders`, CPU time per record): PyYAML's CSafeLoader
takes about 3× the fast path's time (78 µs against 24 µs) and ruamel.yaml's C parser
about 11× (270 µs), so neither can keep a cold `task_list` of 10,000 tasks under a
second where the fast path cannot; the fast path stays.
"""

from __future__ import annotations

import re
import threading
from datetime import datetime
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError
from ruamel.yaml.nodes import ScalarNode

from planwatch.core.store.schema import RecordInvalid
from planwatch.core.yamlio import safe_yaml

_ANCHOR_OR_TAG = re.compile(r"[&*!]")
_PLAIN_TAGS = {
    f"tag:yaml.org,2002:{name}" for name in ("str", "int", "float", "bool", "null", "map", "seq", "timestamp")
} | {f"!!{name}" for name in ("str", "int", "float", "bool", "null", "map", "seq", "timestamp")}


_thread_yaml = threading.local()


def safe_loader() -> YAML:
    # A YAML instance is not thread-safe; one per thread, reused (building one is slow).
    yaml = getattr(_thread_yaml, "safe", None)
    if yaml is None:
        yaml = _thread_yaml.safe = safe_yaml()
    return yaml


_OPENING = re.compile(r"---\r?\n")
_CLOSING = re.compile(r"\r?\n---(?:\r?\n|\Z)")


def split_frontmatter(text: str) -> tuple[str, str]:
    """`---\\n<yaml>---\\n<body>` → (yaml, body); raise RecordInvalid without frontmatter.

    The body is returned exactly as it is in the file (CRLF, tabs, NEL kept), less one
    line break right after the closing `---` (the blank line people put there); the
    store writes that separator whenever a body itself starts with a line break, so a
    body's leading blank lines survive. Only the YAML part has CRLF read as LF.
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    opening = _OPENING.match(text)
    if opening is None:
        raise RecordInvalid("no frontmatter: the file must start with a line '---'.")
    closing = _CLOSING.search(text, opening.end() - 1)
    if closing is None:
        raise RecordInvalid("frontmatter is not closed by a line '---'.")
    front = text[opening.end() : closing.start()].replace("\r\n", "\n")
    front = front + "\n" if closing.start() >= opening.end() else ""
    body = text[closing.end() :]
    if body.startswith("\r\n"):
        body = body[2:]
    elif body.startswith("\n"):
        body = body[1:]
    return front, body


def check_no_aliases(front: str) -> None:
    """Refuse anchors, aliases and tags: no alias bombs, no custom types.

    The raw text is looked at first (fast path); only a frontmatter holding `&`, `*` or
    `!` somewhere is parsed into events to see whether they are YAML syntax or text.
    """
    if not _ANCHOR_OR_TAG.search(front):
        return
    for event in safe_loader().parse(front):
        if type(event).__name__ == "AliasEvent" or getattr(event, "anchor", None):
            raise RecordInvalid("YAML anchors and aliases are not allowed in a record.")
        tag = getattr(event, "tag", None)
        if tag and str(tag) not in _PLAIN_TAGS and str(tag) != "!":
            raise RecordInvalid(f"YAML tag {tag} is not allowed in a record.")


# ---- fast path: the plain subset of YAML the store itself writes
#
# ruamel.yaml in pure Python takes milliseconds per file; a store of 10,000 tasks would
# take many seconds to read cold. The store writes a small, regular subset of YAML, so
# that subset is read here directly; anything outside it (comments after values, block
# scalars, multi-line values, numbers, anchors, …) returns None and goes to ruamel. The
# subset is chosen so both readings are the same (tests/core/test_store.py checks
# the fixtures and generated records both ways).

_KEY_LINE = re.compile(r"([A-Za-z][A-Za-z0-9_-]*):(?: (.*))?")
_SUB_LINE = re.compile(r"  ([A-Za-z][A-Za-z0-9_-]*):(?: (.*))?")
_TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:\.\d{1,6})?(?:Z|[+-]\d\d:\d\d)?")
_UNUSUAL_CHARS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]")
_NOT_FAST = object()
_INDICATORS = re.compile(r"""[#'"\[\]{}]|: |:$""")
"""Inside a plain scalar: a comment, a quote, flow brackets or a mapping's `: ` send the
value to the full parser."""
_WORDS = {"true", "True", "TRUE", "false", "False", "FALSE", "null", "Null", "NULL"}


def _fast_scalar(text: str, *, in_flow: bool = False) -> Any:
    text = text.strip(" ")
    if not text:
        return None if not in_flow else _NOT_FAST
    first = text[0]
    if first == "'":
        inner = text[1:-1]
        if len(text) < 2 or text[-1] != "'" or "'" in inner.replace("''", ""):
            return _NOT_FAST
        return inner.replace("''", "'")
    if first == '"':
        inner = text[1:-1]
        if len(text) < 2 or text[-1] != '"' or '"' in inner or "\\" in inner:
            return _NOT_FAST
        return inner
    if not (first.isalnum() or first in "/_."):
        return _NOT_FAST  # YAML indicators and odd starts: the full parser decides
    if _INDICATORS.search(text) or (in_flow and "," in text):
        return _NOT_FAST
    if first.isascii() and first.isalpha():
        # Starting with a letter, only YAML 1.2's true/false/null words are not text.
        return _NOT_FAST if text in _WORDS else text
    if _TIMESTAMP.fullmatch(text):
        # Every text this pattern matches is a timestamp to YAML's resolver too (its own
        # pattern is wider): a stamp's `at`, in either form, without asking it.
        try:
            return datetime.fromisoformat(text)
        except ValueError:
            return _NOT_FAST
    # Otherwise YAML's own resolver says whether it is text, a number, a date, …
    tag = safe_loader().resolver.resolve(ScalarNode, text, (True, False))
    if tag == "tag:yaml.org,2002:str":
        return text
    if tag == "tag:yaml.org,2002:timestamp" and _TIMESTAMP.fullmatch(text):
        try:
            return datetime.fromisoformat(text)
        except ValueError:
            return _NOT_FAST
    return _NOT_FAST


def _fast_value(text: str | None) -> Any:
    if text is None:
        return None
    stripped = text.strip(" ")
    if stripped.startswith("["):
        if not stripped.endswith("]"):
            return _NOT_FAST
        inner = stripped[1:-1].strip(" ")
        if not inner:
            return []
        items = [_fast_scalar(part, in_flow=True) for part in inner.split(",")]
        return _NOT_FAST if any(i is _NOT_FAST or not isinstance(i, str) for i in items) else items
    return _fast_scalar(stripped)


def fast_front(front: str) -> dict[str, Any] | None:
    """The frontmatter as a dict when it is in the plain subset, else None (use ruamel)."""
    if _UNUSUAL_CHARS.search(front):
        return None  # characters YAML refuses or reads as line breaks: let ruamel judge
    out: dict[str, Any] = {}
    nested: dict[str, Any] | None = None
    for line in front.split("\n"):
        if not line or line.startswith("#"):
            continue
        if "\t" in line:
            return None
        if line.startswith(" "):
            if nested is None:
                return None
            m = _SUB_LINE.fullmatch(line)
            if m is None or m.group(1) in nested or m.group(1) in _WORDS:
                return None
            value = _fast_value(m.group(2))
            if value is _NOT_FAST or isinstance(value, list) or (m.group(2) is None):
                return None
            nested[m.group(1)] = value
            continue
        m = _KEY_LINE.fullmatch(line)
        # A key YAML reads as no text (`null:`, `true:`) is the full parser's to refuse.
        if m is None or m.group(1) in out or m.group(1) in _WORDS:
            return None
        key, raw = m.group(1), m.group(2)
        if raw is None or raw.strip(" ") == "":
            nested = {}
            out[key] = nested
            continue
        value = _fast_value(raw)
        if value is _NOT_FAST:
            return None
        out[key] = value
        nested = None
    if not out:
        return None  # empty frontmatter is null in YAML, not a mapping
    # `key:` with nothing under it is null in YAML, not an empty mapping.
    return {k: (None if v == {} else v) for k, v in out.items()}


def load_frontmatter(front: str) -> Any:
    fast = fast_front(front)
    if fast is not None:
        return fast
    try:
        check_no_aliases(front)  # parses events: a broken file fails here first
        return safe_loader().load(front)
    except YAMLError as exc:
        problem = getattr(exc, "problem", None) or type(exc).__name__
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 2})" if mark is not None else ""
        if "Duplicate" in type(exc).__name__ or "duplicate" in str(problem):
            return _raise(f"frontmatter has a duplicate key{where}.")
        return _raise(f"frontmatter is not valid YAML: {problem}{where}.")
    except RecursionError:
        return _raise("frontmatter is not valid YAML: its values nest too deeply to read.")
    except (ValueError, TypeError) as exc:
        return _raise(f"frontmatter is not valid YAML: {exc}.")


def _raise(reason: str) -> Any:
    raise RecordInvalid(reason)
