"""The person's settings: a pydantic model read from YAML, fail closed, saved field by field.

API summary:
- `Settings` — every setting (camelCase keys in the file). `problems` lists what was
  wrong in the file it came from; `directory_error` is set while a user directory
  (`roles`/`users`) is present but not valid: calls that need a grant are refused.
- `load_settings(path=None, *, report=True)` — never raises. A missing file is the
  defaults. Each valid setting is kept; each invalid one is reported as a
  `SettingsProblem(file, key, problem)` (logged at WARNING once per process when
  `report`) and left at its default. A file that cannot be read or parsed keeps the
  defaults and **fails closed**: its directory is unknown, so `directory_error` is set.
- `LiveSettings(path)` — for long-running processes: `current()` re-reads the file when
  it changed (one `stat` per call), so an edit applies on the next call.
- Saving only the keys that changed into the file's own text: core/settings_save.py.
  The user directory (`roles`, `users`) and the built-in roles: core/user_directory.py.
"""

from __future__ import annotations

import difflib
import getpass
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError
from ruamel.yaml.error import YAMLError

from planwatch.core import paths
from planwatch.core.atomic import describe_os_error
from planwatch.core.regular import file_identity, read_regular
from planwatch.core.user_directory import UserDirectory, load_directory
from planwatch.core.yamlio import safe_yaml

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


class Settings(BaseModel):
    """Everything a person can set. Keys are camelCase in the YAML file."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    read_agent_plans: bool = Field(True, alias="readAgentPlans")
    """Privacy: read agents' plans into their checklists. Off turns all reading off."""
    keep_plans_in_store: bool = Field(False, alias="keepPlansInStore")
    """Privacy opt-in: keep agents' plans in the shared task list (SPEC §5)."""
    require_approval: bool = Field(False, alias="requireApproval")
    """task_set refuses to move a task to doing until it has been approved."""
    sweep_after_days: float | None = Field(None, alias="sweepAfterDays", ge=0)
    """Finished plans and their tasks go this many days after their newest stamp; absent keeps forever."""
    store: str | None = None
    """The record store's folder (PLANWATCH_STORE wins)."""
    transcript_roots: list[str] = Field(default_factory=list, alias="transcriptRoots")
    """Extra folders to look for transcripts in, beside the harnesses' own."""
    owner: str | None = None
    """The person stamps name when no user token is presented."""
    users: UserDirectory | None = None
    """The user directory; when present, approving needs the task:approve grant."""
    theme: str | None = None
    """The app's colour theme, by name (chosen in the command palette; saved as chosen)."""
    notify_plan_complete: bool = Field(True, alias="notifyPlanComplete")
    """Bell and a toast when an agent's plan becomes complete."""
    notify_item_blocked: bool = Field(True, alias="notifyItemBlocked")
    """Bell and a toast when an agent's step becomes blocked."""
    notify_session_idle: bool = Field(False, alias="notifySessionIdle")
    """Bell and a toast when a running session goes idle."""
    desktop_notifications: bool = Field(False, alias="desktopNotifications")
    """Also send each notification to the desktop (OSC 9 and OSC 777, where the terminal supports them)."""

    _problems: tuple[SettingsProblem, ...] = PrivateAttr(default=())
    _directory_error: str | None = PrivateAttr(default=None)

    @property
    def problems(self) -> tuple[SettingsProblem, ...]:
        """What was wrong in the file these settings were read from (empty: nothing)."""
        return self._problems

    @property
    def directory_error(self) -> str | None:
        """Set while a user directory is present but cannot be read or validated: a
        sentence naming the file and the problem. Calls that need a grant are refused."""
        return self._directory_error

    def has_directory(self) -> bool:
        """A user directory is configured (valid or not: a broken one fails closed)."""
        return self.users is not None or self._directory_error is not None

    def owner_name(self) -> str:
        """The name stamps carry when no valid token is presented.

        Under a user directory: `owner`, else `host` (never a name from the
        environment, which anyone can set). Without one: `owner`, else the login name.
        """
        if self.owner:
            return self.owner
        if self.has_directory():
            return "host"
        # getpass asks the environment, then the password database: it finds the login
        # name without a controlling terminal too (os.getlogin does not: cron, CI, MCP).
        try:
            return getpass.getuser() or "host"
        except Exception:
            return "host"

    def with_problems(self, problems: list[SettingsProblem], directory_error: str | None) -> Settings:
        """These settings, marked with what was wrong in their file (for the loader)."""
        self._problems = tuple(problems)
        self._directory_error = directory_error
        return self


# ---------------------------------------------------------------- loading

_FIELDS = {(info.alias or name): name for name, info in Settings.model_fields.items() if name != "users"}
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


# Settings that guard access fail closed when they cannot be read: a file or value that
# cannot be read never turns approval off (the brief: trust fails closed).
_CLOSED = {"require_approval": True}


def _unreadable(path: Path, reason: str) -> Settings:
    problem = SettingsProblem(
        path, "", f"{reason}; every setting is at its default, and approval is required until it is fixed"
    )
    error = f"the settings file {path} {reason}, so its user directory cannot be checked"
    return Settings(**_CLOSED).with_problems([problem], error)


def _message(exc: ValidationError) -> str:
    first = exc.errors()[0]
    msg = str(first.get("msg", exc))
    return msg[0].lower() + msg[1:] if msg else "is not valid"


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
    if text is None:
        return Settings()
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
            values[name] = getattr(Settings.model_validate({key: value}), name)
        except ValidationError as exc:
            if name in _CLOSED:
                values[name] = _CLOSED[name]
                problems.append(SettingsProblem(path, key, f"{_message(exc)}; approval is required until it is fixed"))
            else:
                problems.append(SettingsProblem(path, key, f"{_message(exc)}; the default is used instead"))
    directory, directory_errors = load_directory(data)
    errors = [SettingsProblem(path, key, problem) for key, problem in directory_errors]
    problems.extend(errors)
    directory_error = None
    if errors:
        first = errors[0]
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        directory_error = f"the user directory in {path} is not valid: {first.key}: {first.problem}{more}"
    settings = Settings.model_validate(values).model_copy(update={"users": directory})
    return settings.with_problems(problems, directory_error)


def _unknown_key(key: object) -> str:
    """What is said of a top-level key planwatch does not know, with the nearest known one."""
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
