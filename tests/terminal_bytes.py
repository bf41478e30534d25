"""What the app writes to the terminal, byte for byte, under Pilot.

Textual's headless driver writes nothing; `RecordingDriver` is that driver with one
change: it says it is not headless, so the app renders every screen update, bell and
clipboard escape through `write` as it would to a terminal, and keeps what it wrote.
"""

from __future__ import annotations

from typing import Any

from textual.drivers.headless_driver import HeadlessDriver


class RecordingDriver(HeadlessDriver):
    """The headless driver, recording what the app writes to the terminal."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.written: list[str] = []

    @property
    def is_headless(self) -> bool:
        return False

    def write(self, data: str) -> None:
        self.written.append(data)

    @property
    def output(self) -> str:
        return "".join(self.written)


def recording(app: Any) -> Any:
    """`app`, set to run on a RecordingDriver (use `app.run_test(headless=False)`)."""
    app.driver_class = RecordingDriver
    return app


def terminal_output(app: Any) -> str:
    """Everything the running app wrote to its terminal so far."""
    driver = app._driver
    assert isinstance(driver, RecordingDriver), "run the app with recording(app) and headless=False"
    return driver.output
