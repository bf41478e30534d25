"""Plan documents as the whole app reads them (Pilot, transcripts in the real on-disk
shape): a Claude plan-mode document is named as a person says it, never by its source
id, and ACP plan documents are whole in the details, every document's last block
scrolling into view. (A long document scrolled to its last line on the screen alone:
test_screen_browse_details.py.)"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from app_transcripts import ClaudeTranscript, until

from planwatch.tui.app import AppOptions, make_app

pytestmark = pytest.mark.asyncio

ROOT = Path(__file__).resolve().parents[2]
ACP_LOG = ROOT / "fixtures/transcripts/rules/acp/planid-and-types.jsonl"
STEPS = 80
LONG_PLAN = "# Migrate the billing service\n\n" + "\n".join(
    f"{n}. Step {n} of the migration" for n in range(1, STEPS + 1)
)


async def open_details(pilot, app) -> None:
    await until(pilot, lambda: app.scan_done is not None and app.screen.selected_id is not None, what="the scan")
    await pilot.press("tab", "enter")
    panel = app.screen.query_one("#details")
    await until(pilot, lambda: panel.has_class("-open") and bool(panel.query(".document")), what="the details")
    await pilot.pause()


def visible(app, widget) -> bool:
    """The widget's whole region lies inside the panel's visible content (not clipped)."""
    panel = app.screen.query_one("#details")
    region = widget.region
    return bool(region) and panel.content_region.contains_region(region)


async def test_a_plan_mode_document_is_named_as_a_person_says_it_never_by_its_source_id(isolated_env) -> None:
    from app_transcripts import option_texts

    ClaudeTranscript(isolated_env.claude, "/home/dev/billing").prompt("Migrate billing").exit_plan_mode(LONG_PLAN)
    app = make_app(AppOptions(config_path=isolated_env.config, follow=False))
    async with app.run_test(size=(120, 36)) as pilot:
        await open_details(pilot, app)
        rows = option_texts(app.screen.query_one("#checklist"))
        assert any("Plan document · Claude plan mode" in row for row in rows), rows
        panel = app.screen.query_one("#details")
        shown = "\n".join(str(w.render()) for w in panel.query("Static"))
        assert "Claude plan mode" in shown
        screen = app.export_screenshot()
        assert "claude_plan_mode" not in screen and "claude_plan_mode" not in "\n".join(rows)


async def test_acp_plan_documents_are_whole_in_the_details(isolated_env) -> None:
    from textual.widgets import Markdown

    isolated_env.acp_logs.mkdir(parents=True, exist_ok=True)
    shutil.copy(ACP_LOG, isolated_env.acp_logs / ACP_LOG.name)
    app = make_app(AppOptions(config_path=isolated_env.config, follow=False))
    async with app.run_test(size=(80, 24)) as pilot:
        await open_details(pilot, app)
        panel = app.screen.query_one("#details")
        documents = list(panel.query(".document").results(Markdown))
        assert len(documents) == 2
        panel.focus()
        await pilot.press("end")
        # The last document's last block is in view, not clipped below one row.
        await until(
            pilot,
            lambda: documents[-1].children and visible(app, documents[-1].children[-1]),
            what="the last document in view",
        )
        assert all(document.outer_size.height >= 1 for document in documents)
