"""Where the cursors are moved on the browse screen (a host app with a model of its own,
no scan): moves stop at the ends of the session list and of the checklist; `g` `G` go
to the top and the bottom, `ctrl+d` `ctrl+u` half a page; ordering is `O`. (The cursor
while the first scan feeds the list in pieces is tested on the app: test_app_cursor.py.)"""

from __future__ import annotations

import pytest
from app_transcripts import until
from browse_host import BrowseHost, entry

from planwatch.core.model import PlanItem
from planwatch.tui.widgets.checklist import ChecklistView
from planwatch.tui.widgets.session_list import SessionList

pytestmark = pytest.mark.asyncio


def host(isolated_env, count: int) -> tuple[BrowseHost, list[str]]:  # type: ignore[no-untyped-def]
    """`count` sessions, the newest activity last in the list of ids given back."""
    ids = [f"s{n}" for n in range(count)]
    entries = [
        entry(sid, f"Session {n}", (f"Step of session {n}",), 60 * (count - n), cwd=f"/home/dev/p{n}")
        for n, sid in enumerate(ids)
    ]
    return BrowseHost(isolated_env.store, entries), ids


async def ready(pilot, app: BrowseHost) -> SessionList:  # type: ignore[no-untyped-def]
    await until(pilot, lambda: app.browse.selected_id is not None, what="the newest session")
    return app.browse.session_list()


async def test_moves_stop_at_the_ends_of_the_session_list(isolated_env) -> None:
    app, sessions = host(isolated_env, 3)
    async with app.run_test(size=(120, 36)) as pilot:
        listed = await ready(pilot, app)
        assert listed.highlighted == 0
        await pilot.press("k", "up")  # at the top: no wrap to the last row
        assert listed.highlighted == 0
        assert app.screen.selected_id == sessions[-1]
        await pilot.press("j", "j", "j", "down", "j")
        assert listed.highlighted == 2  # at the bottom: no wrap to the first
        assert app.screen.selected_id == sessions[0]


async def test_the_checklists_moves_stop_at_its_ends_too(isolated_env) -> None:
    steps = (
        PlanItem(text="One", status="completed"),
        PlanItem(text="Two", status="in_progress"),
        PlanItem(text="Three"),
    )
    app = BrowseHost(isolated_env.store, [entry("api", "", steps, 60, cwd="/home/dev/api")])
    async with app.run_test(size=(120, 36)) as pilot:
        await ready(pilot, app)
        await pilot.press("tab")
        checklist = app.screen.query_one("#checklist", ChecklistView)
        assert app.focused is checklist
        first = checklist.highlighted
        await pilot.press("k", "k")
        assert checklist.highlighted == first
        await pilot.press("G")
        last = checklist.highlighted
        assert checklist.get_option_at_index(last or 0).prompt.plain.endswith("Three")
        assert last != first
        await pilot.press("j")
        assert checklist.highlighted == last
        await pilot.press("g")
        assert checklist.highlighted == first


async def test_g_and_G_go_to_the_top_and_the_bottom_and_ctrl_d_ctrl_u_move_half_a_page(isolated_env) -> None:
    app, sessions = host(isolated_env, 40)
    async with app.run_test(size=(120, 36)) as pilot:
        listed = await ready(pilot, app)
        await pilot.press("G")
        assert listed.highlighted == 39
        assert app.screen.selected_id == sessions[0]  # the oldest
        await pilot.press("g")
        assert listed.highlighted == 0
        assert app.screen.selected_id == sessions[-1]
        half = listed.scrollable_content_region.height // 2
        await pilot.press("ctrl+d")
        assert listed.highlighted == half
        await pilot.press("ctrl+d")
        assert listed.highlighted == 2 * half
        await pilot.press("ctrl+u")
        assert listed.highlighted == half
        await pilot.press("ctrl+u", "ctrl+u")
        assert listed.highlighted == 0  # stops at the top
        await pilot.press(*["ctrl+d"] * 5)
        assert listed.highlighted == 39  # and at the bottom
        assert app.screen.selected_id == sessions[0]


async def test_ordering_moved_to_O_and_g_no_longer_orders(isolated_env) -> None:
    app, _ = host(isolated_env, 3)
    async with app.run_test(size=(120, 36)) as pilot:
        listed = await ready(pilot, app)
        await pilot.press("g")
        assert listed.order == "recent"
        await pilot.press("O")
        assert listed.order == "folder"
        await pilot.press("O")
        assert listed.order == "harness"
