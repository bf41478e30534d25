"""A harness's own list in the store (docs/store.md, Agents' lists in the store): the opt-in translation.

This is the one path by which agent plan text reaches disk, and only when the person
turned "Keep agents' plans in the shared task list" on (the mirror checks that).

- `translate_list(store, session_id, title, entries, tool=...)`: a whole agent list
  (`(text, status)` or `(text, status, priority)` entries) becomes the session's plan — scope `{kind: session,
  session: <id>}`, titled by the session's title or `Session <id>`, empty goal, created
  when missing. Each entry takes the first task of the plan with its text that no
  earlier entry took; an unmatched entry is a new task with `source: {tool}`; a step
  the list no longer holds is `dropped`, never removed. An entry's priority is kept
  (`high`/`medium`/`low`; a new task is medium where its entry names none, and a task
  keeps its priority when a later entry names none).
  An ACP session's plans sent with a `planId` are each their own session plan
  (`plan_key=`): a ref `acp-plan:<planId>` finds it again, its title adds
  ` · plan <planId>` so a person tells the session's plans apart.
- `translate_change(store, session_id, title, tool=..., source_id=..., text=..., status=...)`:
  one Claude task change, found by `source.id`; an unknown task needs text to be added
  (`TranslateRefused` otherwise); a change without status keeps the status.

Status map: pending→todo, in_progress→doing, completed→done, blocked→blocked,
cancelled/deleted→dropped; anything else reads as pending (docs/reading.md).

Every write goes through the Store API under the store lock, stamped like the tools
stamp (`created`; `started` on the first doing; `finished` on the first review, done
or dropped). Nothing is written when nothing changed: the mirror calls this on every
change of an agent's list, and a re-translation of the same list is a no-op.

As docs/store.md, Agents' lists in the store, says: every step the list no longer holds is `dropped`, whatever
its status, with one exception: a list cleared (empty) after every
step was done drops nothing (the agent finished and tidied up). Only tasks a translation
made (they carry `source`) are dropped; a task a person added to the session's plan by
hand is left alone unless an entry takes it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from planwatch.core.store.approvals import approvals_of
from planwatch.core.store.identity import Caller
from planwatch.core.store.schema import (
    TITLE_MAX,
    PlanRecord,
    Scope,
    Source,
    Stamp,
    TaskPriority,
    TaskRecord,
    id_number,
    task_status_change,
    valid_text,
)
from planwatch.core.store.session_todos import session_plan_ids
from planwatch.core.store.store import Store

log = logging.getLogger(__name__)

MAX_STEPS = 50
"""A list holds at most this many steps in the store, as a tool's lists do (MAX_LIST)."""

STATUS_MAP: dict[str, str] = {
    "pending": "todo",
    "in_progress": "doing",
    "completed": "done",
    "blocked": "blocked",
    "cancelled": "dropped",
    "deleted": "dropped",
}


class TranslateRefused(ValueError):
    """A change the translation cannot apply; the message says why."""


@dataclass
class TranslateResult:
    """What a translation wrote: the plan's id and the tasks it added or changed."""

    plan_id: str | None = None
    plan_written: bool = False
    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)

    @property
    def wrote(self) -> bool:
        return self.plan_written or bool(self.added) or bool(self.changed)


PRIORITIES: tuple[TaskPriority, ...] = ("high", "medium", "low")


def store_priority(agent_priority: object) -> TaskPriority | None:
    """An entry's priority word, or None where it names none (or another word)."""
    return agent_priority if agent_priority in PRIORITIES else None  # type: ignore[return-value]


def store_status(agent_status: object) -> str:
    """An agent status word → a task status (unknown reads as pending → todo)."""
    return STATUS_MAP.get(agent_status, "todo") if isinstance(agent_status, str) else "todo"


def task_title(text: str) -> str:
    """An agent step's text as a task title: one line, whitespace collapsed, at most TITLE_MAX.

    Entries are matched to tasks by this form, so a long or multi-line step still finds
    the task it made.
    """
    line = " ".join(valid_text(str(text)).split())
    return line[:TITLE_MAX]


def _check_session(session_id: str) -> None:
    # A session id comes from a file name, which may hold bytes that are not UTF-8
    # (a lone surrogate after decoding): no record can name it, so nothing is written.
    if not session_id or valid_text(session_id) != session_id:
        raise TranslateRefused(f"Session id {session_id!r} cannot be written to the store.")


def plan_title(session_id: str, session_title: str | None, plan_key: str | None = None) -> str:
    """The session's title (or `Session <id>`); a `planId`'s plan adds ` · plan <planId>`,
    kept whole however long the session's title is, so its plans read apart."""
    title = task_title(session_title or "") or task_title(f"Session {session_id}")
    if plan_key is None:
        return title
    tail = task_title(f" · plan {plan_key}")
    return task_title(title[: max(1, TITLE_MAX - len(tail) - 1)] + " " + tail)


PLAN_REF_PREFIX = "acp-plan:"
"""The ref that tells an ACP `planId`'s session plan from the session's main plan."""


def plan_ref(plan_key: str) -> str:
    """The ref a session plan of one ACP `planId` carries (`acp-plan:<planId>`)."""
    return PLAN_REF_PREFIX + plan_key


def plan_key_of(plan: PlanRecord) -> str | None:
    """The ACP `planId` a session plan stands for (its `acp-plan:` ref); None: the main plan."""
    for ref in plan.refs:
        if ref.startswith(PLAN_REF_PREFIX):
            return ref[len(PLAN_REF_PREFIX) :]
    return None


def session_plan(store: Store, session_id: str, plan_key: str | None = None) -> PlanRecord | None:
    """The session's plan (scope session = id) for `plan_key`: None is the main plan (no
    `acp-plan:` ref), an ACP `planId` the plan whose ref names it; the lowest id if a
    person made several."""
    snap = store.load()
    found = [pid for pid in session_plan_ids(snap, session_id) if plan_key_of(snap.plans[pid]) == plan_key]
    return snap.plans[min(found, key=id_number)] if found else None


def session_plan_keys(store: Store, session_id: str) -> set[str]:
    """The ACP `planId`s the session has a plan of in the store."""
    snap = store.load()
    keys = (plan_key_of(snap.plans[pid]) for pid in session_plan_ids(snap, session_id))
    return {key for key in keys if key is not None}


class _Writer:
    """Stamped, change-only writes of one translation, under the store lock."""

    def __init__(
        self,
        store: Store,
        session_id: str,
        caller: Caller | None,
        now: Callable[[], datetime] | None,
        plan_key: str | None = None,
        require_approval: bool = False,
    ) -> None:
        self.store = store
        self.require_approval = require_approval
        self.session_id = session_id
        self.plan_key = plan_key
        self.caller = caller or Caller(by="host", session=session_id)
        self.now = now or (lambda: datetime.now(UTC))
        self.result = TranslateResult()

    def stamp(self) -> Stamp:
        return self.caller.stamp(self.now())

    def ensure_plan(self, title: str, *, create: bool, found: PlanRecord | None = None) -> PlanRecord | None:
        """The session's plan, titled `title`; made when missing and `create`. `found` is
        the session's plan when the caller already looked it up under this lock."""
        plan = found if found is not None else session_plan(self.store, self.session_id, self.plan_key)
        if plan is None:
            if not create:
                return None
            refs = () if self.plan_key is None else (plan_ref(self.plan_key),)

            def make(plan_id: str) -> PlanRecord:
                return PlanRecord(
                    id=plan_id,
                    scope=Scope(kind="session", value=self.session_id),
                    title=title,
                    status="active",
                    refs=refs,
                    created=self.stamp(),
                )

            plan = self.store.add_plan(make)
            self.result.plan_written = True
        elif plan.title != title:
            plan = self.store.update_plan(plan.id, lambda p: p.model_copy(update={"title": title}))
            self.result.plan_written = True
        self.result.plan_id = plan.id
        return plan

    def plan_tasks(self, plan_id: str) -> list[TaskRecord]:
        tasks = [t for t in self.store.load().tasks.values() if t.plan == plan_id]
        return sorted(tasks, key=lambda t: id_number(t.id))

    def add(
        self, plan_id: str, title: str, status: str, source: Source, priority: TaskPriority | None = None
    ) -> TaskRecord:
        if status == "doing" and self.require_approval:
            status = "todo"  # a new task is not approved, so it cannot start (the tools' rule)
            log.info("translate: a new task of session %s stays todo: requireApproval is on", self.session_id)

        def make(task_id: str) -> TaskRecord:
            stamp = self.stamp()
            base = TaskRecord(
                id=task_id,
                title=title,
                status=status,  # type: ignore[arg-type]
                priority=priority or "medium",
                plan=plan_id,
                session=self.session_id,
                source=source,
                created=stamp,
            )
            return base.model_copy(update=task_status_change(base, status, lambda: stamp))

        rec = self.store.add_task(make)
        self.result.added.append(rec.id)
        return rec

    def change(
        self,
        task: TaskRecord,
        *,
        title: str | None = None,
        status: str | None = None,
        priority: TaskPriority | None = None,
    ) -> TaskRecord:
        update: dict[str, Any] = {}
        if title is not None and title != task.title:
            update["title"] = title
            if task.approved is not None:
                update["approved"] = None  # what was approved is not what the task says now
                log.info("translate: %s needs approval again: its title changed after it was approved", task.id)
        if priority is not None and priority != task.priority:
            update["priority"] = priority
        if status == "doing" and status != task.status and self.require_approval:
            if "approved" in update or not approvals_of(self.store).counts(task):
                log.info("translate: %s stays %s: requireApproval is on and it is not approved", task.id, task.status)
                status = None
        if status is not None and status != task.status:
            update.update(task_status_change(task, status, self.stamp))
        if not update:
            return task
        new = self.store.update_task(task.id, lambda t: t.model_copy(update=update))
        self.result.changed.append(task.id)
        return new


def _entries(entries: Iterable[Sequence[Any]]) -> list[tuple[str, str, TaskPriority | None]]:
    out = []
    for entry in entries:
        text, status = entry[0], entry[1] if len(entry) > 1 else "pending"
        priority = store_priority(entry[2]) if len(entry) > 2 else None
        title = task_title(text) if isinstance(text, str) else ""
        if not title:
            log.info("translate: skipped a step without text")
            continue
        out.append((title, store_status(status), priority))
    return out


def translate_list(
    store: Store,
    session_id: str,
    session_title: str | None,
    entries: Iterable[Sequence[Any]],
    *,
    tool: str,
    caller: Caller | None = None,
    now: Callable[[], datetime] | None = None,
    plan_key: str | None = None,
    require_approval: bool = False,
) -> TranslateResult:
    """Write a whole agent list as the session's plan (docs/store.md, Agents' lists in the
    store); no write when unchanged.
    With `require_approval` a step moves to doing only once its task is approved, as
    task_set requires; only the first MAX_STEPS steps are kept (said in the log).

    `plan_key` is an ACP `planId`: that plan is its own session plan (its `acp-plan:` ref
    finds it again; titled `<session title> · plan <planId>`); None is the main plan.
    Raises `TranslateRefused` for a session id no record can hold.
    """
    _check_session(session_id)
    if plan_key is not None and (not plan_key or valid_text(plan_key) != plan_key):
        raise TranslateRefused(f"Plan id {plan_key!r} of session {session_id} cannot be written to the store.")
    wanted = _entries(entries)
    if len(wanted) > MAX_STEPS:
        log.warning(
            "translate: session %s's list has %d steps; the first %d are kept in the store (a list holds at most %d)",
            session_id, len(wanted), MAX_STEPS, MAX_STEPS,
        )  # fmt: skip
        wanted = wanted[:MAX_STEPS]
    writer = _Writer(store, session_id, caller, now, plan_key, require_approval)
    with store.lock():
        # An empty list for a session with no plan has nothing to keep: no plan is made.
        plan = writer.ensure_plan(plan_title(session_id, session_title, plan_key), create=bool(wanted))
        if plan is None:
            return writer.result
        tasks = writer.plan_tasks(plan.id)
        taken: set[str] = set()
        for title, status, priority in wanted:
            match = next((t for t in tasks if t.id not in taken and t.title == title), None)
            if match is None:
                match = writer.add(plan.id, title, status, Source(tool=tool), priority)
            else:
                writer.change(match, status=status, priority=priority)
            taken.add(match.id)
        left = [t for t in tasks if t.id not in taken and t.source is not None]
        if not wanted and all(t.status in ("done", "dropped") for t in left):
            return writer.result  # cleared after every step was done: drop nothing
        for task in left:
            if task.status != "dropped":
                writer.change(task, status="dropped")
    return writer.result


def translate_change(
    store: Store,
    session_id: str,
    session_title: str | None,
    *,
    tool: str,
    source_id: str,
    text: str | None = None,
    status: str | None = None,
    caller: Caller | None = None,
    now: Callable[[], datetime] | None = None,
    require_approval: bool = False,
) -> TranslateResult:
    """Apply one task change (Claude tasks) found by `source.id`; no write when unchanged.
    With `require_approval`, doing needs an approved task; a plan holds at most
    MAX_STEPS of the agent's tasks (a change that would add one more is refused).

    Raises `TranslateRefused` for a change to an unknown task that carries no text, and
    for a session id no record can hold.
    """
    _check_session(session_id)
    source_id = valid_text(str(source_id))
    title = task_title(text) if isinstance(text, str) else None
    mapped = store_status(status) if status is not None else None
    writer = _Writer(store, session_id, caller, now, require_approval=require_approval)
    with store.lock():
        plan = session_plan(store, session_id)
        task = None
        kept = 0
        if plan is not None:
            own = [t for t in writer.plan_tasks(plan.id) if t.source is not None]
            kept = sum(t.status != "dropped" for t in own)
            task = next((t for t in own if t.source is not None and t.source.id == source_id), None)
        if task is None and kept >= MAX_STEPS:
            raise TranslateRefused(
                f"Task {source_id} of session {session_id} was not added: the session's plan already holds "
                f"{MAX_STEPS} of its open tasks (a list holds at most {MAX_STEPS})."
            )
        if task is None and not title:
            raise TranslateRefused(
                f"Task {source_id} of session {session_id} is not in the store, and the change "
                "carries no text to add it with."
            )
        plan = writer.ensure_plan(plan_title(session_id, session_title), create=True, found=plan)
        assert plan is not None
        if task is None:
            assert title is not None
            writer.add(plan.id, title, mapped or "todo", Source(tool=tool, id=source_id))
        else:
            writer.change(task, title=title or None, status=mapped)
    return writer.result
