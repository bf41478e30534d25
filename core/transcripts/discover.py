"""Finding every transcript on disk and what kind each one is (SPEC §2 Sessions).

Where each harness writes (FORMATS):
- Claude: `$CLAUDE_CONFIG_DIR/projects/<slug>/<sessionId>.jsonl`; subagents in
  `<slug>/<sessionId>/subagents/agent-<agentId>.jsonl` (beside a `.meta.json`), or in
  the older layout `<slug>/agent-<agentId>.jsonl`, whose parent is named by the
  `sessionId` of its records (the reader reports it as `parent_id`).
- Codex: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl[.zst]` and
  `archived_sessions/`; a plain `.jsonl` beside a `.jsonl.zst` wins. A sub-thread rollout
  names its parent in its records (`parent_id` with `is_subagent`).
- ACP: the logs `planwatch acp-tap` writes under `core.paths.acp_log_dir()`.
- Extra roots (settings `transcriptRoots`, `--root DIR`): any layout; the harness is
  detected per file from its name and folder shape, else from its first lines.

This module only finds files and sniffs a few KB of each; reading them is lines.py's job.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from core import paths
from core.model import Harness

log = logging.getLogger(__name__)

SNIFF_BYTES = 64 << 10


@dataclass(frozen=True)
class TranscriptFile:
    """One transcript file found on disk."""

    path: Path
    harness: Harness
    mtime: float
    size: int
    # A subagent's transcript (Claude agent-<id>.jsonl): it belongs to another session.
    subagent: bool = False
    # The parent session's id when the folder layout names it (Claude's new layout);
    # otherwise the reader finds it in the records.
    parent_hint: str | None = None

    @property
    def agent_id(self) -> str | None:
        """The subagent's id from its file name (`agent-<agentId>.jsonl`)."""
        name = self.path.name
        if name.startswith("agent-") and name.endswith(".jsonl"):
            return name[len("agent-") : -len(".jsonl")]
        return None


def is_transcript_name(path: Path) -> bool:
    """Files that may be transcripts (found by the scan, followed while live): JSON
    Lines, plain or zstd-compressed, not hidden."""
    name = path.name
    return (name.endswith(".jsonl") or name.endswith(".jsonl.zst")) and not name.startswith(".")


def _known_harness(path: Path) -> Harness | None:
    """The harness a file's place tells, for the harnesses' own folders."""
    try:
        claude = paths.claude_projects_dir()
        if path.is_relative_to(claude):
            return "claude"
        for codex in paths.codex_session_dirs():
            if path.is_relative_to(codex):
                return "codex"
        if path.is_relative_to(paths.acp_log_dir()):
            return "acp"
    except (OSError, ValueError):
        return None
    return None


def classify(
    path: Path, stat: os.stat_result | None = None, *, known: Harness | None = None
) -> TranscriptFile | None:
    """What kind of transcript `path` is, or None when it is not one. `known`: the
    harness its folder already tells (a harness's own folder, found by `discover`)."""
    if not is_transcript_name(path):
        return None
    try:
        st = stat or path.stat()
    except OSError:
        return None
    name = path.name
    if name.startswith("rollout-"):
        harness: Harness | None = "codex"
    else:
        harness = known or _known_harness(path) or sniff_harness(path)
    if harness is None:
        return None
    subagent = False
    parent_hint = None
    if harness == "claude" and name.startswith("agent-") and name.endswith(".jsonl"):
        subagent = True
        if path.parent.name == "subagents":
            parent_hint = path.parent.parent.name or None
    return TranscriptFile(path, harness, st.st_mtime, st.st_size, subagent, parent_hint)


def _first_lines(path: Path) -> list[bytes]:
    """The complete lines in the first SNIFF_BYTES of a file (decompressed for .zst)."""
    try:
        if path.name.endswith(".zst"):
            import zstandard

            with path.open("rb") as fh:
                reader = zstandard.ZstdDecompressor().stream_reader(fh, read_across_frames=True)
                data = reader.read(SNIFF_BYTES)
        else:
            with path.open("rb") as fh:
                data = fh.read(SNIFF_BYTES)
    except Exception as exc:  # unreadable or corrupt: not a transcript we can use
        log.debug("cannot sniff %s: %s", path, exc)
        return []
    cut = data.rfind(b"\n")
    if cut == -1:
        return [data] if data else []  # one huge first line: judge it by its bytes
    return [line for line in data[:cut].split(b"\n") if line.strip()]


def sniff_harness(path: Path) -> Harness | None:
    """Which harness wrote a file, from its first lines (None when none did)."""
    for line in _first_lines(path)[:20]:
        harness = _harness_of_line(line)
        if harness is not None:
            return harness
    return None


def _harness_of_line(line: bytes) -> Harness | None:
    try:
        record = json.loads(line)
    except (ValueError, UnicodeDecodeError, RecursionError):
        record = None
    if isinstance(record, dict):
        if "jsonrpc" in record or (isinstance(record.get("msg"), dict) and "from" in record):
            return "acp"
        kind = record.get("type")
        if "payload" in record and isinstance(kind, str) and "timestamp" in record:
            return "codex"
        if kind == "session_meta":
            return "codex"
        if "sessionId" in record or "parentUuid" in record:
            return "claude"
        if kind in ("summary", "custom-title", "ai-title") and "leafUuid" in record:
            return "claude"
        if "id" in record and "timestamp" in record and "git" in record and "type" not in record:
            return "codex"  # a rollout from before the envelope
        return None
    # A first line longer than the sniff window: judge by its opening bytes.
    head = line[:4096]
    if b'"jsonrpc"' in head:
        return "acp"
    if b'"sessionId"' in head or b'"parentUuid"' in head:
        return "claude"
    if b'"payload"' in head:
        return "codex"
    return None


def _walk(root: Path) -> Iterator[tuple[Path, os.stat_result]]:
    """Every transcript-named file under root, with its stat; unreadable folders skipped."""
    stack = [root]
    while stack:
        folder = stack.pop()
        try:
            with os.scandir(folder) as it:
                for entry in it:
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            stack.append(Path(entry.path))
                        elif entry.is_file() and is_transcript_name(Path(entry.name)):
                            yield Path(entry.path), entry.stat()
                    except OSError:
                        continue
        except OSError as exc:
            log.debug("cannot list %s: %s", folder, exc)


def _claude_layout(root: Path) -> Iterator[tuple[Path, os.stat_result]]:
    """Claude's projects folder: session files one level down, subagents below them.
    Other JSONL files in a session's folder (tool outputs and the like) are not sessions."""
    for path, st in _walk(root):
        rel = path.relative_to(root).parts
        if len(rel) == 2:  # <slug>/<sessionId>.jsonl or <slug>/agent-<id>.jsonl
            yield path, st
        elif len(rel) == 4 and rel[2] == "subagents" and rel[3].startswith("agent-"):
            yield path, st


def discover(roots: Sequence[Path]) -> list[TranscriptFile]:
    """Every transcript under `roots`, newest first. Missing roots are skipped."""
    found: dict[Path, TranscriptFile] = {}
    claude_root = paths.claude_projects_dir()
    for root in roots:
        root = Path(root).expanduser()
        if not root.is_dir():
            if root.is_file():  # a single file given as a root
                item = classify(root)
                if item is not None:
                    found.setdefault(item.path, item)
            continue
        walker: Iterable[tuple[Path, os.stat_result]]
        walker = _claude_layout(root) if root == claude_root else _walk(root)
        # Every file under a harness's own folder is that harness's: told once per root.
        known = _known_harness(root)
        for path, st in walker:
            if path in found:
                continue
            item = classify(path, st, known=known)
            if item is not None:
                found[path] = item
    # A plain rollout beside its compressed copy wins (FORMATS §3).
    for path in [p for p in found if p.name.endswith(".jsonl.zst")]:
        if path.with_name(path.name[: -len(".zst")]) in found:
            del found[path]
    return sorted(found.values(), key=lambda f: f.mtime, reverse=True)
