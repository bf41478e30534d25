"""What each setting accepts (core/settings.py's table of checks): only true or false
for a switch, a finite number of days 0 or more, text, a list of folders; every other
value reported in plain words and left at its default, and an unreadable
requireApproval means approval is required. Fed by fixtures/config/."""

from __future__ import annotations

import shutil
from dataclasses import fields, replace
from pathlib import Path

import pytest

from planwatch.core.settings import SETTING_KEYS, SettingInvalid, Settings, load_settings

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = ROOT / "fixtures" / "config"


def test_every_setting_has_a_key_in_the_file_and_a_check() -> None:
    # The user directory is checked by core/user_directory.py; problems and
    # directory_error and file_missing are what the loader found, never read from the file.
    settable = {f.name for f in fields(Settings)} - {"users", "problems", "directory_error", "file_missing"}
    assert set(SETTING_KEYS) == settable
    for name, key in SETTING_KEYS.items():
        assert "_" not in key and name == "".join("_" + c.lower() if c.isupper() else c for c in key)


def test_valid_values_are_kept_as_the_setting_holds_them(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    shutil.copy(CONFIGS / "everyday.yaml", path)
    settings = load_settings(path, report=False)
    assert settings.problems == () and settings.directory_error is None and settings.users is None
    assert settings.owner == "dana" and settings.theme == "nord" and settings.notify_session_idle is True
    assert settings.sweep_after_days == 30.0 and isinstance(settings.sweep_after_days, float)
    assert settings.transcript_roots == ["~/work/old-transcripts"]


def test_a_lenient_value_is_reported_in_plain_words_and_never_turns_a_guard_off(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    shutil.copy(CONFIGS / "lenient-values.yaml", path)
    settings = load_settings(path, report=False)
    said = {p.key: p.problem for p in settings.problems}
    assert said == {
        "requireApproval": "should be true or false, not the text “no”; approval is required until it is fixed",
        "readAgentPlans": "should be true or false, not the text “off”; agents' plans are not read until it is fixed",
        "notifyPlanComplete": "should be true or false, not the number 1; the default is used instead",
        "sweepAfterDays": "should be a number of days, 0 or more (or left out to keep everything), "
        "not the text “30”; the default is used instead",
        "owner": "should be text (or left out), not the number 42; the default is used instead",
        "transcriptRoots": "should be a list of folders, but item 2 is the number 7, not a folder; "
        "the default is used instead",
        "theme": "should be the name of a theme (or left out), not a list; the default is used instead",
    }
    assert all(p.file == path for p in settings.problems)
    # Fails closed: "no" is not read as off, nor "off" as on (this session's change: the
    # default, plans read, was used). Every other invalid value is at its default, and
    # the one valid setting beside them is kept.
    assert settings.require_approval is True and settings.read_agent_plans is False
    assert settings == replace(
        Settings(require_approval=True, read_agent_plans=False, keep_plans_in_store=True), problems=settings.problems
    )


@pytest.mark.parametrize(
    ("line", "key", "why"),
    [
        ('store: "a\\0b"', "store", "holds a NUL character, which no path can"),
        ('store: "/tmp/\\ud800"', "store", "holds a lone surrogate (an escape of no character), which no path can"),
        ('transcriptRoots: ["/ok", "a\\0b"]', "transcriptRoots", "item 2 holds a NUL character, which no path can"),
        ('transcriptRoots: ["/tmp/\\ud800"]', "transcriptRoots", "item 1 holds a lone surrogate"),
    ],
)
def test_a_folder_no_path_can_name_is_a_problem_not_a_crash(tmp_path: Path, line: str, key: str, why: str) -> None:
    """A NUL or a lone surrogate (an escape of no character) in a folder setting: no
    file system takes such a name (it stopped every command with "a bug", and `planwatch
    mcp` at its start); reported in words and left at its default."""
    path = tmp_path / "config.yaml"
    path.write_text(line + "\n")
    settings = load_settings(path, report=False)
    assert (settings.store, settings.transcript_roots) == (None, [])
    [problem] = settings.problems
    assert problem.key == key and why in problem.problem, problem.problem
    path.write_text('store: "/tmp/\\udcff"\ntranscriptRoots: ["/tmp/\\udcff"]\n')  # a byte no UTF-8 holds: a name
    settings = load_settings(path, report=False)
    assert (settings.problems, settings.store, settings.transcript_roots) == ((), "/tmp/\udcff", ["/tmp/\udcff"])


@pytest.mark.parametrize(
    ("line", "found"),
    [
        ("sweepAfterDays: -3", "the number -3"),
        ("sweepAfterDays: .inf", "the number inf"),
        ("sweepAfterDays: .nan", "the number nan"),
        ("sweepAfterDays: true", "true"),
        ("sweepAfterDays: 1" + "0" * 400, "a very large number"),
        ("sweepAfterDays: [7]", "a list"),
    ],
)
def test_sweep_days_must_be_a_finite_number_zero_or_more(tmp_path: Path, line: str, found: str) -> None:
    path = tmp_path / "config.yaml"
    path.write_text(line + "\n")
    settings = load_settings(path, report=False)
    assert settings.sweep_after_days is None
    [problem] = settings.problems
    assert (
        problem.key == "sweepAfterDays"
        and f"should be a number of days, 0 or more (or left out to keep everything), not {found};" in problem.problem
    )


@pytest.mark.parametrize(
    ("line", "days"), [("sweepAfterDays: 0", 0.0), ("sweepAfterDays: 7.5", 7.5), ("sweepAfterDays:", None)]
)
def test_sweep_days_zero_fractions_and_blank_are_kept(tmp_path: Path, line: str, days: float | None) -> None:
    path = tmp_path / "config.yaml"
    path.write_text(line + "\n")
    settings = load_settings(path, report=False)
    assert settings.problems == () and settings.sweep_after_days == days


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"sweep_after_days": -1}, "sweepAfterDays should be a number of days, 0 or more"),
        ({"require_approval": "yes"}, "requireApproval should be true or false, not the text “yes”"),
        ({"transcript_roots": "/srv"}, "transcriptRoots should be a list of folders"),
        ({"owner": 3}, "owner should be text"),
    ],
)
def test_settings_cannot_be_built_with_a_value_the_file_could_not_hold(change: dict[str, object], message: str) -> None:
    with pytest.raises(SettingInvalid) as refused:
        replace(Settings(), **change)
    assert str(refused.value).startswith(message)
    with pytest.raises(SettingInvalid):
        Settings(**change)  # type: ignore[arg-type]
