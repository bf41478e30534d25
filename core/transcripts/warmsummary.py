"""A transcript's text-free summary in the warm-start cache: what `planwatch sessions`
shows of each result without text — a hash of its facts, per plan group its key, its
source and its items' statuses (places in fixed tables) and partial flag, and the time
of its last activity (a number: microseconds since the epoch). A start that needs only
facts and counts re-reads an unchanged file's fact lines alone (not the last record,
whose time is here) and takes its plans from here (items holding a status and no
text). The cache file, its traces and their replay are warmcache.py.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from typing import Any, TypeAlias, get_args

from planwatch.core.model import TODO_STATUSES, AgentPlan, PlanGroup, PlanItem, Source
from planwatch.core.transcripts.reader import SessionFacts, SessionResult, TranscriptReader, facts_key

# A result's summary names statuses and sources by their place in these.
SUMMARY_STATUSES = TODO_STATUSES
SUMMARY_SOURCES: tuple[Source, ...] = get_args(Source)

# A plan group as a summary keeps it: its key, its source's place in SUMMARY_SOURCES,
# whether it is partial (0 or 1) and its items' statuses' places in SUMMARY_STATUSES.
SummaryGroup: TypeAlias = tuple[str, int, int, list[int]]
# One result of a file: the hash of its facts, its plan's groups and its last activity
# (`when_number`).
SummaryResult: TypeAlias = tuple[int, list[SummaryGroup], int | None]
# A file's summary, a result each. The cache holds it as JSON arrays; `checked_summary`
# gives it back in this form.
Summary: TypeAlias = list[SummaryResult]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)


def when_number(moment: datetime | None) -> int | None:
    """A last activity as the summary keeps it: microseconds since the epoch (None for
    none, and for a time without a zone, which no reader gives: its replay then fails
    the facts' hash and the file is replayed whole)."""
    if moment is None or moment.tzinfo is None:
        return None
    return (moment - _EPOCH) // _MICROSECOND


def when_moment(number: int | None) -> datetime | None:
    """The time `when_number` gave (in UTC, as `parse_timestamp` holds every time); None
    for a number no time has (the facts' hash then fails)."""
    if number is None:
        return None
    try:
        return _EPOCH + timedelta(microseconds=number)
    except OverflowError:
        return None


def facts_hash(facts: SessionFacts) -> int:
    """A short hash of every fact of a result (as `line_hash` is of a line's bytes): a
    replay of the fact lines alone is trusted only when it gives the same facts."""
    return zlib.crc32(repr((facts_key(facts), facts.last_timestamp)).encode("utf-8", "backslashreplace"))


def summarize(results: Iterable[SessionResult]) -> Summary:
    """What `planwatch sessions` shows of each result, without text: the hash of its
    facts, per plan group its key (an id: "", "acp:<planId>", "agent-<agentId>"), its
    source and each item's status (places in SUMMARY_SOURCES / SUMMARY_STATUSES) and
    whether it is partial, and its last activity (`when_number`). No item text, no
    title, no document."""
    return [
        (
            facts_hash(result.facts),
            [
                (
                    g.key,
                    SUMMARY_SOURCES.index(g.source),
                    int(g.partial),
                    [SUMMARY_STATUSES.index(i.status) for i in g.items],
                )
                for g in result.plan.groups
            ],
            when_number(result.facts.last_timestamp),
        )
        for result in results
    ]


_INT = frozenset((int,))
_STATUS_PLACES = frozenset(range(len(SUMMARY_STATUSES)))


def checked_summary(raw: object) -> Summary | None:
    """A summary read from the cache, when it is made only of what `summarize` writes
    (anything else is not trusted: None), in its typed form."""
    if not isinstance(raw, list):
        return None
    summary: Summary = []
    for result in raw:
        if not (isinstance(result, list) and len(result) == 3):
            return None
        digest, groups, when = result
        if not (type(digest) is int and isinstance(groups, list) and (when is None or type(when) is int)):
            return None
        checked: list[SummaryGroup] = []
        for group in groups:
            if not (isinstance(group, list) and len(group) == 4):
                return None
            key, source, partial, statuses = group
            if not (
                isinstance(key, str)
                and type(source) is int
                and 0 <= source < len(SUMMARY_SOURCES)
                and partial in (0, 1)
                and isinstance(statuses, list)
                # Ints only (a bool hashes as 0 or 1: its type tells it apart), each a place.
                and _INT.issuperset(map(type, statuses))
                and _STATUS_PLACES.issuperset(statuses)
            ):
                return None
            checked.append((key, source, partial, statuses))
        summary.append((digest, checked, when))
    return summary


def summary_of_checked(raw: Any) -> Summary:
    """A summary read from the cache (JSON, untyped) that a worker forked with the same
    bytes checked (`checked_summary`), in its typed form: not checked again."""
    return [
        (digest, [(key, source, partial, statuses) for key, source, partial, statuses in groups], when)
        for digest, groups, when in raw
    ]


# A summary's items: a status and no text (frozen values, shared).
_BLANK_ITEMS = tuple(PlanItem(text="", status=status) for status in SUMMARY_STATUSES)


def summary_results(
    summary: Summary | None, reader: TranscriptReader, *, times: bool = False
) -> list[SessionResult] | None:
    """The results of a file from its summary, for a `reader` fed its fact lines only
    (`replay(..., facts_only=True)`, with `times`: its last activities taken from the
    summary, the last records not read): the reader's facts, each checked against the
    remembered hash, with a plan of the remembered groups whose items hold statuses and
    no text (counts, sources, partial: all `sessions` shows). None when anything
    differs (then replay the whole trace)."""
    if summary is None:
        return None
    facts = reader.result_facts()
    if times:
        facts = with_times(summary, facts)
    if not summary_matches(summary, facts):
        return None
    return [SessionResult(facts=f, plan=p) for f, p in zip(facts, summary_plans(summary), strict=True)]


def with_times(summary: Summary, facts: list[SessionFacts]) -> list[SessionFacts]:
    """`facts` (a reader's results', in order, fed no line for its time alone) with each
    last activity the summary remembers: the facts' hash then checks the rest."""
    if len(facts) != len(summary):
        return facts
    for f, (_digest, _groups, when) in zip(facts, summary, strict=True):
        f.last_timestamp = when_moment(when)
    return facts


def summary_matches(summary: Summary, facts: list[SessionFacts]) -> bool:
    """Whether `facts` (a reader's results', in order) hash as the summary remembers."""
    return len(facts) == len(summary) and all(
        facts_hash(f) == digest for f, (digest, _groups, _when) in zip(facts, summary, strict=True)
    )


# The plans summaries stand for, by their groups' text-free form: most sessions share a
# few shapes (three steps, one in progress), and the plans are frozen values.
_PLANS: dict[str, AgentPlan] = {}
_MAX_PLANS = 4096


def summary_plans(summary: Summary) -> list[AgentPlan]:
    """Per result of a summary, the plan it stands for: its groups, whose items hold a
    status and no text."""
    plans: list[AgentPlan] = []
    for _digest, groups, _when in summary:
        key = repr(groups)
        plan = _PLANS.get(key)
        if plan is None:
            plan = AgentPlan(
                groups=tuple(
                    PlanGroup(
                        key=key_,
                        source=SUMMARY_SOURCES[source],
                        items=tuple(map(_BLANK_ITEMS.__getitem__, statuses)),
                        partial=bool(partial),
                    )
                    for key_, source, partial, statuses in groups
                )
            )
            if len(_PLANS) < _MAX_PLANS:
                _PLANS[key] = plan
        plans.append(plan)
    return plans
