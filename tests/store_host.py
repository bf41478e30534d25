"""The store view on a bare app styled and coloured as the app is (its stylesheet, the
theme's readable text colours, its high-contrast theme), with no index and no scan: what
a test measures of the store view is what the app lays out."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from browse_host import NOW
from textual.app import App

from planwatch.core.settings import Settings
from planwatch.tui import app as tui_app
from planwatch.tui.screens.store import StoreScreen
from planwatch.tui.store_service import StoreService
from planwatch.tui.theme import HIGH_CONTRAST, readable_variables


class StoreHost(App[None]):
    """The store view over the store at `root`, the app's high-contrast theme registered."""

    CSS_PATH = str(Path(tui_app.__file__).with_name("app.tcss"))

    def __init__(self, root: Path, clock: Callable[[], datetime] = lambda: NOW) -> None:
        super().__init__()
        self.store_service = StoreService(self, root, Settings(), clock=clock)
        self.register_theme(HIGH_CONTRAST)

    def get_css_variables(self) -> dict[str, str]:
        variables = super().get_css_variables()
        variables.update(readable_variables(variables))
        return variables

    def on_mount(self) -> None:
        self.store_service.start(watch=False)
        self.push_screen(StoreScreen(self.store_service))

    def on_unmount(self) -> None:
        self.store_service.stop()
