"""How a session's title is made from transcript text: the length a listing shows, and
a first prompt made into a title. A module of its own, with no imports, so a warm
listing (core/listing.py) gives its titles again without loading the model or the
readers."""

from __future__ import annotations

# A session's title is shown on one line; the reader keeps more, the index trims it.
TITLE_LIMIT = 200

# The bound every reader puts on a first prompt made into a title.
PROMPT_TITLE_CHARS = 1000


def prompt_title(text: str, limit: int = PROMPT_TITLE_CHARS) -> str:
    """A first prompt made into a title (docs/reading.md, Claude Code: "the first user prompt, shortened"):
    one line, runs of whitespace (newlines, indents) as one space, at most `limit`."""
    return " ".join(text[: limit * 4].split())[:limit]
