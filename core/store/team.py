"""A shared store's store-wide settings: what the team's signed policy says, applied on
top of this host's own (docs/sync.md, Store-wide settings).

Why a module of its own: the tools' rule for doing, the translation of agents' lists
and the sweep each read `requireApproval` / `sweepAfterDays` from the settings, and on a
shared store the team's policy says them once for every host. A host's own setting may
only be stricter:

- `requireApproval`: required when the policy or the host says so (and while the
  policy cannot be verified: fail closed).
- `sweepAfterDays`: the policy's number, or the host's when it keeps records longer; a
  host without the setting sweeps as the team does. While the policy cannot be
  verified, or its settings are not valid, nothing is swept (`sweep_refusal` says why).

`effective(settings, root)` is the settings with the team's applied (the same object
when the store has no team policy). Reads the small check file the last sync pass wrote
(core/sync/policy_check.py); no git, no network.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from planwatch.core.settings import Settings


def team_of(root: Path | None) -> dict[str, Any] | None:
    if root is None or not (Path(root) / ".sync").is_dir():
        return None  # not shared: the sync code is never loaded
    from planwatch.core.sync.policy_check import team_settings

    return team_settings(Path(root))


def effective(settings: Settings, root: Path | None) -> Settings:
    team = team_of(root)
    if team is None:
        return settings
    require = settings.require_approval or bool(team["requireApproval"])
    days = settings.sweep_after_days
    team_days = team["sweepAfterDays"]
    if team["problem"] is not None:
        days = None
    elif team_days is not None:
        days = team_days if days is None else max(days, team_days)
    if require == settings.require_approval and days == settings.sweep_after_days:
        return settings
    return replace(settings, require_approval=require, sweep_after_days=days)


def sweep_refusal(root: Path | None) -> str | None:
    """Why the sweep removes nothing on this shared store (None: it sweeps as the settings say)."""
    team = team_of(root)
    if team is None or team["problem"] is None:
        return None
    return f"the team's sweepAfterDays cannot be read ({team['problem']}); nothing is swept until it can"
