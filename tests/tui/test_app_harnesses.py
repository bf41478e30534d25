"""Gemini CLI and OpenCode sessions in the app (docs/reading.md): the pane follows them live like
any other harness — an appended record or an inserted row shows within a second — and
a database that cannot be read is said once while the other harnesses are listed; the
demo holds a session of every harness planwatch reads."""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import get_args

import pytest
from app_transcripts import files_holding, option_texts, until
from harness_app import recording_pager
from opencode_db import OpenCodeDb
from toasts import Toasts

from planwatch.core import paths
from planwatch.core.model import Harness
from planwatch.tui.app import AppOptions, make_app
from planwatch.tui.widgets.checklist import ChecklistView

pytestmark = pytest.mark.asyncio

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "fixtures/samples/gemini-cli-session.jsonl"


def rows(app) -> list[str]:  # type: ignore[no-untyped-def]
    return option_texts(app.screen.query_one("#checklist", ChecklistView))


def now_ms() -> int:
    return int(time.time() * 1000)


async def test_a_gemini_record_appended_is_pushed_to_the_pane_by_the_file_watcher(isolated_env) -> None:  # type: ignore[no-untyped-def]
    chats = paths.gemini_tmp_dir() / "app" / "chats"
    chats.mkdir(parents=True)
    (chats.parent / ".project_root").write_text("/home/dev/app")
    lines = SAMPLE.read_bytes().splitlines(keepends=True)
    first = next(i for i, line in enumerate(lines) if b"write_todos" in line and b'"toolCalls"' in line)
    second = next(i for i, line in enumerate(lines) if i > first and b"write_todos" in line and b'"toolCalls"' in line)
    session = chats / "session-2026-11-30T23-03-988e1cef.jsonl"
    session.write_bytes(b"".join(lines[: first + 1]))
    app = make_app(AppOptions(config_path=isolated_env.config, pane=True))
    async with app.run_test(size=(40, 30)) as pilot:
        await until(pilot, lambda: app.scan_done is not None, what="the scan")
        await until(pilot, lambda: app.following, what="the follower")
        assert app.screen.selected_id == "988e1cef-f234-4775-a937-fa486a83d08a"
        assert "[▸] Inspect the current config loader" in rows(app)
        # Told by the system's file events, not a polling pass (the latency is measured
        # by tests/bench/bench_start.py).
        assert app.index._following.observer_kind == "native"
        with session.open("ab") as fh:
            fh.write(b"".join(lines[first + 1 : second + 1]))
        await until(pilot, lambda: "[x] Inspect the current config loader" in rows(app), what="the new list")
        assert "[▸] Add YAML parsing to load_config()" in rows(app)


async def test_an_opencode_todowrite_inserted_is_pushed_to_the_pane_by_the_file_watcher(isolated_env) -> None:  # type: ignore[no-untyped-def]
    database = paths.opencode_db()
    database.parent.mkdir(parents=True)
    writer = OpenCodeDb(database, wal=True)
    try:
        writer.session("ses_live0000000000000000000001", "Ship the release", "/home/dev/rel", updated=now_ms())
        writer.todowrite("ses_live0000000000000000000001", [("Tag the release", "in_progress", "high")], now_ms())
        app = make_app(AppOptions(config_path=isolated_env.config, pane=True))
        async with app.run_test(size=(40, 30)) as pilot:
            await until(pilot, lambda: app.scan_done is not None, what="the scan")
            await until(pilot, lambda: app.following, what="the follower")
            assert app.screen.selected_id == "ses_live0000000000000000000001"
            assert "[▸] ! Tag the release" in rows(app)  # a high-priority todo
            # The database's -wal changing is a file event (no polling pass between).
            assert app.index._following.observer_kind == "native"
            writer.todowrite(
                "ses_live0000000000000000000001",
                [("Tag the release", "completed", "high"), ("Wait for the signing key", "blocked", "high")],
                now_ms(),
            )
            await until(pilot, lambda: "[!] ! Wait for the signing key" in rows(app), what="the new rows")
            assert "[x] ! Tag the release" in rows(app)
    finally:
        writer.close()


async def test_a_database_that_cannot_be_read_is_said_once_and_the_rest_is_listed(isolated_env) -> None:  # type: ignore[no-untyped-def]
    database = paths.opencode_db()
    database.parent.mkdir(parents=True)
    database.write_bytes(b"SQLite format 3\x00" + b"\x07" * 8192)
    chats = paths.gemini_tmp_dir() / "app" / "chats"
    chats.mkdir(parents=True)
    shutil.copy(SAMPLE, chats / "session-2026-11-30T23-03-988e1cef.jsonl")
    app = make_app(AppOptions(config_path=isolated_env.config))
    told = Toasts()
    async with app.run_test(message_hook=told, size=(120, 36)) as pilot:
        await until(pilot, lambda: app.scan_done is not None, what="the scan")
        await pilot.pause()
        said = [n.message for n in told.seen if str(database) in n.message]
        assert len(said) == 1 and "corrupt" in said[0]
        assert [e.session.harness for e in app.entries()] == ["gemini"]


MARKER = "ZQX-PRIVATE-STEP-4412"


async def test_gemini_and_opencode_plan_text_stays_in_memory(isolated_env) -> None:  # type: ignore[no-untyped-def]
    """docs/privacy.md for the two readers: after a run that shows both plans, follows a
    change and quits, no file planwatch wrote (data, state, settings, store, the
    warm-start cache) holds their text, and nothing of OpenCode's database was copied:
    only SQLite's own -wal/-shm sit beside it."""
    chats = paths.gemini_tmp_dir() / "app" / "chats"
    chats.mkdir(parents=True)
    text = SAMPLE.read_text().replace("Inspect the current config loader", f"Inspect the {MARKER} loader")
    (chats / "session-2026-11-30T23-03-988e1cef.jsonl").write_text(text)
    database = paths.opencode_db()
    database.parent.mkdir(parents=True)
    writer = OpenCodeDb(database, wal=True)
    try:
        writer.session("ses_secret00000000000000000001", f"{MARKER} session", "/home/dev/secret", updated=now_ms())
        writer.todowrite(
            "ses_secret00000000000000000001", [(f"Rotate the {MARKER} key", "in_progress", "high")], now_ms()
        )
        app = make_app(AppOptions(config_path=isolated_env.config))
        async with app.run_test(size=(120, 36)) as pilot:
            await until(pilot, lambda: app.scan_done is not None and app.following, what="the scan")
            entries = {e.session.harness: e for e in app.entries()}
            assert MARKER in entries["gemini"].plan.main.items[0].text
            writer.todowrite(
                "ses_secret00000000000000000001", [(f"Rotate the {MARKER} key", "completed", "high")], now_ms()
            )
            await until(
                pilot,
                lambda: app.entry("ses_secret00000000000000000001").plan.main.items[0].status == "completed",
                what="the change",
            )
            await pilot.press("q")
    finally:
        writer.close()
    folders = (isolated_env.data, isolated_env.state, isolated_env.config.parent, isolated_env.store, paths.cache_dir())
    assert files_holding(MARKER, *folders) == []
    assert {p.name for p in database.parent.iterdir()} <= {"opencode.db", "opencode.db-wal", "opencode.db-shm"}


async def test_an_opencode_sessions_timeline_comes_from_its_completed_todowrite_parts(isolated_env) -> None:  # type: ignore[no-untyped-def]
    database = paths.opencode_db()
    database.parent.mkdir(parents=True)
    writer = OpenCodeDb(database)
    at = now_ms() - 600_000
    sid = "ses_hist0000000000000000000001"
    writer.session(sid, "History", "/home/dev/hist", updated=at)
    writer.todowrite(sid, [("Read", "in_progress", "high"), ("Write", "pending", "high")], at + 1000)
    writer.todowrite(sid, [("Read", "done", "high")], at + 2000, status="error")  # changed nothing
    writer.todowrite(sid, [("Read", "completed", "high"), ("Write", "in_progress", "high")], at + 3000)
    writer.todowrite(sid, [("Read", "completed", "high"), ("Write", "invalid", "high")], at + 4000, tool="invalid")
    writer.close()
    app = make_app(AppOptions(config_path=isolated_env.config, follow=False))
    async with app.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: app.scan_done is not None, what="the scan")
        await pilot.press("enter")  # the details panel shows the timeline
        await until(pilot, lambda: len(app.timeline(sid)) == 2, timeout=30.0, what="the history")
        first, second = app.timeline(sid)
        assert first.what == "0 → 2 steps; started: Read"
        assert second.what == "0 → 1 done; started: Write"
        assert int(second.at.timestamp() * 1000) == at + 3001


async def test_o_on_an_opencode_session_pages_its_plan_and_prompts_as_text_never_the_database(
    isolated_env, tmp_path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """OpenCode's sessions live in an SQLite file, which a pager shows as bytes: `o` pipes
    the session's plan and every prompt typed in it as text instead, safe to print."""
    database = paths.opencode_db()
    database.parent.mkdir(parents=True)
    writer = OpenCodeDb(database)
    at = now_ms() - 600_000
    sid = "ses_page0000000000000000000001"
    writer.session(sid, "Paging", "/home/dev/page", updated=at)
    writer.prompt(sid, "Add paging to the list\nand keep the cursor", at + 100)
    writer.todowrite(
        sid, [("Read the list code", "completed", "high"), ("Add paging", "in_progress", "high")], at + 1000
    )
    writer.prompt(sid, "Now the \x1b[31mred\x1b[0m tests", at + 2000)
    writer.close()
    seen, argv = tmp_path / "seen", tmp_path / "argv"
    pager = tmp_path / "pager"
    pager.write_text(f'#!/bin/sh\necho "$#" > {argv}\ncat > {seen}.part && mv {seen}.part {seen}\n')
    pager.chmod(0o755)
    monkeypatch.setenv("PAGER", str(pager))
    app = make_app(AppOptions(config_path=isolated_env.config, follow=False))
    async with app.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: app.scan_done is not None and app.screen.selected_id == sid, what="the scan")
        await pilot.press("o")
        await until(pilot, lambda: seen.exists(), what="the pager")
    assert argv.read_text().strip() == "0", "no file is given to the pager: the text comes on its input"
    text = seen.read_text(encoding="utf-8")
    assert not text.startswith("SQLite format 3")
    lines = text.splitlines()
    assert lines[0] == "# Paging"
    assert "- [x] Read the list code" in lines
    assert "- [ ] Add paging (in progress)" in lines
    assert "## Prompts" in lines
    prompts = lines[lines.index("## Prompts") :]
    assert "Add paging to the list" in prompts and "and keep the cursor" in prompts, "a prompt's lines kept"
    assert "Now the \\x1b[31mred\\x1b[0m tests" in prompts, "an escape shown, never sent"
    assert "\x1b" not in text
    assert f"OpenCode session {sid}" in lines


async def test_o_on_an_opencode_session_with_reading_off_reads_nothing_of_the_database(
    isolated_env, tmp_path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    database = paths.opencode_db()
    database.parent.mkdir(parents=True)
    writer = OpenCodeDb(database)
    sid = "ses_priv0000000000000000000001"
    writer.session(sid, "Private", "/home/dev/private", updated=now_ms() - 60_000)
    writer.prompt(sid, "A private prompt", now_ms() - 50_000)
    writer.close()
    isolated_env.config.parent.mkdir(parents=True, exist_ok=True)
    isolated_env.config.write_text("readAgentPlans: false\n", encoding="utf-8")
    ran = recording_pager(tmp_path, monkeypatch)
    app = make_app(AppOptions(config_path=isolated_env.config, follow=False))
    told = Toasts()
    async with app.run_test(message_hook=told, size=(120, 36)) as pilot:
        await until(pilot, lambda: app.scan_done is not None and app.screen.selected_id == sid, what="the scan")
        await pilot.press("o")
        await until(
            pilot,
            lambda: any("Reading agents' plans is off" in str(n.message) for n in told.seen),
            what="the refusal",
        )
    assert not ran.exists()


# The demo's one session of each of the newer harnesses: (title, folder, (done, total), source).
DEMO_SESSIONS = {
    "copilot": (
        "Add a CSV export to the monthly reports page and keep a todo list as you go",
        "/home/dev/reports",
        (2, 5),
        "copilot_todos",
    ),
    "qwen": (
        "Add shell completions for bash and zsh to the CLI, then document them",
        "/home/dev/cli",
        (2, 4),
        "qwen_todos",
    ),
    "pi": ("Turn the meeting notes folder into a searchable static site", "/home/dev/notes", (2, 4), "pi_todos"),
    "kilo": ("Cache forecast responses for ten minutes", "/home/dev/weather-cli", (2, 4), "kilo_todos"),
    "cline": (
        "Resize uploaded avatars to 256 px in a background job; keep a task list.",
        "/home/dev/avatars",
        (1, 4),
        "cline_tasks",
    ),
}


async def test_the_demo_holds_a_session_of_every_harness_and_one_of_each_newer_one(isolated_env) -> None:  # type: ignore[no-untyped-def]
    from planwatch.tui.cli import build_parser

    app = make_app(build_parser().parse_args(["--demo"]))
    async with app.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: app.scan_done is not None, what="the scan")
        entries = app.entries()
        assert app.index.problems() == []
    assert {e.session.harness for e in entries} == set(get_args(Harness))
    for harness, (title, cwd, counts, source) in DEMO_SESSIONS.items():
        [entry] = [e for e in entries if e.session.harness == harness]
        assert (entry.session.title, entry.session.cwd, entry.plan.counts()) == (title, cwd, counts), harness
        assert [g.source for g in entry.plan.groups] == [source], harness
