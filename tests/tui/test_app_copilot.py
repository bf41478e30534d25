"""Copilot CLI sessions in the app: the pane follows one live — a row another process
inserts into its `session.db` shows, pushed by the watcher —, its rows name it (`Copilot`, or
the letter H), its checklist is headed by its source and a step shows what it waits for,
and a database we cannot take is said once while every other session is listed."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from app_transcripts import until
from harness_app import following_pane, headed_checklist_row, row_texts, rows, run_writer, scanned_app
from toasts import Toasts

from planwatch.core import paths

ROOT = Path(__file__).resolve().parents[2]
SAMPLE_ID = "5e806925-4250-446b-9e18-4cd8ceb54145"
SAMPLE = ROOT / "fixtures/samples/copilot/session-state" / SAMPLE_ID
RULES = ROOT / "fixtures/transcripts/rules/copilot/session-state"

INSERT = (
    "import sqlite3, sys\n"
    "db = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
    "db.execute(\"INSERT INTO todos (id, title, status) VALUES ('docs', 'Documenting the YAML support', 'in_progress')\")\n"
)


@pytest.mark.asyncio
async def test_a_copilot_row_inserted_by_another_process_shows_in_the_pane(isolated_env) -> None:  # type: ignore[no-untyped-def]
    folder = paths.copilot_sessions_dir() / SAMPLE_ID
    shutil.copytree(SAMPLE, folder)
    async with following_pane(isolated_env.config, SAMPLE_ID) as (app, pilot):
        assert any(row.startswith("[!] Adding a TOML fallback") for row in rows(app))
        run_writer(sys.executable, "-c", INSERT, str(folder / "session.db"))
        await until(
            pilot,
            lambda: any(r.startswith("[▸] Documenting the YAML support") for r in rows(app)),
            timeout=30.0,
            what="the inserted row",
        )


@pytest.mark.asyncio
async def test_a_copilot_checklist_is_headed_by_its_source_and_shows_what_a_step_waits_for(isolated_env) -> None:  # type: ignore[no-untyped-def]
    shutil.copytree(
        RULES / "e1000000-0000-4000-8000-000000000002",
        paths.copilot_sessions_dir() / "e1000000-0000-4000-8000-000000000002",
    )
    upload = await headed_checklist_row(isolated_env.config, "Upload it", "Copilot CLI todos")
    assert upload == "[ ] Upload it  waits for “Sign the wheel”, “Write the notes”"


@pytest.mark.asyncio
async def test_a_bad_copilot_database_is_said_once_and_the_rest_is_listed(isolated_env) -> None:  # type: ignore[no-untyped-def]
    shutil.copytree(RULES, paths.copilot_sessions_dir())
    told = Toasts()
    async with scanned_app(isolated_env.config, size=(120, 36), message_hook=told) as (app, pilot):
        await until(pilot, lambda: any("000000000005" in n.message for n in told.seen), what="the notice")
        for n in "568":
            said = [note.message for note in told.seen if f"00000000000{n}/session.db" in note.message]
            assert len(said) == 1, (n, said)
            # The session is listed all the same: said as that, not as skipped.
            assert said[0].startswith("/") and said[0].endswith("; the session is shown without a plan"), said
        # A status Copilot CLI does not write reads as pending: nothing to say.
        assert not [note for note in told.seen if "000000000007/session.db" in note.message]
        assert len(app.entries()) == 10
        assert {e.session.harness for e in app.entries()} == {"copilot"}


def test_rows_name_copilot_by_name_when_wide_and_by_letter_when_narrow() -> None:
    assert "● Copilot  Title" in row_texts(["copilot"], 120)[0]
    assert "● H Title" in row_texts(["copilot"], 60)[0]
