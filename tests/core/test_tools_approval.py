"""docs/store.md, Approvals: requireApproval, the user directory's task:approve grant, and
every tool acting as always without a directory."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from planwatch.core.settings import Settings
from planwatch.core.store import grants
from planwatch.core.store.identity import Caller, caller_from_env
from planwatch.core.store.store import Store
from planwatch.core.store.tool_refusals import ToolRefused
from planwatch.core.store.tools import run_tool
from planwatch.core.user_directory import UserDirectory, UserEntry


def token(secret: str) -> str:
    return "sha256:" + hashlib.sha256(secret.encode()).hexdigest()


DIRECTORY = UserDirectory(
    roles={"release": ["task:approve"], "member": ["task:write"], "none": []},
    users={
        "lena": UserEntry(token=token("lena-secret"), roles=["lead"]),
        "max": UserEntry(token=token("max-secret"), roles=["member"]),
        "rita": UserEntry(token=token("rita-secret"), roles=["release"]),
        "vic": UserEntry(token=token("vic-secret"), roles=["viewer"]),
        "zed": UserEntry(token=token("zed-secret"), roles=["none"]),
    },
)


@pytest.fixture
def store(tmp_path: Path) -> Store:
    store = Store(tmp_path / "store")
    run_tool("plan_create", store, Settings(), Caller(by="dana"), {"title": "Plan"})
    run_tool("task_add", store, Settings(), Caller(by="dana"), {"title": "Task", "plan": "p1"})
    return store


def caller(settings: Settings, secret: str | None) -> Caller:
    env = {"PLANWATCH_TOKEN": secret} if secret else {}
    return caller_from_env(settings, env)


def test_require_approval_refuses_doing_until_approved(store: Store) -> None:
    settings = Settings(require_approval=True)
    dana = Caller(by="dana")
    with pytest.raises(ToolRefused) as refused:
        run_tool("task_set", store, settings, dana, {"task": "t1", "status": "doing"})
    assert refused.value.message == (
        "Invalid task_set input: status doing needs t1 approved first (requireApproval is on; see task_approve)."
    )
    task = store.read_task("t1")
    assert task is not None and task.status == "todo" and task.started is None
    # Other moves are fine without approval.
    assert run_tool("task_set", store, settings, dana, {"task": "t1", "status": "blocked"}).lines == [
        "t1 blocked medium Task"
    ]
    run_tool("task_approve", store, settings, dana, {"task": "t1"})
    assert run_tool("task_set", store, settings, dana, {"task": "t1", "status": "doing"}).lines == [
        "t1 doing medium Task"
    ]


def test_require_approval_cannot_be_skipped_by_adding_a_task_as_doing(store: Store) -> None:
    """A new task is always todo (docs/store.md, The tools): task_add takes no status, so no task is born doing."""
    with pytest.raises(
        ToolRefused,
        match=r"^Invalid task_add input: status is not an input: a new task is always todo \(change it with task_set\)\.$",
    ):
        run_tool(
            "task_add", store, Settings(require_approval=True), Caller(by="dana"), {"title": "Eager", "status": "doing"}
        )
    assert store.read_task("t2") is None


def test_without_require_approval_doing_needs_nothing(store: Store) -> None:
    assert run_tool("task_set", store, Settings(), Caller(by="dana"), {"task": "t1", "status": "doing"}).lines == [
        "t1 doing medium Task"
    ]


def test_without_a_user_directory_anyone_approves(store: Store) -> None:
    settings = Settings()
    anyone = caller(settings, None)
    assert run_tool("task_approve", store, settings, anyone, {"task": "t1"}).lines == ["t1 todo medium Task"]
    assert run_tool("plan_approve", store, settings, anyone, {"plan": "p1"}).lines == ["p1 draft Plan"]


@pytest.mark.parametrize(("secret", "allowed"), [
    ("lena-secret", True),   # built-in lead
    ("rita-secret", True),   # configured role granting task:approve
    ("max-secret", False),   # member: no task:approve, even with extra grants configured
    ("vic-secret", False),   # viewer
    ("wrong-secret", False),  # a token nobody holds
    (None, False),           # a call nobody sent holds no grant
])  # fmt: skip
def test_under_a_directory_approving_needs_the_task_approve_grant(
    store: Store, secret: str | None, allowed: bool
) -> None:
    settings = Settings(users=DIRECTORY)
    who = caller(settings, secret)
    for tool, record_id in (("task_approve", "t1"), ("plan_approve", "p1")):
        if allowed:
            run_tool(tool, store, settings, who, {tool.split("_")[0]: record_id})
        else:
            with pytest.raises(ToolRefused) as refused:
                run_tool(tool, store, settings, who, {tool.split("_")[0]: record_id})
            assert refused.value.message.startswith(f"Refused {tool}: approving needs the task:approve grant")
    task, plan = store.read_task("t1"), store.read_plan("p1")
    assert task is not None and plan is not None
    if allowed:
        assert task.approved is not None and task.approved.by == who.by == who.user
        assert plan.approved is not None and plan.approved.by == who.user
    else:
        assert task.approved is None and plan.approved is None


def test_under_a_directory_review_needs_no_grant(store: Store) -> None:
    settings = Settings(users=DIRECTORY, owner="host-owner")
    nobody = caller(settings, None)
    assert run_tool("task_review", store, settings, nobody, {"task": "t1", "verdict": "approved"}).lines == [
        "t1 todo medium Task"
    ]
    task = store.read_task("t1")
    assert task is not None and task.reviewed is not None and task.reviewed.by == "host-owner"


def test_under_a_directory_the_writing_tools_act_as_always(store: Store) -> None:
    settings = Settings(users=DIRECTORY)
    nobody = caller(settings, None)
    assert run_tool("task_add", store, settings, nobody, {"title": "Second"}).lines == ["t2 todo medium Second"]
    assert run_tool("task_set", store, settings, nobody, {"task": "t2", "status": "done"}).lines == [
        "t2 done medium Second"
    ]
    vic = caller(settings, "vic-secret")  # a viewer reads
    assert run_tool("task_list", store, settings, vic, {}).lines == ["t1 todo medium Task", "t2 done medium Second"]


@pytest.mark.parametrize(("tool", "args"), [("task_list", {}), ("plan_list", {}), ("plan_show", {"plan": "p1"})])
@pytest.mark.parametrize("secret", [None, "nobody-secret", "zed-secret"])
def test_under_a_directory_the_tools_that_read_need_the_session_read_grant(
    store: Store, tool: str, args: dict[str, str], secret: str | None
) -> None:
    """What a caller may not subscribe to (x-ahpd-plans://p1), it may not list or show."""
    settings = Settings(users=DIRECTORY)
    with pytest.raises(ToolRefused) as refused:
        run_tool(tool, store, settings, caller(settings, secret), args)
    assert refused.value.message.startswith(
        f"Refused {tool}: reading plans and tasks needs the session:read grant, which "
    )
    assert "Task" not in refused.value.message and "Plan" not in refused.value.message
    assert run_tool(tool, store, settings, caller(settings, "max-secret"), args).lines  # a member reads


def test_every_built_in_role_holds_session_read() -> None:
    settings = Settings(users=DIRECTORY)
    roles = grants.role_grants(settings)
    for role in grants.BUILTIN_ROLES:
        assert grants.SESSION_READ in roles[role]
    assert roles["member"] == {"session:read", "task:write"}  # configured grants merge in
    for user in ("lena", "max", "rita", "vic"):
        held = grants.holds(settings, Caller(by=user, user=user), grants.SESSION_READ)
        assert held  # rita's only role, the configured "release", approves: an approver reads what she approves
    assert not grants.holds(settings, Caller(by="x"), grants.SESSION_READ)
    assert grants.holds(Settings(), Caller(by="x"), grants.SESSION_READ)  # no directory
