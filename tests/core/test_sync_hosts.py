"""Sharing the store through git: hosts as real processes against a real bare remote."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.sync_hosts import ROOT, Host, bare_remote


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    return bare_remote(tmp_path / "remote.git")


def hosts(tmp_path: Path, *names: str) -> list[Host]:
    return [Host(tmp_path / name, name) for name in names]


def test_two_hosts_converge_to_byte_identical_stores(tmp_path: Path, remote: Path) -> None:
    a, b = hosts(tmp_path, "a", "b")
    a.ok("task", "add", "Write the report")
    a.ok("plan", "create", "Release", "--goal", "Ship 2.0")
    a.ok("sync", "init", str(remote), "--host", "a")
    b.ok("sync", "join", str(remote), "--host", "b")
    assert b.files() == a.files()
    b.ok("task", "add", "Review the report", "--blocked-by", "t1", "--plan", "p1")
    a.ok("task", "set", "t1", "--status", "doing", "--note", "drafting")
    for host in (b, a, b):
        assert host.ok("sync").startswith("sync: ")
    assert a.files() == b.files()
    assert "status: doing" in b.task_text("t1")
    listed = a.ok("task", "list")
    assert "Review the report" in listed


def test_join_keeps_local_records_renumbered_only_where_they_clash(tmp_path: Path, remote: Path) -> None:
    a, b = hosts(tmp_path, "a", "b")
    a.ok("task", "add", "From a")
    a.ok("sync", "init", str(remote), "--host", "a")
    b.ok("task", "add", "Local on b")
    b.ok("task", "add", "Blocked by the local one", "--blocked-by", "t1")
    line = b.ok("sync", "join", str(remote), "--host", "b")
    assert "renumbered t1→" in line
    moved = line.split("renumbered t1→")[1].split(",")[0].strip()
    assert a.ok("sync") and b.ok("sync")
    assert a.files() == b.files()
    titles = {json.loads(a.ok("task", "list", "--json"))[i]["title"] for i in range(3)}
    assert titles == {"From a", "Local on b", "Blocked by the local one"}
    blocked = [t for t in json.loads(b.ok("task", "list", "--json")) if t["title"] == "Blocked by the local one"]
    assert blocked[0]["blockedBy"] == [moved]  # the reference followed the renumbering
    assert "title: From a" in a.task_text("t1")


def test_a_sync_that_cannot_reach_the_remote_exits_3_and_the_store_works_as_before(
    tmp_path: Path, remote: Path
) -> None:
    (a,) = hosts(tmp_path, "a")
    a.ok("sync", "init", str(remote), "--host", "a")
    remote.rename(tmp_path / "away.git")
    a.ok("task", "add", "Written offline")
    out = a.run("sync")
    assert out.returncode == 3
    assert "could not reach the remote" in out.stdout
    assert "Written offline" in a.ok("task", "list")
    (tmp_path / "away.git").rename(remote)
    assert a.run("sync").returncode == 0
    log = subprocess.run(
        ["git", "--git-dir", str(remote), "show", "refs/planwatch/log/a:ops.jsonl"], capture_output=True, text=True
    )
    assert "Written offline" in log.stdout


def test_ids_minted_offline_past_the_range_are_renumbered_with_their_references_and_the_session_is_told(
    tmp_path: Path, remote: Path
) -> None:
    a, b = hosts(tmp_path, "a", "b")
    a.ok("sync", "init", str(remote), "--host", "a", "--range", "2")
    b.ok("sync", "join", str(remote), "--host", "b", "--range", "2")
    # a uses its range up and goes on offline: the next ids are provisional
    a.ok("task", "add", "One")
    a.ok("task", "add", "Two")
    remote.rename(tmp_path / "away.git")
    told = a.ok("task", "add", "Made offline", session="sess-1").split()[0]
    a.ok("task", "add", "Waits for it", "--blocked-by", told)
    # meanwhile b claims the next ids and uses them
    (tmp_path / "away.git").rename(remote)
    b.ok("sync")
    b.ok("task", "add", "b's own")
    b.ok("task", "add", "b's second")
    b.ok("sync")
    line = a.ok("sync")
    assert f"renumbered {told}→" in line
    new = line.split(f"renumbered {told}→")[1].split(",")[0].strip()
    assert new != told
    b.ok("sync")
    a.ok("sync")
    assert a.files() == b.files()
    ids = [t["id"] for t in json.loads(a.ok("task", "list", "--json"))]
    assert len(ids) == len(set(ids)) == 6
    waits = next(t for t in json.loads(b.ok("task", "list", "--json")) if t["title"] == "Waits for it")
    assert waits["blockedBy"] == [new]
    # the session that was told the old id still reaches its record, and hears the new id
    out = a.run("task", "set", told, "--note", "still mine", session="sess-1")
    assert out.returncode == 0, out.stderr
    assert f"{told} is now {new}" in out.stderr
    assert "note: still mine" in a.task_text(new)
    # any other caller's old id is the record that holds it now
    assert "note: still mine" not in (a.task_text(told) if (a.store / "tasks" / f"{told}.md").exists() else "")


def test_the_session_told_the_old_ids_reaches_them_in_every_reference_it_makes(tmp_path: Path, remote: Path) -> None:
    # a plan and a task minted offline past the range (provisional), in one session; after
    # the sync renumbered them, that session's calls name them by the old ids everywhere
    # an id goes (the record acted on, plan, blockedBy) and are told the new ones
    a, b = hosts(tmp_path, "a", "b")
    a.ok("sync", "init", str(remote), "--host", "a", "--range", "1")
    b.ok("sync", "join", str(remote), "--host", "b", "--range", "1")
    a.ok("task", "add", "In the range")
    for n in range(8):  # a host's plan range is 8 ids
        a.ok("plan", "create", f"In the range {n}", "--scope", "folder:/srv")
    remote.rename(tmp_path / "away.git")
    plan = a.ok("plan", "create", "Made offline", "--scope", "folder:/srv", session="sess-9").split()[0]
    task = a.ok("task", "add", "Made offline", session="sess-9").split()[0]
    (tmp_path / "away.git").rename(remote)
    b.ok("sync")
    b.ok("task", "add", "b takes the next task id")
    b.ok("plan", "create", "b takes the next plan id", "--scope", "folder:/srv")
    b.ok("sync")
    line = a.ok("sync")
    assert f"{plan}→" in line and f"{task}→" in line, (plan, task, line)
    new_plan = line.split(f"{plan}→")[1].split(",")[0].strip()
    new_task = line.split(f"{task}→")[1].split(",")[0].strip()
    assert new_plan != plan and new_task != task
    out = a.run("task", "add", "Follows it", "--plan", plan, "--blocked-by", task, session="sess-9")
    assert out.returncode == 0, out.stderr
    assert f"{plan} is now {new_plan}" in out.stderr and f"{task} is now {new_task}" in out.stderr
    follows = next(t for t in json.loads(a.ok("task", "list", "--json")) if t["title"] == "Follows it")
    assert follows["plan"] == new_plan and follows["blockedBy"] == [new_task]
    listed = a.run("task", "list", "--plan", plan, "--json", session="sess-9")
    assert [t["title"] for t in json.loads(listed.stdout)] == ["Follows it"]
    # another session's old ids are the records that hold those numbers now
    out = a.run("task", "list", "--plan", plan, session="sess-other")
    assert "is now" not in out.stdout + out.stderr  # the number as it is now, not the alias
    assert "Follows it" not in out.stdout
    a.ok("sync")
    b.ok("sync")
    assert a.files() == b.files()


def test_a_hand_edit_saved_over_a_newer_version_changes_only_what_the_person_changed(
    tmp_path: Path, remote: Path
) -> None:
    a, b = hosts(tmp_path, "a", "b")
    a.ok("task", "add", "Shared task", "--note", "old note")
    a.ok("sync", "init", str(remote), "--host", "a")
    b.ok("sync", "join", str(remote), "--host", "b")
    loaded = b.task_text("t1")  # the person's editor loads this version
    a.ok("task", "set", "t1", "--note", "new note from a")
    a.ok("sync")
    b.ok("sync")
    assert "new note from a" in b.task_text("t1")
    # their editor saves the version it loaded, with the title changed
    (b.store / "tasks" / "t1.md").write_text(loaded.replace("title: Shared task", "title: Retitled by hand"))
    b.ok("sync")
    a.ok("sync")
    for host in (a, b):
        text = host.task_text("t1")
        assert "title: Retitled by hand" in text
        assert "note: new note from a" in text  # the remote change they never touched stays
    assert a.files() == b.files()


def test_an_invalid_file_is_reported_and_never_overwritten_until_it_parses(tmp_path: Path, remote: Path) -> None:
    a, b = hosts(tmp_path, "a", "b")
    a.ok("task", "add", "Shared task")
    a.ok("sync", "init", str(remote), "--host", "a")
    b.ok("sync", "join", str(remote), "--host", "b")
    broken = "---\ntitle: [unclosed\n---\n"
    (b.store / "tasks" / "t1.md").write_text(broken)
    a.ok("task", "set", "t1", "--note", "changed on a")
    a.ok("sync")
    out = b.run("sync")
    assert out.returncode == 0
    assert "tasks/t1.md" in out.stderr and "never overwritten" in out.stderr
    assert b.task_text("t1") == broken
    (b.store / "tasks" / "t1.md").write_text(a.task_text("t1").replace("Shared task", "Fixed by hand"))
    b.ok("sync")
    a.ok("sync")
    assert "title: Fixed by hand" in a.task_text("t1")
    assert a.files() == b.files()


def test_session_plans_kept_in_the_store_stay_on_their_host_unless_shared(tmp_path: Path, remote: Path) -> None:
    a, b = hosts(tmp_path, "a", "b")
    a.ok("sync", "init", str(remote), "--host", "a")
    b.ok("sync", "join", str(remote), "--host", "b")
    a.ok("plan", "create", "Session plan", "--scope", "session:sess-9")
    a.ok("plan", "create", "Team plan", "--scope", "folder:/srv")
    a.ok("sync")
    b.ok("sync")
    titles = b.ok("plan", "list")
    assert "Team plan" in titles and "Session plan" not in titles
    pushed = subprocess.run(
        ["git", "--git-dir", str(remote), "show", "refs/planwatch/log/a:ops.jsonl"], capture_output=True, text=True
    ).stdout
    assert "Session plan" not in pushed and "sess-9" not in pushed
    assert "Session plan" in a.ok("plan", "list")


def test_sync_status_names_hosts_and_what_is_held_back(tmp_path: Path, remote: Path) -> None:
    a, b = hosts(tmp_path, "a", "b")
    a.ok("sync", "init", str(remote), "--host", "a")
    b.ok("sync", "join", str(remote), "--host", "b")
    a.ok("sync")
    status = json.loads(a.ok("sync", "--status", "--json"))
    assert status["host"] == "a" and set(status["hosts"]) == {"a", "b"}
    assert status["last"]["reached"] is True
    text = a.ok("sync", "--status")
    assert "host a" in text and "last sync:" in text


def test_a_store_that_is_not_shared_says_how_to_share_it(tmp_path: Path) -> None:
    (a,) = hosts(tmp_path, "a")
    out = a.run("sync")
    assert out.returncode == 1
    assert "planwatch sync init" in out.stderr


def test_text_naming_a_provisional_id_is_rewritten_at_renumbering_whole_words_only(
    tmp_path: Path, remote: Path
) -> None:
    a, b = hosts(tmp_path, "a", "b")
    a.ok("sync", "init", str(remote), "--host", "a", "--range", "2")
    b.ok("sync", "join", str(remote), "--host", "b", "--range", "2")
    first = a.ok("task", "add", "One").split()[0]
    a.ok("task", "add", "Two")
    remote.rename(tmp_path / "away.git")
    told = a.ok("task", "add", "Made offline").split()[0]
    text = f"After {told} lands (not {told}0, not x{told})"
    a.ok("task", "add", f"Follow up on {told}", "--body", text)
    a.ok("task", "set", first, "--title", f"One, then {told}")  # a record whose id is final
    kept = a.ok("task", "add", f"Approved as {told}").split()[0]
    a.ok("task", "approve", kept)  # an approval binds the text word for word: it stays as approved
    (tmp_path / "away.git").rename(remote)
    b.ok("sync")
    b.ok("task", "add", "b's own")
    b.ok("task", "add", "b's second")
    b.ok("sync")  # b's ids now hold the number a minted offline
    line = a.ok("sync")
    new = line.split(f"renumbered {told}→")[1].split(",")[0].strip()
    b.ok("sync")
    a.ok("sync")
    assert a.files() == b.files()
    tasks = {t["title"]: t for t in json.loads(b.ok("task", "list", "--json"))}
    renamed = next(t for title, t in tasks.items() if title.startswith("Follow up"))
    assert renamed["title"] == f"Follow up on {new}"
    assert f"After {new} lands (not {told}0, not x{told})" in b.task_text(renamed["id"])
    assert f"One, then {new}" in tasks
    assert f"Approved as {told}" in tasks
    # the old number was never published in their text: every log line names the new id
    logs = subprocess.run(
        ["git", "--git-dir", str(remote), "log", "-p", "--format=", "refs/planwatch/log/a"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert f'on {told}"' not in logs and f"then {told}" not in logs and f"on {new}" in logs


def test_a_task_in_a_session_plan_stays_on_its_host_and_no_host_holds_a_dangling_reference(
    tmp_path: Path, remote: Path
) -> None:
    a, b = hosts(tmp_path, "a", "b")
    a.ok("sync", "init", str(remote), "--host", "a")
    b.ok("sync", "join", str(remote), "--host", "b")
    private = a.ok("plan", "create", "Session plan", "--scope", "session:sess-9").split()[0]
    in_plan = a.ok("task", "add", "Step of the session plan", "--plan", private).split()[0]
    public = a.ok("task", "add", "Team task").split()[0]
    a.ok("sync")
    a.ok("task", "set", public, "--plan", private)  # a published task linked to it later
    blocked = a.ok("task", "add", "Waits for the step", "--blocked-by", in_plan).split()[0]
    for host in (a, b):
        host.ok("sync")
    on_b = {t["id"]: t for t in json.loads(b.ok("task", "list", "--json"))}
    assert set(on_b) == {public}, on_b  # the plan's task, and the task blocked by it, stay on a
    assert on_b[public].get("plan") in (None, "")  # the link stays on a; nothing dangles on b
    pushed = subprocess.run(
        ["git", "--git-dir", str(remote), "show", "refs/planwatch/log/a:ops.jsonl"], capture_output=True, text=True
    ).stdout
    assert "Step of the session plan" not in pushed and "Waits for the step" not in pushed
    assert f'"{private}"' not in pushed
    # nothing is lost on a: the records and their links are as written
    on_a = {t["id"]: t for t in json.loads(a.ok("task", "list", "--json"))}
    assert on_a[in_plan]["plan"] == private and on_a[public]["plan"] == private
    assert on_a[blocked]["blockedBy"] == [in_plan]


def test_sync_status_shows_contested_values_only_to_a_reader(tmp_path: Path, remote: Path) -> None:
    seed = (Path(__file__).resolve().parents[2] / "fixtures" / "config" / "seed-directory.yaml").read_text()
    a, b = hosts(tmp_path, "a", "b")
    a.ok("task", "add", "Write the report")
    a.ok("sync", "init", str(remote), "--host", "a")
    b.ok("sync", "join", str(remote), "--host", "b")
    a.ok("task", "set", "t1", "--note", "secret note from a")
    b.ok("task", "set", "t1", "--note", "secret note from b")
    a.ok("sync")
    b.ok("sync")
    a.ok("sync")
    seen = json.loads(a.ok("sync", "--status", "--json"))["contested"]
    assert [(c["id"], c["field"]) for c in seen] == [("t1", "note")]
    a.settings.write_text(seed)  # a user directory: a call with no token reads nothing
    for flag in ((), ("--json",)):
        out = a.run("sync", "--status", *flag)
        assert out.returncode == 0, out.stderr
        assert "secret note" not in out.stdout
        assert out.stderr == (
            "Refused planwatch sync --status: showing contested values needs the session:read grant, which a "
            "call with no user token does not hold. The contests are named without their values.\n"
        )
    assert "contested t1 note\n" in a.run("sync", "--status").stdout
    assert json.loads(a.run("sync", "--status", "--json").stdout)["contested"] == [{"id": "t1", "field": "note"}]
    a.env_extra["PLANWATCH_TOKEN"] = "ana-secret"
    shown = a.run("sync", "--status")
    assert "secret note from" in shown.stdout and shown.stderr == ""


@pytest.mark.parametrize("argv", [("sync", "--status"), ("sync", "--status", "--json"), ("sync",)])
def test_sync_into_a_pipe_its_reader_closed_exits_0_and_says_nothing(
    tmp_path: Path, remote: Path, argv: tuple[str, ...]
) -> None:
    """`planwatch sync --status | head` (or `| true`): a reader that stopped reading is no
    error, as for every other command (it was exit 1 and "[Errno 32] Broken pipe")."""
    (a,) = hosts(tmp_path, "a")
    a.ok("sync", "init", str(remote), "--host", "a")
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the first line
    try:
        out = subprocess.run(
            [sys.executable, "-m", "planwatch.tui.cli", *argv],
            cwd=ROOT,
            env=a.env(),
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    finally:
        os.close(write_end)
    assert (out.returncode, out.stderr) == (0, "")


def test_sync_status_says_how_far_behind_each_host_is_and_when_it_last_pushed(tmp_path: Path, remote: Path) -> None:
    a, b = hosts(tmp_path, "a", "b")
    a.ok("sync", "init", str(remote), "--host", "a")
    b.ok("sync", "join", str(remote), "--host", "b")
    b.ok("task", "add", "First from b")
    b.ok("task", "add", "Second from b")
    b.ok("sync")
    status = json.loads(a.ok("sync", "--status", "--json"))
    assert status["reached"] is True
    on_b = status["hosts"]["b"]
    assert (on_b["behind"], on_b["changes"], on_b["taken"]) == (2, 2, False)
    assert on_b["pushedAt"].startswith("20")
    assert "b: this store is 2 changes behind it" in a.ok("sync", "--status")
    a.ok("sync")
    assert "b: up to date · last pushed " in a.ok("sync", "--status")
    # this host's own changes that wait, said while the remote cannot be reached
    remote.rename(tmp_path / "away.git")
    a.ok("task", "add", "Written offline")
    assert a.run("sync").returncode == 3
    text = a.ok("sync", "--status")
    assert "a (this host): 1 change not yet pushed" in text
    assert "remote not reached (" in text


def test_sync_status_shows_what_other_hosts_wrote_only_as_safe_text(tmp_path: Path, remote: Path) -> None:
    # A host name is whatever a team member (or a broken remote) put in the shared ids
    # document: a terminal escape there must reach the terminal as text, never as a command.
    (a,) = hosts(tmp_path, "a")
    a.ok("sync", "init", str(remote), "--host", "a")

    def git(*args: str, data: str | None = None) -> str:
        return subprocess.run(
            ["git", "--git-dir", str(remote), *args], input=data, capture_output=True, text=True, check=True
        ).stdout.strip()

    tip = git("rev-parse", "refs/planwatch/ids")
    doc = json.loads(git("show", f"{tip}:ids.json"))
    doc["ranges"].append(["\x1b]0;owned\x07evil\u202e", "t", 900, 999])
    blob = git("hash-object", "-w", "--stdin", data=json.dumps(doc))
    tree = git("mktree", data=f"100644 blob {blob}\tids.json\n")
    commit = git("-c", "user.name=x", "-c", "user.email=x@x", "commit-tree", tree, "-p", tip, "-m", "a forged range")
    git("update-ref", "refs/planwatch/ids", commit, tip)
    text = a.ok("sync", "--status")
    assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
    assert "\\x1b]0;owned\\x07evil\\u202e" in text  # shown, as its escapes
    raw = a.ok("sync", "--status", "--json")
    assert "\x1b" not in raw and "\u202e" not in raw
    assert any("owned" in host for host in json.loads(raw)["hosts"])


def test_a_record_file_this_host_cannot_read_is_never_replaced_by_a_sync(tmp_path: Path, remote: Path) -> None:
    a, b = hosts(tmp_path, "a", "b")
    a.ok("task", "add", "Write the report")
    a.ok("sync", "init", str(remote), "--host", "a")
    b.ok("sync", "join", str(remote), "--host", "b")
    b.ok("task", "set", "t1", "--status", "doing")
    b.ok("sync")
    path = a.store / "tasks" / "t1.md"
    path.unlink()
    os.mkfifo(path)  # what a's person (or a broken disk) left where the record was
    out = a.run("sync")
    assert "t1.md is not a record file this host can read; not overwritten" in out.stdout + out.stderr
    assert path.is_fifo()
    b.ok("sync")
    assert "status: doing" in b.task_text("t1")  # and nothing of it lost elsewhere


def test_a_remote_that_looks_like_an_option_is_a_name_never_an_option_that_runs(tmp_path: Path) -> None:
    """`sync init "--upload-pack=touch X"`: git is given the remote after `--`, so it is
    a remote's name (none such: a clear refusal), never an option running a command."""
    a = Host(tmp_path / "a", "a")
    a.ok("task", "add", "Keep me")
    pwned = tmp_path / "PWNED"
    out = a.run("sync", "init", f"--upload-pack=touch {pwned}", "--host", "a")
    assert out.returncode != 0 and "a bug" not in out.stderr, out.stderr
    assert not pwned.exists()
    assert a.ok("task", "list").splitlines() == ["t1 todo medium Keep me"]


def test_a_task_added_while_a_pass_pushes_is_a_record_of_its_own_and_loses_none(tmp_path: Path) -> None:
    """A adds a task while its sync pass is pushing (the app's, `planwatch mcp`'s or
    `channel`'s passes run while agents add tasks), under the id B's task, merged in
    by that pass, takes here. The file is a record of its own (renumbered by the next
    pass), never an edit of B's: both tasks are there on both hosts. (B's task was
    lost: the pass remembered the file as B's record before finding it not its render.)
    A git on PATH holds the push until the test has added the task."""
    import shutil
    import time

    remote = bare_remote(tmp_path / "remote.git")
    pushing, go = tmp_path / "pushing", tmp_path / "go"
    shim = tmp_path / "shim"
    shim.mkdir()
    real_git = shutil.which("git")
    (shim / "git").write_text(
        "#!/bin/sh\n"
        f'for a in "$@"; do if [ "$a" = push ] && [ ! -e {go} ]; then : > {pushing}; '
        f"while [ ! -e {go} ]; do sleep 0.05; done; break; fi; done\n"
        f'exec {real_git} "$@"\n'
    )
    (shim / "git").chmod(0o755)
    a = Host(tmp_path / "a", "a", env_extra={"PATH": f"{shim}:{os.environ['PATH']}"})
    b = Host(tmp_path / "b", "b", owner="bo")
    go.touch()  # no holding while the hosts are set up
    a.ok("sync", "init", str(remote), "--host", "a", "--range", "4")
    b.ok("sync", "join", str(remote), "--host", "b", "--range", "4")
    for n in range(1, 5):
        a.ok("task", "add", f"A {n}")
    b.ok("task", "add", "B's task")
    b.ok("sync")
    go.unlink()
    held = a.started("sync")
    try:
        deadline = time.monotonic() + 60
        while not pushing.exists():  # the pass has merged B's task and is pushing
            assert held.poll() is None and time.monotonic() < deadline, held.communicate()
            time.sleep(0.02)
        a.ok("task", "add", "A added during the pass")
    finally:
        go.touch()
        held.communicate(timeout=60)
    for host in (a, b, a):
        host.ok("sync")
    for host in (a, b):
        titles = sorted(line.split(None, 3)[3] for line in host.ok("task", "list").splitlines())
        assert titles == ["A 1", "A 2", "A 3", "A 4", "A added during the pass", "B's task"], host.name


@pytest.mark.parametrize("how", ["init", "join"])
def test_an_init_or_join_that_never_reached_its_remote_leaves_the_store_unshared(tmp_path: Path, how: str) -> None:
    """A mistyped remote: the command says it could not reach it, and the store is as it
    was (a pass says it is not shared), so the corrected init keeps every record's id
    (it renumbered them: the failed one had already made the store a replica)."""
    a = Host(tmp_path / "a", "a")
    a.ok("task", "add", "Keep my id")
    out = a.run("sync", how, str(tmp_path / "typo.git"), "--host", "a")
    assert out.returncode == 1 and "Could not reach" in out.stderr, out.stderr
    assert "not shared" in a.run("sync").stderr
    remote = bare_remote(tmp_path / "remote.git")
    a.ok("sync", "init", str(remote), "--host", "a")
    assert a.ok("task", "list").splitlines() == ["t1 todo medium Keep my id"]


def test_two_hosts_edits_merged_past_a_records_size_are_said_and_never_written(tmp_path: Path) -> None:
    """Two hosts each write about 600 KB into a task's body, in different places: their
    merge would be larger than a record may be (no host could read it back). It is said
    on each pass, each host keeps the file it has, and the other records go on."""
    remote = bare_remote(tmp_path / "remote.git")
    a, b = Host(tmp_path / "a", "a"), Host(tmp_path / "b", "b", owner="bo")
    a.ok("task", "add", "Shared", "--body", "A\nm1\nm2\nm3\nB\n")
    a.ok("sync", "init", str(remote), "--host", "a")
    b.ok("sync", "join", str(remote), "--host", "b")
    for host, body in ((a, "a" * 99 + "\n"), (b, "b" * 99 + "\n")):
        text = host.task_text("t1")
        front, _, old = text.partition("\n---\n")
        new = body * 6000 + old[old.index("m1") :] if host is a else old[: old.index("m3") + 3] + "\n" + body * 6000
        (host.store / "tasks" / "t1.md").write_text(front + "\n---\n" + new)
    for host in (a, b, a):
        out = host.run("sync")
        assert out.returncode == 0 and "a bug" not in out.stderr, out.stderr
    assert "larger than 1000000 bytes; left as it is" in out.stderr
    for host in (a, b):
        assert "t1 todo medium Shared" in host.ok("task", "list")  # still a record both can read


def test_a_body_two_hosts_edited_on_the_same_line_is_said_merged_with_the_lines_left_out(
    tmp_path: Path, remote: Path
) -> None:
    """Both hosts change the same line of a task's body: the merge keeps one and lists
    the other's line; `sync --status` says so in words (it said "kept None")."""
    a, b = hosts(tmp_path, "a", "b")
    a.ok("task", "add", "Shared", "--body", "line1\nline2\nline3")
    a.ok("sync", "init", str(remote), "--host", "a")
    b.ok("sync", "join", str(remote), "--host", "b")
    a.ok("task", "set", "t1", "--body", "line1 A\nline2\nline3")
    b.ok("task", "set", "t1", "--body", "line1 B\nline2\nline3")
    for host in (a, b, a):
        host.ok("sync")
    status = a.ok("sync", "--status")
    assert "kept None" not in status
    [line] = [line for line in status.splitlines() if line.startswith("contested t1 body")]
    assert line.startswith("contested t1 body: both edits merged; lines one host wrote that could not be: ")
    assert "line1 A" in line or "line1 B" in line
