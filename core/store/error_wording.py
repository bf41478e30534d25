"""A pydantic validation error as one sentence in the store's wording.

Why a module of its own: the sentences people and agents read when a record or a tool
input is refused (`status must be todo, doing, blocked, review, done, or dropped.`)
change with that wording, not with the record models (core/store/schema.py). Record
validation (core/store/record_mapping.py) and the tools' refusals share it, so every
field reads the same everywhere.

- `describe_validation_error(exc, statuses=, hints=)`: the first problem of `exc`.
"""

from __future__ import annotations

import re

from pydantic import ValidationError

from planwatch.core.store.schema import SCOPE_KINDS, TASK_PRIORITIES, TASK_STAMPS, TASK_STATUSES, VERDICTS, one_of

__all__ = ["describe_validation_error"]

_ALIASES = {"blocked_by": "blockedBy", "in_": "in"}
_CHOICES: dict[str, tuple[str, ...]] = {
    "status": TASK_STATUSES,
    "priority": TASK_PRIORITIES,
    "kind": SCOPE_KINDS,
    "verdict": VERDICTS,
}


# Union members show up in an error's location (`status.literal[...]`, `since.date`):
# they name a type, not a field, so they are left out of the sentence.
_TYPE_TAGS = {"str", "int", "float", "bool", "datetime", "date", "list", "tuple", "dict", "none"}


def _clean_loc(loc: tuple[int | str, ...]) -> tuple[int | str, ...]:
    return tuple(p for p in loc if isinstance(p, int) or ("[" not in p and "-" not in p and p not in _TYPE_TAGS))


def _field_name(loc: tuple[int | str, ...]) -> str:
    parts = [_ALIASES.get(str(p), str(p)) for p in loc if not isinstance(p, int)]
    return " ".join(parts) if parts else "input"


def describe_validation_error(
    exc: ValidationError, *, statuses: tuple[str, ...] | None = None, hints: dict[str, str] | None = None
) -> str:
    """The first problem of a pydantic error as one sentence in the store's wording.

    `statuses` names the status vocabulary in play (plans and tasks differ). `hints`
    maps a name that is not an input but looks like one (`blocked_by`, `id`) to the
    seed's name for it, said in the refusal of an unknown field.
    """
    errors = exc.errors(include_url=False)
    # A name given in place of an input (`id` for `task`) explains the rest: say it first.
    hinted = [
        e for e in errors
        if e.get("type") == "extra_forbidden" and hints and str((e.get("loc") or ("",))[-1]) in hints
    ]  # fmt: skip
    err = (hinted or errors)[0]
    loc = _clean_loc(tuple(err.get("loc", ())))
    field = _field_name(loc)
    named = [p for p in loc if not isinstance(p, int)]
    last = _ALIASES.get(str(named[-1]), str(named[-1])) if named else ""
    in_list = bool(loc) and isinstance(loc[-1], int)
    kind = err.get("type", "")
    ctx = err.get("ctx") or {}
    if kind == "literal_error":
        choices = _CHOICES.get(last)
        if last == "status" and statuses is not None:
            choices = statuses
        if choices is None:
            expected = re.findall(r"'([^']*)'", str(ctx.get("expected", "")))
            choices = tuple(expected)
        return f"{field} must be {one_of(choices)}."
    if kind == "missing":
        return f"{field} is required."
    if kind == "extra_forbidden":
        # The name as given, never translated: `blocked_by` is not `blockedBy`.
        given = " ".join(str(p) for p in loc if not isinstance(p, int)) or "input"
        raw = str(named[-1]) if named else ""
        if raw in TASK_STAMPS:
            return f"{given} is a stamp, written only by the host, never taken as input."
        if hints and raw in hints:
            return f"{given} is not a known field; the input is {hints[raw]}."
        return f"{given} is not a known field."
    if kind == "string_too_short":
        return f"{field} must not be empty."
    if kind == "too_long":
        return f"{field} must hold at most {ctx.get('max_length')} items."
    if kind == "string_too_long":
        return f"{field} must be at most {ctx.get('max_length')} characters."
    if kind == "string_pattern_mismatch":
        if last == "id" and "t[" in str(ctx.get("pattern", "")):
            return f"{field} must be a task id like t1."
        if "p[" in str(ctx.get("pattern", "")):
            return f"{field} must be a plan id like p1."
        return f"{field} must hold task ids like t1." if in_list else f"{field} must be a task id like t1."
    if kind in ("string_type", "str_type"):
        return f"{field} must be text."
    if kind == "string_unicode":
        return f"{field} must be valid Unicode text."
    if kind in ("tuple_type", "list_type"):
        return f"{field} must be a list."
    if kind in ("bool_type", "bool_parsing"):
        return f"{field} must be true or false."
    if kind.startswith("datetime") or kind.startswith("date_"):
        return f"{field} must be a date and time."
    if kind in ("model_type", "dict_type", "model_attributes_type"):
        return f"{field} must be a mapping."
    if kind == "value_error":
        message = str(ctx.get("error", err.get("msg", "")))
        return message if message.endswith(".") else message + "."
    return f"{field}: {err.get('msg', 'is not valid')}."
