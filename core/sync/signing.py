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


def sign(key: str, namespace: str, data: bytes) -> str | None:
    try:
        out = subprocess.run(
            ["ssh-keygen", "-q", "-Y", "sign", "-f", key, "-n", namespace],
            input=data,
            capture_output=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
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
        try:
            out = subprocess.run(
                ["ssh-keygen", "-Y", "verify", "-f", str(signers), "-I", principal, "-n", namespace, "-s", str(sig)],
                input=data,
                capture_output=True,
                timeout=30,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired):
            return False
    return out.returncode == 0


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


def verify_approval(replica: Replica, op: Op, policy: dict[str, Any]) -> bool:
    stamp = op.get("v") or {}
    by = stamp.get("by")
    if not isinstance(by, str) or TASK_APPROVE not in _grants(policy, by):
        return False
    signature = op.get("sig")
    if not isinstance(signature, str):
        return False
    return verify(_keys(policy, by), by, APPROVE_NS, approval_payload(replica, op), signature)


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
    tip = replica.git.ref(_FETCHED_POLICY)
    pin = replica.config.get("policyPin")
    if not tip or not pin:
        return None
    chain = replica.git.first_parents(tip)  # the tip first
    if pin not in chain:
        return None
    chain = chain[: chain.index(pin) + 1]
    previous, _raw, _sig = _policy_of(replica, chain[-1])
    if previous is None:
        return None
    for parent, commit in zip(reversed(chain), list(reversed(chain))[1:], strict=False):
        policy, raw, sig = _policy_of(replica, commit)
        owners = [
            u for u in (previous.get("users") or {}) if "owner" in ((previous["users"][u] or {}).get("roles") or ())
        ]
        signed = raw + b"\n" + parent.encode()
        if policy is None or not sig or not any(verify(_keys(previous, u), u, POLICY_NS, signed, sig) for u in owners):
            return None
        previous = policy
    return previous
