"""The index keeps its sessions in `newest_first`'s order as entries come, change and go
(`NewestFirst`, found by bisection), instead of sorting every session at each change: the
order it keeps is the order a full sort gives, whatever the changes."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from planwatch.core.model import EMPTY_PLAN, Session
from planwatch.core.sessions import NewestFirst, SessionEntry, newest_first

BASE = datetime(2026, 11, 30, 6, 0, tzinfo=UTC)


def entry(session_id: str, minutes: int) -> SessionEntry:
    # Few distinct times, so many sessions share one (ties are ordered by id).
    session = Session(
        id=session_id, harness="claude", path=Path(f"/t/{session_id}.jsonl"), updated=BASE + timedelta(minutes=minutes)
    )
    return SessionEntry(session=session, plan=EMPTY_PLAN)


# Each step: a session id, and its new time, or None for the session going.
steps = st.lists(
    st.tuples(st.sampled_from([f"s{n:02d}" for n in range(30)]), st.one_of(st.none(), st.integers(0, 6))),
    max_size=200,
)


@given(steps)
@settings(max_examples=300, deadline=None)
def test_kept_order_is_a_full_sorts_order_after_any_puts_and_drops(changes: list[tuple[str, int | None]]) -> None:
    order = NewestFirst()
    current: dict[str, SessionEntry] = {}
    for session_id, minutes in changes:
        old = current.get(session_id)
        if minutes is None:
            if old is not None:
                order.drop(old)
                del current[session_id]
        else:
            new = entry(session_id, minutes)
            order.put(new, old)
            current[session_id] = new
        assert order.entries() == newest_first(current.values())
    assert len(order) == len(current)


@given(st.lists(st.lists(st.tuples(st.sampled_from([f"s{n:02d}" for n in range(40)]), st.integers(0, 6)), max_size=40)))
@settings(max_examples=200, deadline=None)
def test_new_sessions_put_together_keep_a_full_sorts_order(batches: list[list[tuple[str, int]]]) -> None:
    """A batch of sessions not held yet (a first scan's) put at once — sorted together
    into an empty order, else one by one — and then changed or dropped: the order kept
    is still the full sort's."""
    order = NewestFirst()
    current: dict[str, SessionEntry] = {}
    for batch in batches:
        fresh = {sid: entry(sid, minutes) for sid, minutes in batch if sid not in current}
        order.put_new(list(fresh.values()))
        current.update(fresh)
        assert order.entries() == newest_first(current.values())
        for sid, minutes in batch[:3]:  # a few of them change again, one goes
            new = entry(sid, minutes + 1)
            order.put(new, current[sid])
            current[sid] = new
        if batch:
            gone = current.pop(batch[-1][0])
            order.drop(gone)
        assert order.entries() == newest_first(current.values())
    assert len(order) == len(current)


def test_the_index_lists_its_sessions_newest_first_as_a_scan_fills_it(tmp_path: Path) -> None:
    """The index's own entries after a scan in batches: the full sort's order."""
    from planwatch.core.index import SessionIndex

    projects = tmp_path / "claude" / "projects" / "-home-dev-p"
    projects.mkdir(parents=True)
    for n in range(120):
        sid = f"{n:08x}-0000-4000-8000-000000000000"
        stamp = (BASE + timedelta(minutes=n % 7)).isoformat().replace("+00:00", "Z")
        record = {
            "type": "user",
            "sessionId": sid,
            "cwd": "/home/dev/p",
            "timestamp": stamp,
            "message": {"role": "user", "content": f"part {n}"},
        }
        line = json.dumps(record) + "\n"
        (projects / f"{sid}.jsonl").write_text(line)
    index = SessionIndex([tmp_path / "claude" / "projects"])
    batches: list[list[SessionEntry]] = []
    index.scan(batches.append)
    listed = index.entries()
    assert len(listed) == 120
    assert listed == newest_first(listed)
    assert {e.session.id for batch in batches for e in batch} == {e.session.id for e in listed}
