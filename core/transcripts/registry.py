"""Which reader reads which harness: the one entry point IO uses."""

from __future__ import annotations

from planwatch.core.model import Harness
from planwatch.core.transcripts.reader import TranscriptReader


def reader_for(harness: Harness) -> type[TranscriptReader]:
    """The reader class for `harness` ("claude", "codex", "acp", "gemini", "qwen" or "pi"; OpenCode's
    database is read by `core.transcripts.opencode` and a Copilot CLI session folder by
    `core.transcripts.copilot`, not line by line)."""
    # Imported here so IO pays only for the harnesses it actually reads.
    if harness == "claude":
        from planwatch.core.transcripts.claude import ClaudeReader

        return ClaudeReader
    if harness == "codex":
        from planwatch.core.transcripts.codex import CodexReader

        return CodexReader
    if harness == "acp":
        from planwatch.core.transcripts.acp import AcpReader

        return AcpReader
    if harness == "gemini":
        from planwatch.core.transcripts.gemini import GeminiReader

        return GeminiReader
    if harness == "qwen":
        from planwatch.core.transcripts.qwen import QwenReader

        return QwenReader
    if harness == "pi":
        from planwatch.core.transcripts.pi import PiReader

        return PiReader
    raise ValueError(f"no transcript reader for harness {harness!r}")
