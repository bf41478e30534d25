"""The contract between the byte-level IO (lines.py, follow.py, discover.py, index.py)
and the per-harness record readers (claude.py, codex.py, acp.py).

IO decides *which* lines to read (head, tail, backward scan, appended bytes) and hands
the reader raw lines in transcript order; the reader decides what they mean. A reader
never opens a file.

Flow for one transcript file:
    reader = reader_for(harness)(path)
    for line in lines:                      # raw bytes, one complete JSON line each
        if reader.wants(line):              # cheap byte prefilter, before json.loads
            reader.feed_line(line)          # parses, updates facts and the replay
    reader.results()                        # -> list[SessionResult]

The prefilter has two parts, so IO can find wanted lines in a whole block of bytes in
one pass instead of testing line by line (lines.py):
- `pattern`: one compiled regex of the static `needles` (built from them by default);
- `dynamic_needles()`: raw bytes that depend on what was read so far (the quoted ids of
  calls waiting for their result, the first-prompt markers until a prompt is seen).
`wants(line)` is "the pattern matches, or a dynamic needle occurs". Both parts are
positive substring-style tests, so a block of lines passes whenever one of its lines
does; a pattern must never match across a newline.
"""

from __future__ import annotations

import json
import re
from abc import ABC, abstractmethod
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from planwatch.core.model import AgentPlan, Harness, pickled_by_slots
from planwatch.core.transcripts.needles import Needles


@dataclass(slots=True, kw_only=True)
class SessionFacts:
    """What a reader learnt about a session from its records (mutable while reading;
    a result hands out a copy, `copy()`). A plain dataclass: the
    readers set these fields thousands of times per scan (no pydantic on the reading
    path: its validation would cost a fast start more than the reading itself)."""

    id: str | None = None
    cwd: str | None = None
    git_branch: str | None = None
    # Title candidates in title priority order (docs/reading.md, Claude Code); the reader keeps the *last* of each.
    custom_title: str | None = None
    ai_title: str | None = None
    summary: str | None = None
    first_prompt: str | None = None
    parent_id: str | None = None
    # True when this transcript is a subagent's (Claude `agent-<id>.jsonl`, a Codex
    # thread spawned by another): `parent_id` then names the session it belongs to,
    # rather than the one it was forked from.
    is_subagent: bool = False
    last_timestamp: datetime | None = None
    # Subagent sessions a reader found inside the same source (OpenCode's database holds
    # them as rows): their ids, listed like subagent files (`Session.subagents`).
    subagent_ids: list[str] = field(default_factory=list)

    def touch(self, moment: datetime | None) -> None:
        """Keep `moment` as the last activity when it is later than the one held."""
        if moment is not None and (self.last_timestamp is None or moment > self.last_timestamp):
            self.last_timestamp = moment

    def last_record(self, moment: datetime | None) -> None:
        """`moment` is the time of the latest record read: activity is the last record's
        time (`touch_line`), even where an earlier record carried a later one."""
        if moment is not None:
            self.last_timestamp = moment

    def copy(self) -> SessionFacts:
        """What a result hands out: a copy of every field (the list shared, as
        `dataclasses.replace` shares it), made at once (replace looks up the fields
        each time: a tenth of a warm start's reading went to it)."""
        return SessionFacts(
            id=self.id,
            cwd=self.cwd,
            git_branch=self.git_branch,
            custom_title=self.custom_title,
            ai_title=self.ai_title,
            summary=self.summary,
            first_prompt=self.first_prompt,
            parent_id=self.parent_id,
            is_subagent=self.is_subagent,
            last_timestamp=self.last_timestamp,
            subagent_ids=self.subagent_ids,
        )

    def as_tuple(self) -> tuple[Any, ...]:
        """Every field, in order (what a scan worker hands back: cheaper to pickle)."""
        return (
            self.id,
            self.cwd,
            self.git_branch,
            self.custom_title,
            self.ai_title,
            self.summary,
            self.first_prompt,
            self.parent_id,
            self.is_subagent,
            self.last_timestamp,
            self.subagent_ids,
        )

    @classmethod
    def from_tuple(cls, fields: tuple[Any, ...]) -> SessionFacts:
        """The facts `as_tuple` gave."""
        (id_, cwd, branch, custom, ai, summary, prompt, parent, subagent, last, subagents) = fields
        return cls(
            id=id_,
            cwd=cwd,
            git_branch=branch,
            custom_title=custom,
            ai_title=ai,
            summary=summary,
            first_prompt=prompt,
            parent_id=parent,
            is_subagent=subagent,
            last_timestamp=last,
            subagent_ids=subagents,
        )

    def title(self) -> str:
        for candidate in (self.custom_title, self.ai_title, self.summary, self.first_prompt):
            if candidate and candidate.strip():
                return candidate
        return ""


def facts_key(facts: SessionFacts) -> tuple[object, ...]:
    """Every fact but the last activity, as one comparable value (warmcache.py tags a
    line fed as a fact line when feeding it changed this)."""
    return (
        facts.id,
        facts.cwd,
        facts.git_branch,
        facts.custom_title,
        facts.ai_title,
        facts.summary,
        facts.first_prompt,
        facts.parent_id,
        facts.is_subagent,
        tuple(facts.subagent_ids),
    )


@pickled_by_slots
@dataclass(frozen=True, slots=True, kw_only=True)
class SessionResult:
    """One session a transcript held: its facts and its plan."""

    facts: SessionFacts
    plan: AgentPlan


class TranscriptReader(ABC):
    harness: Harness
    # Lines containing none of these bytes (and no dynamic needle) carry no plan event
    # and no session fact the reader still needs; IO skips them without json.loads.
    needles: tuple[bytes, ...] = ()
    # `needles` searched all at once (set for each subclass that declares `needles`,
    # unless it declares its own `pattern`); None matches nothing.
    pattern: Needles | None = None

    # Raw bytes for IO's backward scan prefilter (docs/reading.md, Bounded reading): the
    # planning tool names and, for Claude, the structured tool-result envelope. Also
    # the privacy switch's exclusion list (lines naming a planning tool).
    scan_needles: tuple[bytes, ...] = ()
    scan_pattern: Needles | None = None
    # Narrower, when a reader can tell: only lines holding one of these can be a full
    # list (`is_full_list`); the backward scan looks at no other line. Default: the
    # scan needles.
    full_list_needles: tuple[bytes, ...] = ()
    full_list_pattern: Needles | None = None

    # A line and the object it was decoded to, about to be fed (superseded.py's anchor:
    # a record otherwise read twice); IO drops it when the read ends.
    _decoded: tuple[bytes, dict[str, Any]] | None = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "needles" in cls.__dict__ and "pattern" not in cls.__dict__:
            cls.pattern = Needles(cls.needles) if cls.needles else None
        if "scan_needles" in cls.__dict__ and "scan_pattern" not in cls.__dict__:
            cls.scan_pattern = Needles(cls.scan_needles) if cls.scan_needles else None
        if "full_list_needles" in cls.__dict__ and "full_list_pattern" not in cls.__dict__:
            cls.full_list_pattern = Needles(cls.full_list_needles) if cls.full_list_needles else None

    # What keeps the source from being read as it stands, naming its file (a database
    # that cannot be opened, pi's tree cut by a missing parent); None when it reads.
    problem: str | None = None
    # The one session a line reader keeps the facts of, when it keeps one
    # (`fact_state` compares it); None for a reader of several sessions.
    facts: SessionFacts | None = None
    # Whether the warm-start cache keeps a summary of what the source gave although it
    # remembers no lines of it (a Copilot CLI session: its summary stands in for its
    # database on a start that shows counts only).
    warm_summary: bool = False

    def __init__(self, path: Path) -> None:
        self.path = path
        self.skipped_lines = 0  # lines that were not valid JSON, counted so `show` can say so

    def fact_state(self) -> tuple[object, object]:
        """(the facts but the last activity, the last activity) as they stand: IO compares
        them before and after feeding a line, so the warm-start cache knows which lines
        carry facts (warmcache.py, FACT and WHEN). A reader with one `facts` has it
        compared; one that keeps several sessions overrides this."""
        facts = self.facts
        if facts is not None:
            return facts_key(facts), facts.last_timestamp
        return None, None

    def dynamic_needles(self) -> Sequence[bytes]:
        """Needles that depend on the lines fed so far (e.g. the quoted ids of calls
        waiting for their result). IO asks again after every line it feeds."""
        return ()

    def wants(self, line: bytes) -> bool:
        """Cheap raw-byte prefilter: the static pattern, or any dynamic needle."""
        pattern = self.pattern
        if pattern is not None and pattern.occurs(line):
            return True
        return any(needle in line for needle in self.dynamic_needles())

    def note_gap(self) -> None:  # noqa: B027 (an optional hook: doing nothing is its default)
        """IO skipped lines here (head/tail windows, bounded backward scan): plans not
        restated by a full list after this point are marked partial."""

    def middle_needles(self) -> tuple[bytes, ...]:
        """Raw bytes of session-fact records (titles) the reader still wants from the
        middle IO skipped, given what it read after the gap. IO then looks back through
        the skipped bytes for the latest line holding one, hands it to
        `feed_middle_line`, and asks again; () ends the look (the default: nothing)."""
        return ()

    def touch_line(self, line: bytes) -> bool:
        """Take a record's time from its raw bytes, without parsing it: IO hands on the
        last records of what it read, newest first, until one answers True (activity is
        the last record's time, whatever the record holds and whatever the privacy
        switch keeps from `feed_line`). The default knows no time: False."""
        return False

    def feed_middle_line(self, line: bytes) -> None:  # noqa: B027 (an optional hook: doing nothing is its default)
        """A line from the skipped middle found by `middle_needles`, latest first. Only
        session facts are taken from it: it is older than what the replay has seen."""

    def _load(self, line: bytes) -> dict[str, Any] | None:
        """One line as a JSON object; invalid JSON is counted in `skipped_lines`, and a
        valid line that is not an object is an unknown record (None, not counted)."""
        decoded = self._decoded
        if decoded is not None and decoded[0] == line:
            self._decoded = None  # the line was decoded already (superseded.py's anchor)
            return decoded[1]
        try:
            value = load_json_line(line)
        except _BAD_JSON:
            self.skipped_lines += 1
            return None
        return value if isinstance(value, dict) else None

    @abstractmethod
    def feed_line(self, line: bytes) -> None:
        """Parse one complete line and apply it. Invalid JSON is counted, not raised."""

    def feed_document(self, data: bytes, *, plans: bool = True) -> None:
        """A transcript that is one JSON document rewritten whole (Gemini CLI before 0.60),
        handed over at once. `plans` False: take no plan from it (the privacy switch).
        Readers of line formats never get one."""
        raise NotImplementedError(f"{type(self).__name__} reads no whole documents")

    @abstractmethod
    def is_full_list(self, line: bytes) -> bool:
        """True when this line is a call that states a whole list (TodoWrite, update_plan
        items, Codex update_plan, ACP plan). The backward scan stops at one."""

    def full_list_result_needles(self, line: bytes) -> tuple[bytes, ...]:
        """For a line `is_full_list` accepted: raw bytes of the line holding its call's
        result (the quoted call id), for IO to find it; () when the list needs no result
        to apply (ACP notifications)."""
        return ()

    def full_list_result(self, line: bytes, later: bytes) -> bool | None:
        """Whether `later`, a line after the full list on `line` holding one of its
        result needles, shows the call applied (True) or failed (False); None when
        `later` is not its result (IO then looks further)."""
        return True

    @abstractmethod
    def results(self) -> list[SessionResult]:
        """One result per session the lines held (ACP logs may hold several)."""

    def result_facts(self) -> list[SessionFacts]:
        """The facts of each result, as `results()` gives them, without making its plan
        (a start that takes the plans from the warm-start cache's summary)."""
        return [result.facts for result in self.results()]


_DECODE = json.JSONDecoder().decode
_BOM = b"\xef\xbb\xbf"
# What `load_json_line` raises on a line that is not JSON.
_BAD_JSON = (ValueError, UnicodeDecodeError, RecursionError)


class _NotLoaded(Exception):
    """What msgspec refuses, before msgspec is loaded (nothing: it has decoded nothing)."""


def _load_fast(data: Any) -> Any:
    """The first line decoded: msgspec loaded (about 8 ms, which a start that decodes no
    line, a warm listing of Copilot CLI's sessions, never pays), installed, and used."""
    global _FAST_DECODE, _FAST_REFUSED
    import msgspec

    _FAST_REFUSED = msgspec.DecodeError
    decode = msgspec.json.Decoder().decode
    if _FAST_DECODE is _load_fast:  # not while a test's counting wrapper stands in for it
        _FAST_DECODE = decode
    return decode(data)


# msgspec's C decoder reads the lines a scan decodes (tool calls, their results, prompts:
# 1-3 KB each) 2.5-3x as fast as the standard library's (docs/performance.md). It takes
# bytes as they are, with no str made first.
_FAST_DECODE: Callable[[Any], Any] = _load_fast
_FAST_REFUSED: type[Exception] = _NotLoaded


class SourceReader(TranscriptReader):
    """A reader of a whole source rather than a file's lines (OpenCode's and Kilo's
    databases, OpenCode's storage folder, Cline's data folder): IO calls `read()` on the
    first scan and `refresh()` when a file of the source changed, and the source keeps
    each session's plan history apart from its current list."""

    @abstractmethod
    def refresh(self) -> set[str]:
        """Read again what moved; the ids of the results that changed or went. Never
        raises: a problem is kept in `problem`."""

    @abstractmethod
    def warm_state(self) -> dict[str, Any]:
        """What lets the next start skip reading parts of the source, holding no text."""

    @abstractmethod
    def history(self, session_id: str) -> list[tuple[datetime, AgentPlan]]:
        """The session's plan after each plan call, oldest first, with its time (read on
        demand). Never raises ([] when the source cannot be read)."""


def load_json_line(line: bytes) -> Any:
    """One JSONL line (UTF-8, as JSON Lines are) parsed; raises ValueError on bad JSON.

    msgspec decodes what is strict JSON in UTF-8. What it refuses goes to the standard
    library, which decides as before: it also takes what real writers emit and msgspec
    does not (`NaN`, numbers beyond a float's range, escaped or raw lone surrogates,
    which Python's own JSON writer produces from a torn string), and its error is the one
    raised. So a line parses exactly when it did, to the same value."""
    try:
        return _FAST_DECODE(line)
    except _FAST_REFUSED:
        pass
    if line.startswith(_BOM):
        line = line[3:]
    return _DECODE(line.decode("utf-8", "surrogatepass"))


def load_json_text(text: str) -> Any:
    """JSON held in a string (a tool call's `arguments`), parsed as `load_json_line`
    parses a line: msgspec first, the standard library for what it refuses (a lone
    surrogate cannot even be handed to msgspec), so the value is the standard library's.
    Raises ValueError on bad JSON."""
    try:
        return _FAST_DECODE(text)
    except (_FAST_REFUSED, UnicodeEncodeError):
        return _DECODE(text)


def is_json_object(line: bytes) -> bool:
    """Whether a line is one whole JSON object, nothing of it built: for a reader's quick
    path that places a line by a regular expression over its head alone. A write cut off,
    with the next record appended to it on the same line after a crash and a resume,
    starts as a record and may end in `}`: it is no record (the full read skips and
    counts it). msgspec's decoder into an object of no fields validates the JSON and
    skips every field; what it refuses is asked of the standard library, as every line
    is (`load_json_line`: the same lines parse)."""
    global _OBJECT_CHECK
    if _OBJECT_CHECK is None:
        import msgspec

        class _NoFields(msgspec.Struct):
            pass

        _OBJECT_CHECK = (msgspec.json.Decoder(_NoFields).decode, msgspec.DecodeError)
    check, refused = _OBJECT_CHECK
    try:
        check(line)
        return True
    except refused:
        return json_record(line) is not None


# msgspec's decoder for `is_json_object` and what it raises, made at the first line checked
# (a start that decodes no line never loads msgspec).
_OBJECT_CHECK: tuple[Callable[[bytes], object], type[Exception]] | None = None


def json_record(line: bytes) -> dict[str, Any] | None:
    """A line as a JSON object; None for bad JSON or any other value (not counted: for
    the IO hooks that look at a line again, outside `feed_line`)."""
    try:
        value = load_json_line(line)
    except _BAD_JSON:
        return None
    return value if isinstance(value, dict) else None


def json_record_of_few(line: bytes) -> dict[str, Any] | None:
    """`json_record` for a reader that decodes a few lines a source (the head of a
    Copilot CLI session's log): by the standard library while msgspec is not loaded yet
    — importing it (about 12 ms) costs more than a thousand folders' few lines take —
    which gives what `load_json_line` gives (it is what decides every line msgspec
    refuses, and the value of every line msgspec takes)."""
    if _FAST_DECODE is not _load_fast:
        return json_record(line)
    try:
        value = _DECODE((line[3:] if line.startswith(_BOM) else line).decode("utf-8", "surrogatepass"))
    except _BAD_JSON:
        return None
    return value if isinstance(value, dict) else None


_K = TypeVar("_K", bound=Hashable)
_V = TypeVar("_V")


def hold(pending: OrderedDict[_K, _V], key: _K, value: _V, limit: int) -> None:
    """Keep `value` under `key` as the newest of `pending` (calls waiting for their
    result), the oldest evicted beyond `limit`: what a reader holds stays bounded."""
    pending[key] = value
    pending.move_to_end(key)
    while len(pending) > limit:
        pending.popitem(last=False)


def parse_timestamp(raw: object) -> datetime | None:
    """An ISO 8601 time as harnesses write it (`…Z` included); None when it is not one."""
    if not isinstance(raw, str) or not raw:
        return None
    try:
        moment = datetime.fromisoformat(raw)  # 3.11+ reads a trailing "Z"
    except ValueError:
        return None
    # A naive time is taken as UTC so every timestamp compares with every other; a zoned
    # one is held in UTC (one zone for every age and "Last activity"). A time that has
    # no UTC form (year 1 at +05:00, year 9999 at -01:00) is not one.
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    try:
        return moment.astimezone(UTC)
    except OverflowError:
        return None


# A time key as `line_time` searches for it: the quoted key every match starts with,
# and the pattern of the whole `"key":"<time>"`.
TimePattern = tuple[bytes, re.Pattern[bytes]]


def time_pattern(key: str) -> TimePattern:
    """`"key":"<time>"` in raw bytes; like `json_needles`, only JSON structure matches
    (inside a JSON string the quotes would be escaped)."""
    quoted = b'"' + key.encode() + b'"'
    return quoted, re.compile(re.escape(quoted) + rb'\s*:\s*"([0-9][0-9T:.+\-Z ]{9,40})"')


def line_time(line: bytes, pattern: TimePattern) -> datetime | None:
    """The latest time `pattern` finds in `line` (a record's own time key and any
    nested one: a nested time never postdates its record); None when there is none, or
    when the line is not a whole JSON object (a torn line is no record).

    Every match starts with the quoted key: `bytes.find` goes from one to the next, and
    the pattern is tried only there (the regex alone would try at every quote of a long
    last line: most of a warm start's reading of last records)."""
    stripped = line.strip()
    if not (stripped.startswith(b"{") and stripped.endswith(b"}")):
        return None
    quoted, regex = pattern
    latest = None
    at = line.find(quoted)
    while at >= 0:
        match = regex.match(line, at)
        if match is None:
            at = line.find(quoted, at + 1)
            continue
        moment = parse_timestamp(match.group(1).decode("ascii"))
        if moment is not None and (latest is None or moment > latest):
            latest = moment
        at = line.find(quoted, match.end())
    return latest


def quoted_needles(value: str) -> tuple[bytes, ...]:
    """The JSON string `value`, quotes included, as a writer may spell it: its UTF-8
    bytes with only quotes, backslashes and controls escaped (JavaScript's
    JSON.stringify, Rust's serde_json), and every character past ASCII a `\\u` escape
    (Python's json.dumps); one needle where the two agree (a plain ASCII id: nearly
    every call id). Quoted, so one id is never found inside a longer one. A lone
    surrogate can only be spelt as its escape."""
    if value.isascii() and value.isprintable() and '"' not in value and "\\" not in value:
        return (f'"{value}"'.encode("ascii"),)  # what json.dumps gives, without it
    escaped = json.dumps(value).encode("ascii")
    try:
        raw = json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return (escaped,)
    return (raw,) if raw == escaped else (raw, escaped)


def find_first(data: bytes, needles: Sequence[bytes], start: int) -> int:
    """The first place at or after `start` where one of `needles` is (-1: none)."""
    found = [at for needle in needles if (at := data.find(needle, start)) >= 0]
    return min(found) if found else -1


def json_needles(key: str, value: str) -> tuple[bytes, ...]:
    """`"key":"value"` as raw bytes, compact and with a space. A quoted pair like this
    only matches JSON structure: inside a JSON string its quotes would be escaped."""
    return (f'"{key}":"{value}"'.encode(), f'"{key}": "{value}"'.encode())


def json_value_needles(value: str) -> tuple[bytes, ...]:
    """A JSON string value after its key (`"name":"TodoWrite"`, any key) as raw bytes,
    compact and with a space: `:"value"` and `: "value"`. Like `json_needles`, it only
    matches JSON structure, and its colon lets `needle_pattern` (needles.py) scan fast."""
    return (f':"{value}"'.encode(), f': "{value}"'.encode())
