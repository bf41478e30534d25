"""What the store view's record forms (`TaskForm`, `PlanForm`) share: saving checks
that a title is given, then dismisses with the form's draft; cancelling dismisses with
None. Each form composes its own fields and builds its own draft.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar, Protocol, TypeVar

from textual import on
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static


class Titled(Protocol):
    @property
    def title(self) -> str: ...


DraftT = TypeVar("DraftT", bound=Titled)


class RecordForm(ModalScreen[DraftT | None]):
    """A modal that gathers one record's fields; the tools do every other check."""

    FORM_ID: ClassVar[str]
    """The form's container id; its error line is `#<FORM_ID>-error`, its title input `#title`."""
    NOUN: ClassVar[str]
    """What the form holds ("task", "plan"), for the error shown without a title."""

    draft: Callable[[], DraftT]
    """The form's current contents."""

    @on(Input.Submitted)
    @on(Button.Pressed, "#save")
    def action_submit(self) -> None:
        draft = self.draft()
        if not draft.title:
            self.query_one(f"#{self.FORM_ID}-error", Static).update(f"A {self.NOUN} needs a title.")
            self.query_one("#title", Input).focus()
            return
        self.dismiss(draft)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
