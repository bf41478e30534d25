"""Privacy (docs/app.md, The checklist): agent plan text lives in memory only. After ticks, settings
changes and quitting, no file planwatch wrote holds an agent item's text — unless the
person opted in to keeping plans in the store, where it then appears (which proves the
test can see it)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from app_transcripts import ClaudeTranscript, option_texts, until
from textual.widgets import Switch

from planwatch.tui.app import AppOptions, make_app
from planwatch.tui.screens.settings import SettingsScreen
from planwatch.tui.widgets.checklist import ChecklistView

pytestmark = pytest.mark.asyncio

MARKER = "ZQX-PRIVATE-STEP-7731"


def files_holding(marker: str, *folders: Path) -> list[Path]:
    found = []
    for folder in folders:
        if not folder.exists():
            continue
        for path in folder.rglob("*"):
            if path.is_file() and marker.encode() in path.read_bytes():
                found.append(path)
    return found


@pytest.fixture
def secret_session(isolated_env) -> ClaudeTranscript:
    transcript = ClaudeTranscript(isolated_env.claude, "/home/dev/secret", at=datetime.now(UTC) - timedelta(minutes=3))
    transcript.custom_title("Secret work").todo_write(
        [(f"Rotate the {MARKER} key", "in_progress"), (f"Audit {MARKER} logs", "pending")]
    )
    return transcript


async def use_the_app(isolated_env, *, opt_in: bool) -> None:
    """Tick, untick, add an own item, flip settings on the Settings screen, quit."""
    app = make_app(AppOptions(config_path=isolated_env.config))
    async with app.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: app.scan_done is not None and app.screen.selected_id, what="the scan")
        await pilot.pause()
        assert any(MARKER in row for row in option_texts(app.screen.query_one("#checklist", ChecklistView)))
        await pilot.press("tab", "space", "j", "space", "space", "u")
        await pilot.press("a", "m", "i", "n", "e", "enter")
        await until(pilot, lambda: "[ ] mine" in option_texts(app.screen.query_one("#checklist")), what="own item")
        await pilot.press("comma")
        await until(pilot, lambda: isinstance(app.screen, SettingsScreen), what="settings")
        screen = app.screen
        screen.query_one("#require-approval", Switch).value = True
        if opt_in:
            screen.query_one("#keep-plans-in-store", Switch).value = True
        await pilot.press("ctrl+s")
        await until(pilot, lambda: app.screen.id == "browse", what="settings saved")
        await until(pilot, lambda: app.settings.require_approval, what="settings applied")
        if opt_in:
            await until(
                pilot,
                lambda: bool(files_holding(MARKER, isolated_env.store)),
                what="the opt-in mirror",
            )
        await app.workers.wait_for_complete()
        await pilot.press("q")
    assert app.return_code == 0


async def test_no_file_planwatch_wrote_holds_agent_plan_text(secret_session, isolated_env) -> None:
    await use_the_app(isolated_env, opt_in=False)
    folders = (isolated_env.data, isolated_env.state, isolated_env.config.parent, isolated_env.store)
    written = [p for folder in folders if folder.exists() for p in folder.rglob("*") if p.is_file()]
    # planwatch did write: overrides, settings, the own item.
    assert (isolated_env.state / "overrides.json") in written
    assert isolated_env.config in written
    assert any(p.parent.name == "tasks" for p in written)
    assert files_holding(MARKER, *folders) == []


async def test_with_the_opt_in_the_plan_text_does_reach_the_store(secret_session, isolated_env) -> None:
    await use_the_app(isolated_env, opt_in=True)
    holding = files_holding(MARKER, isolated_env.store)
    assert holding and all(p.is_relative_to(isolated_env.store) for p in holding)
    # Still never in the overrides, the settings or the data folder.
    assert files_holding(MARKER, isolated_env.state, isolated_env.config.parent) == []


async def test_with_the_opt_in_on_at_start_every_sessions_list_is_kept_in_the_store(
    secret_session, isolated_env
) -> None:
    """docs/store.md, Agents' lists in the store: with the opt-in already on, each session's list reaches the store once the
    first scan ends, not only lists that change while the app runs."""
    from planwatch.core.store.store import Store

    isolated_env.config.write_text("keepPlansInStore: true\n")
    app = make_app(AppOptions(config_path=isolated_env.config, follow=False))
    async with app.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: app.scan_done is not None, what="the scan")
        await app.workers.wait_for_complete()
    snapshot = Store(isolated_env.store).load()
    [plan] = snapshot.plans.values()
    assert plan.scope is not None and (plan.scope.kind, plan.scope.value) == ("session", secret_session.session_id)
    assert sorted(t.title for t in snapshot.tasks.values()) == [f"Audit {MARKER} logs", f"Rotate the {MARKER} key"]


async def test_the_warm_start_cache_holds_no_plan_text_and_no_title(isolated_env) -> None:
    """After a run with the marker in every agent item and the title (and an
    append while following), the cache the app wrote holds offsets and hashes only; the
    next start reads the marker back from the transcript, not from the cache."""
    from planwatch.core import paths

    transcript = ClaudeTranscript(isolated_env.claude, "/home/dev/secret", at=datetime.now(UTC) - timedelta(minutes=3))
    transcript.custom_title(f"{MARKER} title").todo_write([(f"Rotate the {MARKER} key", "in_progress")])
    app = make_app(AppOptions(config_path=isolated_env.config))
    async with app.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: app.scan_done is not None and app.following, what="the scan")
        transcript.todo_write([(f"Rotate the {MARKER} key", "completed"), (f"Audit {MARKER} logs", "pending")])
        await until(
            pilot,
            lambda: any("Audit" in row for row in option_texts(app.screen.query_one("#checklist", ChecklistView))),
            what="the append",
        )
        await pilot.press("q")
    cache = [p for p in paths.cache_dir().rglob("*") if p.is_file() and p.stat().st_size]
    assert cache, "the app wrote no warm-start cache"
    assert files_holding(MARKER, paths.cache_dir()) == []
    assert files_holding("Rotate", paths.cache_dir()) == []
    # Its summary of the file: a hash of the facts, then per group its key, its source
    # and each item's status as places in fixed tables, partial as 0/1, then the last
    # activity as a number (microseconds since the epoch), never as text.
    import json

    from planwatch.core.transcripts import warmcache, warmsummary

    [row] = json.loads(warmcache.cache_file().read_bytes())["files"].values()
    [[facts_hash, groups, when]] = row[9]  # the cache row's last field: its summary
    assert type(facts_hash) is int
    assert type(when) is int
    # (as the first scan saw the list, or after the append when the app wrote it again)
    done, doing, pending = (warmsummary.SUMMARY_STATUSES.index(s) for s in ("completed", "in_progress", "pending"))
    [[key, source, partial, statuses]] = groups
    assert (key, source, partial) == ("", warmsummary.SUMMARY_SOURCES.index("claude_todos"), 0)
    assert statuses in ([doing], [done, pending])
    # The next start is warm and shows the same text, read from the transcript.
    from planwatch.core.index import SessionIndex

    index = SessionIndex()
    index.scan()
    [entry] = index.entries()
    assert entry.session.title == f"{MARKER} title"
    assert entry.plan.main is not None and [i.text for i in entry.plan.main.items] == [
        f"Rotate the {MARKER} key",
        f"Audit {MARKER} logs",
    ]
