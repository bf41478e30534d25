"""When the session list's columns change while rows arrive (a first scan meets a wider
pill or a longer folder: every row laid out again), each session keeps its option, given
a visual in the new columns, and no row is checked against columns it cannot hold in:
the list ends as one given the same rows from scratch shows them, option for option,
line for line, click target for click target."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest
from test_list_in_place import TwoLists, drawn, newest_first

from planwatch.tui.widgets.session_list import RowOption, SessionList
from planwatch.tui.widgets.session_rows import SessionRow

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def texts(session_list: SessionList) -> list[str]:
    return [option.row_visual.content.plain for option in session_list.options]  # type: ignore[attr-defined]


@pytest.mark.asyncio
@pytest.mark.parametrize("seed", range(3))
async def test_rows_laid_out_in_new_columns_show_as_a_list_made_from_scratch(seed: int) -> None:
    rnd = random.Random(seed)
    app = TwoLists()
    async with app.run_test(size=(120, 30)) as pilot:
        kept = app.query_one("#kept", SessionList)
        fresh = app.query_one("#fresh", SessionList)
        rows: list[SessionRow] = []
        folders = ["/home/dev/p"]
        widths_seen = set()
        for n in range(20):
            # Now and then a longer folder or a bigger plan arrives: new columns for all.
            if rnd.random() < 0.4:
                folders.append("/home/dev/" + "q" * rnd.randint(1, n + 1) + str(n))
            for k in range(rnd.randint(1, 25)):
                sid = f"s{n:02d}-{k:02d}"
                total = rnd.choice([4, 4 * (1 + n // 3) ** 2])
                updated = NOW - timedelta(minutes=rnd.randint(0, 9000))
                folder = rnd.choice(folders)
                rows.append(SessionRow(sid, rnd.choice(["claude", "codex"]), f"Part {sid}", folder, updated, 1, total))
            if n == 10:
                shown = newest_first(rows)
                kept.highlight_id(shown[len(shown) // 2].id, chosen=True)
                fresh.highlight_id(shown[len(shown) // 2].id, chosen=True)
            shown = newest_first(rows)
            kept.show_rows(shown, NOW)
            await pilot.pause()
            fresh._options_by_id, fresh._visuals, fresh._layout_key = {}, {}, None
            fresh._shown = []
            fresh.show_rows(shown, NOW)
            await pilot.pause()
            widths_seen.add((kept.row_layout.pill, kept.row_layout.folder))
            assert [option.id for option in kept.options] == [option.id for option in fresh.options]
            assert all(isinstance(option, RowOption) for option in kept.options)
            assert texts(kept) == texts(fresh)
            assert all(kept.get_option_index(option.id) == i for i, option in enumerate(kept.options) if option.id)
            assert kept._options_by_id == {option.id: option for option in kept.options}
            assert kept.virtual_size == fresh.virtual_size
            assert (kept.highlighted, kept.selected_id) == (fresh.highlighted, fresh.selected_id)
            assert drawn(kept) == drawn(fresh)
        assert len(widths_seen) >= 3  # the columns did change as the rows came


@pytest.mark.asyncio
async def test_new_columns_keep_each_sessions_option_and_give_it_a_visual_in_them() -> None:
    """Every row is laid out again in new columns, but no option is made anew for it: a
    first scan's ten thousand rows meet a few new layouts while the person presses keys."""
    app = TwoLists()
    async with app.run_test(size=(120, 30)) as pilot:
        kept = app.query_one("#kept", SessionList)
        rows = [
            SessionRow(f"s{n:03d}", "claude", f"Part {n}", "/home/dev/p", NOW - timedelta(minutes=n), 1, 4)
            for n in range(200)
        ]
        kept.show_rows(rows, NOW)
        await pilot.pause()
        before = {option.id: option for option in kept.options}
        layout = kept.row_layout
        wider = SessionRow("z", "codex", "Wide", "/home/dev/a-much-longer-folder", NOW - timedelta(days=9), 100, 120)
        kept.show_rows([*rows, wider], NOW)
        await pilot.pause()
        assert (kept.row_layout.pill, kept.row_layout.folder) != (layout.pill, layout.folder)
        for option in kept.options:
            assert isinstance(option, RowOption)
            assert option.row_visual.layout is kept.row_layout
            if option.id != "z":
                assert option is before[option.id]
        assert "100/120" in texts(kept)[-1]
        assert "1/4 " + " " * (kept.row_layout.pill - 5) in texts(kept)[0]  # the old rows in the wider pill
