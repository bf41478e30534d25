"""A `planwatch sync` killed while it rebuilds the store's files (a power cut, an
out-of-memory kill, a closed laptop) leaves the next pass nothing to mistake: a file the
killed pass wrote is its render, never a record made by hand (docs/sync.md, One pass).
Real processes, real git, a real bare remote; the kill is a SIGKILL the process sends
itself just before or after its first record file is written (tests/sync_killed.py)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from tests.sync_hosts import Host, bare_remote

KILLED = -9


def titles(host: Host) -> list[str]:
    return sorted(
        re.search(r"^title: (.*)$", p.read_text(), re.M).group(1)  # type: ignore[union-attr]
        for p in (host.store / "tasks").glob("*.md")
    )


def two_hosts(tmp_path: Path) -> tuple[Host, Host, Path]:
    remote = bare_remote(tmp_path / "remote.git")
    a, b = Host(tmp_path / "a", "a"), Host(tmp_path / "b", "b", owner="bo")
    a.ok("task", "add", "From a")
    a.ok("sync", "init", str(remote), "--host", "a")
    b.ok("sync", "join", str(remote), "--host", "b")
    return a, b, remote


def test_a_sync_killed_while_rebuilding_never_duplicates_a_record(tmp_path: Path) -> None:
    a, b, _remote = two_hosts(tmp_path)
    added = b.ok("task", "add", "Added on b").split()[0]
    b.ok("sync")
    out = a.killed_in_rebuild("after", "sync")
    assert out.returncode == KILLED, out.stdout + out.stderr
    assert "Added on b" in a.task_text(added)  # written, and state.json never told
    for host in (a, b, a):
        line = host.ok("sync")
        assert "renumbered" not in line, line
    assert a.files() == b.files()
    assert titles(a) == ["Added on b", "From a"]
    assert not (a.store / ".sync" / "rendering.json").exists()


def test_a_record_edited_after_a_killed_rebuild_keeps_the_edit_once(tmp_path: Path) -> None:
    a, b, _remote = two_hosts(tmp_path)
    added = b.ok("task", "add", "Added on b").split()[0]
    b.ok("sync")
    assert a.killed_in_rebuild("after", "sync").returncode == KILLED
    path = a.store / "tasks" / f"{added}.md"
    path.write_text(path.read_text().replace("labels: []", "labels: [by-hand]"))  # before any pass ran again
    for host in (a, b, a):
        host.ok("sync")
    assert a.files() == b.files()
    assert titles(b) == ["Added on b", "From a"]
    assert "labels: [by-hand]" in b.task_text(added)


def test_a_sync_killed_while_renumbering_never_removes_the_record(tmp_path: Path) -> None:
    remote = bare_remote(tmp_path / "remote.git")
    a, b = Host(tmp_path / "a", "a"), Host(tmp_path / "b", "b", owner="bo")
    a.ok("task", "add", "From a")
    a.ok("sync", "init", str(remote), "--host", "a", "--range", "1")
    b.ok("sync", "join", str(remote), "--host", "b", "--range", "1")
    away = tmp_path / "away.git"
    shutil.move(remote, away)  # b offline: past its one id, it mints a provisional one
    b.ok("task", "add", "Within b's range")
    provisional = b.ok("task", "add", "Provisional on b").split()[0]
    assert b.run("sync").returncode == 3  # rendered offline: this host's render of it
    shutil.move(away, remote)
    a.ok("task", "add", "Fills a's range")
    a.ok("sync")  # claims the next range: the provisional number is a's now
    taken = a.ok("task", "add", "Takes the number").split()[0]
    a.ok("sync")
    assert taken == provisional
    # b's pass renumbers its record, removes the old file and is killed before it writes
    # the new one: on disk, the record is in no file
    out = b.killed_in_rebuild("before", "sync")
    assert out.returncode == KILLED, out.stdout + out.stderr
    assert "Provisional on b" not in titles(b)
    for host in (b, a, b):
        host.ok("sync")
    assert a.files() == b.files()
    assert titles(a) == ["Fills a's range", "From a", "Provisional on b", "Takes the number", "Within b's range"]
    aliases = json.loads((b.store / ".sync" / "aliases.json").read_text())
    assert [e["old"] for e in aliases] == [provisional]
