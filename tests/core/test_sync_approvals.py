"""Approvals across hosts of a shared store: an approval counts elsewhere only with the
approver's SSH signature that verifies against the team's policy; any other is shown as
unverified and never counted (requireApproval keeps refusing the move to doing)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from tests.sync_hosts import Host, bare_remote


def ssh_key(folder: Path, name: str) -> tuple[Path, str]:
    key = folder / name
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", str(key)], check=True)
    return key, (folder / f"{name}.pub").read_text().strip()


def team(tmp_path: Path, settings: dict[str, object] | None = None) -> tuple[Host, Host, Path]:
    """Hosts a (ana's) and b (bo's) sharing a store; `settings`: the team policy's."""
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
                },
                **({"settings": settings} if settings else {}),
            }
        )
    )
    a, b = two_hosts(tmp_path, remote, policy, key, require_approval=True)
    return a, b, remote


def two_hosts(
    tmp_path: Path, remote: Path, policy: Path, key: Path, *, require_approval: bool = False
) -> tuple[Host, Host]:
    """a (ana's host, holding her key) shares its store to `remote` under `policy`; b
    (bo's) joins it; with `require_approval`, both hosts' settings say so first."""
    a, b = Host(tmp_path / "a", "a", owner="ana"), Host(tmp_path / "b", "b", owner="bo")
    for host in (a, b) if require_approval else ():
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
    return a, b


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


def owned_team(tmp_path: Path) -> tuple[Host, Host, Path, Path, str]:
    """a holds ana's key (an owner), b is bo's host; the policy at init gives bo no role."""
    remote = bare_remote(tmp_path / "remote.git")
    key, public = ssh_key(tmp_path, "ana")
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"users": {"ana": {"roles": ["owner"], "keys": [public]}}}))
    a, b = two_hosts(tmp_path, remote, policy, key)
    return a, b, remote, key, public


def git_in(remote: Path, *argv: str, stdin: bytes | None = None) -> str:
    """git run by hand on `remote`, as someone with push access would, with an identity of
    its own: a fresh machine has no global git identity to fall back on."""
    identity = ("-c", "user.name=someone", "-c", "user.email=someone@example.invalid")
    out = subprocess.run(
        ["git", *identity, "--git-dir", str(remote), *argv], input=stdin, capture_output=True, check=True
    )
    return out.stdout.decode().strip()


def push_policy_by_hand(remote: Path, text: str, sig: str | None = None) -> str:
    """Someone with push access moves the policy ref on (a fast-forward the remote takes)."""
    entries = [f"100644 blob {git_in(remote, 'hash-object', '-w', '--stdin', stdin=text.encode())}\tpolicy.json"]
    if sig is not None:
        entries.append(f"100644 blob {git_in(remote, 'hash-object', '-w', '--stdin', stdin=sig.encode())}\tpolicy.sig")
    tree = git_in(remote, "mktree", stdin=("\n".join(entries) + "\n").encode())
    tip = git_in(remote, "rev-parse", "refs/planwatch/policy")
    commit = git_in(remote, "commit-tree", tree, "-p", tip, "-m", "by hand")
    git_in(remote, "update-ref", "refs/planwatch/policy", commit, tip)
    return commit


def test_an_owner_publishes_a_new_policy_that_every_host_verifies(tmp_path: Path) -> None:
    a, b, remote, _key, public = owned_team(tmp_path)
    _bo_key, bo_public = ssh_key(tmp_path, "bo")
    new = tmp_path / "new-policy.json"
    new.write_text(
        json.dumps(
            {"users": {"ana": {"roles": ["owner"], "keys": [public]}, "bo": {"roles": ["lead"], "keys": [bo_public]}}}
        )
    )
    out = a.ok("sync", "policy", str(new))
    assert out.startswith("sync: published the team policy ")
    tip = git_in(remote, "rev-parse", "refs/planwatch/policy")
    assert out.split()[-1] == tip[:12]
    assert git_in(remote, "cat-file", "-p", f"{tip}:policy.json") == new.read_text()
    assert "BEGIN SSH SIGNATURE" in git_in(remote, "cat-file", "-p", f"{tip}:policy.sig")
    b.ok("sync")
    assert f"policy: verified at {tip[:12]}" in b.ok("sync", "--status")
    # a signed approval still counts across hosts under the new policy
    a.ok("task", "add", "Deploy")
    a.ok("task", "approve", "t1")
    a.ok("sync")
    b.ok("sync")
    assert "by: ana" in b.task_text("t1")
    # only an owner of the current policy may change it
    refused = b.run("sync", "policy", str(new), "--signing-key", str(_bo_key), "--signer", "bo")
    assert refused.returncode == 1
    assert "bo is not an owner in the current policy (owners: ana)" in refused.stderr
    assert git_in(remote, "rev-parse", "refs/planwatch/policy") == tip
    # naming an owner is not enough: the signature must be made with that owner's key
    claimed = b.run("sync", "policy", str(new), "--signing-key", str(_bo_key), "--signer", "ana")
    assert claimed.returncode == 1
    assert f"{_bo_key} is not a key of ana in the current policy" in claimed.stderr
    assert "nothing was published" in claimed.stderr
    assert git_in(remote, "rev-parse", "refs/planwatch/policy") == tip
    b.ok("sync")
    assert b.run("task", "list").returncode == 0  # no host was locked out


def test_a_policy_that_does_not_verify_refuses_every_call_needing_a_grant_and_says_why(tmp_path: Path) -> None:
    a, b, remote, key, public = owned_team(tmp_path)
    a.ok("task", "add", "Deploy")
    a.ok("sync")
    b.ok("sync")
    assert b.run("task", "list").returncode == 0  # the positive twin: the same call before
    # a policy change nobody signed, pushed by hand: mallory makes herself an owner
    _m, m_public = ssh_key(tmp_path, "mallory")
    forged = push_policy_by_hand(
        remote, json.dumps({"users": {"mallory": {"roles": ["owner"], "keys": [m_public]}}}), sig=None
    )
    b.ok("sync")
    for argv in (("task", "approve", "t1"), ("task", "list"), ("plan", "list")):
        out = b.run(*argv)
        assert out.returncode == 2, (argv, out.stdout)
        assert "the team policy cannot be verified" in out.stderr
        assert f"policy.sig is missing from refs/planwatch/policy commit {forged[:12]}" in out.stderr
    assert "policy: cannot be verified" in b.ok("sync", "--status")
    # a write that needs no grant still works; the store is not locked up, only grants
    assert b.run("task", "add", "Still written").returncode == 0
    # an owner of the last policy that verified mends it by publishing on top
    good = tmp_path / "good.json"
    good.write_text(json.dumps({"users": {"ana": {"roles": ["owner"], "keys": [public]}}}))
    a.ok("sync", "policy", str(good), "--signing-key", str(key), "--signer", "ana")
    b.ok("sync")
    assert b.run("task", "list").returncode == 0
    assert "policy: verified" in b.ok("sync", "--status")


def test_a_policy_check_that_is_a_fifo_fails_closed_at_once_instead_of_hanging(tmp_path: Path) -> None:
    _a, b, _remote, _key, _public = owned_team(tmp_path)
    check = b.store / ".sync" / "policy-check.json"
    check.unlink(missing_ok=True)
    os.mkfifo(check)
    out = b.run("task", "list")  # the runner's timeout is the hang this guards against
    assert out.returncode == 2
    assert f"{check} cannot be read" in out.stderr and "FIFO" in out.stderr


def test_a_policy_check_that_cannot_be_read_fails_closed_naming_the_file(tmp_path: Path) -> None:
    _a, b, _remote, _key, _public = owned_team(tmp_path)
    check = b.store / ".sync" / "policy-check.json"
    assert json.loads(check.read_text())["problem"] is None
    check.write_text("{not json")
    out = b.run("task", "list")
    assert out.returncode == 2
    assert f"{check} cannot be read" in out.stderr
    b.ok("sync")  # the next pass checks the policy again
    assert b.run("task", "list").returncode == 0


def logged_ops(remote: Path, host: str) -> list[dict[str, object]]:
    """The operations `host`'s log holds on `remote`."""
    log = subprocess.run(
        ["git", "-C", str(remote), "show", f"refs/planwatch/log/{host}:ops.jsonl"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return [json.loads(line) for line in log.splitlines()]


def forged_log(remote: Path, ref: str, lines: list[dict[str, object]], scratch: Path) -> None:
    """Push a commit holding `lines` as `ops.jsonl` to `ref` on `remote`, as a third
    party with push access would (no host of planwatch made it)."""
    env = {**os.environ, "GIT_AUTHOR_NAME": "x", "GIT_AUTHOR_EMAIL": "x@x", "GIT_COMMITTER_NAME": "x"}
    env["GIT_COMMITTER_EMAIL"] = "x@x"
    repo = scratch / "forge.git"
    subprocess.run(["git", "init", "-q", "--bare", str(repo)], check=True)
    ops = scratch / "ops.jsonl"
    ops.write_text("".join(json.dumps(line, sort_keys=True, separators=(",", ":")) + "\n" for line in lines))

    def git(*args: str, data: str | None = None) -> str:
        return subprocess.run(
            ["git", "-C", str(repo), *args], input=data, capture_output=True, text=True, env=env, check=True
        ).stdout.strip()

    blob = git("hash-object", "-w", str(ops))
    tree = git("mktree", data=f"100644 blob {blob}\tops.jsonl\n")
    commit = git("commit-tree", tree, "-m", "forged")
    git("push", "-q", str(remote), f"{commit}:{ref}")


def test_a_signed_approval_copied_onto_another_task_counts_for_neither_but_its_own(tmp_path: Path) -> None:
    """A third party copies ana's signed approval of t1 (its op id and signature) into a
    log of its own, aimed at t2 (another record, the digest of t2's text), and moves t2
    to doing. The copy is another operation, checked on its own signature, which is not
    ana's for it: t2 is not approved and its move stays held back on every host (it was
    counted: the check was remembered by op id), and t1's approval still counts."""
    import hashlib

    a, b, remote = team(tmp_path, {"requireApproval": True})
    a.ok("task", "add", "Deploy")
    a.ok("task", "approve", "t1")
    a.ok("task", "add", "Evil task")
    a.ok("sync")
    b.ok("sync")
    ops = logged_ops(remote, "a")
    [approval] = [op for op in ops if op["t"] == "approve"]
    [t2] = [op for op in ops if op["t"] == "new" and op["i"] == "t2"]
    digest = hashlib.sha256(json.dumps([t2["v"]["title"], t2["v"]["body"]], ensure_ascii=False).encode()).hexdigest()
    forged = {**approval, "h": "c", "c": 0, "s": 1, "u": t2["u"], "d": digest}
    move = {"c": 100, "h": "c", "k": "task", "o": "f" * 16, "s": 2, "t": "set", "f": "status"}
    move.update({"u": t2["u"], "v": "doing", "b": [t2["o"]]})
    forged_log(remote, "refs/planwatch/log/c", [forged, move], tmp_path)
    for host in (b, a):
        host.ok("sync")
        assert "approved:" not in host.task_text("t2") and "status: doing" not in host.task_text("t2")
        assert "by: ana" in host.task_text("t1")
        assert [line.split()[0] for line in host.ok("task", "list", "--approved").splitlines()] == ["t1"]
        assert host.run("task", "set", "t2", "--status", "doing").returncode == 2


def test_an_operation_of_a_shape_no_host_writes_is_skipped_and_every_pass_goes_on(tmp_path: Path) -> None:
    """A log holding operations of types no host writes (a stamp that is text, a list of
    causes that is a number, a list field given a number, a record id that is a path)
    and one whose record is no valid record (an unknown status): each host's passes go
    on (one such line in any log stopped every pass of every host, for good), the bad
    record is said and left out, and every other record is as it was."""
    a, b, remote = team(tmp_path)
    a.ok("task", "add", "Fine")
    a.ok("sync")
    b.ok("sync")
    [new] = [op for op in logged_ops(remote, "a") if op["t"] == "new"]
    base = {"h": "c", "k": "task", "c": 50}
    lines: list[dict[str, object]] = [
        {**base, "o": "c1", "s": 1, "u": new["u"], "t": "stamp", "f": "started", "v": "yesterday"},
        {**base, "o": "c2", "s": 2, "u": new["u"], "t": "set", "f": "title", "v": "x", "b": 5},
        {**base, "o": "c3", "s": 3, "u": "u-c3", "t": "new", "i": "t7", "v": {"title": "x", "blockedBy": 5}},
        {**base, "o": "c4", "s": 4, "u": "u-c4", "t": "new", "i": "../../x", "v": {"title": "x"}},
        {**base, "o": "c5", "s": 5, "u": "u-c5", "t": "new", "i": "t9", "v": {"title": "Bogus", "status": "bogus"}},
    ]
    forged_log(remote, "refs/planwatch/log/c", lines, tmp_path)
    for host in (a, b, a):
        out = host.run("sync")
        assert out.returncode == 0, out.stderr
        assert "a bug" not in out.stderr and "Traceback" not in out.stderr
        assert "task t9 (made on host c): the logs' operations make no valid record" in out.stderr
        assert host.ok("task", "list").splitlines() == ["t1 todo medium Fine"]
    assert not (tmp_path / "x.md").exists() and not list(tmp_path.rglob("x.md"))
