"""Hosts of a shared store for tests: each its own store, settings and host id, the real
`planwatch` command run as a process, against a bare remote that refuses
non-fast-forward pushes and deletions (as a team's server would be set up)."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.pilot import Pilot

    from planwatch.tui.app import PlanwatchApp
    from planwatch.tui.screens.store import StoreScreen

ROOT = Path(__file__).resolve().parent.parent


def bare_remote(path: Path) -> Path:
    subprocess.run(["git", "init", "-q", "--bare", str(path)], check=True)
    for key in ("receive.denyNonFastForwards", "receive.denyDeletes"):
        subprocess.run(["git", "-C", str(path), "config", key, "true"], check=True)
    return path


@dataclass
class Host:
    root: Path
    name: str
    owner: str = "ana"
    env_extra: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        self.settings.write_text(f"owner: {self.owner}\n")

    @property
    def store(self) -> Path:
        return self.root / "store"

    @property
    def settings(self) -> Path:
        return self.root / "settings.yaml"

    def env(self, session: str | None = None) -> dict[str, str]:
        env = dict(os.environ)
        env.update(
            {
                "PLANWATCH_STORE": str(self.store),
                "PLANWATCH_CONFIG": str(self.settings),
                "PLANWATCH_DATA": str(self.root / "data"),
                "PLANWATCH_CACHE": str(self.root / "cache"),
            }
        )
        env.pop("PLANWATCH_SESSION", None)
        env.pop("PLANWATCH_TOKEN", None)
        if session is not None:
            env["PLANWATCH_SESSION"] = session
        env.update(self.env_extra)
        return env

    def run(self, *argv: str, session: str | None = None, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "planwatch.tui.cli", *argv],
            cwd=ROOT,
            env=self.env(session),
            input=stdin,
            capture_output=True,
            text=True,
            timeout=120,
        )

    def killed_in_rebuild(self, when: str, *argv: str) -> subprocess.CompletedProcess[str]:
        """`planwatch ARGV` SIGKILLed just `when` ("before"/"after") its sync's rebuild
        writes the first record file (tests/sync_killed.py)."""
        return subprocess.run(
            [sys.executable, "-m", "tests.sync_killed", when, *argv],
            cwd=ROOT,
            env=self.env(),
            capture_output=True,
            text=True,
            timeout=120,
        )

    def started(self, *argv: str) -> subprocess.Popen[str]:
        """`planwatch ARGV` started as this host, its output piped as text (the caller
        waits for it: `communicate`)."""
        return subprocess.Popen(
            [sys.executable, "-m", "planwatch.tui.cli", *argv],
            cwd=ROOT,
            env=self.env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def ok(self, *argv: str, session: str | None = None) -> str:
        out = self.run(*argv, session=session)
        assert out.returncode == 0, (
            f"{self.name}: planwatch {' '.join(argv)} → {out.returncode}\n{out.stdout}{out.stderr}"
        )
        return out.stdout

    def files(self) -> dict[str, bytes]:
        out: dict[str, bytes] = {}
        for folder in ("tasks", "plans"):
            base = self.store / folder
            if base.is_dir():
                for path in sorted(base.iterdir()):
                    # `.ids` is the host's own id counter mark (as the root's `.ids`), not
                    # shared; a temp file or anything else left there still counts.
                    if path.is_file() and path.name != ".ids":
                        out[f"{folder}/{path.name}"] = path.read_bytes()
        return out

    def task_text(self, task_id: str) -> str:
        return (self.store / "tasks" / f"{task_id}.md").read_text()


def host_app(host: Host, state_dir: Path, *, follow: bool) -> PlanwatchApp:
    """The real app on `host`'s store and settings, with no transcripts to read (a folder
    made empty beside the host)."""
    from planwatch.tui.app import make_app
    from planwatch.tui.app_options import AppOptions

    empty = host.root.parent / f"{host.name}-no-transcripts"
    empty.mkdir(exist_ok=True)
    options = AppOptions(
        roots=[empty], store_root=host.store, config_path=host.settings, state_dir=state_dir, follow=follow
    )
    return make_app(options)


async def open_store_view(pilot: Pilot[None], app: PlanwatchApp, record: str = "t1") -> StoreScreen:
    """`t` pressed, and the store view once it has read `record`."""
    from app_transcripts import until

    from planwatch.tui.screens.store import StoreScreen

    await pilot.press("t")
    await until(
        pilot,
        lambda: isinstance(app.screen, StoreScreen) and record in app.screen.snapshot.tasks,
        what="the store view",
    )
    screen = app.screen
    assert isinstance(screen, StoreScreen)
    return screen
