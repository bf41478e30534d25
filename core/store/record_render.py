"""A record → its file's text, keeping what a person wrote by hand.

Why a module of its own: writing back a file a person may have edited — their comments,
key order and unknown keys kept (ruamel.yaml round-trip), stamps in the store's form, a
list field they left out kept out while empty, and a check that the text reads back as
the record — changes apart from reading records (core/store/frontmatter.py).

- `render_record(rec, existing_text)` → the file text; with the text of the file it
  replaces, a person's comments, key order and unknown keys survive. The body is
  replaced by the record's body. Stamps' `at` are written in the store's form,
  `2026-10-18T10:00:00.000Z` (a plain YAML timestamp); one the file already holds for
  the same moment, in either form, is left as written.
- `plain_value(value)`: a loaded or new YAML value in a comparable form (the read-back check).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from io import StringIO
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.constructor import RoundTripConstructor
from ruamel.yaml.error import YAMLError
from ruamel.yaml.representer import RoundTripRepresenter
from ruamel.yaml.scalarstring import DoubleQuotedScalarString

from planwatch.core.store.frontmatter import check_no_aliases, load_frontmatter, split_frontmatter
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
from planwatch.core.yamlio import rt_yaml

__all__ = ["plain_value", "render_record"]

_YAML_BREAKS = re.compile("[\x85\u2028\u2029]")


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
            if (
                isinstance(current, CommentedSeq)
                and isinstance(node, CommentedSeq)
                and current
                and not current.fa.flow_style()
            ):
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
    double-quoted, every list a block list); when that does not read back either,
    RecordInvalid is raised and nothing is written.
    """
    text = _render(rec, existing_text, safe=False)
    if _reads_back(rec, text):
        return text
    text = _render(rec, existing_text, safe=True)
    # The body is laid out by the writer (it ends with a newline): the fields must come
    # back, and the whole must read as a record at all.
    if _reads_back(rec, text, with_body=False):
        return text
    # Not even that (a key of the file's own that YAML reads as no name, kept from the
    # existing text): nothing is written rather than a file that is no record.
    raise RecordInvalid("the record would not read back as written; nothing was written")


def _reads_back(rec: TaskRecord | PlanRecord, text: str, *, with_body: bool = True) -> bool:
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
        if not with_body and name in ("body", "goal"):
            continue
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
    written = body if not body or body.endswith("\n") else body + "\n"
    if written.startswith(("\n", "\r\n")):
        # The separator split_frontmatter takes off, so the body's own first line break
        # stays: asked of the body as written (a body `\r` is written `\r\n`).
        text += "\n"
    return text + written
