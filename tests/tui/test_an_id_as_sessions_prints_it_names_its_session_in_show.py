"""An id as `planwatch sessions` prints it names that session for `planwatch show`, even
when the id holds a character printed as an escape (an id read from a transcript is
untrusted: it is printed as safe text, and that text must still name the session)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from app_transcripts import ClaudeTranscript
from cli_run import planwatch


def test_an_id_holding_an_invisible_character_as_sessions_prints_it_names_the_session_in_show(isolated_env) -> None:  # type: ignore[no-untyped-def]
    web = ClaudeTranscript(
        isolated_env.claude, "/home/dev/web", session_id="web\u202e1", at=datetime.now(UTC) - timedelta(minutes=5)
    )
    web.custom_title("Web").todo_write([("Ship it", "pending")])
    ClaudeTranscript(isolated_env.claude, "/home/dev/api", session_id="web2").todo_write([("Other", "pending")])
    [printed] = [row["id"] for row in json.loads(planwatch("sessions", "--json").stdout) if row["title"] == "Web"]
    assert printed == "web\\u202e1"
    shown = planwatch("show", "--plain", printed)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.splitlines() == ["# claude_todos", "pending\tShip it"]


def test_an_id_holding_an_invisible_character_as_sessions_prints_it_names_the_session_in_todo(isolated_env) -> None:  # type: ignore[no-untyped-def]
    ClaudeTranscript(
        isolated_env.claude, "/home/dev/web", session_id="web\u202e1", at=datetime.now(UTC) - timedelta(minutes=5)
    ).custom_title("Web").todo_write([("Ship it", "pending")])
    ClaudeTranscript(isolated_env.claude, "/home/dev/api", session_id="web2").todo_write([("Other", "pending")])
    [printed] = [row["id"] for row in json.loads(planwatch("sessions", "--json").stdout) if row["title"] == "Web"]
    for given in (printed, printed[:5]):  # the whole printed id, and its start
        asked = planwatch("todo", given, "--meta")
        assert asked.returncode == 0, asked.stderr
