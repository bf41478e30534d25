"""Shared test fixtures: every test runs with its own tmp folders, never the host's.

- `isolated_env` (autouse): points every folder planwatch or a harness could touch at a
  fresh tmp tree, so no test can reach the real ~/.claude, ~/.codex or XDG folders. Its
  value is an `IsolatedEnv` naming those folders, for tests that want to fill them.
- `frozen_now`: one fixed, timezone-aware instant for tests that need a clock.
- `fixture_path` / `copy_fixture`: find a file or folder under fixtures/, or copy it
  into tmp so a test may change it.

Owned by the app-views helper; other helpers add their own fixtures in their test
modules rather than editing this file.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"

FROZEN_NOW = datetime(2026, 11, 30, 9, 0, 0, tzinfo=UTC)
"""The instant frozen-clock tests treat as now (a Monday, 09:00 UTC)."""


@dataclass(frozen=True)
class IsolatedEnv:
    """The tmp folders a test's environment variables point at."""

    root: Path
    claude: Path
    codex: Path
    data: Path
    state: Path
    store: Path
    config: Path
    """The settings file (not created: a missing file reads as the defaults)."""
    acp_logs: Path


@pytest.fixture(autouse=True)
def isolated_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> IsolatedEnv:
    """Point every env override at a fresh tmp tree; unset what would leak host state."""
    root = tmp_path_factory.mktemp("env")
    env = IsolatedEnv(
        root=root,
        claude=root / "claude",
        codex=root / "codex",
        data=root / "data",
        state=root / "state",
        store=root / "store",
        config=root / "config" / "config.yaml",
        acp_logs=root / "data" / "acp",
    )
    for folder in (env.claude, env.codex, env.data, env.state, env.config.parent):
        folder.mkdir(parents=True)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(env.claude))
    monkeypatch.setenv("CODEX_HOME", str(env.codex))
    monkeypatch.setenv("PLANWATCH_DATA", str(env.data))
    monkeypatch.setenv("PLANWATCH_STATE", str(env.state))
    monkeypatch.setenv("PLANWATCH_STORE", str(env.store))
    monkeypatch.setenv("PLANWATCH_CONFIG", str(env.config))
    monkeypatch.setenv("PLANWATCH_ACP_LOGS", str(env.acp_logs))
    # Gemini CLI's home (its .gemini folder is inside) and OpenCode's database (under
    # XDG_DATA_HOME below unless OPENCODE_DB names one).
    monkeypatch.setenv("GEMINI_CLI_HOME", str(root / "gemini-home"))
    monkeypatch.delenv("OPENCODE_DB", raising=False)
    # Qwen Code's and pi's folders (docs/reading.md, Qwen Code and pi).
    monkeypatch.setenv("QWEN_HOME", str(root / "qwen-home"))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(root / "pi-agent"))
    # Copilot CLI's folder (its session-state/ below).
    monkeypatch.setenv("COPILOT_HOME", str(root / "copilot-home"))
    # Kilo CLI's database (under XDG_DATA_HOME below unless KILO_DB names one) and Cline
    # CLI's data folder.
    monkeypatch.delenv("KILO_DB", raising=False)
    monkeypatch.delenv("CLINE_DIR", raising=False)
    monkeypatch.setenv("CLINE_DATA_DIR", str(root / "cline-data"))
    # platformdirs falls back to these; anything not covered above still lands in tmp.
    for name in ("XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
        monkeypatch.setenv(name, str(root / "xdg" / name.lower()))
    # A token or a tmux pane of the person running the tests must not change behaviour.
    for name in ("PLANWATCH_TOKEN", "TMUX", "TMUX_PANE"):
        monkeypatch.delenv(name, raising=False)
    return env


@pytest.fixture
def frozen_now() -> datetime:
    """The fixed instant for tests that inject a clock (`lambda: frozen_now`)."""
    return FROZEN_NOW


@pytest.fixture
def fixture_path() -> Callable[[str], Path]:
    """`fixture_path("store/basic")` → the path under fixtures/ (must exist)."""

    def find(relative: str) -> Path:
        path = FIXTURES / relative
        if not path.exists():
            raise FileNotFoundError(f"no fixture {relative!r} under {FIXTURES}")
        return path

    return find


@pytest.fixture
def copy_fixture(tmp_path: Path, fixture_path: Callable[[str], Path]) -> Callable[..., Path]:
    """`copy_fixture("store/basic", dest=None)` → a tmp copy (file or folder) to change freely."""

    def copy(relative: str, dest: Path | None = None) -> Path:
        source = fixture_path(relative)
        target = dest if dest is not None else tmp_path / "fixtures" / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target, dirs_exist_ok=True)
        else:
            shutil.copy2(source, target)
        return target

    return copy
