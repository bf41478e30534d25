"""Colours of rows, marks, pills and statuses, each a Textual theme variable.

Every style here names a theme variable (`$text-success`, `$text-muted`, …), never a fixed
colour or "dim", so the rows follow the chosen theme; tui/theme.py makes those variables
readable on the backgrounds the app draws them on.
"""

from __future__ import annotations

# The roles, as Content style strings (resolved against the theme when drawn).
DONE = "$text-success"
DOING = "$text-warning bold"
OVERRIDE = "$text-primary bold"
OVERRIDE_LABEL = "$text-primary italic"
BLOCKED = "$text-error bold"
PRIORITY = "$text-error bold"  # the high-priority mark beside an agent step
REVIEW = "$text-secondary"
MUTED = "$text-muted"
FINISHED = "$text-muted"  # the text of a done item: quieter, still readable
STRUCK = "$text-muted strike"  # cancelled and dropped
NOTE = "$text-muted italic"
HEADING = "bold"
RUNNING = "$text-success bold"
OPEN_COUNT = "$text-warning"
ERROR = "$text-error"
WARNING = "$text-warning"
HARNESS: dict[str, str] = {
    "claude": "$text-accent",
    "codex": "$text-secondary",
    "acp": "$text-primary",
    "gemini": "$text-success",
    "opencode": "$text-warning",
    "qwen": "$text-secondary",
    "pi": "$text-accent",
    "copilot": "$text-primary",
    "kilo": "$text-success",
    "cline": "$text-accent",
}
HARNESS_DEFAULT = "$text-primary"
