"""The person's settings: a pydantic model saved as YAML, comments kept.

The file is read and written with ruamel.yaml in round-trip mode, so a person's own
comments and key order survive a save from the Settings screen.
"""

from __future__ import annotations

import getpass
import logging
from io import StringIO
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap

from core import paths
from core.atomic import PRIVATE_FILE_MODE, atomic_write

log = logging.getLogger(__name__)


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
    """The person stamps name when no user token is presented (default: the login name)."""
    users: UserDirectory | None = None
    """The user directory; when present, approving needs the task:approve grant."""

    def owner_name(self) -> str:
        if self.owner:
            return self.owner
        # getpass asks the environment, then the password database: it finds the login
        # name without a controlling terminal too (os.getlogin does not: cron, CI, MCP).
        try:
            return getpass.getuser() or "host"
        except Exception:
            return "host"


def _yaml() -> YAML:
    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.default_flow_style = False
    return yaml


def load_settings(path: Path | None = None) -> Settings:
    """Read the settings file; a missing or broken file gives the defaults (logged)."""
    path = path or paths.config_file()
    try:
        with path.open(encoding="utf-8") as fh:
            data = _yaml().load(fh)
    except FileNotFoundError:
        return Settings()
    except Exception as exc:  # a hand-broken file must never stop the app
        log.warning("settings file %s is not valid YAML (%s); using defaults", path, exc)
        return Settings()
    if not isinstance(data, dict):
        return Settings()
    try:
        return Settings.model_validate(dict(data))
    except ValidationError as exc:
        log.warning("settings file %s has invalid values (%s); using defaults", path, exc)
        return Settings()


def save_settings(settings: Settings, path: Path | None = None) -> None:
    """Write the settings back, keeping the person's comments and key order (atomic)."""
    path = path or paths.config_file()
    yaml = _yaml()
    try:
        with path.open(encoding="utf-8") as fh:
            doc = yaml.load(fh)
    except (FileNotFoundError, Exception):
        doc = None
    if not isinstance(doc, CommentedMap):
        doc = CommentedMap()
    new = settings.model_dump(by_alias=True, mode="json", exclude_none=False)
    for key, value in new.items():
        if value is None and key not in doc:
            continue
        if doc.get(key) != value:
            doc[key] = value
    buf = StringIO()
    yaml.dump(doc, buf)
    atomic_write(path, buf.getvalue(), mode=PRIVATE_FILE_MODE, make_parents=True)
