"""`planwatch show` prints a session's plan document whole (issue 12 point 7): under its
heading for a person, after a `# document <source>` header with `--plain`."""

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
    out = subprocess.run([sys.executable, "-m", "planwatch.tui.cli", "show", *args], cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_show_prints_the_whole_plan_document() -> None:
    lines = show(str(RATE_LIMITING)).splitlines()
    heading = next(i for i, line in enumerate(lines) if "plan document (" in line)
    body = [line.strip() for line in lines[heading + 1:] if line.strip()]
    assert body[: len(DOCUMENT_LINES)] == DOCUMENT_LINES


def test_show_plain_prints_the_document_in_its_own_section() -> None:
    lines = show("--plain", str(RATE_LIMITING)).splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("# document "))
    assert lines[header].startswith("# document claude")
    body = [line for line in lines[header + 1:] if line.strip()]
    assert body[: len(DOCUMENT_LINES)] == DOCUMENT_LINES
    # The checklist's sections come first, the document after them.
    assert lines[0].startswith("# ") and not lines[0].startswith("# document")
