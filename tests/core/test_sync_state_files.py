"""The files a shared store's sync leaves in `.sync/` are read by the store view, the
status line and every grant check, so a hand edit, a later version's shape or a FIFO
in their place must never hang, raise into a reader, or read as more than it says:
contests and the last pass are read only from regular files of the shape the sync
writes; anything else reads as nothing (contests), no pass yet (status)."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from planwatch.core.sync.contests import UNVERIFIED, read_contests
from planwatch.core.sync.loop import SyncStatus, recorded_status
from planwatch.tui.screens.browse_texts import sync_text


def state(root: Path, data: object) -> None:
    (root / ".sync").mkdir(parents=True, exist_ok=True)
    (root / ".sync" / "state.json").write_text(json.dumps(data))


@pytest.mark.parametrize(
    "data",
    [
        {"records": [1, 2]},
        {"records": {"x": {"id": "t1", "contests": 5}}},
        {"records": {"x": {"id": "t1", "contests": "note"}}},
        {"records": {"x": {"id": "t1", "unverified": 3}}},
        {"records": "all"},
        [1, 2, 3],
        {"last": "yesterday"},
    ],
    ids=[
        "records-a-list",
        "contests-a-number",
        "contests-text",
        "unverified-a-number",
        "records-text",
        "state-a-list",
        "last-text",
    ],
)
def test_a_state_of_another_shape_reads_as_no_contests_and_no_pass(tmp_path: Path, data: object) -> None:
    state(tmp_path, data)
    assert read_contests(tmp_path) == {}
    assert recorded_status(tmp_path) is None


def test_a_state_of_the_shape_the_sync_writes_gives_its_contests(tmp_path: Path) -> None:
    # the positive twin: the same reader on the shape the merge writes
    state(tmp_path, {"records": {"x": {"id": "t1", "contests": [["note", "kept", ["lost"]]]}}})
    [contest] = read_contests(tmp_path)["t1"]
    assert (contest.field, contest.kept, contest.lost) == ("note", "kept", ("lost",))
    # an approval that did not verify, on a record with no contest of its fields
    state(tmp_path, {"records": {"x": {"id": "t2", "unverified": [{"by": "ana", "host": "b"}]}}})
    [contest] = read_contests(tmp_path)["t2"]
    assert contest.field == UNVERIFIED and contest.lost == ({"by": "ana", "host": "b"},)


def test_a_fifo_in_place_of_the_state_is_not_opened(tmp_path: Path) -> None:
    (tmp_path / ".sync").mkdir()
    os.mkfifo(tmp_path / ".sync" / "state.json")
    # Opening a FIFO for reading blocks until a writer comes: these return at once.
    assert read_contests(tmp_path) == {}
    assert recorded_status(tmp_path) is None


def test_a_pass_that_reached_the_remote_never_reads_as_offline(tmp_path: Path) -> None:
    state(tmp_path, {"last": {"reached": True, "at": 5}})  # a time that does not parse
    status = recorded_status(tmp_path)
    assert status is not None and status.reached and status.synced_at is None
    now = datetime(2026, 12, 2, 9, 0, tzinfo=UTC)
    [(said, _style)] = sync_text(status, now)
    assert said == "⇅ synced"
    [(said, _style)] = sync_text(SyncStatus(True, None, now.timestamp()), now)
    assert said == "⇅ synced 09:00"  # with a time, the time
