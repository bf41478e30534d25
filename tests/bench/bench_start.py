"""Benchmark of a start: cold and warm `planwatch sessions --json` against
`cat`, a naive reader and ccusage, plus the app's all-rows time, the live
append→screen latency and peak memory — one command, one run, one table:

    .venv/bin/python tests/bench/bench_start.py [--corpus DIR] [--skip-app] [--rounds 3]

The corpus (generated once into --corpus, default ./bench-corpus/start, git-ignored)
has the issue's shape: 1,000 Claude Code sessions, about 1.4 GB; 8 files of 150 MB whose
final plan lies near the end (half of them with a custom title in the middle, the others
titled by their first prompt only, so the search of the middle runs its whole bound);
one 50 MB line; the rest small sessions with plans, titles and task calls.

- cold: `planwatch sessions --json` with an empty cache folder (the page cache warm, as
  for every other row: each command runs once untimed first);
- warm: the same command again, answered from the listing the cold run kept
  (core/listing.py: discovery, each file's identity, the titles and folders re-read
  where they lie); its output must be byte-identical to the cold run's (checked);
- warm, the listing let go: once more with the kept listing removed, so the warm-start
  index the cold run wrote answers (an unchanged file's fact lines re-read, its plan
  counts from the index's summaries): what a listing after a change does for every
  file that did not change;
- cat: `cat` of every file; naive: `json.loads` on every line of every file;
- ccusage: `session --offline --json` over the same folder (CCUSAGE=path, else
  `npx ccusage@20.0.24` when npx can fetch it), else "not available";
- app: the first screen's rows and every row on screen, cold and warm, the best of
  `--rounds` as every row here (Pilot, `--skip-app` leaves it out; the screen's state
  sampled every 5 ms, not by the pilot's pauses, which work the UI thread), and, in the
  first round, a plan call appended to a transcript → on screen, median of `--appends`,
  and the first of them (made the moment following starts, while the follower looks at
  every file once);
- peak RSS: the largest of the commands' and their scan workers' (ru_maxrss).

`--sessions 10000` generates (into its own folder) the heavy user's corpus instead: the
same eight 150 MB sessions and 50 MB line, and 9,992 small Claude Code and Codex sessions
of 20-200 KB, each with 2-9 plan calls and a first prompt naming every plan tool (so the
byte prefilter passes it), their times to the minute (many sessions share one).

Every planwatch folder points into the corpus folder: the host's are never touched.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path[:0] = [str(HERE)]

import corpus  # noqa: E402  (the shared writers, beside this file)

MB = 1 << 20
SESSIONS = 1000
BIG = 8
BIG_SIZE = 150 * MB
SMALL_TOTAL = 185 * MB
LONG_LINE = 50 * MB
SHAPE_VERSION = 1
STEPS = ["Read the code", "Write the migration", "Add the tests", "Update the docs", "Ship it"]


# -- the corpus ------------------------------------------------------------------------------


def _plan(rnd: random.Random, progress: float) -> list[tuple[str, str]]:
    n = rnd.randint(2, len(STEPS))
    done = int(progress * n)
    return [(STEPS[i], "completed" if i < done else "in_progress" if i == done else "pending") for i in range(n)]


def _big(path: Path, n: int, sid: str, when: datetime, rnd: random.Random) -> None:
    """150 MB: plan calls every ~19 MB, the final full list a few MB before the end, a
    custom title in the middle for even n, one 50 MB line in file 0."""
    with path.open("wb") as fh:
        w = corpus.ClaudeWriter(fh, sid, f"/home/dev/big{n}", start=when, seed=n)
        w.prompt(f"Migrate the big service number {n}")
        next_plan = 0
        final_at = BIG_SIZE - rnd.randint(1, 4) * MB
        titled = n % 2 == 0
        long_done = n != 0
        while fh.tell() < BIG_SIZE:
            pos = fh.tell()
            if pos >= next_plan and pos <= final_at:
                w.todo_write(_plan(rnd, pos / BIG_SIZE))
                next_plan = pos + BIG_SIZE // 8 if pos + BIG_SIZE // 8 < final_at else final_at
            if titled and pos > BIG_SIZE // 2:
                w.custom_title(f"Big service {n}")
                titled = False
            if not long_done and pos > BIG_SIZE // 3:
                # One 50 MB line: a huge tool output nobody plans in, written in pieces.
                call_id = "toolu_01big" + "0" * 16
                head = {
                    "type": "user",
                    "sessionId": sid,
                    "cwd": w.cwd,
                    "message": {
                        "role": "user",
                        "content": [{"type": "tool_result", "tool_use_id": call_id, "content": "@@"}],
                    },
                }
                before, after = json.dumps(head, separators=(",", ":")).encode().split(b"@@")
                fh.write(before)
                piece = b"y" * MB
                for _ in range(LONG_LINE // MB):
                    fh.write(piece)
                fh.write(after + b"\n")
                long_done = True
                continue
            w.filler(int(rnd.lognormvariate(9.5, 1.0)) + 1000)


def _small(path: Path, n: int, sid: str, size: int, when: datetime, rnd: random.Random) -> None:
    with path.open("wb") as fh:
        w = corpus.ClaudeWriter(fh, sid, f"/home/dev/p{n % 40}", start=when, seed=n)
        w.prompt(f"Work through backlog item {n}")
        kind = n % 5
        if kind == 1:
            w.custom_title(f"Backlog item {n}")
        made = 0
        every = max(size // 4, 4096)
        next_plan = 0
        while fh.tell() < size:
            if fh.tell() >= next_plan:
                if kind == 4:  # task tools instead of a full list
                    if made:
                        w.task_update(str(made), "completed", old="in_progress")
                    made += 1
                    w.task_create(str(made), f"Task {made} of item {n}")
                    w.task_update(str(made), "in_progress")
                elif kind != 3:  # kind 3: no plan at all
                    w.todo_write(_plan(rnd, fh.tell() / size))
                next_plan = fh.tell() + every
            if rnd.random() < 0.5:
                w.filler(int(rnd.lognormvariate(7.5, 1.0)) + 200)
            else:
                w.real_records("claude", sid, rnd.randint(1, 6))


PLAN_TOOL_NAMES = (
    "TodoWrite ExitPlanMode TaskCreate TaskUpdate mcp__ccd_turn__update_plan mcp__ccd_turn__wrap_up update_plan"
)


def _heavy_small(root: Path, n: int, when: datetime, rnd: random.Random) -> Path:
    """One of the heavy corpus's small sessions: Claude Code for even n, Codex for odd."""
    size, calls = rnd.randint(20_000, 200_000), rnd.randint(2, 9)
    every = size // calls
    cwd = f"/home/dev/p{n % 40}"
    if n % 2 == 0:
        sid = f"{n:08x}-0000-4000-8000-{rnd.getrandbits(48):012x}"
        path = corpus.claude_path(root / "claude" / "projects", cwd, sid)
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as fh:
            claude = corpus.ClaudeWriter(fh, sid, cwd, start=when, seed=n)
            claude.prompt(f"Work through item {n}. Tools you have: {PLAN_TOOL_NAMES}")
            next_plan = 0
            while fh.tell() < size:
                if fh.tell() >= next_plan:
                    claude.todo_write(_plan(rnd, fh.tell() / size))
                    next_plan = fh.tell() + every
                claude.filler(int(rnd.lognormvariate(7.5, 1.0)) + 200)
        return path
    tid = f"01a{n:05x}-0000-7000-8000-{rnd.getrandbits(48):012x}"
    path = corpus.codex_path(root / "codex" / "sessions", tid, when)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as fh:
        codex = corpus.CodexWriter(fh, start=when, seed=n)
        codex.meta(tid, cwd)
        codex.prompt(f"Work through item {n}. Tools you have: {PLAN_TOOL_NAMES}")
        next_plan = 0
        while fh.tell() < size:
            if fh.tell() >= next_plan:
                codex.update_plan(_plan(rnd, fh.tell() / size))
                next_plan = fh.tell() + every
            codex.filler(int(rnd.lognormvariate(7.5, 1.0)) + 200)
    return path


def generate(root: Path, sessions: int = SESSIONS) -> None:
    if sessions != SESSIONS:
        return _generate_heavy(root, sessions)
    rnd = random.Random(11)
    projects = root / "claude" / "projects"
    base = datetime(2026, 11, 1, tzinfo=UTC)
    raw = [min(rnd.lognormvariate(0, 1.0), 12) for _ in range(SESSIONS - BIG)]
    scale = SMALL_TOTAL / sum(raw)
    for n in range(SESSIONS):
        uid = f"{n:08x}-0000-4000-8000-{rnd.getrandbits(48):012x}"
        when = base + timedelta(minutes=n * 37)
        path = corpus.claude_path(projects, f"/home/dev/p{n % 40}", uid)
        path.parent.mkdir(parents=True, exist_ok=True)
        if n < BIG:
            _big(path, n, uid, when, rnd)
        else:
            _small(path, n, uid, max(4000, int(raw[n - BIG] * scale)), when, rnd)
        stamp = (when + timedelta(hours=2)).timestamp()
        os.utime(path, (stamp, stamp))
        if n % 100 == 0:
            print(f"  generated {n + 1}/{SESSIONS} sessions", file=sys.stderr)


def _generate_heavy(root: Path, sessions: int) -> None:
    rnd = random.Random(13)
    projects = root / "claude" / "projects"
    base = datetime(2026, 11, 1, tzinfo=UTC)
    for n in range(sessions):
        # To the minute, three sessions every seven minutes: ties the order must break by id.
        when = base + timedelta(minutes=(n * 7) // 3)
        if n < BIG:
            uid = f"{n:08x}-0000-4000-8000-{rnd.getrandbits(48):012x}"
            path = corpus.claude_path(projects, f"/home/dev/p{n % 40}", uid)
            path.parent.mkdir(parents=True, exist_ok=True)
            _big(path, n, uid, when, rnd)
        else:
            path = _heavy_small(root, n, when, rnd)
        stamp = (when + timedelta(hours=2)).timestamp()
        os.utime(path, (stamp, stamp))
        if n % 1000 == 0:
            print(f"  generated {n + 1}/{sessions} sessions", file=sys.stderr)


def ensure_corpus(root: Path, sessions: int = SESSIONS) -> list[Path]:
    marker = root / "corpus.json"
    wanted = {"shape": "issue-11" if sessions == SESSIONS else f"heavy-{sessions}", "version": SHAPE_VERSION}
    if not (marker.exists() and json.loads(marker.read_text()) == wanted):
        print(f"generating the corpus in {root} (once) …", file=sys.stderr)
        shutil.rmtree(root / "claude", ignore_errors=True)
        shutil.rmtree(root / "codex", ignore_errors=True)
        root.mkdir(parents=True, exist_ok=True)
        generate(root, sessions)
        marker.write_text(json.dumps(wanted))
    return sorted([*(root / "claude" / "projects").rglob("*.jsonl"), *(root / "codex").rglob("*.jsonl")])


# -- measurements ------------------------------------------------------------------------------


def env_for(root: Path, cache: Path) -> dict[str, str]:
    env = os.environ.copy()
    # Timed as installed: pip compiles a wheel's modules to bytecode, so the commands may
    # keep theirs (a host setting PYTHONDONTWRITEBYTECODE would time ~35 compiles a run).
    for name in ("CODEX_HOME", "PLANWATCH_ACP_LOGS", "OPENCODE_DB", "PYTHONDONTWRITEBYTECODE"):
        env.pop(name, None)
    env.update(
        GEMINI_CLI_HOME=str(root / "none" / "gemini"),
        XDG_DATA_HOME=str(root / "none" / "xdg-data"),  # no OpenCode database of the host's
        CLAUDE_CONFIG_DIR=str(root / "claude"),
        CODEX_HOME=str(root / "codex" if (root / "codex").is_dir() else root / "none" / "codex"),
        PLANWATCH_ACP_LOGS=str(root / "none" / "acp"),
        PLANWATCH_CONFIG=str(root / "none" / "config.yaml"),
        PLANWATCH_DATA=str(root / "none" / "data"),
        PLANWATCH_STATE=str(root / "none" / "state"),
        PLANWATCH_STORE=str(root / "none" / "store"),
        PLANWATCH_CACHE=str(cache),
    )
    return env


CPU: dict[str, float] = {}  # the best run's CPU seconds (user + system, children included) per row
# The best run's seconds until what it left running after its answer was done too (the
# caches a listing writes after it): per row of the command line.
DONE: dict[str, float] = {}


def _timed(argv: list[str], env: dict[str, str] | None = None, cwd: Path = ROOT) -> tuple[float, bytes, int]:
    """Seconds, stdout and the child's ru_maxrss (bytes, via a wrapper: exact per run);
    the run's CPU seconds go to `_timed.cpu` (on a shared machine, wall time swings with
    the load; CPU time much less)."""
    # The wrapper adopts what the command leaves running after its answer (the caches a
    # cold listing writes, core/forked.py `detached`) and waits for it after the time is
    # taken: its CPU and memory count, and the next run starts after it.
    wrapper = (
        "import ctypes, os, resource, subprocess, sys, time, json\n"
        "ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)\n"  # PR_SET_CHILD_SUBREAPER
        "t = time.perf_counter()\n"
        "p = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE)\n"
        "s = time.perf_counter() - t\n"
        "while True:\n"
        "    try: os.wait()\n"
        "    except ChildProcessError: break\n"
        "done = time.perf_counter() - t\n"
        "sys.stdout.buffer.write(p.stdout)\n"
        "r = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
        "sys.stderr.write(json.dumps([s, r.ru_maxrss * 1024, p.returncode, r.ru_utime + r.ru_stime, done]))\n"
    )
    out = subprocess.run([sys.executable, "-c", wrapper, *argv], env=env, cwd=cwd, capture_output=True)
    seconds, rss, code, cpu, done = json.loads(out.stderr.decode().strip().splitlines()[-1])
    if code != 0:
        raise SystemExit(f"{argv[:3]} failed with {code}")
    _timed.cpu = cpu  # type: ignore[attr-defined]
    _timed.done = done  # type: ignore[attr-defined]
    return seconds, out.stdout, rss


def measure_cli(root: Path, rounds: int) -> dict[str, object]:
    cache = root / "cache"
    env = env_for(root, cache)
    argv = [sys.executable, "-m", "planwatch.tui.cli", "sessions", "--json"]
    cold: list[float] = []
    warm: list[float] = []
    remembered: list[float] = []
    peak = 0
    outputs: set[bytes] = set()
    _timed(argv, {**env, "PLANWATCH_CACHE": str(root / "cache-untimed")})  # page cache
    for _ in range(rounds):
        shutil.rmtree(cache, ignore_errors=True)
        # The cold run writes the warm-start cache and keeps the listing (core/listing.py);
        # the next answers from the listing kept ("remembered"); with that let go, the
        # warm-start cache answers ("warm": what a listing after a change does for every
        # unchanged file).
        for name, times in (("cold", cold), ("remembered", remembered), ("warm", warm)):
            if name == "warm":
                (cache / "listing.marshal").unlink(missing_ok=True)
            seconds, out, rss = _timed(argv, env)
            if not times or seconds < min(times):
                CPU[name] = _timed.cpu  # type: ignore[attr-defined]
                DONE[name] = _timed.done  # type: ignore[attr-defined]
            times.append(seconds)
            outputs.add(out)
            peak = max(peak, rss)
    sessions = len(json.loads(next(iter(outputs))))
    return {
        "cold": min(cold),
        "warm": min(warm),
        "remembered": min(remembered),
        "identical": len(outputs) == 1,
        "rss": peak,
        "sessions": sessions,
    }


def measure_cat(files: list[Path], rounds: int) -> float:
    args = [str(f) for f in files]

    def run() -> float:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        for i in range(0, len(args), 500):
            subprocess.run(["cat", *args[i : i + 500]], stdout=subprocess.DEVNULL, check=True)
        seconds = time.perf_counter() - t
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        CPU["cat"] = min(CPU.get("cat", cpu), cpu)
        return seconds

    run()
    return min(run() for _ in range(rounds))


_NAIVE = """
import json, sys
for name in sys.argv[1:]:
    with open(name, "rb") as fh:
        for line in fh:
            try:
                json.loads(line)
            except ValueError:
                pass
"""


def measure_naive(files: list[Path]) -> tuple[float, int]:
    seconds, _out, rss = _timed([sys.executable, "-c", _NAIVE, *map(str, files)])
    CPU["naive"] = _timed.cpu  # type: ignore[attr-defined]
    return seconds, rss


CCUSAGE_VERSION = "20.0.24"


def ccusage_command() -> list[str] | None:
    """ccusage from CCUSAGE (a path), else through npx when it can fetch it."""
    given = os.environ.get("CCUSAGE")
    if given:
        return [given]
    npx = shutil.which("npx")
    if npx is None:
        return None
    probe = subprocess.run(
        [npx, "--yes", f"ccusage@{CCUSAGE_VERSION}", "--version"], capture_output=True, text=True, timeout=300
    )
    return [npx, "--yes", f"ccusage@{CCUSAGE_VERSION}"] if probe.returncode == 0 else None


def measure_ccusage(root: Path, rounds: int) -> tuple[float, int] | None:
    try:
        command = ccusage_command()
    except (OSError, subprocess.SubprocessError):
        command = None
    if command is None:
        return None
    env = env_for(root, root / "cache")
    argv = [*command, "session", "--offline", "--json"]
    _timed(argv, env)
    runs = []
    for _ in range(rounds):
        seconds, _out, rss = _timed(argv, env)
        runs.append((seconds, rss, _timed.cpu))  # type: ignore[attr-defined]
    best = min(runs)
    CPU["ccusage"] = best[2]
    return best[0], best[1]


_APP = """
import asyncio, json, os, statistics, sys, time
from pathlib import Path
sys.path[:0] = [sys.argv[3], sys.argv[4]]
from app_transcripts import ClaudeTranscript, option_texts
from planwatch.tui.app import AppOptions, make_app
from planwatch.tui.widgets.checklist import ChecklistView
from planwatch.tui.widgets.session_list import SessionList

async def main():
    corpus, work, appends = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[5])
    live = ClaudeTranscript(work / "live", "/home/dev/live")
    live.custom_title("Live session").todo_write([("first", "pending")])
    roots = [corpus / "claude" / "projects", work / "live" / "projects"]
    if (corpus / "codex" / "sessions").is_dir():
        roots.append(corpus / "codex" / "sessions")
    started = time.perf_counter()
    app = make_app(AppOptions(roots=roots, config_path=work / "config.yaml", store_root=work / "store",
                              state_dir=work / "state"))
    figures = {}
    async with app.run_test(size=(120, 36)) as pilot:
        session_list = None
        while session_list is None:
            try:
                session_list = app.screen.query_one("#sessions", SessionList)
            except Exception:
                await pilot.pause(0.005)
        # The state is sampled every 5 ms without the pilot (a pilot's pause walks every
        # widget's queue: hundreds of them over a scan, work of the UI thread a person's
        # app never does); once it holds, the pilot lets the screen draw it, then the time.
        while session_list.option_count < min(30, len(app.entries()) or 30):  # the first screen's rows
            await asyncio.sleep(0.005)
        await pilot.pause(0)
        figures["first_rows"] = time.perf_counter() - started
        while app.scan_done is None or session_list.option_count < len(app.entries()) or not session_list.option_count:
            await asyncio.sleep(0.005)
        await pilot.pause(0)
        figures["all_rows"] = time.perf_counter() - started
        figures["rows"] = session_list.option_count
        app.screen.select(live.session_id)
        while not app.following:
            await pilot.pause(0.01)
        latencies = []
        for n in range(appends):
            text = f"append number {n}"
            t0 = time.perf_counter()
            live.todo_write([("first", "completed"), (text, "pending")])
            while not any(text in row for row in option_texts(app.screen.query_one("#checklist", ChecklistView))):
                if time.perf_counter() - t0 > 5:
                    raise SystemExit(f"append {n} did not show within 5 s")
                await pilot.pause(0.002)
            latencies.append(time.perf_counter() - t0)
            await pilot.pause(0.05)
        figures["append_median"] = statistics.median(latencies) if latencies else 0.0
        figures["append_first"] = latencies[0] if latencies else 0.0  # as the scan ends: the follower's first look
    print(json.dumps(figures))

asyncio.run(main())
"""


def measure_app(root: Path, appends: int, rounds: int) -> tuple[dict[str, float], int]:
    """The app on an empty cache, then again on the cache it wrote, `rounds` times: the
    best of each time, as for every other row (the appends are made in the first round)."""
    env = env_for(root, root / "cache-app")  # the corpus is the Claude folder, as for the CLI
    figures: dict[str, float] = {}
    peak = 0
    for round_ in range(rounds):
        shutil.rmtree(root / "cache-app", ignore_errors=True)
        for run, count in (("", appends if round_ == 0 else 0), ("warm_", 0)):
            work = root / "app-work"
            shutil.rmtree(work, ignore_errors=True)
            work.mkdir(parents=True)
            _s, out, rss = _timed(
                [sys.executable, "-c", _APP, str(root), str(work), str(ROOT / "tests"), str(ROOT), str(count)], env
            )
            got = json.loads(out.decode().strip().splitlines()[-1])
            for key, value in got.items():
                name = run + key
                if key.startswith("append"):
                    figures.setdefault(name, value)  # the first round's, the one that made them
                elif key.endswith("rows") and key != "rows":
                    figures[name] = min(figures.get(name, value), value)
                else:
                    figures[name] = value
            peak = max(peak, rss)
    return figures, peak


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--corpus", default=None, help="where the corpus is kept (default ./bench-corpus/start, or start-N)"
    )
    parser.add_argument(
        "--sessions", type=int, default=SESSIONS, help="1000 (the default shape) or a heavy user's count"
    )
    parser.add_argument("--rounds", type=int, default=3, help="timed runs per row (the best is shown)")
    parser.add_argument("--appends", type=int, default=20)
    parser.add_argument("--skip-app", action="store_true")
    parser.add_argument("--skip-ccusage", action="store_true")
    args = parser.parse_args()

    default = ROOT / "bench-corpus" / ("start" if args.sessions == SESSIONS else f"start-{args.sessions}")
    root = Path(args.corpus or default).resolve()
    files = ensure_corpus(root, args.sessions)
    total = sum(f.stat().st_size for f in files)
    print(f"corpus: {len(files)} files, {total / 1e9:.2f} GB", file=sys.stderr)
    # planwatch's own modules compiled first, as `pip install` leaves them.
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(ROOT / "core"), str(ROOT / "tui")],
        stdout=subprocess.DEVNULL,
        check=False,
    )
    cat = measure_cat(files, args.rounds)
    cli = measure_cli(root, args.rounds)
    naive, naive_rss = measure_naive(files)
    ccusage = None if args.skip_ccusage else measure_ccusage(root, args.rounds)
    app, app_rss = (None, 0) if args.skip_app else measure_app(root, args.appends, args.rounds)
    cold, warm, remembered = float(cli["cold"]), float(cli["warm"]), float(cli["remembered"])  # type: ignore[arg-type]

    def cpu(name: str) -> str:
        return f"{CPU[name]:.2f} s" if name in CPU else ""

    def written(name: str) -> str:
        return f"caches written by {DONE[name]:.2f} s (CPU counts them)" if name in DONE else ""

    rows: list[tuple[str, str, str, str]] = [
        ("`cat` of every file", f"{cat:.2f} s", cpu("cat"), "1×"),
        (
            "`planwatch sessions --json`, cold",
            f"{cold:.2f} s",
            cpu("cold"),
            f"{cold / cat:.1f}× cat; {naive / cold:.1f}× faster than naive; {written('cold')}",
        ),
        (
            "the same, warm (the listing remembered)",
            f"{remembered:.2f} s",
            cpu("remembered"),
            f"{remembered / cat:.2f}× cat, {remembered / cold:.2f}× cold; "
            f"output identical: {'yes' if cli['identical'] else 'NO'}",
        ),
        (
            "the same, warm, the listing let go (the warm-start cache)",
            f"{warm:.2f} s",
            cpu("warm"),
            f"{warm / cat:.2f}× cat, {warm / cold:.2f}× cold; {written('warm')}",
        ),
    ]
    if ccusage is not None:
        rows.append(
            (
                f"ccusage {CCUSAGE_VERSION} `session --offline --json`",
                f"{ccusage[0]:.2f} s",
                cpu("ccusage"),
                f"planwatch cold {ccusage[0] / cold:.1f}× faster",
            )
        )
    else:
        rows.append((f"ccusage {CCUSAGE_VERSION}", "n/a", "", "not available (no CCUSAGE, npx could not fetch it)"))
    rows.append(("a naive reader (json.loads every line)", f"{naive:.2f} s", cpu("naive"), ""))
    if app is not None:
        rows.append(
            (
                "app: the first screen's rows (cold cache / warm)",
                f"{app['first_rows']:.2f} s / {app['warm_first_rows']:.2f} s",
                "",
                "30 rows",
            )
        )
        rows.append(
            (
                "app: every row on screen (cold cache)",
                f"{app['all_rows']:.2f} s",
                "",
                f"{app['all_rows'] / cold:.2f}× CLI cold",
            )
        )
        rows.append(
            (
                "app: every row on screen (warm cache)",
                f"{app['warm_all_rows']:.2f} s",
                "",
                f"{app['warm_all_rows'] / cold:.2f}× CLI cold",
            )
        )
        rows.append(
            (
                "app: plan call appended → on screen, median",
                f"{app['append_median'] * 1000:.0f} ms",
                "",
                f"of {args.appends}; the first, as following starts: {app['append_first'] * 1000:.0f} ms",
            )
        )
    peak = max(int(cli["rss"]), app_rss)  # type: ignore[call-overload]
    rows.append(("peak RSS (CLI, app and scan workers)", f"{peak / MB:.0f} MB", "", ""))
    load = os.getloadavg()[0]
    from planwatch.core.transcripts.needles import engine

    print(
        f"\n{len(files)} sessions ({cli['sessions']} listed), {total / 1e9:.2f} GB; best of {args.rounds}; "
        f"load average {load:.1f} on {os.cpu_count()} cores; byte search: {engine()}\n"
    )
    print("| | time | CPU | ratio |")
    print("|---|---|---|---|")
    for name, value, used, note in rows:
        print(f"| {name} | {value} | {used} | {note} |")
    print(
        f"\n(maxrss of the naive reader: {naive_rss / MB:.0f} MB; this process: "
        f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
