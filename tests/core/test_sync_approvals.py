"""Approvals across hosts of a shared store: an approval counts elsewhere only with the
approver's SSH signature that verifies against the team's policy; any other is shown as
unverified and never counted (requireApproval keeps refusing the move to doing)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.sync_hosts import Host, bare_remote


def ssh_key(folder: Path, name: str) -> tuple[Path, str]:
    key = folder / name
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", str(key)], check=True)
    return key, (folder / f"{name}.pub").read_text().strip()


def team(tmp_path: Path) -> tuple[Host, Host, Path]:
    remote = bare_remote(tmp_path / "remote.git")
    key, public = ssh_key(tmp_path, "ana")
    _other, other_public = ssh_key(tmp_path, "mallory")
    policy = tmp_path / "policy.json"
    policy.write_text(
        json.dumps(
            {
                "users": {
                    "ana": {"roles": ["lead"], "keys": [public]},
                    "bo": {"roles": ["member"], "keys": [other_public]},
                }
            }
        )
    )
    a, b = Host(tmp_path / "a", "a", owner="ana"), Host(tmp_path / "b", "b", owner="bo")
    for host in (a, b):
        host.settings.write_text(f"owner: {host.owner}\nrequireApproval: true\n")
    a.ok(
        "sync",
        "init",
        str(remote),
        "--host",
        "a",
        "--policy",
        str(policy),
        "--signing-key",
        str(key),
        "--signer",
        "ana",
    )
    b.ok("sync", "join", str(remote), "--host", "b")
    return a, b, remote


def test_a_signed_approval_counts_on_another_host(tmp_path: Path) -> None:
    a, b, _remote = team(tmp_path)
    a.ok("task", "add", "Deploy")
    a.ok("task", "approve", "t1")
    a.ok("sync")
    b.ok("sync")
    assert "by: ana" in b.task_text("t1")
    out = b.run("task", "set", "t1", "--status", "doing")
    assert out.returncode == 0, out.stderr
    b.ok("sync")
    a.ok("sync")
    assert a.files() == b.files()
    assert "status: doing" in a.task_text("t1")


def test_an_unsigned_approval_is_shown_unverified_and_never_counted(tmp_path: Path) -> None:
    a, b, _remote = team(tmp_path)
    tid = b.ok("task", "add", "Risky change").split()[0]
    b.ok("task", "approve", tid)  # bo holds no key here and no approving role in the policy
    b.ok("sync")
    a.ok("sync")
    b.ok("sync")
    for host in (a, b):
        assert "approved:" not in host.task_text(tid)
        refused = host.run("task", "set", tid, "--status", "doing")
        assert refused.returncode == 2, refused.stdout
        status = json.loads(host.ok("sync", "--status", "--json"))
        assert [u["by"] for u in status["unverified"]] == ["bo"]
    assert f"unverified approval of {tid} by bo" in a.ok("sync", "--status")


def test_an_approval_written_into_the_file_by_hand_is_never_shared_nor_counted(tmp_path: Path) -> None:
    a, b, _remote = team(tmp_path)
    a.ok("task", "add", "Forge me")
    a.ok("sync")
    b.ok("sync")
    path = b.store / "tasks" / "t1.md"
    text = path.read_text()
    path.write_text(text.replace("created:", "approved:\n  at: 2026-11-30T09:00:00.000Z\n  by: ana\ncreated:", 1))
    out = b.run("sync")
    assert out.returncode == 0
    assert "approved stamp was not made by an approval call of this host" in out.stderr
    assert "approved:" not in b.task_text("t1")  # put back
    a.ok("sync")
    assert "approved:" not in a.task_text("t1")
    assert a.run("task", "set", "t1", "--status", "doing").returncode == 2


def test_a_policy_change_not_signed_by_an_owner_verifies_no_approval(tmp_path: Path) -> None:
    a, b, remote = team(tmp_path)
    a.ok("task", "add", "Deploy")
    a.ok("task", "approve", "t1")
    a.ok("sync")
    # someone with push access rewrites the policy on top (a fast-forward, unsigned)
    work = tmp_path / "forge.git"
    subprocess.run(["git", "init", "-q", "--bare", str(work)], check=True)
    subprocess.run(
        ["git", "--git-dir", str(work), "fetch", "-q", str(remote), "refs/planwatch/*:refs/planwatch/*"], check=True
    )
    env = {"GIT_AUTHOR_NAME": "m", "GIT_AUTHOR_EMAIL": "m@x", "GIT_COMMITTER_NAME": "m", "GIT_COMMITTER_EMAIL": "m@x"}
    git = ["git", "--git-dir", str(work)]
    blob = (
        subprocess.run([*git, "hash-object", "-w", "--stdin"], input=b'{"users": {}}', capture_output=True, check=True)
        .stdout.decode()
        .strip()
    )
    tree = (
        subprocess.run(
            [*git, "mktree"], input=f"100644 blob {blob}\tpolicy.json\n".encode(), capture_output=True, check=True
        )
        .stdout.decode()
        .strip()
    )
    parent = subprocess.run([*git, "rev-parse", "refs/planwatch/policy"], capture_output=True, text=True).stdout.strip()
    commit = subprocess.run(
        [*git, "commit-tree", tree, "-p", parent, "-m", "x"], capture_output=True, text=True, env=env, check=True
    ).stdout.strip()
    subprocess.run([*git, "push", "-q", str(remote), f"{commit}:refs/planwatch/policy"], check=True)
    b.ok("sync")
    assert "approved:" not in b.task_text("t1")
    assert b.run("task", "set", "t1", "--status", "doing").returncode == 2
