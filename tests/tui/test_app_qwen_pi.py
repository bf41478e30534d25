"""Qwen Code and pi sessions in the app (docs/reading.md): the pane follows them live like any
other harness — an appended line is pushed to the screen by the file watcher —, rows name them by their own
letter, a step shows what it waits for, and a pi tree cut by a missing parent is said
once while every other session is listed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from app_transcripts import until
from harness_app import following_pane, headed_checklist_row, row_texts, rows, scanned_app
from toasts import Toasts

from planwatch.core import paths

ROOT = Path(__file__).resolve().parents[2]
QWEN_SAMPLE = ROOT / "fixtures/samples/qwen/650333ef-8d48-49e8-abbd-2f740e50ee0a.jsonl"
PI_SAMPLE = ROOT / "fixtures/samples/pi/2026-12-01T18-58-51-609Z_01a232f9-5858-71c1-b1b0-7ed98b089974.jsonl"
QWEN_DEMO = ROOT / "fixtures/transcripts/qwen/projects/-home-dev-cli/chats/3e7b1c90-5d2a-4f61-9c8e-2a4b6d8f0c13.jsonl"
PI_RULES = ROOT / "fixtures/transcripts/rules/pi/sessions"


@pytest.mark.asyncio
async def test_a_qwen_line_appended_is_pushed_to_the_pane_by_the_file_watcher(isolated_env) -> None:  # type: ignore[no-untyped-def]
    chats = paths.qwen_projects_dir() / "-home-dev-qwen-todos" / "chats"
    chats.mkdir(parents=True)
    lines = QWEN_SAMPLE.read_bytes().splitlines(keepends=True)
    results = [i for i, line in enumerate(lines) if b'"todo_list"' in line]
    session = chats / QWEN_SAMPLE.name
    session.write_bytes(b"".join(lines[: results[0] + 1]))
    async with following_pane(isolated_env.config, "650333ef-8d48-49e8-abbd-2f740e50ee0a") as (app, pilot):
        assert any(row.startswith("[▸] Inspect the current config loader") for row in rows(app))
        # Told by the system's file events, not a polling pass (the latency is measured
        # by tests/bench/bench_live.py).
        assert app.index._following.observer_kind == "native"
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
    async with following_pane(isolated_env.config, "01a232f9-5858-71c1-b1b0-7ed98b089974") as (app, pilot):
        assert "[ ] Inspect the current config loader" in rows(app)
        assert app.index._following.observer_kind == "native"
        with session.open("ab") as fh:
            fh.write(lines[toggle])
        await until(pilot, lambda: "[x] Inspect the current config loader" in rows(app), what="the toggle")


@pytest.mark.asyncio
async def test_a_qwen_step_shows_what_it_waits_for(isolated_env) -> None:  # type: ignore[no-untyped-def]
    chats = paths.qwen_projects_dir() / "-home-dev-cli" / "chats"
    chats.mkdir(parents=True)
    shutil.copy(QWEN_DEMO, chats / QWEN_DEMO.name)
    docs = await headed_checklist_row(isolated_env.config, "Document installing", "Qwen Code todos")
    assert docs == "[ ] Document installing the completions  waits for “Generate the zsh completion script”"


@pytest.mark.asyncio
async def test_a_cut_pi_tree_is_said_once_and_the_rest_is_listed(isolated_env) -> None:  # type: ignore[no-untyped-def]
    shutil.copytree(PI_RULES, paths.pi_sessions_dir())
    told = Toasts()
    async with scanned_app(isolated_env.config, size=(120, 36), message_hook=told) as (app, pilot):
        await pilot.pause()
        said = [n.message for n in told.seen if "0badf00d" in n.message]
        assert len(said) == 1 and "c3000000-0000-7000-8000-000000000004" in said[0]
        assert len(app.entries()) == len(list(PI_RULES.rglob("*.jsonl")))
        assert {e.session.harness for e in app.entries()} == {"pi"}


def test_rows_name_qwen_and_pi_by_name_when_wide_and_by_letter_when_narrow() -> None:
    qwen, pi = row_texts(["qwen", "pi"], 120)
    assert "● Qwen     Title" in qwen
    assert "● pi       Title" in pi
    qwen, pi = row_texts(["qwen", "pi"], 60)
    assert "● Q Title" in qwen
    assert "● P Title" in pi
