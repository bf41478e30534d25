"""The warm-start cache and Copilot CLI sessions: what it remembers is text-free (each
file's identity and a summary of statuses), a listing of counts opens no database of a
session whose files did not change, and one whose files did is read again."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from file_opens import opens_in

from planwatch.core.index import SessionIndex
from planwatch.core.transcripts.copilot import CopilotReader
from planwatch.core.transcripts.warmcache import cache_file

ROOT = Path(__file__).resolve().parents[2]
SAMPLE_ID = "5e806925-4250-446b-9e18-4cd8ceb54145"
SAMPLE = ROOT / "fixtures/samples/copilot/session-state" / SAMPLE_ID
DEPS = ROOT / "fixtures/transcripts/rules/copilot/session-state/e1000000-0000-4000-8000-000000000002"


_FORKS: list[str] = []


def _audit(event: str, args: tuple[object, ...]) -> None:
    if event == "os.fork":
        _FORKS.append(event)


sys.addaudithook(_audit)


def databases(opened: list[Path]) -> list[str]:
    """The sessions whose database (or its -wal / -journal) was among the files opened."""
    return sorted({path.parent.name for path in opened if path.name.startswith("session.db")})


def sessions(root: Path) -> dict[str, tuple[str, tuple[int, int]]]:
    index = SessionIndex([root], summaries=True)
    index.scan()
    return {e.session.id: (e.session.title, e.plan.counts()) for e in index.entries()}


def state_folder(tmp_path: Path) -> Path:
    root = tmp_path / "session-state"
    for source in (SAMPLE, DEPS):
        shutil.copytree(source, root / source.name)
    return root


def test_a_warm_listing_opens_no_database_of_an_unchanged_copilot_session(tmp_path: Path) -> None:
    root = state_folder(tmp_path)
    with opens_in([root / SAMPLE.name, root / DEPS.name]) as opens:
        cold = sessions(root)
        # The kernel sees the cold read open both databases: the watch is alive.
        assert databases(opens.seen()) == sorted([SAMPLE.name, DEPS.name])
        warm = sessions(root)
        assert databases(opens.seen()) == []
    assert warm == cold
    assert cold[SAMPLE_ID][1] == (3, 4)


def test_a_copilot_session_whose_database_changed_is_read_again_on_a_warm_start(tmp_path: Path) -> None:
    root = state_folder(tmp_path)
    sessions(root)
    database = root / SAMPLE_ID / "session.db"
    subprocess.run(
        [
            sys.executable,
            "-c",
            "import sqlite3, sys\n"
            "db = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
            "db.execute(\"UPDATE todos SET status = 'done' WHERE id = 'toml-fallback'\")\n",
            str(database),
        ],
        check=True,
    )
    with opens_in([root / SAMPLE.name, root / DEPS.name]) as opens:
        warm = sessions(root)
        assert databases(opens.seen()) == [SAMPLE_ID]
    assert warm[SAMPLE_ID][1] == (4, 4)


def test_the_warm_cache_holds_no_copilot_text(tmp_path: Path) -> None:
    root = state_folder(tmp_path)
    index = SessionIndex([root])
    index.scan()
    raw = cache_file().read_bytes()
    assert str(root / SAMPLE_ID).encode() in raw  # it remembers the session
    db = sqlite3.connect(SAMPLE / "session.db")
    texts = [row[0] for row in db.execute("SELECT title FROM todos")] + [
        row[0] for row in db.execute("SELECT id FROM todos")
    ]
    db.close()
    for entry in index.entries():
        texts += [entry.session.title, entry.session.cwd or ""]
    for text in texts:
        assert text.encode() not in raw, text


def test_a_warm_copilot_listing_loads_no_sqlite(tmp_path: Path) -> None:
    """A counts-only start over unchanged Copilot sessions does not even import sqlite3
    (a fresh interpreter, as `planwatch sessions` runs)."""
    root = state_folder(tmp_path)
    sessions(root)  # the cache, written
    probe = (
        "import sys\n"
        "from pathlib import Path\n"
        "from planwatch.core.index import SessionIndex\n"
        "index = SessionIndex([Path(sys.argv[1])], summaries=True)\n"
        "index.scan()\n"
        "assert len(index.entries()) == 2\n"
        "print('sqlite3' in sys.modules, 'planwatch.core.transcripts.copilot_sql' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe, str(root)], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_a_warm_listing_of_copilot_sessions_alone_forks_no_worker(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A start that shows counts shares remembered files with forked workers only when
    enough of them are files of lines a worker replays: a Copilot CLI session folder is
    read in this thread (a worker would answer it unread, after a fork and a round trip)."""
    from planwatch.core.transcripts import batch

    monkeypatch.setattr(batch, "WARM_PARALLEL_MIN", 2)
    monkeypatch.setattr(batch, "CHUNK_FILES", 1)
    root = state_folder(tmp_path)
    cold = sessions(root)
    before = len(_FORKS)
    assert sessions(root) == cold
    assert len(_FORKS) == before
    if batch._cores() < 2:
        return  # the twin below needs a spare core to fork for
    # The twin: with two files of lines beside them, the same start forks a worker.
    claude = tmp_path / "claude" / "projects" / "-home-dev-docs"
    claude.mkdir(parents=True)
    fixture = ROOT / "fixtures/transcripts/claude/projects/-home-dev-docs/7a3e9b1c-5d2f-4a8e-b6c0-1e9d4f7a2b58.jsonl"
    for n in range(2):
        sid = f"7a3e9b1c-5d2f-4a8e-b6c0-{n:012d}"
        (claude / f"{sid}.jsonl").write_bytes(fixture.read_bytes().replace(fixture.stem.encode(), sid.encode()))
    both = [root, tmp_path / "claude" / "projects"]
    SessionIndex(both, summaries=True).scan()
    before = len(_FORKS)
    SessionIndex(both, summaries=True).scan()
    assert len(_FORKS) > before


COPILOT_FIXTURES = sorted(
    folder.parent
    for folder in (ROOT / "fixtures").rglob("workspace.yaml")
    if folder.parent.parent.name == "session-state" and "copilot" in folder.parts
)


def test_a_remembered_copilot_session_reads_the_facts_a_full_read_reads(tmp_path: Path) -> None:
    """The warm path (identities checked, a missing file asked for by existence only,
    the workspace's cwd and name parsed alone) gives every fixture session the facts
    the full read gives, and a -wal or -journal appearing (a regular file or not) is a
    change."""
    assert len(COPILOT_FIXTURES) >= 10
    remembered_any = 0
    for source in COPILOT_FIXTURES:
        folder = tmp_path / source.parent.parent.parent.name / source.name
        shutil.copytree(source, folder)
        full = CopilotReader(folder)
        results = full.read()
        state = full.warm_state()
        warm = CopilotReader(folder)
        assert warm.unchanged(state), source
        looked = warm.read_remembered(state)
        if looked is not None:
            remembered_any += 1
            assert [r.facts for r in looked] == [r.facts for r in results], source
            assert warm.warm_state() == state, source
        for name, make in (("session.db-wal", lambda p: p.write_bytes(b"")), ("session.db-journal", os.mkfifo)):
            if state["files"][name] is None:
                make(folder / name)
                assert not CopilotReader(folder).unchanged(state), (source, name)
                (folder / name).unlink()
                assert CopilotReader(folder).unchanged(state), (source, name)
    assert remembered_any >= 5


def test_a_warm_start_compares_the_log_identity_its_discovery_found(tmp_path: Path) -> None:
    """Discovery stats each session's log for its time; the identity it saw is what a warm
    start compares with the cache's (the log is not asked again): equal to the log's own,
    a session whose log moved since the cache was written is read again, and an identity
    handed in that differs from the remembered one is a change."""
    from planwatch.core.transcripts.batch import read_copilot
    from planwatch.core.transcripts.discover import discover
    from planwatch.core.transcripts.warmcache import WarmCache

    root = state_folder(tmp_path)
    sessions(root)  # cold: the cache written

    def found() -> dict[str, object]:
        return {item.path.name: item for item in discover([root])}

    for name, item in found().items():
        st = os.stat(root / name / "events.jsonl")
        assert item.log_ident == (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)  # type: ignore[attr-defined]
    cache = WarmCache.load()

    def warm(item: object) -> str | None:
        return read_copilot(item, True, cache.get(item.path, "copilot"), summaries=True).warm  # type: ignore[attr-defined]

    items = found()
    assert {name: warm(item) for name, item in items.items()} == {SAMPLE.name: "same", DEPS.name: "same"}
    stale = items[SAMPLE.name]
    assert not CopilotReader(stale.path).unchanged(cache.get(stale.path, "copilot").state, (0, 0, 0, 0, 0))  # type: ignore[attr-defined,union-attr]
    log = root / SAMPLE.name / "events.jsonl"
    st = log.stat()
    os.utime(log, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    assert warm(found()[SAMPLE.name]) is None


def test_a_listing_warm_start_of_a_copilot_folder_gives_the_full_reads_facts_and_sees_every_change(
    tmp_path: Path,
) -> None:
    """The listing's one-pass warm path (`remembered_facts`: no reader, the workspace's
    identity asked of the descriptor it is read from) gives every fixture session the
    facts the full read gives, or nothing (the caller reads the folder); and a change
    of any of the session's files — the database, the workspace rewritten in place
    with its size kept, a -wal or -journal appearing (a regular file or not) — gives
    nothing, the folder then read again."""
    from planwatch.core.transcripts.copilot import remembered_facts

    remembered_any = 0
    for source in COPILOT_FIXTURES:
        folder = tmp_path / source.parent.parent.parent.name / source.name
        shutil.copytree(source, folder)
        full = CopilotReader(folder)
        results = full.read()
        state = full.warm_state()
        st = os.stat(folder / "events.jsonl") if (folder / "events.jsonl").is_file() else None
        log = None if st is None else (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
        facts = remembered_facts(str(folder), state, log)
        if facts is None:
            continue
        remembered_any += 1
        assert [facts] == [r.facts for r in results], source
        for name, make in (("session.db-wal", lambda p: p.write_bytes(b"")), ("session.db-journal", os.mkfifo)):
            if state["files"][name] is None:
                make(folder / name)
                assert remembered_facts(str(folder), state, log) is None, (source, name)
                (folder / name).unlink()
                assert remembered_facts(str(folder), state, log) == facts, (source, name)
        for name in ("workspace.yaml", "session.db"):
            if state["files"][name] is None:
                continue
            path = folder / name
            data = path.read_bytes()
            deadline = time.monotonic() + 10
            # Rewritten in place, its size kept, until the clock the file system stamps
            # with (coarse: a few ms) has moved on: a new ctime.
            while os.stat(path).st_ctime_ns == state["files"][name][4] and time.monotonic() < deadline:
                path.write_bytes(data[::-1])
                path.write_bytes(data)
            assert os.stat(path).st_size == state["files"][name][2]
            assert remembered_facts(str(folder), state, log) is None, (source, name)
    assert remembered_any >= 5
