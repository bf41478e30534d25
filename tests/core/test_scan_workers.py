"""The first scan spread over worker processes (core/transcripts/batch.py, workers.py): the same
sessions and plans as one thread reading every file, readers that go on following
their files, and a scan that survives workers that fail or are stopped."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import logging
import os
import pickle
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from planwatch.core import paths
from planwatch.core.index import SessionIndex, default_roots
from planwatch.core.settings import Settings
from planwatch.core.transcripts import batch, workers
from planwatch.core.transcripts.discover import TranscriptFile, discover
from planwatch.core.transcripts.lines import read_transcript

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("bench_corpus", ROOT / "tests" / "bench" / "corpus.py")
assert _spec and _spec.loader
corpus = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(corpus)


def _corpus(count: int = 24) -> list[TranscriptFile]:
    """Sessions of every harness, each with a plan, some with a call still waiting."""
    for n in range(count):
        harness = ("claude", "codex", "acp")[n % 3]
        uid = f"{n:08x}-0000-4000-8000-00000000abcd"
        if harness == "claude":
            path = corpus.claude_path(paths.claude_projects_dir(), f"/home/dev/p{n}", uid)
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("wb") as fh:
                w = corpus.ClaudeWriter(fh, uid, f"/home/dev/p{n}", seed=n)
                w.prompt(f"Session {n}")
                w.todo_write([(f"Step {n}", "in_progress")])
                for _ in range(20):
                    w.filler(3000)
        elif harness == "codex":
            path = corpus.codex_path(paths.codex_session_dirs()[0], uid)
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("wb") as fh:
                w = corpus.CodexWriter(fh, seed=n)
                w.meta(uid, "/home/dev/codex")
                w.prompt(f"Rollout {n}")
                w.update_plan([(f"Codex step {n}", "pending")])
                for _ in range(20):
                    w.filler(3000)
        else:
            logs = paths.acp_log_dir()
            logs.mkdir(parents=True, exist_ok=True)
            path = logs / f"tap-{n}.jsonl"
            with path.open("wb") as fh:
                w = corpus.AcpWriter(fh, seed=n)
                w.new_session(f"sess_{n}", "/home/dev/acp")
                w.prompt(f"sess_{n}", f"Log {n}")
                w.plan(f"sess_{n}", [(f"Acp step {n}", "completed")])
                for _ in range(20):
                    w.filler(f"sess_{n}", 3000)
    return discover(default_roots(Settings()))


def _reads_here(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The files this process reads itself from now on (a worker started afresh, or
    forked before, has the real `read_files`)."""
    here: list[Path] = []
    real = batch.read_files

    def spy(items, read_plans):  # type: ignore[no-untyped-def]
        here.extend(item.path for item in items)
        return real(items, read_plans)

    monkeypatch.setattr(batch, "read_files", spy)
    return here


def _summary(reads: list[batch.FileRead]) -> dict[Path, list[tuple[object, ...]]]:
    return {read.item.path: [(dataclasses.asdict(r.facts), r.plan) for r in read.results] for read in reads}


def test_a_scan_spread_over_a_worker_reads_every_file_once_with_the_same_results(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    files = _corpus()
    monkeypatch.setattr(batch, "CHUNK_FILES", 2)  # many chunks, so both sides get some
    alone = [read for chunk in batch.read_all(files, True, workers=0) for read in chunk]

    here = _reads_here(monkeypatch)  # this process only
    spread = [read for chunk in batch.read_all(files, True, workers=1) for read in chunk]

    assert sorted(r.item.path for r in spread) == sorted(f.path for f in files)  # each once
    assert 0 < len(here) < len(files)  # the worker read some of them
    assert _summary(spread) == _summary(alone)
    assert all(read.results and read.results[0].plan.groups for read in spread)


def _kept(read: batch.FileRead) -> tuple[object, ...]:
    """What a listing takes of a read: its facts, its plans' text-free summary, and the
    trace the warm-start cache keeps (with its summary, as the index writes it)."""
    from planwatch.core.index_warmstart import _with_summary
    from planwatch.core.transcripts.warmsummary import summarize

    assert read.trace is not None
    trace = _with_summary(read.trace, read.reader, read.results)
    return (
        [dataclasses.asdict(r.facts) for r in read.results],
        summarize(read.results),
        (trace.ops, trace.ident, trace.offset, trace.state, trace.summary),
        read.offset,
        read.reader.skipped_lines if read.reader is not None else 0,
    )


def test_a_listings_worker_hands_its_reads_back_as_plain_values_with_the_same_facts_counts_and_traces(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A listing of counts never follows its files: a worker hands each read back as
    plain values (no reader; the plans' statuses without text), several times cheaper to
    take in. The listing gets the same facts, counts, summaries and warm-start traces as
    when it reads every file itself; a read with skipped lines (said by `show`) comes
    back whole."""
    files = _corpus()
    broken = {f.path for f in files if f.harness == "claude"}
    for path in broken:  # a plan call's line cut off: read, and skipped
        with path.open("ab") as fh:
            fh.write(b'{"type":"assistant","message":{"content":[{"type":"tool_use","name":"TodoWrite"\n')
    files = discover(default_roots(Settings()))
    monkeypatch.setattr(batch, "CHUNK_FILES", 2)
    alone = [read for chunk in batch.read_all(files, True, workers=0, summaries=True) for read in chunk]
    spread = [read for chunk in batch.read_all(files, True, workers=1, summaries=True) for read in chunk]

    assert sorted(r.item.path for r in spread) == sorted(f.path for f in files)
    by_path = {read.item.path: read for read in alone}
    assert {read.item.path: _kept(read) for read in spread} == {path: _kept(by_path[path]) for path in by_path}
    plain = [read for read in spread if read.reader is None]
    assert plain  # the worker's reads came back plain
    # The warm-start cache keeps a plain read's summary as it came (index_warmstart
    # `_with_summary`): what summarizing its results again would give.
    from planwatch.core.transcripts.warmsummary import summarize

    assert all(read.trace.summary == summarize(read.results) for read in plain if read.trace and read.trace.summary)
    assert any(read.trace and read.trace.summary for read in plain)
    assert all(not read.results or read.results[0].plan.groups for read in plain)
    whole = [read for read in spread if read.item.path in broken]
    assert len(whole) == len(broken) == 8
    assert all(read.reader is not None and read.reader.skipped_lines == 1 for read in whole)


LIVE = "0000live-0000-4000-8000-000000000001"


def _waiting_call(*lists: list[tuple[str, str]]) -> tuple[Path, str]:
    """A Claude Code session (`LIVE`) that wrote `lists`, then a TodoWrite call of "Later"
    whose result is not written yet: its path and the waiting call's id."""
    path = corpus.claude_path(paths.claude_projects_dir(), "/home/dev/live", LIVE)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as fh:
        w = corpus.ClaudeWriter(fh, LIVE, "/home/dev/live", seed=1)
        w.prompt("Follow me")
        for todos in lists:
            w.todo_write(todos)
        call_id = w._call("TodoWrite", {"todos": [{"content": "Later", "status": "pending", "activeForm": "Later"}]})
    return path, call_id


def test_a_reader_from_a_worker_goes_on_following_its_file(tmp_path: Path) -> None:
    """A worker answers with the reader itself: its state (a call waiting for its
    result) crosses the process boundary and the index follows the file with it."""
    path, call_id = _waiting_call()
    [item] = discover(default_roots(Settings()))
    worker = subprocess.Popen([sys.executable, "-c", workers._BOOT], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert worker.stdin is not None and worker.stdout is not None
        pickle.dump(([item], True), worker.stdin)
        worker.stdin.flush()
        [live], records = pickle.load(worker.stdout)
    finally:
        worker.kill()
        worker.wait()
    assert records == []
    assert live.reader is not None and live.results[0].plan.groups == ()  # call unanswered
    assert live.results[0].facts.title() == "Follow me"
    with path.open("ab") as fh:
        w = corpus.ClaudeWriter(fh, LIVE, "/home/dev/live", seed=2)
        w._result(call_id, "Todos have been modified successfully.", {"oldTodos": [], "newTodos": []})
    read_transcript(live.reader, path, live.offset, head=0)
    [result] = live.reader.results()
    assert [(i.text, i.status) for i in result.plan.groups[0].items] == [("Later", "pending")]


def test_a_file_a_worker_read_without_its_reader_is_read_again_from_scratch_at_its_first_change(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A scan whose workers read the files (the app's) takes each read back without its
    reader: the plans whole, no reader to follow the file with. The first change to such
    a file reads it again from scratch, which gives what following it would have: a
    call that was waiting for its result when the worker read it shows once the result
    is appended."""
    from waiting import Changes

    files = _corpus(12)
    path, call_id = _waiting_call([("First", "completed")])
    monkeypatch.setattr(batch, "PARALLEL_MIN", 0)
    monkeypatch.setattr(batch, "CHUNK_FILES", 1)
    monkeypatch.setattr(batch, "_cores", lambda: 2)
    here = _reads_here(monkeypatch)  # this process only
    index = SessionIndex(default_roots(Settings()))
    index.read_in_scan_thread = False  # as the app scans: the workers read every file
    changes = Changes()
    try:
        scanning = threading.Thread(target=index.scan)  # on a thread, as the app's
        scanning.start()
        scanning.join(timeout=60)
        assert not scanning.is_alive() and here == []
        assert len(index.entries()) == len(files) + 1
        states = index.file_states()
        assert all(state.reader is None for state in states.values())  # no reader crossed back
        entry = index.get(LIVE)
        assert entry is not None and _items(entry) == [("First", "completed")]  # the second call unanswered
        index.start_following(changes)
        with path.open("ab") as fh:
            w = corpus.ClaudeWriter(fh, LIVE, "/home/dev/live", seed=2)
            w._result(call_id, "Todos have been modified successfully.", {"oldTodos": [], "newTodos": []})
        changes.wait_for(lambda: _items(index.get(LIVE)) == [("Later", "pending")], "the answered call's list")
        assert index.file_states()[path].reader is not None  # read again, and followed from here
    finally:
        index.stop()
    fresh = SessionIndex(default_roots(Settings()))
    fresh.scan()
    assert _items(fresh.get(LIVE)) == [("Later", "pending")]


def _items(entry: Any) -> list[tuple[str, str]]:
    assert entry is not None
    return [(item.text, item.status) for group in entry.plan.groups for item in group.items]


def test_a_started_worker_answers_with_the_installed_modules_classes(tmp_path: Path) -> None:
    """The app's workers are started afresh (not forked): what they pickle back must
    name the modules the calling process has (`planwatch.core…`), wherever it runs
    from — a worker importing the source tree as a bare `core` answered with classes
    the app could not unpickle, and every chunk fell back to the calling thread."""
    [item] = _corpus(1)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    worker = subprocess.Popen(
        [sys.executable, "-c", workers._BOOT], stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=tmp_path, env=env
    )
    try:
        assert worker.stdin is not None and worker.stdout is not None
        pickle.dump(([item], True), worker.stdin)
        worker.stdin.flush()
        worker.stdin.close()
        answer = worker.stdout.read()
    finally:
        worker.kill()
        worker.wait()
    # Unpickled in a process started from elsewhere, as the installed app is.
    probe = (
        "import pickle, sys; reads, records = pickle.loads(sys.stdin.buffer.read()); "
        "print(type(reads[0]).__module__, type(reads[0].reader).__module__, len(reads[0].results))"
    )
    shown = subprocess.run(
        [sys.executable, "-c", probe], input=answer, capture_output=True, cwd=tmp_path, env=env, check=True
    )
    assert shown.stdout.split() == [b"planwatch.core.transcripts.batch", b"planwatch.core.transcripts.claude", b"1"]


def test_a_scan_worker_imports_no_pydantic_and_no_settings() -> None:
    """What a worker started afresh imports to read (the readers, the plan and session
    values, the cache): plain dataclasses, no pydantic and no settings model (its
    imports are what the app's worker costs before it reads a byte)."""
    probe = (
        "import json, sys\n"
        "import planwatch.core.transcripts.workers, planwatch.core.transcripts.batch\n"
        "from planwatch.core.transcripts.registry import reader_for\n"
        "for harness in ('claude', 'codex', 'acp', 'gemini'): reader_for(harness)\n"
        "print(json.dumps(sorted(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60)
    modules = json.loads(out.stdout)
    assert "planwatch.core.transcripts.claude" in modules
    assert [
        m for m in modules if m.split(".")[0] in ("pydantic", "pydantic_core") or m == "planwatch.core.settings"
    ] == []


def test_a_worker_logs_through_the_calling_process(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    files = _corpus(6)
    monkeypatch.setattr(batch, "CHUNK_FILES", 1)
    gone = files[-1].path  # the last chunk: a worker's first
    gone.unlink()  # vanishes between discovery and reading: logged, forgotten
    with caplog.at_level(logging.INFO, logger="planwatch.core.transcripts"):
        reads = [read for chunk in batch.read_all(files, True, workers=1) for read in chunk]
    assert [read.gone for read in reads if read.item.path == gone] == [True]
    assert any("scan worker: cannot read" in r.getMessage() and gone.name in r.getMessage() for r in caplog.records)


def test_a_worker_that_cannot_start_leaves_its_files_to_the_calling_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    files = _corpus(9)
    monkeypatch.setattr(batch, "CHUNK_FILES", 1)
    monkeypatch.setattr(workers, "_BOOT", "import sys; sys.exit(3)")
    reads = [read for chunk in batch.read_all(files, True, workers=1) for read in chunk]
    assert sorted(r.item.path for r in reads) == sorted(f.path for f in files)
    assert all(read.results[0].plan.groups for read in reads)


def _children() -> set[int]:
    me = str(os.getpid())
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if stat.rsplit(")", 1)[1].split()[1] == me:
                found.add(int(entry.name))
    return found


class Stop(Exception):
    pass


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="child processes are listed from /proc")
def test_the_index_scan_uses_workers_and_an_early_stop_ends_them(monkeypatch: pytest.MonkeyPatch) -> None:
    files = _corpus(30)
    monkeypatch.setattr(batch, "PARALLEL_MIN", 0)
    monkeypatch.setattr(batch, "CHUNK_FILES", 2)
    monkeypatch.setattr(batch, "_cores", lambda: 2)

    here = _reads_here(monkeypatch)  # this process only
    index = SessionIndex(default_roots(Settings()))
    # As the app runs it: in a thread of a process that has other threads going.
    scanning = threading.Thread(target=index.scan)
    scanning.start()
    scanning.join(timeout=60)
    assert not scanning.is_alive()
    assert len(here) < len(files)  # a worker read the rest
    assert len(index.entries()) == len(files)
    assert all(entry.plan.groups for entry in index.entries())

    before = _children()

    def stop(_entries):  # type: ignore[no-untyped-def]
        raise Stop

    monkeypatch.setattr("planwatch.core.index.BATCH_FILES", 1)
    with pytest.raises(Stop):
        SessionIndex(default_roots(Settings())).scan(stop)
    assert _children() <= before  # no worker left behind


_AHEAD = r"""
import dataclasses, json, os, subprocess, sys, threading
from pathlib import Path
from planwatch.core.transcripts import batch, workers
from planwatch.core.transcripts.discover import discover

batch.PARALLEL_MIN, batch.CHUNK_FILES, batch._cores = 0, 1, lambda: 2
forked = batch.fork_ahead()  # as the app does, before it starts any thread
pids = [w.pid for w in workers._spares]
subprocess.Popen = None  # no fresh interpreter may be started: the spares must serve
files = discover([Path(sys.argv[1])])
here = []
real = batch.read_files
def spy(jobs, read_plans):  # a job is a file, or a file with what the cache remembers
    here.extend(str((job[0] if isinstance(job, tuple) else job).path) for job in jobs)
    return real(jobs, read_plans)
batch.read_files = spy  # this process only: the spare was forked before
got = {}
def scan():
    got["reads"] = [read for chunk in batch.read_all(files, True) for read in chunk]
thread = threading.Thread(target=scan)  # the app's scan runs on a thread
thread.start(); thread.join(60)
batch.read_files = real
here_cold = list(here)
alone = [read for chunk in batch.read_all(files, True, workers=0) for read in chunk]
def summary(reads):
    return sorted((str(r.item.path), repr([(dataclasses.asdict(x.facts), x.plan) for x in r.results])) for r in reads)
def reaped(pid):
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return False
# A warm start: what the cache remembers is replayed by the spare too, not only here.
from planwatch.core.transcripts import warmcache
assert warmcache.save([(r.item.path, r.item.harness, r.trace) for r in alone if r.trace is not None], [r.item.path for r in alone])
cache = warmcache.WarmCache.load()
# A Cline data folder is read again on every start: its entry keeps its sessions' file
# stats and row counts (text-free), not a trace a worker replays.
remembered = {f.path: e for f in files if f.harness != "cline" and (e := cache.get(f.path, f.harness)) is not None}
warm_forked = batch.fork_ahead()
here.clear()
batch.read_files = spy
def warm_scan():
    got["warm"] = [read for chunk in batch.read_all(files, True, remembered=remembered) for read in chunk]
thread = threading.Thread(target=warm_scan)
thread.start(); thread.join(60)
print(json.dumps({
    "forked": forked, "files": len(files), "here": len(here_cold), "left": len(workers._spares),
    "same": summary(got["reads"]) == summary(alone), "reaped": all(reaped(p) for p in pids),
    "warm_forked": warm_forked, "remembered": len(remembered), "warm_here": len(here),
    "warm_same": summary(got["warm"]) == summary(alone),
    "replayed": sum(1 for r in got["warm"] if r.warm == "same"),
    "warm_plain": sum(1 for r in got["warm"] if r.warm == "same" and r.reader is None),
    "warm_plain_here": sum(1 for r in got["warm"] if r.reader is None and str(r.item.path) in here),
}))
"""


def _run_on_the_fixtures(script: str, tmp_path: Path) -> dict[str, Any]:
    """`script` in a fresh interpreter over the fixtures' transcripts (the test run may
    have threads of its own going: forking beside them is unsafe); its last line's JSON."""
    out = subprocess.run(
        [sys.executable, "-c", script, str(ROOT / "fixtures" / "transcripts")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        env={**os.environ, "PLANWATCH_CACHE": str(tmp_path / "cache")},
    )
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def test_workers_forked_ahead_serve_a_scan_on_a_thread_and_then_go(tmp_path: Path) -> None:
    """The app forks its first scan's workers before it starts any thread (forking from
    a thread is unsafe); its scan, on a thread, takes them ready instead of starting
    fresh interpreters, reads the same as one thread alone, and lets them go at the end;
    on a warm start they replay part of what the cache remembers, and send those replays
    back without their readers. In a fresh process:
    the test run may have threads of its own going."""
    got = _run_on_the_fixtures(_AHEAD, tmp_path)
    assert got["forked"] == 1 and got["files"] > 10
    assert 0 < got["here"] < got["files"]  # the spare read the rest
    assert got["same"] and got["left"] == 0 and got["reaped"]
    # Warm: the files the cache remembers are replayed, some of them by the spare.
    assert got["warm_forked"] == 1 and got["remembered"] > 10
    assert got["replayed"] == got["remembered"] and 0 < got["warm_here"] < got["files"]
    assert got["warm_same"]
    # The spare's replays come back without their readers (batch.plain_read), still
    # known as replays of unchanged files; this thread's keep theirs.
    assert got["warm_plain"] > 0 and got["warm_plain_here"] == 0


def test_workers_forked_ahead_that_no_scan_takes_are_let_go() -> None:
    code = (
        "import os\nfrom planwatch.core.transcripts import batch, workers\n"
        "batch._cores = lambda: 2\nassert batch.fork_ahead() == 1\npid = workers._spares[0].pid\n"
        "batch.release_ahead()\nassert workers._spares == []\n"
        "try:\n    os.waitpid(pid, 0)\nexcept ChildProcessError:\n    print('gone')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "gone"


def test_a_spare_let_go_ends_at_once_though_later_spares_were_forked() -> None:
    """A spare forked after another must not hold the other's input open: letting the
    first go ends it by its input closing, exit status 0 (a spare whose input never
    ends is killed after 5 s: -9)."""
    code = (
        "from planwatch.core.transcripts import batch, workers\n"
        "batch._cores = lambda: 2\nassert batch.fork_ahead() == 1\nfirst = workers.take_spares()\n"
        "assert batch.fork_ahead() == 1\nworkers.release(first)\n"
        "print(first[0].returncode)\nbatch.release_ahead()\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.split() == ["0"]


_LEFT_TO_WORKERS = r"""
import dataclasses, json, subprocess, sys, threading
from pathlib import Path
from planwatch.core.transcripts import batch, workers
from planwatch.core.transcripts.discover import discover

batch.PARALLEL_MIN, batch.CHUNK_FILES, batch._cores = 0, 1, lambda: 2
forked = batch.fork_ahead(every_core=True)  # as the app does: one a core
import os, time
def niceness(pid):
    return os.getpriority(os.PRIO_PROCESS, pid) - os.getpriority(os.PRIO_PROCESS, 0)
# A run already at a low priority (nice 19 is the floor) lowers the spares only as far as it goes.
lowered = min(os.getpriority(os.PRIO_PROCESS, 0) + batch.SCAN_NICE, 19) - os.getpriority(os.PRIO_PROCESS, 0)
deadline = time.monotonic() + 30  # each spare lowers its own priority once forked
while time.monotonic() < deadline and any(niceness(w.pid) != lowered for w in workers._spares):
    time.sleep(0.01)
nice = [niceness(w.pid) for w in workers._spares]
subprocess.Popen = None  # the spares must serve
files = discover([Path(sys.argv[1])])
here = []
real = batch.read_files
def spy(jobs, read_plans):
    here.extend(str((job[0] if isinstance(job, tuple) else job).path) for job in jobs)
    return real(jobs, read_plans)
batch.read_files = spy
firsts = []  # each worker's first chunk, in the order handed out
class Recording(workers.Driver):
    def __init__(self, read_plans, first, *args, **kwargs):
        firsts.append([str((job[0] if isinstance(job, tuple) else job).path) for job in first])
        super().__init__(read_plans, first, *args, **kwargs)
workers.Driver = Recording
got = {}
def scan():
    got["reads"] = [[str(r.item.path) for r in chunk] for chunk in batch.read_all(files, True, local=False)]
thread = threading.Thread(target=scan)
thread.start(); thread.join(60)
batch.read_files = real
order = [path for chunk in got["reads"] for path in chunk]
print(json.dumps({
    "forked": forked, "files": len(files), "here": len(here), "read": sorted(order) == sorted(str(f.path) for f in files),
    "nice": nice, "scan_nice": lowered, "first_chunks": firsts == [[str(files[0].path)], [str(files[1].path)]], "left": len(workers._spares),
}))
"""


def test_a_scan_that_leaves_reading_to_its_workers_reads_nothing_in_its_thread(tmp_path: Path) -> None:
    """The app's first scan shares its process with the UI thread: with `local=False` the
    scan's thread reads no file itself while its workers (one a core) run, every file is
    read once, and the newest go first (the workers take chunks from the newest end);
    the workers run at a lower priority than the app."""
    got = _run_on_the_fixtures(_LEFT_TO_WORKERS, tmp_path)
    assert got["forked"] == 2 and got["files"] > 10
    assert got["here"] == 0 and got["read"]
    assert got["first_chunks"] and got["left"] == 0
    # The workers yield the cores to the UI thread: they run at a lower priority.
    assert got["nice"] == [got["scan_nice"]] * 2
