"""Copilot CLI sessions on the command line, run as real subprocesses: found under
COPILOT_HOME, by `--root`, by the settings' transcript folders, by path (the session's
folder or any of its files) and by id or a unique prefix; listed with harness `copilot`;
shown with the `# copilot_todos` header; a database we cannot take named once on stderr
while every other session is listed."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import cli_run
import pytest

from planwatch.core import paths

ROOT = Path(__file__).resolve().parents[2]
SAMPLE_ID = "5e806925-4250-446b-9e18-4cd8ceb54145"
SAMPLE = ROOT / "fixtures/samples/copilot/session-state" / SAMPLE_ID
RULES = ROOT / "fixtures/transcripts/rules/copilot/session-state"
PLAIN = [
    "# copilot_todos",
    "completed\tInspecting the config loader",
    "completed\tAdding YAML parsing",
    "blocked\tAdding a TOML fallback",
    "completed\tRunning the config tests",
]


def planwatch(*args: str) -> subprocess.CompletedProcess[str]:
    return cli_run.planwatch(*args, timeout=120)


def home_session() -> Path:
    folder = paths.copilot_sessions_dir() / SAMPLE_ID
    shutil.copytree(SAMPLE, folder)
    return folder


def test_copilot_sessions_are_listed_from_copilot_home_with_harness_copilot() -> None:
    home_session()
    listing = planwatch("sessions", "--json")
    assert listing.returncode == 0, listing.stderr
    [row] = json.loads(listing.stdout)
    assert (row["id"], row["harness"], row["source"]) == (SAMPLE_ID, "copilot", "copilot_todos")
    assert (row["done"], row["total"]) == (3, 4)
    assert row["cwd"] == "/home/dev/copilot-todos"
    assert row["title"] == "Add YAML support to the config loader and keep a todo list as you go. [[script:main]]"
    assert row["updated"].startswith("2026-12-01T18:41:15.748")
    assert listing.stderr == ""


def test_show_plain_header_is_copilot_todos_by_id_prefix_by_folder_and_by_each_file() -> None:
    folder = home_session()
    for target in (
        SAMPLE_ID[:8],
        SAMPLE_ID,
        str(folder),
        *(str(folder / n) for n in ("events.jsonl", "session.db", "workspace.yaml")),
    ):
        shown = planwatch("show", "--plain", target)
        assert shown.returncode == 0, (target, shown.stderr)
        assert shown.stdout.splitlines() == PLAIN, target


@pytest.mark.parametrize("before", [b"garbage\n", b'{"type":"torn', b"\n\n"])
def test_show_reads_a_copilot_folder_whose_log_opens_with_a_line_not_its_start(tmp_path: Path, before: bytes) -> None:
    """A torn or foreign line before the log's `session.start` is read past, as the
    listing reads past it: `show` takes the folder and each of its files as ever (it
    used to call the folder "a folder, not a transcript")."""
    folder = tmp_path / "session-state" / SAMPLE_ID
    shutil.copytree(SAMPLE, folder)
    log = folder / "events.jsonl"
    log.write_bytes(before + b"\n" + log.read_bytes())
    for target in (folder, log, folder / "session.db"):
        shown = planwatch("show", "--plain", str(target))
        assert (shown.returncode, shown.stdout.splitlines()) == (0, PLAIN), (target, shown.stderr)
    listed = planwatch("sessions", "--json", "--root", str(folder))
    assert [row["id"] for row in json.loads(listed.stdout)] == [SAMPLE_ID], listed.stderr


def test_show_tells_a_person_what_a_copilot_step_waits_for() -> None:
    shown = planwatch("show", "--root", str(RULES), "e1000000-0000-4000-8000-000000000002")
    assert shown.returncode == 0, shown.stderr
    assert "Copilot CLI todos 1/4" in shown.stdout
    assert "[ ] Upload it  waits for “Sign the wheel”, “Write the notes”" in shown.stdout


@pytest.mark.parametrize("how", ["--root", "settings"])
def test_copilot_sessions_elsewhere_are_found_by_root_and_by_the_settings_folders(tmp_path: Path, how: str) -> None:
    elsewhere = tmp_path / "copied-copilot"
    shutil.copytree(SAMPLE, elsewhere / "session-state" / SAMPLE_ID)
    if how == "--root":
        listing = planwatch("sessions", "--json", "--root", str(elsewhere))
    else:
        config = paths.config_file()
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text(f"transcriptRoots:\n  - {elsewhere}\n")
        listing = planwatch("sessions", "--json")
    assert listing.returncode == 0, listing.stderr
    assert [(row["id"], row["harness"], row["total"]) for row in json.loads(listing.stdout)] == [
        (SAMPLE_ID, "copilot", 4)
    ]


def test_a_bad_copilot_database_is_named_once_and_every_other_session_listed() -> None:
    listing = planwatch("sessions", "--json", "--root", str(RULES))
    assert listing.returncode == 0, listing.stderr
    rows = {row["id"]: row for row in json.loads(listing.stdout)}
    assert len(rows) == 10
    said = [line for line in listing.stderr.splitlines() if line]
    assert len(said) == 3
    for n, wrong in (("5", "corrupt"), ("6", "unknown schema"), ("8", "no title")):
        sid = f"e1000000-0000-4000-8000-00000000000{n}"
        assert rows[sid]["source"] is None and rows[sid]["total"] == 0
        assert rows[sid]["title"]  # still listed, with its title
        [line] = [line for line in said if f"{sid}/session.db" in line]
        assert wrong in line
    assert rows["e1000000-0000-4000-8000-000000000001"]["total"] == 3
    # A status Copilot CLI does not write reads as pending: that plan is shown, nothing said.
    assert (
        rows["e1000000-0000-4000-8000-000000000007"]["done"],
        rows["e1000000-0000-4000-8000-000000000007"]["total"],
    ) == (1, 2)
    shown = planwatch("show", "--plain", "--root", str(RULES), "e1000000-0000-4000-8000-000000000005")
    assert shown.returncode == 0 and shown.stdout.splitlines() == ["# none"]


def test_a_warm_copilot_listing_is_the_cold_one() -> None:
    home_session()
    cold = planwatch("sessions", "--json", "--root", str(RULES))
    warm = planwatch("sessions", "--json", "--root", str(RULES))
    assert cold.returncode == warm.returncode == 0
    assert warm.stdout == cold.stdout and warm.stderr == cold.stderr


def test_two_copilot_folders_sharing_a_log_are_two_sessions_the_copy_naming_its_origin() -> None:
    """The folder is the session: a folder copied whole (its log's session.start naming
    the original's id) is listed beside the original, the id its log names kept as
    lineage, on a cold listing and on a warm one."""
    home_session()
    copy_id = "0c0c0c0c-0000-4000-8000-000000000001"
    shutil.copytree(SAMPLE, paths.copilot_sessions_dir() / copy_id)
    cold = planwatch("sessions", "--json")
    warm = planwatch("sessions", "--json")
    assert cold.returncode == warm.returncode == 0, (cold.stderr, warm.stderr)
    assert warm.stdout == cold.stdout
    rows = {row["id"]: row for row in json.loads(cold.stdout)}
    assert sorted(rows) == sorted([SAMPLE_ID, copy_id])
    assert rows[SAMPLE_ID]["parent_id"] is None and rows[copy_id]["parent_id"] == SAMPLE_ID
    assert (rows[copy_id]["done"], rows[copy_id]["total"]) == (3, 4)
    shown = planwatch("show", copy_id)
    assert shown.returncode == 0, shown.stderr
    assert f"forked from {SAMPLE_ID}" in shown.stdout


_MODULES = """
import json, sys
from planwatch.tui.cli import main
main(["sessions", "--json"])
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""


def test_a_warm_copilot_listing_loads_neither_sqlite_nor_msgspec_nor_the_plan_replay() -> None:
    """Warm, every session unchanged: no database is opened (sqlite3 is not loaded);
    the cold run loads it. No run loads msgspec (about 12 ms to import): a few folders'
    caches are written and read by the standard library, their temp files made without
    `tempfile` (random and shutil with it, about 3-7 ms). The cold run keeps the
    listing (core/listing.py) and the next ones answer from it. None loads the plan
    replay of the line harnesses (no subagent file to merge) or the reading code of
    files of lines. The remembered listing logs nothing and forks no worker: neither
    `logging` nor `queue` is loaded, nor platformdirs (the folders come from the XDG
    variables), nor shutil (argparse's help layout asks it for the terminal's width),
    nor the index; and answered from the kept listing, neither `typing`, `datetime` nor `threading`."""
    home_session()
    loaded = []
    for run in ("cold", "warm", "remembered"):
        out = subprocess.run([sys.executable, "-c", _MODULES], cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        assert {row["harness"] for row in json.loads(out.stdout)} == {"copilot"}
        modules = set(json.loads(out.stderr.strip().splitlines()[-1]))
        loaded.append({name for name in ("msgspec", "sqlite3", "tempfile") if name in modules})
        assert {
            "planwatch.core.replay",
            "planwatch.core.transcripts.events",
            "planwatch.core.transcripts.lines",
        }.isdisjoint(modules)
        if run != "cold":
            assert {"logging", "queue", "platformdirs", "shutil", "planwatch.core.index"}.isdisjoint(modules)
        if run == "remembered":  # nor `typing`, `datetime` or `threading` (about 3, 2 and 0.6 ms)
            assert {"typing", "datetime", "threading"}.isdisjoint(modules)
    assert loaded == [{"sqlite3"}, set(), set()]
