"""The live session index (docs/reading.md, Sessions and Live; docs/privacy.md; docs/app.md, Browsing sessions)."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import os
import shutil
import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest
from waiting import Changes

from planwatch.core import index as index_module
from planwatch.core import paths
from planwatch.core.index import SessionIndex, default_roots
from planwatch.core.sessions import SessionEntry
from planwatch.core.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("bench_corpus", ROOT / "tests" / "bench" / "corpus.py")
assert _spec and _spec.loader
corpus = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(corpus)

DEADLINE = 60.0  # bounds a failure only; a passing wait returns at once
SID = "5e0c2a4b-1f3d-4e6a-9b8c-7d0e1f2a3b4c"
THREAD = "019ad3f1-0000-7000-8000-0000000000a1"
CHILD = "019ad3f1-0000-7000-8000-0000000000b2"


def _roots() -> list[Path]:
    return default_roots(Settings())


def _claude(
    session_id: str = SID,
    *,
    cwd: str = "/home/dev/api",
    agent: str | None = None,
    parent_dir: bool = False,
    build=None,
    name: str | None = None,
) -> Path:  # type: ignore[no-untyped-def]
    folder = paths.claude_projects_dir() / "-home-dev-api"
    if agent is not None and parent_dir:
        path = folder / session_id / "subagents" / f"agent-{agent}.jsonl"
    elif agent is not None:
        path = folder / f"agent-{agent}.jsonl"
    else:
        path = folder / f"{name or session_id}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as fh:
        w = corpus.ClaudeWriter(fh, session_id, cwd, agent_id=agent, branch="feature/x")
        w.prompt("Add rate limiting")
        if build is not None:
            build(w)
    return path


def _codex(thread: str, *, parent: str | None = None, build=None) -> Path:  # type: ignore[no-untyped-def]
    path = corpus.codex_path(paths.codex_session_dirs()[0], thread)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as fh:
        w = corpus.CodexWriter(fh)
        w.meta(thread, "/home/dev/web", parent=parent)
        w.prompt("Paginate the orders endpoint")
        if build is not None:
            build(w)
    return path


def _acp(build) -> Path:  # type: ignore[no-untyped-def]
    logs = paths.acp_log_dir()
    logs.mkdir(parents=True, exist_ok=True)
    path = logs / "tap-1.jsonl"
    with path.open("wb") as fh:
        build(corpus.AcpWriter(fh))
    return path


def _items(entry: SessionEntry | None, key: str = "") -> list[tuple[str, str]]:
    assert entry is not None
    for group in entry.plan.groups:
        if group.key == key:
            return [(i.text, i.status) for i in group.items]
    raise AssertionError(f"no group {key!r} in {[g.key for g in entry.plan.groups]}")


def _set_mtime(path: Path, when: datetime) -> None:
    os.utime(path, (when.timestamp(), when.timestamp()))


class _Reported:
    """The session ids a following index reported, and a wait for a condition on them."""

    def __init__(self) -> None:
        self.ids: list[str] = []
        self._cond = threading.Condition()

    def on_change(self, ids: list[str]) -> None:
        with self._cond:
            self.ids.extend(ids)
            self._cond.notify_all()

    def wait(self, predicate) -> None:  # type: ignore[no-untyped-def]
        with self._cond:
            assert self._cond.wait_for(predicate, timeout=DEADLINE)

    def clear(self) -> None:
        with self._cond:
            self.ids.clear()


def _following() -> tuple[SessionIndex, _Reported]:
    """An index of the default roots, scanned and following (stop it when done)."""
    index = SessionIndex(_roots())
    index.scan()
    changes = _Reported()
    index.start_following(changes.on_change)
    return index, changes


def test_every_harness_is_indexed_newest_activity_first() -> None:
    claude = _claude(build=lambda w: w.todo_write([("Read the code", "completed"), ("Add the limiter", "in_progress")]))
    codex = _codex(THREAD, build=lambda w: w.update_plan([("Add cursor", "pending")]))

    def acp(w) -> None:  # type: ignore[no-untyped-def]
        w.new_session("sess_1", "/home/dev/mobile")
        w.prompt("sess_1", "Fix the iOS build")
        w.plan("sess_1", [("Bump Xcode", "completed")])

    log = _acp(acp)
    _set_mtime(claude, datetime(2030, 1, 1, tzinfo=UTC))
    _set_mtime(codex, datetime(2030, 1, 3, tzinfo=UTC))
    _set_mtime(log, datetime(2030, 1, 2, tzinfo=UTC))

    index = SessionIndex(_roots())
    index.scan()
    entries = index.entries()
    assert [e.session.harness for e in entries] == ["codex", "acp", "claude"]
    by_id = {e.session.id: e for e in entries}
    c = by_id[SID]
    assert (c.session.title, c.session.cwd, c.session.git_branch, c.session.path) == (
        "Add rate limiting",
        "/home/dev/api",
        "feature/x",
        claude,
    )
    assert c.plan.counts() == (1, 2)
    assert _items(by_id[THREAD]) == [("Add cursor", "pending")]
    assert by_id["sess_1"].session.cwd == "/home/dev/mobile"
    assert by_id["sess_1"].plan.counts() == (1, 1)
    assert index.get("nope") is None


def test_subagent_plans_become_agent_groups_of_their_parent() -> None:
    parent = _claude(build=lambda w: w.todo_write([("Plan", "in_progress")]))
    new_layout = _claude(agent="a1", parent_dir=True, build=lambda w: w.todo_write([("Search the code", "completed")]))
    old_layout = _claude(agent="b2", build=lambda w: w.todo_write([("Write the docs", "pending")]))
    codex_parent = _codex(THREAD, build=lambda w: w.update_plan([("Split work", "in_progress")]))
    codex_child = _codex(CHILD, parent=THREAD, build=lambda w: w.update_plan([("Child step", "completed")]))

    index = SessionIndex(_roots())
    index.scan()
    assert {e.session.id for e in index.entries()} == {SID, THREAD}
    claude = index.get(SID)
    assert claude is not None
    assert set(claude.session.subagents) == {new_layout, old_layout}
    assert claude.session.path == parent
    assert _items(claude) == [("Plan", "in_progress")]
    assert _items(claude, "agent-a1") == [("Search the code", "completed")]
    assert _items(claude, "agent-b2") == [("Write the docs", "pending")]
    assert claude.plan.counts() == (1, 3)
    codex = index.get(THREAD)
    assert codex is not None and codex.session.subagents == (codex_child,)
    assert codex.session.path == codex_parent
    assert _items(codex, f"agent-{CHILD}") == [("Child step", "completed")]


def test_a_subagent_whose_parent_is_missing_shows_on_its_own() -> None:
    orphan = _claude(agent="c3", parent_dir=True, build=lambda w: w.todo_write([("Alone", "pending")]))
    index = SessionIndex(_roots())
    index.scan()
    [entry] = index.entries()
    assert entry.session.path == orphan and entry.session.parent_id == SID
    assert entry.plan.counts() == (0, 1)


def test_a_forked_claude_session_is_its_own_session_carrying_its_parent_id() -> None:
    fork_id = "9f9f9f9f-0000-4000-8000-000000000001"
    _claude(build=lambda w: w.todo_write([("Original", "pending")]))
    # A desktop fork: a new file whose copied rows keep the parent's sessionId.
    fork = _claude(SID, name=fork_id, build=lambda w: w.todo_write([("Forked", "in_progress")]))
    index = SessionIndex(_roots())
    index.scan()
    entry = index.get(fork_id)
    assert entry is not None and entry.session.path == fork
    assert entry.session.parent_id == SID
    assert _items(entry) == [("Forked", "in_progress")]
    assert _items(index.get(SID)) == [("Original", "pending")]


FIXTURES = ROOT / "fixtures" / "transcripts"


def _at(stamp: str) -> datetime:
    return datetime.fromisoformat(stamp)


# Each harness's demo fixture in its real on-disk place, and the time of its last record
# (docs/reading.md: Claude's and Codex's `timestamp`, ACP's `ts` wrapper, Gemini CLI's message
# times and `$set.lastUpdated`, OpenCode's `session.time_updated` in epoch ms).
LAST_RECORDS = {
    "claude": (
        "claude/projects/-home-dev-api/4f6b2a9e-1c3d-4e8f-9a7b-2d5c8e1f0a3b.jsonl",
        "4f6b2a9e-1c3d-4e8f-9a7b-2d5c8e1f0a3b",
        "2026-11-30T06:52:27.720+00:00",
    ),
    "claude desktop": (
        "claude/projects/-home-dev-web/2c8f4a1d-6e3b-4d7a-b9c2-5f1e8a0d3b7c.jsonl",
        "2c8f4a1d-6e3b-4d7a-b9c2-5f1e8a0d3b7c",
        "2026-11-30T07:11:43.500+00:00",
    ),
    "codex": (
        "codex/sessions/2026/11/30/rollout-2026-11-30T07-19-15-019ad3f1-7c2e-7b40-9a51-3e8d0c6f2b17.jsonl",
        "019ad3f1-7c2e-7b40-9a51-3e8d0c6f2b17",
        "2026-11-30T07:19:16.333+00:00",
    ),
    "acp": ("acp/claude-code-acp-mobile.jsonl", "sess_7f3a9c2e41b8", "2026-11-30T07:25:09.000+00:00"),
    "gemini": ("gemini/tmp/infra/chats/session-2026-11-30T06-40-5c2e8a41.jsonl", None, "2026-11-30T06:40:11.546+00:00"),
    "opencode": ("opencode/opencode.db", "ses_1f3a9c4e2ffeQm7TkdW0xS8bNa", "2026-11-30T06:02:00.009+00:00"),
}


def _place(fixture: str) -> Path:
    """A demo fixture copied where its harness writes it (the isolated env's folders)."""
    source = FIXTURES / fixture
    first, rest = fixture.split("/", 1)
    target = {
        "claude": lambda: paths.claude_config_dir() / rest,
        "codex": lambda: paths.codex_home() / rest,
        "acp": lambda: paths.acp_log_dir() / rest,
        "gemini": lambda: paths.gemini_home() / rest,
        "opencode": paths.opencode_db,
    }[first]()
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(source, target)
    if first == "gemini":
        shutil.copy2(source.parents[1] / ".project_root", target.parents[1] / ".project_root")
    return target


@pytest.mark.parametrize("harness", sorted(LAST_RECORDS))
@pytest.mark.parametrize("mtime", [datetime(2031, 5, 5, tzinfo=UTC), datetime(2001, 1, 1, tzinfo=UTC)])
def test_activity_is_the_last_records_time_whatever_the_files_mtime(harness: str, mtime: datetime) -> None:
    # Ages come from the last record's time; a file copied, touched or synced
    # (a later mtime) or restored (an earlier one) keeps its session's age.
    fixture, sid, stamp = LAST_RECORDS[harness]
    path = _place(fixture)
    _set_mtime(path, mtime)
    index = SessionIndex(_roots())
    index.scan()
    entry = index.get(sid) if sid is not None else next(e for e in index.entries() if e.session.path == path)
    assert entry is not None
    assert entry.session.updated == _at(stamp)
    # A warm start (the cache replays the lines read, the last record's among them)
    # gives the same age.
    warm = SessionIndex(_roots())
    warm.scan()
    assert warm.get(entry.session.id).session.updated == _at(stamp)  # type: ignore[union-attr]


BARE_ROLLOUT = "codex/sessions/2025/08/14/rollout-2025-08-14T10-02-33-5f8e2c1a-3b4d-4e6f-8a9b-0c1d2e3f4a5b.jsonl"


@pytest.mark.parametrize(
    ("fixture", "place", "sid"),
    [
        # A bare ACP log (no `{ts, from, msg}` wrapper) holds no time at all.
        ("rules/acp/bare.jsonl", lambda: paths.acp_log_dir() / "bare.jsonl", "sess_bare"),
        # A Codex rollout from before September 2025: only its first line (the session's
        # start) has a time; no record tells when it was last active.
        (
            f"rules/{BARE_ROLLOUT}",
            lambda: paths.codex_home() / BARE_ROLLOUT.removeprefix("codex/"),
            "5f8e2c1a-3b4d-4e6f-8a9b-0c1d2e3f4a5b",
        ),
    ],
)
def test_activity_falls_back_to_the_files_mtime_when_no_record_carries_a_time(fixture: str, place, sid: str) -> None:  # type: ignore[no-untyped-def]
    path = place()
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(FIXTURES / fixture, path)
    _set_mtime(path, datetime(2031, 5, 5, tzinfo=UTC))
    index = SessionIndex(_roots())
    index.scan()
    entry = index.get(sid)
    assert entry is not None and entry.session.updated == datetime(2031, 5, 5, tzinfo=UTC)
    warm = SessionIndex(_roots())  # the same from the warm-start cache
    warm.scan()
    assert warm.get(sid).session.updated == datetime(2031, 5, 5, tzinfo=UTC)  # type: ignore[union-attr]


def test_a_compressed_rollouts_activity_is_its_last_records_time() -> None:
    import zstandard

    plain = _codex(THREAD, build=lambda w: w.update_plan([("Packed", "in_progress")]))
    with plain.open("ab") as fh:  # chat after the plan call: the last record names no tool
        corpus.CodexWriter(fh, start=datetime(2026, 11, 30, 12, 0, tzinfo=UTC)).prompt("Later chat")
    packed = plain.with_name(plain.name + ".zst")
    packed.write_bytes(zstandard.ZstdCompressor().compress(plain.read_bytes()))
    plain.unlink()
    _set_mtime(packed, datetime(2031, 5, 5, tzinfo=UTC))  # compressed later: no record's time
    index = SessionIndex(_roots())
    index.scan()
    entry = index.get(THREAD)
    assert entry is not None and entry.session.path == packed
    assert datetime(2026, 11, 30, 12, 0, tzinfo=UTC) < entry.session.updated < datetime(2026, 11, 30, 12, 1, tzinfo=UTC)


def test_a_session_given_a_new_line_moves_up_by_that_lines_time() -> None:
    older = _claude()  # records stamped 2026-11-30 08:00 and a little after
    newer = _codex(THREAD)
    with newer.open("ab") as fh:
        corpus.CodexWriter(fh, start=datetime(2026, 11, 30, 10, 0, tzinfo=UTC)).prompt("Later")
    _set_mtime(older, datetime(2031, 5, 5, tzinfo=UTC))  # an mtime alone moves nothing
    index = SessionIndex(_roots())
    index.scan()
    assert [e.session.id for e in index.entries()] == [THREAD, SID]
    changed = threading.Event()
    index.start_following(lambda ids: changed.set() if SID in ids else None)
    try:
        with older.open("ab") as fh:
            w = corpus.ClaudeWriter(fh, SID, "/home/dev/api", start=datetime(2026, 11, 30, 11, 0, tzinfo=UTC))
            w.prompt("One more thing")
        assert changed.wait(DEADLINE)
        assert [e.session.id for e in index.entries()] == [SID, THREAD]
        assert index.get(SID).session.updated > datetime(2026, 11, 30, 11, 0, tzinfo=UTC)  # type: ignore[union-attr]
    finally:
        index.stop()


def test_with_plan_reading_off_only_session_facts_are_read() -> None:
    _claude(build=lambda w: w.todo_write([("Private step", "in_progress")]))
    index = SessionIndex(_roots(), read_plans=False)
    index.scan()
    entry = index.get(SID)
    assert entry is not None
    assert entry.session.title == "Add rate limiting"
    assert entry.plan.groups == () and entry.plan.counts() == (0, 0)

    changed = threading.Event()
    index.start_following(lambda ids: changed.set())
    try:
        index.set_read_plans(True)  # read again in the background, plans included
        assert changed.wait(DEADLINE)
        assert _items(index.get(SID)) == [("Private step", "in_progress")]
        index.set_read_plans(False)  # plans are emptied at once
        assert index.get(SID).plan.groups == ()  # type: ignore[union-attr]
    finally:
        index.stop()


def test_scan_reports_batches_as_it_goes() -> None:
    for n in range(120):
        _codex(f"019ad3f1-0000-7000-8000-{n:012d}")
    batches: list[list[SessionEntry]] = []
    index = SessionIndex(_roots())
    index.scan(batches.append)
    assert len(batches) >= 2
    assert sum(len(b) for b in batches) == 120
    assert len(index.entries()) == 120


def test_scan_batches_grow_with_what_was_read_so_the_scan_stays_linear(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each batch's rebuild looks at every file read so far: a batch holds at least half
    as many files as were read before it, so 1,000 files make a dozen batches, not 20."""
    import planwatch.core.index as index_module

    # Batches by count only (a slow machine would add batches by time, each bounded by
    # its cost): the rule under test is the count's.
    monkeypatch.setattr(index_module, "BATCH_SECONDS", 3600.0)
    for n in range(1000):
        _codex(f"019ad3f1-0000-7000-8000-{n:012d}")
    batches: list[list[SessionEntry]] = []
    index = SessionIndex(_roots())
    index.scan(batches.append)
    sizes = [len(b) for b in batches]
    assert sum(sizes) == 1000 and len(index.entries()) == 1000
    assert sizes[0] == index_module.BATCH_FILES  # the first screen comes first
    for at, size in enumerate(sizes[:-1]):
        assert size >= max(index_module.BATCH_FILES, sum(sizes[:at]) // index_module.BATCH_GROWTH)
    assert len(sizes) <= 12


def test_broken_files_are_skipped_and_the_scan_goes_on() -> None:
    _claude(build=lambda w: w.todo_write([("Survives", "pending")]))
    folder = paths.claude_projects_dir() / "-home-dev-api"
    (folder / "0000dead-0000-4000-8000-000000000000.jsonl").write_bytes(os.urandom(4096))
    (folder / "0000dead-0000-4000-8000-000000000001.jsonl").write_bytes(b"")
    (folder / "0000dead-0000-4000-8000-000000000002.jsonl").write_bytes(b'{"type":"user", "TodoWrite": [\n')
    index = SessionIndex(_roots())
    index.scan()
    assert _items(index.get(SID)) == [("Survives", "pending")]
    broken = index.get("0000dead-0000-4000-8000-000000000002")
    assert broken is not None and broken.skipped_lines == 1


def test_following_reads_appends_and_new_sessions_and_reports_their_ids() -> None:
    path = _claude(build=lambda w: w.todo_write([("Step one", "in_progress")]))
    index, changes = _following()
    reported, wait = changes.ids, changes.wait
    try:
        with path.open("ab") as fh:
            w = corpus.ClaudeWriter(fh, SID, "/home/dev/api", seed=99)
            w.todo_write([("Step one", "completed"), ("Step two", "in_progress")])
        wait(lambda: _items(index.get(SID)) == [("Step one", "completed"), ("Step two", "in_progress")])
        wait(lambda: SID in reported)

        _codex(THREAD, build=lambda w: w.update_plan([("New session", "pending")]))
        wait(lambda: index.get(THREAD) is not None and THREAD in reported)
        assert index.entries()[0].session.id == THREAD

        # A new subagent file reports its parent session.
        changes.clear()
        _claude(agent="d4", parent_dir=True, build=lambda w: w.todo_write([("Sub step", "pending")]))
        wait(lambda: SID in reported)
        wait(lambda: any(g.key == "agent-d4" for g in index.get(SID).plan.groups))  # type: ignore[union-attr]

        path.unlink()
        wait(lambda: index.get(SID) is None or index.get(SID).session.path != path)  # type: ignore[union-attr]
    finally:
        index.stop()


def test_a_cold_first_scan_takes_the_files_found_ahead_and_following_finds_the_rest() -> None:
    # The app walks the folders as it is made (find_ahead) when no warm-start cache is
    # there; its first scan reads what that walk found, and a session that appears
    # between the two is found when following starts, not lost.
    _claude(build=lambda w: w.todo_write([("Found ahead", "pending")]))
    index = SessionIndex(_roots())
    assert index.find_ahead()
    _codex(THREAD, build=lambda w: w.update_plan([("Appeared after the walk", "pending")]))
    index.scan()
    assert index.get(SID) is not None
    assert index.get(THREAD) is None  # not walked again: the scan took the files found ahead
    changes = _Reported()
    index.start_following(changes.on_change)
    try:
        changes.wait(lambda: index.get(THREAD) is not None)
        assert _items(index.get(THREAD)) == [("Appeared after the walk", "pending")]
    finally:
        index.stop()


@pytest.mark.parametrize("why", ["a warm-start cache is there", "the walk passed its deadline"])
def test_files_not_found_ahead_are_walked_by_the_scan(why: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # With a warm-start cache the early pass shows the newest sessions before any walk;
    # a walk past its deadline (a slow disk: here at once) never holds up the app's
    # first frame. Either way the scan walks the folders itself.
    _claude(build=lambda w: w.todo_write([("Walked by the scan", "pending")]))
    if why == "a warm-start cache is there":
        SessionIndex(_roots()).scan()  # writes it
    else:
        monkeypatch.setattr(index_module, "FIND_AHEAD_FOR", -1.0)
    index = SessionIndex(_roots())
    assert not index.find_ahead()
    index.scan()
    assert _items(index.get(SID)) == [("Walked by the scan", "pending")]


def test_a_walk_ahead_that_fails_leaves_the_walk_and_its_error_to_the_scan(tmp_path: Path) -> None:
    # A folder name no system call takes (a NUL byte: ValueError, not OSError) must not
    # fail the app as it is made: the scan walks again and fails there, where the app
    # shows a scan's error.
    index = SessionIndex([tmp_path / "bad\0name"])
    assert not index.find_ahead()
    with pytest.raises(ValueError):
        index.scan()


def test_entries_are_immutable_snapshots() -> None:
    _claude(build=lambda w: w.todo_write([("Frozen", "pending")]))
    index = SessionIndex(_roots())
    index.scan()
    entries = index.entries()
    entries.clear()
    assert len(index.entries()) == 1
    entry = index.get(SID)
    assert entry is not None
    with pytest.raises(dataclasses.FrozenInstanceError):
        entry.plan = entry.plan  # type: ignore[misc]


def test_default_roots_cover_every_harness_settings_and_extra(tmp_path: Path) -> None:
    settings = Settings(transcript_roots=[str(tmp_path / "a")])
    roots = default_roots(settings, [str(tmp_path / "b"), str(tmp_path / "a")])
    assert roots == [
        paths.claude_projects_dir(),
        *paths.codex_session_dirs(),
        paths.acp_log_dir(),
        paths.gemini_tmp_dir(),
        paths.qwen_projects_dir(),
        paths.pi_sessions_dir(),
        paths.copilot_sessions_dir(),
        paths.opencode_db(),
        paths.opencode_storage_dir(),
        paths.kilo_db(),
        paths.cline_data_dir(),
        tmp_path / "a",
        tmp_path / "b",
    ]


def test_no_plan_text_is_written_anywhere_by_indexing(isolated_env) -> None:  # type: ignore[no-untyped-def]
    _claude(build=lambda w: w.todo_write([("Confidential plan step", "pending")]))
    before = {p for p in isolated_env.root.rglob("*") if p.is_file()}
    index = SessionIndex(_roots())
    index.scan()
    after = {p for p in isolated_env.root.rglob("*") if p.is_file()}
    # Only the warm-start cache is written, and it holds offsets, not text; beside it in
    # the state folder the host's key that signs its entries (random bytes, no text).
    written = after - before
    assert written and paths.cache_dir() in {p.parent for p in written}
    assert {p.parent for p in written} <= {paths.cache_dir(), paths.state_dir()}
    assert not any(b"Confidential" in p.read_bytes() for p in written)
    assert json.dumps([dataclasses.asdict(e.session) for e in index.entries()], default=str).find("Confidential") == -1


def test_while_following_a_plain_rollout_beats_its_compressed_twin() -> None:
    import zstandard

    plain = _codex(THREAD, build=lambda w: w.update_plan([("Plain", "in_progress")]))
    packed = plain.with_name(plain.name + ".zst")
    packed.write_bytes(zstandard.ZstdCompressor().compress(plain.read_bytes()))
    plain.unlink()  # Codex compressed an idle rollout
    index = SessionIndex(_roots())
    index.scan()
    entry = index.get(THREAD)
    assert entry is not None and entry.session.path == packed
    assert _items(entry) == [("Plain", "in_progress")]

    changes = Changes()
    index.start_following(changes)
    try:
        # The session resumes: Codex writes the plain file again, beside the old .zst.
        with plain.open("wb") as fh:
            fh.write(zstandard.ZstdDecompressor().decompress(packed.read_bytes()))
            corpus.CodexWriter(fh, seed=5).update_plan([("Plain", "completed")])

        def replaced() -> bool:
            current = index.get(THREAD)
            return current is not None and current.session.path == plain and _items(current) == [("Plain", "completed")]

        changes.wait_for(replaced, "the plain rollout to replace its compressed twin", timeout=DEADLINE)
    finally:
        index.stop()


def test_a_second_scan_drops_sessions_whose_files_are_gone() -> None:
    path = _claude(build=lambda w: w.todo_write([("Soon gone", "pending")]))
    _codex(THREAD)
    index = SessionIndex(_roots())
    index.scan()
    assert index.get(SID) is not None
    path.unlink()
    index.scan()
    assert index.get(SID) is None
    assert [e.session.id for e in index.entries()] == [THREAD]


def test_a_subagent_file_replaces_its_inline_group_in_place() -> None:
    from planwatch.core.model import AgentPlan, PlanDocument, PlanGroup, PlanItem
    from planwatch.core.sessions import FileState, with_subagents
    from planwatch.core.transcripts.discover import TranscriptFile
    from planwatch.core.transcripts.reader import SessionFacts, SessionResult

    def group(key: str, text: str) -> PlanGroup:
        return PlanGroup(key=key, source="claude_todos", items=(PlanItem(text=text),))

    parent = AgentPlan(groups=(group("", "Main"), group("agent-a1", "Inline"), group("agent-z9", "Other")))
    kid_plan = AgentPlan(
        groups=(group("", "From file"),),
        documents=(PlanDocument(key="", source="claude_plan_mode", text="Doc"),),
    )
    kid = FileState(
        TranscriptFile(Path("agent-a1.jsonl"), "claude", 0.0, 0, subagent=True),
        None,
        [SessionResult(facts=SessionFacts(), plan=kid_plan)],
    )
    plan = with_subagents(parent, [kid])
    assert [(g.key, g.items[0].text) for g in plan.groups] == [
        ("", "Main"),
        ("agent-a1", "From file"),
        ("agent-z9", "Other"),
    ]
    assert [(d.key, d.text) for d in plan.documents] == [("agent-a1", "Doc")]


def test_new_roots_are_read_and_followed_and_the_sessions_of_removed_roots_go(tmp_path: Path) -> None:
    home = _claude(build=lambda w: w.todo_write([("At home", "pending")]))
    extra = tmp_path / "extra"
    away = corpus.codex_path(extra / "sessions", THREAD)
    away.parent.mkdir(parents=True)
    with away.open("wb") as fh:
        w = corpus.CodexWriter(fh)
        w.meta(THREAD, "/home/dev/away")
        w.update_plan([("Away step", "in_progress")])
    index, changes = _following()
    reported, wait = changes.ids, changes.wait
    try:
        assert index.get(THREAD) is None
        assert index.set_roots([*_roots(), extra]) == [THREAD]
        wait(lambda: THREAD in reported)
        assert _items(index.get(THREAD)) == [("Away step", "in_progress")]
        assert extra in index.roots_searched
        # Both the new folder and the old ones are followed by the new watcher.
        with away.open("ab") as fh:
            corpus.CodexWriter(fh, seed=3).update_plan([("Away step", "completed")])
        wait(lambda: _items(index.get(THREAD)) == [("Away step", "completed")])
        with home.open("ab") as fh:
            corpus.ClaudeWriter(fh, SID, "/home/dev/api", seed=4).todo_write([("At home", "completed")])
        wait(lambda: _items(index.get(SID)) == [("At home", "completed")])
        # The same folders again change nothing; without the extra folder its session goes.
        assert index.set_roots([*_roots(), extra]) == []
        assert index.set_roots(_roots()) == [THREAD]
        assert index.get(THREAD) is None and index.get(SID) is not None
    finally:
        index.stop()
