"""docs/app.md, The checklist: the two sections, item keys, overrides applied, the pill's counts."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from planwatch.core.checklist import build_checklist, item_key, item_keys, pill_counts, toggle_agent, toggle_own
from planwatch.core.model import AgentPlan, PlanGroup, PlanItem


@dataclass(frozen=True)
class Task:
    id: str
    title: str
    status: str


def plan(*items: tuple[str, str], key: str = "", source: str = "claude_todos") -> AgentPlan:
    group = PlanGroup(key=key, source=source, items=tuple(PlanItem(text=t, status=s) for t, s in items))
    return AgentPlan(groups=(group,))


def test_item_key_is_a_hash_never_the_text() -> None:
    key = item_key("Write the parser", 0)
    assert "parser" not in key.lower()
    assert len(key) == 32 and int(key, 16) >= 0


def test_item_key_counts_occurrence_of_the_same_text() -> None:
    keys = item_keys(["Run tests", "Fix", "Run tests"])
    assert keys[0] == item_key("Run tests", 0)
    assert keys[2] == item_key("Run tests", 1)
    assert len(set(keys)) == 3


def test_reworded_item_loses_its_override() -> None:
    before = build_checklist(plan(("Add parser", "pending")))
    key = before.agent_rows[0].key
    after = build_checklist(plan(("Add the parser", "pending")), {key: "completed"})
    assert after.agent_rows[0].override is None
    assert after.agent_rows[0].status == "pending"


def test_override_ticks_an_agent_item_and_is_labelled() -> None:
    base = build_checklist(plan(("Add parser", "pending"), ("Docs", "completed")))
    ticked = build_checklist(
        plan(("Add parser", "pending"), ("Docs", "completed")),
        {base.agent_rows[0].key: "completed", base.agent_rows[1].key: "pending"},
    )
    assert ticked.agent_rows[0].status == "completed"
    assert ticked.agent_rows[0].override_label == "ticked by you"
    assert ticked.agent_rows[1].status == "pending"
    assert ticked.agent_rows[1].override_label == "unticked by you"
    assert ticked.counts() == (1, 2)


def test_override_matching_agent_status_shows_as_the_agents() -> None:
    base = build_checklist(plan(("Add parser", "completed")))
    same = build_checklist(plan(("Add parser", "completed")), {base.agent_rows[0].key: "completed"})
    assert same.agent_rows[0].override is None


@pytest.mark.parametrize(
    ("agent", "override", "expected"),
    [
        ("pending", None, "completed"),  # tick
        ("in_progress", None, "completed"),
        ("cancelled", None, "completed"),
        ("completed", None, "pending"),  # untick an agent-done step
        ("pending", "completed", None),  # choosing the agent's own status again removes it
        ("completed", "pending", None),
        ("in_progress", "completed", None),  # undo returns to the agent's status
    ],
)
def test_choosing_the_agents_own_status_again_removes_the_override(agent, override, expected) -> None:
    base = build_checklist(plan(("Step", agent)))
    key = base.agent_rows[0].key
    row = build_checklist(plan(("Step", agent)), {key: override} if override else {}).agent_rows[0]
    assert toggle_agent(row) == expected


def test_pill_counts_both_sections_without_cancelled_or_dropped() -> None:
    checklist = build_checklist(
        plan(("a", "completed"), ("b", "in_progress"), ("c", "cancelled")),
        own_tasks=[Task("t1", "mine", "done"), Task("t2", "other", "todo"), Task("t3", "gone", "dropped")],
    )
    assert checklist.counts() == (2, 4)
    assert [r.text for r in checklist.in_progress()] == ["b"]


def test_pill_counts_without_the_checklist_are_the_checklists() -> None:
    """The session list asks each session's pill of `pill_counts` (no item keys hashed
    unless the session has overrides): it says what the built checklist says."""
    statuses = ("pending", "in_progress", "completed", "cancelled")
    steps = tuple(PlanItem(text=f"step {n % 3}", status=statuses[n % 4]) for n in range(9))
    plans = [
        AgentPlan(),
        plan(("a", "completed"), ("b", "in_progress"), ("c", "cancelled")),
        AgentPlan(
            groups=(
                PlanGroup(key="", source="claude_tasks", items=steps, partial=True),
                PlanGroup(key="agent-a1", source="claude_todos", items=steps),
            )
        ),
        AgentPlan(groups=(PlanGroup(key="x", source="codex", items=steps[:2], partial=True),)),
    ]
    owns = [(), [Task("t1", "mine", "done"), Task("t2", "other", "todo"), Task("t3", "gone", "dropped")]]
    for agent_plan in plans:
        keys = [row.key for row in build_checklist(agent_plan).agent_rows]
        choices = [None, {}, {k: "completed" for k in keys[::2]}, {k: "pending" for k in keys}, {"0" * 32: "completed"}]
        for overrides in choices:
            for own in owns:
                built = build_checklist(agent_plan, overrides, own)
                expected = (*built.counts(), bool(built.partial_labels()))
                assert pill_counts(agent_plan, overrides, own) == expected, (agent_plan, overrides, own)


def test_groups_keep_separate_keys_for_the_same_text() -> None:
    two = AgentPlan(
        groups=(
            PlanGroup(key="", source="claude_tasks", items=(PlanItem(text="Same"),)),
            PlanGroup(key="agent-a1", source="claude_todos", items=(PlanItem(text="Same"),)),
        )
    )
    checklist = build_checklist(two)
    assert [s.group_key for s in checklist.sections] == ["", "agent-a1"]
    assert checklist.agent_rows[0].key != checklist.agent_rows[1].key


def test_own_item_ticks_between_todo_and_done() -> None:
    assert toggle_own("todo") == "done"
    assert toggle_own("done") == "todo"
    assert toggle_own("doing") == "done"
