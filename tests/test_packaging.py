"""The wheel carries every package of the source tree: setuptools installs only the
packages pyproject.toml lists (core/ and tui/ are mapped to planwatch.core and
planwatch.tui), so a new folder that is not listed works from a checkout and is missing
from an installed planwatch."""

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_package_folder_is_listed_for_the_wheel() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(config["tool"]["setuptools"]["packages"])
    found = {
        "planwatch." + ".".join(init.parent.relative_to(ROOT).parts)
        for top in ("core", "tui")
        for init in (ROOT / top).rglob("__init__.py")
        if "__pycache__" not in init.parts
    }
    assert found - listed == set(), "add these to [tool.setuptools] packages in pyproject.toml"


def test_every_name_the_ci_script_imports_exists() -> None:
    """CI's wheel check imports planwatch's own names (the bundled fixtures' folder): a
    module renamed in the tree and not in `.ci/run` fails CI before any test runs."""
    import importlib
    import re

    script = "\n".join((ROOT / ".ci" / name).read_text(encoding="utf-8") for name in ("run", "mcp_smoke.py"))
    imports = re.findall(r"from (planwatch(?:\.\w+)+) import (\w+)", script)
    assert imports, "the CI script imports nothing of planwatch's: this test no longer checks it"
    for module, name in imports:
        assert hasattr(importlib.import_module(module), name), f".ci names {module}.{name}, which does not exist"
