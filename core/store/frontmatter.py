"""Frontmatter: the text of a record file ↔ its YAML mapping and body.

- `split_frontmatter(text)` → (yaml text, body); `RecordInvalid` without frontmatter.
- `load_frontmatter(yaml)` → the mapping: the plain YAML subset the store writes is read
  by a small fast path (`fast_front`, checked against ruamel.yaml in the tests); anything
  else goes through ruamel.yaml's safe loader. Anchors, aliases and custom tags are
  refused (no alias bombs), as are duplicate keys. A cold read of 10,000 tasks takes
  about a second instead of ~15.
- `render_record(rec, existing_text)` → the file text; with the text of the file it
  replaces, a person's comments, key order and unknown keys survive (ruamel.yaml
  round-trip). The body is replaced by the record's body. Stamps' `at` are written in
  the seed's form, `2026-10-18T10:00:00.000Z` (a plain YAML timestamp); one the file
  already holds for the same moment, in either form, is left as written. A list field
  a hand-written file leaves out stays out while it is empty, as `priority: medium` does.

A C loader was measured against the fast path on the benchmark's records
(`tests/bench/bench_store.py --loaders`, CPU time per record): PyYAML's CSafeLoader
takes about 3× the fast path's time (78 µs against 24 µs) and ruamel.yaml's C parser
about 11× (270 µs), so neither can keep a cold `task_list` of 10,000 tasks under a
second where the fast path cannot; the fast path stays.
"""

from __future__ import annotations

import re
import threading
from datetime import UTC, datetime
from io import StringIO
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.constructor import RoundTripConstructor
from ruamel.yaml.error import YAMLError
from ruamel.yaml.nodes import ScalarNode
from ruamel.yaml.representer import RoundTripRepresenter
from ruamel.yaml.scalarstring import DoubleQuotedScalarString

from planwatch.core.store.record_mapping import (
    LIST_FIELDS,
    plan_from_frontmatter,
    plan_to_frontmatter,
    task_from_frontmatter,
    task_to_frontmatter,
)
from planwatch.core.store.schema import (
    PLAN_FIELDS,
    TASK_FIELDS,
    PlanRecord,
    RecordInvalid,
    StampTime,
    TaskRecord,
    format_stamp,
)
from planwatch.core.yamlio import rt_yaml, safe_yaml

_ANCHOR_OR_TAG = re.compile(r"[&*!]")
_YAML_BREAKS = re.compile("[\x85\u2028\u2029]")
_PLAIN_TAGS = {
    f"tag:yaml.org,2002:{name}" for name in ("str", "int", "float", "bool", "null", "map", "seq", "timestamp")
} | {f"!!{name}" for name in ("str", "int", "float", "bool", "null", "map", "seq", "timestamp")}




def _rt_yaml() -> YAML:
    yaml = rt_yaml()
    yaml.Constructor = _StampConstructor
    yaml.Representer = _StampRepresenter
    return yaml


_TIMESTAMP_TAG = "tag:yaml.org,2002:timestamp"


class _StampConstructor(RoundTripConstructor):
    """Round-trip loading that keeps a timestamp's text as written (ruamel's own
    TimeStamp would write it back with microseconds)."""


_StampConstructor.add_constructor(_TIMESTAMP_TAG, lambda loader, node: StampTime(node.value))


class _StampRepresenter(RoundTripRepresenter):
    """Round-trip writing of `StampTime`: its text as a plain (unquoted) YAML timestamp."""


_StampRepresenter.add_representer(StampTime, lambda rep, value: rep.represent_scalar(_TIMESTAMP_TAG, str(value)))


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
# subset is chosen so both readings are the same (tests/core/test_store_records.py checks
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
            if m is None or m.group(1) in nested:
                return None
            value = _fast_value(m.group(2))
            if value is _NOT_FAST or isinstance(value, list) or (m.group(2) is None):
                return None
            nested[m.group(1)] = value
            continue
        m = _KEY_LINE.fullmatch(line)
        if m is None or m.group(1) in out:
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
    except (ValueError, TypeError, RecursionError) as exc:
        return _raise(f"frontmatter is not valid YAML: {exc}.")


def _raise(reason: str) -> Any:
    raise RecordInvalid(reason)


# ---------------------------------------------------------------- writing


def plain_value(value: Any) -> Any:
    """A loaded or new YAML value in a comparable form (datetimes as UTC instants)."""
    if isinstance(value, dict):
        return {str(k): plain_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain_value(v) for v in value]
    if isinstance(value, StampTime):
        try:
            value = value.moment()
        except ValueError:  # a YAML timestamp form Python does not read: compare as text
            return ("text", str(value))
    if isinstance(value, datetime):
        aware = value if value.tzinfo is not None else value.replace(tzinfo=UTC)
        return ("dt", format_stamp(aware))  # a stamp's precision: milliseconds
    return value


def _to_yaml_node(value: Any, *, safe: bool = False) -> Any:
    """A value as a ruamel node. `safe`: every string double-quoted, every list a block
    list — longer, but nothing for the emitter to get wrong (see render_record)."""
    if isinstance(value, dict):
        node = CommentedMap()
        for k, v in value.items():
            node[k] = _to_yaml_node(v, safe=safe)
        return node
    if isinstance(value, list | tuple):
        seq = CommentedSeq(_to_yaml_node(v, safe=safe) for v in value)
        if not safe and all(isinstance(v, str) and "\n" not in v for v in value) and len(value) <= 12:
            seq.fa.set_flow_style()  # labels: [a, b] reads better than a block list
        else:
            seq.fa.set_block_style()
        return seq
    if isinstance(value, str) and safe:
        return DoubleQuotedScalarString(value)
    if isinstance(value, str) and _YAML_BREAKS.search(value):
        # NEL, LS and PS are line breaks to YAML: written raw, a reader folds them into
        # spaces. Double quotes write them as the escapes \\N, \\L, \\P.
        return DoubleQuotedScalarString(value)
    return value


def _merge(doc: CommentedMap, new: dict[str, Any], order: tuple[str, ...], *, safe: bool = False) -> None:
    """Bring `doc` to `new` for the known keys, in place, keeping comments and extras."""
    for key in list(doc.keys()):
        if key in order and key not in new:
            del doc[key]
    for key, value in new.items():
        if key in doc and safe:
            doc[key] = _to_yaml_node(value, safe=True)
            continue
        if key in doc:
            current = doc[key]
            if plain_value(current) == plain_value(value):
                continue
            if isinstance(current, CommentedMap) and isinstance(value, dict):
                _merge_map(current, value)
                continue
            node = _to_yaml_node(value)
            if isinstance(current, CommentedSeq) and isinstance(node, CommentedSeq) and current and not current.fa.flow_style():
                node.fa.set_block_style()  # the person wrote it as a block list: keep that
            doc[key] = node
            continue
        # A new key goes right after the nearest earlier known key present in the file.
        position = 0
        for earlier in order[: order.index(key)] if key in order else order:
            if earlier in doc:
                position = list(doc.keys()).index(earlier) + 1
        doc.insert(position, key, _to_yaml_node(value, safe=safe))


def _merge_map(node: CommentedMap, value: dict[str, Any]) -> None:
    for key in list(node.keys()):
        if key not in value:
            del node[key]
    for key, item in value.items():
        if key not in node or plain_value(node[key]) != plain_value(item):
            node[key] = _to_yaml_node(item)


def render_record(rec: TaskRecord | PlanRecord, existing_text: str | None = None) -> str:
    """The file text for `rec`; when `existing_text` is a readable record, keep its
    comments, key order and unknown keys.

    The text is read back before it is returned: ruamel's emitter writes a few plain
    scalars it cannot read again (`[?']` in a flow list). When any text field does not
    come back equal, the record is written again in the safe style (every string
    double-quoted, every list a block list).
    """
    text = _render(rec, existing_text, safe=False)
    if _reads_back(rec, text):
        return text
    return _render(rec, existing_text, safe=True)


def _reads_back(rec: TaskRecord | PlanRecord, text: str) -> bool:
    try:
        front, body = split_frontmatter(text)
        data = load_frontmatter(front)
        back: TaskRecord | PlanRecord = (
            task_from_frontmatter(data, body) if isinstance(rec, TaskRecord) else plan_from_frontmatter(data, body)
        )
    except (RecordInvalid, ValueError, TypeError):
        return False
    for name in type(rec).model_fields:
        value = getattr(rec, name)
        if isinstance(value, str | tuple) and getattr(back, name) != value:
            return False
    return True


def _render(rec: TaskRecord | PlanRecord, existing_text: str | None, *, safe: bool) -> str:
    if isinstance(rec, TaskRecord):
        new, order, body = task_to_frontmatter(rec), TASK_FIELDS, rec.body
    else:
        new, order, body = plan_to_frontmatter(rec), PLAN_FIELDS, rec.goal
    yaml = _rt_yaml()
    doc: CommentedMap | None = None
    if existing_text is not None:
        try:
            front, _ = split_frontmatter(existing_text)
            check_no_aliases(front)
            loaded = yaml.load(front)
            if isinstance(loaded, CommentedMap):
                doc = loaded
        except (RecordInvalid, YAMLError, ValueError, TypeError):
            doc = None
    if doc is not None and "priority" not in doc and new.get("priority") == "medium":
        del new["priority"]  # medium is what an absent priority means: leave the file as written
    for key in LIST_FIELDS:
        if doc is not None and key not in doc and new.get(key) == []:
            del new[key]  # so is an empty list: a file that leaves it out keeps it out
    if doc is None:
        doc = CommentedMap()
        for key, value in rec.extra.items():
            doc[key] = _to_yaml_node(value, safe=safe)
    else:
        for key, value in rec.extra.items():
            if key not in doc:
                doc[key] = _to_yaml_node(value, safe=safe)
    _merge(doc, new, order, safe=safe)
    buf = StringIO()
    yaml.dump(doc, buf)
    text = "---\n" + buf.getvalue() + "---\n"
    if body.startswith(("\n", "\r\n")):
        text += "\n"  # the separator split_frontmatter takes off, so the body's own blank line stays
    if body:
        text += body if body.endswith("\n") else body + "\n"
    return text
