"""The notifications an app was asked to show, seen through Textual's public `Notify`
message: pass a `Toasts` as `run_test(message_hook=...)` and read what it kept."""

from __future__ import annotations

from textual.message import Message
from textual.notifications import Notification, Notify


class Toasts:
    """A message hook keeping every notification posted to the app, in order (expired
    ones too: a test asks what was said, not what is still on screen)."""

    def __init__(self) -> None:
        self.seen: list[Notification] = []

    def __call__(self, message: Message) -> None:
        if isinstance(message, Notify) and all(message.notification is not n for n in self.seen):
            self.seen.append(message.notification)

    @property
    def messages(self) -> list[str]:
        """The text of each notification."""
        return [str(n.message) for n in self.seen]

    @property
    def titles(self) -> list[str]:
        return [n.title or "" for n in self.seen]
