"""The user directory in the settings file: roles, users and their tokens (docs/store.md, The user directory).

Why a module of its own: the directory decides who may approve, and its shapes (the
seed's `roles:` / `users:` list, the earlier nested form), the built-in roles and the
checks of each entry change with the trust rules, apart from the other settings
(core/settings.py) and how the file is saved (core/settings_save.py).

The user directory, as docs/store.md (The user directory) shows it:
    roles:
      approver: [task:approve]
    users:
      - { id: ana, roles: [approver], token: "sha256:…" }
The earlier nested shape is read too: `users: {roles: {…}, users: {ana: {token, roles}}}`.

- `UserDirectory`, `UserEntry`: the directory once valid.
- `load_directory(data)`: the directory a loaded settings mapping holds, or each thing
  wrong with it (a directory with any error is not used: the settings fail closed).
- `BUILTIN_ROLES`: owner, lead, member, viewer and their grants.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["BUILTIN_ROLES", "SESSION_READ", "TASK_APPROVE", "UserDirectory", "UserEntry", "load_directory"]

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


def load_directory(data: Mapping[str, Any]) -> tuple[UserDirectory | None, list[tuple[str, str]]]:
    """The user directory in either shape, or None when the file has none; plus each
    error as (the key's path in the file, what is wrong)."""
    if "roles" not in data and "users" not in data:
        return None, []
    errors: list[tuple[str, str]] = []

    def bad(key: str, problem: str) -> None:
        errors.append((key, problem))

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
