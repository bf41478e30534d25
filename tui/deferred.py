"""`inspect`, loaded when first used rather than when `dataclasses` is imported.

`dataclasses` imports `inspect` at its top, and `inspect` brings `ast`, `dis`,
`tokenize` and `linecache` with it: about 9 ms of a command's start, a tenth of a
warm `planwatch sessions` of 1,000 Copilot CLI folders (docs/performance.md). On
Python 3.11 `dataclasses` uses it only to write a docstring for a class that has none;
planwatch's classes all have one, so a quick command (`sessions`, `show`) never needs
it. `defer_inspect` puts a stand-in module in its place; the first attribute anything
asks of the stand-in (`inspect.signature`, a `from inspect import …`) imports the real
module, which from then on is the one `sys.modules` holds, and the stand-in takes on
its names, so what imported the stand-in goes on working as with the real module.

The standard library's `importlib.util.LazyLoader` does not do this on 3.11: the
`import inspect` statement itself looks at the module's spec, which loads it at once.
"""

from __future__ import annotations

import sys
import types
from importlib.machinery import ModuleSpec

NAME = "inspect"


class _Deferred(types.ModuleType):
    """A stand-in for a module not imported yet: its first attribute asked imports it."""

    def __getattr__(self, attribute: str) -> object:
        # Only names not set on the stand-in come here (its spec and name are set).
        real = sys.modules.get(self.__name__)
        if real is None or real is self:
            import importlib

            sys.modules.pop(self.__name__, None)
            try:
                real = importlib.import_module(self.__name__)
            except BaseException:
                sys.modules.setdefault(self.__name__, self)  # asked again, it is tried again
                raise
        # Every name of the real module on the stand-in: a module that imported the
        # stand-in finds them at once from now on (functions keep the real module's globals).
        for key, value in vars(real).items():
            if key not in ("__spec__", "__name__", "__loader__"):
                self.__dict__[key] = value
        return getattr(real, attribute)


def defer_inspect() -> bool:
    """Put the stand-in for `inspect` in place unless `inspect` or `dataclasses` is
    imported already (then nothing is gained, and nothing is done). True when it was."""
    if NAME in sys.modules or "dataclasses" in sys.modules:
        return False
    stand_in = _Deferred(NAME, "imported when first used (planwatch.tui.deferred)")
    stand_in.__spec__ = ModuleSpec(NAME, None)
    sys.modules[NAME] = stand_in
    return True
