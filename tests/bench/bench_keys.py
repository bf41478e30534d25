"""Key latency while the first scan of a large corpus runs (a script, not collected by
pytest): how long a key waits before the app acts on it, and what holds the UI thread.

A terminal's keys reach the app from its driver thread through the event loop
(`call_soon_threadsafe`); a key pressed while the loop runs a long callback waits for
it. This script presses `j`/`k` from a thread every `--every` ms while the scan runs and
measures, for each, the time until the screen's cursor action ran (the key acted on),
the UI thread's own CPU spent meanwhile (what of the wait is the UI's own work) and, on
Linux, how long the UI thread waited ready to run for a core (the machine's other load;
the rest is other threads' hold on the interpreter, and locks); every callback that held the loop
for over 50 ms is named, summed by what it was (timed by wrapping `Handle._run`), and
every callback that took over 30 ms of the UI thread's own CPU is listed by the messages
it handled (`Widget.Message`; a worker's or timer's task by its name).

Usage:
    .venv/bin/python tests/bench/bench_keys.py                  # 10,000 small sessions in tmp
    .venv/bin/python tests/bench/bench_keys.py --sessions 2000 --every 40
    .venv/bin/python tests/bench/bench_keys.py --corpus bench-corpus/start-10000  # bench_start's
    .venv/bin/python tests/bench/bench_keys.py --corpus bench-corpus/start-10000 --warm  # a warm start

Every planwatch folder points into a temp folder; the host's folders are never touched.
Goal: every key acted on within 100 ms. The figures, before and after the changes that
took the UI thread's own work a key waits behind under 100 ms at the 95th percentile, are
in docs/performance.md (Keys while a big first scan runs).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import pstats
import re
import statistics
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path[:0] = [str(ROOT), str(HERE), str(HERE.parent)]

from measure import corpus_or_generated, point_folders_into  # noqa: E402


def generate(root: Path, sessions: int) -> None:
    """Small Claude sessions (a prompt and a list of 2-6 steps each), in 40 folders: the
    list's length is what a key competes with, not the bytes."""
    import random

    from corpus import ClaudeWriter, claude_path

    rnd = random.Random(11)
    start = datetime(2026, 11, 30, 6, 0, tzinfo=UTC)
    for n in range(sessions):
        cwd = f"/home/dev/project{n % 40}"
        session_id = str(uuid.UUID(int=rnd.getrandbits(128), version=4))
        path = claude_path(root / "claude" / "projects", cwd, session_id)
        path.parent.mkdir(parents=True, exist_ok=True)
        items = [
            (f"Step {k} of {n}", rnd.choice(["pending", "in_progress", "completed"])) for k in range(rnd.randint(2, 6))
        ]
        with path.open("wb") as fh:
            writer = ClaudeWriter(fh, session_id, cwd, start=start - timedelta(minutes=n), seed=n)
            writer.prompt(f"Work on part {n}")
            writer.todo_write(items)


class SlowCallbacks:
    """Every loop callback that held the UI thread for over `limit` seconds, summed by
    what it was. Timed by wrapping `asyncio.Handle._run`, not by asyncio's debug mode:
    that mode records a traceback for every callback and future made (about a sixth of
    the UI thread's time here), which inflates the very waits measured."""

    def __init__(self, limit: float = 0.05, cpu_limit: float = 0.03) -> None:
        self.limit = limit
        self.cpu_limit = cpu_limit
        self.total: dict[str, float] = defaultdict(float)
        self.count: Counter[str] = Counter()
        self.worst: dict[str, float] = defaultdict(float)
        # By the UI thread's own CPU (the machine's load left out): every callback over
        # `cpu_limit`, named by the messages it handled (`Widget.Message`), worst first.
        self.cpu: list[tuple[float, float, str]] = []
        self._handled: list[str] = []
        self.profile: pstats.Stats | None = None
        self.profiles: list[tuple[float, str, cProfile.Profile]] = []
        self.timeline: list[tuple[float, float, float, str]] = []
        self._real = asyncio.events.Handle._run
        from textual.message_pump import MessagePump

        self._pump = MessagePump
        self._real_dispatch = MessagePump._dispatch_message

    def install(self, *, profile: bool = False) -> None:
        real, limit, clock, cpu = self._real, self.limit, time.perf_counter, time.thread_time
        handled = self._handled
        real_dispatch = self._real_dispatch

        def timed(handle: asyncio.events.Handle) -> None:
            handled.clear()
            profiler = cProfile.Profile() if profile else None
            started, cpu_started = clock(), cpu()
            if profiler is not None:
                profiler.enable()
            real(handle)
            if profiler is not None:
                profiler.disable()
            took, cpu_took = clock() - started, cpu() - cpu_started
            if took > 0.002:
                # Every callback over 2 ms, for what each slow key waited behind.
                what = ", ".join(dict.fromkeys(handled)) or self.name(handle)
                self.timeline.append((started, started + took, cpu_took, what[:120]))
            if took > limit:
                self.note(handle, took)
            if cpu_took > self.cpu_limit:
                what = ", ".join(dict.fromkeys(handled)) or self.name(handle)
                self.cpu.append((cpu_took, took, what[:160]))
                if profiler is not None:
                    # What the slow callbacks spent their CPU on, summed (the profiler
                    # roughly doubles a callback's time: read it for shares, not figures),
                    # and each of them on its own.
                    self.profiles.append((cpu_took, what[:160], profiler))
                    if self.profile is None:
                        self.profile = pstats.Stats(profiler)
                    else:
                        self.profile.add(profiler)

        async def dispatch(pump, message):  # type: ignore[no-untyped-def]
            handled.append(f"{type(pump).__name__}.{type(message).__name__}")
            return await real_dispatch(pump, message)

        asyncio.events.Handle._run = timed  # type: ignore[method-assign]
        self._pump._dispatch_message = dispatch  # type: ignore[method-assign]

    def uninstall(self) -> None:
        asyncio.events.Handle._run = self._real  # type: ignore[method-assign]
        self._pump._dispatch_message = self._real_dispatch  # type: ignore[method-assign]

    def name(self, handle: asyncio.events.Handle) -> str:
        callback = getattr(handle, "_callback", None)
        owner = getattr(callback, "__self__", None)
        name = (
            owner.get_name() if isinstance(owner, asyncio.Task) else getattr(callback, "__qualname__", repr(callback))
        )
        return re.sub(r" at 0x[0-9a-f]+", "", name)[:100]

    def note(self, handle: asyncio.events.Handle, seconds: float) -> None:
        # The handle's callback names a task (the message pump of a widget, a timer)
        # or a function; the object addresses differ run to run.
        callback = getattr(handle, "_callback", None)
        owner = getattr(callback, "__self__", None)
        name = (
            owner.get_name() if isinstance(owner, asyncio.Task) else getattr(callback, "__qualname__", repr(callback))
        )
        name = re.sub(r" at 0x[0-9a-f]+", "", name)[:100]
        self.total[name] += seconds
        self.count[name] += 1
        self.worst[name] = max(self.worst[name], seconds)


async def measure(corpus: Path, work: Path, every: float, *, profile: bool = False) -> dict[str, object]:
    from planwatch.tui.app import AppOptions, make_app
    from planwatch.tui.widgets.session_list import SessionList

    loop = asyncio.get_running_loop()
    slow = SlowCallbacks()
    slow.install(profile=profile)
    roots = [corpus / "claude" / "projects"]
    if (corpus / "codex" / "sessions").is_dir():  # bench_start.py's heavy corpus: Codex sessions too
        roots.append(corpus / "codex" / "sessions")
    app = make_app(
        AppOptions(
            roots=roots,
            config_path=work / "config.yaml",
            store_root=work / "store",
            state_dir=work / "state",
            follow=False,
        )
    )
    async with app.run_test(size=(120, 36)) as pilot:
        while getattr(app.screen, "id", None) != "browse":
            await pilot.pause(0.005)
        sessions = app.screen.query_one("#sessions", SessionList)
        while not sessions.option_count:
            await pilot.pause(0.005)
        stop = threading.Event()
        # Each press: when (wall clock) and the UI thread's CPU clock then. The UI
        # thread's CPU spent from a press to its action is the UI's own work the key
        # waited behind; the rest of its wait is the machine's other load and the
        # other threads' hold on the interpreter.
        pressed: list[tuple[float, float, float]] = []
        lock = threading.Lock()
        ui_clock = time.pthread_getcpuclockid(threading.get_ident())
        ui_waits = ready_waits(threading.get_native_id())

        def press_keys() -> None:
            # A person pressing j and k as a terminal delivers them: from another thread.
            n = 0
            while not stop.is_set():
                key = "j" if n % 2 == 0 else "k"
                with lock:
                    pressed.append((time.perf_counter(), time.clock_gettime(ui_clock), ui_waits()))
                loop.call_soon_threadsafe(app.simulate_key, key)
                n += 1
                stop.wait(every)

        # Each press reaches the screen's action once, in the order pressed: the time
        # from a press to its action is how long the key waited (wrapped here, in the
        # benchmark only).
        acted: list[tuple[float, float, float]] = []
        screen = app.screen
        for name in ("action_cursor_down", "action_cursor_up"):
            real = getattr(screen, name)

            def timed(real=real) -> None:  # type: ignore[no-untyped-def]
                acted.append((time.perf_counter(), time.thread_time(), ui_waits()))
                real()

            setattr(screen, name, timed)
        presser = threading.Thread(target=press_keys, daemon=True)
        presser.start()
        # Until the scan is done and its thread has written the warm-start cache (which
        # shares the interpreter with the UI too).
        while app.scan_done is None or any(w.name == "scan" and not w.is_finished for w in app.workers):
            await asyncio.sleep(0.005)  # sampling the state (a benchmark's resolution: 5 ms)
        stop.set()
        presser.join()
        await pilot.pause()  # the keys still queued are acted on before the app closes
        slow.uninstall()
        rows = sessions.option_count
        with lock:
            pairs = list(zip(pressed, acted, strict=False))
        latencies = [done[0] - sent[0] for sent, done in pairs]
        waited = [
            (done[0] - sent[0], [t for t in slow.timeline if t[1] > sent[0] and t[0] < done[0]])
            for sent, done in pairs
            if done[0] - sent[0] > 0.1
        ]
        ui_work = [done[1] - sent[1] for sent, done in pairs]
        ui_ready = [done[2] - sent[2] for sent, done in pairs]
    return {
        "rows": rows,
        "waited": waited,
        "latencies": latencies,
        "ui_work": ui_work,
        "ui_ready": ui_ready,
        "slow": slow,
    }


def ready_waits(thread_id: int) -> Callable[[], float]:
    """A clock of the seconds the thread `thread_id` has waited, ready to run, for a core
    the machine's other load held (Linux's schedstat; 0 elsewhere): what of a key's wait
    is the machine's, not the app's."""
    path = Path(f"/proc/self/task/{thread_id}/schedstat")
    if not path.exists():
        return lambda: 0.0

    def waited() -> float:
        return int(path.read_text().split()[1]) / 1e9

    return waited


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--every", type=float, default=50, help="ms between key presses")
    parser.add_argument("--corpus", type=Path, help="an existing corpus (claude/projects inside)")
    parser.add_argument("--profile", action="store_true", help="profile the UI's slow callbacks (their shares)")
    parser.add_argument(
        "--warm",
        action="store_true",
        help="start once untimed (the warm-start cache written), then measure a warm start",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="planwatch-bench-keys-") as tmp:
        work = Path(tmp)
        point_folders_into(work)
        corpus = corpus_or_generated(args.corpus, work, args.sessions, generate)
        if args.warm:
            asyncio.run(measure(corpus, work, args.every / 1000))  # writes the cache the next start reads
            # The first app's objects are garbage now (cycles): collected here, as a new
            # process would never hold them, not by the second start's own collection.
            gc.collect()
        got = asyncio.run(measure(corpus, work, args.every / 1000, profile=args.profile))
    latencies = sorted(got["latencies"])  # type: ignore[arg-type]
    print(f"rows {got['rows']}, keys acted on during the scan {len(latencies)}")
    if latencies:
        ms = [x * 1000 for x in latencies]
        p95 = ms[int(0.95 * (len(ms) - 1))]
        print(f"key → acted on: median {statistics.median(ms):.0f} ms, p95 {p95:.0f} ms, worst {ms[-1]:.0f} ms")
        print(f"keys over 100 ms: {sum(x > 100 for x in ms)} of {len(ms)}")
        work = sorted(x * 1000 for x in got["ui_work"])  # type: ignore[attr-defined]
        p95 = work[int(0.95 * (len(work) - 1))]
        print(
            f"UI-thread CPU a key waited behind: median {statistics.median(work):.0f} ms, p95 {p95:.0f} ms,"
            f" worst {work[-1]:.0f} ms"
        )
        ready = sorted(x * 1000 for x in got["ui_ready"])  # type: ignore[attr-defined]
        p95 = ready[int(0.95 * (len(ready) - 1))]
        print(
            f"UI thread ready but waiting for a core (the machine's load): median {statistics.median(ready):.0f} ms,"
            f" p95 {p95:.0f} ms, worst {ready[-1]:.0f} ms (the rest of a key's wait: other threads, locks)"
        )
    for latency, behind in got["waited"]:  # type: ignore[attr-defined]
        print(f"a key acted on after {latency * 1000:.0f} ms waited behind (wall, CPU ms):")
        for start, end, cpu_took, what in behind:
            print(f"  {(end - start) * 1000:5.0f} {cpu_took * 1000:5.0f}  {what}")
    slow: SlowCallbacks = got["slow"]  # type: ignore[assignment]
    print("callbacks that held the UI thread over 50 ms (total s, count, worst s):")
    for name, total in sorted(slow.total.items(), key=lambda kv: -kv[1])[:12]:
        print(f"  {total:6.2f} {slow.count[name]:4d} {slow.worst[name]:6.3f}  {name}")
    print(
        f"callbacks that took over {slow.cpu_limit * 1000:.0f} ms of the UI thread's CPU: {len(slow.cpu)} (CPU, wall ms; the messages handled):"
    )
    for cpu_took, took, what in sorted(slow.cpu, reverse=True)[:15]:
        print(f"  {cpu_took * 1000:5.0f} {took * 1000:6.0f}  {what}")
    if slow.profile is not None:
        print("what the slow callbacks spent their CPU on (cProfile, by cumulative time):")
        slow.profile.sort_stats("cumulative").print_stats(45)
        slow.profile.sort_stats("tottime").print_stats(30)
        for cpu_took, what, profiler in sorted(slow.profiles, key=lambda p: -p[0])[:6]:
            print(f"one slow callback, {cpu_took * 1000:.0f} ms of CPU: {what}")
            pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)


if __name__ == "__main__":
    main()
