"""Saving settings never destroys what could not be read. Only the fields the
person changed are written; comments, key order, unknown keys and sections that failed
validation stay byte-for-byte; a file that is not YAML is not written at all. Through
`save_settings` and through the real Settings screen and app under Pilot."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import IsolatedEnv
from textual.widgets import Input, Switch
from toasts import Toasts

from planwatch.core.settings import load_settings
from planwatch.core.settings_save import SettingsNotSaved, save_settings
from planwatch.tui.screens.settings import SettingsScreen

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = ROOT / "fixtures" / "config"


def changed_lines(before: str, after: str) -> list[tuple[str, str]]:
    a, b = before.splitlines(), after.splitlines()
    assert len(a) == len(b)
    return [(x, y) for x, y in zip(a, b, strict=True) if x != y]


def test_saving_unchanged_settings_writes_nothing(isolated_env: IsolatedEnv) -> None:
    path = shutil.copyfile(CONFIGS / "person-edited.yaml", isolated_env.config)
    before = path.read_bytes()
    settings = load_settings(path)
    assert save_settings(settings, path) == []
    assert path.read_bytes() == before


def test_saving_one_field_changes_only_its_line(isolated_env: IsolatedEnv) -> None:
    path = shutil.copyfile(CONFIGS / "person-edited.yaml", isolated_env.config)
    before = path.read_text()
    settings = load_settings(path)
    assert settings.directory_error is not None  # bo's email: the directory is closed
    written = save_settings(replace(settings, read_agent_plans=False), path, base=settings)
    assert written == ["readAgentPlans"]
    after = path.read_text()
    assert changed_lines(before, after) == [
        ("readAgentPlans: true    # privacy first", "readAgentPlans: false    # privacy first")
    ]
    reread = load_settings(path)
    assert reread.read_agent_plans is False and reread.directory_error is not None


def test_a_new_field_is_added_and_a_cleared_one_removed(isolated_env: IsolatedEnv) -> None:
    path = shutil.copyfile(CONFIGS / "person-edited.yaml", isolated_env.config)
    before = path.read_text()
    settings = load_settings(path)
    save_settings(replace(settings, owner=None, require_approval=True), path, base=settings)
    after = path.read_text()
    assert after == before.replace("owner: dana\n", "") + "requireApproval: true\n"


def test_a_file_that_is_not_yaml_is_never_written(isolated_env: IsolatedEnv) -> None:
    path = shutil.copyfile(CONFIGS / "syntax-error.yaml", isolated_env.config)
    before = path.read_bytes()
    settings = load_settings(path)
    with pytest.raises(SettingsNotSaved, match="is not valid YAML"):
        save_settings(replace(settings, owner="dana"), path, base=settings)
    assert path.read_bytes() == before


@pytest.mark.asyncio
async def test_the_settings_screen_saving_nothing_changed_keeps_the_directory(isolated_env: IsolatedEnv) -> None:
    """`,` then ctrl+s with no change: every user and token hash is still there, byte for byte."""
    from planwatch.tui.app import AppOptions, make_app

    path = shutil.copyfile(CONFIGS / "seed-directory.yaml", isolated_env.config)
    before = path.read_bytes()
    empty = isolated_env.root / "no-transcripts"
    empty.mkdir()
    options = AppOptions(
        roots=[empty], store_root=isolated_env.store, config_path=path, state_dir=isolated_env.state, follow=False
    )
    app = make_app(options)
    async with app.run_test(size=(120, 36)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.press("comma")
        await pilot.pause()
        assert isinstance(app.screen, SettingsScreen)
        await pilot.press("ctrl+s")
        for _ in range(3):
            await app.workers.wait_for_complete()
            await pilot.pause()
        assert not isinstance(app.screen, SettingsScreen)
        assert app.settings.users is not None and set(app.settings.users.users) == {"ana", "bo"}
    assert path.read_bytes() == before


@pytest.mark.asyncio
async def test_the_settings_screen_lists_problems_and_saves_around_them(isolated_env: IsolatedEnv) -> None:
    from planwatch.tui.app import AppOptions, make_app

    path = shutil.copyfile(CONFIGS / "person-edited.yaml", isolated_env.config)
    before = path.read_text()
    empty = isolated_env.root / "no-transcripts"
    empty.mkdir()
    options = AppOptions(
        roots=[empty], store_root=isolated_env.store, config_path=path, state_dir=isolated_env.state, follow=False
    )
    app = make_app(options)
    told = Toasts()
    async with app.run_test(message_hook=told, size=(120, 40)) as pilot:
        await app.workers.wait_for_complete()
        # The banner: a notification that stays, naming the file and each problem.
        banners = [n for n in told.seen if str(path) in (n.title or "")]
        assert len(banners) == 1
        assert "sweepAfterDays:" in banners[0].message and "users[1].email" in banners[0].message
        await pilot.press("comma")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SettingsScreen)
        listed = str(screen.query_one("#settings-problems").render())
        assert "users[1].email" in listed and "sweepAfterDays" in listed
        screen.query_one("#require-approval", Switch).value = True
        assert screen.query_one("#sweep-after-days", Input).value == ""  # shown at its default
        await pilot.press("ctrl+s")
        for _ in range(3):
            await app.workers.wait_for_complete()
            await pilot.pause()
        assert not isinstance(app.screen, SettingsScreen)
        assert app.settings.require_approval is True and app.settings.directory_error is not None
    assert path.read_text() == before + "requireApproval: true\n"


SLOW_EDITOR = r"""
import sys, time
path, lines = sys.argv[1], int(sys.argv[2])
text = open(path, encoding="utf-8").read()
whole = text + "".join(f"# note {n} of the person's own\n" for n in range(1, lines + 1))
half = len(whole) // 2
with open(path, "r+", encoding="utf-8") as fh:  # saved in place, as vim with backupcopy=yes does
    fh.truncate(0)
    fh.write(whole[:half])
    fh.flush()
    print("half", flush=True)
    time.sleep(1.5)  # the editor stalls half-way (a slow disk, a stopped process)
    fh.write(whole[half:])
print("saved", flush=True)
"""


def test_a_settings_save_never_lands_over_an_editors_save_paused_half_way(tmp_path: Path) -> None:
    import subprocess
    import sys

    path = tmp_path / "config.yaml"
    path.write_text("owner: dana\n", encoding="utf-8")
    editor = subprocess.Popen([sys.executable, "-c", SLOW_EDITOR, str(path), "2000"], stdout=subprocess.PIPE, text=True)
    assert editor.stdout is not None
    assert editor.stdout.readline() == "half\n"  # the file now holds half the person's save
    base = load_settings(path, report=False)
    save_settings(replace(base, theme="nord"), path, base=base)  # the app saving its theme meanwhile
    assert editor.stdout.readline() == "saved\n"
    editor.wait(timeout=60)
    text = path.read_text(encoding="utf-8")
    assert text.count("of the person's own") == 2000, "the whole of the editor's save is kept"
    assert text.startswith("owner: dana\n") and "theme: nord\n" in text
