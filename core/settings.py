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

Why not a pydantic model, as the store's records are: every planwatch command loads the
settings, and importing pydantic and ruamel.yaml for them took about 90 ms of the
0.34 s of a warm `planwatch sessions` (docs/performance.md). The settings are a dozen
scalars and one list; a small explicit table of
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

import math
import os
import stat
import time
from _thread import allocate_lock  # threading's Lock, without importing threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from planwatch.core import paths
from planwatch.core.atomic import describe_os_error
from planwatch.core.logs import get_logger
from planwatch.core.regular_files import file_identity, open_regular_stat
from planwatch.core.text import quoted

# `typing` is not loaded at run time: a quick command's start (docs/performance.md)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from planwatch.core.user_directory import UserDirectory

log = get_logger(__name__)  # logging imported at the first record

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


def _unnameable(path: str) -> str | None:
    """Why no file system can name `path` (a NUL, a lone surrogate that is no file
    name's byte: `"\\ud800"` written in the file), or None."""
    if "\0" in path:
        return "holds a NUL character, which no path can"
    try:
        os.fsencode(path)
    except UnicodeEncodeError:
        return "holds a lone surrogate (an escape of no character), which no path can"
    return None


def _folder(value: object) -> str | None:
    folder = _text(value)
    if folder is not None and (why := _unnameable(folder)) is not None:
        raise ValueError(f"should be a folder, but {_found(folder)} {why}")
    return folder


def _folders(value: object) -> list[str]:
    if not isinstance(value, list):
        raise ValueError(f"should be a list of folders, one `- folder` line each, not {_found(value)}")
    for number, item in enumerate(value, 1):
        if not isinstance(item, str):
            raise ValueError(f"should be a list of folders, but item {number} is {_found(item)}, not a folder")
        if (why := _unnameable(item)) is not None:
            raise ValueError(f"should be a list of folders, but item {number} {why}")
    return list(value)


# Every setting: its attribute → (its key in the file, what it accepts). The user
# directory (`users`, `roles`) is not here: core/user_directory.py checks it.
_TABLE: dict[str, tuple[str, Callable[[object], Any]]] = {
    "read_agent_plans": ("readAgentPlans", _switch),
    "keep_plans_in_store": ("keepPlansInStore", _switch),
    "require_approval": ("requireApproval", _switch),
    "sweep_after_days": ("sweepAfterDays", _days),
    "store": ("store", _folder),
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
    """Privacy opt-in: keep agents' plans in the shared task list (docs/store.md, Agents' lists in the store)."""
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
    file_missing: bool = field(default=False, repr=False, compare=False)
    """These are the defaults of a settings file that does not exist."""

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
        An `owner` that names a user of the directory is not a token-less call's
        name: only a user's own token names her, so such calls are stamped `host`.
        """
        if self.owner and not (self.users is not None and names_user(self.users, self.owner)):
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


def names_user(directory: UserDirectory, name: str) -> bool:
    """Does `name` name a user of `directory` (case and surrounding blanks aside)?"""
    wanted = name.strip().casefold()
    return any(user.strip().casefold() == wanted for user in directory.users)


# ---------------------------------------------------------------- loading

_reported: set[str] = set()
_reported_lock = allocate_lock()


def yaml_problem(exc: Exception) -> str:
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    mark = getattr(exc, "problem_mark", None)
    where = f" (line {mark.line + 1})" if mark is not None else ""
    return f"is not valid YAML: {problem}{where}"


def _check_not_open_to_all(path: Path, st: os.stat_result) -> None:
    """Refuse a settings file that every user of the host may write, or that sits in a
    folder every user may write into without the sticky bit (anyone could replace it):
    whoever can write it can make themselves an approver, so it is not read."""
    if st.st_mode & 0o002:
        raise ValueError(
            f"is writable by every user of this host (mode {stat.S_IMODE(st.st_mode):04o}), so anyone could "
            "rewrite who may approve; run chmod o-w on it"
        )
    try:
        folder = os.stat(path.parent)
    except OSError:
        return
    if folder.st_mode & 0o002 and not folder.st_mode & stat.S_ISVTX:
        raise ValueError(
            f"is in a folder every user of this host may write into (mode {stat.S_IMODE(folder.st_mode):04o}), so "
            "anyone could replace it; run chmod o-w on the folder"
        )


def read_settings_text(path: Path) -> str | None:
    """The file's text; None when it does not exist. Raises ValueError / OSError with a reason."""
    try:
        fd, st = open_regular_stat(path)
    except FileNotFoundError:
        return None
    with os.fdopen(fd, "rb") as fh:
        raw = fh.read(MAX_CONFIG_BYTES + 1)
    _check_not_open_to_all(path, st)
    if len(raw) > MAX_CONFIG_BYTES:
        raise ValueError(f"is larger than {MAX_CONFIG_BYTES:,} bytes")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"is not UTF-8 text (byte {exc.start})") from None


# Settings that guard access or privacy fail closed when they cannot be read: a file or
# value that cannot be read never turns approval off, and never turns plan reading on
# for a person who may have written it off (trust fails closed: docs/privacy.md, Trust).
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
    if not settings.has_directory():
        settings = _directory_elsewhere(path, settings)
    if report:
        report_problems(settings)
    return settings


def _directory_elsewhere(path: Path, settings: Settings) -> Settings:
    """`settings` read from `path`, which holds no user directory; failed closed when a
    default settings file (the one the person's own login would read) holds one.

    PLANWATCH_CONFIG, XDG_CONFIG_HOME and HOME are the caller's to set: an agent naming
    a file that is missing (or has no directory) would otherwise run without the
    directory that governs it. Which file is meant is a person's decision, so until one
    is made every call that needs a grant is refused, and approval is required.
    """
    for anchor in paths.default_config_files():
        if _same_file(anchor, path):
            continue
        other = _load(anchor)
        if not other.has_directory():
            continue
        if settings.file_missing:
            state = "does not exist"
            how = f"write {path} (with roles and users, or without them to run with no directory)"
        else:
            state = "holds no user directory"
            how = f"copy the roles and users into {path}"
        error = (
            f"the settings file {path} {state}, but {anchor} holds a user directory; until a person "
            f"decides, unset PLANWATCH_CONFIG (and XDG_CONFIG_HOME) to use that directory, or {how}"
        )
        return _failed_closed(path, settings, error)
    return settings


def _same_file(one: Path, other: Path) -> bool:
    if one == other:
        return True
    try:
        return one.resolve() == other.resolve()
    except (OSError, RuntimeError):
        return False


def _failed_closed(path: Path, settings: Settings, error: str) -> Settings:
    """`settings` with approval required, plans not read and every grant refused, for `error`."""
    problem = SettingsProblem(path, "", f"{error}; approval is required and agents' plans are not read meanwhile")
    closed = {name: value for name, (value, _said) in _CLOSED.items()}
    return replace(
        settings,
        **closed,
        problems=(*settings.problems, problem),
        directory_error=error,
        file_missing=settings.file_missing,
    )


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
        return Settings(file_missing=True)
    if not text.strip():
        return Settings()
    # Imported here, not at the top: most commands run without a settings file, and
    # ruamel.yaml is a tenth of a warm start (docs/performance.md).
    from ruamel.yaml.error import YAMLError

    from planwatch.core.yamlio import safe_yaml, uses_aliases

    try:
        if uses_aliases(text):
            return _unreadable(
                path, "uses YAML anchors or aliases, which the settings do not accept (write each value out)"
            )
        data = safe_yaml().load(text)
    except YAMLError as exc:
        return _unreadable(path, yaml_problem(exc))
    except RecursionError:
        # Python's own words ("maximum recursion depth exceeded") say nothing to a person.
        return _unreadable(path, "is not valid YAML: its values nest too deeply to read")
    except (ValueError, TypeError) as exc:
        return _unreadable(path, f"is not valid YAML: {exc}")
    if data is None:
        return Settings()
    if not isinstance(data, dict):
        return _unreadable(path, "is not a mapping of settings (key: value lines)")
    problems: list[SettingsProblem] = []
    # A users/roles section misspelt or out of place is a broken directory, never none:
    # read as no directory, it would let every call approve.
    directory_problems: list[SettingsProblem] = []
    values: dict[str, Any] = {}
    for key, value in data.items():
        name = _FIELDS.get(key) if isinstance(key, str) else None
        if name is None:
            # Kept on save (they may be another tool's), but said: a misspelled key
            # (`requireAproval`, `role`) must not pass for a setting in force.
            if key in ("roles", "users"):
                continue
            meant = directory_key(key)
            if meant is not None:
                directory_problems.append(SettingsProblem(path, str(key), _misspelt_directory(key, meant)))
            else:
                problems.append(SettingsProblem(path, str(key), _unknown_key(key)))
                directory_problems.extend(_nested_directory(path, str(key), value))
            continue
        directory_problems.extend(_nested_directory(path, str(key), value))
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
    errors = list(directory_problems)
    if "roles" in data or "users" in data:
        # The directory's checks (pydantic) load only for a file that has one.
        from planwatch.core.user_directory import load_directory

        directory, directory_errors = load_directory(data)
        errors.extend(SettingsProblem(path, key, problem) for key, problem in directory_errors)
    if errors:
        directory = None
        problems.extend(errors)
        first = errors[0]
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        directory_error = f"the user directory in {path} is not valid: {first.key}: {first.problem}{more}"
    owner = values.get("owner")
    if owner and directory is not None and names_user(directory, owner):
        problems.append(
            SettingsProblem(
                path,
                "owner",
                f"names {quoted(owner)}, a user of the user directory: a call without a token is never stamped "
                "as a user (only the user's own token names her), so such calls are stamped host",
            )
        )
    return Settings(**values, users=directory, problems=tuple(problems), directory_error=directory_error)


_DIRECTORY_KEYS = ("users", "roles")


def directory_key(key: object) -> str | None:
    """`users` or `roles` when `key` is almost that key (`Users`, `user`, `"users "`,
    `rols`) without being it; else None."""
    if not isinstance(key, str) or key in _DIRECTORY_KEYS:
        return None
    word = key.strip().casefold()
    for name in _DIRECTORY_KEYS:
        if word in (name, name[:-1]):
            return name
    if not 3 <= len(word) <= 7:
        return None
    import difflib

    near = difflib.get_close_matches(word, _DIRECTORY_KEYS, n=1, cutoff=0.75)
    return near[0] if near else None


def _misspelt_directory(key: object, meant: str) -> str:
    return (
        f"is not a setting planwatch knows (did you mean {meant}?); the user directory's key is {meant}, lower "
        "case, at the top level, so the directory is broken: calls that need a grant are refused until it is fixed"
    )


def _nested_directory(path: Path, top: str, value: object) -> list[SettingsProblem]:
    """A `users` or `roles` (or almost) below the top level: a directory out of place."""
    found: list[SettingsProblem] = []
    todo: list[tuple[str, object]] = [(top, value)]
    while todo and len(found) < 10:
        where, node = todo.pop()
        if isinstance(node, dict):
            for key, child in node.items():
                here = f"{where}.{key}"
                if key in _DIRECTORY_KEYS or directory_key(key) is not None:
                    meant = key if key in _DIRECTORY_KEYS else directory_key(key)
                    found.append(
                        SettingsProblem(
                            path,
                            here,
                            f"is a {meant} section below the top level, where it is not read, so the user "
                            "directory is broken: calls that need a grant are refused until it is moved to the top",
                        )
                    )
                else:
                    todo.append((here, child))
        elif isinstance(node, list):
            todo.extend((f"{where}[{i}]", child) for i, child in enumerate(node))
    return found


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

    A file that held a user directory while this process ran and is then gone does not
    mean "no directory" (deleting a file is not a decision anyone made, and an agent of
    the same user can do it): calls that need a grant are refused, and approval is
    required, until the file is back — holding a directory, or written without one by a
    person who decided to run without it.
    """

    def __init__(self, path: Path | None = None, *, report: bool = True, initial: Settings | None = None) -> None:
        self.path = Path(path or paths.config_file())
        self._report = report
        self._lock = allocate_lock()
        self._key = file_identity(self.path)
        self._had_directory = False
        self._settings = initial if initial is not None else self._read()
        self._had_directory = self._settings.has_directory()
        self._listeners: list[Callable[[Settings], None]] = []

    def _read(self) -> Settings:
        settings = load_settings(self.path, report=False)
        for _ in range(4):
            if not (settings.problems and not settings.problems[0].key and "YAML" in settings.problems[0].problem):
                break
            time.sleep(0.05)  # an editor's save in progress: give it a moment
            settings = load_settings(self.path, report=False)
        if settings.file_missing and self._had_directory:
            settings = _failed_closed(
                self.path,
                settings,
                f"the settings file {self.path} held a user directory when this process read it and is gone now; "
                f"until a person decides, put it back, or write {self.path} without roles and users to run with no "
                "directory",
            )
        if not settings.file_missing:
            self._had_directory = settings.has_directory()
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
