"""Finding transcripts per harness (docs/reading.md: Sessions, Claude Code, Codex CLI, ACP agents)."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import zstandard

from planwatch.core import paths
from planwatch.core.transcripts.discover import classify, discover
from planwatch.core.transcripts.sniff import sniff_harness

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("bench_corpus", ROOT / "tests" / "bench" / "corpus.py")
assert _spec and _spec.loader
corpus = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(corpus)

SAMPLES = Path(__file__).resolve().parents[2] / "fixtures" / "samples"


def _claude(path: Path, session_id: str, *, agent_id: str | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as fh:
        w = corpus.ClaudeWriter(fh, session_id, "/home/dev/api", agent_id=agent_id)
        w.prompt("Do the thing")
    return path


def _codex(path: Path, thread_id: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as fh:
        w = corpus.CodexWriter(fh)
        w.meta(thread_id, "/home/dev/api")
    return path


def _touch(path: Path, when: float) -> None:
    os.utime(path, (when, when))


def test_claude_sessions_and_both_subagent_layouts_are_found() -> None:
    projects = paths.claude_projects_dir()
    slug = projects / "-home-dev-api"
    main = _claude(slug / "11111111-1111-4111-8111-111111111111.jsonl", "11111111-1111-4111-8111-111111111111")
    new_layout = _claude(
        slug / "11111111-1111-4111-8111-111111111111" / "subagents" / "agent-a1.jsonl",
        "11111111-1111-4111-8111-111111111111",
        agent_id="a1",
    )
    (new_layout.parent / "agent-a1.meta.json").write_text('{"agentType": "general-purpose"}')
    old_layout = _claude(slug / "agent-b2.jsonl", "11111111-1111-4111-8111-111111111111", agent_id="b2")
    # Not sessions: other JSONL kept inside a session's folder.
    _claude(slug / "11111111-1111-4111-8111-111111111111" / "tool-results" / "x.jsonl", "zzz")

    found = {f.path: f for f in discover([projects])}
    assert set(found) == {main, new_layout, old_layout}
    assert found[main].harness == "claude" and not found[main].subagent
    assert found[new_layout].subagent and found[new_layout].parent_hint == "11111111-1111-4111-8111-111111111111"
    assert found[new_layout].agent_id == "a1"
    assert found[old_layout].subagent and found[old_layout].parent_hint is None  # from its records
    assert found[old_layout].agent_id == "b2"


def test_codex_rollouts_live_and_archived_and_plain_beats_zst() -> None:
    sessions, archived = paths.codex_session_dirs()
    live = _codex(
        corpus.codex_path(sessions, "019a0000-0000-7000-8000-000000000001"), "019a0000-0000-7000-8000-000000000001"
    )
    old = _codex(
        archived / "rollout-2026-01-02T03-04-05-019a0000-0000-7000-8000-000000000002.jsonl",
        "019a0000-0000-7000-8000-000000000002",
    )
    both = _codex(
        corpus.codex_path(sessions, "019a0000-0000-7000-8000-000000000003"), "019a0000-0000-7000-8000-000000000003"
    )
    twin = both.with_name(both.name + ".zst")
    twin.write_bytes(zstandard.ZstdCompressor().compress(both.read_bytes()))
    only_zst = corpus.codex_path(sessions, "019a0000-0000-7000-8000-000000000004").with_suffix(".jsonl.zst")
    only_zst.write_bytes(
        zstandard.ZstdCompressor().compress(
            b'{"timestamp":"2026-11-30T08:00:00Z","type":"session_meta","payload":{"id":"x"}}\n'
        )
    )

    found = {f.path: f for f in discover(paths.codex_session_dirs())}
    assert set(found) == {live, old, both, only_zst}
    assert {f.harness for f in found.values()} == {"codex"}


def test_acp_logs_are_found_in_the_tap_folder(fixture_path) -> None:  # type: ignore[no-untyped-def]
    logs = paths.acp_log_dir()
    logs.mkdir(parents=True)
    log = logs / "2026-11-30T08-00-00-1234.jsonl"
    log.write_bytes((SAMPLES / "acp-codex-agent-stream.jsonl").read_bytes())
    [found] = discover([logs])
    assert found.path == log and found.harness == "acp"


def test_extra_roots_are_sniffed_per_file(tmp_path: Path) -> None:
    root = tmp_path / "extra"
    root.mkdir()
    for sample in [*SAMPLES.glob("*.jsonl"), *SAMPLES.glob("qwen/*.jsonl"), *SAMPLES.glob("pi/*.jsonl")]:
        (root / sample.name).write_bytes(sample.read_bytes())
    (root / "notes.jsonl").write_text('{"hello": "world"}\n')
    (root / "empty.jsonl").write_bytes(b"")
    (root / "binary.jsonl").write_bytes(os.urandom(2048))
    found = {f.path.name: f.harness for f in discover([root])}
    assert found == {
        "claude-code-todowrite.jsonl": "claude",
        "codex-rollout.jsonl": "codex",
        "gemini-cli-session.jsonl": "gemini",
        "acp-codex-agent-stream.jsonl": "acp",
        "650333ef-8d48-49e8-abbd-2f740e50ee0a.jsonl": "qwen",
        "2026-12-01T18-58-51-609Z_01a232f9-5858-71c1-b1b0-7ed98b089974.jsonl": "pi",
    }


def test_a_gemini_session_with_a_byte_order_mark_is_found_under_any_root(tmp_path: Path) -> None:
    """A byte order mark before a Gemini CLI session (an editor's save), a legacy whole
    document or a session of lines, is read past where the file is judged by its
    content (an extra root), as in Gemini's own folder."""
    legacy = ROOT / "fixtures/transcripts/rules/gemini/tmp/oldproj/chats/session-2026-11-29T17-00-a1000000.json"
    chats = tmp_path / "extra" / "proj" / "chats"
    chats.mkdir(parents=True)
    (chats / legacy.name).write_bytes(b"\xef\xbb\xbf" + legacy.read_bytes())
    lines = SAMPLES / "gemini-cli-session.jsonl"
    (chats / "session-2026-11-30T10-00-b2000000.jsonl").write_bytes(b"\xef\xbb\xbf" + lines.read_bytes())
    found = {f.path.name: f.harness for f in discover([tmp_path / "extra"])}
    assert found == {legacy.name: "gemini", "session-2026-11-30T10-00-b2000000.jsonl": "gemini"}


def test_a_first_line_longer_than_the_sniff_window_is_judged_by_its_bytes(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    path.write_bytes(b'{"jsonrpc":"2.0","method":"session/update","params":{"x":"' + b"a" * 200_000 + b'"}}\n')
    assert sniff_harness(path) == "acp"


def test_newest_first_and_missing_roots_skipped(tmp_path: Path) -> None:
    projects = paths.claude_projects_dir()
    a = _claude(projects / "-a" / "aaaaaaaa-0000-4000-8000-000000000001.jsonl", "aaaaaaaa-0000-4000-8000-000000000001")
    b = _claude(projects / "-a" / "aaaaaaaa-0000-4000-8000-000000000002.jsonl", "aaaaaaaa-0000-4000-8000-000000000002")
    _touch(a, 2_000_000_000)
    _touch(b, 1_900_000_000)
    found = discover([tmp_path / "nowhere", projects])
    assert [f.path for f in found] == [a, b]


def test_classify_names_what_a_new_file_is() -> None:
    projects = paths.claude_projects_dir()
    sub = _claude(projects / "-x" / "sid" / "subagents" / "agent-q.jsonl", "sid", agent_id="q")
    item = classify(sub)
    assert item is not None and item.subagent and item.parent_hint == "sid"
    assert classify(projects / "-x" / "sid" / "subagents" / "agent-q.meta.json") is None


def test_the_fixture_layouts_are_found(fixture_path) -> None:  # type: ignore[no-untyped-def]
    root = fixture_path("transcripts")
    found = discover([root])
    harnesses = {f.harness for f in found}
    assert harnesses == {"claude", "codex", "acp", "gemini", "opencode", "qwen", "pi", "copilot", "kilo", "cline"}
    subagents = [f for f in found if f.subagent]
    assert subagents and {f.harness for f in subagents} == {"claude", "gemini"}
