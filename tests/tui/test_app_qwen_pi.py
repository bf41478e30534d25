"""Qwen Code and pi sessions in the app (docs/reading.md): the pane follows them live like any
other harness — an appended line is pushed to the screen by the file watcher —, rows name them by their own
letter, a step shows what it waits for, and a pi tree cut by a missing parent is said
once while every other session is listed."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
from app_transcripts import option_texts, until

from planwatch.core import paths
from planwatch.tui.app import AppOptions, make_app
from planwatch.tui.widgets.checklist import ChecklistView
from planwatch.tui.widgets.session_rows import RowLayout, SessionRow, row_text

ROOT = Path(__file__).resolve().parents[2]
QWEN_SAMPLE = ROOT / "fixtures/samples/qwen/650333ef-8d48-49e8-abbd-2f740e50ee0a.jsonl"
PI_SAMPLE = ROOT / "fixtures/samples/pi/2026-12-01T18-58-51-609Z_01a232f9-5858-71c1-b1b0-7ed98b089974.jsonl"
QWEN_DEMO = ROOT / "fixtures/transcripts/qwen/projects/-home-dev-cli/chats/3e7b1c90-5d2a-4f61-9c8e-2a4b6d8f0c13.jsonl"
PI_RULES = ROOT / "fixtures/transcripts/rules/pi/sessions"


def rows(app) -> list[str]:  # type: ignore[no-untyped-def]
    return option_texts(app.screen.query_one("#checklist", ChecklistView))


@pytest.mark.asyncio
async def test_a_qwen_line_appended_is_pushed_to_the_pane_by_the_file_watcher(isolated_env) -> None:  # type: ignore[no-untyped-def]
    chats = paths.qwen_projects_dir() / "-home-dev-qwen-todos" / "chats"
    chats.mkdir(parents=True)
    lines = QWEN_SAMPLE.read_bytes().splitlines(keepends=True)
    results = [i for i, line in enumerate(lines) if b'"todo_list"' in line]
    session = chats / QWEN_SAMPLE.name
    session.write_bytes(b"".join(lines[: results[0] + 1]))
    app = make_app(AppOptions(config_path=isolated_env.config, pane=True))
    async with app.run_test(size=(40, 30)) as pilot:
        await until(pilot, lambda: app.scan_done is not None, what="the scan")
        await until(pilot, lambda: app.following, what="the follower")
        assert app.screen.selected_id == "650333ef-8d48-49e8-abbd-2f740e50ee0a"
        assert any(row.startswith("[▸] Inspect the current config loader") for row in rows(app))
        # Told by the system's file events, not a polling pass (the latency is measured
        # by tests/bench/bench_start.py).
        assert app.index._follower.observer_kind == "native"
        with session.open("ab") as fh:
            fh.write(b"".join(lines[results[0] + 1 : results[1] + 1]))
        await until(
            pilot,
            lambda: any(r.startswith("[x] Inspect the current config loader") for r in rows(app)),
            what="the list",
        )
        assert any(row.startswith("[▸] Add YAML parsing to load_config()") for row in rows(app))


@pytest.mark.asyncio
async def test_a_pi_line_appended_is_pushed_to_the_pane_by_the_file_watcher(isolated_env) -> None:  # type: ignore[no-untyped-def]
    folder = paths.pi_sessions_dir() / "--home-dev-pi-todos--"
    folder.mkdir(parents=True)
    lines = PI_SAMPLE.read_bytes().splitlines(keepends=True)
    toggle = next(i for i, line in enumerate(lines) if b'"action":"toggle"' in line and b'"toolResult"' in line)
    session = folder / PI_SAMPLE.name
    session.write_bytes(b"".join(lines[:toggle]))
    app = make_app(AppOptions(config_path=isolated_env.config, pane=True))
    async with app.run_test(size=(40, 30)) as pilot:
        await until(pilot, lambda: app.scan_done is not None, what="the scan")
        await until(pilot, lambda: app.following, what="the follower")
        assert app.screen.selected_id == "01a232f9-5858-71c1-b1b0-7ed98b089974"
        assert "[ ] Inspect the current config loader" in rows(app)
        assert app.index._follower.observer_kind == "native"
        with session.open("ab") as fh:
            fh.write(lines[toggle])
        await until(pilot, lambda: "[x] Inspect the current config loader" in rows(app), what="the toggle")


@pytest.mark.asyncio
async def test_a_qwen_step_shows_what_it_waits_for(isolated_env) -> None:  # type: ignore[no-untyped-def]
    chats = paths.qwen_projects_dir() / "-home-dev-cli" / "chats"
    chats.mkdir(parents=True)
    shutil.copy(QWEN_DEMO, chats / QWEN_DEMO.name)
    app = make_app(AppOptions(config_path=isolated_env.config, follow=False))
    async with app.run_test(size=(160, 36)) as pilot:
        await until(pilot, lambda: app.scan_done is not None, what="the scan")
        await until(pilot, lambda: any("Document installing" in r for r in rows(app)), what="the checklist")
        [docs] = [r for r in rows(app) if "Document installing" in r]
        assert docs == "[ ] Document installing the completions  waits for “Generate the zsh completion script”"
        assert any("Qwen Code todos" in r for r in rows(app))


@pytest.mark.asyncio
async def test_a_cut_pi_tree_is_said_once_and_the_rest_is_listed(isolated_env) -> None:  # type: ignore[no-untyped-def]
    shutil.copytree(PI_RULES, paths.pi_sessions_dir())
    app = make_app(AppOptions(config_path=isolated_env.config, follow=False))
    async with app.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: app.scan_done is not None, what="the scan")
        await pilot.pause()
        said = [n.message for n in app._notifications if "0badf00d" in n.message]
        assert len(said) == 1 and "c3000000-0000-7000-8000-000000000004" in said[0]
        assert len(app.entries()) == len(list(PI_RULES.rglob("*.jsonl")))
        assert {e.session.harness for e in app.entries()} == {"pi"}


def test_rows_name_qwen_and_pi_by_name_when_wide_and_by_letter_when_narrow() -> None:
    now = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
    qwen = SessionRow("q1", "qwen", "Title", "/home/dev/x", now, 1, 4, None)
    pi = SessionRow("p1", "pi", "Title", "/home/dev/y", now, 1, 4, None)
    wide = RowLayout.for_rows([qwen, pi], 120)
    assert "● Qwen     Title" in row_text(qwen, now, wide).plain
    assert "● pi       Title" in row_text(pi, now, wide).plain
    narrow = RowLayout.for_rows([qwen, pi], 60)
    assert "● Q Title" in row_text(qwen, now, narrow).plain
    assert "● P Title" in row_text(pi, now, narrow).plain
