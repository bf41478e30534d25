"""Benchmark: the live latency of the five harnesses read from databases and trees.
Another process changes a session (a row inserted into a Copilot CLI session's
`session.db`, a line appended to a Qwen Code or pi session, a step written into Kilo's
database, a task added to Cline's board) → the app's pane shows the new step:

    .venv/bin/python tests/bench/bench_live.py [--writes 10] [--only copilot,pi]

For each harness, in a temp folder of its own (every folder planwatch or a harness reads
is pointed into it, the host's never touched), a process of its own:
- the harness's real sample session (fixtures/samples) is placed where the harness
  keeps it, and the real app starts in pane mode (Textual's Pilot, 40×30) and follows it;
- a writer process (this script, `--writer`) makes one change each time it is told, as
  the harness writes it (sqlite3 with autocommit; a line appended with one `write` and
  the file closed), and answers the monotonic time its write returned;
- the app's side polls the pane's checklist every 2 ms and notes the monotonic time it
  first holds the new step (Linux's monotonic clock is one for every process).
The latency of a write is seen − written; the table gives the median, the fastest and
the slowest of `--writes`, one write at a time, 0.2 s apart.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
TESTS = HERE.parent
sys.path[:0] = [str(HERE), str(TESTS)]

from measure import FOLDERS  # noqa: E402

SAMPLES = ROOT / "fixtures" / "samples"
HARNESSES = {
    # harness: (session id, what the writer does)
    "copilot": ("5e806925-4250-446b-9e18-4cd8ceb54145", "a todos row inserted into its session.db"),
    "qwen": ("650333ef-8d48-49e8-abbd-2f740e50ee0a", "a todo_write result line appended"),
    "pi": ("01a232f9-5858-71c1-b1b0-7ed98b089974", "a todo result entry appended"),
    "kilo": ("ses_dcd121de1ffelPWOqBKlwGYv1a", "a todowrite (message, part, todo rows) written"),
    "cline": ("1796150957437_jfzg6", "a team_tasks row inserted into teams.db"),
}
QWEN_FILE = "650333ef-8d48-49e8-abbd-2f740e50ee0a.jsonl"
PI_FILE = "2026-12-01T18-58-51-609Z_01a232f9-5858-71c1-b1b0-7ed98b089974.jsonl"
POLL = 0.002
BETWEEN = 0.2
TIMEOUT = 10.0


def step(n: int) -> str:
    return f"Live step {n}"


# -- where each harness keeps its session (in the app's process, its folders set) ------


def place(harness: str) -> list[str]:
    """Put the harness's sample session where the harness keeps it; returns the writer's
    arguments (what it writes into)."""
    from planwatch.core import paths

    if harness == "copilot":
        folder = paths.copilot_sessions_dir() / HARNESSES["copilot"][0]
        shutil.copytree(SAMPLES / "copilot" / "session-state" / folder.name, folder)
        return [str(folder / "session.db")]
    if harness == "qwen":
        chats = paths.qwen_projects_dir() / "-home-dev-qwen-todos" / "chats"
        chats.mkdir(parents=True)
        return [shutil.copy(SAMPLES / "qwen" / QWEN_FILE, chats / QWEN_FILE)]
    if harness == "pi":
        folder = paths.pi_sessions_dir() / "--home-dev-pi-todos--"
        folder.mkdir(parents=True)
        return [shutil.copy(SAMPLES / "pi" / PI_FILE, folder / PI_FILE)]
    if harness == "kilo":
        database = paths.kilo_db()
        database.parent.mkdir(parents=True)
        return [shutil.copy(SAMPLES / "kilo" / "kilo.db", database)]
    data = paths.cline_data_dir()
    sid = HARNESSES["cline"][0]
    shutil.copytree(SAMPLES / "cline" / sid, data / "sessions" / sid)
    (data / "db").mkdir(parents=True)
    shutil.copy(SAMPLES / "cline" / "teams.db", data / "db" / "teams.db")
    return [str(data)]


# -- the writer: another process, one change per line read ------------------------------


def _last_record(path: Path, holding: bytes) -> dict[str, Any]:
    return json.loads([line for line in path.read_bytes().splitlines() if holding in line][-1])


def writer(harness: str, target: str) -> None:
    """Read `n` lines from stdin; for each, write step n as the harness does and answer
    the monotonic time the write returned."""
    path = Path(target)
    sid = HARNESSES[harness][0]
    db = sqlite3.connect(path, isolation_level=None, timeout=10) if harness == "copilot" else None
    qwen = _last_record(path, b'"todo_list"') if harness == "qwen" else None
    pi = _last_record(path, b'"toolName":"todo"') if harness == "pi" else None
    pi_leaf = json.loads(path.read_bytes().splitlines()[-1])["id"] if harness == "pi" else None
    for line in sys.stdin:
        n = int(line)
        if db is not None:
            db.execute("INSERT INTO todos (id, title, status) VALUES (?, ?, 'pending')", (f"live-{n}", step(n)))
        elif qwen is not None:
            qwen["parentUuid"], qwen["uuid"] = qwen["uuid"], f"live-{n:08d}-0000-4000-8000-000000000000"
            qwen["toolCallResult"]["callId"] = f"call_live_{n}"
            for part in qwen["message"]["parts"]:
                part["functionResponse"]["id"] = f"call_live_{n}"
            todos = qwen["toolCallResult"]["resultDisplay"]["todos"]
            todos.append({"id": f"live{n}", "content": step(n), "status": "pending"})
            _append(path, qwen)
        elif pi is not None:
            entry_id = f"{0x11000000 + n:08x}"
            pi["parentId"], pi["id"] = pi_leaf, entry_id
            details = pi["message"]["details"]
            details["action"] = "add"
            details["todos"].append({"id": details["nextId"], "text": step(n), "done": False})
            details["nextId"] += 1
            pi_leaf = entry_id
            _append(path, pi)
        elif harness == "kilo":
            import kilo_db

            with contextlib.redirect_stdout(io.StringIO()):  # it says how many steps
                kilo_db._append_step(path, sid, step(n))
        else:
            import cline_data

            cline_data._add_task(path, sid, step(n))
        print(time.monotonic(), flush=True)


def _append(path: Path, record: dict[str, Any]) -> None:
    with path.open("ab") as fh:
        fh.write(json.dumps(record, separators=(",", ":")).encode() + b"\n")


# -- the app's side ---------------------------------------------------------------------


async def follow(harness: str, writes: int) -> dict[str, Any]:
    from app_transcripts import option_texts, until

    from planwatch.core import paths
    from planwatch.tui.app import AppOptions, make_app
    from planwatch.tui.widgets.checklist import ChecklistView

    target = place(harness)
    app = make_app(AppOptions(config_path=paths.config_file(), pane=True))
    latencies: list[float] = []
    async with app.run_test(size=(40, 30)) as pilot:
        await until(pilot, lambda: app.scan_done is not None, timeout=60, what="the scan")
        await until(pilot, lambda: app.following, timeout=60, what="the follower")
        assert app.screen.selected_id == HARNESSES[harness][0], app.screen.selected_id
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            __file__,
            "--writer",
            harness,
            *map(str, target),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
        )
        assert proc.stdin is not None and proc.stdout is not None

        def shown(text: str) -> bool:
            return any(text in row for row in option_texts(app.screen.query_one("#checklist", ChecklistView)))

        for n in range(writes):
            proc.stdin.write(f"{n}\n".encode())
            await proc.stdin.drain()
            answer = asyncio.ensure_future(proc.stdout.readline())
            deadline = time.monotonic() + TIMEOUT
            while not shown(step(n)):
                if time.monotonic() > deadline:
                    raise SystemExit(f"{harness}: write {n} did not show within {TIMEOUT:.0f} s")
                await pilot.pause(POLL)
            seen = time.monotonic()
            written = float((await answer).decode())
            latencies.append(seen - written)
            await pilot.pause(BETWEEN)
        proc.stdin.close()
        await proc.wait()
        observer = app.index._following.observer_kind
    return {"harness": harness, "latencies": latencies, "observer": observer}


# -- the table --------------------------------------------------------------------------


def environment(work: Path) -> dict[str, str]:
    """This process's environment with every folder planwatch or a harness reads in `work`."""
    env = {k: v for k, v in os.environ.items() if k not in ("KILO_DB", "OPENCODE_DB", "CLINE_DIR", "TMUX", "TMUX_PANE")}
    env.update({name: str(work / sub) for name, sub in FOLDERS})
    env.update(
        GEMINI_CLI_HOME=str(work / "gemini-home"),
        PLANWATCH_ACP_LOGS=str(work / "acp"),
        QWEN_HOME=str(work / "qwen-home"),
        PI_CODING_AGENT_DIR=str(work / "pi-agent"),
        COPILOT_HOME=str(work / "copilot-home"),
        CLINE_DATA_DIR=str(work / "cline-data"),
    )
    return env


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--writes", type=int, default=10)
    parser.add_argument("--only", default=",".join(HARNESSES))
    parser.add_argument("--writer", nargs=2, metavar=("HARNESS", "TARGET"), help=argparse.SUPPRESS)
    parser.add_argument("--app", metavar="HARNESS", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.writer:
        writer(*args.writer)
        return 0
    if args.app:
        print(json.dumps(asyncio.run(follow(args.app, args.writes))))
        return 0
    rows = []
    with tempfile.TemporaryDirectory(prefix="planwatch-bench-live-") as temp:
        for harness in args.only.split(","):
            work = Path(temp) / harness
            work.mkdir()
            out = subprocess.run(
                [sys.executable, __file__, "--app", harness, "--writes", str(args.writes)],
                cwd=ROOT,
                env=environment(work),
                capture_output=True,
                text=True,
                timeout=600,
            )
            if out.returncode != 0:
                print(out.stdout, out.stderr, file=sys.stderr)
                return 1
            got = json.loads(out.stdout.strip().splitlines()[-1])
            ms = sorted(t * 1000 for t in got["latencies"])
            rows.append((harness, HARNESSES[harness][1], statistics.median(ms), ms[0], ms[-1], got["observer"]))
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"write → the pane shows it, {args.writes} writes each (ms; load average {load})\n")
    print(f"{'harness':<8} {'median':>7} {'fastest':>8} {'slowest':>8}  {'watcher':<8} what another process writes")
    for harness, what, median, fastest, slowest, observer in rows:
        print(f"{harness:<8} {median:>7.0f} {fastest:>8.0f} {slowest:>8.0f}  {observer:<8} {what}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
