"""Untrusted text reaches the person only as safe text (docs/privacy.md, Untrusted text):
a session title, an item or a plan document holding a terminal escape, a carriage
return, the end of a bracketed paste or an invisible character is shown as an escape in
every toast, on the clipboard and on the pager's input — checked on the bytes the app
writes to its terminal (a recording driver), the clipboard's OSC 52 payload as the
terminal receives it, and what a real `$PAGER` program reads."""

from __future__ import annotations

import base64
import re
from datetime import UTC, datetime, timedelta

import pytest
from app_transcripts import ClaudeTranscript, until
from harness_app import recording_pager
from terminal_bytes import recording, terminal_output

from planwatch.tui.app import AppOptions, make_app

# What a hostile title carries: OSC 52 (write the clipboard) and OSC 0 (set the title).
CLIPBOARD = "\x1b]52;c;ZWNobyBoaQ==\x07"
WINDOW_TITLE = "\x1b]0;pwned\x07"
OSC = re.compile(r"\x1b\](\d+);")
CSI = re.compile(r"\x1b\[[0-9;?<>=]*[ -/]*[@-~]")


def screen_text(output: str) -> str:
    """The characters drawn, cursor moves and colours taken out."""
    return CSI.sub("", output)


@pytest.mark.asyncio
async def test_a_session_title_with_terminal_escapes_is_shown_as_text_in_the_plan_complete_toast(isolated_env) -> None:
    web = ClaudeTranscript(isolated_env.claude, "/home/dev/web", at=datetime.now(UTC) - timedelta(minutes=1))
    web.custom_title(f"Web {CLIPBOARD} {WINDOW_TITLE} end").todo_write(
        [("Add the switch", "completed"), ("Test", "in_progress")]
    )
    app = recording(make_app(AppOptions(config_path=isolated_env.config)))  # default settings: the toast is on
    async with app.run_test(headless=False, size=(120, 36), notifications=True) as pilot:
        await until(pilot, lambda: app.scan_done is not None and app.following, what="the follower")
        drawn_before = len(terminal_output(app))
        web.todo_write([("Add the switch", "completed"), ("Test", "completed")])
        await until(
            pilot,
            lambda: "Plan complete (2/2) — Web" in screen_text(terminal_output(app)[drawn_before:]),
            what="the toast drawn",
        )
        output = terminal_output(app)
    assert set(OSC.findall(output)) <= {"22"}  # Textual's own pointer shape; never 52 or 0
    assert CLIPBOARD not in output and WINDOW_TITLE not in output
    drawn = screen_text(output[drawn_before:])
    assert "Plan complete (2/2) — Web \\x1b]52;c;ZWNobyBoaQ==\\x07" in drawn  # shown, as the list shows it


# What a pasted clipboard or a pager must never carry raw: ESC, CR, BS, a C1 CSI, a bidi
# override, and the end of a bracketed paste (ESC [ 201 ~) followed by a command.
PASTE_BREAKER = "ok\x1b[201~\rrm -rf ~\x08\x9b31m\u202eevil"
RAW = ("\x1b", "\r", "\x08", "\x9b", "\u202e")


def exit_plan_mode(transcript: ClaudeTranscript, plan: str) -> None:
    """An ExitPlanMode call and the person's approval, in Claude Code's record shape
    (fixtures/transcripts/claude, the api session)."""
    call_id = "toolu_017cTxRic0Q3WF79VE7xtvLKig"
    call = transcript._base("assistant")
    call["message"] = {
        "id": "msg_01ZWY8GBdsAhyL1DghbPRdefiy",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5-20250929",
        "stop_reason": "tool_use",
        "content": [
            {
                "type": "tool_use",
                "id": call_id,
                "name": "ExitPlanMode",
                "input": {"plan": plan, "planFilePath": "/home/dev/.claude/plans/p.md"},
            }
        ],
    }
    result = transcript._base("user")
    result["message"] = {
        "role": "user",
        "content": [
            {
                "tool_use_id": call_id,
                "type": "tool_result",
                "content": "User has approved your plan. You can now start coding.",
            }
        ],
    }
    result["toolUseResult"] = {"plan": plan, "isAgent": False, "filePath": "/home/dev/.claude/plans/p.md"}
    transcript._append(call, result)


def clipboard_payloads(output: str) -> list[str]:
    """The text of every OSC 52 the app wrote, decoded as the terminal decodes it."""
    return [base64.b64decode(m).decode("utf-8") for m in re.findall(r"\x1b\]52;c;([A-Za-z0-9+/=]*)\x07", output)]


@pytest.mark.asyncio
async def test_the_clipboard_gets_the_checklist_only_as_safe_text(isolated_env) -> None:
    web = ClaudeTranscript(isolated_env.claude, "/home/dev/web")
    web.custom_title(f"Web {PASTE_BREAKER}").todo_write([(f"Step {PASTE_BREAKER}", "in_progress")])
    app = recording(make_app(AppOptions(config_path=isolated_env.config)))
    async with app.run_test(headless=False, size=(120, 36)) as pilot:
        await until(pilot, lambda: app.scan_done is not None and app.screen.selected_id is not None, what="the scan")
        await pilot.press("y")
        await until(pilot, lambda: clipboard_payloads(terminal_output(app)), what="the clipboard written")
        (payload,) = clipboard_payloads(terminal_output(app))
    assert [c for c in RAW if c in payload] == []
    shown = "ok\\x1b[201~\\x0drm -rf ~\\x08\\x9b31m\\u202eevil"  # as the screen shows it
    assert payload.startswith(f"# Web {shown}\n") and f"- [ ] Step {shown} (in progress)" in payload


@pytest.mark.asyncio
async def test_the_pager_reads_plan_documents_and_the_transcript_only_as_safe_text(
    isolated_env, tmp_path, monkeypatch
) -> None:
    read = recording_pager(tmp_path, monkeypatch)  # records its stdin, whole
    web = ClaudeTranscript(isolated_env.claude, "/home/dev/web")
    web.custom_title("Web").todo_write([("Step", "in_progress")])
    exit_plan_mode(web, f"# The plan\n\n1. {PASTE_BREAKER}\n")
    with web.path.open("ab") as fh:  # a line that is not JSON, with a raw escape in it
        fh.write(f"garbage {PASTE_BREAKER}\n".encode())
    app = make_app(AppOptions(config_path=isolated_env.config))
    async with app.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: app.scan_done is not None and app.screen.selected_id is not None, what="the scan")
        await until(pilot, lambda: app.checklist_for(app.screen.selected_id).documents, what="the document")
        app.screen.query_one("#details").focus()
        await pilot.press("o")
        await until(pilot, read.exists, what="the pager on the document")
        document = read.read_text()
        read.unlink()
        app.screen.query_one("#checklist").focus()
        await pilot.press("o")
        await until(pilot, read.exists, what="the pager on the transcript")
        transcript = read.read_text()
    assert "1. ok\\x1b[201~\\x0drm -rf ~\\x08\\x9b31m\\u202eevil" in document
    assert [c for c in RAW if c in document] == []
    assert "garbage ok\\x1b[201~\\x0drm" in transcript and web.session_id in transcript
    assert [c for c in RAW if c in transcript] == []
