"""What the store view shows of each record: the status marks, the cells of a plan's and
a task's row, the detail lines under the table, the problems list, and task_list's
filters as the filter bar holds them. Pure: records in, Rich Text out (untrusted text
stays literal)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rich.style import Style
from rich.text import Text

from planwatch.core.mirror import SOURCE_TOOLS
from planwatch.core.model import SOURCE_LABELS
from planwatch.core.store.recordfile import RecordProblem
from planwatch.core.store.schema import PlanRecord, Scope, Source, Stamp, TaskRecord
from planwatch.core.sync.contests import UNVERIFIED, Contest
from planwatch.core.text import safe_text, shorten
from planwatch.tui.cells import shorten_cells

# The mark before each status. Its colour is the theme's, through the table's
# component classes (tui/widgets/store_table.py): the caller passes the style.
STATUS_MARKS: dict[str, str] = {
    "todo": "○",
    "doing": "◐",
    "blocked": "⊘",
    "review": "◎",
    "done": "●",
    "dropped": "✕",
    # plans
    "draft": "◌",
    "active": "▶",
}

StatusStyle = Callable[[str], Style]
"""A status's style, from the theme (StoreTable.status_style)."""


@dataclass(frozen=True)
class Filters:
    """task_list's filters as the filter bar holds them; empty means "all tasks"."""

    status: str | None = None
    ready: bool = False
    by: str = ""
    since: str = ""

    @property
    def active(self) -> bool:
        return bool(self.status or self.ready or self.by or self.since)

    def args(self) -> dict[str, Any]:
        """task_list's input for these filters."""
        args: dict[str, Any] = {}
        if self.status:
            args["status"] = self.status
        if self.ready:
            args["ready"] = True
        if self.by:
            args["by"] = self.by
        if self.since:
            args["since"] = self.since
        return args

    def describe(self) -> str:
        parts = [f"status {self.status}"] if self.status else []
        if self.ready:
            parts.append("ready")
        if self.by:
            parts.append(f"by {self.by}")
        if self.since:
            parts.append(f"since {self.since}")
        return ", ".join(parts)


def stamp_text(stamp: Stamp | None) -> str:
    if stamp is None:
        return ""
    return f"{stamp.at.strftime('%Y-%m-%d %H:%M')} by {stamp.by}" + (f" in {stamp.in_}" if stamp.in_ else "")


def status_cell(status: str, style_of: StatusStyle) -> Text:
    """A status with its mark, in the style the theme gives it."""
    return Text(f"{STATUS_MARKS.get(status, '?')} {status}", style=style_of(status))


def count_noun(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


TITLE_WIDTH = 60
"""Titles are cut here in the table (the detail line below shows more), so the approval
and notes columns stay on screen."""


def line_text(text: str | None, limit: int = 200) -> Text:
    # Text, never markup: titles and names are untrusted (hand edits, agents); cut in
    # cells, so a CJK or emoji title is no wider than its column.
    return Text(shorten_cells(text or "", limit))


SessionTitle = Callable[[str], "str | None"]
"""A session's title by its id, when the app knows the session."""

# The agent list a translated task came from, by the tool that wrote it (core.mirror).
_TOOL_LABELS = {tool: SOURCE_LABELS.get(source, source) for source, tool in SOURCE_TOOLS.items()}


def source_words(source: Source) -> str:
    """Where a translated task came from, in words: "from Codex plan", never a tool id."""
    label = _TOOL_LABELS.get(source.tool)
    if label is None and source.tool.startswith("mcp__ccd_"):
        label = SOURCE_LABELS["claude_desktop"]
    return f"from {label}" if label else "from an agent's list"


def session_words(session_id: str, titles: SessionTitle | None = None) -> str:
    """A session named by its title when known, else by the start of its id."""
    title = titles(session_id) if titles is not None else None
    if title:
        return f"session “{shorten_cells(title, 40)}”"
    return f"a session ({session_id[:8]})"


def scope_words(scope: Scope, titles: SessionTitle | None = None) -> str:
    """What a plan is about, in words: "folder ~/dev/api", "bot ci", "session “Fix…”"."""
    if scope.kind == "session":
        return "for " + session_words(scope.value, titles)
    return f"{scope.kind} {scope.value}"


def approved_words(record: TaskRecord | PlanRecord, counts: bool) -> str:
    """`✓ ana`; `✗ ana (not counted)` for a stamp no approval call of this host wrote, or
    one whose title or body changed since (core/store/approvals.py)."""
    if record.approved is None:
        return ""
    return f"✓ {record.approved.by}" if counts else f"✗ {record.approved.by} (not counted)"


def plan_cells(
    plan: PlanRecord,
    tasks: list[TaskRecord],
    titles: SessionTitle,
    style_of: StatusStyle,
    counts: bool = True,
    contests: list[Contest] | None = None,
) -> dict[str, Text]:
    """The cells of a plan's row: its tasks' done count and its scope."""
    done = sum(task.status == "done" for task in tasks)
    counted = sum(task.status != "dropped" for task in tasks)
    scope = scope_words(plan.scope, titles) if plan.scope is not None else ""
    if contests:
        scope = " · ".join(x for x in (contest_note(contests), scope) if x)
    cells = {
        "id": Text(plan.id, style="bold"),
        "status": status_cell(plan.status, style_of),
        "priority": Text(f"{done}/{counted}"),
        "title": Text(shorten_cells(plan.title, TITLE_WIDTH), style="bold"),
        "approved": line_text(approved_words(plan, counts)),
        "notes": line_text(scope, 60),
    }
    return cells


def task_cells(
    task: TaskRecord,
    titles: SessionTitle,
    style_of: StatusStyle,
    counts: bool = True,
    contests: list[Contest] | None = None,
    unapproved_doing: bool = False,
) -> dict[str, Text]:
    """The cells of a task's row; `unapproved_doing`: the task is doing although approval
    is required and no approval of it counts (its notes begin `⚠ doing without approval`)."""
    notes: list[str] = ["⚠ doing without approval"] if unapproved_doing else []
    if contests:
        notes.append(contest_note(contests))
    if task.blocked_by:
        notes.append("after " + " ".join(task.blocked_by))
    if task.reviewed is not None:
        notes.append(f"reviewed: {task.reviewed.verdict or 'no verdict'}")
    if task.labels:
        notes.append(" ".join(f"#{label}" for label in task.labels))
    if task.source is not None:
        # Written by the opt-in translation of an agent's list (docs/store.md, Agents' lists in the store).
        notes.append(source_words(task.source))
    if task.session and task.plan is None:
        notes.append(session_words(task.session, titles))
    cells = {
        "id": Text(f"  {task.id}"),
        "status": status_cell(task.status, style_of),
        "priority": Text(task.priority),
        "title": line_text(task.title, TITLE_WIDTH),
        "approved": line_text(approved_words(task, counts)),
        "notes": line_text(" · ".join(notes), 80),
    }
    return cells


def problems_text(problems: list[RecordProblem]) -> str:
    """The broken records, each with its file and what is wrong."""
    if not problems:
        return ""
    noun = "record" if len(problems) == 1 else "records"
    lines = [
        f"⚠ {len(problems)} {noun} could not be read and {'is' if len(problems) == 1 else 'are'} left out — fix the file by hand:"
    ]
    lines += [f"  {safe_text(problem.message, single_line=True)}" for problem in problems]
    return "\n".join(lines)


def contest_value(value: Any) -> str:
    """A contested field's value as a person reads it (a text as is, a list or mapping as JSON)."""
    if value is None:
        return "(none)"
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def contest_lines(contests: list[Contest]) -> list[str]:
    """Each contested field: what the record holds and what the merge did not keep."""
    lines = []
    for contest in contests:
        if contest.field == UNVERIFIED:
            item = contest.lost[0] if contest.lost else {}
            made = f"{item.get('by') or 'someone'} at {item.get('at') or '?'}, made on host {item.get('host') or '?'}"
            lines.append(
                f"  ⚠ unverified approval: {made}; not counted (no signature that verifies against the team policy)"
            )
            continue
        lost = " | ".join(shorten(contest_value(v), 120) for v in contest.lost)
        if contest.field in ("body", "goal"):  # a text's hunks that overlapped
            lines.append(f"  ⚠ contested {contest.field}: the other side's text, kept aside: {lost}")
        else:
            kept = shorten(contest_value(contest.kept), 120)
            lines.append(f"  ⚠ contested {contest.field}: kept {kept}; not kept: {lost}")
    return lines


def contest_note(contests: list[Contest]) -> str:
    fields = list(dict.fromkeys(c.field for c in contests if c.field != UNVERIFIED))
    notes = ["⚠ contested: " + ", ".join(fields)] if fields else []
    if any(c.field == UNVERIFIED for c in contests):
        notes.append("⚠ unverified approval")
    return " · ".join(notes)


def detail_text(record: TaskRecord | PlanRecord, contests: list[Contest] | None = None) -> str:
    """The lines under the table for the record under the cursor: stamps, now, note, body,
    and, in a shared store, each contested field with the value the merge did not keep."""
    lines = [f"{record.id}  {shorten(record.title, 200)}"]
    if contests:
        lines += contest_lines(contests)
    for name, stamp in record.stamps().items():
        verdict = f" ({stamp.verdict})" if stamp.verdict else ""
        lines.append(f"  {name:<9} {stamp_text(stamp)}{verdict}")
    if isinstance(record, TaskRecord):
        if record.status == "doing" and record.active:
            lines.append(f"  now       {shorten(record.active, 200)}")
        if record.note:
            lines.append(f"  note      {shorten(record.note, 200)}")
        body = record.body.strip()
    else:
        body = record.goal.strip()
    if body:
        lines.append("  " + shorten(body, 300))
    return "\n".join(safe_text(line) for line in lines)


_DONE_WORDS = {
    "task_add": "Added {id}",
    "task_set": "Saved {id}",
    "task_approve": "Approved {id}",
    "task_review": "Reviewed {id}",
    "plan_create": "Created plan {id}",
    "plan_set": "Saved plan {id}",
    "plan_approve": "Approved plan {id}",
}


# What a refused call did not do, in words: a person reads "Filter not applied: since …",
# never the tool's "Invalid task_list input: since …" (the CLI and MCP keep that wording).
_REFUSED_WORDS = {
    "task_list": "Filter not applied",
    "task_add": "Task not added",
    "task_set": "Task not saved",
    "task_approve": "Task not approved",
    "task_review": "Review not saved",
    "plan_create": "Plan not created",
    "plan_set": "Plan not saved",
    "plan_approve": "Plan not approved",
    "plan_show": "Plan not shown",
    "plan_list": "Plans not listed",
}
_TOOL_HINTS = {" (see plan_list)": "", " (see task_list)": ""}


def refusal_text(message: str) -> str:
    """A tool's refusal as a person reads it: `Invalid task_list input: since must be …`
    becomes `Filter not applied: since must be …`; the tools' names in hints go."""
    for tool, words in _REFUSED_WORDS.items():
        lead = f"Invalid {tool} input: "
        if message.startswith(lead):
            message = f"{words}: {message.removeprefix(lead)}"
            break
    for hint, shown in _TOOL_HINTS.items():
        message = message.replace(hint, shown)
    return message


def toast_text(tool: str, answer: str, args: dict[str, Any]) -> str:
    """A tool's answer as a sentence for a toast: "Added t9: Load test the flow (todo,
    medium)." rather than the tool's line `t9 todo medium Load test the flow`."""
    parts = answer.split(" ", 3)
    record_id = parts[0] if parts else ""
    words = _DONE_WORDS.get(tool)
    if words is None or not record_id:
        return answer
    sentence = words.format(id=record_id)
    if tool == "task_review" and args.get("verdict"):
        sentence += f" ({'approved' if args['verdict'] == 'approved' else 'changes asked for'})"
    if record_id.startswith("p") and len(parts) >= 3:  # `p1 active Ship it`
        status, title = parts[1], " ".join(parts[2:])
        return f"{sentence}: {title} ({status})."
    if len(parts) == 4:  # `t9 todo medium Title`
        status, priority, title = parts[1], parts[2], parts[3]
        return f"{sentence}: {title} ({status}, {priority})."
    return sentence + "."
