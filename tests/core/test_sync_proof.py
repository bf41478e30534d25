"""The proof that a shared store converges: four hosts (each its own store, settings and
host id) against a bare remote that refuses non-fast-forward pushes and deletions,
through a seeded schedule of adds (plan and blockedBy drawn from the host's own visible
ids), edits, hand edits (valid, invalid, an editor saving over a newer version),
approvals (signed with the grant, unsigned, forged by hand), syncs (some at once, some
killed at a git step by a `git` shim first on PATH), hosts going offline and back; then
every host syncs until quiet. The ledger of what the commands answered is the truth.
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from planwatch.core.store.approvals import Approvals
from planwatch.core.store.recordfile import parse_record_file
from planwatch.core.store.schema import TaskRecord
from tests.core.test_sync_approvals import ssh_key
from tests.sync_hosts import ROOT, Host, bare_remote

SHIM = """#!/bin/bash
sub=""
for a in "$@"; do
  case "$a" in fetch|push|ls-remote|update-ref|commit-tree|hash-object|mktree|cat-file|rev-parse) sub=$a; break;; esac
done
mode=$(cat "$PW_SHIM/mode" 2>/dev/null)
offline=$(cat "$PW_SHIM/offline" 2>/dev/null)
if [ "$offline" = 1 ] && { [ "$sub" = fetch ] || [ "$sub" = push ] || [ "$sub" = ls-remote ]; }; then
  echo "fatal: unable to access the remote: the network is down" >&2; exit 128
fi
if [ "$mode" = "before-$sub" ]; then rm -f "$PW_SHIM/mode"; kill -9 $PPID; exit 137; fi
REAL_GIT "$@"; rc=$?
if [ "$mode" = "after-$sub" ]; then rm -f "$PW_SHIM/mode"; kill -9 $PPID; exit 137; fi
exit $rc
"""
KILL_STEPS = [f"{when}-{sub}" for when in ("before", "after") for sub in ("fetch", "push", "update-ref", "commit-tree")]
TITLE = re.compile(r"^title: .*?(T\d+)\b", re.M)


class ProofHost(Host):
    def shim_dir(self) -> Path:
        return self.root / "shim"

    down = False

    def offline(self, down: bool) -> None:
        self.down = down
        (self.shim_dir() / "offline").write_text("1" if down else "0")

    def kill_at(self, step: str | None) -> None:
        mode = self.shim_dir() / "mode"
        if step is None:
            mode.unlink(missing_ok=True)
        else:
            mode.write_text(step)

    def visible(self, folder: str) -> list[str]:
        base = self.store / folder
        return sorted(p.stem for p in base.glob("*.md")) if base.is_dir() else []

    def popen_sync(self) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [sys.executable, "-m", "planwatch.tui.cli", "sync"],
            cwd=ROOT,
            env=self.env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )


def make_host(tmp_path: Path, name: str, owner: str) -> ProofHost:
    host = ProofHost(tmp_path / name, name, owner=owner)
    shim = host.shim_dir()
    shim.mkdir()
    real = subprocess.run(["which", "git"], capture_output=True, text=True, check=True).stdout.strip()
    (shim / "git").write_text(SHIM.replace("REAL_GIT", real))
    (shim / "git").chmod(0o755)
    host.env_extra = {"PATH": f"{shim}{os.pathsep}{os.environ['PATH']}", "PW_SHIM": str(shim)}
    return host


def with_label(text: str, label: str) -> str:
    """The record's text with `label` added to its labels, as a person types it."""

    def add(m: re.Match[str]) -> str:
        return f"labels: [{m.group(1) + ', ' if m.group(1) else ''}{label}]"

    return re.sub(r"^labels: \[(.*)\]$", add, text, count=1, flags=re.M)


def token_of(text: str) -> str | None:
    found = TITLE.search(text)
    return found.group(1) if found else None


@pytest.mark.slow
def test_four_hosts_converge_through_faults_with_nothing_lost(tmp_path: Path) -> None:
    rng = random.Random(20261202)
    remote = bare_remote(tmp_path / "remote.git")
    key, public = ssh_key(tmp_path, "ana")
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"users": {"ana": {"roles": ["lead"], "keys": [public]}}}))
    a, b, c, d = (make_host(tmp_path, n, o) for n, o in (("a", "ana"), ("b", "bo"), ("c", "cy"), ("d", "di")))
    hosts = [a, b, c, d]
    adds: list[tuple[ProofHost, str, str]] = []  # (host, the id answered, the title's token)
    hand_labels: dict[str, set[str]] = {}  # token → labels a person added by hand
    signed: set[str] = set()  # tokens approved with the grant and a key
    counter = 0

    def add(host: ProofHost, *extra: str) -> None:
        nonlocal counter
        counter += 1
        token = f"T{counter}"
        out = host.run("task", "add", f"{token} from {host.name}", *extra, session=f"s-{host.name}")
        if out.returncode == 0:
            adds.append((host, out.stdout.split()[0], token))

    add(a)
    a.ok("plan", "create", "P-shared", "--scope", "folder:/srv")
    a.ok(
        "sync",
        "init",
        str(remote),
        "--host",
        "a",
        "--range",
        "3",
        "--policy",
        str(policy),
        "--signing-key",
        str(key),
        "--signer",
        "ana",
    )
    d.ok("task", "add", "T0 local on d before it joined")
    adds.append((d, "t1", "T0"))
    for host in (b, c, d):
        host.ok("sync", "join", str(remote), "--host", host.name, "--range", "3")

    broken: dict[Path, str] = {}
    loaded: list[tuple[Path, str]] = []
    kills = 0
    for _step in range(int(os.environ.get("PW_PROOF_STEPS", "40"))):
        host = rng.choice(hosts)
        roll = rng.random()
        tasks, plans = host.visible("tasks"), host.visible("plans")
        if roll < 0.30:
            extra: list[str] = []
            if tasks and rng.random() < 0.5:
                extra += ["--blocked-by", ",".join(rng.sample(tasks, min(len(tasks), rng.randint(1, 2))))]
            if plans and rng.random() < 0.5:
                extra += ["--plan", rng.choice(plans)]
            add(host, *extra)
        elif roll < 0.33:
            host.run("plan", "create", f"Plan from {host.name} {_step}", "--scope", "folder:/srv")
        elif roll < 0.50 and tasks:
            target = rng.choice(tasks)
            if rng.random() < 0.5:
                host.run("task", "set", target, "--status", rng.choice(["doing", "review", "done", "blocked"]))
            else:
                host.run("task", "set", target, "--note", f"note {_step} from {host.name}")
        elif roll < 0.58 and tasks:
            path = host.store / "tasks" / f"{rng.choice(tasks)}.md"
            if path in broken:
                continue
            text = path.read_text()
            if rng.random() < 0.4:
                loaded.append((path, text))  # an editor loads it, saves later
                continue
            token = token_of(text)
            label = f"hand-{_step}"
            changed = with_label(text, label)
            if token and changed != text:
                path.write_text(changed)
                hand_labels.setdefault(token, set()).add(label)
        elif roll < 0.62 and loaded:
            path, text = loaded.pop(rng.randrange(len(loaded)))
            token = token_of(text)
            if path.exists() and path not in broken and token and token_of(path.read_text()) == token:
                label = f"late-{_step}"
                saved = with_label(text, label)
                path.write_text(saved)  # over whatever the file became meanwhile
                hand_labels.setdefault(token, set()).add(label)
        elif roll < 0.65 and tasks:
            path = host.store / "tasks" / f"{rng.choice(tasks)}.md"
            if path not in broken:
                broken[path] = path.read_text()
                path.write_text("---\ntitle: [a half-typed list\n")
        elif roll < 0.68 and broken:
            path = rng.choice(sorted(broken))
            path.write_text(broken.pop(path))  # fixed again
        elif roll < 0.74 and tasks:
            target = rng.choice(tasks)
            path = host.store / "tasks" / f"{target}.md"
            if path in broken:
                continue
            token = token_of(path.read_text())
            if host is a:
                if a.run("task", "approve", target).returncode == 0 and token:
                    signed.add(token)
            elif host is b:
                b.run("task", "approve", target)  # no key: unverified everywhere
            else:  # forged: written into the file by hand
                text = path.read_text()
                path.write_text(
                    text.replace("created:", "approved:\n  at: 2026-11-30T09:00:00.000Z\n  by: ana\ncreated:", 1)
                )
        elif roll < 0.78:
            host.offline(rng.random() < 0.4)
        elif roll < 0.86:
            group = rng.sample(hosts, rng.randint(2, 3))
            procs = [h.popen_sync() for h in group]
            for proc in procs:
                proc.communicate(timeout=120)
        else:
            step = rng.choice(KILL_STEPS) if rng.random() < 0.5 and not host.down else None
            host.kill_at(step)
            out = host.run("sync")
            kills += out.returncode in (-9, 137)
            if step:
                print(f"sync on {host.name} with {step}: {out.returncode}")
            host.kill_at(None)

    # `planwatch sync` killed at every git step, each with a change of its own to push
    for step in KILL_STEPS:
        host = rng.choice(hosts)
        host.offline(False)
        add(host)
        host.kill_at(step)
        out = host.run("sync")
        host.kill_at(None)
        assert out.returncode == -9, f"{step}: the shim did not kill the sync ({out.returncode})"
        kills += 1

    # healing: every broken file fixed, every host online, sync until quiet
    for path, text in broken.items():
        path.write_text(text)
    for host in hosts:
        host.offline(False)
        host.kill_at(None)
    started = time.monotonic()
    for _round in range(8):
        before = [h.files() for h in hosts]
        for host in hosts:
            out = host.run("sync")
            assert out.returncode == 0, out.stdout + out.stderr
        after = [h.files() for h in hosts]
        if before == after and all(f == after[0] for f in after):
            break
        changed = sorted(
            {k for x, y in zip(before, after, strict=True) for k in set(x) | set(y) if x.get(k) != y.get(k)}
        )
        print(f"round {_round}: changed {changed[:6]}")
    healing = time.monotonic() - started
    stores = [h.files() for h in hosts]
    assert all(s == stores[0] for s in stores), "hosts are not byte-identical"
    store = stores[0]
    records = [parse_record_file(a.store / name) for name in store]
    tasks = [r for r in records if isinstance(r, TaskRecord)]
    assert len(records) == len(store), "a file that is not a record"
    ids = [r.id for r in records]
    assert len(ids) == len(set(ids)), "duplicate ids"
    by_token: dict[str, list[TaskRecord]] = {}
    for t in tasks:
        token = token_of(f"title: {t.title}")
        if token:
            by_token.setdefault(token, []).append(t)
    for host, answered, token in adds:
        found = by_token.get(token, [])
        assert len(found) == 1, f"{token} (added on {host.name} as {answered}) is there {len(found)} times"
        chain = {answered}
        for entry in (
            json.loads((host.store / ".sync" / "aliases.json").read_text())
            if (host.store / ".sync" / "aliases.json").exists()
            else []
        ):
            if entry["old"] in chain:
                chain.add(entry["new"])
        assert found[0].id in chain, f"{token}: answered {answered}, now {found[0].id}, renumbered through {chain}"
    present = set(ids)
    for t in tasks:
        assert all(b in present for b in t.blocked_by), f"{t.id} is blocked by a record that does not exist"
        assert t.plan is None or t.plan in present, f"{t.id} names a plan that does not exist"
    for token, labels in hand_labels.items():
        assert labels <= set(by_token[token][0].labels), f"a hand edit of {token} was lost"
    for host in hosts:
        ledger = Approvals(host.store)
        for t in tasks:
            if ledger.counts(t):
                assert token_of(f"title: {t.title}") in signed, (
                    f"{host.name} counts an approval of {t.id} that was not signed"
                )
    for t in tasks:
        if t.approved is not None:
            assert t.approved.by == "ana" and token_of(f"title: {t.title}") in signed
    renumbered = sum(1 for host, answered, token in adds if by_token[token][0].id != answered)
    print(
        f"\nproof: {len(adds)} adds, {renumbered} renumbered, {len(tasks)} tasks, {len(hand_labels)} records hand-edited, "
        f"{len(signed)} signed approvals, {kills} syncs killed at a git step; healed in {healing:.1f} s"
    )


@pytest.mark.slow
def test_a_write_on_one_host_reaches_another_hosts_store_in_two_passes(tmp_path: Path) -> None:
    remote = bare_remote(tmp_path / "remote.git")
    a, b = Host(tmp_path / "a", "a"), Host(tmp_path / "b", "b")
    a.ok("sync", "init", str(remote), "--host", "a")
    b.ok("sync", "join", str(remote), "--host", "b")
    timings = []
    for n in range(3):
        started = time.monotonic()
        tid = a.ok("task", "add", f"Timed {n}").split()[0]
        a.ok("sync")
        b.ok("sync")
        assert f"Timed {n}" in b.task_text(tid)
        timings.append(time.monotonic() - started)
    print(f"\nwrite on a → b's store (add, sync on a, sync on b; each a process): best {min(timings):.2f} s")
