"""The store view of a shared store marks a contested record and shows the value the
merge did not keep (docs/sync.md, Operations and the merge): two real hosts write the
same field concurrently through a real bare remote; the real app shows host a's store."""

from __future__ import annotations

import pytest
from app_transcripts import until

from tests.sync_hosts import Host, bare_remote, host_app, open_store_view

pytestmark = pytest.mark.asyncio


async def test_a_contested_task_is_marked_and_its_losing_value_shown_and_an_unverified_approval_too(
    isolated_env,
) -> None:
    root = isolated_env.root
    remote = bare_remote(root / "remote.git")
    a, b = Host(root / "a", "a"), Host(root / "b", "b")
    a.ok("task", "add", "Shared task")
    a.ok("task", "add", "Untouched")
    a.ok("sync", "init", str(remote), "--host", "a")
    b.ok("sync", "join", str(remote), "--host", "b")
    a.ok("task", "set", "t1", "--note", "from a")  # the same field, neither seeing the other
    b.ok("task", "set", "t1", "--note", "from b")
    b.ok("task", "approve", "t2")  # b holds no signing key: unverified on every host
    for host in (a, b, a):
        host.ok("sync")
    kept = "from a" if "note: from a" in a.task_text("t1") else "from b"
    lost = "from b" if kept == "from a" else "from a"
    assert a.files() == b.files()
    app = host_app(a, isolated_env.state, follow=False)
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await open_store_view(pilot, app)
        table = screen.query_one("StoreTable")
        await until(pilot, lambda: "t1" in table.rows, what="t1's row")
        row = " ".join(cell.plain for cell in table.get_row("t1"))
        assert "⚠ contested: note" in row
        assert "⚠ unverified approval" in " ".join(cell.plain for cell in table.get_row("t2"))
        assert "contested" not in " ".join(cell.plain for cell in table.get_row("t2"))
        table.move_cursor(row=table.get_row_index("t1"))
        await until(pilot, lambda: screen.current_key() == "t1", what="the cursor on t1")

        def detail() -> str:
            return str(screen.query_one("#store-detail").render())

        await until(pilot, lambda: detail().startswith("t1 "), what="t1's detail")
        assert f"⚠ contested note: kept {kept}; not kept: {lost}" in detail()
        table.move_cursor(row=table.get_row_index("t2"))
        await until(pilot, lambda: detail().startswith("t2 "), what="t2's detail")
        assert "⚠ unverified approval: ana at " in detail() and "made on host b; not counted" in detail()
        assert "approved" not in a.task_text("t2")  # shown, never counted


async def test_a_move_to_doing_held_back_by_the_team_is_shown_and_approval_said_required(isolated_env) -> None:
    import json

    from tests.core.test_sync_approvals import ssh_key, two_hosts

    root = isolated_env.root
    remote = bare_remote(root / "remote.git")
    key, public = ssh_key(root, "ana")
    policy = root / "policy.json"
    policy.write_text(
        json.dumps({"users": {"ana": {"roles": ["owner"], "keys": [public]}}, "settings": {"requireApproval": True}})
    )
    a, b = two_hosts(root, remote, policy, key)  # neither host's own settings require approval
    a.ok("task", "add", "Risky change")
    a.ok("sync")
    b.ok("sync")
    path = b.store / "tasks" / "t1.md"
    path.write_text(path.read_text().replace("status: todo", "status: doing"))  # by hand, unapproved
    b.ok("sync")
    a.ok("sync")
    app = host_app(a, isolated_env.state, follow=False)
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await open_store_view(pilot, app)
        table = screen.query_one("StoreTable")
        await until(pilot, lambda: "t1" in table.rows, what="t1's row")
        row = " ".join(cell.plain for cell in table.get_row("t1"))
        assert "⚠ contested: status" in row and "todo" in row
        summary = screen.query_one("#store-summary")
        await until(pilot, lambda: "approval required to start" in str(summary.render()), what="the summary")

        def detail() -> str:
            return str(screen.query_one("#store-detail").render())

        table.move_cursor(row=table.get_row_index("t1"))
        await until(pilot, lambda: detail().startswith("t1 "), what="t1's detail")
        assert "⚠ contested status: kept todo; not kept: doing, moved on host b with no verified approval" in detail()
