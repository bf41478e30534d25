"""`planwatch show --plain` is a line format for scripts: every line it prints is a
header `# …`, an item `<status>\t<text>`, or a document's line framed as `> <line>` (or
`>` alone) — whatever the argument names, a Cline board (every session of its data
folder) included."""

from __future__ import annotations

import re
from pathlib import Path

from cli_run import planwatch
from cline_data import ClineData

STATUSES = ("pending", "in_progress", "completed", "cancelled", "blocked")
LINE = re.compile(rf"# .+|(?:{'|'.join(STATUSES)})\t.*|> .*|>")


def test_show_plain_of_a_cline_board_prints_only_headers_items_and_framed_lines(tmp_path: Path) -> None:
    data = ClineData(tmp_path / "cline")
    data.session("1796150957437_aaaaa", "Add YAML support", "/home/dev/one", started="2026-12-01T18:49:17.446Z")
    data.task("1796150957437_aaaaa", "task_0001", "Parse YAML", "completed")
    data.session("1796150957999_bbbbb", "Add TOML support", "/home/dev/two", started="2026-12-01T18:50:17.446Z")
    data.task("1796150957999_bbbbb", "task_0001", "Parse TOML", "pending")
    data.close()
    shown = planwatch("show", "--plain", str(tmp_path / "cline" / "db" / "teams.db"))
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert "completed\tParse YAML" in lines and "pending\tParse TOML" in lines, lines
    assert [line for line in lines if not LINE.fullmatch(line)] == [], lines
