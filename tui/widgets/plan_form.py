"""The modals of the store view's plan actions: add or edit a plan (`PlanForm`), and
ask before acting again on what is already done (`ConfirmScreen`).

Like the task form, the plan form only gathers input: its `PlanDraft.changes()` are the
fields to hand to `plan_create` or `plan_set`, and the tools do every check.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Select, Static

from planwatch.core.store.schema import PLAN_STATUSES
from planwatch.core.text import quoted
from planwatch.tui.widgets.record_form import RecordForm

if TYPE_CHECKING:
    from planwatch.core.store.schema import PlanRecord


@dataclass(frozen=True)
class PlanDraft:
    """What the plan form holds, and the plan it edits (None when creating one)."""

    plan_id: str | None
    title: str
    goal: str | None = None
    status: str | None = None
    original: dict[str, Any] = field(default_factory=dict)

    def values(self) -> dict[str, Any]:
        # A new plan starts as a draft (plan_create takes no status); editing may move it.
        out: dict[str, Any] = {"title": self.title, "goal": self.goal}
        if self.plan_id is not None and self.status is not None:
            out["status"] = self.status
        return out

    def changes(self) -> dict[str, Any]:
        """For plan_create: every field given; for plan_set: only the fields that changed."""
        values = self.values()
        if self.plan_id is None:
            return {k: v for k, v in values.items() if v not in (None, "")}
        return {k: v for k, v in values.items() if self.original.get(k) != v}


class PlanForm(RecordForm[PlanDraft]):
    """Create a plan (`plan`=None) or edit one; dismisses with a `PlanDraft`, or None."""

    FORM_ID = "plan-form"
    NOUN = "plan"
    DEFAULT_CSS = """
    PlanForm { align: center middle; }
    PlanForm #plan-form { width: 72; max-width: 100%; height: auto; border: round $primary;
        background: $surface; padding: 0 1; }
    PlanForm #plan-form-title { text-style: bold; color: $text-accent; padding: 0 0 1 0; }
    PlanForm .row { height: auto; }
    PlanForm .row Label { width: 12; padding: 1 1 0 0; }
    PlanForm .row Input, PlanForm .row Select { width: 1fr; }
    PlanForm #plan-form-error { color: $text-error; height: auto; }
    PlanForm #plan-form-buttons { height: auto; padding: 1 0 0 0; }
    PlanForm #plan-form-buttons Button { margin: 0 2 0 0; }
    """
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", tooltip="Close without saving"),
        Binding("ctrl+s", "submit", "Save", tooltip="Save the plan"),
    ]

    def __init__(self, plan: PlanRecord | None = None) -> None:
        """`plan`: the record edited; None for a new plan."""
        super().__init__()
        self._record = plan

    def _original(self) -> dict[str, Any]:
        plan = self._record
        if plan is None:
            return {}
        # The goal is the record's body: compared as the form shows it, trimmed.
        return PlanDraft(plan.id, plan.title, (plan.goal or "").strip() or None, plan.status).values()

    def compose(self) -> ComposeResult:
        plan = self._record
        with Vertical(id="plan-form"):
            # Text of the record is untrusted: no markup anywhere in the form.
            yield Static(
                "New plan" if plan is None else f"Edit plan {plan.id} {quoted(plan.title, 50)}",
                id="plan-form-title",
                markup=False,
            )
            with Horizontal(classes="row"):
                yield Label("Title")
                yield Input(
                    self.shown("title", plan.title) if plan else "", placeholder="what the plan is for", id="title"
                )
            with Horizontal(classes="row"):
                yield Label("Goal")
                yield Input(
                    self.shown("goal", (plan.goal or "").strip()) if plan else "",
                    placeholder="done means…",
                    id="goal",
                )
            if plan is not None:
                with Horizontal(classes="row"):
                    yield Label("Status")
                    yield Select([(s, s) for s in PLAN_STATUSES], value=plan.status, allow_blank=False, id="status")
            yield Static("", id="plan-form-error", markup=False)
            with Horizontal(id="plan-form-buttons"):
                yield Button("Save", variant="primary", id="save")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        title = self.query_one("#title", Input)
        title.focus()
        title.cursor_position = len(title.value)

    def draft(self) -> PlanDraft:
        goal = self.taken("goal").strip()
        return PlanDraft(
            plan_id=self._record.id if self._record is not None else None,
            title=self.taken("title").strip(),
            # Blank means no goal: plan_set removes a field given as null.
            goal=goal or None,
            status=str(self.query_one("#status", Select).value) if self._record is not None else None,
            original=self._original(),
        )


class ConfirmScreen(ModalScreen[bool]):
    """A yes/no question; dismisses with True only on yes (y or the button)."""

    DEFAULT_CSS = """
    ConfirmScreen { align: center middle; }
    ConfirmScreen #confirm { width: 64; max-width: 100%; height: auto; border: round $warning;
        background: $surface; padding: 0 1; }
    ConfirmScreen #confirm-question { padding: 0 0 1 0; }
    ConfirmScreen #confirm-buttons { height: auto; }
    ConfirmScreen #confirm-buttons Button { margin: 0 2 0 0; }
    """
    BINDINGS = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n,escape", "answer(False)", "No"),
    ]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm"):
            yield Static(self.question, id="confirm-question", markup=False)
            with Horizontal(id="confirm-buttons"):
                yield Button("Yes (y)", variant="warning", id="yes")
                yield Button("No (n)", id="no")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
