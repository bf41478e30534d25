"""docs/store.md record store: files, frontmatter, atomic writes, ids, hand edits."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from planwatch.core import paths
from planwatch.core.settings import Settings
from planwatch.core.store.errors import RecordMissing, StoreError
from planwatch.core.store.recordfile import (
    MAX_RECORD_BYTES,
    RecordProblem,
    parse_plan_file,
    parse_record_file,
    parse_task_file,
)
from planwatch.core.store.schema import PlanRecord, Scope, Source, Stamp, TaskRecord
from planwatch.core.store.store import Store

ROOT = Path(__file__).resolve().parents[2]
AT = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


def stamp(by: str = "dana") -> Stamp:
    return Stamp.model_validate({"at": AT, "by": by, "in": "sess-1"})


def new_task(store: Store, title: str = "Write the parser", **fields: object) -> TaskRecord:
    return store.add_task(lambda i: TaskRecord(id=i, title=title, created=stamp(), **fields))


def test_store_location_env_wins_over_setting_over_xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLANWATCH_STORE", str(tmp_path / "env"))
    assert paths.store_dir(str(tmp_path / "setting")) == tmp_path / "env"
    monkeypatch.delenv("PLANWATCH_STORE")
    assert paths.store_dir(str(tmp_path / "setting")) == tmp_path / "setting"
    monkeypatch.setenv("PLANWATCH_DATA", str(tmp_path / "data"))
    assert paths.store_dir(Settings().store) == tmp_path / "data" / "store"


@pytest.mark.skipif(sys.platform != "linux", reason="the XDG folders are the Linux layout")
def test_store_default_is_the_xdg_data_folder_planwatch_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # docs/store.md: default is the XDG data folder, `planwatch/store`; then the setting (read
    # from the config file), then PLANWATCH_STORE, each winning over the one before.
    from planwatch.core.settings import load_settings

    for name in ("PLANWATCH_STORE", "PLANWATCH_DATA"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    monkeypatch.setenv("PLANWATCH_CONFIG", str(tmp_path / "config.yaml"))
    assert paths.store_dir(load_settings().store) == tmp_path / "home" / ".local" / "share" / "planwatch" / "store"
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert paths.store_dir(load_settings().store) == tmp_path / "xdg" / "planwatch" / "store"
    (tmp_path / "config.yaml").write_text(f"store: {tmp_path / 'configured'}\n")
    assert paths.store_dir(load_settings().store) == tmp_path / "configured"
    monkeypatch.setenv("PLANWATCH_STORE", str(tmp_path / "env"))
    assert paths.store_dir(load_settings().store) == tmp_path / "env"


def test_task_file_is_frontmatter_then_body_in_product_field_order(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.add_plan(lambda i: PlanRecord(id=i, title="Ship", created=stamp()))
    rec = store.add_task(
        lambda i: TaskRecord(
            id=i,
            title="Write the parser",
            status="doing",
            priority="high",
            labels=("parser",),
            topic="io",
            plan="p1",
            bot="claude",
            folder="/srv/work",
            session="s-1",
            active="Writing the parser",
            note="careful",
            refs=("https://x.example",),
            source=Source(tool="TodoWrite", id="3"),
            created=stamp(),
            started=stamp(),
            body="Details here.\n",
        )
    )
    text = (tmp_path / "tasks" / "t1.md").read_text()
    assert text.startswith("---\nid: t1\ntitle: Write the parser\nstatus: doing\npriority: high\n")
    keys = [line.split(":")[0] for line in text.split("---\n")[1].splitlines() if line and not line.startswith(" ")]
    assert keys == ["id", "title", "status", "priority", "labels", "topic", "plan", "bot", "folder",
                    "session", "blockedBy", "active", "note", "refs", "source", "created", "started"]  # fmt: skip
    assert text.endswith("---\nDetails here.\n")
    # Empty lists are written as `[]`, as docs/store.md's records show them; other absent
    # optional fields are left out (this test pinned blockedBy as left out before).
    assert "approved" not in text and "blockedBy: []\n" in text
    assert store.read_task("t1") == rec


def test_plan_file_holds_scope_and_goal_as_body(tmp_path: Path) -> None:
    store = Store(tmp_path)
    plan = store.add_plan(
        lambda i: PlanRecord(
            id=i,
            title="Move the API",
            scope=Scope(kind="folder", value="/srv/api"),
            status="active",
            goal="Every endpoint on the new tables.\n",
            created=stamp(),
        )
    )
    text = (tmp_path / "plans" / "p1.md").read_text()
    assert text.startswith(
        "---\nid: p1\nscope:\n  kind: folder\n  folder: /srv/api\ntitle: Move the API\nstatus: active\n"
    )
    assert text.endswith("---\nEvery endpoint on the new tables.\n")
    assert store.read_plan("p1") == plan


def test_priority_reads_as_medium_where_absent(tmp_path: Path) -> None:
    (tmp_path / "tasks").mkdir()
    (tmp_path / "tasks" / "t1.md").write_text("---\nid: t1\ntitle: No priority\nstatus: todo\n---\n")
    rec = Store(tmp_path).read_task("t1")
    assert rec is not None and rec.priority == "medium"


def test_ids_count_up_and_are_never_reused_after_a_delete(tmp_path: Path) -> None:
    store = Store(tmp_path)
    ids = [new_task(store, f"task {n}").id for n in range(3)]
    assert ids == ["t1", "t2", "t3"]
    assert store.delete_task("t3")
    assert new_task(store).id == "t4"
    # Even with the counter file gone, the files on disk keep the count going.
    (tmp_path / ".ids").unlink()
    assert new_task(store).id == "t5"


def test_a_hand_written_record_with_a_higher_id_moves_the_count(tmp_path: Path) -> None:
    store = Store(tmp_path)
    new_task(store)
    (tmp_path / "tasks" / "t40.md").write_text("---\nid: t40\ntitle: Written by hand\n---\n")
    assert new_task(store).id == "t41"


def test_hand_edits_with_comments_survive_a_write(tmp_path: Path) -> None:
    store = Store(tmp_path)
    new_task(store, "Original title")
    path = tmp_path / "tasks" / "t1.md"
    text = path.read_text()
    text = text.replace("---\nid: t1\n", "---\n# Dana: ask Eli before starting\nid: t1\n", 1)
    text = text.replace("title: Original title\n", "title: Original title  # keep short\nowner-notes: see the wiki\n")
    path.write_text(text + "A body written by hand.\n")
    store.update_task("t1", lambda t: t.model_copy(update={"status": "doing", "labels": ("db",)}))
    after = path.read_text()
    assert "# Dana: ask Eli before starting\n" in after
    assert "title: Original title  # keep short\n" in after
    assert "owner-notes: see the wiki\n" in after  # unknown keys are kept
    assert "status: doing\n" in after and "labels: [db]\n" in after
    assert after.index("status:") < after.index("labels:") < after.index("created:")
    rec = store.read_task("t1")
    assert rec is not None and rec.extra == {"owner-notes": "see the wiki"}
    assert rec.body == "A body written by hand.\n"


def test_removing_a_field_removes_its_key_and_keeps_the_rest(tmp_path: Path) -> None:
    store = Store(tmp_path)
    new_task(store, note="temporary")
    store.update_task("t1", lambda t: t.model_copy(update={"note": None}))
    text = (tmp_path / "tasks" / "t1.md").read_text()
    assert "note:" not in text and "title: Write the parser" in text


def test_update_of_a_missing_task_raises_record_missing(tmp_path: Path) -> None:
    with pytest.raises(RecordMissing):
        Store(tmp_path).update_task("t9", lambda t: t)


def test_no_temp_files_are_left_behind(tmp_path: Path) -> None:
    store = Store(tmp_path)
    for n in range(5):
        new_task(store, f"t {n}")
        store.update_task("t1", lambda t, n=n: t.model_copy(update={"note": f"edit {n}"}))
    assert sorted(os.listdir(tmp_path / "tasks")) == [".ids", *(f"t{n}.md" for n in range(1, 6))]  # the id mark


def test_record_files_are_readable_by_others_like_any_file(tmp_path: Path) -> None:
    new_task(Store(tmp_path))
    mode = (tmp_path / "tasks" / "t1.md").stat().st_mode & 0o777
    umask = os.umask(0)
    os.umask(umask)
    assert mode == 0o666 & ~umask


def test_load_reuses_parsed_files_until_they_change(tmp_path: Path) -> None:
    store = Store(tmp_path)
    new_task(store, "first")
    first = store.load().tasks["t1"]
    assert store.load().tasks["t1"] is first  # cached
    store.update_task("t1", lambda t: t.model_copy(update={"title": "second"}))
    assert store.load().tasks["t1"].title == "second"
    (tmp_path / "tasks" / "t1.md").unlink()
    assert store.load().tasks == {}


def test_parse_functions_for_watchers(tmp_path: Path) -> None:
    store = Store(tmp_path)
    new_task(store)
    store.add_plan(lambda i: PlanRecord(id=i, title="Plan"))
    assert isinstance(parse_task_file(tmp_path / "tasks" / "t1.md"), TaskRecord)
    assert isinstance(parse_plan_file(tmp_path / "plans" / "p1.md"), PlanRecord)
    assert isinstance(parse_record_file(tmp_path / "plans" / "p1.md"), PlanRecord)
    assert parse_task_file(tmp_path / "tasks" / "t9.md") is None
    (tmp_path / "tasks" / "t2.md").write_text("---\nid: t2\ntitle: x\nstatus: nope\n---\n")
    problem = parse_task_file(tmp_path / "tasks" / "t2.md")
    assert isinstance(problem, RecordProblem)
    assert problem.message == "tasks/t2.md: status must be todo, doing, blocked, review, done, or dropped."


def test_oversized_record_is_refused_unread(tmp_path: Path) -> None:
    (tmp_path / "tasks").mkdir()
    path = tmp_path / "tasks" / "t1.md"
    path.write_text("---\nid: t1\ntitle: big\n---\n" + "x" * MAX_RECORD_BYTES)
    problem = parse_task_file(path)
    assert isinstance(problem, RecordProblem)
    assert "larger than" in problem.message


def test_a_failed_write_keeps_the_old_record_and_says_so(tmp_path: Path) -> None:
    """A write that hits the file-size limit (a real EFBIG, as a full disk would give
    ENOSPC) leaves the old record whole and names the file in a clear error."""
    store = Store(tmp_path)
    new_task(store, "Keep me")
    before = (tmp_path / "tasks" / "t1.md").read_bytes()
    script = (
        "import resource, signal, sys\n"
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (200, 200))\n"
        "from planwatch.core.store.store import Store, StoreError\n"
        f"s = Store({str(tmp_path)!r})\n"
        "try:\n"
        "    s.update_task('t1', lambda t: t.model_copy(update={'body': 'y' * 5000}))\n"
        "except StoreError as e:\n"
        "    print(e)\n"
        "    sys.exit(3)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.returncode == 3, out.stderr
    assert "tasks/t1.md" in out.stdout and "unchanged" in out.stdout
    assert (tmp_path / "tasks" / "t1.md").read_bytes() == before
    assert sorted(os.listdir(tmp_path / "tasks")) == [".ids", "t1.md"]


def test_a_full_disk_is_reported_as_a_full_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """ENOSPC cannot be produced on a shared test machine, so fsync reports it here."""
    store = Store(tmp_path)
    new_task(store, "Keep me")
    before = (tmp_path / "tasks" / "t1.md").read_bytes()
    real_fsync = os.fsync

    def full(fd: int) -> None:
        if os.fstat(fd).st_size > 0 and not os.path.isdir(f"/proc/self/fd/{fd}"):
            raise OSError(errno.ENOSPC, "No space left on device")
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(StoreError, match=r"tasks/t1.md: the disk is full; the record on disk is unchanged"):
        store.update_task("t1", lambda t: t.model_copy(update={"title": "Changed"}))
    monkeypatch.setattr(os, "fsync", real_fsync)
    assert (tmp_path / "tasks" / "t1.md").read_bytes() == before
    assert sorted(os.listdir(tmp_path / "tasks")) == [".ids", "t1.md"]


def test_lock_is_reentrant_within_a_thread(tmp_path: Path) -> None:
    store = Store(tmp_path)
    with store.lock(), store.lock():
        rec = new_task(store)
    assert rec.id == "t1"


def test_add_refuses_a_make_that_ignores_its_id(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        Store(tmp_path).add_task(lambda i: TaskRecord(id="t99", title="x"))


def _ruamel(front: str) -> object:
    from planwatch.core.store.frontmatter import safe_loader

    try:
        return ("ok", safe_loader().load(front))
    except Exception as exc:  # noqa: BLE001 - any refusal counts as "not valid"
        return ("error", type(exc).__name__)


def _fronts() -> list[str]:
    """Frontmatters to compare: every fixture, records the store writes with awkward
    titles, and hand-written lines of random text."""
    import random

    from planwatch.core.store.frontmatter import split_frontmatter
    from planwatch.core.store.record_render import render_record

    fronts: list[str] = []
    for path in sorted((ROOT / "fixtures").rglob("*.md")):
        try:
            fronts.append(split_frontmatter(path.read_bytes().decode("utf-8"))[0])
        except Exception:  # noqa: BLE001 - broken fixtures without frontmatter
            continue
    rng = random.Random(7)
    alphabet = "abc XYZ:#'\"[]{},&*!|>%@`-?./\\~0123456789\u00e9\u2028\x85\t_=<"
    words = [
        "yes",
        "No",
        "null",
        "true",
        "True",
        "NULL",
        "Off",
        "on",
        "y",
        "nan",
        "inf",
        ".inf",
        ".NaN",
        "e5",
        "_1",
        "~",
        "1e3",
        "0x1F",
        "2026-11-30",
        "2026-11-30 09:00:00+00:00",
        "a: b",
        "x #y",
        "- z",
        "'q'",
        "[a, b]",
    ]
    for n in range(600):
        raw = rng.choice(words) if n % 5 == 0 else "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 14)))
        fronts.append(f"id: t1\ntitle: {raw}\nstatus: todo\n")
        fronts.append(f"id: t1\nlabels: [{raw}, ok]\n")
        fronts.append(f"id: t1\ncreated:\n  at: 2026-11-30 09:00:00+00:00\n  by: {raw}\n")
        title = raw.replace("\t", " ").replace("\x85", " ").replace("\u2028", " ").strip() or "x"
        try:
            rec = TaskRecord(id="t1", title=title, labels=(title,), note=raw, created=stamp(title))
        except Exception:  # noqa: BLE001 - titles the model refuses are not written
            continue
        fronts.append(split_frontmatter(render_record(rec))[0])
    return fronts


def test_fast_frontmatter_reading_agrees_with_ruamel() -> None:
    """The fast path reads only the plain subset, and reads it exactly as YAML does."""
    from planwatch.core.store.frontmatter import fast_front
    from planwatch.core.store.record_render import plain_value

    fast_hits = 0
    for front in _fronts():
        fast = fast_front(front)
        if fast is None:
            continue
        fast_hits += 1
        kind, slow = _ruamel(front)
        assert kind == "ok", (front, slow)
        assert plain_value(fast) == plain_value(slow), front
    assert fast_hits > 200


def test_the_stores_own_files_take_the_fast_path() -> None:
    from planwatch.core.store.frontmatter import fast_front, split_frontmatter

    for path in sorted((ROOT / "fixtures" / "store" / "demo").rglob("*.md")):
        assert fast_front(split_frontmatter(path.read_text())[0]) is not None, path


def test_a_hand_written_field_named_extra_is_kept_like_any_unknown_field(tmp_path: Path) -> None:
    """Hand edits are welcome: a person's `extra:` key is an unknown field like any other,
    not a broken record ('body belongs below the frontmatter' named the wrong field)."""
    import shutil

    root = tmp_path / "store"
    shutil.copytree(ROOT / "fixtures" / "store" / "extra-key", root)

    def cli(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "planwatch.tui.cli", *argv, "--store", str(root)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
        )

    listed = cli("task", "list")
    assert listed.stdout == "t1 todo medium Ask Eli about the schema\n" and listed.stderr == ""
    assert cli("plan", "list").stdout == "p1 active Schema work\n"
    assert cli("task", "set", "t1", "--status", "doing").returncode == 0
    assert cli("plan", "set", "p1", "--status", "done").returncode == 0
    assert (
        "extra: a person's own field, named like planwatch's internal one\n" in (root / "tasks" / "t1.md").read_text()
    )
    assert "status: doing\n" in (root / "tasks" / "t1.md").read_text()
    assert "extra: kept too\n" in (root / "plans" / "p1.md").read_text()
