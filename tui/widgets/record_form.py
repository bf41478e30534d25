"""What the store view's record forms (`TaskForm`, `PlanForm`) share: saving checks
that a title is given, then dismisses with the form's draft; cancelling dismisses with
None. Each form composes its own fields and builds its own draft.

A record's text is untrusted: a field shows it as safe text (`shown`: escapes, never
the raw control, format or invisible characters), and a field left as shown gives the
record's own value back (`taken`), so opening a form and saving never rewrites a title
into its escaped form.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar, Protocol, TypeVar

from textual import on
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from planwatch.core.text import kept_unless_typed, safe_text


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

    def __init__(self) -> None:
        super().__init__()
        self._raw: dict[str, str] = {}  # field id → the record's own text it opened with

    def shown(self, field_id: str, raw: str) -> str:
        """What the field `field_id` opens with for the record's text `raw`: one line of
        safe text; `raw` is kept to be given back while the field holds just that."""
        text = safe_text(raw, single_line=True)
        self._raw[field_id] = raw
        return text

    def taken(self, field_id: str) -> str:
        """The field's value for the draft: the record's own text while the field still
        holds what `shown` put in it, else what the person typed."""
        return kept_unless_typed(self.query_one(f"#{field_id}", Input).value, self._raw.get(field_id))

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
