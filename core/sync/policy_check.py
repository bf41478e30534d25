"""Whether this host could verify the team's policy, for the grant checks of every call.

A shared store whose host pinned a policy (`policyPin` in `.sync/config.json`) is under
that policy: each sync pass verifies the chain from the pin to the fetched tip
(core/sync/signing.py) and writes what it found to `.sync/policy-check.json`
(`{"pin": …, "tip": …, "problem": null | "…", "settings": {…}}`). `policy_problem(root)` is what the
grant checks ask (core/store/grants.py): None for a store that is not shared or has no
policy, or whose policy verified; else one sentence naming the file and what is wrong —
and then every call that needs a grant is refused (fail closed, as a broken user
directory in the settings does). A check file that is missing or cannot be read while a
policy is pinned is itself the problem. Reads two small files; no git, no network.

`team_settings(root)` is the policy's store-wide settings (`requireApproval`,
`sweepAfterDays`) as the check file holds them, for the tools' rule for doing and the
sweep (core/store/team.py): None for a store that is not shared or has no policy; while
the policy cannot be verified, approval required and nothing swept (fail closed).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from planwatch.core.atomic import atomic_write
from planwatch.core.regular_files import read_regular

CHECK = "policy-check.json"


def write_check(
    sync_dir: Path, pin: str | None, tip: str | None, problem: str | None, settings: dict[str, Any] | None = None
) -> None:
    data = {"pin": pin, "tip": tip, "problem": problem, "settings": settings}
    path = sync_dir / CHECK
    try:
        if _json(path) == data:
            return
    except (OSError, ValueError):
        pass
    atomic_write(path, json.dumps(data, sort_keys=True) + "\n")


def _json(path: Path) -> Any:
    # Every grant check reads these: only a regular file, never through a link (a FIFO
    # here would hang every call), and never more than a small file holds.
    return json.loads(read_regular(path, 1_000_000, follow=False).decode("utf-8"))


def _check(root: Path) -> tuple[bool, dict[str, Any] | None, str | None]:
    """(under a policy, the check file's content when it checks this host's pin, what is wrong)."""
    sync_dir = Path(root) / ".sync"
    config_path = sync_dir / "config.json"
    if not config_path.is_file():
        return False, None, None  # not shared
    try:
        config = _json(config_path)
    except (OSError, ValueError) as exc:
        return True, None, f"{config_path} cannot be read ({exc})"
    if not isinstance(config, dict) or not config.get("policyPin"):
        return False, None, None  # shared without a team policy
    path = sync_dir / CHECK
    try:
        check = _json(path)
    except FileNotFoundError:
        return True, None, f"{path} is missing (no sync pass has verified the policy yet; run planwatch sync)"
    except (OSError, ValueError) as exc:
        return True, None, f"{path} cannot be read ({exc}; run planwatch sync)"
    if not isinstance(check, dict) or check.get("pin") != config["policyPin"]:
        return True, None, f"{path} does not check the policy this host pinned (run planwatch sync)"
    problem = check.get("problem")
    return True, check, str(problem) if problem else None


def policy_problem(root: Path) -> str | None:
    return _check(root)[2]


def team_settings(root: Path) -> dict[str, Any] | None:
    """The team policy's store-wide settings (`requireApproval`, `sweepAfterDays`, and
    `problem`: why they fail closed), or None when the store has no team policy."""
    under, check, problem = _check(root)
    if not under:
        return None
    settings = check.get("settings") if check is not None else None
    if problem is None and not isinstance(settings, dict):
        problem = f"{Path(root) / '.sync' / CHECK} holds no store-wide settings (run planwatch sync)"
    if problem is not None or not isinstance(settings, dict):
        return {"requireApproval": True, "sweepAfterDays": None, "problem": problem}
    days = settings.get("sweepAfterDays")
    require = settings.get("requireApproval")
    return {
        "requireApproval": require if isinstance(require, bool) else True,
        "sweepAfterDays": float(days) if isinstance(days, int | float) and not isinstance(days, bool) else None,
        "problem": settings.get("problem") if isinstance(settings.get("problem"), str) else None,
    }
