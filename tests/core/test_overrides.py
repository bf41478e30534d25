"""docs/app.md, The checklist: overrides are kept by item key only, survive a restart, write atomically."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planwatch.core.checklist import item_key
from planwatch.core.overrides import Overrides, default_path


@pytest.fixture(autouse=True)
def _state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLANWATCH_STATE", str(tmp_path / "state"))


def test_overrides_live_in_the_state_folder(tmp_path: Path) -> None:
    assert default_path() == tmp_path / "state" / "overrides.json"


def test_overrides_survive_a_restart_and_store_keys_only(tmp_path: Path) -> None:
    marker = "SECRET-STEP-TEXT"
    key = item_key(marker, 0)
    first = Overrides()
    first.set("sess-1", key, "completed")
    first.save()
    raw = default_path().read_text()
    assert marker not in raw
    assert json.loads(raw)["sessions"] == {"sess-1": {key: "completed"}}
    assert Overrides().for_session("sess-1") == {key: "completed"}


def test_removing_the_last_override_forgets_the_session() -> None:
    store = Overrides()
    key = item_key("x", 0)
    store.set("s", key, "pending")
    store.set("s", key, None)
    store.save()
    assert json.loads(default_path().read_text())["sessions"] == {}


def test_a_key_that_is_not_a_hash_is_refused() -> None:
    with pytest.raises(ValueError):
        Overrides().set("s", "Write the parser", "completed")


def test_hand_edited_text_in_the_file_is_dropped_on_load() -> None:
    path = default_path()
    path.parent.mkdir(parents=True)
    good = item_key("a", 0)
    path.write_text(
        json.dumps({"sessions": {"s": {"Some step text": "completed", good: "pending", item_key("b", 0): "bogus"}}})
    )
    store = Overrides()
    assert store.for_session("s") == {good: "pending"}
    store.save()
    assert "Some step text" not in path.read_text()


@pytest.mark.parametrize(
    "near_key",
    [
        "0123456789abcdef Migrate the SECRET table",  # a key followed by text
        "0123456789abcdef\n",  # a key followed by a newline
        "Migrate the SECRET table 0123456789abcdef",  # text followed by a key
    ],
)
def test_only_exact_keys_are_loaded_and_written_back(near_key: str) -> None:
    path = default_path()
    path.parent.mkdir(parents=True)
    good = item_key("a", 0)
    path.write_text(json.dumps({"sessions": {"s": {near_key: "completed", good: "pending"}}}))
    store = Overrides()
    assert store.for_session("s") == {good: "pending"}
    store.save()
    assert "SECRET" not in path.read_text()
    assert json.loads(path.read_text())["sessions"] == {"s": {good: "pending"}}
    with pytest.raises(ValueError):
        store.set("s", near_key, "completed")


def test_a_broken_file_means_no_overrides_not_a_crash() -> None:
    path = default_path()
    path.parent.mkdir(parents=True)
    path.write_text("{not json")
    assert Overrides().for_session("s") == {}


def test_a_file_that_cannot_be_read_whole_is_never_overwritten_and_the_tick_waits_for_the_next_save() -> None:
    path = default_path()
    path.parent.mkdir(parents=True)
    path.write_text('{"version": 1, "sessions": {"s": {')  # the person mid-edit, or a torn copy
    store = Overrides()
    key = item_key("a", 0)
    store.set("s", key, "completed")
    with pytest.raises(OSError, match="not overwritten"):
        store.save()
    assert path.read_text() == '{"version": 1, "sessions": {"s": {'
    path.unlink()  # the person removed it: the tick made meanwhile is saved
    store.save()
    assert Overrides().for_session("s") == {key: "completed"}


def test_save_leaves_no_temp_files_behind() -> None:
    store = Overrides()
    store.set("s", item_key("a", 0), "completed")
    store.save()
    assert sorted(p.name for p in default_path().parent.iterdir()) == ["overrides.json"]


def test_choosing_the_agents_own_status_again_leaves_no_override_on_disk() -> None:
    # docs/app.md, The checklist, end to end: tick an agent step (override saved by key), tick it back to
    # the agent's own status (override gone from the file), restart: the agent's status.
    from planwatch.core.checklist import build_checklist, toggle_agent
    from planwatch.core.model import AgentPlan, PlanGroup, PlanItem

    text = "Migrate the PRIVATE-STEP table"
    agent = AgentPlan(
        groups=(PlanGroup(key="", source="claude_todos", items=(PlanItem(text=text, status="pending"),)),)
    )
    store = Overrides()
    row = build_checklist(agent, store.for_session("s")).agent_rows[0]
    store.set("s", row.key, toggle_agent(row))
    store.save()
    assert json.loads(default_path().read_text())["sessions"] == {"s": {row.key: "completed"}}
    assert "PRIVATE-STEP" not in default_path().read_text()

    ticked = build_checklist(agent, Overrides().for_session("s")).agent_rows[0]
    assert (ticked.status, ticked.override_label) == ("completed", "ticked by you")
    store.set("s", ticked.key, toggle_agent(ticked))  # back to the agent's own "pending"
    store.save()
    assert json.loads(default_path().read_text())["sessions"] == {}
    again = build_checklist(agent, Overrides().for_session("s")).agent_rows[0]
    assert (again.status, again.override) == ("pending", None)


def test_an_override_applies_to_the_nth_item_with_its_text_only() -> None:
    # docs/app.md, The checklist: the key is the text and its occurrence, so ticking the second of two
    # identical steps leaves the first as the agent has it, across a restart.
    from planwatch.core.checklist import build_checklist, toggle_agent
    from planwatch.core.model import AgentPlan, PlanGroup, PlanItem

    items = (PlanItem(text="Run tests", status="pending"), PlanItem(text="Run tests", status="pending"))
    agent = AgentPlan(groups=(PlanGroup(key="", source="codex", items=items),))
    store = Overrides()
    second = build_checklist(agent).agent_rows[1]
    store.set("s", second.key, toggle_agent(second))
    store.save()
    rows = build_checklist(agent, Overrides().for_session("s")).agent_rows
    assert [r.status for r in rows] == ["pending", "completed"]
    # The agent rewords the second step: the override no longer applies to anything.
    reworded = AgentPlan(
        groups=(PlanGroup(key="", source="codex", items=(items[0], PlanItem(text="Run all tests", status="pending"))),)
    )
    assert [r.override for r in build_checklist(reworded, Overrides().for_session("s")).agent_rows] == [None, None]
