"""Approvals that count on every host: signed with the approver's SSH key, checked
against the team's policy.

The policy (`refs/planwatch/policy` on the remote, `policy.json`): users, their roles
and public signing keys, and roles' grants beside the built-in ones —
`{"users": {"ana": {"roles": ["lead"], "keys": ["ssh-ed25519 AAAA… ana@laptop"]}},
"roles": {"approver": ["task:approve"]}}`. Token hashes never go there: they stay in
each host's own settings. Each host pins the policy's first commit when it joins; a
later commit counts only when it carries `policy.sig`, a signature over its
`policy.json` and its parent's id by an owner of the parent's policy (namespace
`planwatch-policy`). A policy that does not chain to the pin is no policy: no approval
verifies.

An approval operation carries `sig`: the approver's signature (`ssh-keygen -Y sign -n
planwatch-approve`) over the store, the record's uid, the operation's id, the stamp
and the digest of the title and body approved. It is made on the host where the
approver approved through the tools (the local token check first), with the key the
sync configuration names for that user (`signer`, `signingKey`). Every host verifies
(`ssh-keygen -Y verify`) against the keys the policy gives that user, who must hold
task:approve there; one that fails is unverified: shown, never counted.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planwatch.core.sync.ops import Op
from planwatch.core.user_directory import BUILTIN_ROLES, TASK_APPROVE

if TYPE_CHECKING:
    from planwatch.core.sync.replica import Replica

APPROVE_NS = "planwatch-approve"
POLICY_NS = "planwatch-policy"
_FETCHED_POLICY = "refs/pwremote/policy"


def approval_payload(replica: Replica, op: Op) -> bytes:
    body = {
        "store": replica.config.get("store") or "",
        "uid": op["u"],
        "op": op["o"],
        "stamp": op.get("v"),
        "digest": op.get("d"),
    }
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def _ssh_keygen(args: list[str], data: bytes) -> subprocess.CompletedProcess[bytes] | None:
    """`ssh-keygen ARGS` fed `data`, within 30 s; None when it could not be run or took longer."""
    try:
        return subprocess.run(["ssh-keygen", *args], input=data, capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None


def sign(key: str, namespace: str, data: bytes) -> str | None:
    out = _ssh_keygen(["-q", "-Y", "sign", "-f", key, "-n", namespace], data)
    if out is None:
        return None
    return out.stdout.decode() if out.returncode == 0 and b"BEGIN SSH SIGNATURE" in out.stdout else None


def verify(keys: list[str], principal: str, namespace: str, data: bytes, signature: str) -> bool:
    if not keys or not signature or "\n" in principal or " " in principal:
        return False
    with tempfile.TemporaryDirectory(prefix="planwatch-verify-") as tmp:
        signers = Path(tmp) / "allowed_signers"
        signers.write_text("".join(f"{principal} {key.strip()}\n" for key in keys if "\n" not in key.strip()))
        sig = Path(tmp) / "data.sig"
        sig.write_text(signature)
        out = _ssh_keygen(["-Y", "verify", "-f", str(signers), "-I", principal, "-n", namespace, "-s", str(sig)], data)
    return out is not None and out.returncode == 0


def sign_approval(replica: Replica, op: Op) -> str | None:
    """The approver's signature over the approval, when this host holds their key; else None."""
    key, signer = replica.config.get("signingKey"), replica.config.get("signer")
    stamp = op.get("v") or {}
    if not key or not signer or stamp.get("by") != signer:
        return None
    return sign(str(key), APPROVE_NS, approval_payload(replica, op))


def _grants(policy: dict[str, Any], user: str) -> frozenset[str]:
    entry = (policy.get("users") or {}).get(user)
    if not isinstance(entry, dict):
        return frozenset()
    roles: dict[str, frozenset[str]] = dict(BUILTIN_ROLES)
    for name, grants in (policy.get("roles") or {}).items():
        if isinstance(grants, list):
            roles[name] = roles.get(name, frozenset()) | frozenset(str(g) for g in grants)
    held: frozenset[str] = frozenset()
    for role in entry.get("roles") or ():
        held |= roles.get(str(role), frozenset())
    return held


def _keys(policy: dict[str, Any], user: str) -> list[str]:
    entry = (policy.get("users") or {}).get(user)
    keys = entry.get("keys") if isinstance(entry, dict) else None
    return [str(k) for k in keys] if isinstance(keys, list) else []


def owner_keys(policy: dict[str, Any], user: str) -> list[str]:
    """The public keys the policy gives `user` (what hosts verify a signature of theirs with)."""
    return _keys(policy, user)


def verify_approval(replica: Replica, op: Op, policy: dict[str, Any]) -> bool:
    stamp = op.get("v") or {}
    by = stamp.get("by")
    if not isinstance(by, str) or TASK_APPROVE not in _grants(policy, by):
        return False
    signature = op.get("sig")
    if not isinstance(signature, str):
        return False
    return verify(_keys(policy, by), by, APPROVE_NS, approval_payload(replica, op), signature)


def owners(policy: dict[str, Any]) -> list[str]:
    users = policy.get("users") or {}
    return sorted(u for u, e in users.items() if isinstance(e, dict) and "owner" in (e.get("roles") or ()))


def policy_shape_problem(data: Any) -> str | None:
    """What makes `data` no policy (None: it is one): users with roles and keys, roles as grants."""
    if not isinstance(data, dict):
        return "is not a JSON object"
    users = data.get("users")
    if not isinstance(users, dict) or not users:
        return "names no users (a 'users' object: name → {roles, keys})"
    for name, entry in users.items():
        if not isinstance(entry, dict):
            return f"gives user {name} no object of roles and keys"
        if not isinstance(entry.get("roles", []), list) or not isinstance(entry.get("keys", []), list):
            return f"gives user {name} roles or keys that are not lists"
    if not owners(data):
        return "names no owner (a user with the role owner): nobody could change it again"
    roles = data.get("roles", {})
    if not isinstance(roles, dict) or any(not isinstance(g, list) for g in roles.values()):
        return "has roles that are not lists of grants"
    return settings_problem(data.get("settings", {}))


TEAM_SETTINGS = ("requireApproval", "sweepAfterDays")
"""The store-wide settings a policy may hold (`"settings": {"requireApproval": true}`)."""


def settings_problem(settings: Any) -> str | None:
    """What makes a policy's `settings` no store-wide settings (None: they are)."""
    if not isinstance(settings, dict):
        return "has settings that are not an object (requireApproval, sweepAfterDays)"
    for key in settings:
        if key not in TEAM_SETTINGS:
            return f"has the setting {key!r}, which is not a store-wide one (requireApproval, sweepAfterDays)"
    if not isinstance(settings.get("requireApproval", False), bool):
        return "has a requireApproval that is not true or false"
    days = settings.get("sweepAfterDays")
    if days is not None and (isinstance(days, bool) or not isinstance(days, int | float) or not 0 <= days < 1e9):
        return "has a sweepAfterDays that is not a number of days, 0 or more"
    return None


def team_settings(policy: dict[str, Any] | None) -> dict[str, Any]:
    """The store-wide settings of a verified policy, as every host applies them:
    `{"requireApproval": bool, "sweepAfterDays": float | None, "problem": str | None}`.
    No policy (None) is the caller's to judge (a store without one has no team
    settings; one that does not verify fails closed). Settings that are not valid fail
    closed too: approval required, nothing swept (`problem` says why)."""
    settings = (policy or {}).get("settings", {})
    problem = settings_problem(settings)
    if problem is not None:
        return {"requireApproval": True, "sweepAfterDays": None, "problem": f"the team policy {problem}"}
    days = settings.get("sweepAfterDays")
    return {
        "requireApproval": bool(settings.get("requireApproval", False)),
        "sweepAfterDays": None if days is None else float(days),
        "problem": None,
    }


def _policy_of(replica: Replica, commit: str) -> tuple[dict[str, Any] | None, bytes, str | None]:
    found = replica.git.read([f"{commit}:policy.json", f"{commit}:policy.sig"])
    raw = found.get(f"{commit}:policy.json") or b""
    sig = found.get(f"{commit}:policy.sig")
    try:
        data = json.loads(raw)
    except ValueError:
        return None, raw, None
    return (data if isinstance(data, dict) else None), raw, (sig.decode() if sig else None)


def policy_key(replica: Replica) -> str:
    return f"{replica.config.get('policyPin')}:{replica.git.ref(_FETCHED_POLICY)}"


def current_policy(replica: Replica) -> dict[str, Any] | None:
    """The policy at the remote's tip, when it chains to this host's pin; else None."""
    return check_policy(replica)[0]


def check_policy(replica: Replica) -> tuple[dict[str, Any] | None, str | None]:
    """(the policy at the fetched tip, None) when it verifies; else (None, what is wrong,
    naming the file and commit), or (None, None) for a store with no policy."""
    last_good, problem = walk_policy(replica)
    return (None, problem) if problem else (last_good, None)


def walk_policy(replica: Replica) -> tuple[dict[str, Any] | None, str | None]:
    """Walk the policy ref from this host's pin to the fetched tip: a commit counts when
    its `policy.sig` is a signature of its `policy.json` and its parent's id by an owner of
    the last policy that counted. (the last policy that counted, what is wrong with the
    tip — None when the tip counts). A commit that does not count is passed over, so an
    owner mends the ref by publishing on top of it (the remote refuses to rewind it)."""
    tip = replica.git.ref(_FETCHED_POLICY)
    pin = replica.config.get("policyPin")
    if not pin:
        return None, None
    where = "refs/planwatch/policy"
    if not tip:
        return None, f"{where} is missing from the remote (this host pinned policy commit {pin[:12]})"
    chain = replica.git.first_parents(tip)  # the tip first
    if pin not in chain:
        return None, (
            f"{where} (commit {tip[:12]}) does not descend from the policy commit this host pinned "
            f"when it joined ({pin[:12]}): the policy was replaced, not changed by its owners"
        )
    chain = chain[: chain.index(pin) + 1]
    good, _raw, _sig = _policy_of(replica, chain[-1])
    if good is None:
        return None, f"policy.json of the pinned policy commit {pin[:12]} is not a JSON object"
    problem: str | None = None
    for parent, commit in zip(reversed(chain), list(reversed(chain))[1:], strict=False):
        policy, raw, sig = _policy_of(replica, commit)
        if policy is None:
            problem = f"policy.json of {where} commit {commit[:12]} is not a JSON object"
            continue
        if not sig:
            problem = f"policy.sig is missing from {where} commit {commit[:12]}: a change of the policy must be signed"
            continue
        signed = raw + b"\n" + parent.encode()
        if not any(verify(_keys(good, u), u, POLICY_NS, signed, sig) for u in owners(good)):
            named = ", ".join(owners(good)) or "none"
            problem = (
                f"policy.sig of {where} commit {commit[:12]} is not a signature of its policy.json by an owner "
                f"of the policy before it (owners: {named})"
            )
            continue
        good, problem = policy, None
    return good, problem
