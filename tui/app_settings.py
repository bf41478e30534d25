"""The app's settings keeper: the file watched for changes, its problems shown as a
banner, a saved change applied everywhere (reading switched on or off, the opt-in mirror
caught up, saved transcript folders handed on), and the theme the person chose saved in
the settings.

An object the app holds (tui/app.py), not a part of it: it works through the Textual app
it is given (notifications, timers, workers, the theme) and the store service, which owns
the settings object itself, and tells the app what a saved change means for what the app
owns (the index, the timelines, the mirror) through the callbacks it is built with.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planwatch.core.settings import LiveSettings, Settings
from planwatch.tui.messages import SettingsSaved
from planwatch.tui.theme import HIGH_CONTRAST

if TYPE_CHECKING:
    from textual.app import App

    from planwatch.tui.store_service import StoreService


def default_roots(settings: Settings, extra: list[Path]) -> list[Path]:
    """The transcript folders to read: the harnesses' own, the settings' and `extra`."""
    from planwatch.core.index import default_roots as roots_of

    return list(roots_of(settings, extra))


# How often the settings file is looked at for changes made outside the app (seconds).
SETTINGS_CHECK_EVERY = 1.0


@dataclass(frozen=True)
class SettingsEffects:
    """What a saved change means for what the app owns, each called on the UI thread."""

    reading_set: Callable[[bool], None]
    """Reading agents' plans switched on (True) or off."""
    mirror_all: Callable[[], None]
    """Keeping agents' plans in the store switched on: catch the store up."""
    roots_saved: Callable[[Settings], None]
    """Other transcript folders saved."""


class SettingsKeeper:
    """The settings file and the theme, for the app that holds it."""

    def __init__(
        self,
        app: App[Any],
        store_service: StoreService,
        config_path: Path,
        settings: Settings,
        effects: SettingsEffects,
    ) -> None:
        """Start from `settings` (read from `config_path` at start-up)."""
        self._app = app
        self._store_service = store_service
        self.config_path = config_path
        self._effects = effects
        # Problems in the settings file show as a banner in the app, not on stderr.
        self._live_settings = LiveSettings(config_path, report=False, initial=settings)
        self._live_seen = settings
        self._shown_problems: tuple[str, ...] = ()

    def start(self) -> None:
        """On the app's mount: the saved theme, the file's problems, and a changed file (a
        revoked user, a fixed typo) applied within a second."""
        self._apply_saved_theme()
        self._show_settings_problems(self.settings)
        self._app.set_interval(SETTINGS_CHECK_EVERY, self._check_settings, name="settings-watch")

    @property
    def settings(self) -> Settings:
        return self._store_service.settings

    # -- the theme: saved in the settings when chosen

    def _apply_saved_theme(self) -> None:
        app = self._app
        app.register_theme(HIGH_CONTRAST)
        saved = self.settings.theme
        if saved and saved in app.available_themes:
            app.theme = saved
        # Subscribed after the saved theme is applied: only a person's choice is saved.
        app.theme_changed_signal.subscribe(app, self._theme_chosen)

    def _theme_chosen(self, theme: Any) -> None:
        if theme.name != self.settings.theme:
            chosen = replace(self.settings, theme=theme.name)
            self._store_service.apply_settings(chosen)
            self._app.run_worker(
                lambda: self._save_theme(chosen), thread=True, group="theme", exclusive=True, exit_on_error=False
            )

    def _save_theme(self, settings: Settings) -> None:
        from planwatch.core.settings_save import SettingsNotSaved, save_settings

        try:
            save_settings(settings, self.config_path)
        except (OSError, SettingsNotSaved) as exc:
            app = self._app
            app.call_from_thread(app.notify, f"The theme was not saved: {exc}", severity="warning", markup=False)

    # -- the settings file

    def _check_settings(self) -> None:
        self._app.run_worker(
            self._look_at_file, thread=True, exclusive=True, group="settings-watch", exit_on_error=False
        )

    def _look_at_file(self) -> None:
        settings = self._live_settings.current()
        if settings is not self._live_seen:  # the file changed since the last look
            self._live_seen = settings
            self._app.call_from_thread(self._app.post_message, SettingsSaved(settings))

    def _show_settings_problems(self, settings: Settings) -> None:
        """A banner (a notification that stays) for each new set of settings problems."""
        shown = tuple(str(p) for p in settings.problems)
        if shown == self._shown_problems:
            return
        self._shown_problems = shown
        if not shown:
            return
        lines = [f"{p.key or p.file.name}: {p.problem}" for p in settings.problems]
        if settings.directory_error:
            lines.append("Approving is refused until the user directory is fixed.")
        self._app.notify(
            "\n".join(lines),
            title=f"Problems in {self.config_path} (each says what is used instead)",
            severity="error",
            timeout=24 * 3600,
            markup=False,
        )

    def apply(self, after: Settings) -> None:
        """Saved in the settings screen, or the file changed (the app's `SettingsSaved`
        handler): apply it everywhere."""
        before = self.settings
        # Every screen and the next tool call use the new settings from here on.
        self._store_service.apply_settings(after)
        self._show_settings_problems(after)
        if before.read_agent_plans != after.read_agent_plans:
            self._effects.reading_set(after.read_agent_plans)
        if after.keep_plans_in_store and not before.keep_plans_in_store and after.read_agent_plans:
            self._effects.mirror_all()
        if before.transcript_roots != after.transcript_roots:
            self._effects.roots_saved(after)
        if before.store != after.store:
            self._app.notify("Restart planwatch to use the new store folder.", markup=False)
