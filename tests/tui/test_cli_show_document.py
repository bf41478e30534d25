"""`planwatch show` prints a session's plan document whole: under its
heading for a person, after a `# document <source> <key> <type>` header with `--plain`, each line
framed as `> <line>` there."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RATE_LIMITING = ROOT / "fixtures/transcripts/claude/projects/-home-dev-api/4f6b2a9e-1c3d-4e8f-9a7b-2d5c8e1f0a3b.jsonl"
DOCUMENT_LINES = [
    "# Rate limiting",
    "1. Token bucket per API key in Redis (`INCR` + `EXPIRE`, Lua for atomicity)",
    "2. Middleware in `api/middleware/ratelimit.py`, before auth",
    "3. 429 with `Retry-After`",
    "4. Tests with fakeredis",
    "5. Document the limits in `docs/api.md`",
]


def show(*args: str) -> str:
    out = subprocess.run(
        [sys.executable, "-m", "planwatch.tui.cli", "show", *args], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_show_prints_the_whole_plan_document() -> None:
    lines = show(str(RATE_LIMITING)).splitlines()
    heading = next(i for i, line in enumerate(lines) if "plan document (" in line)
    body = [line.strip() for line in lines[heading + 1 :] if line.strip()]
    assert body[: len(DOCUMENT_LINES)] == DOCUMENT_LINES


def test_show_plain_frames_each_document_line_after_its_header() -> None:
    lines = show("--plain", str(RATE_LIMITING)).splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("# document "))
    # Three fields always: Claude's plan mode of the main session has no key and no type.
    assert lines[header] == "# document claude_plan_mode - -"
    body = lines[header + 1 :]
    # Every line of the document is framed: `> <line>`, or `>` alone where it is empty.
    assert all(line == ">" or line.startswith("> ") for line in body)
    assert [line[2:] for line in body if line != ">"][: len(DOCUMENT_LINES)] == DOCUMENT_LINES
    assert ">" in body  # the empty line after the document's heading
    # The checklist's sections come first, the document after them.
    assert lines[0].startswith("# ") and not lines[0].startswith("# document")


def test_show_plain_never_reads_a_documents_heading_as_a_header() -> None:
    """Each line is a header, an item or a framed document line, and the only headers
    are planwatch's own: the document's `# Rate limiting` stays inside its frame."""
    lines = show("--plain", str(RATE_LIMITING)).splitlines()
    headers = [line for line in lines if line.startswith("# ")]
    items = [line for line in lines if "\t" in line and not line.startswith((">", "# "))]
    framed = [line for line in lines if line == ">" or line.startswith("> ")]
    assert len(headers) + len(items) + len(framed) == len(lines)
    assert "# Rate limiting" not in headers and "> # Rate limiting" in framed
    assert [h.split()[1] for h in headers] == ["claude_todos", "claude_todos", "document"]
