"""The details panel says how many lines of a session's file were not records and were
read past (Pilot), as `show` does: a Claude Code session opened by thirty lines of
garbage lists its plan, and its details say "Skipped: 30 unreadable lines of the file";
a clean session's details say nothing of skipping. On the browse screen over a model of
its own (a host app, no scan): the model gives the session as the Claude Code reader
reads the file, its plan and its count of lines read past (the reading past garbage is
tested in tests/core/test_garbage_first_lines.py)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from app_transcripts import until
from browse_host import BrowseHost, entry

from planwatch.core.sessions import SessionEntry
from planwatch.core.transcripts.claude import ClaudeReader
from planwatch.core.transcripts.lines import read_transcript

pytestmark = pytest.mark.asyncio

ROOT = Path(__file__).resolve().parents[2]
CLAUDE = ROOT / "fixtures/transcripts/claude/projects/-home-dev-docs/7a3e9b1c-5d2f-4a8e-b6c0-1e9d4f7a2b58.jsonl"
GARBAGE = b"".join(b"garbage %d {{{ not a record\n" % n for n in range(30))


def as_read(path: Path) -> SessionEntry:
    """The session as the reader gives it: its plan and the lines it read past."""
    reader = ClaudeReader(path)
    read_transcript(reader, path)
    [result] = reader.results()
    shown = entry(result.facts.id or path.stem, result.facts.first_prompt or "", cwd=result.facts.cwd or "")
    return replace(shown, plan=result.plan, skipped_lines=reader.skipped_lines)


async def details_of_the_selected_session(app, pilot) -> str:  # type: ignore[no-untyped-def]
    await until(pilot, lambda: app.screen.selected_id is not None, what="the session")
    await pilot.press("enter")
    panel = app.screen.query_one("#details")
    body = app.screen.query_one("#details-body")
    await until(pilot, lambda: panel.has_class("-open") and "Session: " in str(body.render()), what="the details")
    return str(body.render())


@pytest.mark.parametrize("garbage", [True, False], ids=["read-past-garbage", "clean"])
async def test_the_details_say_how_many_unreadable_lines_were_read_past(isolated_env, garbage: bool) -> None:  # type: ignore[no-untyped-def]
    target = isolated_env.claude / "projects" / "-home-dev-docs" / CLAUDE.name
    target.parent.mkdir(parents=True)
    target.write_bytes((GARBAGE if garbage else b"") + CLAUDE.read_bytes())
    app = BrowseHost(isolated_env.store, [as_read(target)])
    async with app.run_test(size=(120, 36)) as pilot:
        shown = await details_of_the_selected_session(app, pilot)
        assert "Fix the broken links in the getting-started guide." in shown
        if garbage:
            assert "Skipped: 30 unreadable lines of the file\n" in shown
        else:
            assert "Skipped:" not in shown
