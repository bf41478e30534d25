"""The sweep: finished plans and their tasks leave the store after `sweepAfterDays`.

API summary:
- `run_sweep(store, settings, now) -> SweepReport` — one pass. A plan that is done or
  dropped goes, with every task naming it, once the newest stamp among them (the plan's
  and its tasks') is older than `settings.sweep_after_days`. Draft and active plans
  never go; `sweep_after_days` None keeps everything. A plan with no stamp at all (hand
  written) is aged by its file's modification time. Tasks go before their plan, so an
  interrupted pass leaves nothing pointing at a missing plan and the next finishes it.
  Each pass also removes temp files left by writers killed mid-write.
- `Sweeper(store, settings, interval=3600, clock=...)` — a daemon thread that runs a
  pass when started and then every `interval` seconds; a failed pass is logged and
  retried at the next. `start()`, `stop()` (joins).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from planwatch.core.atomic import describe_os_error
from planwatch.core.settings import Settings
from planwatch.core.store.errors import StoreError
from planwatch.core.store.schema import FINISHED_PLAN, PlanRecord, TaskRecord
from planwatch.core.store.store import Store

log = logging.getLogger(__name__)

HOUR = 3600.0


@dataclass(frozen=True)
class SweepReport:
    """What one pass removed (ids, and the temp files of writers killed mid-write)."""

    plans: list[str] = field(default_factory=list)
    tasks: list[str] = field(default_factory=list)
    temp_files: list[Path] = field(default_factory=list)
    refused: str | None = None
    """Why nothing was swept on a shared store whose team settings cannot be read."""
    after_days: float | None = None
    """The days the pass swept by (the team's policy may raise the host's)."""


def _newest(store: Store, plan: PlanRecord, tasks: list[TaskRecord]) -> datetime | None:
    instants = [s.at for s in plan.stamps().values()]
    for task in tasks:
        instants.extend(s.at for s in task.stamps().values())
    if instants:
        return max(instants)
    try:
        return datetime.fromtimestamp(store.plan_path(plan.id).stat().st_mtime, UTC)
    except OSError:
        return None


def run_sweep(store: Store, settings: Settings, now: datetime | None = None) -> SweepReport:
    """One sweep pass (see the module docstring); returns what it removed."""
    # The tidy runs whatever the setting says: a temp file is never a record to keep.
    temp_files = store.remove_stale_temp_files()
    for path in temp_files:
        log.info("removed %s, left by a writer that stopped mid-write", path)
    from planwatch.core.store.team import effective, sweep_refusal

    refused = sweep_refusal(store.root)
    if refused is not None:
        log.warning("sweep: %s", refused)
        return SweepReport(temp_files=temp_files, refused=refused)
    settings = effective(settings, store.root)  # the team's sweepAfterDays; a host may only keep longer
    report = SweepReport(temp_files=temp_files, after_days=settings.sweep_after_days)
    if settings.sweep_after_days is None:
        return report
    now = now or datetime.now(UTC)
    try:
        cutoff = now - timedelta(days=settings.sweep_after_days)
    except (OverflowError, ValueError):
        # More days than a date can count back (999999: "keep practically forever"):
        # nothing is that old.
        return report
    with store.lock():
        snap = store.load()
        all_tasks = snap.tasks_sorted()
        for plan in snap.plans_sorted():
            if plan.status not in FINISHED_PLAN:
                continue
            tasks = [t for t in all_tasks if t.plan == plan.id]
            newest = _newest(store, plan, tasks)
            if newest is None or newest >= cutoff:
                continue
            for task in tasks:
                if store.delete_task(task.id):
                    report.tasks.append(task.id)
            if store.delete_plan(plan.id):
                report.plans.append(plan.id)
    if report.plans:
        log.info("sweep removed plans %s and tasks %s", report.plans, report.tasks)
    return report


class Sweeper:
    """Runs the sweep when started and then every `interval` seconds, on its own thread."""

    def __init__(
        self,
        store: Store,
        settings: Settings | Callable[[], Settings],
        *,
        interval: float = HOUR,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.store = store
        self._settings = settings if callable(settings) else (lambda: settings)
        self.interval = interval
        self.clock = clock
        self.passes = 0
        self.failures = 0
        self.last_report: SweepReport | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.pass_done = threading.Event()
        """Set after every pass, failed or not (tests wait on it)."""

    def run_once(self) -> SweepReport | None:
        try:
            report = run_sweep(self.store, self._settings(), self.clock())
        except (StoreError, OSError) as exc:  # said in a sentence (a locked, full or read-only store)
            self.failures += 1
            reason = str(exc) if isinstance(exc, StoreError) else f"{describe_os_error(exc)}."
            log.warning("sweep of %s failed: %s Retrying in %.0f s.", self.store.root, reason, self.interval)
            report = None
        except Exception:  # a failed pass must not kill the thread: log, retry next time
            self.failures += 1
            log.exception("sweep of %s failed; retrying in %.0f s", self.store.root, self.interval)
            report = None
        else:
            self.last_report = report
        self.passes += 1
        self.pass_done.set()
        return report

    def _loop(self) -> None:
        while not self._stop.is_set():
            self.run_once()
            self._stop.wait(self.interval)

    def start(self) -> None:
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._loop, name="planwatch-sweep", daemon=True)
        self._thread.start()

    def stop(self, timeout: float | None = 5.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None
