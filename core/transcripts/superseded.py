"""Reading less of a small transcript: the lists a later full list replaced (docs/reading.md,
The plan replay; docs/performance.md, A cold start reads less).

For a source whose every plan call states the whole list (Claude Code's TodoWrite, Codex's
`update_plan`), the plan after a replay is the last full list that took effect plus what
came after it. IO (lines.py) finds that list from the end of a file it read whole (the
byte search already knows where each plan call is) and feeds the reader from there as
always; before it, a line stating a full list is *superseded*: it is not fed, not traced,
and its call's result is not looked for by the scan. The reader decodes such a line only
as far as its facts and call ids go (a typed decode that skips the list), finds its
result by the call's quoted id, and decodes that only as far.

The answer must stay exactly the full replay's, so the reader proves as it goes that the
lines it skips change nothing the answer holds, and gives up (`Unproven`: IO reads the
file again from its start, every line fed) when it cannot:
- a superseded line is a record of the reader's own group holding full-list calls and no
  other planning call, of a shape the typed decode reads as the full one does (it would
  have been held, and it is valid JSON: nothing the full read counts as skipped);
- each held call's first later mention is its result, before the anchor (so none applies
  after it, none is still waiting there, and the full read found and fed exactly those
  lines), and not many calls wait at once (the readers' bound on waiting calls);
- neither line changes a fact the reader holds at that point (the folder is known, the
  same session id, no other branch, the first user record seen); their times only could
  move the last activity, which the last record's time then sets (else `Unproven`);
- after the anchor, the first event that applies is a non-empty full list of that group:
  it replaces whatever the skipped lists left (an empty one would keep a finished list,
  which depends on them).
What the reader is fed, and so the warm-start trace, is a subset of the full read's lines
in the same order; a replay of that trace gives the same answer again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the line-reading code loads this module: it imports no plan code
    from planwatch.core.transcripts.events import PlanEvent


class Unproven(Exception):
    """The skipped lines may have mattered: read the file again, every line fed."""


class Superseding:
    """What a reader keeps while lines before the anchor are skipped (mixed into
    ClaudeReader and CodexReader, which decide what a line holds)."""

    # The group whose first event after the anchor must be a non-empty full list (None:
    # nothing left to prove).
    _covering: str | None = None
    # Where the results of the calls skipped so far lie (offsets): how many still wait.
    _answers: list[int] | None = None
    _at = 0  # where the line being fed starts (IO sets it while lines may be skipped)
    skipped_any = False  # a line was skipped: the last record must give the activity

    def can_supersede(self) -> bool:
        """Whether this reader may skip superseded lines (not when it builds every list)."""
        return False

    def anchor(self, line: bytes) -> tuple[str, tuple[bytes, ...]] | None:
        """For a line stating a non-empty full list: its group and its calls' quoted ids
        (to see that a result follows); None for any other line."""
        return None

    def skip_superseded(self, line: bytes, end: int, data: bytes, anchor: int, max_line: int) -> bool:
        """A line before the anchor (ending at `end` in `data`, the file read whole) that
        holds a full-list needle: True when it was proven superseded (not to be fed),
        False when it is no list call and is fed as always; raises `Unproven`."""
        return False

    def restart(self) -> None:
        """Forget every line fed (the file is read again from its start)."""
        self._covering, self._answers, self.skipped_any = None, None, False
        self._fresh()

    def _fresh(self) -> None:
        """The reader as its constructor left it."""
        raise NotImplementedError

    def anchor_reached(self, group: str) -> None:
        """The anchor's line is next: its group's first event must replace the list."""
        self._covering = group

    def read_done(self) -> None:
        """The read ended: the anchor's list (or a later one) must have applied."""
        if self._covering is not None:
            raise Unproven("no full list applied after the anchor")
        self._answers = None  # every skipped call was answered before the anchor

    def _check_event(self, event: PlanEvent) -> None:
        """Each event before it applies while the anchor's group is unproven."""
        from planwatch.core.transcripts.events import FullList  # loaded by the reader already

        if isinstance(event, FullList) and event.group == self._covering and (event.build is not None or event.items):
            self._covering = None
            return
        raise Unproven("an event before the replacing list")

    def _waiting_answer(self, call_at: int, answer_at: int, waiting: int, limit: int) -> None:
        """Note a skipped call at `call_at` answered at `answer_at`: with `waiting` calls
        of the reader's own, fewer than `limit` may wait at once (as the full read held
        them, none evicted)."""
        answers = self._answers
        if answers is None:
            answers = self._answers = []
        answers[:] = [at for at in answers if at > call_at]
        answers.append(answer_at)
        if len(answers) + waiting >= limit:
            raise Unproven("too many calls waiting at once")

    def _room(self, waiting: int, limit: int) -> None:
        """Before the reader holds a call of its own (with `waiting` held already): the
        skipped calls not answered yet count too, as the full read held them."""
        answers = self._answers
        if answers and len([at for at in answers if at > self._at]) + waiting + 1 >= limit:
            raise Unproven("too many calls waiting at once")


def line_around(data: bytes, at: int) -> tuple[int, int] | None:
    """The line of `data` holding byte `at`: (start, end without its newline), or None
    when it has no newline yet (not read)."""
    start = data.rfind(b"\n", 0, at) + 1
    stop = data.find(b"\n", at)
    if stop == -1:
        return None
    if stop > start and data[stop - 1] == 0x0D:  # \r
        stop -= 1
    return start, stop
