"""A session list's rows as text: what one row shows (harness, title, folder, age, pill,
open count), the column widths for a width of the list, the column names, and a group's
heading. Pure: rows and a width in, `Content` out (literal text, theme colours, never
markup). The title gets most of the row: the folder shows only the tail that tells
folders apart (cut where the cut labels still differ), and a narrow list shows the
harness as a coloured letter. Every column is measured in cells (tui.cells): a CJK or
emoji title is cut to its column like any other.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Literal

from textual.content import Content

from planwatch.core.model import Session, harness_label
from planwatch.core.text import safe_text
from planwatch.tui import colours
from planwatch.tui.cells import cut, cut_left, fit, fit_left, head, tail, width_of
from planwatch.tui.widgets.pill import pill_text

Order = Literal["recent", "folder", "harness"]
ORDERS: tuple[Order, ...] = ("recent", "folder", "harness")

# A session whose transcript changed this recently has a running agent.
RUNNING_WINDOW = timedelta(minutes=3)


@dataclass(frozen=True)
class SessionRow:
    """What one row shows; built by the screen from the index, the store and overrides."""

    id: str
    harness: str
    title: str
    folder: str
    updated: datetime
    done: int
    total: int
    open_count: int | None = None
    # The plan was rebuilt from an incomplete recovery (docs/reading.md): a mark beside the pill.
    partial: bool = False
    # A fork of another session (docs/reading.md, Sessions): marked, or it reads as its original.
    fork: bool = False

    @classmethod
    def of(
        cls, session: Session, done: int, total: int, partial: bool, open_count: int | None, home: str | None = None
    ) -> SessionRow:
        """A session's row: its pill's counts and open tasks given, the folder under ~
        (`home`: the home folder, looked up once by a caller making a row per session)."""
        folder = short_folder(session.cwd or "", str(Path.home()) if home is None else home)
        fork = session.parent_id is not None
        return cls(
            session.id, session.harness, session.title, folder, session.updated, done, total, open_count, partial, fork
        )

    def matches(self, needle: str) -> bool:
        needle = needle.casefold()
        parts = (self.title, self.folder, self.harness, harness_label(self.harness), self.id)
        return any(needle in part.casefold() for part in parts)


def untitled(harness: str, total: int | None = None) -> str:
    """What a session with no prompt to title it is, in words (its id means nothing to a
    person): `(no prompt) · Codex · 3 steps`."""
    words = f"(no prompt) · {harness_label(harness)}"
    if total is not None:
        words += " · no plan" if total == 0 else f" · {total} step{'' if total == 1 else 's'}"
    return words


def title_of(row: SessionRow) -> str:
    """A row's title as it reads: the session's, or what an untitled session is."""
    return row.title or untitled(row.harness, row.total)


# Before a fork's title: a fork reads the same as its original otherwise.
FORK_MARK = "⑂ "


def age(updated: datetime, now: datetime) -> str:
    """How long ago, in at most four characters: 45s, 12m, 3h, 5d, 7w, 2y (a record
    stamped in year 1 reads 99y+, not a number that breaks the column)."""
    seconds = max(0, int((now - updated).total_seconds()))
    years = seconds // (365 * 86400)
    if years >= 100:
        return "99y+"
    if years >= 1:
        return f"{years}y"
    for unit, size in (("w", 604800), ("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def short_folder(folder: str, home: str | None = None) -> str:
    """The folder with the home folder written `~` (`/home/dev` → `~`, `/home/dev/api` →
    `~/api`; `/home/dev2` is not under `/home/dev`)."""
    if home:
        home = home.rstrip("/") or "/"
        if folder == home:
            return "~"
        if home != "/" and folder.startswith(home + "/"):
            return "~" + folder[len(home) :]
    return folder


def folder_labels(folders: Iterable[str]) -> dict[str, str]:
    """Each folder's shortest tail that tells it apart from the others shown:
    `/home/dev/api` and `/srv/web` read `api` and `web`; `/a/x/api` beside `/b/y/api`
    read `x/api` and `y/api`."""
    unique = sorted({f for f in folders if f})
    parts = {f: [p for p in f.replace("\\", "/").split("/") if p] or [f] for f in unique}
    labels: dict[str, str] = {}
    depth = {f: 1 for f in unique}
    while True:
        tails: dict[str, list[str]] = {}
        for f in unique:
            tails.setdefault("/".join(parts[f][-depth[f] :]), []).append(f)
        clashes = [group for group in tails.values() if len(group) > 1]
        grown = False
        for group in clashes:
            for f in group:
                if depth[f] < len(parts[f]):
                    depth[f] += 1
                    grown = True
        if not clashes or not grown:
            break
    for f in unique:
        labels[f] = "/".join(parts[f][-depth[f] :])
    return labels


def fitted_labels(labels: Mapping[str, str], width: int) -> dict[str, str]:
    """Each folder's label in at most `width` cells, the labels still telling the
    folders apart where they can: a label that fits stays whole; one that does not is cut
    at its start (`…web-api`, the end of a path says most) unless another cut reads the
    same, then at its end (`claude-re…` beside `opencode-…`, where both ends would read
    `…de-resume`), then at both ends, keeping as much of the end as tells it apart."""
    shown: dict[str, str] = {}
    pending: list[str] = []
    for folder, label in sorted(labels.items()):
        if width_of(label) <= width:
            shown[folder] = label
        else:
            pending.append(folder)
    if not pending or width <= 1:
        return {**shown, **{f: cut_left(labels[f], width) for f in pending}}
    taken = set(shown.values())

    def candidates(label: str) -> list[str]:
        room = width - 1
        ends = [cut_left(label, width), cut(label, width)]
        return ends + [head(label, k) + "…" + tail(label, room - k) for k in range(room - 1, 0, -1)]

    options = {f: candidates(labels[f]) for f in pending}
    for attempt in range(width + 1):
        tried: dict[str, list[str]] = {}
        for folder in pending:
            if attempt < len(options[folder]):
                tried.setdefault(options[folder][attempt], []).append(folder)
        for label, folders in tried.items():
            if len(folders) == 1 and label not in taken:
                shown[folders[0]] = label
                taken.add(label)
        pending = [f for f in pending if f not in shown]
        if not pending:
            break
    # Folders no cut this narrow tells apart read as their end.
    shown.update((f, cut_left(labels[f], width)) for f in pending)
    return shown


# Harness names when the list is wide (short human names, each whole: `OpenCode`, never
# `openc…`); one coloured letter when it is not.
HARNESS_SHORT = {
    "claude": "Claude",
    "codex": "Codex",
    "acp": "ACP",
    "gemini": "Gemini",
    "opencode": "OpenCode",
    "qwen": "Qwen",
    "pi": "pi",
    "copilot": "Copilot",
    "kilo": "Kilo",
    "cline": "Cline",
}
HARNESS_CELLS = max(len(name) for name in HARNESS_SHORT.values())
HARNESS_GLYPHS = {
    "claude": "C",
    "codex": "X",
    "acp": "A",
    "gemini": "G",
    "opencode": "O",
    "qwen": "Q",
    "pi": "P",
    "copilot": "H",  # GitHub's: C is Claude's
    "kilo": "K",
    "cline": "L",
}
WIDE_LIST = 100  # from here on the harness is named
OPEN_WORDS = 60  # from here on open counts say "2 open" (below: "⚑2")
FOLDER_MAX = 20
FOLDER_MIN = 6
AGE_CELLS = 4


def harness_style(harness: str) -> str:
    return colours.HARNESS.get(harness, colours.HARNESS_DEFAULT)


@dataclass(frozen=True)
class RowLayout:
    """Column widths for one width of the list and the rows it shows. The title takes
    what the other columns leave; the folder shows the tail that tells folders apart."""

    width: int
    harness: int  # 0: none; 1: a coloured letter; HARNESS_CELLS: the name
    title: int
    folder: int
    pill: int
    open: int
    # Each folder's label as its row shows it: cut to the folder column, still apart.
    folder_label: Mapping[str, str] = field(default_factory=dict, compare=True, hash=False)
    # Each folder's whole label (a group's heading has the room for it).
    folder_heading: Mapping[str, str] = field(default_factory=dict, compare=True, hash=False)

    @classmethod
    def for_rows(cls, rows: Sequence[SessionRow], width: int) -> RowLayout:
        wide = width >= WIDE_LIST
        harness = HARNESS_CELLS if wide else (1 if width >= 24 else 0)
        # Measured once per distinct pill, not per row: a list holds a thousand rows.
        pills = {(r.done, r.total, r.partial) for r in rows}
        pill = max([PILL_MIN, *(len(pill_text(done, total).plain) + partial for done, total, partial in pills)])
        counts = [r.open_count for r in rows if r.open_count]
        if width >= OPEN_WORDS:
            open_cells = OPEN_CELLS
        elif width >= 40 and counts:
            open_cells = 1 + len(str(max(counts)))  # "⚑2"
        else:
            open_cells = 0
        fixed = 2 + (harness + 1 if harness else 0) + 1 + AGE_CELLS + 1 + pill
        fixed += open_cells + 1 if open_cells else 0
        # Made safe before they are measured: an escape shown for a control character
        # takes cells too.
        labels = {f: safe_text(label, single_line=True) for f, label in folder_labels(r.folder for r in rows).items()}
        longest = max((width_of(label) for label in labels.values()), default=0)
        # The title keeps at least two thirds of what is left (three quarters when the
        # list is narrow: there the title is what tells sessions apart).
        room = width - fixed
        share = room // 3 - 1 if wide else room // 4
        folder = min(longest, FOLDER_MAX if wide else FOLDER_MAX // 2, max(0, share))
        if folder < min(longest, FOLDER_MIN):
            folder = 0  # a folder cut to a few letters tells nothing apart
        title = max(6, room - (folder + 1 if folder else 0))
        shown = fitted_labels(labels, folder) if folder else labels
        return cls(width, harness, title, folder, pill, open_cells, shown, labels)


PILL_MIN = 5  # "○ 0/4"
PILL_CELLS = 9  # "◑ 100/200"
# Beside the pill of a session whose plan is partial (the hover card says what is missing).
PARTIAL_MARK = "~"
OPEN_CELLS = 7  # "12 open"


def header_text(layout: RowLayout) -> Content:
    """The column names above the rows, aligned with row_text."""
    line = "  "
    if layout.harness == HARNESS_CELLS:
        line += fit("agent", layout.harness) + " "
    elif layout.harness:
        line += " " * (layout.harness + 1)
    line += fit("session", layout.title) + " "
    if layout.folder:
        line += fit("folder", layout.folder) + " "
    line += "age".rjust(AGE_CELLS) + " " + fit("done", layout.pill)
    if layout.open:
        line += " " + fit("tasks" if layout.open >= 5 else "⚑", layout.open)
    return Content.styled(line, f"bold {colours.MUTED}")


def pill_span(layout: RowLayout) -> tuple[int, int]:
    """The cells [start, end) the pill (and its partial mark) take in a row."""
    start = 2 + (layout.harness + 1 if layout.harness else 0) + layout.title + 1
    start += (layout.folder + 1 if layout.folder else 0) + AGE_CELLS + 1
    return start, start + layout.pill


def row_cells(row: SessionRow, layout: RowLayout) -> int | None:
    """The cells `row_text(row, …, layout)` takes, known without making it: every column
    is fitted to its cells (a wide or combining title too), so every row of a layout
    takes the same. (None would mean: measure the text.)"""
    return pill_span(layout)[1] + (layout.open + 1 if layout.open else 0)


def row_face(row: SessionRow, now: datetime) -> tuple[bool, str]:
    """What of `now` a row's text shows: running or not, and its age."""
    return now - row.updated <= RUNNING_WINDOW, age(row.updated, now)


_YEAR = 365 * 86400
# Each unit of `age` and the size where the next unit takes over.
_AGE_STEPS = ((604800, _YEAR), (86400, 604800), (3600, 86400), (60, 3600))


def face_until(row: SessionRow, now: datetime) -> datetime:
    """The first instant after `now` at which `row_face(row, ·)` may read otherwise: it
    reads as at `now` for every clock from `now` up to (not including) this. A list of
    ten thousand rows checks each row's face with one comparison instead of making its
    age again (the few rows whose face does change are made anew)."""
    elapsed = now - row.updated
    seconds = max(0, int(elapsed.total_seconds()))
    years = seconds // _YEAR
    if years >= 100:
        step = None
    elif years >= 1:
        step = (years + 1) * _YEAR
    else:
        step = seconds + 1  # seconds: every second
        for size, next_unit in _AGE_STEPS:
            if seconds >= size:
                step = min((seconds // size + 1) * size, next_unit)
                break
        else:
            step = min(step, 60)
    if step is None:  # 99y+ for ever (as aware or naive as the row's time)
        until = datetime.max.replace(tzinfo=row.updated.tzinfo)
    else:
        until = row.updated + timedelta(seconds=step)
    if elapsed <= RUNNING_WINDOW:
        # Running while at most the window old: the mark goes just after it.
        until = min(until, row.updated + RUNNING_WINDOW + timedelta(microseconds=1))
    return until


def row_text(row: SessionRow, now: datetime, layout: RowLayout) -> Content:
    """One line: `● claude Title……  api  12m ◑ 3/7  2 open` (wide) or
    `● C Title……  api  12m ◑ 3/7 ⚑2` (narrower)."""
    running = now - row.updated <= RUNNING_WINDOW
    parts: list[Content | tuple[str, str] | str] = [("● " if running else "  ", colours.RUNNING)]
    if layout.harness:
        if layout.harness == HARNESS_CELLS:
            shown = HARNESS_SHORT.get(row.harness, row.harness)
        else:
            shown = HARNESS_GLYPHS.get(row.harness, row.harness[:1].upper())
        parts += [(fit(shown, layout.harness), harness_style(row.harness)), " "]
    title = safe_text(title_of(row), single_line=True)
    if row.fork:
        parts.append((FORK_MARK, colours.MUTED))
    parts += [(fit(title, layout.title - (len(FORK_MARK) if row.fork else 0)), "bold" if running else ""), " "]
    if layout.folder:
        label = layout.folder_label.get(row.folder) or safe_text(row.folder, single_line=True)
        parts += [(fit_left(label, layout.folder), colours.MUTED), " "]
    parts += [(age(row.updated, now).rjust(AGE_CELLS), colours.RUNNING if running else colours.MUTED), " "]
    pill = pill_text(row.done, row.total)
    if row.partial:
        pill = Content.assemble(pill, (PARTIAL_MARK, colours.WARNING))
    parts.append(
        pill.pad_right(layout.pill - len(pill.plain))
        if len(pill.plain) <= layout.pill
        else pill.truncate(layout.pill, ellipsis=True)
    )
    if layout.open:
        if row.open_count:
            shown = f"{row.open_count} open" if layout.open == OPEN_CELLS else f"⚑{row.open_count}"
        else:
            shown = ""
        parts += [" ", (fit(shown, layout.open), colours.OPEN_COUNT)]
    return Content.assemble(*parts)


NO_FOLDER = "(no folder)"


def group_key(row: SessionRow, order: Order) -> str:
    """What a row is grouped by in `order` (folder or harness)."""
    return row.folder if order == "folder" else row.harness


def heading_text(label: str, count: int, width: int, style: str = colours.HEADING) -> Content:
    """A group's heading: `api · 3 sessions`, the name cut to fit, the count kept."""
    noun = "session" if count == 1 else "sessions"
    count_text = f" · {count} {noun}"
    name = safe_text(label or NO_FOLDER, single_line=True)
    # A folder's end tells it apart; measured in cells (a wide name is cut like any other).
    name = cut_left(name, max(1, width - len(count_text)))
    return Content.assemble((name, style), (count_text, colours.MUTED))
