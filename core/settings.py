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
- `save_settings(settings, path=None, *, base=None)` — writes only the fields where
  `settings` differs from `base` (default: what the file holds now), into the file's
  own text: every other line (comments, key order, unknown keys — each reported as a
  problem, with the nearest known key —, sections that failed
  validation) stays byte-for-byte. Refuses (`SettingsNotSaved`) a file that is not YAML.
- `LiveSettings(path)` — for long-running processes: `current()` re-reads the file when
  it changed (one `stat` per call), so an edit applies on the next call.
- `BUILTIN_ROLES` — owner, lead, member, viewer and their grants.

The user directory, as SPEC §4 writes it:
    roles:
      approver: [task:approve]
    users:
      - { id: ana, roles: [approver], token: "sha256:…" }
The earlier nested shape is read too: `users: {roles: {…}, users: {ana: {token, roles}}}`.
"""

from __future__ import annotations

import difflib
import getpass
import logging
import re
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from io import StringIO
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError
from ruamel.yaml.comments import CommentedMap
from ruamel.yaml.error import YAMLError

from planwatch.core import paths
from planwatch.core.atomic import PRIVATE_FILE_MODE, atomic_write, describe_os_error
from planwatch.core.regular import file_identity, read_regular
from planwatch.core.yamlio import rt_yaml, safe_yaml

log = logging.getLogger(__name__)

MAX_CONFIG_BYTES = 1_000_000
TASK_APPROVE = "task:approve"
SESSION_READ = "session:read"

BUILTIN_ROLES: dict[str, frozenset[str]] = {
    "owner": frozenset({TASK_APPROVE, SESSION_READ}),
    "lead": frozenset({TASK_APPROVE, SESSION_READ}),
    "member": frozenset({SESSION_READ}),
    "viewer": frozenset({SESSION_READ}),
}

_TOKEN = re.compile(r"sha256:[0-9a-fA-F]{64}")


class UserEntry(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    token: str
    """The user's token as `sha256:<hex>` of the secret they present in PLANWATCH_TOKEN."""
    roles: list[str] = Field(default_factory=list)
    """Role names; each grants what `roles` lists for it."""


class UserDirectory(BaseModel):
    model_config = ConfigDict(extra="forbid")

    roles: dict[str, list[str]] = Field(default_factory=dict)
    """Role name → grants, e.g. `lead: [task:approve, session:read]`."""
    users: dict[str, UserEntry] = Field(default_factory=dict)
    """User name → token hash and roles."""


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


class SettingsNotSaved(RuntimeError):
    """A save that wrote nothing; the message says why, in a sentence."""


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




def _yaml_problem(exc: Exception) -> str:
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    mark = getattr(exc, "problem_mark", None)
    where = f" (line {mark.line + 1})" if mark is not None else ""
    return f"is not valid YAML: {problem}{where}"


def _read_file(path: Path) -> str | None:
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


def _unreadable(path: Path, reason: str) -> Settings:
    problem = SettingsProblem(path, "", f"{reason}; every setting is at its default")
    error = f"the settings file {path} {reason}, so its user directory cannot be checked"
    return Settings().with_problems([problem], error)


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
        text = _read_file(path)
    except OSError as exc:
        return _unreadable(path, f"cannot be read ({describe_os_error(exc)})")
    except ValueError as exc:
        return _unreadable(path, str(exc))
    if text is None:
        return Settings()
    try:
        data = safe_yaml().load(text)
    except YAMLError as exc:
        return _unreadable(path, _yaml_problem(exc))
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
            problems.append(SettingsProblem(path, key, f"{_message(exc)}; the default is used instead"))
    directory, errors = _load_directory(path, data)
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


def _load_directory(path: Path, data: Mapping[str, Any]) -> tuple[UserDirectory | None, list[SettingsProblem]]:
    """The user directory in either shape, or None when the file has none; plus each error."""
    if "roles" not in data and "users" not in data:
        return None, []
    errors: list[SettingsProblem] = []

    def bad(key: str, problem: str) -> None:
        errors.append(SettingsProblem(path, key, problem))

    roles_raw: Any = data.get("roles")
    roles_key = "roles"
    users_raw: Any = data.get("users")
    entries: list[tuple[str, Any]] = []  # (key path, entry) of each user
    if isinstance(users_raw, dict) and set(users_raw) <= {"roles", "users"}:
        # The nested shape: users: {roles: {...}, users: {name: {token, roles}}}.
        if "roles" in users_raw:
            if "roles" in data:
                bad("users.roles", "roles are given twice (here and at the top level)")
            roles_raw, roles_key = users_raw["roles"], "users.roles"
        named = users_raw.get("users")
        if named is None:
            named = {}
        if not isinstance(named, dict):
            bad("users.users", "must map each user name to {token, roles}")
            named = {}
        for name, entry in named.items():
            key = f"users.users.{name}"
            if isinstance(entry, dict) and "id" not in entry:
                entry = {"id": name, **entry}
            entries.append((key, entry))
    elif isinstance(users_raw, list):
        entries = [(f"users[{i}]", entry) for i, entry in enumerate(users_raw)]
    elif users_raw is not None:
        bad("users", "must be a list of users, each { id, roles, token }")

    roles: dict[str, list[str]] = {}
    if roles_raw is not None:
        if not isinstance(roles_raw, dict):
            bad(roles_key, "must map each role name to its list of grants")
        else:
            for role, grants in roles_raw.items():
                key = f"{roles_key}.{role}"
                if not isinstance(role, str) or not role.strip():
                    bad(key, "a role name must be text")
                elif not isinstance(grants, list) or not all(isinstance(g, str) and g.strip() for g in grants):
                    bad(key, "must be a list of grants like [task:approve]")
                else:
                    roles[role] = [g.strip() for g in grants]

    users: dict[str, UserEntry] = {}
    known_roles = set(roles) | set(BUILTIN_ROLES)
    for key, entry in entries:
        if not isinstance(entry, dict):
            bad(key, "must be { id, roles, token }")
            continue
        unknown = sorted(str(k) for k in entry if k not in ("id", "roles", "token"))
        for name in unknown:
            bad(f"{key}.{name}", "is not a key of a user (id, roles, token)")
        user_id = entry.get("id")
        if not isinstance(user_id, str) or not user_id.strip():
            bad(f"{key}.id", "must name the user")
            continue
        if user_id in users:
            bad(f"{key}.id", f"{user_id} is listed twice")
        token = entry.get("token")
        if not isinstance(token, str) or not _TOKEN.fullmatch(token.strip()):
            bad(f"{key}.token", "must be sha256: and 64 hex digits (the hash of the user's secret)")
        user_roles = entry.get("roles", [])
        if user_roles is None:
            user_roles = []
        if not isinstance(user_roles, list) or not all(isinstance(r, str) for r in user_roles):
            bad(f"{key}.roles", "must be a list of role names")
            user_roles = []
        for role in user_roles:
            if role not in known_roles:
                bad(f"{key}.roles", f"role {role} is not defined under roles (nor built in)")
        if not unknown and isinstance(token, str):
            users[user_id] = UserEntry(token=token.strip(), roles=list(user_roles))
    if errors:
        return None, errors
    return UserDirectory(roles=roles, users=users), []


# ---------------------------------------------------------------- saving


def _dump_value(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def save_settings(settings: Settings, path: Path | None = None, *, base: Settings | None = None) -> list[str]:
    """Write the fields where `settings` differs from `base` (default: the file as it is).

    Only those keys' lines change; the rest of the file stays byte-for-byte. A field
    back at None is removed. The user directory is never written (edit it by hand).
    Returns the keys written. Raises `SettingsNotSaved` when the file is not YAML (or
    cannot be read), and `OSError` when the write fails.
    """
    path = Path(path or paths.config_file())
    try:
        text = _read_file(path) or ""
    except (OSError, ValueError) as exc:
        reason = describe_os_error(exc) if isinstance(exc, OSError) else str(exc)
        raise SettingsNotSaved(f"Nothing was saved: the settings file {path} {reason}.") from None
    if base is None:
        base = load_settings(path, report=False)
    changes: dict[str, Any] = {}
    for name, info in Settings.model_fields.items():
        if name == "users":
            continue
        new, old = getattr(settings, name), getattr(base, name)
        if new != old:
            changes[info.alias or name] = _dump_value(new)
    if not changes:
        return []
    atomic_write(path, splice_settings(text, changes, path), mode=PRIVATE_FILE_MODE, make_parents=True)
    return list(changes)


def splice_settings(text: str, changes: Mapping[str, Any], path: Path | None = None) -> str:
    """`text` with each top-level key of `changes` set (None: removed); all else untouched."""
    yaml = rt_yaml()
    try:
        doc = yaml.load(text) if text.strip() else CommentedMap()
    except (YAMLError, ValueError, TypeError, RecursionError) as exc:
        raise SettingsNotSaved(
            f"Nothing was saved: the settings file {path or ''} {_yaml_problem(exc)}; fix it by hand first."
        ) from None
    if doc is None:
        doc = CommentedMap()
    if not isinstance(doc, CommentedMap):
        raise SettingsNotSaved(f"Nothing was saved: the settings file {path or ''} is not a mapping of settings.")
    if doc.fa.flow_style() and len(doc):
        raise SettingsNotSaved(f"Nothing was saved: the settings file {path or ''} is one {{…}} mapping; write it as key: value lines.")
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
        while end > start + 1 and (not lines[end - 1].strip() or lines[end - 1].lstrip().startswith(("#", "---", "..."))):
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
