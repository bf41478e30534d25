"""OpenCode: any status outside todowrite's vocabulary reads as pending, a JSON value that
is not a string included; such a list never stops the database (or storage/) being read."""

from __future__ import annotations

import json
from pathlib import Path

from opencode_db import T0, OpenCodeDb

from planwatch.core.transcripts.opencode import OpenCodeReader
from planwatch.core.transcripts.opencode_storage import OpenCodeStorageReader

ODD = [{"state": "done"}, ["completed"], 3, None]


def test_a_todowrite_status_that_is_not_a_string_reads_as_pending(tmp_path: Path) -> None:
    db = OpenCodeDb(tmp_path / "opencode.db")
    db.session("ses_dd14ccbeaffeBIKHavlZAfR2Qh", "Add YAML support to config loader")
    db.session("ses_dd14ccbeaffeBIKHavlZAfR2Qz", "Another session")
    db.todowrite("ses_dd14ccbeaffeBIKHavlZAfR2Qz", [("Run the config tests", "completed", "medium")], T0 + 50)
    mid = db.message("ses_dd14ccbeaffeBIKHavlZAfR2Qh", "assistant", T0 + 10)
    todos = [{"content": f"Step {n}", "status": status, "priority": "high"} for n, status in enumerate(ODD)]
    state = {"status": "completed", "input": {"todos": todos}, "metadata": {"todos": todos}}
    db.part(
        "ses_dd14ccbeaffeBIKHavlZAfR2Qh",
        mid,
        {"type": "tool", "tool": "todowrite", "callID": "call_MKIxHVE2ivh7sfs0b2Yqu8m4", "state": state},
        T0 + 11,
    )
    db.close()
    reader = OpenCodeReader(tmp_path / "opencode.db")
    results = {r.facts.id: r for r in reader.read()}
    assert reader.problem is None
    main = results["ses_dd14ccbeaffeBIKHavlZAfR2Qh"].plan.main
    assert main is not None
    assert [(i.text, i.status) for i in main.items] == [(f"Step {n}", "pending") for n in range(len(ODD))]
    other = results["ses_dd14ccbeaffeBIKHavlZAfR2Qz"].plan.main
    assert other is not None and [(i.text, i.status) for i in other.items] == [("Run the config tests", "completed")]


def test_a_storage_todo_status_that_is_not_a_string_reads_as_pending(tmp_path: Path) -> None:
    storage = tmp_path / "opencode" / "storage"
    project = storage / "session" / "c07bde1ba17458a89a273f0e18e4edfbe0400c29"
    project.mkdir(parents=True)
    sid = "ses_dd14ccbeaffeBIKHavlZAfR2Qh"
    info = {
        "id": sid,
        "projectID": "c07bde1ba17458a89a273f0e18e4edfbe0400c29",
        "directory": "/home/dev/opencode-todos",
        "title": "Add YAML support to config loader",
        "version": "0.15.8",
        "time": {"created": T0, "updated": T0 + 100},
    }
    (project / f"{sid}.json").write_text(json.dumps(info))
    (storage / "todo").mkdir()
    todos = [
        {"content": f"Step {n}", "status": status, "priority": "high", "id": str(n)} for n, status in enumerate(ODD)
    ]
    (storage / "todo" / f"{sid}.json").write_text(json.dumps(todos))
    reader = OpenCodeStorageReader(storage)
    [result] = reader.read()
    assert reader.problem is None
    main = result.plan.main
    assert main is not None
    assert [(i.text, i.status) for i in main.items] == [(f"Step {n}", "pending") for n in range(len(ODD))]
