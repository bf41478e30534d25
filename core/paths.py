"""Every folder planwatch reads or writes, in one place.

Environment overrides win over settings, settings over the platform defaults:
`PLANWATCH_STORE`, `PLANWATCH_CONFIG`, `PLANWATCH_DATA`, `PLANWATCH_CACHE`, and the harnesses' own
`CLAUDE_CONFIG_DIR`, `CODEX_HOME`, `GEMINI_CLI_HOME`, `OPENCODE_DB`, `QWEN_HOME`,
`PI_CODING_AGENT_DIR`, `COPILOT_HOME`, `KILO_DB`, `CLINE_DATA_DIR`, `CLINE_DIR` and
`XDG_DATA_HOME`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

# `typing` is not loaded at run time: a quick command's start (docs/performance.md)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from planwatch.core.settings import Settings

APP = "planwatch"


def _platformdirs() -> ModuleType:
    # Asked only where no environment variable names the folder: ~3 ms of a start.
    import platformdirs

    return platformdirs


# Linux's per-user folders by the XDG variable that names each, and its default under the
# home folder (what platformdirs gives there).
_XDG = {
    "user_data_dir": ("XDG_DATA_HOME", "~/.local/share"),
    "user_state_dir": ("XDG_STATE_HOME", "~/.local/state"),
    "user_cache_dir": ("XDG_CACHE_HOME", "~/.cache"),
    "user_config_dir": ("XDG_CONFIG_HOME", "~/.config"),
}


def _user_dir(kind: str) -> str:
    """planwatch's per-user folder of a kind (`user_cache_dir`, ...), as platformdirs
    gives it. On Linux (not Android), from an absolute XDG variable or an absolute HOME,
    it is worked out here as platformdirs does (the variable's value, else the default
    under HOME, joined with the app's name): importing platformdirs costs a start about
    4 ms (tempfile, random). Anything else asks platformdirs."""
    env = os.environ
    if sys.platform == "linux" and not hasattr(sys, "getandroidapilevel") and "ANDROID_ROOT" not in env:
        variable, default = _XDG[kind]
        value = env.get(variable, "")
        if value.startswith("/"):
            return os.path.join(value, APP)
        if env.get("HOME", "").startswith("/"):
            return os.path.join(os.path.expanduser(default), APP)
    return str(getattr(_platformdirs(), kind)(APP))


def _env_path(name: str) -> Path | None:
    value = os.environ.get(name)
    return Path(value).expanduser() if value else None


def data_dir() -> Path:
    """planwatch's own data: the store's default home, the ACP logs, overrides."""
    return _env_path("PLANWATCH_DATA") or Path(_user_dir("user_data_dir"))


def state_dir() -> Path:
    """Small state that is not data: overrides of agent items (keys only)."""
    return _env_path("PLANWATCH_STATE") or Path(_user_dir("user_state_dir"))


def cache_dir() -> Path:
    """What can be rebuilt at any time: the warm-start index (offsets, never text)."""
    return _env_path("PLANWATCH_CACHE") or Path(_user_dir("user_cache_dir"))


def config_file() -> Path:
    return _env_path("PLANWATCH_CONFIG") or Path(_user_dir("user_config_dir")) / "config.yaml"


def default_config_files() -> tuple[Path, ...]:
    """The settings files a person's user directory lives in when no PLANWATCH_CONFIG
    names another: the platform's default, and `~/.config/planwatch/config.yaml` of the
    login's home as the password database has it (HOME and XDG_CONFIG_HOME are the
    caller's to set, so an agent could move the platform's default away from it)."""
    found = [Path(_user_dir("user_config_dir")) / "config.yaml"]
    try:
        import pwd

        home = pwd.getpwuid(os.getuid()).pw_dir
    except (ImportError, KeyError, OSError):
        home = ""
    if home:
        login = Path(home) / ".config" / APP / "config.yaml"
        if login not in found:
            found.append(login)
    return tuple(found)


def store_dir(setting: Path | str | None = None) -> Path:
    """The record store: `PLANWATCH_STORE`, else the setting, else `<data>/store`."""
    env = _env_path("PLANWATCH_STORE")
    if env:
        return env
    if setting:
        return Path(setting).expanduser()
    return data_dir() / "store"


def claude_config_dir() -> Path:
    return _env_path("CLAUDE_CONFIG_DIR") or Path.home() / ".claude"


def claude_projects_dir() -> Path:
    return claude_config_dir() / "projects"


def codex_home() -> Path:
    return _env_path("CODEX_HOME") or Path.home() / ".codex"


def codex_session_dirs() -> list[Path]:
    home = codex_home()
    return [home / "sessions", home / "archived_sessions"]


def acp_log_dir() -> Path:
    """Where `planwatch acp-tap` records ACP streams, and where planwatch reads them."""
    return _env_path("PLANWATCH_ACP_LOGS") or data_dir() / "acp"


def gemini_home() -> Path:
    """Gemini CLI's folder: `$GEMINI_CLI_HOME/.gemini` (the variable replaces the home)."""
    home = _env_path("GEMINI_CLI_HOME") or Path.home()
    return home / ".gemini"


def gemini_tmp_dir() -> Path:
    """Where Gemini CLI keeps each project's chats: `<gemini home>/tmp/<slug>/chats/`."""
    return gemini_home() / "tmp"


def qwen_home() -> Path:
    """Qwen Code's folder: `$QWEN_HOME`, else `~/.qwen` (docs/reading.md, Qwen Code)."""
    return _env_path("QWEN_HOME") or Path.home() / ".qwen"


def qwen_projects_dir() -> Path:
    """Where Qwen Code keeps each folder's chats: `<qwen home>/projects/<slug>/chats/`."""
    return qwen_home() / "projects"


def pi_agent_dir() -> Path:
    """pi's agent folder: `$PI_CODING_AGENT_DIR`, else `~/.pi/agent` (docs/reading.md, pi)."""
    return _env_path("PI_CODING_AGENT_DIR") or Path.home() / ".pi" / "agent"


def pi_sessions_dir() -> Path:
    """Where pi keeps its sessions: `<agent dir>/sessions/--<folder>--/<time>_<id>.jsonl`."""
    return pi_agent_dir() / "sessions"


def copilot_home() -> Path:
    """GitHub Copilot CLI's folder: `$COPILOT_HOME`, else `~/.copilot`."""
    return _env_path("COPILOT_HOME") or Path.home() / ".copilot"


def copilot_sessions_dir() -> Path:
    """Where Copilot CLI keeps one folder per session: `<copilot home>/session-state/<id>/`
    (its `session-store.db` beside it is a search index with no plans: never read)."""
    return copilot_home() / "session-state"


def opencode_db_named() -> bool:
    """Whether `OPENCODE_DB` names the database (then its absence is worth a word)."""
    return bool(os.environ.get("OPENCODE_DB"))


def opencode_data_dir() -> Path:
    """OpenCode's data folder: `$XDG_DATA_HOME/opencode` (`~/.local/share/opencode` where
    XDG_DATA_HOME is unset: OpenCode uses the XDG layout on every platform, so
    platformdirs' macOS folder would be wrong)."""
    data = _env_path("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return data / "opencode"


def opencode_db() -> Path:
    """OpenCode's one database: `$OPENCODE_DB`, else `<OpenCode's data folder>/opencode.db`."""
    return _env_path("OPENCODE_DB") or opencode_data_dir() / "opencode.db"


def kilo_db_named() -> bool:
    """Whether `KILO_DB` names Kilo's database (then its absence is worth a word)."""
    return bool(os.environ.get("KILO_DB"))


def kilo_db() -> Path:
    """Kilo CLI's database (an OpenCode fork with a database of its own): `$KILO_DB`,
    else `$XDG_DATA_HOME/kilo/kilo.db` (`~/.local/share/kilo/kilo.db` where XDG_DATA_HOME
    is unset, on every platform, as OpenCode's)."""
    data = _env_path("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return _env_path("KILO_DB") or data / "kilo" / "kilo.db"


def cline_data_dir() -> Path:
    """Cline CLI's data folder: `$CLINE_DATA_DIR`, else `$CLINE_DIR/data` (`CLINE_DIR`
    defaults to `~/.cline`). It holds `sessions/<id>/` and the task board `db/teams.db`."""
    return _env_path("CLINE_DATA_DIR") or (_env_path("CLINE_DIR") or Path.home() / ".cline") / "data"


def opencode_storage_dir() -> Path:
    """Where OpenCode kept JSON files before its database (`storage/session/…`)."""
    return opencode_data_dir() / "storage"


def default_roots(settings: Settings, extra: Sequence[str | Path] = ()) -> list[Path]:
    """Where transcripts are looked for: the harnesses' own folders, planwatch's ACP
    logs, the settings' extra roots, and any given on the command line."""
    roots = [
        claude_projects_dir(),
        *codex_session_dirs(),
        acp_log_dir(),
        gemini_tmp_dir(),
        qwen_projects_dir(),
        pi_sessions_dir(),
        copilot_sessions_dir(),
        opencode_db(),
        opencode_storage_dir(),
        kilo_db(),
        cline_data_dir(),
    ]
    roots += [Path(r).expanduser() for r in (*settings.transcript_roots, *extra)]
    unique: list[Path] = []
    for root in roots:
        if root not in unique:
            unique.append(root)
    return unique
