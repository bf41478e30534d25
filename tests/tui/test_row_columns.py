"""What a session row's columns show a person: folder labels that still tell the listed
folders apart when cut, `~` for the home folder, and every column measured in cells
(CJK, emoji and combining marks never wrap a row or shift its columns)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from app_transcripts import until
from browse_host import BrowseHost, entry
from rich.cells import cell_len

from planwatch.core.model import AgentPlan, PlanGroup, PlanItem, Session
from planwatch.tui.cells import cut, cut_left, fit, fit_left
from planwatch.tui.widgets.session_rows import (
    RowLayout,
    SessionRow,
    fitted_labels,
    folder_labels,
    header_text,
    heading_text,
    row_text,
)

NOW = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
RESUME_FOLDERS = ["/home/dev/src/claude-resume", "/home/dev/src/opencode-resume", "/home/dev/src/api"]
WIDTHS = [40, 47, 60, 80, 100, 120]


def rows_in(folders: list[str], title: str = "Add YAML support to the settings loader") -> list[SessionRow]:
    return [
        SessionRow(f"s{i}", "claude", title, folder, NOW - timedelta(hours=i), 1, 4, None)
        for i, folder in enumerate(folders)
    ]


def folder_cells(row: SessionRow, layout: RowLayout) -> str:
    return layout.folder_label[row.folder] if layout.folder else ""


# -- folder labels ------------------------------------------------------------------------


@pytest.mark.parametrize("width", WIDTHS)
def test_cut_folder_labels_still_tell_the_folders_apart(width) -> None:
    """`claude-resume` and `opencode-resume` share their end: cut from the left both read
    `…de-resume`; the labels shown are cut where they still differ."""
    rows = rows_in(RESUME_FOLDERS)
    layout = RowLayout.for_rows(rows, width)
    assert layout.folder
    shown = [folder_cells(row, layout) for row in rows]
    assert len(set(shown)) == len(shown), shown
    assert all(cell_len(label) <= layout.folder for label in shown)
    texts = [row_text(row, NOW, layout).plain for row in rows]
    assert all(f" {label}" in text for label, text in zip(shown, texts, strict=True))


def test_a_label_that_fits_is_whole_and_one_cut_keeps_the_end_unless_that_collides() -> None:
    labels = folder_labels(RESUME_FOLDERS + ["/srv/web-frontend"])
    shown = fitted_labels(labels, 10)
    assert shown["/home/dev/src/api"] == "api"
    assert shown["/srv/web-frontend"] == "…-frontend"  # the end of a path says most
    assert {shown[RESUME_FOLDERS[0]], shown[RESUME_FOLDERS[1]]} == {"claude-re…", "opencode-…"}
    # Two labels that share both their start and their end are cut at both ends.
    both = fitted_labels({"/a": "service-alpha-client", "/b": "service-beta-client"}, 12)
    assert len(set(both.values())) == 2 and all(cell_len(v) <= 12 for v in both.values()), both


def test_the_home_folder_reads_tilde() -> None:
    home = "/home/dev"
    at_home = Session(id="s1", harness="claude", title="t", cwd=home, updated=NOW, path=Path("/x.jsonl"))
    under = Session(id="s2", harness="claude", title="t", cwd="/home/dev/api", updated=NOW, path=Path("/y.jsonl"))
    beside = Session(id="s3", harness="claude", title="t", cwd="/home/dev2/api", updated=NOW, path=Path("/z.jsonl"))
    rows = [SessionRow.of(s, 0, 0, False, None, home) for s in (at_home, under, beside)]
    assert [r.folder for r in rows] == ["~", "~/api", "/home/dev2/api"]
    layout = RowLayout.for_rows(rows, 120)
    assert [layout.folder_label[r.folder] for r in rows] == ["~", "~/api", "dev2/api"]


@pytest.mark.asyncio
async def test_the_list_shows_colliding_folders_apart_at_80_columns(isolated_env) -> None:
    """Sessions in `…/claude-resume` and `…/opencode-resume`, on the browse screen: the
    80-column list shows two different folder labels."""
    app = BrowseHost(
        isolated_env.store,
        [
            entry(f"s{n}", f"Resume work {n}", (), 60 * (n + 1), cwd=folder)
            for n, folder in enumerate(RESUME_FOLDERS[:2])
        ],
    )
    async with app.run_test(size=(80, 24)) as pilot:
        listed = app.browse.session_list()
        await until(pilot, lambda: len(listed.rows) == 2, what="the rows")
        await pilot.pause()
        texts = [listed.get_option_at_index(i).prompt.plain for i in range(listed.option_count)]
        labels = [listed.row_layout.folder_label[row.folder] for row in listed.rows]
        shown = [t for t in texts if "Resume work" in t]
        assert len(shown) == 2
        assert not any("…de-resume" in t for t in shown), shown
        assert any("claude" in t.split("Resume work")[1] for t in shown) and any(
            "opencode" in t.split("Resume work")[1] for t in shown
        ), (shown, labels)


# -- cells, never characters -------------------------------------------------------------

WIDE_TITLES = [
    ("CJK", "漢字のタイトルを設定ファイルに追加する" * 4),
    ("emoji", "Ship it 🚀🚀 with tests ✅ and docs 📚 " * 3),
    ("family emoji", "Plan for the 👨‍👩‍👧 team offsite " * 3),
    ("combining", "Cafe\u0301 re\u0301sume\u0301 nai\u0308ve " * 5),
    ("mixed", "Fix 漢字 🚀 e\u0301 bug " * 5),
]


@pytest.mark.parametrize("width", [24, 34, 40, 60, 80, 100, 120])
@pytest.mark.parametrize(("kind", "title"), WIDE_TITLES)
def test_a_wide_title_takes_exactly_its_cells_and_keeps_the_columns(kind, title, width) -> None:
    rows = [
        SessionRow("s1", "claude", title, "/home/dev/プロジェクト", NOW, 1, 4, 2),
        SessionRow("s2", "codex", "Plain title", "/home/dev/api", NOW, 2, 4, 1),
    ]
    layout = RowLayout.for_rows(rows, width)
    wide, plain = (row_text(row, NOW, layout) for row in rows)
    assert wide.cell_length == plain.cell_length == header_text(layout).cell_length <= width
    assert "\n" not in wide.plain
    # The age and the pill start at the same cell in both rows: the columns hold.
    assert cell_len(wide.plain.split(" 0s ")[0]) == cell_len(plain.plain.split(" 0s ")[0])
    assert "…" in wide.plain  # cut, with an ellipsis


@pytest.mark.parametrize(("kind", "title"), WIDE_TITLES)
def test_a_cut_never_splits_a_character_from_its_marks(kind, title) -> None:
    for cells in range(1, 30):
        start, end = cut(title, cells), cut_left(title, cells)
        assert cell_len(start) <= cells and cell_len(end) <= cells
        assert cell_len(fit(title, cells)) == cells == cell_len(fit_left(title, cells))
        body = start.removesuffix("…")
        assert title.startswith(body)
        rest = title[len(body) :]
        assert not rest or rest[0] not in "\u0301\u0308\u200d", (cells, start)


def test_a_group_heading_is_cut_in_cells() -> None:
    text = heading_text("/home/dev/プロジェクト/サービス", 3, 20)
    assert text.cell_length <= 20 and text.plain.endswith(" · 3 sessions")


@pytest.mark.asyncio
async def test_a_wide_title_stays_on_one_line_in_the_list(isolated_env) -> None:
    """A CJK title and an emoji title in the browse screen's list at 80 columns: each row
    one line, the rows as wide as a plain row."""
    titles = [
        "漢字のタイトルを設定ファイルに追加する" * 2,
        "Ship it 🚀🚀 with tests ✅ and docs 📚 " * 3,
        "Plain ASCII title",
    ]
    app = BrowseHost(
        isolated_env.store,
        [entry(f"s{n}", title, (), 60 * (n + 1), cwd="/home/dev/api") for n, title in enumerate(titles)],
    )
    async with app.run_test(size=(80, 24)) as pilot:
        listed = app.browse.session_list()
        await until(pilot, lambda: len(listed.rows) == 3, what="the rows")
        await pilot.pause()
        prompts = [listed.get_option_at_index(i).prompt for i in range(listed.option_count)]
        assert len({p.cell_length for p in prompts}) == 1
        # What is drawn: each option one line high in the list's own rendering.
        assert listed.virtual_size.height == listed.option_count


# -- the title's room, forks, sessions without a prompt ------------------------------------


def listed_texts(app) -> list[str]:
    listed = app.screen.query_one("#sessions")
    return [listed.get_option_at_index(i).prompt.plain for i in range(listed.option_count)]


@pytest.mark.asyncio
@pytest.mark.parametrize(("size", "least"), [((80, 24), 25), ((70, 24), 20), ((120, 36), 38)])
async def test_the_title_gets_the_room_beside_the_checklist(isolated_env, size, least) -> None:
    """At 80 columns a title had 19 cells beside a 32-cell checklist: the checklist
    narrows below 100 columns and the folder takes at most a quarter of a narrow row."""
    folders = ["/home/dev/mobile", "/home/dev/api", "/home/dev/infra"]
    app = BrowseHost(
        isolated_env.store,
        [
            entry(f"s{n}", f"Add YAML support to the settings loader, part {n}", (), 60 * (n + 1), cwd=folder)
            for n, folder in enumerate(folders)
        ],
    )
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: len(app.browse.session_list().rows) == 3, what="the rows")
        await pilot.pause()
        layout = app.screen.query_one("#sessions").row_layout
        assert layout.title >= least, layout
        assert app.screen.query_one("#checklist-pane").outer_size.width >= 26  # still a checklist beside it
        shown = "Add YAML support to the settings loader"[: layout.title - 1]
        assert all(f"{shown}…" in text for text in listed_texts(app) if "YAML" in text)


@pytest.mark.asyncio
async def test_a_fork_is_marked_and_reads_apart_from_its_original(isolated_env) -> None:
    # A fork: a session of its own whose lineage names the original (what a reader makes
    # of a new file whose copied records keep the original's sessionId).
    original = entry("0a0a0a0a-0000-4000-8000-000000000001", "Split the router", ("Split",), 120, cwd="/home/dev/api")
    fork = replace(
        original,
        session=replace(original.session, id="9f9f9f9f-0000-4000-8000-000000000001", parent_id=original.session.id),
    )
    app = BrowseHost(isolated_env.store, [original, fork])
    async with app.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: len(app.screen.query_one("#sessions").rows) == 2, what="the rows")
        await pilot.pause()
        texts = [t for t in listed_texts(app) if "Split the router" in t]
        assert len(texts) == 2
        assert sum("⑂ Split the router" in t for t in texts) == 1
        assert texts[0] != texts[1]


@pytest.mark.asyncio
async def test_a_session_with_no_prompt_says_what_it_is_instead_of_an_id(isolated_env) -> None:
    steps = (
        PlanItem(text="Read", status="completed"),
        PlanItem(text="Write", status="in_progress"),
        PlanItem(text="Ship", status="pending"),
    )
    untitled = entry("5e55e55e-0000-4000-8000-000000000001", "", steps, cwd="/home/dev/api")
    app = BrowseHost(isolated_env.store, [untitled])
    async with app.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: app.browse.selected_id is not None, what="the session")
        await pilot.pause()
        [text] = [t for t in listed_texts(app) if t.strip()]
        assert "(no prompt) · Claude Code · 3 steps" in text
        assert untitled.session.id not in text and "Session " not in text
        await pilot.press("tab", "enter")
        await pilot.pause()
        assert str(app.screen.query_one("#details-body").render()).startswith("(no prompt) · Claude Code · 3 steps")


def test_untitled_words_count_the_steps() -> None:
    from planwatch.tui.widgets.session_rows import untitled

    assert untitled("codex", 3) == "(no prompt) · Codex · 3 steps"
    assert untitled("acp", 1) == "(no prompt) · ACP agent · 1 step"
    assert untitled("opencode", 0) == "(no prompt) · OpenCode · no plan"


@pytest.mark.asyncio
async def test_a_finished_plan_the_agent_then_cleared_reads_finished(isolated_env) -> None:
    # What the replay makes of four steps all completed and then an empty list: the
    # finished list, marked cleared.
    done = tuple(PlanItem(text=text, status="completed") for text in ("Lex", "Parse", "Test", "Ship"))
    finished = replace(
        entry("c1ea4ed0-0000-4000-8000-000000000001", "Ship the parser", (), cwd="/home/dev/api"),
        plan=AgentPlan(groups=(PlanGroup(source="claude_todos", items=done, cleared=True),)),
    )
    app = BrowseHost(isolated_env.store, [finished])
    async with app.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: app.browse.selected_id is not None, what="the session")
        await pilot.pause()
        [row] = [t for t in listed_texts(app) if "Ship the parser" in t]
        assert "● 4/4" in row and "○ –" not in row
        checklist = app.screen.query_one("#checklist")
        shown = [checklist.get_option_at_index(i).prompt.plain for i in range(checklist.option_count)]
        assert "finished 4/4 · the agent then cleared its list" in shown
        assert "[x] Ship" in shown
