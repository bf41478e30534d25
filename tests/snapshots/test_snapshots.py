"""Snapshot tests of the app (pytest-textual-snapshot), grouped by feature.

Each runs the real app (`make_app`) on copies of the bundled fixtures with a frozen
clock and no follower or watcher threads. The copies live under one fixed folder so the
paths the app shows (details' file, "looked in") are the same on every machine, and
their modification times are pinned so ages read the same. Each docstring says what
must be visible. Regenerate with `pytest tests/snapshots/test_snapshots.py --snapshot-update`
after checking the difference by eye.
"""

from __future__ import annotations

import fcntl
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import FROZEN_NOW
from textual.pilot import Pilot

from planwatch.tui.app import PlanwatchApp
from screenshots import fixture_app, settle

# Fixed, not tmp_path: the details panel and the empty state show these paths.
SNAP_BASE = Path("/tmp/planwatch-snapshots")
SNAP_LOCK = Path("/tmp/planwatch-snapshots.lock")


@pytest.fixture(autouse=True)
def _one_suite_at_a_time_in_the_snapshot_folder() -> Iterator[None]:
    """Two suites on one host (two clean clones at once) share SNAP_BASE, and each test
    empties its folder first: a test holds an exclusive lock on a file beside the folder
    for as long as it builds and runs its app, so the suites take turns, never mix."""
    with SNAP_LOCK.open("a+b") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


WIDE = (120, 36)
MEDIUM = (80, 24)
PANE = (40, 30)


def build_app(name: str, **kw: Any) -> PlanwatchApp:
    """The app on fresh copies of the fixtures under SNAP_BASE/name (see fixture_app)."""
    return fixture_app(SNAP_BASE / name, now=FROZEN_NOW, **kw)


def then(*keys: str) -> Callable[[Pilot[None]], Awaitable[None]]:
    """run_before: wait for the scan, press `keys` one by one, letting workers finish."""

    async def run(pilot: Pilot[None]) -> None:
        await settle(pilot)
        for key in keys:
            await pilot.press(key)
            await settle(pilot)

    return run


# ---------------------------------------------------------------- browse


def test_browse_wide(snap_compare) -> None:  # type: ignore[no-untyped-def]
    """120×36: every fixture session newest first (acp, codex, claude…) with harness,
    title, folder, age (1h…), pill and open count; the first session's checklist at the
    right with its ACP plan and the "My items" section; the footer's keys."""
    assert snap_compare(build_app("browse-wide"), terminal_size=WIDE, run_before=then())


def test_browse_pane(snap_compare) -> None:  # type: ignore[no-untyped-def]
    """40×30 pane mode: one column following the newest session — its title, pill, and
    the checklist (agent plan, then My items) — no session list beside it."""
    assert snap_compare(build_app("browse-pane"), terminal_size=PANE, run_before=then())


def light(*keys: str) -> Callable[[Pilot[None]], Awaitable[None]]:
    """run_before in the textual-light theme."""

    async def run(pilot: Pilot[None]) -> None:
        pilot.app.theme = "textual-light"
        await then(*keys)(pilot)

    return run


def test_browse_medium(snap_compare) -> None:  # type: ignore[no-untyped-def]
    """80×24: the list keeps titles readable (harness as a coloured letter, folder as the
    tail that tells folders apart, or left out), the checklist beside it, and the footer
    keeps `? Help` and `q Quit`."""
    assert snap_compare(build_app("browse-medium"), terminal_size=MEDIUM, run_before=then())


def test_browse_wide_light(snap_compare) -> None:  # type: ignore[no-untyped-def]
    """120×36 in textual-light: the same list and checklist, every mark and pill readable
    on the light background (done green, doing amber, blocked red, all ≥ 4.5:1)."""
    assert snap_compare(build_app("browse-wide-light"), terminal_size=WIDE, run_before=light())


def test_browse_medium_light(snap_compare) -> None:  # type: ignore[no-untyped-def]
    """80×24 in textual-light, the cursor on the checklist's third row: the row under
    the cursor in the cursor's own colours."""
    app = build_app("browse-medium-light")
    assert snap_compare(app, terminal_size=MEDIUM, run_before=light("tab", "down", "down"))


def test_browse_pane_light(snap_compare) -> None:  # type: ignore[no-untyped-def]
    """40×30 pane mode in textual-light: the checklist focused, the footer with `? Help`."""
    assert snap_compare(build_app("browse-pane-light"), terminal_size=PANE, run_before=light())


def test_browse_grouped_by_folder(snap_compare) -> None:  # type: ignore[no-untyped-def]
    """120×36 after `O` then `j`: the sessions grouped by folder, a heading above each
    group (`api · 3 sessions`, `docs · 1 session`, …) flush left, the rows indented under
    it, no folder column (the headings name the folders); the cursor on the second session
    of `api` (j passed no heading)."""
    assert snap_compare(build_app("browse-grouped"), terminal_size=WIDE, run_before=then("O", "home", "j"))


def test_browse_grouped_by_folder_medium_light(snap_compare) -> None:  # type: ignore[no-untyped-def]
    """80×24 in textual-light after `O`: the folder headings readable on the light
    background, each with its count; the cursor on the first group's first session (no
    row was chosen yet, so the cursor is on the first row); the footer unchanged."""
    assert snap_compare(build_app("browse-grouped-light"), terminal_size=MEDIUM, run_before=light("O"))


def test_help_screen_narrow(snap_compare) -> None:  # type: ignore[no-untyped-def]
    """`?` at 40×30: no "Where" column; "Sessions" and "Everywhere" head their keys, so
    the descriptions keep the width."""
    assert snap_compare(build_app("help-narrow"), terminal_size=PANE, run_before=then("question_mark"))


# ---------------------------------------------------------------- checklist and details


def test_checklist_with_overrides(snap_compare) -> None:  # type: ignore[no-untyped-def]
    """The rate-limiting session's checklist after two ticks by the person: one agent
    step marked "unticked by you", one "[✓] … ticked by you"; the subagent's plan as its
    own group; My items with the store's tasks for this session."""
    app = build_app("checklist-overrides")
    keys = ("down",) * 4 + ("tab", "down", "space", "down", "down", "space")
    assert snap_compare(app, terminal_size=WIDE, run_before=then(*keys))


def test_details_panel(snap_compare) -> None:  # type: ignore[no-untyped-def]
    """The details panel of the rate-limiting session under its checklist: source
    (Claude Code todos), done 5 of 10, the steps in progress, overrides (none), harness,
    session id, folder /home/dev/api, branch feature/rate-limit, file path."""
    app = build_app("details")
    keys = ("down",) * 4 + ("tab", "enter")
    assert snap_compare(app, terminal_size=WIDE, run_before=then(*keys))


# ---------------------------------------------------------------- store view, settings, help


def test_store_view(snap_compare) -> None:  # type: ignore[no-untyped-def]
    """`t`: the store view — p1 "Ship checkout v2" with t1–t4 (statuses done, doing,
    review, todo; approved by lee; t4 "after t2 t3"), p2 with t5, then "Tasks without a
    plan" t6, t7; the cursor's record detail with its stamps; and the broken record
    "tasks/t8.md: status must be …" listed below as left out."""
    app = build_app("store-view", store="views/store")
    assert snap_compare(app, terminal_size=WIDE, run_before=then("t", "down", "down"))


def test_store_view_pane(snap_compare) -> None:  # type: ignore[no-untyped-def]
    """The store view at 40×30: the filter bar stacked one filter a line, the table
    scrolled to its first columns (id, status, priority, title)."""
    app = build_app("store-view-pane", store="views/store")
    assert snap_compare(app, terminal_size=PANE, run_before=then("t"))


def test_settings_screen(snap_compare) -> None:  # type: ignore[no-untyped-def]
    """`,`: the Settings screen — Privacy: "Read agents' plans into their checklists" on,
    "Keep agents' plans in the shared task list" off; Task store: require approval off,
    sweep after 30 days; Sessions: one extra folder, owner dana; Save and Cancel."""
    config = "# mine\nsweepAfterDays: 30\nowner: dana\ntranscriptRoots:\n  - /srv/old-transcripts\n"
    app = build_app("settings", config=config)
    assert snap_compare(app, terminal_size=WIDE, run_before=then("comma"))


def test_help_screen(snap_compare) -> None:  # type: ignore[no-untyped-def]
    """`?`: the help box over the dimmed browser, listing every key of tui.commands with
    where it works (sessions / everywhere), its key and what it does."""
    assert snap_compare(build_app("help"), terminal_size=WIDE, run_before=then("question_mark"))


def test_help_screen_over_store_view(snap_compare) -> None:  # type: ignore[no-untyped-def]
    """`?` in the store view: the store view's own keys (a add, e edit, v approve,
    r review, f filter, x clear, esc back) first, under "store view", then the app's."""
    app = build_app("help-store", store="views/store")
    assert snap_compare(app, terminal_size=WIDE, run_before=then("t", "question_mark"))


# ---------------------------------------------------------------- empty and error states


def test_empty_no_transcripts(snap_compare) -> None:  # type: ignore[no-untyped-def]
    """No transcripts: "No agent transcripts found.", the folder it looked in
    (/tmp/planwatch-snapshots/empty/no-transcripts), and how to point it elsewhere."""
    app = build_app("empty", transcripts=False, store=None)
    assert snap_compare(app, terminal_size=WIDE, run_before=then())


def test_empty_reading_off(snap_compare) -> None:  # type: ignore[no-untyped-def]
    """Reading turned off in the settings: the sessions are listed but no agent plan is
    read; the checklist says reading is off and how to turn it on (Settings)."""
    app = build_app("reading-off", config="readAgentPlans: false\n")
    assert snap_compare(app, terminal_size=WIDE, run_before=then())


def test_broken_store_record(snap_compare) -> None:  # type: ignore[no-untyped-def]
    """A broken record in the store: the browser's status line names tasks/t8.md and
    what is wrong with it, and points at the store view (t)."""
    app = build_app("broken-store", store="views/store")
    assert snap_compare(app, terminal_size=WIDE, run_before=then())


# ---------------------------------------------------------------- hostile text


def test_hostile_session_text_is_literal(snap_compare) -> None:  # type: ignore[no-untyped-def]
    """The hostile session selected: its title "[bold red]pwned[/] …" and its items
    ("Updating [b]deps[/b]", "\\x1b[31mred alert\\x1b[0m", a bidi override, a C1 CSI)
    appear as plain text — nothing bold, red, linked or moved."""
    app = build_app("hostile", hostile=True)
    # The hostile session is the oldest: `end` reaches it whatever else the fixtures hold.
    assert snap_compare(app, terminal_size=WIDE, run_before=then("end"))


def test_hostile_store_text_is_literal(snap_compare) -> None:  # type: ignore[no-untyped-def]
    """The store view on hostile records: the plan title "[bold red]Plan[/] with
    [link=…]a link[/link]", t1's escapes shown as \\x1b…, t2's "[bold]not bold[/bold]"
    and its "#[blink]x[/blink]" label, the creator "[reverse]mallory[/reverse]" in the
    detail line — all literal."""
    app = build_app("hostile-store", store="views/store-hostile")
    assert snap_compare(app, terminal_size=WIDE, run_before=then("t"))
