"""The opt-in mirror: agents' lists kept in the shared task store.

docs/store.md, Agents' lists in the store, says what it writes, and docs/privacy.md why
it is off by default.

The app (or the session index) calls `mirror.update(session, plan)` whenever a
session's `AgentPlan` changes. With `keep_plans_in_store` off — the default — it does
nothing at all: no file, no folder, no log line holding plan text. This is the only
path by which agent plan text reaches disk.

With the setting on, the session's main plan group is translated
(core.store.translate), and an ACP session's every plan sent with a `planId` as its own
session plan (docs/store.md, Agents' lists in the store; one the agent removed has its open steps dropped): a full-list
source (TodoWrite, Codex, the desktop task list, ACP) as a whole list; Claude Code tasks as single changes, found by diffing the
group against the one seen before by task id. A group equal to the last one mirrored
is skipped before the store is even read, so the mirror is cheap on every append and
a person's edit to a mirrored task is not overwritten until the agent's list changes.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path

from planwatch.core.model import AgentPlan, PlanGroup, PlanItem, Session
from planwatch.core.settings import Settings
from planwatch.core.store.errors import StoreError
from planwatch.core.store.identity import Caller, owner_caller
from planwatch.core.store.store import Store
from planwatch.core.store.translate import TranslateRefused, TranslateResult, translate_change, translate_list

log = logging.getLogger(__name__)

# The harness tool each source's lists come from: the `source.tool` of the tasks made.
SOURCE_TOOLS: dict[str, str] = {
    "claude_todos": "TodoWrite",
    "claude_tasks": "TaskCreate",
    "claude_desktop": "mcp__ccd_turn__update_plan",
    "codex": "update_plan",
    "acp": "session/update",
    "gemini_todos": "write_todos",
    "opencode_todos": "todowrite",
    "qwen_todos": "todo_write",
    "pi_todos": "todo",
    "copilot_todos": "sql",
    "kilo_todos": "todowrite",
    "cline_tasks": "team_task",
}


class Mirror:
    """Feeds sessions' agent lists into the store when the person opted in.

    `settings` may be a Settings or a callable returning the current one, so a change
    made on the Settings screen applies to the next update. `store` is a Store or its
    folder; it is not touched while the setting is off.
    """

    def __init__(self, store: Store | Path | str, settings: Settings | Callable[[], Settings]) -> None:
        self._store_arg = store
        self._store: Store | None = store if isinstance(store, Store) else None
        self._settings = settings
        # What was last mirrored of each (session id, group key); the planId plans whose
        # removal is still to be written (a write that failed is tried again).
        self._last: dict[str, dict[str, PlanGroup]] = {}
        self._gone: dict[str, set[str]] = {}
        self._lock = threading.Lock()

    @property
    def settings(self) -> Settings:
        return self._settings() if callable(self._settings) else self._settings

    @settings.setter
    def settings(self, value: Settings | Callable[[], Settings]) -> None:
        self._settings = value

    @property
    def enabled(self) -> bool:
        return bool(self.settings.keep_plans_in_store)

    def _require_approval(self) -> bool:
        """The tools' rule for doing: this host's setting, or a shared store's team policy."""
        from planwatch.core.store.team import effective

        return effective(self.settings, self._get_store().root).require_approval

    def _get_store(self) -> Store:
        if self._store is None:
            self._store = Store(Path(self._store_arg))  # type: ignore[arg-type]
        return self._store

    def update(self, session: Session, plan: AgentPlan) -> TranslateResult | None:
        """Mirror the session's main plan and each ACP `planId`'s plan; None when off,
        unchanged, or nothing to mirror."""
        settings = self.settings
        with self._lock:
            if not settings.keep_plans_in_store:
                # Forget what was seen: once turned on, the next update writes it all.
                self._last.clear()
                self._gone.clear()
                return None
            groups = mirrored_groups(plan)
            gone = self._gone.pop(session.id, set())
            gone.update(k for k in self._last.get(session.id, {}) if k not in groups and k != "")
            gone.difference_update(groups)
            caller = owner_caller(settings, session.id)
            total: TranslateResult | None = None
            for key, group in groups.items():
                one = self._group(session, caller, key, group)
                if one is not None:
                    total = total or TranslateResult()
                    _merge(total, one)
            # A planId's plan the agent removed (plan_removed): its open steps are dropped,
            # as a whole list that no longer holds them (a plan done to the end drops nothing).
            for key in sorted(gone):
                one = self._removed(session, caller, key)
                if one is not None:
                    total = total or TranslateResult()
                    _merge(total, one)
            return total

    def _group(self, session: Session, caller: Caller, key: str, group: PlanGroup) -> TranslateResult | None:
        """One group written (or not): the main plan (key "") or an ACP planId's ("acp:<planId>")."""
        seen = self._last.setdefault(session.id, {})
        last = seen.get(key)
        if last == group:
            return None
        try:
            if group.source == "claude_tasks":
                result = self._changes(session, caller, last, group)
            else:
                entries = [(item.text, item.status, item.priority) for item in group.items]
                result = translate_list(
                    self._get_store(),
                    session.id,
                    session.title,
                    entries,
                    tool=SOURCE_TOOLS.get(group.source, group.source),
                    caller=caller,
                    plan_key=_plan_key(key),
                    require_approval=self._require_approval(),  # the tools' rule for doing
                )
        except (StoreError, OSError) as exc:
            # Not remembered as mirrored, so the next update tries again.
            log.warning("mirror: could not write session %s to the store: %s", session.id, exc)
            return None
        except TranslateRefused as exc:
            # Trying again cannot help (the message names ids only, never plan text).
            log.warning("mirror: %s", exc)
            seen[key] = group
            return None
        except ValueError as exc:
            # Bad input never crashes the app. A validation error's text would quote
            # the plan text, so only its kind is logged.
            log.warning("mirror: session %r was not written to the store (%s)", session.id, type(exc).__name__)
            seen[key] = group
            return None
        seen[key] = group
        return result

    def _removed(self, session: Session, caller: Caller, key: str) -> TranslateResult | None:
        try:
            result = translate_list(
                self._get_store(), session.id, session.title, [],
                tool=SOURCE_TOOLS["acp"], caller=caller, plan_key=_plan_key(key),
                require_approval=self._require_approval(),
            )  # fmt: skip
        except (StoreError, OSError) as exc:
            log.warning("mirror: could not write session %s to the store: %s", session.id, exc)
            self._gone.setdefault(session.id, set()).add(key)  # tried again next time
            return None
        except ValueError:
            result = None
        self._last.get(session.id, {}).pop(key, None)
        return result

    def forget(self, session_id: str) -> None:
        """Drop what is remembered of a session (it went away from the index)."""
        with self._lock:
            self._last.pop(session_id, None)
            self._gone.pop(session_id, None)

    def _changes(self, session: Session, caller: Caller, last: PlanGroup | None, group: PlanGroup) -> TranslateResult:
        """Claude tasks: one change per task that is new, edited, or gone since `last`."""
        store = self._get_store()
        tool = SOURCE_TOOLS["claude_tasks"]
        before: dict[str, PlanItem] = {}
        if last is not None and last.source == "claude_tasks":
            before = {item.task_id: item for item in last.items if item.task_id is not None}
        total = TranslateResult()
        require = self._require_approval()
        now_ids = set()
        for item in group.items:
            if item.task_id is None:
                continue
            now_ids.add(item.task_id)
            old = before.get(item.task_id)
            if old is not None and old.text == item.text and old.status == item.status:
                continue
            status = item.status if old is None or old.status != item.status else None
            text = item.text if old is None or old.text != item.text else None
            if old is None:
                text, status = item.text, item.status
            _merge(total, self._apply(store, session, caller, tool, item.task_id, text, status, require))
        # A task gone from the list was deleted by the agent (docs/reading.md, Claude Code: `deleted` removes it).
        for task_id in sorted(before.keys() - now_ids):
            _merge(total, self._apply(store, session, caller, tool, task_id, None, "deleted", require))
        return total

    @staticmethod
    def _apply(
        store: Store,
        session: Session,
        caller: Caller,
        tool: str,
        task_id: str,
        text: str | None,
        status: str | None,
        require_approval: bool,
    ) -> TranslateResult:
        try:
            return translate_change(
                store, session.id, session.title, tool=tool, source_id=task_id, text=text, status=status,
                caller=caller, require_approval=require_approval,
            )  # fmt: skip
        except TranslateRefused as exc:
            log.info("mirror: %s", exc)
            return TranslateResult()


ACP_KEY = "acp:"


def mirrored_groups(plan: AgentPlan) -> dict[str, PlanGroup]:
    """The groups kept in the store, by key: the main plan ("") and each ACP `planId`'s
    plan ("acp:<planId>"); a subagent's list stays its parent's business."""
    return {group.key: group for group in plan.groups if group.key == "" or group.key.startswith(ACP_KEY)}


def _plan_key(group_key: str) -> str | None:
    """A group's key → translate's `plan_key`: None for the main plan, else the planId."""
    return group_key[len(ACP_KEY) :] if group_key.startswith(ACP_KEY) else None


def _merge(total: TranslateResult, one: TranslateResult) -> None:
    total.plan_id = one.plan_id or total.plan_id
    total.plan_written = total.plan_written or one.plan_written
    total.added.extend(one.added)
    total.changed.extend(one.changed)
