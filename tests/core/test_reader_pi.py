"""docs/reading.md, pi: pi sessions with the todo extension, one test per rule (fixtures
composed by fixtures/transcripts/compose/pi_fix.py in the shapes of the real sample)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from waiting import Changes

from planwatch.core import paths
from planwatch.core.index import SessionIndex
from planwatch.core.transcripts.discover import classify, discover
from planwatch.core.transcripts.lines import read_transcript
from planwatch.core.transcripts.pi import PiReader
from planwatch.core.transcripts.reader import SessionResult
from planwatch.core.transcripts.registry import reader_for
from planwatch.core.transcripts.sniff import sniff_harness

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "fixtures/samples/pi/2026-12-01T18-58-51-609Z_01a232f9-5858-71c1-b1b0-7ed98b089974.jsonl"
RULES = ROOT / "fixtures/transcripts/rules/pi/sessions"
LAB = RULES / "--home-dev-lab--"
BRANCHED = LAB / "2026-11-29T10-00-00-000Z_c3000000-0000-7000-8000-000000000001.jsonl"
FORK = LAB / "2026-11-29T10-30-00-000Z_c3000000-0000-7000-8000-0000000000f1.jsonl"
REFUSED = LAB / "2026-11-29T11-00-00-000Z_c3000000-0000-7000-8000-000000000002.jsonl"
CUT = LAB / "2026-11-29T13-00-00-000Z_c3000000-0000-7000-8000-000000000004.jsonl"
STATUSES = LAB / "2026-11-29T14-00-00-000Z_c3000000-0000-7000-8000-000000000005.jsonl"
DEMO = (
    ROOT
    / "fixtures/transcripts/pi/sessions/--home-dev-notes--/2026-11-30T08-10-00-000Z_01b3c5d7-e9f1-7a2b-8c4d-5e6f7a8b9c0d.jsonl"
)


def read(path: Path, *, plans: bool = True, **windows: int) -> tuple[PiReader, SessionResult]:
    reader = reader_for("pi")(path)
    assert isinstance(reader, PiReader)
    read_transcript(reader, path, plans=plans, **windows)
    [result] = reader.results()
    return reader, result


def plan_of(result: SessionResult) -> list[tuple[str, str]]:
    main = result.plan.main
    assert main is not None and main.source == "pi_todos"
    return [(i.text, i.status) for i in main.items]


def test_pi_todo_results_hold_the_whole_list_real_sample() -> None:
    reader, result = read(SAMPLE)
    assert plan_of(result) == [
        ("Inspect the current config loader", "completed"),
        ("Add YAML parsing to load_config()", "completed"),
        ("Add a TOML fallback", "pending"),
        ("Run the config tests", "completed"),
    ]
    assert reader.skipped_lines == 0 and reader.problem is None
    facts = result.facts
    assert facts.id == "01a232f9-5858-71c1-b1b0-7ed98b089974"
    assert facts.cwd == "/home/dev/pi-todos"
    assert facts.title() == "Add YAML support to the config loader and keep a todo list as you go. [[script:main]]"
    assert facts.last_timestamp is not None and facts.last_timestamp.isoformat() == "2026-12-01T18:58:52.023000+00:00"
    assert facts.parent_id is None


def test_pi_plan_is_on_the_current_branch() -> None:
    """The file's last todo result (two steps done) is on a branch the session left: the
    last entry's path back to the root passes the list as it stood at the branch point."""
    lines = [json.loads(line) for line in BRANCHED.read_text().splitlines()]
    last_result = [r for r in lines if r.get("message", {}).get("toolName") == "todo"][-1]
    assert [t["done"] for t in last_result["message"]["details"]["todos"]] == [True, True, False]
    _, result = read(BRANCHED)
    assert plan_of(result) == [
        ("Inspect the loader", "pending"),
        ("Add YAML parsing", "pending"),
        ("Run the tests", "pending"),
    ]


def test_pi_branch_followed_line_by_line_switches_the_plan() -> None:
    reader = PiReader(BRANCHED)
    seen: list[list[str]] = []
    for line in BRANCHED.read_bytes().splitlines(keepends=True):
        if reader.wants(line):
            reader.feed_line(line)
        main = reader.results()[0].plan.main
        statuses = [i.status for i in main.items] if main is not None else []
        if main is not None and (not seen or seen[-1] != statuses):
            seen.append(statuses)
    # Three adds, two toggles, then the branch back to the adds.
    assert seen == [
        ["pending"],
        ["pending", "pending"],
        ["pending", "pending", "pending"],
        ["completed", "pending", "pending"],
        ["completed", "completed", "pending"],
        ["pending", "pending", "pending"],
    ]


def test_pi_refused_calls_change_nothing() -> None:
    """The extension's refusal (`isError: false` with `details.error`, whose list differs
    here) and pi's own (`isError: true`) are not the list."""
    _, result = read(REFUSED)
    assert plan_of(result) == [("First step", "completed"), ("Second step", "pending")]


def test_pi_done_true_is_completed_anything_else_pending() -> None:
    reader, result = read(STATUSES)
    assert plan_of(result) == [
        ("Done is true", "completed"),
        ("Done is false", "pending"),
        ("Done is a word", "pending"),
        ("Done is missing", "pending"),
    ]
    assert reader.skipped_lines == 1  # the torn last line naming the tool


def test_pi_a_fork_is_its_own_session_with_its_origin_as_lineage(isolated_env) -> None:  # type: ignore[no-untyped-def]
    _, result = read(FORK)
    assert result.facts.parent_id == "c3000000-0000-7000-8000-000000000001"
    shutil.copytree(RULES, paths.pi_sessions_dir())
    index = SessionIndex()
    index.scan()
    fork = index.get("c3000000-0000-7000-8000-0000000000f1")
    origin = index.get("c3000000-0000-7000-8000-000000000001")
    assert fork is not None and origin is not None
    assert fork.session.parent_id == origin.session.id
    assert [i.status for i in fork.plan.main.items] == ["pending", "pending", "completed"]  # type: ignore[union-attr]
    assert [i.status for i in origin.plan.main.items] == ["pending", "pending", "pending"]  # type: ignore[union-attr]


def test_pi_a_parent_that_points_nowhere_is_named_once_and_the_rest_is_read(isolated_env) -> None:  # type: ignore[no-untyped-def]
    reader, result = read(CUT)
    assert result.plan.main is None  # the list in the file is on no path from the last entry
    assert reader.problem is not None and str(CUT) in reader.problem and "'0badf00d'" in reader.problem
    shutil.copytree(RULES, paths.pi_sessions_dir())
    index = SessionIndex()
    index.scan()
    cut = paths.pi_sessions_dir() / CUT.relative_to(RULES)
    said = [p for p in index.problems() if str(cut) in p]
    assert len(said) == 1 and "0badf00d" in said[0]
    entry = index.get("c3000000-0000-7000-8000-000000000004")
    assert entry is not None and entry.plan.main is None and entry.session.title == "A cut tree"
    # Every other session is read as always.
    others = [e for e in index.entries() if e.session.id != "c3000000-0000-7000-8000-000000000004"]
    assert len(others) == 4 and all(e.plan.main is not None for e in others)


def test_pi_a_list_below_the_cut_is_certain(tmp_path: Path) -> None:
    lines = CUT.read_text().splitlines(keepends=True)
    records = [json.loads(line) for line in lines]
    # Move the cut above the todo result: the leaf's path now passes the list first.
    add_result = next(i for i, r in enumerate(records) if r.get("message", {}).get("toolName") == "todo")
    records[1]["parentId"] = "0badf00d"  # the first entry after the header
    user = next(i for i, r in enumerate(records) if i > add_result and r.get("message", {}).get("role") == "user")
    records[user]["parentId"] = records[add_result]["id"]
    path = tmp_path / CUT.name
    path.write_text("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records))
    reader, result = read(path)
    assert plan_of(result) == [("A step off the current path", "pending")]
    assert reader.problem is None


def test_pi_privacy_switch_reads_no_plan_and_keeps_the_tree() -> None:
    reader, result = read(BRANCHED, plans=False)
    assert result.plan.groups == ()
    assert reader.problem is None  # the lines kept from the reader still place their entries
    assert result.facts.title() == "Add YAML support to the loader"


def test_pi_session_header_is_sniffed_wherever_the_file_is(tmp_path: Path) -> None:
    copy = Path(shutil.copy(SAMPLE, tmp_path / SAMPLE.name))
    assert sniff_harness(copy) == "pi"
    item = classify(copy)
    assert item is not None and item.harness == "pi"


def test_pi_discovery_under_its_agent_folder(isolated_env) -> None:  # type: ignore[no-untyped-def]
    sessions = paths.pi_sessions_dir()
    assert sessions == isolated_env.root / "pi-agent" / "sessions"
    shutil.copytree(RULES, sessions)
    found = {item.path.relative_to(sessions).as_posix(): item for item in discover([sessions])}
    assert sorted(found) == sorted(p.relative_to(RULES).as_posix() for p in RULES.rglob("*.jsonl"))
    assert all(item.harness == "pi" for item in found.values())
    # `--session-dir` moves the folder: a --root at it finds them by their headers.
    assert {item.harness for item in discover([RULES])} == {"pi"}


def test_pi_live_append_is_followed(isolated_env) -> None:  # type: ignore[no-untyped-def]
    folder = paths.pi_sessions_dir() / "--home-dev-pi-todos--"
    folder.mkdir(parents=True)
    lines = SAMPLE.read_bytes().splitlines(keepends=True)
    first_toggle = next(i for i, line in enumerate(lines) if b'"action":"toggle"' in line and b'"toolResult"' in line)
    live = folder / SAMPLE.name
    live.write_bytes(b"".join(lines[:first_toggle]))
    index = SessionIndex()
    index.scan()
    changes = Changes()
    index.start_following(changes)
    try:
        sid = "01a232f9-5858-71c1-b1b0-7ed98b089974"
        entry = index.get(sid)
        assert entry is not None and entry.plan.main is not None
        assert [i.status for i in entry.plan.main.items] == ["pending"] * 4

        def statuses() -> list[str]:
            entry = index.get(sid)
            return [i.status for i in entry.plan.main.items] if entry is not None and entry.plan.main else []

        with live.open("ab") as fh:
            fh.write(b"".join(lines[first_toggle:]))
        changes.wait_for(lambda: statuses()[3:] == ["completed"], "the appended toggles")
        assert statuses() == ["completed", "completed", "pending", "completed"]
        assert any(sid in burst for burst in changes.bursts)
    finally:
        index.stop()


def test_a_qwen_folder_and_a_pi_folder_saved_as_transcript_folders_are_read_and_followed_at_once(
    tmp_path: Path,
) -> None:
    """Settings → transcript folders: saved while running, a Qwen Code projects folder
    and a pi sessions folder are read at once and followed (a line appended afterwards
    shows); taken out again, their sessions go."""
    from planwatch.core.model import AgentPlan

    qwen_sample = ROOT / "fixtures/samples/qwen/650333ef-8d48-49e8-abbd-2f740e50ee0a.jsonl"
    qwen_id, pi_id = "650333ef-8d48-49e8-abbd-2f740e50ee0a", "01a232f9-5858-71c1-b1b0-7ed98b089974"
    qwen_folder = tmp_path / "elsewhere" / "qwen-projects"
    pi_folder = tmp_path / "elsewhere" / "pi-sessions"
    chats = qwen_folder / "-home-dev-qwen-todos" / "chats"
    chats.mkdir(parents=True)
    (pi_folder / "--home-dev-pi-todos--").mkdir(parents=True)
    shutil.copy(qwen_sample, chats / qwen_sample.name)
    # pi's session up to its first toggle: the rest is appended while followed.
    lines = SAMPLE.read_bytes().splitlines(keepends=True)
    first_toggle = next(i for i, line in enumerate(lines) if b'"action":"toggle"' in line and b'"toolResult"' in line)
    live = pi_folder / "--home-dev-pi-todos--" / SAMPLE.name
    live.write_bytes(b"".join(lines[:first_toggle]))
    nothing = tmp_path / "nothing-here"
    index = SessionIndex([nothing])
    index.scan()
    assert index.entries() == []
    changes = Changes()
    index.start_following(changes)
    try:
        changed = index.set_roots([nothing, qwen_folder, pi_folder])
        assert {qwen_id, pi_id} <= set(changed)
        qwen, pi = index.get(qwen_id), index.get(pi_id)
        assert qwen is not None and qwen.session.harness == "qwen" and qwen.plan.counts() == (3, 3)
        assert pi is not None and pi.session.harness == "pi" and pi.plan.counts() == (0, 4)

        def pi_plan() -> AgentPlan | None:
            entry = index.get(pi_id)
            return entry.plan if entry is not None else None

        with live.open("ab") as fh:
            fh.write(b"".join(lines[first_toggle:]))
        changes.wait_for(lambda: (plan := pi_plan()) is not None and plan.counts() == (3, 4), "the appended toggles")
        index.set_roots([nothing])
        assert index.get(qwen_id) is None and index.get(pi_id) is None
    finally:
        index.stop()


def test_pi_plan_on_the_current_branch_through_any_windows_of_a_long_file(tmp_path: Path) -> None:
    """A long file is read by its head and tail and a backward scan (docs/reading.md,
    Bounded reading); the latest todo result in the file may sit on a branch the session
    left while the list on the current path lies before it, in the skipped middle or the
    tail. Through every window the plan is the one on the path, as read whole."""
    lines = BRANCHED.read_text().splitlines(keepends=True)
    last_id = json.loads(lines[-1])["id"]
    # The current branch goes on: entries of bash output after the file's last entry.
    padding = []
    for n in range(60):
        entry_id = f"b{n:07x}"
        padding.append(
            json.dumps(
                {
                    "type": "message",
                    "id": entry_id,
                    "parentId": last_id,
                    "timestamp": "2026-11-29T10:05:00.000Z",
                    "message": {
                        "role": "toolResult",
                        "toolCallId": f"call_{n}",
                        "toolName": "bash",
                        "content": [{"type": "text", "text": "output " * 60}],
                        "isError": False,
                    },
                },
                separators=(",", ":"),
            )
            + "\n"
        )
        last_id = entry_id
    path = tmp_path / BRANCHED.name
    path.write_text("".join(lines + padding))
    _, whole = read(path)
    expected = plan_of(whole)
    assert expected == [
        ("Inspect the loader", "pending"),
        ("Add YAML parsing", "pending"),
        ("Run the tests", "pending"),
    ]
    size = path.stat().st_size
    for tail in range(200, size, size // 40):
        _, result = read(path, head=300, tail=tail, chunk=256, bound=1 << 20)
        assert plan_of(result) == expected, f"tail window {tail} of {size}"
        assert result.plan.main is not None and not result.plan.main.partial


def test_pi_a_list_cleared_after_every_step_was_done_stays_finished(tmp_path: Path) -> None:
    """The plan replay's rule (docs/reading.md, The plan replay): a `clear` after every
    step of the list on the path was done leaves that list, marked cleared; a `clear`
    while one was open leaves an empty plan."""
    header = {"type": "session", "version": 3, "id": "c3000000-0000-7000-8000-0000000000c1", "cwd": "/home/dev/lab"}
    header["timestamp"] = "2026-11-29T10:00:00.000Z"

    def session(steps: list[tuple[str, list[dict[str, object]]]]) -> Path:
        lines, parent = [header], None
        for n, (action, todos) in enumerate(steps):
            message = {
                "role": "toolResult",
                "toolCallId": f"call_{n}",
                "toolName": "todo",
                "content": [{"type": "text", "text": "ok"}],
                "details": {"action": action, "todos": todos, "nextId": len(todos) + 1},
                "isError": False,
            }
            entry = {"type": "message", "id": f"e{n:07x}", "parentId": parent, "timestamp": "2026-11-29T10:00:01.000Z"}
            lines.append({**entry, "message": message})
            parent = entry["id"]
        path = tmp_path / f"2026-11-29T10-00-00-000Z_{header['id']}.jsonl"
        path.write_text("".join(json.dumps(line) + "\n" for line in lines))
        return path

    added = [{"id": 1, "text": "Inspect", "done": False}, {"id": 2, "text": "Fix", "done": False}]
    done = [{**step, "done": True} for step in added]
    _, result = read(session([("add", added), ("toggle", done), ("clear", [])]))
    assert plan_of(result) == [("Inspect", "completed"), ("Fix", "completed")]
    assert result.plan.main is not None and result.plan.main.cleared
    _, result = read(session([("add", added), ("clear", [])]))
    assert plan_of(result) == [] and result.plan.main is not None and not result.plan.main.cleared
