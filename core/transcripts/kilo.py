"""Kilo CLI's database: OpenCode's reader, parameterised.

Kilo CLI is a fork of OpenCode that keeps its sessions in a database of its own
(`core.paths.kilo_db()`: `$KILO_DB`, else `$XDG_DATA_HOME/kilo/kilo.db`) with OpenCode's
`session`, `todo`, `part` and `message` tables (and tables of its own, not read). So its
sessions are read by `OpenCodeReader` itself — read-only, one short transaction a
read, the sessions that moved read again, subagents under their parent, a fork
(`… (fork #1)`, no `parent_id`) a session of its own — and only the names differ: the
harness `kilo` and the plan's source `kilo_todos`.

How Kilo fails differs, and the shared code already holds for it: a `todowrite` call
cut off mid-JSON, or a call of a tool that does not exist, is kept as a part under the
tool's real name with `state.status: "error"` (OpenCode writes `tool: "invalid"`). Only
a `completed` part changed the list (opencode_parts.todowrite_list), so an error part
under `todowrite` changes nothing either way.
"""

from __future__ import annotations

from planwatch.core.model import Harness, Source
from planwatch.core.transcripts.opencode import OpenCodeReader


class KiloReader(OpenCodeReader):
    """Every session of one Kilo CLI database (OpenCode's reader under Kilo's names)."""

    harness: Harness = "kilo"
    source: Source = "kilo_todos"
