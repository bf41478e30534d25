"""Ids from the ranges this host claimed: what the store's minting asks first.

`<store>/.sync/mint.json` (written by the sync under the store lock): per kind the
ranges the ids ref gave this host and the highest number minted from them
(`{"ranges": {"t": [[33, 64]], "p": [[9, 16]]}, "cursor": {"t": 40, "p": 9}}`).
`claimed_number` hands out the next number above the cursor that no file holds, or None
when the store is not shared or the ranges are used up — then the store mints as it
always did, and the sync treats that id as provisional (renumbered at the next sync).
Called under the store lock.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from planwatch.core.atomic import atomic_write

MINT = "mint.json"


def read_mint(sync_dir: Path) -> dict[str, Any]:
    try:
        data = json.loads((sync_dir / MINT).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"ranges": {"t": [], "p": []}, "cursor": {"t": 0, "p": 0}}
    return data if isinstance(data, dict) else {"ranges": {"t": [], "p": []}, "cursor": {"t": 0, "p": 0}}


def write_mint(sync_dir: Path, data: dict[str, Any]) -> None:
    atomic_write(sync_dir / MINT, json.dumps(data, sort_keys=True) + "\n")


def in_ranges(data: dict[str, Any], prefix: str, number: int) -> bool:
    return any(lo <= number <= hi for lo, hi in data.get("ranges", {}).get(prefix, ()))


def left_in_ranges(data: dict[str, Any], prefix: str) -> int:
    cursor = int(data.get("cursor", {}).get(prefix, 0))
    return sum(max(0, hi - max(lo - 1, cursor)) for lo, hi in data.get("ranges", {}).get(prefix, ()))


def claimed_number(root: Path, prefix: str, taken: Callable[[int], bool]) -> int | None:
    sync_dir = Path(root) / ".sync"
    if not (sync_dir / MINT).is_file():
        return None
    data = read_mint(sync_dir)
    cursor = int(data.get("cursor", {}).get(prefix, 0))
    for lo, hi in sorted(data.get("ranges", {}).get(prefix, ())):
        for number in range(max(lo, cursor + 1), hi + 1):
            if not taken(number):
                data.setdefault("cursor", {})[prefix] = number
                write_mint(sync_dir, data)
                return number
    return None
