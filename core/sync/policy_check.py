"""Whether this host could verify the team's policy, for the grant checks of every call.

A shared store whose host pinned a policy (`policyPin` in `.sync/config.json`) is under
that policy: each sync pass verifies the chain from the pin to the fetched tip
(core/sync/signing.py) and writes what it found to `.sync/policy-check.json`
(`{"pin": …, "tip": …, "problem": null | "…"}`). `policy_problem(root)` is what the
grant checks ask (core/store/grants.py): None for a store that is not shared or has no
policy, or whose policy verified; else one sentence naming the file and what is wrong —
and then every call that needs a grant is refused (fail closed, as a broken user
directory in the settings does). A check file that is missing or cannot be read while a
policy is pinned is itself the problem. Reads two small files; no git, no network.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from planwatch.core.atomic import atomic_write
from planwatch.core.regular import read_regular

CHECK = "policy-check.json"


def write_check(sync_dir: Path, pin: str | None, tip: str | None, problem: str | None) -> None:
    data = {"pin": pin, "tip": tip, "problem": problem}
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


def policy_problem(root: Path) -> str | None:
    sync_dir = Path(root) / ".sync"
    config_path = sync_dir / "config.json"
    if not config_path.is_file():
        return None  # not shared
    try:
        config = _json(config_path)
    except (OSError, ValueError) as exc:
        return f"{config_path} cannot be read ({exc})"
    if not isinstance(config, dict) or not config.get("policyPin"):
        return None  # shared without a team policy
    path = sync_dir / CHECK
    try:
        check = _json(path)
    except FileNotFoundError:
        return f"{path} is missing (no sync pass has verified the policy yet; run planwatch sync)"
    except (OSError, ValueError) as exc:
        return f"{path} cannot be read ({exc}; run planwatch sync)"
    if not isinstance(check, dict) or check.get("pin") != config["policyPin"]:
        return f"{path} does not check the policy this host pinned (run planwatch sync)"
    problem = check.get("problem")
    return str(problem) if problem else None
