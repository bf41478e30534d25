"""The Settings screen (`,`): privacy, approval, sweep, transcript folders, owner.

The screen edits a copy of the app's `Settings` and saves it with
`core.settings_save.save_settings(edited, path, base=shown)`: only the fields the person
changed on this screen are written, into the file's own text, so comments, key order,
unknown keys, the user directory and any section that failed validation stay
byte-for-byte. While the file has problems they are listed at the top of the screen;
a save says they are still there, and a file that is not YAML at all is not written.
Saving runs in a thread worker; when the file is written the screen re-reads it, posts
`SettingsChanged` to the app with what the file now holds, and dismisses itself. A save
with nothing changed writes nothing and says so ("Nothing changed"), never "saved".
Leaving (`esc`, `q`, Cancel) with changes not saved asks first (`UnsavedChanges`: save,
discard or keep editing); `q` never quits the app from here.

`SettingsChanged` subclasses `tui.messages.SettingsSaved`, so the app's
`@on(SettingsSaved)` handler (`PlanwatchApp._settings_saved`) applies it. It is posted
to the App itself (not bubbled from the screen), so it arrives even though the screen
is gone by then. `push_screen(SettingsScreen(...),
callback)` works too: the result is the saved `Settings`, or None when cancelled.
"""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path
from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.events import Resize
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Input, Label, Static, Switch, TextArea

from planwatch.core import paths
from planwatch.core.settings import SettingInvalid, Settings, load_settings
from planwatch.core.settings_save import SettingsNotSaved, changed_settings, save_settings
from planwatch.core.text import kept_unless_typed, safe_text
from planwatch.tui.messages import SettingsSaved
from planwatch.tui.screens.help import ScreenKeysProvider
from planwatch.tui.widgets.key_footer import KeysFooter


class SettingsChanged(SettingsSaved):
    """The settings file was saved from the Settings screen; `settings` is what it now holds.

    A subclass of the app-wide `tui.messages.SettingsSaved`, so a handler for either
    (`on_settings_saved`, `@on(SettingsSaved)`) receives it; it adds the file's `path`.
    """

    def __init__(self, settings: Settings, path: Path) -> None:
        super().__init__(settings)
        self.settings: Settings = settings
        self.path = path


NARROW = 70
"""Below this many columns (a side pane) each field's label goes above its input."""


def parse_sweep_days(raw: str) -> float | None:
    """The sweep field's text → days, None for blank (keep forever); ValueError if not a number ≥ 0."""
    raw = raw.strip()
    if not raw:
        return None
    value = float(raw)
    if not math.isfinite(value) or value < 0:
        raise ValueError(raw)
    return value


def parse_folders(raw: str) -> list[str]:
    """One folder per line; blank lines dropped, surrounding spaces trimmed, order kept."""
    seen: list[str] = []
    for line in raw.splitlines():
        folder = line.strip()
        if folder and folder not in seen:
            seen.append(folder)
    return seen


def problems_text(settings: Settings) -> str:
    """The problems of the settings file, one per line, for a banner."""
    lines = [f"The settings file has {len(settings.problems)} problem(s); each says what is used instead:"]
    # A problem quotes the file's name and its keys: untrusted, shown as safe text.
    lines += [safe_text(f"• {p.key or 'file'}: {p.problem}", single_line=True) for p in settings.problems]
    if settings.directory_error:
        lines.append("Approving is refused until the user directory is fixed.")
    return "\n".join(lines)


def _format_days(days: float | None) -> str:
    if days is None:
        return ""
    return str(int(days)) if float(days).is_integer() else str(days)


class SettingsScreen(Screen[Settings | None]):
    """Edit and save the person's settings."""

    CSS_PATH = "settings.tcss"
    TITLE = "Settings"
    COMMANDS = {ScreenKeysProvider}
    HELP_GROUP = "settings"
    BINDINGS = [
        Binding("ctrl+s", "save", "Save", tooltip="Write the settings to the config file"),
        # q leaves the screen as esc does (asking first about unsaved changes): quitting the
        # app from a form that holds changes would throw them away unasked.
        Binding("escape", "cancel", "Back", tooltip="Leave the settings (asks first when a change is not saved)"),
        Binding("q", "cancel", "Back", show=False, tooltip="Leave the settings, as esc does"),
    ]

    def __init__(self, settings: Settings | None = None, config_path: Path | None = None) -> None:
        """The settings shown and the file they are saved to, as the app hands them;
        `config_path` defaults to `paths.config_file()`, `settings` to that file's contents."""
        super().__init__()
        self._initial = settings
        self._path = config_path

    @property
    def config_path(self) -> Path:
        if self._path is None:
            self._path = paths.config_file()
        return self._path

    @property
    def initial(self) -> Settings:
        if self._initial is None:
            self._initial = load_settings(self.config_path)
        return self._initial

    def compose(self) -> ComposeResult:
        s = self.initial
        with VerticalScroll(id="settings-body"):
            yield Static("Settings", id="settings-title")
            if s.problems:
                yield Static(problems_text(s), id="settings-problems", markup=False)
            with Vertical(classes="section", id="settings-privacy"):
                yield Label("Privacy", classes="section-title")
                yield from self._switch_row(
                    "read-agent-plans",
                    s.read_agent_plans,
                    "Read agents' plans into their checklists",
                    "Off: no transcript is read; checklists show only your own items.",
                )
                yield from self._switch_row(
                    "keep-plans-in-store",
                    s.keep_plans_in_store,
                    "Keep agents' plans in the shared task list",
                    "On: each session's agent list is written to the store as its plan.",
                )
            with Vertical(classes="section", id="settings-store"):
                yield Label("Task store", classes="section-title")
                yield from self._switch_row(
                    "require-approval",
                    s.require_approval,
                    "Require approval before a task starts",
                    "A task cannot move to doing until it has been approved.",
                )
                with Horizontal(classes="field"):
                    yield Label("Sweep finished plans after (days)", classes="field-label")
                    yield Input(
                        _format_days(s.sweep_after_days),
                        placeholder="keep forever",
                        id="sweep-after-days",
                        type="number",
                        valid_empty=True,  # blank keeps forever: not an error
                    )
            with Vertical(classes="section", id="settings-notifications"):
                yield Label("Notifications", classes="section-title")
                yield from self._switch_row(
                    "notify-plan-complete",
                    s.notify_plan_complete,
                    "When an agent's plan is complete",
                    "Rings the bell and shows a note.",
                )
                yield from self._switch_row(
                    "notify-item-blocked",
                    s.notify_item_blocked,
                    "When an agent's step is blocked",
                    "Rings the bell and shows a note.",
                )
                yield from self._switch_row(
                    "notify-session-idle",
                    s.notify_session_idle,
                    "When a running session goes idle",
                    "No change in its transcript for a few minutes.",
                )
                yield from self._switch_row(
                    "desktop-notifications",
                    s.desktop_notifications,
                    "Desktop notifications too",
                    "OSC 9 / OSC 777: terminals that support them pass them to the desktop.",
                )
            with Vertical(classes="section", id="settings-sessions"):
                yield Label("Sessions", classes="section-title")
                yield Label("Extra transcript folders, one per line", classes="field-label")
                # Shown as safe text (an agent with a shell can write the file); a line
                # left as shown saves the folder it opened with (`edited`).
                yield TextArea(
                    "\n".join(safe_text(root, single_line=True) for root in s.transcript_roots),
                    id="transcript-roots",
                    soft_wrap=False,
                    placeholder="e.g. ~/work/old-transcripts",
                )
                with Horizontal(classes="field"):
                    yield Label("Owner", classes="field-label")
                    yield Input(safe_text(s.owner or "", single_line=True), placeholder="your login name", id="owner")
            with Horizontal(id="settings-buttons"):
                yield Button("Save", variant="primary", id="save")
                yield Button("Cancel", id="cancel")
            yield Static("", id="settings-error", markup=False)
        yield KeysFooter()

    @staticmethod
    def _switch_row(switch_id: str, value: bool, title: str, hint: str) -> ComposeResult:
        with Horizontal(classes="switch-row"):
            yield Switch(value=value, id=switch_id)
            with Vertical(classes="switch-text"):
                yield Label(title, classes="switch-title")
                yield Label(hint, classes="switch-hint")

    def on_mount(self) -> None:
        self.set_class(self.app.size.width < NARROW, "-narrow")
        self.query_one("#read-agent-plans", Switch).focus()

    def on_resize(self, event: Resize) -> None:
        self.set_class(event.size.width < NARROW, "-narrow")

    def edited(self) -> Settings:
        """The settings as the form now shows them; ValueError names a field that is wrong."""
        try:
            sweep = parse_sweep_days(self.query_one("#sweep-after-days", Input).value)
        except ValueError:
            raise ValueError(
                "Sweep after days must be a number of days (0 or more), or blank to keep forever."
            ) from None
        owner = kept_unless_typed(self.query_one("#owner", Input).value, self.initial.owner).strip() or None
        shown_roots = {safe_text(root, single_line=True).strip(): root for root in self.initial.transcript_roots}
        update: dict[str, Any] = {
            "read_agent_plans": self.query_one("#read-agent-plans", Switch).value,
            "keep_plans_in_store": self.query_one("#keep-plans-in-store", Switch).value,
            "require_approval": self.query_one("#require-approval", Switch).value,
            "sweep_after_days": sweep,
            "transcript_roots": [
                shown_roots.get(line, line)
                for line in parse_folders(self.query_one("#transcript-roots", TextArea).text)
            ],
            "owner": owner,
            "notify_plan_complete": self.query_one("#notify-plan-complete", Switch).value,
            "notify_item_blocked": self.query_one("#notify-item-blocked", Switch).value,
            "notify_session_idle": self.query_one("#notify-session-idle", Switch).value,
            "desktop_notifications": self.query_one("#desktop-notifications", Switch).value,
        }
        # Settings checks each field as it is built (core/settings.py's table of checks), so a
        # value the file could not hold is refused here with what it should be.
        try:
            return replace(self.initial, **update)
        except SettingInvalid as exc:
            raise ValueError(f"{exc}.") from None

    @on(Button.Pressed, "#save")
    def action_save(self) -> None:
        error = self.query_one("#settings-error", Static)
        try:
            settings = self.edited()
        except ValueError as exc:
            error.update(safe_text(str(exc)))
            self.notify(str(exc), severity="error", markup=False)
            return
        error.update("")
        self._save(settings, self.config_path)

    def unsaved(self) -> bool:
        """Whether the form holds something the file does not: a change, or a field not yet valid."""
        try:
            edited = self.edited()
        except ValueError:
            return True
        return bool(changed_settings(edited, self.initial))

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        if not self.unsaved():
            self.dismiss(None)
            return
        self.app.push_screen(UnsavedChanges(), self._leave_answered)

    def _leave_answered(self, answer: str | None) -> None:
        if answer == "save":
            self.action_save()
        elif answer == "discard":
            self.dismiss(None)
        # "keep" (or the modal closed otherwise): back to the form as it was.

    @work(thread=True, exclusive=True, exit_on_error=False, group="settings-save")
    def _save(self, settings: Settings, path: Path) -> None:
        try:
            written = save_settings(settings, path, base=self.initial)
        except SettingsNotSaved as exc:
            self.app.call_from_thread(self._save_failed, str(exc))
            return
        except OSError as exc:
            self.app.call_from_thread(self._save_failed, f"Could not save {path}: {exc.strerror or exc}.")
            return
        if not written:
            self.app.call_from_thread(self._unchanged)
            return
        # What the file now holds (with its remaining problems, and its user directory,
        # which this screen never writes) is what the app goes on with.
        self.app.call_from_thread(self._saved, load_settings(path, report=False), path)

    def _save_failed(self, message: str) -> None:
        self.query_one("#settings-error", Static).update(safe_text(message))
        self.notify(message, severity="error", markup=False)

    def _unchanged(self) -> None:
        # Nothing differed from what the file holds, so nothing was written: saying "saved"
        # here would claim a write that never happened.
        self.notify("Nothing changed; the settings file was not written.", markup=False)
        self.dismiss(None)

    def _saved(self, settings: Settings, path: Path) -> None:
        self.app.post_message(SettingsChanged(settings, path))
        if settings.problems:
            count = len(settings.problems)
            self.notify(
                f"Settings saved; {path} still has {count} problem{'s' if count > 1 else ''} "
                "(left as written): " + "; ".join(str(p) for p in settings.problems),
                severity="warning",
                markup=False,
                timeout=10,
            )
        else:
            self.notify("Settings saved.")
        self.dismiss(settings)


class UnsavedChanges(ModalScreen[str]):
    """Asked when the Settings screen is left with changes not saved: "save", "discard" or "keep"."""

    DEFAULT_CSS = """
    UnsavedChanges {
        align: center middle;
    }
    UnsavedChanges > Vertical {
        width: 60;
        max-width: 95%;
        height: auto;
        border: round $warning;
        padding: 0 1;
        background: $surface;
    }
    UnsavedChanges Horizontal {
        height: auto;
        margin: 1 0 0 0;
    }
    UnsavedChanges Button {
        margin: 0 1 0 0;
    }
    """

    BINDINGS = [
        Binding("s", "answer('save')", "Save", tooltip="Save the changes, then leave"),
        Binding("d", "answer('discard')", "Discard", tooltip="Leave without saving the changes"),
        Binding("escape", "answer('keep')", "Keep editing", tooltip="Back to the settings, changes kept"),
    ]

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("The settings have changes that are not saved.", markup=False)
            with Horizontal():
                yield Button("Save (s)", variant="primary", id="unsaved-save")
                yield Button("Discard (d)", variant="error", id="unsaved-discard")
                yield Button("Keep editing (esc)", id="unsaved-keep")

    def on_mount(self) -> None:
        # Keep editing has focus: an enter pressed by habit loses nothing.
        self.query_one("#unsaved-keep", Button).focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss((event.button.id or "unsaved-keep").removeprefix("unsaved-"))

    def action_answer(self, answer: str) -> None:
        self.dismiss(answer)
