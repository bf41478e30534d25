"""One store service owned by the app: every screen uses the app's
one Store, settings object and writer, and hears of changes through its signals."""

from __future__ import annotations

import pytest
from app_transcripts import until
from textual.widgets import Switch

from planwatch.core.settings import Settings, load_settings
from planwatch.core.store.identity import Caller
from planwatch.core.store.store import Store
from planwatch.core.store.tools import run_tool
from planwatch.tui.app import make_app
from planwatch.tui.app_options import AppOptions
from planwatch.tui.screens.settings import SettingsScreen
from planwatch.tui.screens.store import StoreScreen

pytestmark = pytest.mark.asyncio


def app_on(isolated_env):  # type: ignore[no-untyped-def]
    empty = isolated_env.root / "no-transcripts"
    empty.mkdir(exist_ok=True)
    return make_app(
        AppOptions(
            roots=[empty],
            store_root=isolated_env.store,
            config_path=isolated_env.config,
            state_dir=isolated_env.state,
            follow=False,
        )
    )


async def open_store_view(app, pilot) -> StoreScreen:  # type: ignore[no-untyped-def]
    """Press t and wait until the store view shows t1."""
    await app.workers.wait_for_complete()
    await pilot.press("t")
    await until(
        pilot, lambda: isinstance(app.screen, StoreScreen) and "t1" in app.screen.snapshot.tasks, what="the store view"
    )
    assert isinstance(app.screen, StoreScreen)
    return app.screen


async def test_require_approval_switched_on_from_the_store_view_holds_in_the_store_view(isolated_env) -> None:
    # A bypass found once: Settings opened from the store view turns on
    # *Require approval*; the store view must then refuse to start an unapproved task,
    # as the app itself does.
    run_tool("task_add", Store(isolated_env.store), Settings(), Caller(by="dana"), {"title": "Unapproved"})
    app = app_on(isolated_env)
    answers: list[StoreScreen.ToolAnswered] = []

    def hook(message: object) -> None:
        if isinstance(message, StoreScreen.ToolAnswered):
            answers.append(message)

    async with app.run_test(size=(120, 36), message_hook=hook) as pilot:
        store_view = await open_store_view(app, pilot)
        await pilot.press("comma")
        await until(pilot, lambda: isinstance(app.screen, SettingsScreen), what="the settings")
        app.screen.query_one("#require-approval", Switch).value = True
        await pilot.press("ctrl+s")
        await until(pilot, lambda: app.screen is store_view, what="back in the store view")
        assert app.settings.require_approval and store_view.settings.require_approval
        assert load_settings(isolated_env.config).require_approval
        store_view.run_store_tool("task_set", {"task": "t1", "status": "doing"})
        await until(pilot, lambda: bool(answers), what="the tool's answer")
        assert answers[0].refused, answers[0].answer
        assert "approv" in answers[0].answer
        await app.workers.wait_for_complete()
        assert "approval required to start" in str(store_view.query_one("#store-summary").render())
    task = Store(isolated_env.store).read_task("t1")
    assert task is not None and task.status == "todo"


async def test_with_approval_off_the_same_move_is_made(isolated_env) -> None:
    # The positive twin: the path is alive, the refusal above is the setting's doing.
    run_tool("task_add", Store(isolated_env.store), Settings(), Caller(by="dana"), {"title": "Unapproved"})
    app = app_on(isolated_env)
    async with app.run_test(size=(120, 36)) as pilot:
        store_view = await open_store_view(app, pilot)
        store_view.run_store_tool("task_set", {"task": "t1", "status": "doing"})
        await until(pilot, lambda: store_view.snapshot.tasks["t1"].status == "doing", what="the move in the view")
    task = Store(isolated_env.store).read_task("t1")
    assert task is not None and task.status == "doing"


async def test_the_store_view_and_the_app_share_one_store_and_one_settings_object(isolated_env) -> None:
    app = app_on(isolated_env)
    async with app.run_test(size=(120, 36)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.press("t")
        await until(pilot, lambda: isinstance(app.screen, StoreScreen), what="the store view")
        screen = app.screen
        assert isinstance(screen, StoreScreen)
        assert screen.store is app.store_service.store
        assert screen.settings is app.settings
