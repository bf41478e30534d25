"""What keeps keys prompt while a long list fills, on the browse screen over a model of
its own (a host app, no scan): a refresh of the session list does per row only what is
cheap (no age made, no option made, no height measured for a row that did not change)
and the rows' text waits until drawn. (The first scan's objects kept from the cyclic
collector are the app's: test_list_refresh_work.py.)"""

from __future__ import annotations

import pytest
from app_transcripts import until
from browse_host import BrowseHost, entry

from planwatch.core.model import PlanItem
from planwatch.core.sessions import SessionEntry
from planwatch.tui.widgets.session_list import SessionList

SESSIONS = 120


def session(
    session_id: str, title: str, minutes: int, folder: str, steps: tuple[str, str] = ("Read", "Write")
) -> SessionEntry:
    """A session with one step done and one to do (a pill of 1/2, as every row has)."""
    done, todo = steps
    return entry(session_id, title, (PlanItem(text=done, status="completed"), PlanItem(text=todo)), minutes, cwd=folder)


@pytest.mark.asyncio
async def test_a_refresh_makes_anew_only_the_rows_that_changed_and_draws_only_what_shows(isolated_env) -> None:  # type: ignore[no-untyped-def]
    """A new session lands at the top of a long list (every row moves down one): the
    other rows keep their options and visuals, the rows off screen have had no age and
    no text made, and the list's line map is the one Textual's own measuring gives."""
    app = BrowseHost(
        isolated_env.store, [session(f"s{n}", f"Session {n}", 5 + n, f"/home/dev/p{n % 7}") for n in range(SESSIONS)]
    )
    async with app.run_test(size=(120, 30)) as pilot:
        session_list = app.browse.query_one("#sessions", SessionList)
        await until(pilot, lambda: session_list.option_count == SESSIONS, what="the list")
        await pilot.pause()
        before = {option.id: option for option in session_list.options}
        visuals = {key: option.row_visual for key, option in before.items()}
        # Rows well below the screen that no frame drew.
        undrawn = [option.id for option in session_list.options[40:] if option.row_visual._content is None]
        assert len(undrawn) >= 20, len(undrawn)

        # In a folder listed already, with a pill like the others: the columns hold.
        app.model.put(session("new", "A new session", 1, "/home/dev/p0", ("One", "Two")))
        await until(pilot, lambda: session_list.option_count == SESSIONS + 1, what="the new row")
        await pilot.pause()

        options = list(session_list.options)
        assert session_list.selected_id == options[0].id  # the cursor on the newest, still
        assert "A new session" in options[0].row_visual.content.plain
        made_anew = [option.id for option in options[1:] if option is not before[option.id]]
        assert made_anew == []  # the moved rows keep their options
        assert all(option.row_visual is visuals[option.id] for option in options[1:])
        # Rows below the screen that no frame drew: the refresh made no age and no text.
        below = [option for option in options if option.id in set(undrawn)]
        assert len(below) == len(undrawn)
        assert all(option.row_visual._face is None for option in below)
        assert all(option.row_visual._content is None for option in below)
        # The line map made at once for one-line rows is the one OptionList measures:
        # one line per option, option n on line n (what a click on a line picks).
        assert session_list.virtual_size.height == SESSIONS + 1
        for y in range(session_list.scrollable_content_region.height):
            strip = session_list.render_line(y)
            picks = {segment.style.meta.get("option") for segment in strip if segment.style is not None}
            assert picks - {None} == {session_list.scroll_offset.y + y}
        # OptionList's own maps, as its set_options leaves them, read through its API.
        assert all(session_list.get_option_index(option.id) == n for n, option in enumerate(options) if option.id)
        assert all(session_list.get_option(option.id) is option for option in options if option.id)
