"""Store-wide settings in the team's signed policy, and the team's requireApproval
applied while merging: every host is under the policy's setting whatever its own says
(its own may only be stricter), and a move to doing that no verified approval allows —
made by hand, or written into a forged log — is held back on every host: not applied,
listed by `sync --status`, kept as the record's contest for the store view."""

from __future__ import annotations

import json
from pathlib import Path

from planwatch.core.sync.contests import read_contests
from tests.core.test_sync_approvals import git_in, push_policy_by_hand, ssh_key, two_hosts
from tests.sync_hosts import Host, bare_remote


def policy_team(tmp_path: Path, settings: dict[str, object]) -> tuple[Host, Host, Path, Path, str]:
    """a holds ana's key (owner and approver); b is bo's host; neither host's own settings
    say requireApproval or sweepAfterDays: only the team's policy does."""
    remote = bare_remote(tmp_path / "remote.git")
    key, public = ssh_key(tmp_path, "ana")
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"users": {"ana": {"roles": ["owner"], "keys": [public]}}, "settings": settings}))
    a, b = two_hosts(tmp_path, remote, policy, key)
    return a, b, remote, key, public


def test_the_policy_requires_approval_on_every_host_and_a_host_may_only_be_stricter(tmp_path: Path) -> None:
    a, b, _remote, key, public = policy_team(tmp_path, {"requireApproval": True})
    tid = b.ok("task", "add", "Deploy").split()[0]
    refused = b.run("task", "set", tid, "--status", "doing")
    assert refused.returncode == 2 and "requireApproval is on" in refused.stderr
    b.ok("sync")
    a.ok("sync")
    a.ok("task", "approve", tid)  # signed with ana's key: it verifies on every host
    a.ok("sync")
    b.ok("sync")
    assert b.run("task", "set", tid, "--status", "doing").returncode == 0
    b.ok("sync")
    a.ok("sync")
    assert "status: doing" in a.task_text(tid) and a.files() == b.files()
    # the owner turns the team's rule off; a host whose own settings say it stays strict
    relaxed = tmp_path / "relaxed.json"
    relaxed.write_text(json.dumps({"users": {"ana": {"roles": ["owner"], "keys": [public]}}}))
    a.ok("sync", "policy", str(relaxed), "--signing-key", str(key), "--signer", "ana")
    b.ok("sync")
    other = b.ok("task", "add", "Tidy up").split()[0]
    assert b.run("task", "set", other, "--status", "doing").returncode == 0
    a.settings.write_text("owner: ana\nrequireApproval: true\n")
    a.ok("sync")
    mine = a.ok("task", "add", "Strict here").split()[0]
    assert a.run("task", "set", mine, "--status", "doing").returncode == 2


def test_a_move_to_doing_made_by_hand_is_held_back_on_every_host_and_found(tmp_path: Path) -> None:
    a, b, _remote, key, public = policy_team(tmp_path, {"requireApproval": True})
    tid = a.ok("task", "add", "Risky change").split()[0]
    a.ok("sync")
    b.ok("sync")
    path = b.store / "tasks" / f"{tid}.md"
    path.write_text(path.read_text().replace("status: todo", "status: doing"))  # past the tools' check
    out = b.ok("sync")
    assert "1 move to doing held back (no verified approval)" in out
    a.ok("sync")
    for host in (a, b):
        assert "status: todo" in host.task_text(tid)
        assert f"held back {tid}: a move to doing from host b with no verified approval" in host.ok("sync", "--status")
        [contest] = read_contests(host.store)[tid]  # what the store view shows beside the record
        assert contest.field == "status" and contest.kept == "todo"
        assert "moved on host b with no verified approval" in str(contest.lost[0])
    assert a.files() == b.files()
    # kept, not dropped: once the owner turns the team's rule off, the move stands
    relaxed = tmp_path / "relaxed.json"
    relaxed.write_text(json.dumps({"users": {"ana": {"roles": ["owner"], "keys": [public]}}}))
    a.ok("sync", "policy", str(relaxed), "--signing-key", str(key), "--signer", "ana")
    a.ok("sync")
    assert "status: doing" in a.task_text(tid)
    assert tid not in read_contests(a.store)


def test_a_move_written_into_a_forged_log_is_held_back(tmp_path: Path) -> None:
    a, b, remote, _key, _public = policy_team(tmp_path, {"requireApproval": True})
    tid = a.ok("task", "add", "Guarded").split()[0]
    approved = a.ok("task", "add", "Approved").split()[0]
    a.ok("task", "approve", approved)
    a.ok("sync")
    state = json.loads((a.store / ".sync" / "state.json").read_text())
    records = {rec["id"]: (uid, rec["create"]) for uid, rec in state["records"].items()}
    lines = []
    for n, record in enumerate((tid, approved), start=1):
        uid, create = records[record]
        op = {"o": f"forged{n}", "h": "m", "s": n, "c": 10_000 + n, "u": uid, "k": "task", "t": "set"}
        lines.append(json.dumps({**op, "f": "status", "v": "doing", "b": [create]}))
    blob = git_in(remote, "hash-object", "-w", "--stdin", stdin=("\n".join(lines) + "\n").encode())
    tree = git_in(remote, "mktree", stdin=f"100644 blob {blob}\tops.jsonl\n".encode())
    commit = git_in(remote, "commit-tree", tree, "-m", "a log nobody's host wrote")
    git_in(remote, "update-ref", "refs/planwatch/log/m", commit)
    b.ok("sync")
    a.ok("sync")
    for host in (a, b):
        assert "status: todo" in host.task_text(tid)
        assert "status: doing" in host.task_text(approved)  # the positive twin: approved first
        held = json.loads(host.ok("sync", "--status", "--json"))["heldBack"]
        assert [(h["id"], h["host"]) for h in held] == [(tid, "m")]
    assert a.files() == b.files()


def test_the_policy_sweep_after_days_is_the_least_any_host_keeps_records(tmp_path: Path) -> None:
    a, b, remote, _key, _public = policy_team(tmp_path, {"sweepAfterDays": 30})
    a.ok("plan", "create", "Shipped", "--scope", "folder:/srv")
    a.ok("plan", "set", "p1", "--status", "done")
    out = a.run("sweep", "--after-days", "0")
    assert out.returncode == 0 and "nothing to sweep" in out.stdout
    assert "the team's policy keeps records 30 days" in out.stderr
    assert (a.store / "plans" / "p1.md").exists()
    # a policy that cannot be verified: nothing is swept, and the sweep says why
    push_policy_by_hand(remote, json.dumps({"users": {}, "settings": {"sweepAfterDays": 0}}))
    a.ok("sync")
    refused = a.run("sweep", "--after-days", "0")
    assert refused.returncode == 1 and "nothing is swept until it can" in refused.stderr
    assert (a.store / "plans" / "p1.md").exists()
    assert b.run("task", "add", "Still written").returncode == 0


def test_a_policy_with_settings_that_are_not_store_wide_ones_is_not_published(tmp_path: Path) -> None:
    a, _b, remote, key, public = policy_team(tmp_path, {})
    tip = git_in(remote, "rev-parse", "refs/planwatch/policy")
    for settings, said in (
        ({"owner": "mallory"}, "not a store-wide one"),
        ({"requireApproval": "yes"}, "requireApproval that is not true or false"),
        ({"sweepAfterDays": -1}, "sweepAfterDays that is not a number of days"),
    ):
        bad = tmp_path / "bad.json"
        bad.write_text(json.dumps({"users": {"ana": {"roles": ["owner"], "keys": [public]}}, "settings": settings}))
        out = a.run("sync", "policy", str(bad), "--signing-key", str(key), "--signer", "ana")
        assert out.returncode == 1 and said in out.stderr and "nothing was published" in out.stderr
    assert git_in(remote, "rev-parse", "refs/planwatch/policy") == tip


def test_a_task_added_approved_and_started_between_two_passes_stays_doing(tmp_path: Path) -> None:
    a, b, _remote, _key, _public = policy_team(tmp_path, {"requireApproval": True})
    a.ok("sync")
    fresh = a.ok("task", "add", "Added, approved, started").split()[0]
    a.ok("task", "approve", fresh)
    a.ok("task", "set", fresh, "--status", "doing")
    known = a.ok("task", "add", "Known first").split()[0]
    a.ok("sync")  # the record known, then approved and started before the next pass
    a.ok("task", "approve", known)
    a.ok("task", "set", known, "--status", "doing")
    out = a.ok("sync")
    assert "held back" not in out
    b.ok("sync")
    for host in (a, b):
        assert "status: doing" in host.task_text(fresh) and "status: doing" in host.task_text(known)
        assert json.loads(host.ok("sync", "--status", "--json"))["heldBack"] == []
    assert a.files() == b.files()
