"""Saving the settings: only the keys that changed, spliced into the file's own text.

Why a module of its own: keeping a person's file intact — comments, key order, unknown
keys, sections that failed validation, an end-of-line comment on a setting — is its own
craft, and changes apart from what the settings are (core/settings.py).

- `save_settings(settings, path=None, *, base=None)` — writes only the fields where
  `settings` differs from `base` (default: what the file holds now), into the file's
  own text: every other line stays byte-for-byte. Refuses (`SettingsNotSaved`) a file
  that is not YAML.
- `changed_settings(settings, base)` — the keys that differ, what a save would write (the
  Settings screen asks before it leaves with such changes unsaved).
- `splice_settings(text, changes, path=None)` — the text with those keys set or removed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields
from io import StringIO
from pathlib import Path
from typing import Any

from ruamel.yaml.comments import CommentedMap
from ruamel.yaml.error import YAMLError

from planwatch.core import paths
from planwatch.core.atomic import PRIVATE_FILE_MODE, atomic_write, describe_os_error
from planwatch.core.settings import SETTING_KEYS, Settings, load_settings, read_settings_text, yaml_problem
from planwatch.core.yamlio import rt_yaml

__all__ = ["SettingsNotSaved", "changed_settings", "save_settings", "splice_settings"]


class SettingsNotSaved(RuntimeError):
    """A save that wrote nothing; the message says why, in a sentence."""


def _dump_value(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def changed_settings(settings: Settings, base: Settings) -> dict[str, Any]:
    """The file keys (with the values to write) where `settings` differs from `base`.

    Only the fields a person sets are compared: the user directory and what the loader
    found wrong are never written, so they never count as a change.
    """
    changes: dict[str, Any] = {}
    for field in fields(Settings):
        key = SETTING_KEYS.get(field.name)
        if key is None:
            continue
        new, old = getattr(settings, field.name), getattr(base, field.name)
        if new != old:
            changes[key] = _dump_value(new)
    return changes


def save_settings(settings: Settings, path: Path | None = None, *, base: Settings | None = None) -> list[str]:
    """Write the fields where `settings` differs from `base` (default: the file as it is).

    Only those keys' lines change; the rest of the file stays byte-for-byte. A field
    back at None is removed. The user directory is never written (edit it by hand).
    Returns the keys written. Raises `SettingsNotSaved` when the file is not YAML (or
    cannot be read), and `OSError` when the write fails.
    """
    from planwatch.core.regular_files import file_identity
    from planwatch.core.store.errors import RecordChanged
    from planwatch.core.store.handsave import wait_for_in_place_save

    path = Path(path or paths.config_file())
    try:
        # An editor saving the file in place, paused half-way, would have its second
        # half lost under a write made from the first: wait for it, as the store does.
        wait_for_in_place_save(path)
    except RecordChanged:
        raise SettingsNotSaved(
            f"Nothing was saved: the settings file {path} is still being written by another program; "
            "try again once it is saved."
        ) from None
    identity = file_identity(path)
    try:
        text = read_settings_text(path) or ""
    except (OSError, ValueError) as exc:
        reason = describe_os_error(exc) if isinstance(exc, OSError) else str(exc)
        raise SettingsNotSaved(f"Nothing was saved: the settings file {path} {reason}.") from None
    if base is None:
        base = load_settings(path, report=False)
    changes = changed_settings(settings, base)
    if not changes:
        return []
    new_text = splice_settings(text, changes, path)
    if file_identity(path) != identity:
        # Saved by someone else while this change was made from what it held before.
        raise SettingsNotSaved(
            f"Nothing was saved: the settings file {path} changed while this change was being saved; "
            "the other save is kept — make the change again."
        )
    atomic_write(path, new_text, mode=PRIVATE_FILE_MODE, make_parents=True)
    return list(changes)


def splice_settings(text: str, changes: Mapping[str, Any], path: Path | None = None) -> str:
    """`text` with each top-level key of `changes` set (None: removed); all else untouched."""
    yaml = rt_yaml()
    try:
        doc = yaml.load(text) if text.strip() else CommentedMap()
    except (YAMLError, ValueError, TypeError, RecursionError) as exc:
        raise SettingsNotSaved(
            f"Nothing was saved: the settings file {path or ''} {yaml_problem(exc)}; fix it by hand first."
        ) from None
    if doc is None:
        doc = CommentedMap()
    if not isinstance(doc, CommentedMap):
        raise SettingsNotSaved(f"Nothing was saved: the settings file {path or ''} is not a mapping of settings.")
    if doc.fa.flow_style() and len(doc):
        raise SettingsNotSaved(
            f"Nothing was saved: the settings file {path or ''} is one {{…}} mapping; write it as key: value lines."
        )
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith(("\n", "\r")):
        lines[-1] += "\n"
    ranges = _key_ranges(doc, lines)
    edits: list[tuple[int, int, list[str]]] = []
    appended: list[str] = []
    for key, value in changes.items():
        new_lines = [] if value is None else _render_key(key, value, doc, lines, ranges.get(key))
        if key in ranges:
            start, end = ranges[key]
            edits.append((start, end, new_lines))
        else:
            appended.extend(new_lines)
    for start, end, new_lines in sorted(edits, reverse=True):
        lines[start:end] = new_lines
    return "".join(lines + appended)


def _key_ranges(doc: CommentedMap, lines: list[str]) -> dict[str, tuple[int, int]]:
    """Each top-level key → its lines [start, end), trailing blank and comment lines left out."""
    keys = list(doc.keys())
    starts = [doc.lc.key(k)[0] for k in keys]
    out: dict[str, tuple[int, int]] = {}
    for i, key in enumerate(keys):
        start = starts[i]
        end = starts[i + 1] if i + 1 < len(keys) else len(lines)
        while end > start + 1 and (
            not lines[end - 1].strip() or lines[end - 1].lstrip().startswith(("#", "---", "..."))
        ):
            end -= 1
        out[str(key)] = (start, end)
    return out


def _render_key(key: str, value: Any, doc: CommentedMap, lines: list[str], where: tuple[int, int] | None) -> list[str]:
    yaml = rt_yaml()
    buf = StringIO()
    yaml.dump({key: value}, buf)
    rendered = buf.getvalue().splitlines(keepends=True)
    if where is not None and where[1] - where[0] == 1 and len(rendered) == 1:
        # A one-line setting keeps its end-of-line comment: `owner: dana  # that's me`.
        comment = doc.ca.items.get(key)
        token = comment[2] if comment and len(comment) > 2 else None
        if token is not None and token.value.lstrip(" \t").startswith("#"):
            original = lines[where[0]]
            col = token.column
            gap = original[:col][len(original[:col].rstrip(" \t")) :] or " "
            eol = token.value.split("\n", 1)[0].strip(" \t")
            ending = "\r\n" if original.endswith("\r\n") else "\n"
            return [rendered[0].rstrip("\n") + gap + eol + ending]
    return rendered
