"""How transcript files make sessions: which file is a session, which belong to a parent,
and the frozen `SessionEntry` each session is shown as (pure: no IO, no threads).

Sessions and files (docs/reading.md, Sessions):
- each main transcript is a session; an ACP log may hold several;
- subagent transcripts (Claude `agent-<agentId>.jsonl`, Codex sub-thread rollouts)
  belong to their parent: their plans become groups "agent-<agentId>" of the parent's
  plan and their files are listed in `Session.subagents`. A subagent whose parent is
  not found is shown on its own rather than hidden;
- a forked Claude session is its own session: the file name is its identity, and the
  parent's id that its copied records carry is kept as lineage (`Session.parent_id`).
  The file name is the session's identity and a record carrying another id is lineage
  (docs/reading.md, Sessions), because merging a fork into its parent would mix two
  diverging plans in one row.
  A Codex fork (`forked_from_id`) is treated the same way.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path

from planwatch.core.model import EMPTY_PLAN, TITLE_LIMIT, AgentPlan, Session
from planwatch.core.transcripts.discover import TranscriptFile
from planwatch.core.transcripts.reader import SessionResult, TranscriptReader
from planwatch.core.transcripts.warmcache import Trace

_THREAD_ID = re.compile(r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$")

Owners = dict[str, tuple["FileState", SessionResult]]
Children = dict[str, list["FileState"]]


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionEntry:
    """One session as the app shows it: its facts and its (frozen) plan."""

    session: Session
    plan: AgentPlan
    skipped_lines: int = 0


@dataclass
class FileState:
    """What the index knows of one transcript file."""

    file: TranscriptFile
    reader: TranscriptReader | None
    results: list[SessionResult] = field(default_factory=list)
    offset: int = 0
    mtime: float = 0.0
    trace: Trace | None = None  # what the reader was fed, as offsets (warmcache.py)
    # The file's mark at `offset` as its first read took it (filemark.py), for the
    # follower's first look; None once the file is read on (the follower marks it then).
    mark: int | None = None

    @property
    def skipped(self) -> int:
        return self.reader.skipped_lines if self.reader is not None else 0

    def parent_id(self) -> str | None:
        """The session a subagent file belongs to; None for a main transcript."""
        if self.file.subagent:
            if self.file.parent_hint:
                return self.file.parent_hint
            for result in self.results:
                return result.facts.parent_id
            return None
        for result in self.results:
            if result.facts.is_subagent and result.facts.parent_id:
                return result.facts.parent_id
        return None

    def agent_id(self) -> str:
        if self.file.agent_id:
            return self.file.agent_id
        for result in self.results:
            if result.facts.id:
                return result.facts.id
        return file_id(self.file.path)

    def own_ids(self) -> set[str]:
        """The ids of the sessions this file holds."""
        ids = {r.facts.id for r in self.results if r.facts.id}
        return ids or {file_id(self.file.path)}


def newest_first(entries: Iterable[SessionEntry]) -> list[SessionEntry]:
    """`entries` in the one order every list of sessions takes (the app's, `planwatch
    sessions`): newest activity first, sessions active at the same moment by their id,
    so the order is the same whatever order the files were read in (many sessions of a
    copied or generated folder share one time)."""
    by_id = sorted(entries, key=lambda entry: entry.session.id)
    return sorted(by_id, key=lambda entry: entry.session.updated, reverse=True)  # stable: ties keep id order


class _NewestKey:
    """A session's place in `newest_first`'s order: later activity first, then its id."""

    __slots__ = ("id", "updated")

    def __init__(self, entry: SessionEntry) -> None:
        self.updated = entry.session.updated
        self.id = entry.session.id

    def __lt__(self, other: _NewestKey) -> bool:
        if self.updated != other.updated:
            return self.updated > other.updated
        return self.id < other.id


class NewestFirst:
    """Entries kept in `newest_first`'s order as they come and go: each put or drop finds
    its place by bisection, so a batch of new sessions costs its own size, not a sort of
    every session (ten thousand while a first scan fills the app's list)."""

    def __init__(self) -> None:
        self._keys: list[_NewestKey] = []
        self._entries: list[SessionEntry] = []

    def put(self, entry: SessionEntry, old: SessionEntry | None = None) -> None:
        """Add `entry`, in place of `old` (the same session's entry before) when given."""
        if old is not None:
            self.drop(old)
        key = _NewestKey(entry)
        at = bisect_left(self._keys, key)
        self._keys.insert(at, key)
        self._entries.insert(at, entry)

    def put_new(self, entries: list[SessionEntry]) -> None:
        """Add `entries` (sessions not held yet): sorted at once into an empty order (a
        first scan's batch: one sort of C comparisons, not a bisection of Python ones per
        entry), else put one by one."""
        if self._entries or len(entries) < 2:
            for entry in entries:
                self.put(entry)
            return
        self._entries = newest_first(entries)
        self._keys = [_NewestKey(entry) for entry in self._entries]

    def drop(self, entry: SessionEntry) -> None:
        """Remove `entry` (one put before)."""
        at = bisect_left(self._keys, _NewestKey(entry))
        if at < len(self._entries) and self._entries[at].session.id == entry.session.id:
            del self._keys[at]
            del self._entries[at]

    def entries(self) -> list[SessionEntry]:
        """Every entry, newest activity first (a copy)."""
        return list(self._entries)

    def __len__(self) -> int:
        return len(self._entries)


def file_id(path: Path) -> str:
    """A session id from the file name alone (when the records name none)."""
    stem = path.name.removesuffix(".zst").removesuffix(".jsonl")
    match = _THREAD_ID.search(stem)
    return match.group(1) if match else stem


def ids_of(state: FileState | None) -> set[str]:
    """Session ids whose entry depends on this file."""
    if state is None:
        return set()
    parent = state.parent_id()
    if parent is not None:
        return {parent, *state.own_ids()}
    return state.own_ids()


def relations(files: Iterable[FileState]) -> tuple[Owners, Children]:
    """Session id → (its main file, its result); parent id → subagent files."""
    owners: Owners = {}
    children: Children = {}
    for state in files:
        parent = state.parent_id()
        if parent is not None:
            children.setdefault(parent, []).append(state)
            continue
        for result in state.results:
            sid = result.facts.id or file_id(state.file.path)
            held = owners.get(sid)
            # One id in two files (an ACP session resumed in a new log): the newer wins.
            if held is None or _updated(state, result) > _updated(*held):
                owners[sid] = (state, result)
    return owners, children


def orphan_ids(owners: Owners, children: Children) -> set[str]:
    """Subagents whose parent is known nowhere: they are shown on their own."""
    ids: set[str] = set()
    for parent, kids in children.items():
        if parent not in owners:
            for kid in kids:
                ids |= kid.own_ids()
    return ids


def build_entry(
    sid: str, owners: Owners, children: Children, *, orphans: bool, read_plans: bool
) -> SessionEntry | None:
    """The entry of session `sid`; None when no file holds it (or it is an orphan
    subagent and `orphans` is off: its parent may still be read)."""
    held = owners.get(sid)
    if held is None:
        if not orphans:
            return None
        return _orphan_entry(sid, owners, children, read_plans)
    state, result = held
    kids = sorted(children.get(sid, []), key=lambda s: str(s.file.path))
    return _entry(sid, state, result, result.facts.parent_id, kids, read_plans)


def _entry(
    sid: str, state: FileState, result: SessionResult, parent_id: str | None, kids: list[FileState], read_plans: bool
) -> SessionEntry:
    """The entry of session `sid`, read from `state` (its `result`), with `kids`."""
    facts = result.facts
    updated = max([_updated(state, result), *(_updated(k, r) for k in kids for r in k.results[:1])])
    session = Session(
        id=sid,
        harness=state.file.harness,
        path=state.file.path,
        title=(facts.title() or "")[:TITLE_LIMIT],
        cwd=facts.cwd or state.file.folder_hint,
        git_branch=facts.git_branch,
        updated=updated,
        parent_id=parent_id,
        # Subagents in files of their own, then those inside this session's source (an
        # OpenCode database: named by the database and the subagent's session id).
        subagents=(*(k.file.path for k in kids), *(state.file.path / sid for sid in facts.subagent_ids)),
    )
    plan = result.plan if read_plans else EMPTY_PLAN
    if kids and read_plans:
        plan = with_subagents(plan, kids)
    skipped = state.skipped + sum(k.skipped for k in kids)
    return SessionEntry(session=session, plan=plan, skipped_lines=skipped)


def _orphan_entry(sid: str, owners: Owners, children: Children, read_plans: bool) -> SessionEntry | None:
    for parent, kids in children.items():
        if parent in owners:
            continue
        for kid in kids:
            if sid in kid.own_ids() and kid.results:
                return _entry(sid, kid, kid.results[0], parent, [], read_plans)
    return None


def _updated(state: FileState, result: SessionResult) -> datetime:
    """Last activity, by which the list puts the newest session first (docs/reading.md,
    Sessions): the last record's time. The file's mtime counts only when no record
    carries a time (a harness that writes none,
    a file whose records have none): a copied, touched or re-synced file keeps its age.

    A record's time later than now is no activity (a skewed clock, a tool result holding
    a date to come, a hostile line): it would pin the session on top of the list and
    keep it "running" for ever. The file's last write stands in for it, never past now."""
    last = result.facts.last_timestamp
    if last is not None:
        now = datetime.now(UTC)
        if last <= now:
            return last  # the common case: the file's time is not made at all
    mtime = datetime.fromtimestamp(state.mtime or state.file.mtime, tz=UTC)
    if last is None:
        return mtime
    return min(mtime, now)


def with_subagents(plan: AgentPlan, kids: list[FileState]) -> AgentPlan:
    """The parent's plan with each subagent's plan as a group "agent-<agentId>"."""
    # Loaded here: the plan replay (and its events) is not needed by a listing whose
    # sessions have no subagent files (about 5 ms of a start: Copilot CLI's sessions).
    from planwatch.core.replay import merge_plans

    return merge_plans(
        plan, *(as_agent(result.plan, f"agent-{kid.agent_id()}") for kid in kids for result in kid.results[:1])
    )


def as_agent(plan: AgentPlan, key: str) -> AgentPlan:
    """A subagent file's plan keyed as its agent: its main group and document become
    `key`, so they replace the same agent's inline records in the parent's plan."""
    return AgentPlan(
        groups=tuple(replace(g, key=key) if g.key in ("", key) else g for g in plan.groups),
        documents=tuple(replace(d, key=key) if d.key in ("", key) else d for d in plan.documents),
    )
