"""Who is behind a tool call: the `by` and `in` of the stamps the call writes.

API summary:
- `Caller(by, session=None, user=None)` — passed explicitly into every tool, so the MCP
  server, the CLI and tests each say who is calling. `user` is the user directory's
  user whose token was presented (None: nobody presented one, so the call holds no
  grant); `by` is the name stamps carry; `session` becomes the stamps' `in`.
- `caller_from_env(settings, environ=None)` — the CLI's and MCP server's caller:
  `PLANWATCH_TOKEN` checked against the user directory, `PLANWATCH_SESSION` as `in`.
- `owner_caller(settings, session=None)` — a call by the settings' owner, holding no
  grant (the caller without a token, and the mirror's).
- `user_for_token(settings, token)` — the user whose `sha256:<hex>` matches, or None.
- `HOST` — a call made by the host itself (the sweep, a translation with no person).

`by` is the person behind the call: under a user directory the user whose token was
presented, else the configured `owner`, else `host` — never a name from the
environment, which anyone can set (`USER=alice`). Without a directory: `owner`, else
the login name, else `host`. A directory that is present but not valid resolves no
token (no grant) and stamps like any call without one.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from planwatch.core.settings import Settings
from planwatch.core.store.schema import Stamp, valid_text


@dataclass(frozen=True)
class Caller:
    """The identity a tool call acts under."""

    by: str
    session: str | None = None
    user: str | None = None
    """The user directory's user whose token was presented; None holds no grant."""
    unknown_token: bool = False
    """A token was presented that no user of the directory holds (revoked, mistyped)."""

    def stamp(self, at: datetime, *, verdict: str | None = None) -> Stamp:
        return Stamp.model_validate({"at": at, "by": self.by or "host", "in": self.session, "verdict": verdict})


HOST = Caller(by="host")


def owner_caller(settings: Settings, session: str | None = None) -> Caller:
    """A call by the settings' owner (`owner`, else the login name, else `host`); no grant."""
    return Caller(by=valid_text(settings.owner_name() or "") or "host", session=session, user=None)


def _token_hash(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def user_for_token(settings: Settings, token: str | None) -> str | None:
    """The user whose `token: sha256:<hex>` is the hash of `token`, else None.

    Every user is compared (constant time each) so timing does not tell how far the
    match got.
    """
    if not token or settings.users is None:
        return None
    presented = _token_hash(token)
    found: str | None = None
    for name, entry in settings.users.users.items():
        stored = entry.token.strip()
        if not stored.lower().startswith("sha256:"):
            continue
        if hmac.compare_digest(stored[7:].strip().lower().encode(), presented.encode()):
            found = found or name
    return found


def caller_from_env(settings: Settings, environ: Mapping[str, str] | None = None) -> Caller:
    """The caller of a CLI or MCP call: token from PLANWATCH_TOKEN, session from PLANWATCH_SESSION."""
    env = os.environ if environ is None else environ
    # Environment text may hold bytes that are not UTF-8 (lone surrogates once decoded);
    # a stamp must still be writable, so they read as U+FFFD.
    session = valid_text(env.get("PLANWATCH_SESSION") or "") or None
    user = user_for_token(settings, env.get("PLANWATCH_TOKEN"))
    if user is not None:
        return Caller(by=valid_text(user), session=session, user=user)
    caller = owner_caller(settings, session)
    if env.get("PLANWATCH_TOKEN") and settings.users is not None:
        caller = Caller(by=caller.by, session=session, user=None, unknown_token=True)
    return caller
