"""`planwatch` as a process that is SIGKILLed in the middle of a sync's rebuild, as a
power cut, an out-of-memory kill or a closed laptop would end it:

    python -m tests.sync_killed before|after sync [ARGS…]

killed just before (`before`) or just after (`after`) the rebuild writes its first
record file; everything else is the real command, with the real git and remote. A pass
with no record to write is not killed."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path
from typing import Any


def _killing(when: str) -> Any:
    from planwatch.core.sync import replica

    real = replica.atomic_write

    def write(path: Any, data: Any, *args: Any, **kwargs: Any) -> Any:
        record = Path(path).parent.name in ("tasks", "plans")
        if record and when == "before":
            os.kill(os.getpid(), signal.SIGKILL)
        result = real(path, data, *args, **kwargs)
        if record and when == "after":
            os.kill(os.getpid(), signal.SIGKILL)
        return result

    return write


if __name__ == "__main__":
    from planwatch.core.sync import replica
    from planwatch.tui.cli import main

    when = sys.argv[1]
    assert when in ("before", "after"), when
    replica.atomic_write = _killing(when)  # type: ignore[attr-defined]
    sys.argv = ["planwatch", *sys.argv[2:]]
    sys.exit(main())
