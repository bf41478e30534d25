"""The app's half that keeps the settings: the file watched for changes, its problems
shown as a banner, a saved change applied everywhere (reading switched on or off, the
opt-in mirror caught up, saved transcript folders looked in without a restart), and the
theme — the one the person chose saved in the settings, and every theme's text colours
made readable (tui.theme).

A mixin of `PlanwatchApp` (tui/app.py): the settings object itself is the store
service's (one owner), read here as `settings`.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import work

from planwatch.core.settings import LiveSettings, Settings
from planwatch.core.timeline import Timelines
from planwatch.tui.messages import ScanFinished, SettingsSaved
from planwatch.tui.theme import HIGH_CONTRAST, readable_variables

if TYPE_CHECKING:
    from textual.app import App

    from planwatch.core.index import SessionIndex
    from planwatch.core.model import AgentPlan, Session
    from planwatch.core.sessions import SessionEntry
    from planwatch.tui.app_options import AppOptions
    from planwatch.tui.live import LiveFeed
    from planwatch.tui.store_service import StoreService

    class _AppBase(App[None]):
        """What this half uses of the rest of the app."""

        def entries(self) -> list[SessionEntry]: ...
        def mirror(self, changed: list[tuple[Session, AgentPlan]]) -> object: ...

else:
    _AppBase = object


def default_roots(settings: Settings, extra: list[Path]) -> list[Path]:
    """The transcript folders to read: the harnesses' own, the settings' and `extra`."""
    from planwatch.core.index import default_roots as roots_of

    return list(roots_of(settings, extra))


# How often the settings file is looked at for changes made outside the app (seconds).
SETTINGS_CHECK_EVERY = 1.0


class SettingsKeeper(_AppBase):
    """The settings and the theme, for the app."""

    config_path: Path
    options: AppOptions
    store_service: StoreService
    index: SessionIndex
    feed: LiveFeed
    timelines: Timelines
    scan_done: ScanFinished | None

    def _keep_settings(self, settings: Settings) -> None:
        """Start from `settings` (read from `config_path` at start-up)."""
        # Problems in the settings file show as a banner in the app, not on stderr.
        self._live_settings = LiveSettings(self.config_path, report=False, initial=settings)
        self._live_seen = settings
        self._shown_problems: tuple[str, ...] = ()
        # Transcript folders saved while the first scan ran: looked in once it ends.
        self._reroot_after_scan: Settings | None = None

    def _watch_settings(self) -> None:
        """On mount: the saved theme, the file's problems, and a changed file (a revoked
        user, a fixed typo) applied within a second."""
        self._apply_saved_theme()
        self._show_settings_problems(self.settings)
        self.set_interval(SETTINGS_CHECK_EVERY, self._check_settings, name="settings-watch")

    @property
    def settings(self) -> Settings:
        return self.store_service.settings

    @property
    def reading(self) -> bool:
        return self.settings.read_agent_plans

    # -- the theme: saved in the settings when chosen

    def _apply_saved_theme(self) -> None:
        self.register_theme(HIGH_CONTRAST)
        saved = self.settings.theme
        if saved and saved in self.available_themes:
            self.theme = saved
        # Subscribed after the saved theme is applied: only a person's choice is saved.
        self.theme_changed_signal.subscribe(self, self._theme_chosen)

    def _theme_chosen(self, theme: Any) -> None:
        if theme.name != self.settings.theme:
            chosen = replace(self.settings, theme=theme.name)
            self.store_service.apply_settings(chosen)
            self._save_theme(chosen)

    @work(thread=True, group="theme", exclusive=True, exit_on_error=False)
    def _save_theme(self, settings: Settings) -> None:
        from planwatch.core.settings_save import SettingsNotSaved, save_settings

        try:
            save_settings(settings, self.config_path)
        except (OSError, SettingsNotSaved) as exc:
            self.call_from_thread(self.notify, f"The theme was not saved: {exc}", severity="warning", markup=False)

    def get_css_variables(self) -> dict[str, str]:
        """The theme's variables, with the text colours the rows use made readable on
        this theme's backgrounds and cursor (tui.theme)."""
        variables = super().get_css_variables()
        variables.update(readable_variables(variables))
        self.theme_variables = variables
        return variables

    # -- the settings file

    @work(thread=True, exclusive=True, group="settings-watch", exit_on_error=False)
    def _check_settings(self) -> None:
        settings = self._live_settings.current()
        if settings is not self._live_seen:  # the file changed since the last look
            self._live_seen = settings
            self.call_from_thread(self.post_message, SettingsSaved(settings))

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
        self.notify(
            "\n".join(lines),
            title=f"Problems in {self.config_path} (each says what is used instead)",
            severity="error",
            timeout=24 * 3600,
            markup=False,
        )

    def _apply_settings(self, after: Settings) -> None:
        """Saved in the settings screen, or the file changed: apply it everywhere (the
        app's `@on(SettingsSaved)` handler calls this: a mixin's own `@on` handlers are
        not seen by Textual, and the settings screen posts a subclass)."""
        before = self.settings
        # Every screen and the next tool call use the new settings from here on.
        self.store_service.apply_settings(after)
        self._show_settings_problems(after)
        if before.read_agent_plans != after.read_agent_plans:
            if not after.read_agent_plans:
                # The timelines hold plan text (steps started): gone with the reading.
                self.timelines = Timelines()
            self._set_reading(after.read_agent_plans)
        if after.keep_plans_in_store and not before.keep_plans_in_store and after.read_agent_plans:
            self.mirror([(e.session, e.plan) for e in self.entries() if e.plan is not None and e.plan.groups])
        if before.transcript_roots != after.transcript_roots:
            if self.options.index is not None or self.options.roots is not None:
                # The folders were handed to this app (--demo, tests): they stay.
                self.notify("This app keeps the transcript folders it was started on.", markup=False)
            elif self.scan_done is None:
                # The first scan still runs on the old folders: once it ends (ScanFinished).
                self._reroot_after_scan = after
            else:
                self._reroot(after)
        if before.store != after.store:
            self.notify("Restart planwatch to use the new store folder.", markup=False)

    @work(thread=True, group="reroot", exclusive=True, exit_on_error=False)
    def _reroot(self, settings: Settings) -> None:
        """The saved transcript folders, looked in now: the index reads the new ones,
        drops the sessions of those removed, and follows the new set."""
        roots = default_roots(settings, self.options.extra_roots)
        self.feed.mark_changed(self.index.set_roots(roots))
        # As after the first scan: the empty state names the folders now looked in.
        self.post_message(ScanFinished(roots, None, self.index.problems()))

    @work(thread=True, group="index", exit_on_error=False)
    def _set_reading(self, on: bool) -> None:
        self.index.set_read_plans(on)
        ids = [entry.session.id for entry in self.index.entries()]
        self.feed.mark_changed(ids)
