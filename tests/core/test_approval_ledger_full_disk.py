"""A full disk never leaves a half-written line in the host's record of approvals: an
approval refused because the disk filled up leaves the record of approvals whole, so
the approval made again once there is room counts."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from planwatch.core.settings import Settings
from planwatch.core.store.identity import Caller
from planwatch.core.store.store import Store
from planwatch.core.store.tools import run_tool

ROOT = Path(__file__).resolve().parents[2]
ANA = Caller(by="ana", session="s-1")


def test_an_approval_refused_on_a_full_disk_leaves_no_torn_line_and_the_retry_counts(tmp_path: Path) -> None:
    store = Store(tmp_path / "store")
    run_tool("task_add", store, Settings(), ANA, {"title": "Write the parser"})
    # The approval, in a process whose files may not grow past 60 bytes: a real EFBIG,
    # as a full disk gives ENOSPC, part-way through the ledger's line.
    script = (
        "import resource, signal, sys\n"
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (60, 60))\n"
        "from planwatch.core.settings import Settings\n"
        "from planwatch.core.store.errors import StoreError\n"
        "from planwatch.core.store.identity import Caller\n"
        "from planwatch.core.store.store import Store\n"
        "from planwatch.core.store.tools import run_tool\n"
        f"s = Store({str(store.root)!r})\n"
        "try:\n"
        "    run_tool('task_approve', s, Settings(), Caller(by='ana', session='s-1'), {'task': 't1'})\n"
        "except StoreError as e:\n"
        "    print(e)\n"
        "    sys.exit(3)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.returncode == 3, out.stdout + out.stderr
    ledger = store.root / ".approvals"
    assert not ledger.exists() or ledger.read_bytes() == b"" or ledger.read_bytes().endswith(b"\n"), (
        f"a torn line was left in {ledger}: {ledger.read_bytes()!r}"
    )
    # Room again: the person approves once more, and that approval counts.
    assert run_tool("task_approve", store, Settings(), ANA, {"task": "t1"}).lines == ["t1 todo medium Write the parser"]
    listed = run_tool("task_list", store, Settings(), ANA, {"approved": True})
    assert listed.lines == ["t1 todo medium Write the parser"], listed.notes
