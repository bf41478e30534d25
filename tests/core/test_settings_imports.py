"""Every planwatch command loads the settings, so loading them costs no
import it does not need — no pydantic and no ruamel.yaml without a settings file, no
pydantic for a file without a user directory. Real subprocesses, real files from
fixtures/config/, a fresh interpreter each."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = ROOT / "fixtures" / "config"

LOAD = """
import json, sys
from pathlib import Path
from planwatch.core.settings import load_settings
settings = load_settings(Path(sys.argv[1]), report=False)
print(json.dumps({
    "pydantic": "pydantic" in sys.modules,
    "ruamel": "ruamel.yaml" in sys.modules,
    "owner": settings.owner,
    "require_approval": settings.require_approval,
    "directory": settings.users is not None,
    "fails_closed": settings.directory_error is not None,
    "problems": [str(p) for p in settings.problems],
}))
"""


def _load_in_a_fresh_process(path: Path) -> dict[str, object]:
    out = subprocess.run(
        [sys.executable, "-c", LOAD, str(path)], capture_output=True, text=True, check=True, timeout=60
    )
    loaded: dict[str, object] = json.loads(out.stdout)
    return loaded


def test_without_a_settings_file_neither_pydantic_nor_ruamel_is_imported(tmp_path: Path) -> None:
    loaded = _load_in_a_fresh_process(tmp_path / "missing.yaml")
    assert loaded["pydantic"] is False and loaded["ruamel"] is False
    assert loaded["require_approval"] is False and loaded["problems"] == []


def test_a_file_without_a_user_directory_is_parsed_without_pydantic() -> None:
    loaded = _load_in_a_fresh_process(CONFIGS / "everyday.yaml")
    assert loaded["pydantic"] is False
    assert loaded["ruamel"] is True and loaded["owner"] == "dana" and loaded["problems"] == []  # it was read


def test_a_file_with_a_user_directory_loads_its_checks_and_still_fails_closed() -> None:
    # The positive twin: the directory's checks do load when there is a directory.
    valid = _load_in_a_fresh_process(CONFIGS / "seed-directory.yaml")
    assert valid["pydantic"] is True and valid["directory"] is True and valid["fails_closed"] is False
    broken = _load_in_a_fresh_process(CONFIGS / "unknown-user-key.yaml")
    assert broken["directory"] is False and broken["fails_closed"] is True
    problems = broken["problems"]
    assert isinstance(problems, list) and any("users[1].email" in problem for problem in problems)


FOLDERS = """
import json, sys
from planwatch.core import paths
mine = {kind: paths._user_dir(kind) for kind in paths._XDG}
print(json.dumps({"platformdirs": "platformdirs" in sys.modules, "folders": mine}))
import platformdirs
print(json.dumps({kind: getattr(platformdirs, kind)("planwatch") for kind in paths._XDG}))
"""


def test_the_per_user_folders_are_platformdirs_own_without_importing_it_on_linux(tmp_path: Path) -> None:
    """planwatch's data, state, cache and config folders are the ones platformdirs
    gives, for XDG variables set, unset, relative or with a trailing slash, and a HOME
    set or not; on Linux with an absolute XDG variable or HOME they are worked out
    without importing platformdirs (about 4 ms of every start)."""
    environments: list[dict[str, str]] = [
        {"HOME": str(tmp_path)},
        {"HOME": str(tmp_path) + "/", "XDG_CACHE_HOME": str(tmp_path / "c") + "/", "XDG_CONFIG_HOME": "relative"},
        {"HOME": "/", "XDG_STATE_HOME": "//double", "XDG_DATA_HOME": ""},
        {"HOME": "relative-home", "XDG_DATA_HOME": str(tmp_path / "d")},
        {},
    ]
    for env in environments:
        out = subprocess.run(
            [sys.executable, "-c", FOLDERS],
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
            env={"PATH": "/usr/bin:/bin", **env},
        )
        mine, theirs = (json.loads(line) for line in out.stdout.splitlines())
        assert mine["folders"] == theirs, env
        if sys.platform == "linux" and env.get("HOME", "").startswith("/"):
            assert mine["platformdirs"] is False, env
