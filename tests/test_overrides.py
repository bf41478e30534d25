"""SPEC §3: overrides are kept by item key only, survive a restart, write atomically."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.checklist import item_key
from core.overrides import Overrides, default_path


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
    path.write_text(json.dumps({"sessions": {"s": {"Some step text": "completed", good: "pending", item_key("b", 0): "bogus"}}}))
    store = Overrides()
    assert store.for_session("s") == {good: "pending"}
    store.save()
    assert "Some step text" not in path.read_text()


def test_a_broken_file_means_no_overrides_not_a_crash() -> None:
    path = default_path()
    path.parent.mkdir(parents=True)
    path.write_text("{not json")
    assert Overrides().for_session("s") == {}


def test_save_leaves_no_temp_files_behind() -> None:
    store = Overrides()
    store.set("s", item_key("a", 0), "completed")
    store.save()
    assert sorted(p.name for p in default_path().parent.iterdir()) == ["overrides.json"]
