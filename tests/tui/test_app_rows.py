"""Session rows (docs/app.md): harness, title, folder, age, pill, open count on one line;
a session whose transcript changed in the last minutes is marked running."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from planwatch.tui.widgets.pill import pie, pill_text
from planwatch.tui.widgets.session_rows import RowLayout, SessionRow, age, folder_labels, header_text, row_text


@pytest.mark.parametrize(
    ("minutes_ago", "running", "shown_age"),
    [(0.5, True, "30s"), (2.5, True, "2m"), (10, False, "10m"), (180, False, "3h"), (60 * 24 * 3, False, "3d")],
)
def test_a_session_whose_file_changed_in_the_last_minutes_is_marked_running(minutes_ago, running, shown_age) -> None:
    now = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
    row = SessionRow("s1", "codex", "Title", "/home/dev/x", now - timedelta(minutes=minutes_ago), 1, 4, 2)
    text = row_text(row, now, RowLayout.for_rows([row], 100)).plain
    assert text.startswith("● ") is running
    assert f" {shown_age} " in text and "◔ 1/4" in text and "2 open" in text
    assert len(text) <= 100


@pytest.mark.parametrize("width", [34, 38, 45, 46, 66, 90, 140])
def test_a_row_fits_its_width_on_one_line(width) -> None:
    now = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
    row = SessionRow("s1", "claude", "A very long title " * 10, "/home/dev/" + "deep/" * 20, now, 10, 100, 12)
    layout = RowLayout.for_rows([row], width)
    assert len(row_text(row, now, layout).plain) <= width
    assert len(header_text(layout).plain) == len(row_text(row, now, layout).plain)


@pytest.mark.parametrize(
    ("done", "total", "expected"),
    [
        (0, 0, "○ –"),
        (0, 4, "○ 0/4"),
        (1, 4, "◔ 1/4"),
        (2, 4, "◑ 2/4"),
        (3, 4, "◕ 3/4"),
        (4, 4, "● 4/4"),
        (1, 100, "◔ 1/100"),
        (99, 100, "◕ 99/100"),
    ],
)
def test_the_pill_shows_done_over_total_with_a_pie(done, total, expected) -> None:
    assert pill_text(done, total).plain == expected


def test_the_pie_never_claims_empty_for_started_or_full_for_unfinished() -> None:
    assert pie(1, 1000) == "◔"
    assert pie(999, 1000) == "◕"


def test_age_is_at_most_four_characters() -> None:
    now = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
    for seconds in (0, 59, 3599, 86399, 604799, 10**8):
        assert len(age(now - timedelta(seconds=seconds), now)) <= 4
    # A record stamped in year 1 (hostile or broken) must not break the column.
    assert age(datetime(1, 1, 1, tzinfo=UTC), now) == "99y+"
    assert age(now - timedelta(days=400), now) == "1y"
    assert age(now - timedelta(days=364), now) == "52w"


def test_folders_show_the_tail_that_tells_them_apart() -> None:
    labels = folder_labels(["/home/dev/api", "/srv/web", "/a/x/api", "/home/dev/claude-todowrite"])
    assert labels == {
        "/home/dev/api": "dev/api",
        "/a/x/api": "x/api",
        "/srv/web": "web",
        "/home/dev/claude-todowrite": "claude-todowrite",
    }
    assert folder_labels(["/same", "/same"]) == {"/same": "same"}


@pytest.mark.parametrize(("width", "least"), [(70, 0.5), (47, 0.4), (100, 0.45), (38, 0.4)])
def test_the_title_gets_most_of_the_row(width, least) -> None:
    """Eleven sessions in two folders whose names share a long head;
    the title keeps most of the row and the folder column only what tells them apart."""
    now = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
    rows = [
        SessionRow(f"s{i}", "claude", "Add YAML support to the settings loader", f"/home/dev/src/{name}", now, 1, 4, 2)
        for i, name in enumerate(["claude-todowrite", "claude-tasks"] * 5 + ["api"])
    ]
    layout = RowLayout.for_rows(rows, width)
    assert layout.title >= least * width
    text = row_text(rows[0], now, layout).plain
    assert len(text) <= width
    if width >= 70:
        assert "todowrite " in text and "/src" not in text  # the tail that tells folders apart
    if width < 100:
        assert " C Add YAML" in text  # the harness as one coloured letter


def test_a_wide_list_names_the_harness() -> None:
    now = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
    rows = [
        SessionRow("s1", "codex", "Title", "/home/dev/x", now, 1, 4, 2),
        SessionRow("s2", "opencode", "Other", "/home/dev/x", now, 1, 4, 2),
    ]
    layout = RowLayout.for_rows(rows, 120)
    assert "● Codex    Title" in row_text(rows[0], now, layout).plain
    # Each name whole, as a person names it (never `openc…`).
    assert "● OpenCode Other" in row_text(rows[1], now, layout).plain


ODD_ROWS = [
    ("s1", "claude", "Plain ASCII title", "/home/dev/api", 3, 7, 2, False),
    ("s2", "codex", "", "", 0, 0, None, False),  # no title: "Session <id>"
    ("s3", "gemini", "Tabs\tand\nnewlines\x1b[31m", "/srv/x\ty", 12, 120, 140, True),  # escapes
    ("s4", "claude", "漢字のタイトル" * 4, "/home/dev/api", 1, 2, None, False),  # two cells a character
    ("s5", "opencode", "Title", "/home/dev/プロジェクト", 1, 2, 1, True),  # a wide folder
    ("s6", "acp", "e\u0301 combining", "/a/b", 1, 1, None, False),  # a character of no cell
]


@pytest.mark.parametrize("width", [6, 12, 24, 34, 40, 59, 60, 99, 100, 140])
def test_a_rows_cells_known_without_its_text_are_its_texts_and_so_is_its_height(width) -> None:
    """What lets the list skip making a row's text until it is drawn: the cells
    `row_cells` knows are the text's, and an option not yet drawn is as high as its text."""
    from textual.content import Content

    from planwatch.tui.widgets.session_list import RowOption, _RowVisual
    from planwatch.tui.widgets.session_rows import row_cells, row_face

    now = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
    rows = [SessionRow(i, h, t, f, now - timedelta(minutes=7), d, n, o, p) for i, h, t, f, d, n, o, p in ODD_ROWS]
    layout = RowLayout.for_rows(rows, width)
    rules = {"text_wrap": "wrap", "text_overflow": "fold", "line_pad": 0}
    for row in rows:
        text = row_text(row, now, layout)
        cells = row_cells(row, layout)
        assert cells is None or cells == text.cell_length, row
        if row.title.isascii() and row.folder.isascii():
            assert cells is not None  # the usual row is measured without its text
        for at in (width, width - 3, width + 20):
            option = RowOption(_RowVisual(row, now, layout, row_face(row, now)))
            height = option.row_visual.get_height(rules, at)  # asked before the text is made
            assert height == Content(text.plain).get_height(rules, at), (row, at)
            assert option.prompt == text  # made as row_text makes it
