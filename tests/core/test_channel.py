"""docs/store.md, What clients see: the plan channel `x-ahpd-plans://<plan id>`, driven by the real store folder.

Every change here is made the way a real writer makes it — the store tools, the
translation, a plain open()/write() as an editor writing in place, a temp file renamed
over the record, a file deleted by hand — and watched with the real watchdog observer.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from planwatch.core.settings import Settings
from planwatch.core.store.channel import Channel, ChannelError, Subscription, plan_uri
from planwatch.core.store.identity import HOST, Caller
from planwatch.core.store.store import Store
from planwatch.core.store.tools import run_tool
from planwatch.core.store.translate import translate_list
from planwatch.core.store.watch import StoreWatcher
from planwatch.core.user_directory import UserDirectory, UserEntry

SESSION = "6f1c2a90-3b7e-4d0a-9a51-2c8f0e4b7d13"
DEADLINE = 60.0  # bounds a failure only; a passing wait returns at once
SETTINGS = Settings()
DANA = Caller(by="dana", session=SESSION)


def tool(store: Store, name: str, **args: Any) -> str:
    return run_tool(name, store, SETTINGS, DANA, args).text()


@pytest.fixture
def store(tmp_path: Path) -> Store:
    store = Store(tmp_path / "store")
    tool(
        store, "plan_create", title="Orders migration", scope={"kind": "folder", "folder": "/srv/api"}, goal="Ship it."
    )
    tool(store, "plan_create", title="Docs")
    tool(store, "task_add", title="Read the schema", plan="p1")
    tool(store, "task_add", title="Write the migration", plan="p1")
    tool(store, "task_set", task="t2", status="doing")
    tool(store, "task_add", title="Unrelated", plan="p2")
    return store


@pytest.fixture(params=["native", "polling"])
def channel(request: pytest.FixtureRequest, store: Store) -> Iterator[Channel]:
    ch = Channel(store.root, settings=SETTINGS, caller=HOST, polling=request.param == "polling")
    yield ch
    ch.stop()


@pytest.fixture
def native(store: Store) -> Iterator[Channel]:
    ch = Channel(store.root, settings=SETTINGS, caller=HOST)
    yield ch
    ch.stop()


def next_action(sub: Subscription) -> dict[str, Any]:
    action = sub.get(timeout=DEADLINE)
    assert action is not None, "no action arrived before the deadline"
    return action


def no_more_actions(channel: Channel, sub: Subscription) -> None:
    """Nothing else comes of the changes made so far, proved without waiting.

    `refresh()` re-reads the store as it is now and sends each subscriber what changed
    since its last view; it holds the channel's lock, so a refresh of the watcher's that
    is under way has finished delivering first. After it every view is the final state,
    so a later refresh of the watcher's finds nothing new: whatever those changes were
    ever going to send is in the queue now.
    """
    channel.refresh()
    extra = sub.get(timeout=0)
    assert extra is None, f"unexpected extra action {extra}"


def test_subscribing_answers_the_plan_and_its_tasks_with_stamps(native: Channel) -> None:
    state, sub = native.subscribe("x-ahpd-plans://p1")
    with sub:
        assert state["plan"]["id"] == "p1"
        assert state["plan"]["title"] == "Orders migration"
        assert state["plan"]["scope"] == {"kind": "folder", "folder": "/srv/api"}
        assert state["plan"]["goal"] == "Ship it.\n"
        assert state["plan"]["created"]["by"] == "dana"
        assert [(t["id"], t["title"], t["status"]) for t in state["tasks"]] == [
            ("t1", "Read the schema", "todo"),
            ("t2", "Write the migration", "doing"),
        ]
        t2 = state["tasks"][1]
        assert t2["started"]["by"] == "dana" and t2["started"]["in"] == SESSION
        assert isinstance(t2["started"]["at"], str)  # JSON-able


def test_task_added_by_a_tool(channel: Channel, store: Store) -> None:
    _, sub = channel.subscribe(plan_uri("p1"))
    tool(store, "task_add", title="Backfill", plan="p1")
    action = next_action(sub)
    assert action["type"] == "x-ahpd-plans/taskAdded"
    assert (action["task"]["id"], action["task"]["title"]) == ("t4", "Backfill")
    no_more_actions(channel, sub)


def test_task_set_by_a_tool(channel: Channel, store: Store) -> None:
    _, sub = channel.subscribe(plan_uri("p1"))
    tool(store, "task_set", task="t1", status="done")
    action = next_action(sub)
    assert action["type"] == "x-ahpd-plans/taskSet"
    assert action["task"]["id"] == "t1" and action["task"]["status"] == "done"
    assert action["task"]["finished"]["by"] == "dana"
    no_more_actions(channel, sub)


def test_plan_set_by_a_tool(native: Channel, store: Store) -> None:
    _, sub = native.subscribe(plan_uri("p1"))
    tool(store, "plan_set", plan="p1", status="active")
    action = next_action(sub)
    assert action == {"type": "x-ahpd-plans/set", "plan": action["plan"]}
    assert action["plan"]["status"] == "active"


def test_change_to_another_plan_sends_nothing(native: Channel, store: Store) -> None:
    _, sub = native.subscribe(plan_uri("p1"))
    tool(store, "task_set", task="t3", status="done")
    tool(store, "plan_set", plan="p2", title="Documentation")
    no_more_actions(native, sub)


def test_change_to_another_plan_reaches_that_plans_subscriber(native: Channel, store: Store) -> None:
    # The positive twin of the test above: the same writes, heard by a subscriber of p2
    # while p1's hears nothing, so that silence is the filter's, not a deaf watcher's.
    _, mine = native.subscribe(plan_uri("p1"))
    _, theirs = native.subscribe(plan_uri("p2"))
    tool(store, "task_set", task="t3", status="done")
    action = next_action(theirs)
    assert action["type"] == "x-ahpd-plans/taskSet"
    assert (action["task"]["id"], action["task"]["status"]) == ("t3", "done")
    tool(store, "plan_set", plan="p2", title="Documentation")
    action = next_action(theirs)
    assert action["type"] == "x-ahpd-plans/set" and action["plan"]["title"] == "Documentation"
    no_more_actions(native, mine)


def test_hand_edit_in_place_with_plain_write(channel: Channel, store: Store) -> None:
    _, sub = channel.subscribe(plan_uri("p1"))
    path = store.task_path("t1")
    text = path.read_text(encoding="utf-8").replace("title: Read the schema", "title: Read the orders schema")
    text = text.replace("status: todo", "status: review")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
    action = next_action(sub)
    assert action["type"] == "x-ahpd-plans/taskSet"
    assert (action["task"]["title"], action["task"]["status"]) == ("Read the orders schema", "review")
    no_more_actions(channel, sub)


def test_hand_edit_written_to_a_temp_file_then_renamed(channel: Channel, store: Store) -> None:
    _, sub = channel.subscribe(plan_uri("p1"))
    path = store.task_path("t2")
    text = path.read_text(encoding="utf-8").replace("status: doing", "status: blocked")
    tmp = path.with_name("t2.md.swp~")  # an editor's temp name beside the record
    tmp.write_text(text + "More context, by hand.\n", encoding="utf-8")
    os.rename(tmp, path)
    action = next_action(sub)
    assert action["type"] == "x-ahpd-plans/taskSet"
    assert action["task"]["status"] == "blocked"
    assert action["task"]["body"] == "More context, by hand.\n"
    no_more_actions(channel, sub)


def test_task_file_created_by_hand_is_added(native: Channel, store: Store) -> None:
    _, sub = native.subscribe(plan_uri("p1"))
    store.task_path("t9").write_text("---\nid: t9\ntitle: Written by hand\nplan: p1\n---\n", encoding="utf-8")
    action = next_action(sub)
    assert action["type"] == "x-ahpd-plans/taskAdded"
    assert action["task"]["id"] == "t9" and action["task"]["status"] == "todo"


def test_deleted_by_hand_is_removed_with_the_id_it_had(channel: Channel, store: Store) -> None:
    _, sub = channel.subscribe(plan_uri("p1"))
    os.unlink(store.task_path("t2"))
    assert next_action(sub) == {"type": "x-ahpd-plans/taskRemoved", "taskId": "t2"}
    no_more_actions(channel, sub)


def test_task_moving_between_plans_is_removed_from_one_and_added_to_the_other(native: Channel, store: Store) -> None:
    _, from_p1 = native.subscribe(plan_uri("p1"))
    _, to_p2 = native.subscribe(plan_uri("p2"))
    tool(store, "task_set", task="t1", plan="p2")
    assert next_action(from_p1) == {"type": "x-ahpd-plans/taskRemoved", "taskId": "t1"}
    added = next_action(to_p2)
    assert added["type"] == "x-ahpd-plans/taskAdded"
    assert added["task"]["id"] == "t1" and added["task"]["plan"] == "p2"
    no_more_actions(native, from_p1)
    no_more_actions(native, to_p2)


def test_translation_of_an_agent_list_produces_actions(native: Channel, store: Store) -> None:
    translate_list(store, SESSION, "Fix the ledger", [("Read the code", "in_progress")], tool="TodoWrite")
    _, sub = native.subscribe(plan_uri("p3"))
    translate_list(
        store, SESSION, "Fix the ledger", [("Read the code", "completed"), ("Ship", "pending")], tool="TodoWrite"
    )
    actions = [next_action(sub), next_action(sub)]
    assert sorted(a["type"] for a in actions) == ["x-ahpd-plans/taskAdded", "x-ahpd-plans/taskSet"]


def test_invalid_hand_edit_is_left_out_reported_and_back_when_fixed(
    native: Channel, store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    _, sub = native.subscribe(plan_uri("p1"))
    path = store.task_path("t1")
    good = path.read_text(encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="planwatch.core.store.channel"):
        path.write_text(good.replace("status: todo", "status: finished"), encoding="utf-8")
        # Left out, as every reader of the store leaves it out: the task is gone from the plan.
        assert next_action(sub) == {"type": "x-ahpd-plans/taskRemoved", "taskId": "t1"}
    assert any("tasks/t1.md" in r.getMessage() and "status must be" in r.getMessage() for r in caplog.records)
    path.write_text(good.replace("title: Read the schema", "title: Read the schema again"), encoding="utf-8")
    action = next_action(sub)
    assert action["type"] == "x-ahpd-plans/taskAdded" and action["task"]["title"] == "Read the schema again"


def test_plan_file_deleted_sets_the_plan_to_none(native: Channel, store: Store) -> None:
    _, sub = native.subscribe(plan_uri("p2"))
    os.unlink(store.plan_path("p2"))
    assert next_action(sub) == {"type": "x-ahpd-plans/set", "plan": None}


@pytest.mark.parametrize(
    "uri",
    ["x-ahpd-plans://p99", "x-ahpd-plans://t1", "x-ahpd-plans://", "https://example.com/p1", "x-ahpd-plans://p1/../p2"],
)
def test_uri_with_no_plan_is_refused(native: Channel, uri: str) -> None:
    with pytest.raises(ChannelError) as info:
        native.subscribe(uri)
    assert info.value.code == -32001
    assert info.value.message == f"Resource not found: {uri}"
    assert info.value.to_dict() == {"code": -32001, "message": f"Resource not found: {uri}"}


def test_subscribing_under_a_user_directory_needs_session_read(store: Store) -> None:
    settings = Settings(
        users=UserDirectory(
            roles={"outsider": []},
            users={
                "erin": UserEntry(token="sha256:" + "0" * 64, roles=["viewer"]),
                "mallory": UserEntry(token="sha256:" + "1" * 64, roles=["outsider"]),
            },
        )
    )
    ch = Channel(store.root, settings=settings)
    try:
        for caller in (Caller(by="host"), Caller(by="mallory", user="mallory")):
            with pytest.raises(ChannelError, match="session:read"):
                ch.subscribe(plan_uri("p1"), caller=caller)
        state, sub = ch.subscribe(plan_uri("p1"), caller=Caller(by="erin", user="erin"))
        assert state["plan"]["id"] == "p1"
        sub.close()
    finally:
        ch.stop()


def test_clients_cannot_write_to_the_channel() -> None:
    """The channel is read-only: no method of it or of a subscription takes a change.

    (Writes go through the store's tools; `store` is there for the MCP server to run them.)
    """
    public = {n for n in dir(Channel) if not n.startswith("_")} | {
        n for n in dir(Subscription) if not n.startswith("_")
    }
    assert public == {"start", "stop", "subscribe", "refresh", "store", "settings", "get", "close", "closed"}


def test_callback_receives_actions_in_order(native: Channel, store: Store) -> None:
    got: list[dict[str, Any]] = []
    arrived = threading.Condition()

    def on_action(action: dict[str, Any]) -> None:
        with arrived:
            got.append(action)
            arrived.notify_all()

    def wait_for(count: int) -> None:
        with arrived:
            assert arrived.wait_for(lambda: len(got) >= count, timeout=DEADLINE)

    _, sub = native.subscribe(plan_uri("p1"), on_action)
    tool(store, "task_set", task="t1", status="doing")
    wait_for(1)
    tool(store, "task_set", task="t1", status="done")
    wait_for(2)
    assert [a["task"]["status"] for a in got] == ["doing", "done"]
    native.refresh()  # a delivery under way has finished once this returns
    assert sub.get(timeout=0) is None  # with a callback nothing is queued


def test_stop_closes_subscriptions_and_joins_the_watcher(store: Store) -> None:
    ch = Channel(store.root, settings=SETTINGS, caller=HOST)
    _, sub = ch.subscribe(plan_uri("p1"))
    assert any(t.name.startswith("planwatch-store-watch") for t in threading.enumerate())
    ch.stop()
    assert sub.closed and sub.get(timeout=0.1) is None
    assert list(sub) == []
    assert not any(t.name.startswith("planwatch-store-watch") for t in threading.enumerate())


class _SeenWatcher(StoreWatcher):
    """The real watcher, also telling the test each record path its events named.

    Events reach `poke` one at a time in the order they happened, so once a path written
    last has been seen, every event before it has been noted too: a sync point that
    needs no waiting for quiet.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.seen: list[str] = []
        self.seen_changed = threading.Condition()

    def poke(self, path: str = "") -> None:
        super().poke(path)
        with self.seen_changed:
            self.seen.append(path)
            self.seen_changed.notify_all()

    def wait_seen(self, path: Path) -> list[str]:
        """Every path seen up to and including `path` (fails after the deadline)."""
        with self.seen_changed:
            assert self.seen_changed.wait_for(lambda: str(path) in self.seen, timeout=DEADLINE), f"{path} never seen"
            return list(self.seen)


def _added(store: Store, title: str) -> Path:
    """A task written the way the tools write it; its rename into place is the last event."""
    task_id = tool(store, "task_add", title=title).split()[0]
    return store.task_path(task_id)


def test_watcher_coalesces_a_burst_into_one_call(tmp_path: Path) -> None:
    """An atomic write is several fs events; a burst of writes gives one call, not one per event."""
    store = Store(tmp_path / "store")
    calls: list[set[str]] = []  # the task records on disk at each call
    call_made = threading.Condition()
    release = threading.Event()

    def on_change() -> None:
        with call_made:
            calls.append({p.name for p in store.tasks_dir.glob("*.md")})
            call_made.notify_all()
        if len(calls) == 1:
            # Held inside the first call, the watcher can only note the burst's events:
            # however slowly the writes go, they make one burst.
            assert release.wait(DEADLINE)

    def wait_calls(count: int) -> list[set[str]]:
        with call_made:
            assert call_made.wait_for(lambda: len(calls) >= count, timeout=DEADLINE), f"no call {count}"
            return list(calls)

    watcher = _SeenWatcher(store.root, on_change, settle=0.2, rescan_every=None)
    watcher.start()
    try:
        _added(store, "Primer")
        assert wait_calls(1) == [{"t1.md"}]
        for n in range(5):
            tool(store, "task_add", title=f"Task {n}")
        # The last write of the burst: once its event is noted, all the burst's are.
        last = _added(store, "Last of the burst")
        burst = watcher.wait_seen(last)
        assert len(burst) > 6  # many events: five atomic writes, a rename and the primer
        release.set()
        burst_on_disk = {p.name for p in store.tasks_dir.glob("*.md")}
        assert len(burst_on_disk) == 7
        assert wait_calls(2)[1] == burst_on_disk
        # A marker written after the burst's call must make exactly one more call: a
        # second call for the burst would come before it.
        marker = _added(store, "Marker")
        assert wait_calls(3)[2] == burst_on_disk | {marker.name}
        # Files that are not records (temp files, notes) wake nothing: written before a
        # marker, none of their events reaches the watcher before the marker's does.
        seen_before = len(watcher.wait_seen(marker))
        (store.tasks_dir / ".t1.md.abc.tmp").write_text("half", encoding="utf-8")
        (store.root / "notes.txt").write_text("x", encoding="utf-8")
        second = _added(store, "Second marker")
        assert watcher.wait_seen(second)[seen_before:] == [str(second)]
        assert len(wait_calls(4)) == 4 and calls[3] == burst_on_disk | {marker.name, second.name}
    finally:
        release.set()
        watcher.stop()
