"""Approval rules: `requireApproval` and the user directory's grants (docs/store.md, Approvals).

API summary:
- `TASK_APPROVE = "task:approve"`, `SESSION_READ = "session:read"`.
- `BUILTIN_ROLES` — owner, lead, member, viewer. Every built-in role holds
  `session:read`; owner and lead also hold `task:approve`.
- `role_grants(settings)` — built-in roles merged with the configured ones (a configured
  role with a built-in's name adds to its grants; it cannot take `session:read` away).
- `grants_of(settings, user)` — the user's grants through her roles; task:approve
  brings session:read with it (an approver reads what she approves).
- `has_directory(settings)` — is a user directory configured (valid or not)?
- `holds(settings, caller, grant)` — without a directory every call holds every grant;
  with one, only the presented user's roles count, and a call nobody sent holds none;
  while the directory is present but not valid, no call holds any (fail closed).
- `refusal(subject, doing, grant, caller, settings, root)` — the sentence of a call refused
  for a missing grant (`Refused task_approve: approving needs the task:approve grant,
  …`); with a broken directory, or a team policy that cannot be verified, it names the
  file and the problem.
- `root` (the store folder) given to `holds` and `refusal`: a shared store's team policy
  that this host could not verify (core/sync/policy_check.py) holds no grant either.
- `may_start(settings, task, approvals)` — with requireApproval, a task moves to doing
  only once it carries an `approved` stamp that counts (core/store/approvals.py).
- `doing_without_approval(settings, task, approvals)` — a task that is doing although
  `may_start` says it could not start (a hand-written status): the listings say so.
"""

from __future__ import annotations

from pathlib import Path

from planwatch.core.settings import Settings
from planwatch.core.store.approvals import Approvals
from planwatch.core.store.identity import Caller
from planwatch.core.store.schema import TaskRecord
from planwatch.core.user_directory import BUILTIN_ROLES, SESSION_READ, TASK_APPROVE

__all__ = ["BUILTIN_ROLES", "SESSION_READ", "TASK_APPROVE"]


def has_directory(settings: Settings) -> bool:
    """A user directory is configured; a present but broken one counts (fail closed)."""
    return settings.has_directory()


def role_grants(settings: Settings) -> dict[str, frozenset[str]]:
    roles = dict(BUILTIN_ROLES)
    if settings.users is not None:
        for name, grants in settings.users.roles.items():
            roles[name] = roles.get(name, frozenset()) | frozenset(grants)
    return roles


def grants_of(settings: Settings, user: str | None) -> frozenset[str]:
    """Every grant the directory gives `user` through its roles (none for an unknown user)."""
    if settings.users is None or user is None:
        return frozenset()
    entry = settings.users.users.get(user)
    if entry is None:
        return frozenset()
    roles = role_grants(settings)
    held: frozenset[str] = frozenset()
    for role in entry.roles:
        held |= roles.get(role, frozenset())
    if TASK_APPROVE in held:
        # An approver reads what she approves (a directory's `approver: [task:approve]`
        # would otherwise approve tasks it may not list).
        held |= {SESSION_READ}
    return held


def policy_problem(root: Path | None) -> str | None:
    """What is wrong with the team policy of the shared store at `root` (None: nothing,
    or no policy); while something is, no call holds any grant (fail closed)."""
    if root is None:
        return None
    # Imported here: a store that is not shared never loads the sync code.
    from planwatch.core.sync.policy_check import policy_problem as problem_of

    return problem_of(root)


def holds(settings: Settings, caller: Caller, grant: str, root: Path | None = None) -> bool:
    """Does the call hold `grant`? Always, without a user directory; never, while the
    directory is present but not valid, or while the shared store's team policy at
    `root` cannot be verified."""
    if policy_problem(root) is not None:
        return False
    if not has_directory(settings):
        return True
    if settings.directory_error is not None:
        return False
    return grant in grants_of(settings, caller.user)


def refusal(
    subject: str, doing: str, grant: str, caller: Caller, settings: Settings | None = None, root: Path | None = None
) -> str:
    """Why a call without `grant` is refused, in the one wording the tools and channel share."""
    problem = policy_problem(root)
    if problem is not None:
        return (
            f"Refused {subject}: {doing} needs the {grant} grant, and the team policy cannot be verified: "
            f"{problem}. No call holds a grant until it verifies (planwatch sync --status; an owner "
            "publishes a good one with planwatch sync policy FILE)."
        )
    if settings is not None and settings.directory_error is not None:
        return f"Refused {subject}: {doing} needs the {grant} grant, and {settings.directory_error}; fix it first."
    if caller.user:
        who = caller.user
    elif caller.unknown_token:
        who = "a call whose token matches no user of the directory (revoked or mistyped)"
    else:
        who = "a call with no user token"
    return f"Refused {subject}: {doing} needs the {grant} grant, which {who} does not hold."


def may_start(settings: Settings, task: TaskRecord, approvals: Approvals) -> bool:
    """May `task` move to doing? With requireApproval only once it has been approved by
    an approval call of this host, for its title and body as they are now."""
    return not settings.require_approval or approvals.counts(task)


def doing_without_approval(settings: Settings, task: TaskRecord, approvals: Approvals) -> bool:
    """Is `task` doing although it could not have started? A `status: doing` written by
    hand (or one from before requireApproval was on, or kept while a non-approver
    retitled it) on a task no counted approval allows: listed, but never silently."""
    return started_without_approval(task, settings.require_approval, approvals.counts(task))


def started_without_approval(task: TaskRecord, required: bool, approval_counts: bool) -> bool:
    """The rule of `doing_without_approval` on what was already found: whether approval is
    required, and whether the task's approval counts. The app's store view asks it with
    what the store's reading thread found (it reads no ledger while a table is filled)."""
    return task.status == "doing" and required and not approval_counts
