"""The person's settings: a plain frozen dataclass read from YAML, fail closed, saved field by field.

API summary:
- `Settings` — every setting (camelCase keys in the file, snake_case attributes;
  `SETTING_KEYS` maps one to the other). Building one checks each field, so an invalid
  `Settings` cannot exist; change one with `dataclasses.replace`. `problems` lists what
  was wrong in the file it came from; `directory_error` is set while a user directory
  (`roles`/`users`) is present but not valid: calls that need a grant are refused.
- `SettingInvalid` — the ValueError raised for a value a setting does not accept; it
  names the key and what the value should be (the Settings screen shows it).
- `load_settings(path=None, *, report=True)` — never raises. A missing file is the
  defaults. Each valid setting is kept; each invalid one is reported as a
  `SettingsProblem(file, key, problem)` (logged at WARNING once per process when
  `report`) and left at its default. A file that cannot be read or parsed keeps the
  defaults and **fails closed**: its directory is unknown, so `directory_error` is set.
- `LiveSettings(path)` — for long-running processes: `current()` re-reads the file when
  it changed (one `stat` per call), so an edit applies on the next call.
- Saving only the keys that changed into the file's own text: core/settings_save.py.
  The user directory (`roles`, `users`) and the built-in roles: core/user_directory.py.

Why not a pydantic model (STYLE §14 suggests one): every planwatch command loads the
settings, and importing pydantic and ruamel.yaml for them took about 90 ms of the
0.34 s of a warm `planwatch sessions` (issue 11). The settings are a dozen scalars and one list; a small explicit table of
checks (`_TABLE`) says what each accepts, in plain words. ruamel.yaml is imported only
when there is a file to parse, and the user directory (pydantic; a real validation job)
only when the file has `users` or `roles`.

What each kind of setting accepts — deliberately strict: no text read as a switch or a number:
- switches (`readAgentPlans`, `requireApproval`, …): only YAML's `true` or `false`.
  Not `yes`/`no`/`on`/`off` (which YAML 1.2 reads as text), not `1`/`0`: whether
  such a word meant on or off is a guess, and a guard must not be guessed off. An
  invalid `requireApproval` means approval is required, an invalid `readAgentPlans`
  that plans are not read (`_CLOSED`: `readAgentPlans: off` is text in YAML 1.2, and
  the person meant off); any other invalid switch is reported and left at its default.
  A file that cannot be read or parsed means both too.
- `sweepAfterDays`: a number of days, 0 or more (finite; not `true`, not quoted text),
  or absent to keep everything.
- `store`, `owner`: text, or absent. `theme`: a theme's name, or absent.
- `transcriptRoots`: a list of folders, each one text.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planwatch.core import paths
from planwatch.core.atomic import describe_os_error
from planwatch.core.regular import file_identity, read_regular
from planwatch.core.text import quoted

if TYPE_CHECKING:
    from planwatch.core.user_directory import UserDirectory

log = logging.getLogger(__name__)

MAX_CONFIG_BYTES = 1_000_000


@dataclass(frozen=True)
class SettingsProblem:
    """One thing wrong in a settings file: which file, which key, what."""

    file: Path
    key: str
    """The key's path in the file (`users[1].email`, `sweepAfterDays`); empty for the whole file."""
    problem: str

    def __str__(self) -> str:
        where = f"{self.file}: {self.key}" if self.key else str(self.file)
        return f"{where}: {self.problem}"


class SettingInvalid(ValueError):
    """A value a setting does not accept; `problem` says what it should be, in a sentence
    that follows the key (`sweepAfterDays should be a number of days, 0 or more, …`)."""

    def __init__(self, key: str, problem: str) -> None:
        super().__init__(f"{key} {problem}")
        self.key = key
        self.problem = problem


# ---------------------------------------------------------------- the checks


def _found(value: object) -> str:
    """What a value in the file is, in words, for a problem (`the text “yes”`)."""
    if value is None:
        return "empty"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return f"the number {value}" if abs(value) < 10**15 else "a very large number"
    if isinstance(value, float):
        return f"the number {value:g}"
    if isinstance(value, str):
        return f"the text {quoted(value)}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping of keys"
    return f"a {type(value).__name__}"


def _switch(value: object) -> bool:
    if isinstance(value, bool):
        return value
    raise ValueError(f"should be true or false, not {_found(value)}")


def _days(value: object) -> float | None:
    if value is None:
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            days = float(value)
        except OverflowError:
            days = math.inf
        if math.isfinite(days) and days >= 0:
            return days
    raise ValueError(f"should be a number of days, 0 or more (or left out to keep everything), not {_found(value)}")


def _optional_text(what: str) -> Callable[[object], str | None]:
    """The check of a setting that is text, or absent; `what` names it in the problem."""

    def check(value: object) -> str | None:
        if value is None or isinstance(value, str):
            return value
        raise ValueError(f"should be {what} (or left out), not {_found(value)}")

    return check


_text = _optional_text("text")
_theme = _optional_text("the name of a theme")


def _folders(value: object) -> list[str]:
    if not isinstance(value, list):
        raise ValueError(f"should be a list of folders, one `- folder` line each, not {_found(value)}")
    for number, item in enumerate(value, 1):
        if not isinstance(item, str):
            raise ValueError(f"should be a list of folders, but item {number} is {_found(item)}, not a folder")
    return list(value)


# Every setting: its attribute → (its key in the file, what it accepts). The user
# directory (`users`, `roles`) is not here: core/user_directory.py checks it.
_TABLE: dict[str, tuple[str, Callable[[object], Any]]] = {
    "read_agent_plans": ("readAgentPlans", _switch),
    "keep_plans_in_store": ("keepPlansInStore", _switch),
    "require_approval": ("requireApproval", _switch),
    "sweep_after_days": ("sweepAfterDays", _days),
    "store": ("store", _text),
    "transcript_roots": ("transcriptRoots", _folders),
    "owner": ("owner", _text),
    "theme": ("theme", _theme),
    "notify_plan_complete": ("notifyPlanComplete", _switch),
    "notify_item_blocked": ("notifyItemBlocked", _switch),
    "notify_session_idle": ("notifySessionIdle", _switch),
    "desktop_notifications": ("desktopNotifications", _switch),
}

SETTING_KEYS: dict[str, str] = {name: key for name, (key, _check) in _TABLE.items()}
"""Each setting's attribute → its camelCase key in the file (the user directory not included)."""

_FIELDS = {key: name for name, key in SETTING_KEYS.items()}


def _check_setting(name: str, value: object) -> Any:
    """`value` as the setting `name` keeps it (days as a float, a copy of a list);
    `SettingInvalid` saying what it should be when the setting does not accept it."""
    key, check = _TABLE[name]
    try:
        return check(value)
    except ValueError as exc:
        raise SettingInvalid(key, str(exc)) from None


@dataclass(frozen=True)
class Settings:
    """Everything a person can set. Keys are camelCase in the YAML file (`SETTING_KEYS`)."""

    read_agent_plans: bool = True
    """Privacy: read agents' plans into their checklists. Off turns all reading off."""
    keep_plans_in_store: bool = False
    """Privacy opt-in: keep agents' plans in the shared task list (SPEC §5)."""
    require_approval: bool = False
    """task_set refuses to move a task to doing until it has been approved."""
    sweep_after_days: float | None = None
    """Finished plans and their tasks go this many days after their newest stamp; absent keeps forever."""
    store: str | None = None
    """The record store's folder (PLANWATCH_STORE wins)."""
    transcript_roots: list[str] = field(default_factory=list)
    """Extra folders to look for transcripts in, beside the harnesses' own."""
    owner: str | None = None
    """The person stamps name when no user token is presented."""
    users: UserDirectory | None = None
    """The user directory; when present, approving needs the task:approve grant."""
    theme: str | None = None
    """The app's colour theme, by name (chosen in the command palette; saved as chosen)."""
    notify_plan_complete: bool = True
    """Bell and a toast when an agent's plan becomes complete."""
    notify_item_blocked: bool = True
    """Bell and a toast when an agent's step becomes blocked."""
    notify_session_idle: bool = False
    """Bell and a toast when a running session goes idle."""
    desktop_notifications: bool = False
    """Also send each notification to the desktop (OSC 9 and OSC 777, where the terminal supports them)."""

    problems: tuple[SettingsProblem, ...] = field(default=(), repr=False)
    """What was wrong in the file these settings were read from (empty: nothing)."""
    directory_error: str | None = field(default=None, repr=False)
    """Set while a user directory is present but cannot be read or validated: a
    sentence naming the file and the problem. Calls that need a grant are refused."""

    def __post_init__(self) -> None:
        # Checked like the file's values, so no code path can build settings the
        # file could not hold (the Settings screen relies on it).
        for name in _TABLE:
            value = getattr(self, name)
            kept = _check_setting(name, value)
            if kept is not value:
                object.__setattr__(self, name, kept)

    def has_directory(self) -> bool:
        """A user directory is configured (valid or not: a broken one fails closed)."""
        return self.users is not None or self.directory_error is not None

    def owner_name(self) -> str:
        """The name stamps carry when no valid token is presented.

        Under a user directory: `owner`, else `host` (never a name from the
        environment, which anyone can set). Without one: `owner`, else the login name.
        """
        if self.owner:
            return self.owner
        if self.has_directory():
            return "host"
        import getpass

        # getpass asks the environment, then the password database: it finds the login
        # name without a controlling terminal too (os.getlogin does not: cron, CI, MCP).
        try:
            return getpass.getuser() or "host"
        except Exception:
            return "host"


# ---------------------------------------------------------------- loading

_reported: set[str] = set()
_reported_lock = threading.Lock()


def yaml_problem(exc: Exception) -> str:
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    mark = getattr(exc, "problem_mark", None)
    where = f" (line {mark.line + 1})" if mark is not None else ""
    return f"is not valid YAML: {problem}{where}"


def read_settings_text(path: Path) -> str | None:
    """The file's text; None when it does not exist. Raises ValueError / OSError with a reason."""
    try:
        raw = read_regular(path, MAX_CONFIG_BYTES)
    except FileNotFoundError:
        return None
    if len(raw) > MAX_CONFIG_BYTES:
        raise ValueError(f"is larger than {MAX_CONFIG_BYTES:,} bytes")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"is not UTF-8 text (byte {exc.start})") from None


# Settings that guard access or privacy fail closed when they cannot be read: a file or
# value that cannot be read never turns approval off, and never turns plan reading on
# for a person who may have written it off (the brief: trust fails closed; SPEC §3).
# Each: the value it then takes, and what the problem says of it.
_CLOSED: dict[str, tuple[Any, str]] = {
    "require_approval": (True, "approval is required until it is fixed"),
    "read_agent_plans": (False, "agents' plans are not read until it is fixed"),
}


def _unreadable(path: Path, reason: str) -> Settings:
    problem = SettingsProblem(
        path,
        "",
        f"{reason}; every setting is at its default, except that approval is required and agents' plans "
        "are not read until it is fixed",
    )
    error = f"the settings file {path} {reason}, so its user directory cannot be checked"
    closed = {name: value for name, (value, _said) in _CLOSED.items()}
    return Settings(**closed, problems=(problem,), directory_error=error)


def load_settings(path: Path | None = None, *, report: bool = True) -> Settings:
    """Read the settings file; never raises, never fails open (see the module doc)."""
    path = Path(path or paths.config_file())
    settings = _load(path)
    if report:
        report_problems(settings)
    return settings


def report_problems(settings: Settings) -> list[SettingsProblem]:
    """Log each problem of `settings` at WARNING, once per process; returns the new ones."""
    new = []
    with _reported_lock:
        for problem in settings.problems:
            if str(problem) not in _reported:
                _reported.add(str(problem))
                new.append(problem)
    for problem in new:
        log.warning("settings: %s", problem)
    return new


def _load(path: Path) -> Settings:
    try:
        text = read_settings_text(path)
    except OSError as exc:
        return _unreadable(path, f"cannot be read ({describe_os_error(exc)})")
    except ValueError as exc:
        return _unreadable(path, str(exc))
    if text is None or not text.strip():
        return Settings()
    # Imported here, not at the top: most commands run without a settings file, and
    # ruamel.yaml is a tenth of a warm start (issue 11).
    from ruamel.yaml.error import YAMLError

    from planwatch.core.yamlio import safe_yaml

    try:
        data = safe_yaml().load(text)
    except YAMLError as exc:
        return _unreadable(path, yaml_problem(exc))
    except (ValueError, TypeError, RecursionError) as exc:
        return _unreadable(path, f"is not valid YAML: {exc}")
    if data is None:
        return Settings()
    if not isinstance(data, dict):
        return _unreadable(path, "is not a mapping of settings (key: value lines)")
    problems: list[SettingsProblem] = []
    values: dict[str, Any] = {}
    for key, value in data.items():
        name = _FIELDS.get(key) if isinstance(key, str) else None
        if name is None:
            # Kept on save (they may be another tool's), but said: a misspelled key
            # (`requireAproval`, `role`) must not pass for a setting in force.
            if key not in ("roles", "users"):
                problems.append(SettingsProblem(path, str(key), _unknown_key(key)))
            continue
        try:
            values[name] = _check_setting(name, value)
        except SettingInvalid as exc:
            if name in _CLOSED:
                values[name], said = _CLOSED[name]
                problems.append(SettingsProblem(path, key, f"{exc.problem}; {said}"))
            else:
                problems.append(SettingsProblem(path, key, f"{exc.problem}; the default is used instead"))
    directory = None
    directory_error = None
    if "roles" in data or "users" in data:
        # The directory's checks (pydantic) load only for a file that has one.
        from planwatch.core.user_directory import load_directory

        directory, directory_errors = load_directory(data)
        errors = [SettingsProblem(path, key, problem) for key, problem in directory_errors]
        problems.extend(errors)
        if errors:
            first = errors[0]
            more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
            directory_error = f"the user directory in {path} is not valid: {first.key}: {first.problem}{more}"
    return Settings(**values, users=directory, problems=tuple(problems), directory_error=directory_error)


def _unknown_key(key: object) -> str:
    """What is said of a top-level key planwatch does not know, with the nearest known one."""
    import difflib

    known = [*_FIELDS, "roles", "users"]
    near = difflib.get_close_matches(str(key), known, n=1, cutoff=0.6) if isinstance(key, str) else []
    hint = f" (did you mean {near[0]}?)" if near else ""
    return f"is not a setting planwatch knows{hint}; it is kept in the file and has no effect"


# ---------------------------------------------------------------- live



class LiveSettings:
    """The settings file as it is now, for processes that run for long (MCP, app, channel).

    `current()` costs one `stat`; when the file changed it is re-read, so a removed
    user or grant stops working on the very next call. A file caught half-written (not
    YAML) is re-read a few times over ~0.2 s before its problem counts. Callbacks given
    to `on_change` run (in the calling thread) after each reload.
    """

    def __init__(self, path: Path | None = None, *, report: bool = True, initial: Settings | None = None) -> None:
        self.path = Path(path or paths.config_file())
        self._report = report
        self._lock = threading.Lock()
        self._key = file_identity(self.path)
        self._settings = initial if initial is not None else self._read()
        self._listeners: list[Callable[[Settings], None]] = []

    def _read(self) -> Settings:
        settings = load_settings(self.path, report=False)
        for _ in range(4):
            if not (settings.problems and not settings.problems[0].key and "YAML" in settings.problems[0].problem):
                break
            time.sleep(0.05)  # an editor's save in progress: give it a moment
            settings = load_settings(self.path, report=False)
        if self._report:
            report_problems(settings)
        return settings

    def on_change(self, callback: Callable[[Settings], None]) -> None:
        self._listeners.append(callback)

    def current(self) -> Settings:
        key = file_identity(self.path)
        with self._lock:
            if key == self._key:
                return self._settings
            self._key = key
            self._settings = settings = self._read()
            self._key = file_identity(self.path) if file_identity(self.path) == key else None
        for callback in list(self._listeners):
            callback(settings)
        return settings

    def __call__(self) -> Settings:
        return self.current()
