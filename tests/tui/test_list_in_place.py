"""A refresh that only adds or changes rows updates the session list in place (the rows
that are the same objects keep their options unchecked, the lines drawn above the first
change are kept): whatever the batches, the list ends as one given the same rows from
scratch shows them, option for option, line for line, click target for click target."""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from textual.app import App, ComposeResult

from planwatch.tui.widgets.session_list import RowOption, SessionList
from planwatch.tui.widgets.session_rows import SessionRow

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


class CountedList(SessionList):
    """A session list that counts the refreshes it made in place."""

    in_place = 0

    def _update_in_place(self, *args: Any, **kwargs: Any) -> bool:
        done = super()._update_in_place(*args, **kwargs)
        self.in_place += done
        return done


class TwoLists(App[None]):
    # The rows' width the same whether or not the scroll bar shows yet.
    CSS = "SessionList { height: 1fr; scrollbar-gutter: stable; }"

    def compose(self) -> ComposeResult:
        yield CountedList(id="kept")
        yield SessionList(id="fresh")


def newest_first(rows: list[SessionRow]) -> list[SessionRow]:
    return sorted(sorted(rows, key=lambda row: row.id), key=lambda row: row.updated, reverse=True)


def drawn(session_list: SessionList) -> list[tuple[str, object]]:
    """Each line on screen: its text and the option a click on it picks."""
    lines = []
    for y in range(session_list.scrollable_content_region.height):
        strip = session_list.render_line(y)
        metas = {segment.style.meta.get("option") for segment in strip if segment.style is not None}
        lines.append((strip.text, metas))
    return lines


def assert_same(kept: SessionList, fresh: SessionList) -> None:
    options, theirs = list(kept.options), list(fresh.options)
    assert [option.id for option in options] == [option.id for option in theirs]
    assert all(isinstance(option, RowOption) for option in options)
    assert [o.row_visual.content.plain for o in options] == [o.row_visual.content.plain for o in theirs]  # type: ignore[attr-defined]
    # OptionList's maps, read through its API.
    assert all(kept.get_option_index(option.id) == n for n, option in enumerate(options) if option.id)
    assert all(kept.get_option(option.id) is option for option in options if option.id)
    assert kept._options_by_id == {option.id: option for option in options}
    assert kept.shown_ids == fresh.shown_ids
    assert kept.virtual_size == fresh.virtual_size  # the same lines (and each drawn line's option: below)
    assert (kept.highlighted, kept.selected_id) == (fresh.highlighted, fresh.selected_id)
    assert drawn(kept) == drawn(fresh)


@pytest.mark.asyncio
@pytest.mark.parametrize("seed", range(4))
async def test_rows_added_and_changed_in_place_show_as_a_list_made_from_scratch(seed: int) -> None:
    rnd = random.Random(seed)
    app = TwoLists()
    async with app.run_test(size=(120, 30)) as pilot:
        kept = app.query_one("#kept", CountedList)
        fresh = app.query_one("#fresh", SessionList)
        rows: list[SessionRow] = []
        clock = NOW
        for n in range(25):
            # A batch of new sessions, anywhere in time (a first scan's order), and a few
            # listed ones changed: a step ticked, or active again (the row moves up);
            # now and then one goes.
            for k in range(rnd.randint(0, 30)):
                sid = f"s{n:02d}-{k:02d}"
                updated = NOW - timedelta(minutes=rnd.choice([rnd.randint(0, 50), rnd.randint(0, 9000)]))
                rows.append(
                    SessionRow(sid, rnd.choice(["claude", "codex"]), f"Part {sid}", "/home/dev/p", updated, 1, 4)
                )
            for _ in range(rnd.randint(0, 3)):
                if rows:
                    at = rnd.randrange(len(rows))
                    if rnd.random() < 0.5:
                        rows[at] = replace(rows[at], done=min(4, rows[at].done + 1))
                    else:
                        rows[at] = replace(rows[at], updated=clock - timedelta(seconds=rnd.randint(0, 30)))
            if rows and rnd.random() < 0.2:
                del rows[rnd.randrange(len(rows))]  # a session gone (laid out anew)
            clock += timedelta(seconds=rnd.choice([0, 1, 20]))
            shown = newest_first(rows)
            if n == 12:
                kept.highlight_id(shown[len(shown) // 2].id, chosen=True)
                fresh.highlight_id(shown[len(shown) // 2].id, chosen=True)
            kept.show_rows(shown, clock)
            await pilot.pause()
            fresh._options_by_id, fresh._visuals, fresh._layout_key = {}, {}, None
            fresh._shown = []
            fresh.show_rows(shown, clock)
            await pilot.pause()
            assert_same(kept, fresh)
        assert kept.in_place >= 5  # the batches went the in-place way, not only the rebuild
