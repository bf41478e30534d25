"""The details panel shows a plan document whole, on the browse screen over a model of
its own (a host app): the checklist's document row says "enter for the whole text", so
every line of a long document must scroll into view in the details, rendered as
Markdown."""

from __future__ import annotations

import pytest
from app_transcripts import until
from browse_host import BrowseHost, entry

from planwatch.core.model import AgentPlan, PlanDocument
from planwatch.core.sessions import SessionEntry

pytestmark = pytest.mark.asyncio

STEPS = 80
LONG_PLAN = "# Migrate the billing service\n\n" + "\n".join(
    f"{n}. Step {n} of the migration" for n in range(1, STEPS + 1)
)


async def open_details(pilot, app: BrowseHost) -> None:  # type: ignore[no-untyped-def]
    await until(pilot, lambda: app.browse.selected_id is not None, what="the session")
    await pilot.press("tab", "enter")
    panel = app.screen.query_one("#details")
    await until(pilot, lambda: panel.has_class("-open") and bool(panel.query(".document")), what="the details")
    await pilot.pause()


def visible(app, widget) -> bool:  # type: ignore[no-untyped-def]
    """The widget's whole region lies inside the panel's visible content (not clipped)."""
    panel = app.screen.query_one("#details")
    region = widget.region
    return bool(region) and panel.content_region.contains_region(region)


async def test_a_long_plan_mode_document_scrolls_into_view_to_its_last_line(isolated_env) -> None:
    from textual.widgets import Markdown

    billing = entry("billing", "Migrate billing", (), 1, cwd="/home/dev/billing").session
    document = PlanDocument(key="main", source="claude_plan_mode", text=LONG_PLAN)
    app = BrowseHost(isolated_env.store, [SessionEntry(session=billing, plan=AgentPlan(documents=(document,)))])
    async with app.run_test(size=(120, 36)) as pilot:
        await open_details(pilot, app)
        panel = app.screen.query_one("#details")
        document = panel.query_one(".document", Markdown)
        # The document is rendered as Markdown: its heading, one numbered item per step.
        await until(pilot, lambda: bool(document.query("MarkdownOrderedList")), what="the Markdown blocks")
        assert [h.render().plain for h in document.query("MarkdownH1")] == ["Migrate the billing service"]
        steps = document.query_one("MarkdownOrderedList").children
        assert len(steps) == STEPS
        # The holder is as tall as its documents, so the panel scrolls to their end.
        holder = panel.query_one("#details-documents")
        assert holder.outer_size.height >= document.outer_size.height >= STEPS
        last = steps[-1]
        assert not visible(app, last)
        panel.focus()
        await pilot.press("end")
        await until(pilot, lambda: visible(app, last), what="the document's last line in view")
        assert last.query("MarkdownParagraph").last().render().plain == f"Step {STEPS} of the migration"
