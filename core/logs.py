"""A module's logger that imports `logging` only when something is logged.

`logging` (with the `traceback`, `string` and `weakref` it imports) costs a start
about 6 ms, and a warm `planwatch sessions` over unchanged files logs nothing: the
modules on its path take their logger from here. The logger is the standard one of the
same name (`logging.getLogger(name)`), asked for at the first call, so levels, handlers
and the records' caller are as ever.
"""

from __future__ import annotations

# `typing` is not loaded at run time: a quick command's start (docs/performance.md)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class LazyLogger:
    """`logging.getLogger(name)`, looked up (and `logging` imported) at the first use of
    any of its attributes (`info`, `debug`, `exception`, `isEnabledFor`, ...)."""

    __slots__ = ("_logger", "name")

    def __init__(self, name: str) -> None:
        self.name = name
        self._logger: Any = None

    def __getattr__(self, attr: str) -> Any:
        logger = self._logger
        if logger is None:
            import logging

            logger = self._logger = logging.getLogger(self.name)
        return getattr(logger, attr)


def get_logger(name: str) -> Any:
    """The logger of module `name`, `logging` imported at its first use (typed as
    `logging.Logger` for the modules that hold one)."""
    return LazyLogger(name)
