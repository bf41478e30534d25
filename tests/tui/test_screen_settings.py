"""The Settings screen (docs/app.md, Settings): saved to the config file, comments kept."""

from __future__ import annotations

from pathlib import Path

import pytest
from app_transcripts import until
from textual import on
from textual.app import App
from textual.widgets import Input, Switch, TextArea
from toasts import Toasts

from planwatch.core.settings import Settings, load_settings
from planwatch.tui.screens.settings import (
    SettingsChanged,
    SettingsScreen,
    UnsavedChanges,
    parse_folders,
    parse_sweep_days,
)

CONFIG_WITH_COMMENTS = """\
# my planwatch settings — keep this line
readAgentPlans: true  # privacy first
sweepAfterDays: 30
owner: dana
theme: nord  # not ours; must survive too
"""


class Host(App[None]):
    """A bare app that opens the Settings screen and records what it posts."""

    def __init__(self, config: Path, settings: Settings | None = None) -> None:
        super().__init__()
        self.config_path = config
        self.settings = settings
        self.changed: list[SettingsChanged] = []
        self.results: list[Settings | None] = []

    def on_mount(self) -> None:
        self.push_screen(SettingsScreen(self.settings, self.config_path), self.results.append)

    @on(SettingsChanged)
    def _changed(self, event: SettingsChanged) -> None:
        self.changed.append(event)


async def _save(app: Host, pilot) -> None:  # type: ignore[no-untyped-def]
    await pilot.press("ctrl+s")
    await app.workers.wait_for_complete()
    await pilot.pause()


@pytest.mark.asyncio
async def test_settings_defaults_privacy_on_and_store_opt_in_off(isolated_env) -> None:
    app = Host(isolated_env.config)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        assert app.screen.query_one("#read-agent-plans", Switch).value is True
        assert app.screen.query_one("#keep-plans-in-store", Switch).value is False
        assert app.screen.query_one("#require-approval", Switch).value is False
        assert app.screen.query_one("#sweep-after-days", Input).value == ""
        assert app.focused is app.screen.query_one("#read-agent-plans", Switch)


@pytest.mark.asyncio
async def test_settings_save_keeps_comments_in_config_file(isolated_env) -> None:
    config: Path = isolated_env.config
    config.write_text(CONFIG_WITH_COMMENTS, encoding="utf-8")
    app = Host(config)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        assert app.screen.query_one("#owner", Input).value == "dana"
        assert app.screen.query_one("#sweep-after-days", Input).value == "30"
        # The privacy switch has focus: space turns reading off.
        await pilot.press("space")
        app.screen.query_one("#require-approval", Switch).value = True
        app.screen.query_one("#transcript-roots", TextArea).text = "/srv/old\n\n /srv/more \n"
        await _save(app, pilot)
    text = config.read_text(encoding="utf-8")
    assert "# my planwatch settings — keep this line" in text
    assert "# privacy first" in text
    assert "theme: nord  # not ours; must survive too" in text
    saved = load_settings(config)
    assert saved.read_agent_plans is False
    assert saved.require_approval is True
    assert saved.sweep_after_days == 30
    assert saved.owner == "dana"
    assert saved.transcript_roots == ["/srv/old", "/srv/more"]
    assert [event.settings for event in app.changed] == [saved]
    assert app.changed[0].path == config
    assert app.results == [saved]


@pytest.mark.asyncio
async def test_settings_opt_in_keep_plans_in_store_is_saved(isolated_env) -> None:
    app = Host(isolated_env.config)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        await pilot.click("#keep-plans-in-store")
        await pilot.pause()
        await _save(app, pilot)
    assert load_settings(isolated_env.config).keep_plans_in_store is True
    assert "keepPlansInStore: true" in isolated_env.config.read_text(encoding="utf-8")


@pytest.mark.asyncio
async def test_settings_invalid_sweep_days_refused_and_nothing_written(isolated_env) -> None:
    app = Host(isolated_env.config)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        app.screen.query_one("#sweep-after-days", Input).value = "-3"
        await _save(app, pilot)
        assert isinstance(app.screen, SettingsScreen), "a refused save keeps the screen open"
        error = str(app.screen.query_one("#settings-error").render())
        assert "Sweep after days must be a number" in error
    assert not isolated_env.config.exists()
    assert app.changed == []


@pytest.mark.asyncio
async def test_settings_discarded_on_leaving_writes_nothing(isolated_env) -> None:
    app = Host(isolated_env.config)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        await pilot.press("space", "escape")
        await until(pilot, lambda: isinstance(app.screen, UnsavedChanges), what="the question")
        await pilot.press("d")
        await until(pilot, lambda: not isinstance(app.screen, (SettingsScreen, UnsavedChanges)), what="leaving")
    assert not isolated_env.config.exists()
    assert app.results == [None]
    assert app.changed == []


@pytest.mark.asyncio
async def test_settings_left_unchanged_leaves_without_asking(isolated_env) -> None:
    app = Host(isolated_env.config)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        await pilot.press("escape")
        await until(pilot, lambda: app.results == [None], what="leaving")
        assert not isinstance(app.screen, (SettingsScreen, UnsavedChanges))
    assert not isolated_env.config.exists()


@pytest.mark.asyncio
@pytest.mark.parametrize("leave", ["escape", "q"])
async def test_settings_leaving_with_a_change_asks_and_keep_editing_keeps_it(isolated_env, leave: str) -> None:
    app = Host(isolated_env.config)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        await pilot.press("space", leave)  # reading off, then leave
        await until(pilot, lambda: isinstance(app.screen, UnsavedChanges), what="the question")
        assert app.results == [], "nothing is thrown away before the person answers"
        await pilot.press("escape")  # keep editing
        await until(pilot, lambda: isinstance(app.screen, SettingsScreen), what="back to the form")
        assert app.screen.query_one("#read-agent-plans", Switch).value is False, "the change is still there"
    assert not isolated_env.config.exists()
    assert app.results == []


@pytest.mark.asyncio
async def test_settings_leaving_with_a_change_and_answering_save_writes_it(isolated_env) -> None:
    app = Host(isolated_env.config)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        await pilot.press("space", "escape")
        await until(pilot, lambda: isinstance(app.screen, UnsavedChanges), what="the question")
        await pilot.press("s")
        await until(pilot, lambda: len(app.results) == 1, what="the save")
    saved = load_settings(isolated_env.config)
    assert saved.read_agent_plans is False
    assert app.results == [saved]
    assert [event.settings for event in app.changed] == [saved]


async def _saved_after_typing(config: Path, typed: dict[str, str]) -> Settings:
    """The settings file's values after the screen saved what was typed into its fields
    (an Input's value, the folders' TextArea's text)."""
    app = Host(config)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        for selector, text in typed.items():
            field = app.screen.query_one(selector)
            if isinstance(field, TextArea):
                field.text = text
            else:
                app.screen.query_one(selector, Input).value = text
        await _save(app, pilot)
    return load_settings(config)


@pytest.mark.asyncio
async def test_settings_save_with_nothing_changed_says_so_and_writes_nothing(isolated_env) -> None:
    config: Path = isolated_env.config
    config.write_text(CONFIG_WITH_COMMENTS, encoding="utf-8")
    before = config.stat()
    app = Host(config)
    told = Toasts()
    async with app.run_test(message_hook=told, size=(100, 40)) as pilot:
        await pilot.pause()
        await _save(app, pilot)
        await until(pilot, lambda: app.results == [None], what="leaving")
        messages = [str(n.message) for n in told.seen]
    assert any("Nothing changed" in m for m in messages), messages
    assert not any("saved" in m.lower() for m in messages), messages
    after = config.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns), "the file was not rewritten"
    assert app.changed == []


@pytest.mark.asyncio
async def test_settings_blank_owner_and_sweep_mean_unset(isolated_env) -> None:
    config: Path = isolated_env.config
    config.write_text("owner: dana\nsweepAfterDays: 7\n", encoding="utf-8")
    saved = await _saved_after_typing(config, {"#owner": "  ", "#sweep-after-days": ""})
    assert saved.owner is None
    assert saved.sweep_after_days is None


@pytest.mark.parametrize(
    ("raw", "days"),
    [("", None), ("  ", None), ("0", 0.0), ("7", 7.0), ("1.5", 1.5)],
)
def test_sweep_days_field_reads_number_or_blank(raw: str, days: float | None) -> None:
    assert parse_sweep_days(raw) == days


@pytest.mark.parametrize("raw", ["-1", "soon", "nan", "inf"])
def test_sweep_days_field_refuses_negative_or_non_number(raw: str) -> None:
    with pytest.raises(ValueError):
        parse_sweep_days(raw)


def test_transcript_folders_one_per_line_deduplicated() -> None:
    assert parse_folders(" /a \n\n/b\n/a\n") == ["/a", "/b"]


@pytest.mark.asyncio
async def test_settings_saved_from_the_app_reach_the_app(isolated_env) -> None:
    """Through the real app: `,` opens the screen, a save updates `app.settings`."""
    from planwatch.tui.app import AppOptions, make_app

    empty = isolated_env.root / "no-transcripts"
    empty.mkdir()
    options = AppOptions(
        roots=[empty],
        store_root=isolated_env.store,
        config_path=isolated_env.config,
        state_dir=isolated_env.state,
        follow=False,
    )
    app = make_app(options)
    async with app.run_test(size=(120, 36)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.press("comma")
        await pilot.pause()
        assert isinstance(app.screen, SettingsScreen)
        await pilot.press("space")  # the focused privacy switch: reading off
        await pilot.press("ctrl+s")
        for _ in range(3):
            await app.workers.wait_for_complete()
            await pilot.pause()
        assert not isinstance(app.screen, SettingsScreen)
        assert app.settings.read_agent_plans is False
    assert load_settings(isolated_env.config).read_agent_plans is False


@pytest.mark.asyncio
async def test_q_on_the_settings_screen_never_quits_the_app(isolated_env) -> None:
    """Through the real app, whose `q` quits from the sessions: on the settings it leaves them."""
    from planwatch.tui.app import AppOptions, make_app

    empty = isolated_env.root / "no-transcripts"
    empty.mkdir()
    options = AppOptions(
        roots=[empty],
        store_root=isolated_env.store,
        config_path=isolated_env.config,
        state_dir=isolated_env.state,
        follow=False,
    )
    app = make_app(options)
    async with app.run_test(size=(120, 36)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.press("comma")
        await until(pilot, lambda: isinstance(app.screen, SettingsScreen), what="the settings")
        await pilot.press("space", "q")
        await until(pilot, lambda: isinstance(app.screen, UnsavedChanges), what="the question")
        assert app.is_running
        await pilot.press("escape", "q")
        await until(pilot, lambda: isinstance(app.screen, UnsavedChanges), what="the question again")
        await pilot.press("d")
        await until(pilot, lambda: not isinstance(app.screen, (SettingsScreen, UnsavedChanges)), what="the sessions")
        assert app.is_running, "q left the settings; the app runs on"
    assert not isolated_env.config.exists()


@pytest.mark.asyncio
async def test_settings_problems_quoting_a_hostile_key_and_file_name_are_shown_as_safe_text(isolated_env) -> None:
    from planwatch.tui.screens.settings import problems_text

    # A settings file whose name and unknown key carry OSC 52 (writes the clipboard).
    config = isolated_env.root / "x\x1b]52;c;ZWNobyBoaQ==\x07.yaml"
    config.write_text('"k\\e]0;pwned\\a": 1\nsweepAfterDays: "\\e[31mred"\n', encoding="utf-8")  # YAML's escapes
    settings = load_settings(config, report=False)
    assert settings.problems
    app = Host(config, settings)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: bool(app.screen.query("#settings-problems")), what="the settings screen")
        shown = str(app.screen.query_one("#settings-problems").render())
    assert shown == problems_text(settings)
    assert "\x1b" not in shown and "\x07" not in shown
    assert "\\x1b]0;pwned\\x07" in shown and "\\x1b[31mred" in shown


HOSTILE_OWNER = "evil\x1b]0;pwned\x07[bold red]O[/]\u202e"
HOSTILE_ROOT = "/tmp/x\x1b]0;rootpwn\x07[b]r[/]"


@pytest.mark.asyncio
async def test_a_hostile_owner_and_folder_are_shown_as_safe_text_and_kept_as_written(isolated_env) -> None:
    """An owner and a transcript folder holding a terminal escape (an agent with a shell
    can write the settings file): the fields show their escapes, never the raw text (it
    set the terminal's title); a save with them left as shown keeps them as written, and
    a field changed saves what was typed."""
    import json

    config: Path = isolated_env.config
    config.write_text(
        f"owner: {json.dumps(HOSTILE_OWNER)}\ntranscriptRoots:\n  - {json.dumps(HOSTILE_ROOT)}\n  - /tmp/plain\n",
        encoding="utf-8",
    )
    app = Host(config)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        owner = app.screen.query_one("#owner", Input).value
        roots = app.screen.query_one("#transcript-roots", TextArea).text
        assert owner == "evil\\x1b]0;pwned\\x07[bold red]O[/]\\u202e"
        assert roots == "/tmp/x\\x1b]0;rootpwn\\x07[b]r[/]\n/tmp/plain"
        assert "\x1b" not in owner + roots
        assert not app.screen.unsaved()
        app.screen.query_one("#sweep-after-days", Input).value = "3"  # another change: the file is written
        await _save(app, pilot)
    saved = load_settings(config)
    assert (saved.owner, saved.transcript_roots, saved.sweep_after_days) == (
        HOSTILE_OWNER,
        [HOSTILE_ROOT, "/tmp/plain"],
        3,
    )
    saved = await _saved_after_typing(config, {"#owner": "dana", "#transcript-roots": "/tmp/plain\n/tmp/other"})
    assert (saved.owner, saved.transcript_roots) == ("dana", ["/tmp/plain", "/tmp/other"])
