"""Qwen Code and pi sessions on the command line (docs/store.md, For scripts), run as real subprocesses:
found under their own folders, by `--root`, by the settings' transcript folders, by path and by id (or a unique prefix),
listed with their harness, shown with their source's header."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from cli_run import planwatch

from planwatch.core import paths

ROOT = Path(__file__).resolve().parents[2]
QWEN_SAMPLE = ROOT / "fixtures/samples/qwen/650333ef-8d48-49e8-abbd-2f740e50ee0a.jsonl"
PI_SAMPLE = ROOT / "fixtures/samples/pi/2026-12-01T18-58-51-609Z_01a232f9-5858-71c1-b1b0-7ed98b089974.jsonl"
QWEN_RULES = ROOT / "fixtures/transcripts/rules/qwen/projects"
PI_RULES = ROOT / "fixtures/transcripts/rules/pi/sessions"
QWEN_ID = "650333ef-8d48-49e8-abbd-2f740e50ee0a"
PI_ID = "01a232f9-5858-71c1-b1b0-7ed98b089974"


def _home_sessions() -> None:
    chats = paths.qwen_projects_dir() / "-home-dev-qwen-todos" / "chats"
    chats.mkdir(parents=True)
    shutil.copy(QWEN_SAMPLE, chats / QWEN_SAMPLE.name)
    folder = paths.pi_sessions_dir() / "--home-dev-pi-todos--"
    folder.mkdir(parents=True)
    shutil.copy(PI_SAMPLE, folder / PI_SAMPLE.name)


def test_qwen_and_pi_sessions_are_listed_from_their_own_folders() -> None:
    _home_sessions()
    rows = {row["id"]: row for row in json.loads(planwatch("sessions", "--json").stdout)}
    assert rows[QWEN_ID]["harness"] == "qwen" and rows[PI_ID]["harness"] == "pi"
    assert rows[QWEN_ID]["source"] == "qwen_todos" and (rows[QWEN_ID]["done"], rows[QWEN_ID]["total"]) == (3, 3)
    assert rows[PI_ID]["source"] == "pi_todos" and (rows[PI_ID]["done"], rows[PI_ID]["total"]) == (3, 4)
    assert rows[QWEN_ID]["cwd"] == "/home/dev/qwen-todos" and rows[PI_ID]["cwd"] == "/home/dev/pi-todos"
    assert rows[QWEN_ID]["title"].startswith("Add YAML support") and rows[PI_ID]["title"].startswith("Add YAML support")


def test_show_plain_headers_qwen_todos_and_pi_todos_by_id_prefix_and_by_path() -> None:
    _home_sessions()
    by_prefix = planwatch("show", "--plain", QWEN_ID[:8])
    assert by_prefix.returncode == 0, by_prefix.stderr
    assert by_prefix.stdout.splitlines() == [
        "# qwen_todos",
        "completed\tInspect the current config loader",
        "completed\tAdd YAML parsing to load_config()",
        "completed\tRun the config tests",
    ]
    by_path = planwatch("show", "--plain", str(PI_SAMPLE))
    assert by_path.returncode == 0, by_path.stderr
    assert by_path.stdout.splitlines() == [
        "# pi_todos",
        "completed\tInspect the current config loader",
        "completed\tAdd YAML parsing to load_config()",
        "pending\tAdd a TOML fallback",
        "completed\tRun the config tests",
    ]
    assert planwatch("show", "--plain", PI_ID).stdout == by_path.stdout
    # A Qwen Code chat given by path is read as Qwen's, not as a Claude transcript.
    assert planwatch("show", "--plain", str(QWEN_SAMPLE)).stdout == by_prefix.stdout


def test_root_pointing_at_their_folders_and_a_cut_tree_said_once() -> None:
    rows = json.loads(planwatch("sessions", "--json", "--root", str(QWEN_RULES), "--root", str(PI_RULES)).stdout)
    assert {row["harness"] for row in rows} == {"qwen", "pi"}
    assert len(rows) == len(list(QWEN_RULES.rglob("*.jsonl"))) + len(list(PI_RULES.rglob("*.jsonl")))
    listing = planwatch("sessions", "--root", str(PI_RULES))
    said = [line for line in listing.stderr.splitlines() if "0badf00d" in line]
    assert len(said) == 1 and "c3000000-0000-7000-8000-000000000004" in said[0]
    fork = planwatch("show", "--root", str(PI_RULES), "c3000000-0000-7000-8000-0000000000f1")
    assert fork.returncode == 0, fork.stderr
    assert "c3000000-0000-7000-8000-000000000001" in fork.stdout  # forked from …


@pytest.mark.parametrize("how", ["--root", "settings"])
def test_qwen_and_pi_sessions_elsewhere_are_found_by_root_and_by_the_settings_folders(tmp_path: Path, how: str) -> None:
    elsewhere = tmp_path / "copied"
    chats = elsewhere / "qwen" / "-home-dev-qwen-todos" / "chats"
    chats.mkdir(parents=True)
    shutil.copy(QWEN_SAMPLE, chats / QWEN_SAMPLE.name)
    pi = elsewhere / "pi" / "--home-dev-pi-todos--"
    pi.mkdir(parents=True)
    shutil.copy(PI_SAMPLE, pi / PI_SAMPLE.name)
    folders = [elsewhere / "qwen", elsewhere / "pi"]
    if how == "--root":
        listing = planwatch("sessions", "--json", *(arg for f in folders for arg in ("--root", str(f))))
    else:
        config = paths.config_file()
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text("transcriptRoots:\n" + "".join(f"  - {f}\n" for f in folders))
        listing = planwatch("sessions", "--json")
    assert listing.returncode == 0, listing.stderr
    assert sorted((row["id"], row["harness"], row["done"], row["total"]) for row in json.loads(listing.stdout)) == [
        (PI_ID, "pi", 3, 4),
        (QWEN_ID, "qwen", 3, 3),
    ]


def test_qwen_waits_for_is_shown_to_a_person() -> None:
    demo = ROOT / "fixtures/transcripts/qwen/projects/-home-dev-cli/chats/3e7b1c90-5d2a-4f61-9c8e-2a4b6d8f0c13.jsonl"
    shown = planwatch("show", str(demo))
    assert shown.returncode == 0, shown.stderr
    line = next(line for line in shown.stdout.splitlines() if "Document installing the completions" in line)
    assert "waits for" in line and "Generate the zsh completion script" in line


def test_a_warm_pi_listing_names_a_cut_tree_as_the_cold_one_does_and_no_intact_tree() -> None:
    """A warm listing replays only the lines that carry each file's facts: the tree it
    holds then is partial, and must not be judged. An intact tree names no problem on
    either run; a parent that truly points nowhere is named on both."""
    _home_sessions()
    shutil.copytree(PI_RULES, paths.pi_sessions_dir(), dirs_exist_ok=True)
    cold = planwatch("sessions")
    warm = planwatch("sessions")
    assert cold.returncode == warm.returncode == 0, (cold.stderr, warm.stderr)
    assert warm.stdout == cold.stdout
    for run in (cold, warm):
        said = run.stderr.splitlines()
        assert len(said) == 1, said  # the cut tree, and no intact one
        assert "0badf00d" in said[0] and "c3000000-0000-7000-8000-000000000004" in said[0]
