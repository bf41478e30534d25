"""`planwatch show` and `planwatch sessions` (docs/store.md, For scripts), run as real subprocesses."""

from __future__ import annotations

import importlib.util
import io
import json
import os
import re
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

from waiting import caches_written

from planwatch.core import paths
from planwatch.tui import cli_sessions

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = Path(__file__).resolve().parents[2] / "fixtures" / "samples"
_spec = importlib.util.spec_from_file_location("bench_corpus", ROOT / "tests" / "bench" / "corpus.py")
assert _spec and _spec.loader
corpus = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(corpus)

LONG_AGO = datetime(2025, 1, 1, tzinfo=UTC)
SID = "5e0c2a4b-1f3d-4e6a-9b8c-7d0e1f2a3b4c"
# No raw control character (C0 but \t \n, DEL, C1) and no bidi override may be printed.
UNSAFE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def planwatch(*args: str, script: bool = False) -> subprocess.CompletedProcess[str]:
    command = (
        [str(Path(sys.executable).parent / "planwatch")] if script else [sys.executable, "-m", "planwatch.tui.cli"]
    )
    done = subprocess.run(
        [*command, *args], cwd=ROOT, capture_output=True, text=True, env=os.environ.copy(), timeout=60
    )
    caches_written()  # a listing's, written after its answer by a process of its own
    return done


def _claude_with_subagent(start: datetime = LONG_AGO) -> None:
    folder = paths.claude_projects_dir() / "-home-dev-api"
    folder.mkdir(parents=True)
    with (folder / f"{SID}.jsonl").open("wb") as fh:
        w = corpus.ClaudeWriter(fh, SID, "/home/dev/api", start=start)
        w.prompt("Add rate limiting")
        w.todo_write([("Read the code", "completed"), ("Add the limiter", "in_progress")])
    sub = folder / SID / "subagents" / "agent-a1.jsonl"
    sub.parent.mkdir(parents=True)
    with sub.open("wb") as fh:
        w = corpus.ClaudeWriter(fh, SID, "/home/dev/api", agent_id="a1", start=start)
        w.prompt("Search")
        w.todo_write([("Grep for limits", "pending")])


def _acp(*, default_plan: bool, start: datetime | None = None) -> None:
    logs = paths.acp_log_dir()
    logs.mkdir(parents=True, exist_ok=True)
    with (logs / "tap.jsonl").open("wb") as fh:
        w = corpus.AcpWriter(fh, start=start)
        w.new_session("sess_9", "/home/dev/mobile")
        w.prompt("sess_9", "Fix the build")
        if default_plan:
            w.plan("sess_9", [("Default step", "completed")])
        w.plan("sess_9", [("Named step", "pending"), ("Dropped", "cancelled")], plan_id="plan-7")


def test_show_plain_prints_each_samples_plan() -> None:
    codex = planwatch("show", "--plain", str(SAMPLES / "codex-rollout.jsonl"))
    assert codex.returncode == 0, codex.stderr
    assert codex.stdout == "# codex\nin_progress\tAdd TOML parsing\npending\tWrite TOML tests\n"
    acp = planwatch("show", "--plain", str(SAMPLES / "acp-codex-agent-stream.jsonl"))
    assert acp.stdout == (
        "# acp\ncompleted\tInspect the config loader\ncompleted\tAdd YAML parsing\ncompleted\tWrite YAML tests\n"
    )
    # The Claude sample ends by clearing its list once every step was done: the finished
    # list stays (a list cleared with a step open would go).
    claude = planwatch("show", "--plain", str(SAMPLES / "claude-code-todowrite.jsonl"), script=True)
    assert claude.returncode == 0, claude.stderr
    assert claude.stdout == (
        "# claude_todos\ncompleted\tRead the existing config loader\ncompleted\tAdd YAML support to the loader\n"
        "completed\tWrite unit tests for YAML parsing\ncompleted\tUpdate the README\n"
    )


def test_show_for_a_person_names_title_folder_source_and_marks() -> None:
    out = planwatch("show", str(SAMPLES / "codex-rollout.jsonl"))
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("Add YAML support to the config loader")
    assert "/home/dev/codex" in lines[1] and lines[1].startswith("  codex")
    assert "  Codex plan 0/2" in lines
    assert "    [>] Add TOML parsing" in lines
    assert "    [ ] Write TOML tests" in lines


def test_show_plain_gives_further_groups_their_own_header() -> None:
    _claude_with_subagent()
    out = planwatch("show", "--plain", SID)
    assert out.returncode == 0, out.stderr
    assert out.stdout == (
        "# claude_todos\ncompleted\tRead the code\nin_progress\tAdd the limiter\n"
        "# claude_todos agent-a1\npending\tGrep for limits\n"
    )


def test_show_plain_acp_plans_by_plan_id_and_none_without_a_main_plan() -> None:
    _acp(default_plan=True)
    out = planwatch("show", "--plain", "sess_9")
    assert out.stdout == "# acp\ncompleted\tDefault step\n# acp plan-7\npending\tNamed step\ncancelled\tDropped\n"


def test_show_plain_says_none_when_there_is_no_main_plan() -> None:
    _acp(default_plan=False)
    out = planwatch("show", "--plain", "sess_9")
    assert out.stdout == "# none\n# acp plan-7\npending\tNamed step\ncancelled\tDropped\n"


def test_show_finds_a_session_by_the_start_of_its_id_and_refuses_unknown_ids() -> None:
    _claude_with_subagent()
    out = planwatch("show", SID[:8])
    assert out.returncode == 0 and "Add rate limiting" in out.stdout
    assert "agent-a1 — Claude Code todos 0/1" in out.stdout
    missing = planwatch("show", "no-such-session")
    assert missing.returncode == 1
    assert "no session or file no-such-session" in missing.stderr


def test_sessions_json_has_facts_and_counts_but_never_plan_text() -> None:
    _claude_with_subagent()
    _acp(default_plan=True)
    out = planwatch("sessions", "--json")
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)
    by_id = {row["id"]: row for row in rows}
    assert set(by_id) == {SID, "sess_9"}
    claude = by_id[SID]
    assert claude["harness"] == "claude" and claude["title"] == "Add rate limiting"
    assert claude["cwd"] == "/home/dev/api" and claude["source"] == "claude_todos"
    assert (claude["done"], claude["total"]) == (1, 3)
    assert claude["path"].endswith(f"{SID}.jsonl")
    assert claude["updated"].endswith("+00:00")
    assert by_id["sess_9"]["source"] == "acp"
    for text in ("Read the code", "Add the limiter", "Grep for limits", "Default step", "Named step"):
        assert text not in out.stdout


def test_sessions_lists_newest_first_with_harness_title_folder_and_counts() -> None:
    # Ages are the last record's time, whatever the files' mtimes say.
    now = datetime.now(UTC)
    _claude_with_subagent(start=now - timedelta(hours=2, seconds=30))
    _acp(default_plan=True, start=now - timedelta(seconds=5))
    long_ago = LONG_AGO.timestamp()
    for path in (*paths.claude_projects_dir().rglob("*.jsonl"), paths.acp_log_dir() / "tap.jsonl"):
        os.utime(path, (long_ago, long_ago))
    out = planwatch("sessions")
    lines = out.stdout.splitlines()
    assert len(lines) == 2
    assert re.match(r"^sess_9\s+now\s+acp\s+1/2\s+Fix the build\s+/home/dev/mobile$", lines[0]), lines[0]
    assert re.match(rf"^{SID}\s+2h ago\s+claude\s+1/3\s+Add rate limiting\s+/home/dev/api$", lines[1]), lines[1]


def test_sessions_with_nothing_found_says_where_it_looked() -> None:
    out = planwatch("sessions")
    assert out.returncode == 0
    assert out.stdout.startswith("No transcripts found. Looked in: ")
    assert str(paths.claude_projects_dir()) in out.stdout
    assert planwatch("sessions", "--json").stdout == "[]\n"


def test_no_raw_control_character_or_escape_is_ever_printed() -> None:
    folder = paths.claude_projects_dir() / "-home-dev-evil"
    folder.mkdir(parents=True)
    evil = "\x1b[2J\x1b]8;;https://evil.example\x07click\x1b]8;;\x07 \u202eреверс \x9b31m\x00"
    with (folder / f"{SID}.jsonl").open("wb") as fh:
        w = corpus.ClaudeWriter(fh, SID, "/home/dev/\x1b[31mevil")
        w.prompt("Title " + evil)
        w.todo_write([("Item " + evil, "in_progress"), ("tab\tand\nnewline", "pending")])
    for args in (["show", SID], ["show", "--plain", SID], ["sessions"], ["sessions", "--json"]):
        out = planwatch(*args)
        assert out.returncode == 0, out.stderr
        assert not UNSAFE.search(out.stdout), (args, out.stdout)
        assert "\\x1b" in out.stdout  # shown as a visible escape instead
    plain = planwatch("show", "--plain", SID).stdout.splitlines()
    assert plain[2] == "pending\ttab and newline"  # one item, one line


def test_sessions_and_show_on_the_fixture_layouts(fixture_path) -> None:  # type: ignore[no-untyped-def]
    root = str(fixture_path("transcripts"))
    listing = planwatch("sessions", "--root", root, script=True)
    assert listing.returncode == 0, listing.stderr
    assert not UNSAFE.search(listing.stdout)
    rows = json.loads(planwatch("sessions", "--json", "--root", root).stdout)
    assert {row["harness"] for row in rows} == {
        "claude",
        "codex",
        "acp",
        "gemini",
        "opencode",
        "qwen",
        "pi",
        "copilot",
        "kilo",
        "cline",
    }
    for row in rows:
        assert {"id", "harness", "title", "cwd", "path", "updated", "source", "done", "total"} <= set(row)
        assert 0 <= row["done"] <= row["total"] or row["total"] == 0
    # `show` on a few: the first session of each harness and every one with odd text.
    picked = {row["harness"]: row for row in reversed(rows)}.values()
    picked = [*picked, *(row for row in rows if row["title"] and "\\x" in row["title"])]
    for row in picked:
        shown = planwatch("show", "--plain", "--root", root, row["id"])
        assert shown.returncode == 0, shown.stderr
        lines = shown.stdout.splitlines()
        assert re.match(
            r"^# (none|claude_desktop|claude_todos|claude_tasks|codex|acp|gemini_todos|opencode_todos|qwen_todos|pi_todos|copilot_todos|kilo_todos|cline_tasks)$",
            lines[0],
        )
        in_document = False
        for line in lines[1:]:
            # A plan document comes whole after its `# document` header, each line framed.
            if line.startswith("# "):
                in_document = line.startswith("# document ")
            elif in_document:
                assert line == ">" or line.startswith("> "), line
            else:
                assert re.match(r"^(pending|in_progress|completed|cancelled|blocked)\t", line), line
        assert not UNSAFE.search(shown.stdout)


def test_with_plan_reading_off_no_plan_is_shown(isolated_env) -> None:  # type: ignore[no-untyped-def]
    _claude_with_subagent()
    isolated_env.config.write_text("readAgentPlans: false\n")
    out = planwatch("show", "--plain", SID)
    assert out.returncode == 0
    assert out.stdout == "# none\n"
    assert "reading agents' plans is off" in out.stderr


def test_show_plain_keeps_every_item_on_one_line_whatever_its_text() -> None:
    # Any reader splitting the output into lines (str.splitlines splits on more than
    # \n: \r, \v, \f, \x1c-\x1e, \x85, U+2028, U+2029) must see one line per item.
    folder = paths.claude_projects_dir() / "-home-dev-lines"
    folder.mkdir(parents=True)
    texts = ["a\rb", "c\r\nd", "e\vf\fg", "h\x1ci\x1dj\x1ek", "l\x85m", "n\u2028o\u2029p", "q\tr\ns"]
    with (folder / f"{SID}.jsonl").open("wb") as fh:
        w = corpus.ClaudeWriter(fh, SID, "/home/dev/lines")
        w.prompt("Line breaks \u2028 in the title")
        w.todo_write([(t, "pending") for t in texts])
    out = planwatch("show", "--plain", SID)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "# claude_todos" and len(lines) == 1 + len(texts), lines
    assert all(line.startswith("pending\t") and line.count("\t") == 1 for line in lines[1:])
    rows = json.loads(planwatch("sessions", "--json").stdout)
    assert len(rows[0]["title"].splitlines()) == 1


def test_lone_surrogates_in_a_transcript_and_in_a_file_name_are_listed_as_escapes() -> None:
    """A prompt, a folder and an item holding `\\ud800` (an escape of no character, which
    the standard library decodes), and a session under a folder whose name is not UTF-8
    (Python keeps its byte as `\\udcff`): every listing and `show` print them as escapes,
    in valid UTF-8, and succeed; the caches are written (the file name escaped in them)
    and read back, and the next listings say the same. They used to stop with "a bug"."""
    folder = paths.claude_projects_dir() / "-home-dev-s"
    folder.mkdir(parents=True)
    # Written as the standard library writes them: `\ud800` escapes in the JSON text.
    buffer = io.BytesIO()
    w = corpus.ClaudeWriter(buffer, SID, "/home/dev/s<D800>")
    w.prompt("Fix <D800> the <DCFF> bug")
    w.todo_write([("Step <D800> one", "pending")])
    text = buffer.getvalue().replace(b"<D800>", b"\\ud800").replace(b"<DCFF>", b"\\udcff")
    (folder / f"{SID}.jsonl").write_bytes(text)
    other = "6e0c2a4b-1f3d-4e6a-9b8c-7d0e1f2a3b4c"
    odd = Path(os.fsdecode(os.fsencode(paths.claude_projects_dir()) + b"/-home-dev-\xff"))
    odd.mkdir()
    with (odd / f"{other}.jsonl").open("wb") as fh:
        corpus.ClaudeWriter(fh, other, "/home/dev/plain").prompt("A plain title")
    runs = [planwatch("sessions", "--json") for _ in range(3)]  # cold, warm, remembered
    assert all(run.returncode == 0 and run.stderr == "" for run in runs), [run.stderr for run in runs]
    assert runs[0].stdout == runs[1].stdout == runs[2].stdout
    rows = {row["id"]: row for row in json.loads(runs[0].stdout)}
    assert (rows[SID]["title"], rows[SID]["cwd"]) == ("Fix \\ud800 the \\udcff bug", "/home/dev/s\\ud800")
    assert rows[other]["path"].endswith("/-home-dev-\\udcff/" + f"{other}.jsonl")
    assert (paths.cache_dir() / "warm-start.json").is_file()
    plain = planwatch("sessions")
    assert plain.returncode == 0 and "Fix \\ud800 the \\udcff bug" in plain.stdout, plain.stderr
    shown = planwatch("show", "--plain", SID)
    assert (shown.returncode, shown.stdout) == (0, "# claude_todos\npending\tStep \\ud800 one\n"), shown.stderr


def test_databases_under_a_folder_whose_name_is_not_utf8_are_read(tmp_path: Path) -> None:
    """A Copilot CLI session folder, an OpenCode and a Kilo data folder and a Cline one,
    each under a folder whose name holds a byte that is not UTF-8: every database is
    opened (its name given to SQLite as its own bytes) and its plan counted; it used to
    stop the listing with "a bug"."""
    import shutil

    fixtures = ROOT / "fixtures" / "transcripts"
    odd = Path(os.fsdecode(os.fsencode(tmp_path) + b"/odd-\xff"))
    copilot = next((fixtures / "copilot" / "session-state").iterdir())
    shutil.copytree(copilot, odd / "copilot" / "session-state" / copilot.name)
    shutil.copytree(fixtures / "opencode", odd / "opencode")
    shutil.copytree(fixtures / "kilo", odd / "kilo")
    shutil.copytree(fixtures / "cline" / "data", odd / "cline" / "data")
    roots = [odd / "copilot" / "session-state", odd / "opencode", odd / "kilo", odd / "cline" / "data"]
    args = [arg for root in roots for arg in ("--root", str(root))]
    runs = [planwatch("sessions", "--json", *args) for _ in range(2)]
    assert [(run.returncode, run.stderr) for run in runs] == [(0, ""), (0, "")]
    assert runs[0].stdout == runs[1].stdout
    rows = json.loads(runs[0].stdout)
    assert {"copilot", "opencode", "kilo", "cline"} <= {row["harness"] for row in rows}
    assert all(row["total"] > 0 for row in rows if row["harness"] in ("copilot", "kilo")), rows


def test_a_database_row_whose_text_is_not_utf8_costs_only_that_text(tmp_path: Path) -> None:
    """One row's text holding bytes that are not UTF-8 (a session's title, a todo's, a
    board task's) in a Copilot CLI, OpenCode, Kilo and Cline database: every session is
    listed with its plan, the bad bytes shown as U+FFFD, nothing reported. It used to
    lose every session of the database (or its plan) over one row."""
    import shutil
    import sqlite3

    fixtures = ROOT / "fixtures" / "transcripts"
    copilot = next((fixtures / "copilot" / "session-state").iterdir())
    shutil.copytree(copilot, tmp_path / "copilot" / "session-state" / copilot.name)
    shutil.copytree(fixtures / "opencode", tmp_path / "opencode")
    shutil.copytree(fixtures / "kilo", tmp_path / "kilo")
    shutil.copytree(fixtures / "cline" / "data", tmp_path / "cline" / "data")
    roots = [
        tmp_path / "copilot" / "session-state",
        tmp_path / "opencode",
        tmp_path / "kilo",
        tmp_path / "cline" / "data",
    ]
    args = [arg for root in roots for arg in ("--root", str(root))]
    clean = planwatch("sessions", "--json", *args)
    assert clean.returncode == 0 and clean.stderr == "", clean.stderr
    for db, table in (
        (tmp_path / "copilot" / "session-state" / copilot.name / "session.db", "todos"),
        (tmp_path / "opencode" / "opencode.db", "session"),
        (tmp_path / "kilo" / "kilo.db", "session"),
        (tmp_path / "cline" / "data" / "db" / "teams.db", "team_tasks"),
    ):
        with sqlite3.connect(db) as connection:
            connection.execute(f"UPDATE {table} SET title = title || CAST(X'20EDA080FF' AS TEXT)")
        connection.close()
    damaged = planwatch("sessions", "--json", *args)
    assert damaged.returncode == 0 and damaged.stderr == "", damaged.stderr
    before, after = json.loads(clean.stdout), json.loads(damaged.stdout)
    assert [(r["id"], r["done"], r["total"]) for r in after] == [(r["id"], r["done"], r["total"]) for r in before]
    assert any(r["title"] != b["title"] and "\ufffd" in r["title"] for r, b in zip(after, before, strict=True))


def test_sessions_json_rows_are_the_text_json_dumps_writes_with_indent_one() -> None:
    """`sessions --json` lays its rows out by a template (rows_json): byte for byte what
    `json.dumps(rows, ensure_ascii=False, indent=1)` writes of the rows' fields, every
    text made safe, for every kind of value and for strings holding what could look like
    a separator or a template's own `%s`."""
    from planwatch.core.listing import Listed
    from planwatch.core.text import safe_text

    hostile = 'x\ny "q" \\ é 😀 \x00 \x1b[31m \u2028 ,\n  "k": 1 %s %(id)s },\n  {"'
    rows = [
        Listed(
            hostile,
            "claude",
            hostile,
            hostile,
            hostile,
            hostile,
            "2026-01-01T00:00:00+00:00",
            "claude_todos",
            3,
            7,
            True,
            hostile,
            2,
        ),
        Listed("b", "copilot", None, None, None, "/p", "2026-01-01T00:00:00.5+00:00", None, 0, 0, False, None, 0),
        Listed("c}", "codex", "}", "{", "", "p}", "2025-12-31T23:59:59+00:00", "codex_plan", -1, 10**20, False, "", 0),
    ]
    made_safe = {"id", "title", "cwd", "git_branch", "path", "parent_id"}

    def expected(rows: list[Listed]) -> str:
        return json.dumps(
            [
                {
                    name: safe_text(value, single_line=True) if name in made_safe and value is not None else value
                    for name, value in row._asdict().items()
                }
                for row in rows
            ],
            ensure_ascii=False,
            indent=1,
        )

    for case in (rows, [], rows[:1], rows[1:], rows[::-1]):
        assert cli_sessions.rows_json(case) == expected(case)
    assert json.loads(cli_sessions.rows_json(rows))[0]["title"] == safe_text(hostile, single_line=True)


def test_sessions_into_a_pipe_its_reader_closed_exits_0_and_says_nothing() -> None:
    """`planwatch sessions | head` (or `| grep -q`): a reader that has stopped reading is
    no error. What was still buffered goes nowhere; the status is 0 and nothing is said
    (it used to be 120 and "lost sys.stderr", whenever the reader left before the end)."""
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the first line
    try:
        out = subprocess.run(
            [sys.executable, "-m", "planwatch.tui.cli", "sessions", "--root", str(ROOT / "fixtures" / "transcripts")],
            cwd=ROOT,
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            env=os.environ.copy(),
            timeout=60,
        )
    finally:
        os.close(write_end)
    assert out.returncode == 0, out.stderr
    # What is said of the fixtures' broken sources (each naming its file) is not about the pipe.
    sources = ("planwatch: skipped ", f"planwatch: {ROOT}/")
    said = [line for line in out.stderr.splitlines() if not line.startswith(sources)]
    assert said == []


def test_a_problem_is_said_as_what_happened_skipped_or_the_session_shown_without_its_plan(tmp_path: Path) -> None:
    """A source none of whose sessions is listed (a database that cannot be opened) is
    said skipped; a session still listed (a Copilot CLI session whose database cannot be
    read, a pi tree cut short) is not said skipped: its sentence says how it is shown."""
    import shutil

    from opencode_db import corrupt_database_beside_a_claude_session

    kilo = corrupt_database_beside_a_claude_session(paths.claude_projects_dir(), tmp_path / "kilo.db")
    copilot = ROOT / "fixtures/transcripts/rules/copilot/session-state/e1000000-0000-4000-8000-000000000005"
    shutil.copytree(copilot, paths.copilot_sessions_dir() / copilot.name)
    cut = "--home-dev-lab--/2026-11-29T13-00-00-000Z_c3000000-0000-7000-8000-000000000004.jsonl"
    (paths.pi_sessions_dir() / cut).parent.mkdir(parents=True)
    shutil.copy(ROOT / "fixtures/transcripts/rules/pi/sessions" / cut, paths.pi_sessions_dir() / cut)
    out = subprocess.run(
        [sys.executable, "-m", "planwatch.tui.cli", "sessions", "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "KILO_DB": str(kilo)},
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert {row["harness"] for row in json.loads(out.stdout)} == {"claude", "copilot", "pi"}
    said = sorted(out.stderr.splitlines())
    database = paths.copilot_sessions_dir() / copilot.name / "session.db"
    corrupt = "corrupt or not an SQLite database (file is not a database)"
    assert said == [
        f"planwatch: {database}: {corrupt}; the session is shown without a plan",
        f"planwatch: {paths.pi_sessions_dir() / cut}: an entry names the parent '0badf00d', which the file does not "
        "hold; the session is shown without the plan that branch may hold",
        f"planwatch: skipped {kilo}: {corrupt}",
    ]
