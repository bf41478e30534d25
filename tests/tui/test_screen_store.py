"""The store view (docs/app.md, The store view): plans with tasks, filters, approve, review, add, edit —
all through the store's tools — broken records listed, live updates from disk."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from app_transcripts import until
from textual import on
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Checkbox, DataTable, Input, Select
from toasts import Toasts

from planwatch.core.settings import Settings
from planwatch.core.store.identity import Caller
from planwatch.core.store.schema import TaskRecord
from planwatch.core.store.store import Store
from planwatch.core.user_directory import UserDirectory, UserEntry
from planwatch.tui.screens.store import StoreScreen
from planwatch.tui.store_service import StoreService
from planwatch.tui.widgets.task_form import ReviewForm, TaskDraft, TaskForm

NOW = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


class Host(App[None]):
    """A bare app owning the store service the store view uses, recording tool answers."""

    def __init__(
        self, root: Path, settings: Settings | None = None, caller: Caller | None = None, watch: bool = False
    ) -> None:
        super().__init__()
        self.store_service = StoreService(
            self, root, settings or Settings(), clock=lambda: NOW, caller=caller or Caller(by="dana")
        )
        self.watch = watch
        self.answers: list[StoreScreen.ToolAnswered] = []

    def on_mount(self) -> None:
        self.store_service.start(watch=self.watch)
        self.push_screen(StoreScreen(self.store_service))

    def on_unmount(self) -> None:
        self.store_service.stop()

    @on(StoreScreen.ToolAnswered)
    def _answered(self, event: StoreScreen.ToolAnswered) -> None:
        self.answers.append(event)


async def settle(app: App[None], pilot: Pilot[None]) -> None:
    """Wait until every worker (tool call, then the reload it starts) has finished."""
    for _ in range(5):
        await app.workers.wait_for_complete()
        await pilot.pause()
    await app.workers.wait_for_complete()


def row_keys(app: App[None]) -> list[str]:
    table = app.screen.query_one("#store-table", DataTable)
    return [str(row.key.value) for row in table.ordered_rows]


async def move_to(app: App[None], pilot: Pilot[None], key: str) -> None:
    table = app.screen.query_one("#store-table", DataTable)
    table.move_cursor(row=table.get_row_index(key))
    await pilot.pause()


@pytest.fixture
def store_root(copy_fixture) -> Path:  # type: ignore[no-untyped-def]
    return copy_fixture("views/store")


@pytest.mark.asyncio
async def test_store_view_groups_tasks_under_their_plans_then_tasks_without_plan(store_root: Path) -> None:
    app = Host(store_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        assert row_keys(app) == ["p1", "t1", "t2", "t3", "t4", "p2", "t5", "group:none", "t6", "t7"]
        summary = str(app.screen.query_one("#store-summary").render())
        assert "2 plans · 7 tasks · 1 unreadable" in summary


@pytest.mark.asyncio
async def test_store_view_lists_broken_record_with_file_and_problem(store_root: Path) -> None:
    app = Host(store_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        problems = str(app.screen.query_one("#store-problems").render())
        assert "tasks/t8.md: status must be todo, doing, blocked, review, done, or dropped." in problems
        assert "t8" not in row_keys(app), "a broken record is left out of the list"


@pytest.mark.asyncio
async def test_store_approve_task_stamps_approved_through_task_approve(store_root: Path) -> None:
    app = Host(store_root, caller=Caller(by="lee", session="s-42"))
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await move_to(app, pilot, "t4")
        await pilot.press("v")
        await settle(app, pilot)
        assert [(a.tool, a.refused) for a in app.answers] == [("task_approve", False)]
        assert app.answers[0].answer == "t4 todo medium Switch traffic behind the flag"
        assert app.screen.current_key() == "t4", "the cursor stays on the record after the reload"
    task = Store(store_root).read_task("t4")
    assert task is not None and task.approved is not None
    assert (task.approved.by, task.approved.in_, task.approved.at) == ("lee", "s-42", NOW)


@pytest.mark.asyncio
async def test_store_approve_plan_through_plan_approve(store_root: Path) -> None:
    app = Host(store_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await move_to(app, pilot, "p2")
        await pilot.press("v")
        await settle(app, pilot)
    plan = Store(store_root).read_plan("p2")
    assert plan is not None and plan.approved is not None and plan.approved.by == "dana"


@pytest.mark.asyncio
async def test_store_approve_refused_without_grant_shows_tool_message(store_root: Path) -> None:
    directory = UserDirectory(users={"lee": UserEntry(token="sha256:" + "0" * 64, roles=["lead"])})
    app = Host(store_root, settings=Settings(users=directory), caller=Caller(by="dana", user=None))
    told = Toasts()
    async with app.run_test(message_hook=told, size=(120, 36), notifications=True) as pilot:
        await settle(app, pilot)
        await move_to(app, pilot, "t4")
        await pilot.press("v")
        await settle(app, pilot)
        assert len(app.answers) == 1 and app.answers[0].refused
        message = app.answers[0].answer
        assert "task_approve" in message and "task:approve" in message, message
        assert [n.message for n in told.seen] == [message]
    task = Store(store_root).read_task("t4")
    assert task is not None and task.approved is None


@pytest.mark.asyncio
@pytest.mark.parametrize(("key", "verdict"), [("y", "approved"), ("c", "changes")])
async def test_store_review_task_with_verdict(store_root: Path, key: str, verdict: str) -> None:
    app = Host(store_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await move_to(app, pilot, "t3")
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, ReviewForm)
        await pilot.press(key)
        await settle(app, pilot)
        assert isinstance(app.screen, StoreScreen)
    task = Store(store_root).read_task("t3")
    assert task is not None and task.reviewed is not None
    assert (task.reviewed.verdict, task.reviewed.by, task.status) == (verdict, "dana", "review")


@pytest.mark.asyncio
async def test_store_add_task_through_form_defaults_to_the_plan_under_cursor(store_root: Path) -> None:
    app = Host(store_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await move_to(app, pilot, "t2")
        await pilot.press("a")
        await pilot.pause()
        assert isinstance(app.screen, TaskForm)
        await pilot.press(*"Load test the new flow")
        app.screen.query_one("#labels", Input).value = "perf, api"
        await pilot.press("enter")
        await settle(app, pilot)
        assert app.answers[-1].tool == "task_add" and not app.answers[-1].refused, app.answers
        # t8 is a broken file: ids are never reused, so the new task is t9.
        assert app.answers[-1].answer == "t9 todo medium Load test the new flow"
        assert "t9" in row_keys(app)
        assert row_keys(app).index("t9") < row_keys(app).index("p2"), "listed in its plan's group"
    task = Store(store_root).read_task("t9")
    assert task is not None
    assert (task.plan, task.labels, task.created.by if task.created else None) == ("p1", ("perf", "api"), "dana")


@pytest.mark.asyncio
async def test_store_add_task_without_title_stays_in_form(store_root: Path) -> None:
    app = Host(store_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await pilot.press("a")
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, TaskForm)
        assert "needs a title" in str(app.screen.query_one("#task-form-error").render())
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.answers == []
    assert sorted(p.name for p in (store_root / "tasks").iterdir()) == [f"t{n}.md" for n in range(1, 9)]


@pytest.mark.asyncio
async def test_store_edit_task_sends_only_changed_fields_through_task_set(store_root: Path) -> None:
    path = store_root / "tasks" / "t6.md"
    path.write_text(path.read_text().replace("note:", "# kept by hand\nnote:"), encoding="utf-8")
    app = Host(store_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await move_to(app, pilot, "t6")
        await pilot.press("e")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, TaskForm)
        assert form.query_one("#note", Input).value == "waiting for the new theme"
        form.query_one("#priority", Select).value = "high"
        form.query_one("#status", Select).value = "todo"
        assert form.draft().changes() == {"priority": "high", "status": "todo"}
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert app.answers[-1].answer == "t6 todo high Update the README screenshots"
    text = path.read_text(encoding="utf-8")
    assert "# kept by hand" in text, "a hand comment survives an edit made in the app"
    assert "note: waiting for the new theme" in text


@pytest.mark.asyncio
async def test_store_edit_to_doing_refused_when_approval_required(store_root: Path) -> None:
    app = Host(store_root, settings=Settings(require_approval=True))
    told = Toasts()
    async with app.run_test(message_hook=told, size=(120, 36), notifications=True) as pilot:
        await settle(app, pilot)
        await move_to(app, pilot, "t6")
        await pilot.press("e")
        await pilot.pause()
        app.screen.query_one("#status", Select).value = "doing"
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert app.answers[-1].refused
        assert app.answers[-1].answer.startswith("Invalid task_set input:")  # the tool's own answer
        # What the person reads names no tool.
        shown = [str(n.message) for n in told.seen]
        assert shown and shown[-1].startswith("Task not saved: ") and "task_set" not in shown[-1], shown
    task = Store(store_root).read_task("t6")
    assert task is not None and task.status == "blocked"


@pytest.mark.asyncio
async def test_store_filter_ready_shows_only_ready_tasks(store_root: Path) -> None:
    app = Host(store_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        app.screen.query_one("#filter-ready", Checkbox).value = True
        await settle(app, pilot)
        # t4 waits on t2 and t3; t5 is todo with nothing before it.
        assert row_keys(app) == ["p2", "t5"]
        assert "filtered: ready" in str(app.screen.query_one("#store-summary").render())
        await pilot.press("x")
        await settle(app, pilot)
        assert len(row_keys(app)) == 10


@pytest.mark.asyncio
async def test_store_filter_status_by_and_since_go_through_task_list(store_root: Path) -> None:
    app = Host(store_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        app.screen.query_one("#filter-status", Select).value = "todo"
        await settle(app, pilot)
        assert [k for k in row_keys(app) if k.startswith("t")] == ["t4", "t5"]
        await pilot.press("x")
        await settle(app, pilot)
        by = app.screen.query_one("#filter-by", Input)
        by.focus()
        by.value = "claude"
        await pilot.press("enter")
        await settle(app, pilot)
        assert row_keys(app) == ["p2", "t5"]
        since = app.screen.query_one("#filter-since", Input)
        by.value = ""
        since.value = "2026-11-29"
        since.focus()
        await pilot.press("enter")
        await settle(app, pilot)
        # Stamps on or after the 29th: t3 finished, t5 created, t6 created.
        assert [k for k in row_keys(app) if k.startswith("t")] == ["t3", "t5", "t6"]


@pytest.mark.asyncio
async def test_store_filter_refused_input_shown_with_tool_message(store_root: Path) -> None:
    app = Host(store_root)
    told = Toasts()
    async with app.run_test(message_hook=told, size=(120, 36), notifications=True) as pilot:
        await settle(app, pilot)
        since = app.screen.query_one("#filter-since", Input)
        since.focus()
        since.value = "last tuesday"
        await pilot.press("enter")
        await settle(app, pilot)
        messages = [n.message for n in told.seen]
        # In words, not the tool's name (the CLI keeps "Invalid task_list input: since …").
        assert len(messages) == 1 and messages[0].startswith("Filter not applied: since"), messages
        assert "task_list" not in messages[0]
        assert "t1" in row_keys(app), "a refused filter leaves the list whole"


@pytest.mark.asyncio
async def test_store_hostile_titles_render_literally(copy_fixture) -> None:  # type: ignore[no-untyped-def]
    root = copy_fixture("views/store-hostile")
    app = Host(root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        table = app.screen.query_one("#store-table", DataTable)
        cells = [cell for row in table.ordered_rows for cell in table.get_row(row.key)]
        plain = " ".join(cell.plain for cell in cells)
        assert "[bold]not bold[/bold] [link=file:///etc/passwd]not a link[/" in plain
        assert "[bold red]Plan[/] with [link=https://evil.example]a link[/" in plain
        assert "#[blink]x[/blink]" in plain
        assert "\x1b" not in plain and "\\x1b[31mred by escape" in plain
        # The detail line under the table shows the whole title, literally too.
        detail = str(app.screen.query_one("#store-detail").render())
        assert "[bold red]Plan[/] with [link=https://evil.example]a link[/link]" in detail
        assert "by [reverse]mallory[/reverse]" in detail
        assert all(not cell.spans or cell.plain.strip() in ("▶ active", "○ todo", "◐ doing", "p1") for cell in cells), (
            "no markup in a record's text becomes a style"
        )


@pytest.mark.asyncio
async def test_store_empty_says_what_to_do(isolated_env) -> None:  # type: ignore[no-untyped-def]
    app = Host(isolated_env.store)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        assert row_keys(app) == []
        text = str(app.screen.query_one("#store-empty").render())
        assert "The store is empty. Press a to add a task" in text


@pytest.mark.asyncio
async def test_store_view_updates_live_when_another_writer_adds_a_task(store_root: Path) -> None:
    app = Host(store_root, watch=True)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        # Another process's write: the store API straight to disk, not through the view.
        Store(store_root).add_task(lambda i: TaskRecord(id=i, title="Added elsewhere", status="todo"))
        await until(pilot, lambda: "t9" in row_keys(app), what="the task another writer added")
        # A hand edit (an editor writing the file in place) shows too.
        path = store_root / "tasks" / "t9.md"
        path.write_text(path.read_text().replace("status: todo", "status: done"), encoding="utf-8")
        await until(pilot, lambda: app.screen.snapshot.tasks["t9"].status == "done", what="the hand edit")


@pytest.mark.asyncio
async def test_store_view_back_leaves_the_screen_and_stops_listening(store_root: Path) -> None:
    # The watcher is the app's (its store service's): leaving the view stops the view
    # listening, while the app goes on hearing other writers.
    app = Host(store_root, watch=True)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, StoreScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, StoreScreen)
        Store(store_root).add_task(lambda i: TaskRecord(id=i, title="Added elsewhere", status="todo", session="s-1"))
        await until(
            pilot, lambda: "s-1" in app.store_service.summary.tasks_by_session, what="the app hearing the write"
        )
        assert [t.id for t in app.store_service.summary.tasks_by_session["s-1"]] == ["t9"]
        assert app.store_service.watching
        await settle(app, pilot)
        assert "t9" not in screen.snapshot.tasks


@pytest.mark.asyncio
async def test_store_view_in_a_side_pane_keeps_id_status_title(store_root: Path) -> None:
    app = Host(store_root)
    async with app.run_test(size=(40, 30)) as pilot:
        await settle(app, pilot)
        table = app.screen.query_one("#store-table", DataTable)
        assert [str(key.value) for key in table.columns] == ["id", "status", "title"]
        assert row_keys(app)[:2] == ["p1", "t1"]
        assert not app.screen.query_one("#store-detail").display
        assert app.screen.query_one("#store-problems").display, "broken records stay visible in a pane"
        await pilot.resize_terminal(120, 36)
        await settle(app, pilot)
        assert [str(key.value) for key in table.columns] == ["id", "status", "priority", "title", "approved", "notes"]
        assert app.screen.query_one("#store-detail").display


@pytest.mark.asyncio
async def test_store_unreadable_folder_is_reported_not_fatal(tmp_path: Path) -> None:
    root = tmp_path / "store"
    root.write_text("a file where the store folder should be", encoding="utf-8")
    app = Host(root)
    told = Toasts()
    async with app.run_test(message_hook=told, size=(120, 36), notifications=True) as pilot:
        await settle(app, pilot)
        assert isinstance(app.screen, StoreScreen)

        def said() -> bool:
            return any("cannot be read" in n.message or "not a directory" in n.message.lower() for n in told.seen)

        await until(pilot, said, what="the store's problem said")
        assert row_keys(app) == []
        assert "cannot be read" in str(app.screen.query_one("#store-empty").render())


def test_task_draft_changes_for_add_leave_out_empty_fields() -> None:
    draft = TaskDraft(task_id=None, title="Write docs", priority="low", labels=(), blocked_by=("t1",))
    assert draft.changes() == {"title": "Write docs", "priority": "low", "blockedBy": ["t1"]}


def test_task_draft_changes_for_edit_send_null_to_remove_a_field() -> None:
    original = TaskDraft(task_id="t6", title="A", status="todo", note="old note").values()
    draft = TaskDraft(task_id="t6", title="A", status="todo", note=None, original=original)
    # task_set removes a field given as null (core.store.tools).
    assert draft.changes() == {"note": None}


@pytest.mark.asyncio
async def test_task_form_plan_choices_show_hostile_titles_literally(copy_fixture) -> None:  # type: ignore[no-untyped-def]
    root = copy_fixture("views/store-hostile")
    app = Host(root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await move_to(app, pilot, "t2")
        await pilot.press("a")
        await pilot.pause()
        select = app.screen.query_one("#plan", Select)
        assert select.value == "p1"
        shown = str(select.query_one("SelectCurrent").query_one("#label").render())
        assert "[bold red]Plan[/] with [link=https://evil.example]a link[/link]"[:40] in shown


@pytest.mark.asyncio
async def test_store_escape_from_a_filter_returns_to_the_table(store_root: Path) -> None:
    app = Host(store_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await pilot.press("f")
        assert app.focused is app.screen.query_one("#filter-status")
        await pilot.press("escape")
        assert app.focused is app.screen.query_one("#store-table")
        assert isinstance(app.screen, StoreScreen), "the first escape leaves the filter, not the view"


@pytest.mark.asyncio
async def test_store_keys_are_in_the_command_palette(store_root: Path) -> None:
    app = Host(store_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await move_to(app, pilot, "t4")
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"Approve")
        await settle(app, pilot)
        await pilot.press("enter")
        await settle(app, pilot)
        assert [(a.tool, a.refused) for a in app.answers] == [("task_approve", False)]
    task = Store(store_root).read_task("t4")
    assert task is not None and task.approved is not None


@pytest.mark.asyncio
async def test_store_edit_dialog_names_the_record_it_edits(store_root: Path) -> None:
    """A title that names the item, not only its id."""
    app = Host(store_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await move_to(app, pilot, "t6")
        await pilot.press("e")
        await pilot.pause()
        heading = app.screen.query_one("#task-form-title").render()
        assert str(heading) == "Edit t6 “Update the README screenshots”"


# A hand-edited record's text aimed at the person editing it: OSC 52 (writes the
# clipboard), a zero-width space, a right-to-left override, a CSI colour.
HOSTILE_TITLE = "Ship \x1b]52;c;ZWNobyBoaQ==\x07 it\u200b\u202eevil"
HOSTILE_NOTE = "note \x1b[31mred"
HOSTILE_GOAL = "goal \x1b]0;pwned\x07"


@pytest.mark.asyncio
async def test_store_edit_forms_show_a_records_text_as_safe_text_and_keep_it_unless_changed(tmp_path: Path) -> None:
    from terminal_bytes import recording, terminal_output

    from planwatch.tui.widgets.plan_form import PlanForm

    root = tmp_path / "store"
    (root / "tasks").mkdir(parents=True)
    (root / "plans").mkdir()
    (root / "tasks/t1.md").write_text(
        "---\nid: t1\n"
        f"title: {json.dumps(HOSTILE_TITLE)}\nstatus: todo\npriority: medium\n"
        f"labels: [{json.dumps('x' + chr(0x1B) + '[5m')}]\nnote: {json.dumps(HOSTILE_NOTE)}\n"
        "created:\n  at: 2026-11-29T08:01:00.000Z\n  by: mallory\n---\n",
        encoding="utf-8",
    )
    (root / "plans/p1.md").write_text(
        f"---\nid: p1\ntitle: {json.dumps(HOSTILE_TITLE)}\nstatus: active\n"
        f"created:\n  at: 2026-11-29T08:00:00.000Z\n  by: mallory\n---\n{HOSTILE_GOAL}\n",
        encoding="utf-8",
    )
    app = recording(Host(root))
    async with app.run_test(headless=False, size=(140, 36)) as pilot:
        await settle(app, pilot)
        await move_to(app, pilot, "t1")
        drawn_before = len(terminal_output(app))
        await pilot.press("e")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, TaskForm)
        values = {name: form.query_one(f"#{name}", Input).value for name in ("title", "labels", "note")}
        assert values == {
            "title": "Ship \\x1b]52;c;ZWNobyBoaQ==\\x07 it\\u200b\\u202eevil",
            "labels": "x\\x1b[5m",
            "note": "note \\x1b[31mred",
        }
        assert form.draft().changes() == {}, "a form opened and saved as it was rewrites nothing"
        form.query_one("#note", Input).value = "checked"
        assert form.draft().changes() == {"note": "checked"}
        await pilot.press("escape")
        await pilot.pause()
        await move_to(app, pilot, "p1")
        await pilot.press("e")
        await pilot.pause()
        plan_form = app.screen
        assert isinstance(plan_form, PlanForm)
        assert plan_form.query_one("#title", Input).value == "Ship \\x1b]52;c;ZWNobyBoaQ==\\x07 it\\u200b\\u202eevil"
        assert plan_form.query_one("#goal", Input).value == "goal \\x1b]0;pwned\\x07"
        assert plan_form.draft().changes() == {}
        await pilot.pause()
        output = terminal_output(app)[drawn_before:]
    # What reached the terminal while the forms were open: no escape of the records'.
    assert "\x1b]52" not in output and "\x1b]0;" not in output and "\u202e" not in output and "\u200b" not in output
    assert "\x1b[5m" not in output
    assert (root / "tasks/t1.md").read_text(encoding="utf-8").count(json.dumps(HOSTILE_TITLE)) == 1
