"""This host's replica of a shared store: one pass of `planwatch sync`, init and join.

The store folder stays what it was (`tasks/`, `plans/`, `.lock`, `.ids`): it is the
rendered view and the place for hand edits. Beside it, `<store>/.sync/`:

- `repo.git` — a bare repository written with plumbing only: this host's log
  `refs/planwatch/log/<host>` (each commit's `ops.jsonl` the whole log so far, one
  operation a line) and what was fetched of the remote's `refs/planwatch/*` under
  `refs/pwremote/*`.
- `config.json` — the remote, this host's id, the signing key, `shareSessionPlans`.
- `state.json` — the operations not yet in the log (`pending`), the clock, per record
  its last renders (fields and heads, so a hand edit is diffed against the version its
  editor loaded) and the hash of the text last rendered, the logs taken from each host,
  the last pass's outcome; written atomically under the store lock.
- `mint.json` (core/sync/mint.py), `aliases.json` (core/sync/aliases.py).

One pass (`Replica.sync`): under the store lock, capture the local changes (every file
that differs from its last render) into operations and commit them to this host's log;
without the lock, fetch; under the lock again, take the other hosts' logs (only as
extensions of what was held: a log that was rewritten is refused), claim an id range
and renumber the provisional ids when needed, and push this host's log (with the ids
ref, atomically, when a range is claimed) without force — a rejection means another
host moved the ids ref: fetch and try again; then rebuild the store by the merge and
render the records whose text changed. The tools never wait on the network: the lock
is not held while git talks to the remote.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import socket
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from planwatch.core.atomic import atomic_write, fsync_dir
from planwatch.core.regular_files import read_regular
from planwatch.core.store.approvals import approvals_of, digest
from planwatch.core.store.recordfile import MAX_RECORD_BYTES, RecordProblem, read_record_settled, relative_name
from planwatch.core.store.schema import RecordInvalid, format_stamp, id_number
from planwatch.core.store.store import Store
from planwatch.core.sync import signing
from planwatch.core.sync.aliases import add_aliases
from planwatch.core.sync.capture import Clock, change_ops, choose_base, create_ops
from planwatch.core.sync.fields import fields_of, record_of, render
from planwatch.core.sync.git import Git, GitUnreachable
from planwatch.core.sync.merge import Merged, MergedRecord, merge
from planwatch.core.sync.mint import in_ranges, left_in_ranges, read_mint, write_mint
from planwatch.core.sync.ops import Op, approval_key, decode_line, encode, new_uid
from planwatch.core.sync.policy_check import write_check
from planwatch.core.text import shorten

log = logging.getLogger(__name__)

SYNC_DIR = ".sync"
LOG_REF = "refs/planwatch/log/"
IDS_REF = "refs/planwatch/ids"
POLICY_REF = "refs/planwatch/policy"
FETCHED = "refs/pwremote/"
REFSPEC = "+refs/planwatch/*:refs/pwremote/*"
RENDERS_KEPT = 4
TASK_RANGE, PLAN_RANGE = 32, 8
LOW_WATER = {"t": 4, "p": 1}
KEEP_WINDOW = 256
"""A provisional number this close above the next free one keeps its number when its
host claims the range holding it (a join: records renumbered only where they clash)."""
PUSH_ATTEMPTS = 12
REBUILD_JOURNAL = "rendering.json"
_HOST = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


class SyncError(Exception):
    """A sync that cannot go on: the sentence says why and what to do."""


@dataclass
class PassReport:
    """What one sync pass did: reached or not, what it pulled, pushed, renumbered and held."""

    reached: bool
    pulled: int = 0
    hosts: int = 0
    pushed: int = 0
    renumbered: list[tuple[str, str]] = field(default_factory=list)
    contested: int = 0
    held: int = 0
    problems: list[str] = field(default_factory=list)
    reason: str = ""

    def line(self) -> str:
        if not self.reached:
            return f"sync: could not reach the remote ({self.reason}); the store works as before, changes kept for the next sync."
        parts = [
            f"pulled {self.pulled} change{'s' * (self.pulled != 1)} from {self.hosts} host{'s' * (self.hosts != 1)}"
        ]
        parts.append(f"pushed {self.pushed}")
        if self.renumbered:
            parts.append("renumbered " + ", ".join(f"{a}→{b}" for a, b in self.renumbered))
        if self.contested:
            parts.append(f"{self.contested} contested")
        if self.held:
            parts.append(f"{self.held} move{'s' * (self.held != 1)} to doing held back (no verified approval)")
        return "sync: " + ", ".join(parts)


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _now() -> str:
    return format_stamp(datetime.now(UTC))


def default_host_id() -> str:
    name = re.sub(r"[^A-Za-z0-9._-]", "-", socket.gethostname())[:40].strip("-.") or "host"
    return f"{name}-{os.urandom(3).hex()}"


class Replica:
    def __init__(self, store: Store) -> None:
        self.store = store
        self.dir = store.root / SYNC_DIR
        self.git = Git(self.dir / "repo.git")
        self.config: dict[str, Any] = self._read_json("config.json", {})
        self.state: dict[str, Any] = {}
        self._logs: dict[tuple[str, str], list[Op]] = {}
        self._policy_memo: tuple[str, dict[str, Any] | None, str | None] | None = None
        self._journal_open = False

    # -- files

    def _read_json(self, name: str, default: Any) -> Any:
        path = self.dir / name
        try:
            raw = read_regular(path, 256_000_000, follow=False)
        except FileNotFoundError:
            return default
        except OSError as exc:
            raise SyncError(f"Could not read {path}: {exc.strerror or exc}.") from exc
        try:
            return json.loads(raw.decode("utf-8"))
        except ValueError as exc:
            raise SyncError(f"{path} is not valid JSON ({exc}); nothing was synced.") from exc

    def _write_json(self, name: str, data: Any) -> None:
        atomic_write(self.dir / name, json.dumps(data, sort_keys=True, ensure_ascii=False) + "\n")

    @property
    def shared(self) -> bool:
        return bool(self.config.get("remote")) and bool(self.config.get("host"))

    @property
    def host(self) -> str:
        return str(self.config["host"])

    @property
    def remote(self) -> str:
        return str(self.config["remote"])

    def _load_state(self) -> None:
        self.state = self._read_json("state.json", {})
        self.state.setdefault("seq", 0)
        self.state.setdefault("lamport", 0)
        self.state.setdefault("pending", [])
        self.state.setdefault("records", {})
        self.state.setdefault("held", {})
        self.state.setdefault("verified", {})
        self.state.setdefault("problems", [])

    def _save_state(self) -> None:
        self._write_json("state.json", self.state)

    @contextmanager
    def _locked(self) -> Iterator[None]:
        with self.store.lock():
            self._load_state()
            yield
            self._save_state()
            if self._journal_open:
                # state.json now holds every render the journal named
                (self.dir / REBUILD_JOURNAL).unlink(missing_ok=True)
                self._journal_open = False

    # -- set-up

    def configure(self, remote: str, host: str | None, **options: Any) -> None:
        host = host or self.config.get("host") or default_host_id()
        if not _HOST.fullmatch(host):
            raise SyncError(f"A host id is letters, digits, '.', '_' or '-' (up to 64), not {host!r}.")
        self.dir.mkdir(parents=True, exist_ok=True)
        self.git.init()
        self.config = {
            **self.config,
            "remote": remote,
            "host": host,
            **{k: v for k, v in options.items() if v is not None},
        }
        self._write_json("config.json", self.config)

    def _configured_until_reached(self, remote: str, host: str | None, **options: Any) -> Callable[[], None]:
        """`configure`, and the function that puts the settings back as they were: an
        init or join that never reached the remote (a typo) leaves the store unshared,
        so the next passes do nothing and the corrected one keeps every record's id."""
        before = dict(self.config)
        path = self.dir / "config.json"
        existed = path.exists()
        self.configure(remote, host, **options)

        def put_back() -> None:
            self.config = before
            if existed:
                self._write_json("config.json", before)
            else:
                path.unlink(missing_ok=True)

        return put_back

    def init(self, remote: str, host: str | None = None, policy: bytes | None = None, **options: Any) -> PassReport:
        """Publish this store to an empty remote: every record keeps its id."""
        put_back = self._configured_until_reached(remote, host, **options)
        try:
            self.git.fetch(remote, REFSPEC)
        except GitUnreachable as exc:
            put_back()
            raise SyncError(f"Could not reach {remote}: {exc}.") from exc
        if self.git.ref(FETCHED + "ids"):
            put_back()
            raise SyncError(f"{remote} already holds a shared store; use planwatch sync join {remote}.")
        with self._locked():
            counter = self.store.read_ids()
            ids_doc: dict[str, Any] = {"next": {}, "ranges": []}
            for prefix, size in self._sizes():
                folder = self.store.tasks_dir if prefix == "t" else self.store.plans_dir
                from planwatch.core.store.ids import highest_on_disk

                top = max(counter.get(prefix, 0), highest_on_disk(folder, prefix)) + size
                ids_doc["ranges"].append([self.host, prefix, 1, top])
                ids_doc["next"][prefix] = top + 1
            ids_commit = self.git.commit({"ids.json": _doc(ids_doc)}, None, "planwatch: the first ranges")
            updates = {IDS_REF: ids_commit}
            if policy is not None:
                updates[POLICY_REF] = self.git.commit({"policy.json": policy}, None, "planwatch: the policy")
        if not self.git.push(remote, updates):
            raise SyncError(f"{remote} already holds a shared store; use planwatch sync join {remote}.")
        self.git.fetch(remote, REFSPEC)
        self._pin_policy()
        return self.sync()

    def join(self, remote: str, host: str | None = None, **options: Any) -> PassReport:
        """Make this store a replica of the remote's; its own records are kept (renumbered where they clash)."""
        put_back = self._configured_until_reached(remote, host, **options)
        try:
            self.git.fetch(remote, REFSPEC)
        except GitUnreachable as exc:
            put_back()
            raise SyncError(f"Could not reach {remote}: {exc}.") from exc
        if not self.git.ref(FETCHED + "ids"):
            put_back()
            raise SyncError(f"{remote} holds no shared store yet; use planwatch sync init {remote} to publish one.")
        if self.git.ref(FETCHED + "log/" + self.host):
            put_back()
            raise SyncError(
                f"{remote} already has a log for the host id {self.host} (a copied .sync folder?); "
                "join with another --host."
            )
        self._pin_policy()
        return self.sync()

    def _pin_policy(self) -> None:
        ids_tip = self.git.ref(FETCHED + "ids")
        if ids_tip and not self.config.get("store"):
            self.config["store"] = self.git.first_parents(ids_tip)[-1]  # the store's own id: its first ranges
            self._write_json("config.json", self.config)
        tip = self.git.ref(FETCHED + "policy")
        if tip and not self.config.get("policyPin"):
            self.config["policyPin"] = self.git.first_parents(tip)[-1]
            self._write_json("config.json", self.config)

    # -- one pass

    def sync(self) -> PassReport:
        if not self.shared:
            raise SyncError(
                "This store is not shared; use planwatch sync init <remote> or planwatch sync join <remote>."
            )
        report = PassReport(reached=False)
        with self._locked():
            self._capture(report)  # the journal: kept in pending until the log can take it
        try:
            self.git.fetch(self.remote, REFSPEC)
        except GitUnreachable as exc:
            report.reason = str(exc)
            with self._locked():
                self._rebuild(report)
                self._finish(report)
            return report
        report.reached = True
        self._pin_policy()  # a store shared without a policy: its first policy, once one is published
        for _attempt in range(PUSH_ATTEMPTS):
            with self._locked():
                self._recover()
                self._capture(report)
                self._commit_ready()
                self._take_remote_logs(report)
                updates, renumber, ids_commit = self._prepare_push()
            if not updates:
                break
            try:
                ok = self.git.push(self.remote, updates)
            except GitUnreachable as exc:
                report.reached, report.reason = False, str(exc)
                break
            if ok:
                with self._locked():
                    self._pushed(updates, renumber, ids_commit, report)
                break
            try:
                self.git.fetch(self.remote, REFSPEC)
            except GitUnreachable as exc:
                report.reached, report.reason = False, str(exc)
                break
        else:
            report.problems.append("the remote kept moving; this host's changes wait for the next sync")
        with self._locked():
            self._rebuild(report)
            self._finish(report)
        return report

    def _finish(self, report: PassReport) -> None:
        at = _now()
        self.state["last"] = {"at": at, "reached": report.reached, "line": report.line()}
        if report.reached:
            self.state["lastReached"] = at  # what an offline host's footer says it last synced

    # -- the log

    def _own_ref(self) -> str:
        return LOG_REF + self.host

    def _log_ops(self, commit: str | None, host: str) -> list[Op]:
        if not commit:
            return []
        cached = self._logs.get((commit, host))
        if cached is not None:
            return list(cached)  # a commit never changes: read once per process
        raw = self.git.read([f"{commit}:ops.jsonl"]).get(f"{commit}:ops.jsonl") or b""
        ops = []
        for line in raw.decode("utf-8", "replace").splitlines():
            op = decode_line(line, host)
            if op is not None:
                ops.append(op)
        self._logs[(commit, host)] = ops
        return list(ops)

    def _own_ops(self) -> list[Op]:
        return self._log_ops(self.git.ref(self._own_ref()), self.host)

    def _recover(self) -> None:
        """What a pass killed half-way left: our log on the remote ahead of the local one
        (a push that landed before the local refs moved) is ours; pending operations the
        log holds are done, and a renumbering that landed is applied here."""
        fetched = self.git.ref(FETCHED + "log/" + self.host)
        own = self.git.ref(self._own_ref())
        if fetched and fetched != own and (own is None or self.git.is_ancestor(own, fetched)):
            self.git.set_ref(self._own_ref(), fetched)
        elif fetched and own and fetched != own and not self.git.is_ancestor(fetched, own):
            # a local commit made after a push that landed unseen: the remote's log is
            # ours; what only the local one holds goes back to pending
            remote_ids = {op["o"] for op in self._log_ops(fetched, self.host)}
            extra = [op for op in self._log_ops(own, self.host) if op["o"] not in remote_ids]
            self.git.set_ref(self._own_ref(), fetched)
            self.state["pending"] = extra + self.state["pending"]
        logged = {op["o"]: op for op in self._own_ops()}
        if not logged:
            return
        renumber: dict[str, str] = {}
        for op in self.state["pending"]:
            done = logged.get(op["o"])
            if done is not None and op["t"] == "new" and done.get("i") != op.get("i"):
                renumber[op["i"]] = done["i"]
        if renumber:
            self._apply_renumber(renumber, None, done=self.state["pending"])
        self.state["pending"] = [op for op in self.state["pending"] if op["o"] not in logged]

    def _clock(self) -> Clock:
        return Clock(self.host, int(self.state["seq"]), int(self.state["lamport"]))

    def _tick(self, clock: Clock) -> None:
        self.state["seq"], self.state["lamport"] = clock.seq, clock.lamport

    def _all_ops(self) -> list[Op]:
        ops = list(self._own_ops()) + list(self.state["pending"])
        for host, commit in sorted(self.state["held"].items()):
            if host != self.host:
                ops.extend(self._log_ops(commit, host))
        return ops

    def _merged(self) -> Merged:
        ops = self._all_ops()
        return merge(ops, self._verified(ops), require_approval=self._team_requires_approval())

    def _take_remote_logs(self, report: PassReport) -> None:
        fetched = self.git.refs(FETCHED + "log/")
        lamport = int(self.state["lamport"])
        for name, tip in sorted(fetched.items()):
            host = name[len(FETCHED + "log/") :]
            if host == self.host:
                continue
            held = self.state["held"].get(host)
            if held == tip:
                continue
            if held and not self._extends(held, tip, host):
                report.problems.append(
                    f"the log of host {host} was rewritten on the remote; its new part is refused (kept: what was held)"
                )
                continue
            new_ops = self._log_ops(tip, host)
            before = len(self._log_ops(held, host)) if held else 0
            report.pulled += max(0, len(new_ops) - before)
            report.hosts += 1
            for op in new_ops:
                lamport = max(lamport, int(op["c"]))
            self.state["held"][host] = tip
        self.state["lamport"] = lamport

    def _extends(self, held: str, tip: str, host: str) -> bool:
        if not self.git.is_ancestor(held, tip):
            return False
        a, b = (self.git.read([f"{c}:ops.jsonl"]).get(f"{c}:ops.jsonl") or b"" for c in (held, tip))
        return b.startswith(a)

    def _held_back(
        self,
        op: Op,
        provisional: set[str],
        prov_uids: set[str],
        private: set[str],
        private_ids: frozenset[str] | set[str] = frozenset(),
    ) -> bool:
        if op["u"] in prov_uids or op["u"] in private:
            return True
        value = op.get("v")
        if op["t"] in ("add", "rem") and op.get("f") == "blockedBy" and value in private_ids:
            return True  # a link to a record kept on this host: it would dangle everywhere else
        if op["t"] == "set" and op.get("f") == "plan" and value in private_ids:
            return True
        if op["t"] in ("add", "rem") and value in provisional:
            return True
        if op["t"] == "set" and op.get("f") == "plan" and value in provisional:
            return True
        if op["t"] == "set" and op.get("f") in TEXT_FIELDS and names_any(value, provisional):
            return True  # its text names a provisional id: published once renumbered
        if op["t"] == "new":
            v = op["v"]
            if v.get("plan") in provisional or any(b in provisional for b in v.get("blockedBy") or ()):
                return True
            if any(names_any(v.get(name), provisional) for name in TEXT_FIELDS):
                return True
        return False

    def _provisional(self) -> tuple[set[str], set[str]]:
        creates = [op for op in self.state["pending"] if op["t"] == "new" and op.get("p")]
        return {op["i"] for op in creates}, {op["u"] for op in creates}

    def _private(self) -> set[str]:
        """The uids of the records kept on this host: sessions' plans and tasks (a plan
        scoped to a session, a task with a `source`), unless the host shares them, and
        every record not yet published that was created in one of them (a task added to
        a session's plan, or blocked by a session's task: published, it would name a
        record no other host has)."""
        if self.config.get("shareSessionPlans"):
            return set()
        own = self._own_ops()
        logged = {op["o"] for op in own}
        creates = [op for op in own + self.state["pending"] if op["t"] == "new"]
        out = set()
        for op in creates:
            v = op["v"]
            scope = v.get("scope") or {}
            if v.get("source") or (isinstance(scope, dict) and scope.get("kind") == "session"):
                out.add(op["u"])
        while out:
            ids = {op["i"] for op in creates if op["u"] in out}
            more = {op["u"] for op in creates if op["u"] not in out and op["o"] not in logged and _links(op["v"], ids)}
            if not more:
                break
            out |= more
        return out

    def _private_ids(self, private: set[str], pending: list[Op]) -> set[str]:
        return {op["i"] for op in self._own_ops() + pending if op["t"] == "new" and op["u"] in private}

    def _commit_ready(self) -> None:
        """Pending operations that may be published go into this host's log (locally)."""
        provisional, prov_uids = self._provisional()
        private = self._private()
        private_ids = self._private_ids(private, self.state["pending"])
        ready = [
            op for op in self.state["pending"] if not self._held_back(op, provisional, prov_uids, private, private_ids)
        ]
        if not ready:
            return
        self._append_log(ready)
        ids = {op["o"] for op in ready}
        self.state["pending"] = [op for op in self.state["pending"] if op["o"] not in ids]

    def _log_commit(self, ops: list[Op]) -> str:
        own = self.git.ref(self._own_ref())
        key = f"{own}:ops.jsonl"
        raw = (self.git.read([key]).get(key) or b"") if own else b""
        text = raw + "".join(encode(_public(op)) + "\n" for op in ops).encode("utf-8", "surrogatepass")
        return self.git.commit({"ops.jsonl": text}, own, f"planwatch: {len(ops)} changes from {self.host}")

    def _append_log(self, ops: list[Op]) -> None:
        own = self.git.ref(self._own_ref())
        new = self._log_commit(ops)
        self.git.update_ref(self._own_ref(), new, own)

    # -- ids

    def _ids_doc(self) -> dict[str, Any] | None:
        tip = self.git.ref(FETCHED + "ids")
        if not tip:
            return None
        raw = self.git.read([f"{tip}:ids.json"]).get(f"{tip}:ids.json")
        try:
            doc = json.loads(raw or b"")
        except ValueError:
            return None
        return doc if isinstance(doc, dict) else None

    def _sync_mint(self) -> dict[str, Any]:
        """mint.json's ranges from the ids ref (the ranges it gave this host)."""
        doc = self._ids_doc() or {"ranges": []}
        data = read_mint(self.dir)
        ranges: dict[str, list[list[int]]] = {"t": [], "p": []}
        for host, kind, lo, hi in doc.get("ranges", ()):
            if host == self.host and kind in ranges:
                ranges[kind].append([int(lo), int(hi)])
        data["ranges"] = ranges
        data.setdefault("cursor", {"t": 0, "p": 0})
        if data != read_mint(self.dir):
            write_mint(self.dir, data)
        return data

    def _prepare_push(self) -> tuple[dict[str, str], dict[str, str], str | None]:
        """What to push: this host's log, and with it the ids ref when a range is claimed
        (the provisional ids renumbered into it, in the same atomic push)."""
        own = self.git.ref(self._own_ref())
        fetched_own = self.git.ref(FETCHED + "log/" + self.host)
        mint = self._sync_mint()
        provisional = [op for op in self.state["pending"] if op["t"] == "new" and op.get("p")]
        low = any(left_in_ranges(mint, k) < self._low_water(k) for k in ("t", "p"))
        doc = self._ids_doc()
        if doc is None or (not provisional and not low):
            if own and own != fetched_own:
                return {self._own_ref(): own}, {}, None
            return {}, {}, None
        renumber: dict[str, str] = {}
        doc = json.loads(json.dumps(doc))
        for prefix, size in self._sizes():
            mine = sorted(id_number(op["i"]) for op in provisional if op["i"][0] == prefix)
            if not mine and left_in_ranges(mint, prefix) >= self._low_water(prefix):
                continue
            start = int(doc["next"].get(prefix, 1))
            keep = [n for n in mine if start <= n < start + KEEP_WINDOW]
            top = max([start + size + len(mine) - 1, *(n + size for n in keep)])
            free = (n for n in range(start, top + 1) if n not in keep)
            for n in mine:
                renumber[f"{prefix}{n}"] = f"{prefix}{n}" if n in keep else f"{prefix}{next(free)}"
            doc["ranges"].append([self.host, prefix, start, top])
            doc["next"][prefix] = top + 1
        tip = self.git.ref(FETCHED + "ids")
        ids_commit = self.git.commit({"ids.json": _doc(doc)}, tip, f"planwatch: a range for {self.host}")
        # the provisional records' operations, renumbered, go into the log with the claim
        kept_texts = self._approved_texts(renumber)
        held = [_renumbered(op, renumber, final=True, keep=kept_texts) for op in self.state["pending"]]
        private = self._private()
        private_ids = self._private_ids(private, held)
        publish = [op for op in held if not self._held_back(op, set(), set(), private, private_ids)]
        updates = {IDS_REF: ids_commit}
        if publish:
            updates[self._own_ref()] = self._log_commit(publish)
        elif own and own != fetched_own:
            updates[self._own_ref()] = own
        return updates, renumber, ids_commit

    def _sizes(self) -> tuple[tuple[str, int], tuple[str, int]]:
        return (
            ("t", int(self.config.get("taskRange") or TASK_RANGE)),
            ("p", int(self.config.get("planRange") or PLAN_RANGE)),
        )

    def _low_water(self, prefix: str) -> int:
        size = int(self.config.get("taskRange" if prefix == "t" else "planRange") or 0)
        return min(LOW_WATER[prefix], max(1, size // 4)) if size else LOW_WATER[prefix]

    def _pushed(
        self, updates: dict[str, str], renumber: dict[str, str], ids_commit: str | None, report: PassReport
    ) -> None:
        own = self.git.ref(self._own_ref())
        before = len(self._log_ops(self.git.ref(FETCHED + "log/" + self.host), self.host))
        new_own = updates.get(self._own_ref())
        if new_own and new_own != own:
            self.git.set_ref(self._own_ref(), new_own)
        for ref, sha in updates.items():
            self.git.set_ref(FETCHED + ref[len("refs/planwatch/") :], sha)
        logged = {op["o"] for op in self._own_ops()}
        report.pushed += len(logged) - before
        if renumber:
            self._apply_renumber(renumber, report, done=self.state["pending"])
        self.state["pending"] = [op for op in self.state["pending"] if op["o"] not in logged]
        mint = self._sync_mint()
        for new in renumber.values():
            cursor = mint.setdefault("cursor", {})
            cursor[new[0]] = max(int(cursor.get(new[0], 0)), id_number(new))
        write_mint(self.dir, mint)

    def _approved_texts(self, renumber: dict[str, str]) -> set[str]:
        """The records whose text names a renumbered id and was approved so (an approval
        ranked after the change that wrote it): their text is kept as written, since
        the approval binds it word for word (rewritten, it would need approving again)."""
        ops = self._own_ops() + self.state["pending"]
        moved = {k for k, v in renumber.items() if k != v}
        naming: dict[str, int] = {}
        for op in ops:
            texts = [op["v"].get(n) for n in TEXT_FIELDS] if op["t"] == "new" else []
            if op["t"] == "set" and op.get("f") in TEXT_FIELDS:
                texts = [op.get("v")]
            if any(names_any(t, moved) for t in texts):
                naming[op["u"]] = max(naming.get(op["u"], 0), int(op["c"]))
        return {op["u"] for op in ops if op["t"] == "approve" and int(op["c"]) > naming.get(op["u"], 1 << 62)}

    def _apply_renumber(
        self, renumber: dict[str, str], report: PassReport | None, *, done: list[Op] | None = None, final: bool = True
    ) -> None:
        """Provisional ids → their final ids (or, `final=False`, fresh provisional ones):
        the records' ids and every reference held here; the session each was minted in
        may still say the old id. `done`: the pending operations as they were before
        (their creates name the session)."""
        sessions = {}
        for op in done if done is not None else self.state["pending"]:
            if op["t"] == "new":
                created = op["v"].get("created") or {}
                sessions[op["u"]] = created.get("in") if isinstance(created, dict) else None
        keep = self._approved_texts(renumber)
        self.state["pending"] = [_renumbered(op, renumber, final=final, keep=keep) for op in self.state["pending"]]
        aliases = []
        for uid, rec in self.state["records"].items():
            old = rec.get("id")
            if old in renumber and renumber[old] != old:
                rec.setdefault("moved_from", old)
                rec["id"] = renumber[old]
                aliases.append({"old": old, "new": renumber[old], "session": sessions.get(uid), "uid": uid})
            for render_ in rec.get("renders", ()):
                render_["fields"] = _renumber_fields(render_["fields"], renumber, retext=uid not in keep)
        add_aliases(self.dir, aliases)
        if report is not None:
            report.renumbered.extend(sorted((a, b) for a, b in renumber.items() if a != b))

    # -- capture: local files → operations

    def _capture(self, report: PassReport) -> None:
        self._recover_rebuild(report)
        records: dict[str, Any] = self.state["records"]
        by_id = {rec["id"]: uid for uid, rec in records.items() if not rec.get("gone")}
        for moved_uid, rec in records.items():
            # renumbered, its file not yet moved: the old name is still this record
            if rec.get("moved_from") and not rec.get("gone"):
                by_id.setdefault(rec["moved_from"], moved_uid)
        clock = self._clock()
        for op in self._all_ops():
            clock.see(int(op["c"]))
        mint = self._sync_mint()
        merged_ids = {rec["id"] for rec in records.values() if not rec.get("gone")}
        ledger = approvals_of(self.store)
        problems: list[str] = []
        seen: set[str] = set()
        seen_uids: set[str] = set()
        new_pending: list[Op] = []
        for kind, folder in (("task", self.store.tasks_dir), ("plan", self.store.plans_dir)):
            prefix = kind[0]
            try:
                names = sorted(os.listdir(folder))
            except FileNotFoundError:
                names = []
            for name in names:
                if not re.fullmatch(prefix + r"[1-9][0-9]{0,8}\.md", name):
                    continue
                record_id = name[:-3]
                path = folder / name
                seen.add(record_id)
                uid = by_id.get(record_id)
                if uid is not None:
                    seen_uids.add(uid)
                known = records.get(uid) if uid else None
                try:
                    text = read_regular(path, 2_000_000, follow=False).decode("utf-8")
                except (OSError, UnicodeDecodeError):
                    text = None
                if known is not None and text is not None and _sha(text) == known.get("sha"):
                    continue  # as this host last rendered it
                result, _ = read_record_settled(path, kind)
                if isinstance(result, RecordProblem) or result is None:
                    if isinstance(result, RecordProblem):
                        problems.append(
                            f"{result.message} — left out of sync and never overwritten until it parses again"
                        )
                    continue
                fields = fields_of(result)
                if known is None:
                    final = in_ranges(mint, prefix, id_number(record_id)) and record_id not in merged_ids
                    # A task added, approved and started between two passes: created todo,
                    # then approved, then moved, in that order (the merge checks a move to
                    # doing against the approvals ranked before it).
                    started = kind == "task" and fields.get("status") == "doing"
                    initial = dict(fields, status="todo", started=None) if started else fields
                    ops = create_ops(clock, kind, record_id, initial)
                    if not final:
                        ops[0]["p"] = 1
                    new_uid_ = str(ops[0]["u"])
                    ops += self._approval_op(clock, new_uid_, kind, result, None, ledger, problems)
                    if started:
                        ops += change_ops(
                            clock, new_uid_, kind, ops[0]["o"], {"fields": ops[0]["v"], "heads": {}}, fields
                        )
                    records[new_uid_] = {
                        "kind": kind,
                        "id": record_id,
                        "renders": [],
                        "sha": _sha(text or ""),
                        "create": ops[0]["o"],
                    }
                    by_id[record_id] = new_uid_
                    new_pending += ops
                    continue
                assert uid is not None  # a known record has one
                create_op = known.get("create") or self._create_of(uid)
                if known.get("renders"):
                    base = choose_base(known["renders"], fields)
                else:
                    found = self._create_op(uid)
                    base = {"fields": dict(found["v"]) if found else {}, "heads": {}}
                ops = []
                if fields.get("approved") != base["fields"].get("approved"):
                    # first: a move to doing captured with it came after it
                    ops += self._approval_op(clock, uid, kind, result, base["fields"].get("approved"), ledger, problems)
                ops += change_ops(clock, uid, kind, create_op, base, fields)
                new_pending += ops
                known["sha"] = _sha(text or "")
        for gone_uid, rec in sorted(records.items()):
            if gone_uid not in seen_uids and not rec.get("gone") and rec.get("renders"):
                new_pending.append(clock.op(gone_uid, rec["kind"], "del"))
                rec["gone"] = True
        self.state["pending"].extend(new_pending)
        self.state["problems"] = problems
        report.problems.extend(problems)
        self._tick(clock)

    def _create_op(self, uid: str) -> Op | None:
        for op in self.state["pending"] + self._own_ops():
            if op["u"] == uid and op["t"] == "new":
                return op
        return None

    def _create_of(self, uid: str) -> str:
        found = self._create_op(uid)
        return found["o"] if found else ""

    def _approval_op(
        self, clock: Clock, uid: str, kind: str, rec: Any, before: Any, ledger: Any, problems: list[str]
    ) -> list[Op]:
        stamp = rec.approved
        if stamp is None:
            return []
        if ledger.why_not(rec) is not None:
            problems.append(
                f"{rec.id}: its approved stamp was not made by an approval call of this host; not shared, and put back"
            )
            return []
        op = clock.op(uid, kind, "approve", v=fields_of(rec)["approved"], d=digest(rec), sig=None)
        op["sig"] = signing.sign_approval(self, op)
        return [op]

    # -- approvals and the policy

    def _policy(self) -> dict[str, Any] | None:
        """The verified policy (None: none, or one that does not verify); what was found
        is written to policy-check.json, which every grant check of this host reads."""
        key = signing.policy_key(self)
        if self._policy_memo is None or self._policy_memo[0] != key:
            policy, problem = signing.check_policy(self)
            self._policy_memo = (key, policy, problem)
            settings = signing.team_settings(policy) if policy is not None else None
            write_check(self.dir, self.config.get("policyPin"), self.git.ref(FETCHED + "policy"), problem, settings)
        return self._policy_memo[1]

    def _team_requires_approval(self) -> bool:
        """The team's requireApproval, as the merge applies it on every host alike: the
        verified policy's setting; on while a pinned policy does not verify (fail closed);
        off for a store shared without a policy (no approval could verify there)."""
        if not self.config.get("policyPin"):
            return False
        policy = self._policy()
        return policy is None or bool(signing.team_settings(policy)["requireApproval"])

    def publish_policy(self, raw: bytes, key: str | None = None, signer: str | None = None) -> str:
        """Publish a new team policy (`policy.json`'s bytes): a commit on the policy ref,
        signed by an owner of the current one over the new text and its parent, pushed
        without force. The first policy of a store is published unsigned (it is what each
        host pins). Returns the commit; raises SyncError with what to do."""
        try:
            data = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            raise SyncError(f"The policy is not JSON ({exc}); nothing was published.") from exc
        problem = signing.policy_shape_problem(data)
        if problem:
            raise SyncError(f"The policy {problem}; nothing was published.")
        key = key or self.config.get("signingKey")
        signer = signer or self.config.get("signer")
        for _attempt in range(PUSH_ATTEMPTS):
            self.git.fetch(self.remote, REFSPEC)  # GitUnreachable: the caller says so (exit 3)
            self._pin_policy()
            tip = self.git.ref(FETCHED + "policy")
            files = {"policy.json": raw}
            if tip:
                # an owner of the last policy that counted signs (so a commit that does
                # not verify is mended by publishing on top of it)
                current, _problem = signing.walk_policy(self)
                if current is None:
                    raise SyncError(
                        f"The team policy cannot be verified ({_problem}); there is no policy of this host's pin to extend."
                    )
                owners = signing.owners(current)
                if not key or not signer:
                    raise SyncError(
                        "Publishing a change of the policy needs an owner's signature: give --signing-key KEY "
                        f"--signer USER (owners: {', '.join(owners) or 'none'})."
                    )
                if signer not in owners:
                    raise SyncError(
                        f"{signer} is not an owner in the current policy (owners: {', '.join(owners) or 'none'}); "
                        "only an owner may change it."
                    )
                signed = raw + b"\n" + tip.encode()
                sig = signing.sign(str(key), signing.POLICY_NS, signed)
                if sig is None:
                    raise SyncError(f"ssh-keygen could not sign with {key}; nothing was published.")
                # The name is only a claim: the signature must be the owner's own key, as
                # every host will check it, or the push would lock every host out of
                # every grant until a real owner published on top.
                if not signing.verify(signing.owner_keys(current, signer), signer, signing.POLICY_NS, signed, sig):
                    raise SyncError(
                        f"{key} is not a key of {signer} in the current policy, so every host would refuse "
                        "the signature; nothing was published."
                    )
                files["policy.sig"] = sig.encode()
            commit = self.git.commit(files, tip, f"planwatch: the policy, by {signer or 'the first owner'}")
            if self.git.push(self.remote, {POLICY_REF: commit}):
                self.git.set_ref(FETCHED + "policy", commit)
                self._pin_policy()
                with self._locked():
                    self._policy_memo = None
                    self._policy()
                return commit
        raise SyncError("The policy on the remote kept moving; try again.")

    # -- approvals

    def _verified(self, ops: list[Op]) -> frozenset[str]:
        """The approvals whose signatures verify against the policy, by `approval_key`
        (their whole text: a copy with another record under a verified op id is checked
        on its own, and fails); cached per approval and policy."""
        key = signing.policy_key(self)
        cache = self.state.get("verified") or {}
        if cache.get("policy") != key or cache.get("by") != "text":
            cache = {"policy": key, "by": "text", "ops": {}}  # a cache by op id (before) is dropped
        self.state["verified"] = cache
        known: dict[str, bool] = cache["ops"]
        policy = self._policy()
        good: set[str] = set()
        for op in ops:
            if op["t"] != "approve":
                continue
            text = approval_key(op)
            found = known.get(text)
            if found is None:
                found = policy is not None and signing.verify_approval(self, op, policy)
                known[text] = found
            if found:
                good.add(text)
        return frozenset(good)

    # -- rebuild: operations → files

    def _rebuild(self, report: PassReport, *, journaled: dict[str, str] | None = None) -> None:
        """The store rebuilt by the merge: each record whose text changed written, the
        files of renumbered and removed records removed. Before the first file changes,
        `rendering.json` names every file about to be written (kind, id, uid, the text's
        hash: never the text); it is removed once `state.json` holds the renders
        (`_locked`), so a pass killed in between is recognised by the next one
        (`_recover_rebuild`). `journaled`: the uids the killed pass was writing, uid →
        the hash it journaled."""
        self._reprovision(self._merged())
        ops = self._all_ops()
        merged = merge(ops, self._verified(ops), require_approval=self._team_requires_approval())
        records: dict[str, Any] = self.state["records"]
        taken: dict[str, str] = {}
        live = sorted(merged.records.values(), key=lambda r: (r.create["c"], r.create["h"], r.create["o"]))
        for rec in live:
            if rec.id in taken:
                report.problems.append(f"{rec.id} is claimed by two records; the later one is left out")
                continue
            taken[rec.id] = rec.uid
        # what changes on disk, decided before anything does
        unlinks: list[tuple[Path, dict[str, Any]]] = []
        for uid, rec in list(records.items()):
            moved = rec.pop("moved_from", None)
            if moved and moved != rec.get("id"):
                unlinks.append((self._path(rec["kind"], moved), rec))  # renumbered
            if uid not in merged.records and uid in merged.removed:
                unlinks.append((self._path(rec["kind"], rec["id"]), rec))  # removed
                records.pop(uid)
        writes: list[tuple[MergedRecord, dict[str, Any], str, Path, bool]] = []
        for rec in live:
            if taken.get(rec.id) != rec.uid:
                continue
            try:
                text = render(rec.kind, rec.id, rec.fields)
            except (ValueError, TypeError) as exc:  # RecordInvalid: fields no record holds
                # A bad operation in a log (another host's, or a third party's): this
                # record is left as it is here, said; every other record goes on.
                reason = exc.reason if isinstance(exc, RecordInvalid) else str(exc)
                report.problems.append(
                    f"{rec.kind} {rec.id} (made on host {rec.create['h']}): the logs' operations make no valid "
                    f"record ({shorten(reason, 200)}); left as it is"
                )
                continue
            if len(text.encode("utf-8", "surrogatepass")) > MAX_RECORD_BYTES:
                # Two hosts' edits merged past what a record may hold: no host could read
                # it back; left as it is here, said (its contests say what each wrote).
                report.problems.append(
                    f"{rec.kind} {rec.id}: the hosts' edits merged would be larger than {MAX_RECORD_BYTES} bytes; "
                    "left as it is"
                )
                continue
            known = rec.uid in records
            state = records.setdefault(rec.uid, {"kind": rec.kind, "id": rec.id, "renders": [], "sha": None})
            state["id"], state["create"] = rec.id, rec.create["o"]
            state.pop("gone", None)
            path = self._path(rec.kind, rec.id)
            current = _text_or_none(path)
            if current is None and os.path.lexists(path):
                # there, but not a regular file this host could read whole (a FIFO, a
                # link, too large): never replaced by a file it has not read
                report.problems.append(
                    f"{relative_name(path)} is not a record file this host can read; not overwritten"
                )
                continue
            if current is not None and _sha(current) != state.get("sha") and current != text:
                if journaled is not None and rec.uid in journaled:
                    # changed after a killed pass wrote or was about to write it: its
                    # editor loaded the old render or this one; the capture that follows
                    # diffs it against the closer of the two
                    self._remember_render(state, rec)
                    continue
                if not known:
                    # This host never rendered that record there: the file is another
                    # record (one made here while the pass ran, under the same id), which
                    # the next capture takes as a record of its own, never as an edit of
                    # this one.
                    records.pop(rec.uid, None)
                report.problems.append(
                    f"{relative_name(path)} changed since this host rendered it and could not be captured; not overwritten"
                )
                continue
            writes.append((rec, state, text, path, current != text))
        to_write = [(rec, text) for rec, _state, text, _path, write in writes if write]
        if to_write or any(path.exists() for path, _rec in unlinks):
            self._write_json(
                REBUILD_JOURNAL,
                {"writing": [{"kind": r.kind, "id": r.id, "uid": r.uid, "sha": _sha(t)} for r, t in to_write]},
            )
            self._journal_open = True
        for path, old in unlinks:
            self._unlink_if_unchanged(path, old)
        contested = 0
        ledger_adds = []
        for rec, state, text, path, write in writes:
            if write:
                atomic_write(path, text)
            if write or (journaled is not None and rec.uid in journaled):
                self.store.count_id(rec.id)  # a killed pass may have written it and no more
            state["sha"] = _sha(text)
            self._remember_render(state, rec)
            state["contests"] = [[c.field, c.kept, c.lost] for c in rec.contests]
            state["unverified"] = [
                {"by": op["v"].get("by"), "at": op["v"].get("at"), "host": op["h"]} for op in rec.unverified
            ]
            state["held"] = [{"host": op["h"], "op": op["o"]} for op in rec.held]
            contested += bool(rec.contests)
            report.held += len(rec.held)
            if rec.fields.get("approved"):
                ledger_adds.append(rec)
        report.contested = contested
        self._ledger(ledger_adds, ops)
        self.state["removed"] = sorted(f"{kind} {rid}" for kind, rid in merged.removed.values())

    @staticmethod
    def _remember_render(state: dict[str, Any], rec: MergedRecord) -> None:
        renders = [r for r in state["renders"] if r["fields"] != rec.fields]
        state["renders"] = (renders + [{"fields": rec.fields, "heads": rec.heads}])[-RENDERS_KEPT:]

    def _recover_rebuild(self, report: PassReport) -> None:
        """A pass killed while it rendered records (after `rendering.json`, before
        `state.json` held what it wrote): each file whose text is the one it journaled is
        this host's render, never a record made by hand; the rebuild is done again (the
        same operations give the same files) before anything is captured, so neither a
        file it wrote (read as a new record: a duplicate) nor one it removed (read as a
        removal) becomes an operation."""
        journal = self._read_json(REBUILD_JOURNAL, None)
        if not isinstance(journal, dict):
            return
        self._journal_open = True  # removed once this lock's state.json is written
        records: dict[str, Any] = self.state["records"]
        journaled: dict[str, str] = {}
        for entry in journal.get("writing") or ():
            try:
                kind, rid, uid, sha = (str(entry[k]) for k in ("kind", "id", "uid", "sha"))
            except (KeyError, TypeError):
                continue
            if kind not in ("task", "plan") or not re.fullmatch(kind[0] + r"[1-9][0-9]{0,8}", rid):
                continue
            journaled[uid] = sha
            current = _text_or_none(self._path(kind, rid))
            if current is not None and _sha(current) == sha:
                rec = records.setdefault(uid, {"kind": kind, "id": rid, "renders": [], "sha": None})
                rec["sha"] = sha
        self._rebuild(report, journaled=journaled)

    def _ledger(self, recs: list[MergedRecord], all_ops: list[Op]) -> None:
        """A verified approval counts here as it does where it was made: the host's own
        record of approvals gets its entry (the digest signed with it)."""
        ledger = approvals_of(self.store)
        for rec in recs:
            try:
                record = record_of(rec.kind, rec.id, rec.fields)
            except RecordInvalid:
                continue
            if ledger.why_not(record) is None:
                continue
            ops = [
                op
                for op in all_ops
                if op["u"] == rec.uid and op["t"] == "approve" and op["v"] == rec.fields["approved"]
            ]
            if ops and record.approved is not None:
                ledger.record_digest(record.id, record.approved, str(ops[0].get("d")))

    def _reprovision(self, merged: Merged) -> None:
        """A provisional record whose number a published record now holds moves to a
        fresh provisional number here (renumbered for good at the next claim)."""
        provisional, _uids = self._provisional()
        if not provisional:
            return
        final = {r.id for r in merged.records.values() if r.id not in provisional}
        numbers = {p: max([0] + [id_number(r.id) for r in merged.records.values() if r.id[0] == p]) for p in "tp"}
        counter = self.store.read_ids()
        moved: dict[str, str] = {}
        for old in sorted(provisional):
            if old in final:
                prefix = old[0]
                numbers[prefix] = max(numbers[prefix], counter.get(prefix, 0)) + 1
                moved[old] = f"{prefix}{numbers[prefix]}"
        if moved:
            self._apply_renumber(moved, None, final=False)

    def _path(self, kind: str, record_id: str) -> Path:
        return (self.store.tasks_dir if kind == "task" else self.store.plans_dir) / f"{record_id}.md"

    def _unlink_if_unchanged(self, path: Path, rec: dict[str, Any]) -> None:
        text = _text_or_none(path)
        if text is not None and _sha(text) == rec.get("sha"):
            path.unlink(missing_ok=True)
            fsync_dir(path.parent)

    # -- status

    def _policy_status(self) -> dict[str, Any]:
        from planwatch.core.sync.policy_check import policy_problem

        return {
            "pinned": self.config.get("policyPin"),
            "tip": self.git.ref(FETCHED + "policy"),
            "problem": policy_problem(self.store.root),
        }

    def status(self, look: bool = True) -> dict[str, Any]:
        """How this replica stands. `look`: fetch the remote's logs first (no record is
        touched: the next pass takes them), so how far each host is ahead of this store
        is counted as of now; unreachable, as of the last fetch (`reached`, `reason`)."""
        reached, reason = None, ""
        if look:
            try:
                self.git.fetch(self.remote, REFSPEC)
                reached = True
            except GitUnreachable as exc:
                reached, reason = False, str(exc)
        self._load_state()
        hosts: dict[str, dict[str, Any]] = {}
        for host, _kind, _lo, _hi in (self._ids_doc() or {}).get("ranges", ()):
            # claimed ids, wrote nothing yet
            hosts[str(host)] = {"fetched": None, "taken": True, "changes": 0, "behind": 0, "pushedAt": None}
        tips: dict[str, str | None] = {
            name[len(FETCHED + "log/") :]: tip for name, tip in self.git.refs(FETCHED + "log/").items()
        }
        own = self.git.ref(self._own_ref())
        # per host: its log as fetched, and as taken into this store (this host: as logged here)
        in_store = {host: own if host == self.host else self.state["held"].get(host) for host in tips}
        if self.host not in tips and own:
            tips[self.host], in_store[self.host] = None, own  # logged, never pushed
        commits = {c for c in [*tips.values(), *in_store.values()] if c}
        blobs = self.git.read([f"{c}:ops.jsonl" for c in sorted(commits)])
        count = {c: (blobs.get(f"{c}:ops.jsonl") or b"").count(b"\n") for c in commits}
        times = self.git.commit_times(sorted(c for c in tips.values() if c))
        for host, tip in tips.items():
            fetched, taken = count.get(tip or "", 0), count.get(in_store[host] or "", 0)
            when = times.get(tip or "")
            hosts[host] = {
                "fetched": tip,
                "taken": in_store[host] == tip or host == self.host,
                "changes": fetched,
                # another host: changes fetched, not yet in this store; this host: logged, not yet pushed
                "behind": max(0, fetched - taken) if host != self.host else 0,
                "unpushed": max(0, taken - fetched) if host == self.host else 0,
                "pushedAt": format_stamp(datetime.fromtimestamp(when, UTC)) if when is not None else None,
            }
        provisional, _ = self._provisional()
        contests, unverified, held = [], [], []
        for rec in self.state["records"].values():
            for f, kept, lost in rec.get("contests") or ():
                contests.append({"id": rec["id"], "field": f, "kept": kept, "lost": lost})
            for item in rec.get("unverified") or ():
                unverified.append({"id": rec["id"], **item})
            for item in rec.get("held") or ():
                held.append({"id": rec["id"], "status": "doing", **item})
        return {
            "host": self.host,
            "remote": self.remote,
            "reached": reached,
            "reason": reason,
            "hosts": hosts,
            "pending": len(self.state["pending"]),
            "provisional": sorted(provisional),
            "contested": contests,
            "unverified": unverified,
            "heldBack": held,
            "problems": self.state.get("problems", []),
            "removed": self.state.get("removed", []),
            "policy": self._policy_status(),
            "last": self.state.get("last"),
        }


def _doc(data: dict[str, Any]) -> bytes:
    return (json.dumps(data, sort_keys=True) + "\n").encode()


def _links(fields: dict[str, Any], ids: set[str]) -> bool:
    """Do `fields` name one of `ids` as their plan or a task they are blocked by?"""
    return fields.get("plan") in ids or any(b in ids for b in fields.get("blockedBy") or ())


def _public(op: Op) -> Op:
    return {k: v for k, v in op.items() if k != "p"}


def _text_or_none(path: Path) -> str | None:
    try:
        return read_regular(path, 2_000_000, follow=False).decode("utf-8", "surrogateescape")
    except OSError:
        return None


def _rename(value: Any, renumber: dict[str, str]) -> Any:
    return renumber.get(value, value) if isinstance(value, str) else value


TEXT_FIELDS = ("title", "body", "goal")
"""The text in which a provisional id is rewritten at renumbering (whole-word tokens)."""


def _id_tokens(ids: Any) -> re.Pattern[str] | None:
    """The whole-word tokens of `ids` (`t42`, never the `t42` of `t420` or `at42`)."""
    ids = sorted(set(ids), key=lambda i: (-len(i), i))
    if not ids:
        return None
    return re.compile(r"(?<![A-Za-z0-9_])(?:" + "|".join(map(re.escape, ids)) + r")(?![A-Za-z0-9_])")


def names_any(value: Any, ids: set[str]) -> bool:
    pattern = _id_tokens(ids)
    return isinstance(value, str) and pattern is not None and pattern.search(value) is not None


def _retext(value: Any, renumber: dict[str, str]) -> Any:
    """`value` with every whole-word token of a renumbered id written as its new id, all
    at once (t1→t5 and t5→t9 together give t5 and t9, never t9 twice)."""
    pattern = _id_tokens(k for k, v in renumber.items() if k != v)
    if not isinstance(value, str) or pattern is None:
        return value
    return pattern.sub(lambda m: renumber[m.group(0)], value)


def _renumber_fields(fields: dict[str, Any], renumber: dict[str, str], *, retext: bool = True) -> dict[str, Any]:
    out = dict(fields)
    if "plan" in out:
        out["plan"] = _rename(out["plan"], renumber)
    if "blockedBy" in out and out["blockedBy"]:
        out["blockedBy"] = [_rename(b, renumber) for b in out["blockedBy"]]
    for name in TEXT_FIELDS if retext else ():
        if name in out:
            out[name] = _retext(out[name], renumber)
    return out


def _renumbered(
    op: Op, renumber: dict[str, str], *, final: bool = True, keep: frozenset[str] | set[str] = frozenset()
) -> Op:
    """`op` with the renumbered ids written anew: its own id, its references, and the
    whole-word ids in its title and body (not for a record in `keep`: its approved text)."""
    if not renumber:
        return op
    out = dict(op)
    retext = op["u"] not in keep
    if out["t"] == "new":
        out["i"] = _rename(out["i"], renumber)
        out["v"] = _renumber_fields(out["v"], renumber, retext=retext)
        if final and op.get("p") and op["i"] in renumber:
            out.pop("p", None)
    elif out["t"] in ("add", "rem") and out.get("f") == "blockedBy":
        out["v"] = _rename(out["v"], renumber)
    elif out["t"] == "set" and out.get("f") == "plan":
        out["v"] = _rename(out["v"], renumber)
    elif out["t"] == "set" and out.get("f") in TEXT_FIELDS and retext:
        out["v"] = _retext(out["v"], renumber)
    return out


def new_record_uid() -> str:
    return new_uid()
