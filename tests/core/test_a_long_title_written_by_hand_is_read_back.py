"""A record edited by hand is read back; only a record that is not valid (a wrong field
type, an id that is not t<n>/p<n>, an unknown status or priority) is left out. A long
title typed by hand is text, the right type: the record is read back and listed."""

from __future__ import annotations

from pathlib import Path

from planwatch.core.settings import Settings
from planwatch.core.store.identity import Caller
from planwatch.core.store.store import Store
from planwatch.core.store.tools import run_tool

ANA = Caller(by="ana", session="s-1")


def test_a_long_title_written_by_hand_is_read_back(tmp_path: Path) -> None:
    store = Store(tmp_path / "store")
    run_tool("task_add", store, Settings(), ANA, {"title": "Short"})
    title = "Migrate " + "the billing tables " * 30
    path = store.tasks_dir / "t1.md"
    path.write_text(path.read_text().replace("title: Short", f"title: {title.strip()}"))
    snap = store.load()
    assert [p.message for p in snap.problems] == []
    assert snap.tasks["t1"].title == title.strip()
    assert run_tool("task_list", store, Settings(), ANA, {}).lines == [f"t1 todo medium {title.strip()}"]
