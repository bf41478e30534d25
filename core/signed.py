"""What the caches of `core` share (the warm-start cache, core/transcripts/warmcache.py,
and the remembered listing, core/listing.py): the stamp of the code that made one, and
the keyed checksum that makes a cache edited or forged by hand worthless.

A cache is trusted only when it was made by this planwatch (`code_stamp`: another
version's cache is ignored whole) and carries the keyed checksum of its bytes
(BLAKE2b in its keyed mode with a per-host secret, `warm-start.key`: 32 random bytes, 0600, in the
state folder): a cache's counts are shown without reading the files, so one forged by
hand could show made-up counts.
"""

from __future__ import annotations

import os
import sys
import zlib

from planwatch.core import paths
from planwatch.core.regular_files import read_regular

# `typing` is not loaded at run time: a quick command's start (docs/performance.md)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# A cache up to this size is read by the standard library's decoder unless msgspec is
# loaded already: importing msgspec costs about 8 ms, more than the standard library
# loses on a cache of 1,000 sessions (600 KB: 4 ms against 2); a start that reads lines
# loads msgspec for them anyway (core/transcripts/reader.py).
SMALL_CACHE_BYTES = 2 << 20


_STAMP: list[str] = []


def code_stamp() -> str:
    """A stamp of the code that decides what a reader is fed and makes of it (every module
    of `core` and `core/transcripts`): a cache made by another planwatch — an upgrade, a
    downgrade, a local change — is discarded. Taken from each file's status, as Python
    itself decides whether a module's bytecode is stale (size and modification time),
    with the inode and the change time besides: a file written, replaced or touched in
    any way has a new change time, which no one can set back (not even a tool putting
    the modification time back, or a build pinning it). About 0.2 ms for the ~75 files,
    where reading them cost 2 ms of every start; asking the package metadata for the
    version costs 25. CRC-32 and Adler-32 of the statuses (64 bits, two algorithms),
    without hashlib, whose OpenSSL set-up costs a start ~3 ms. A file that cannot be
    looked at counts as missing."""
    if not _STAMP:
        parts: list[str] = []
        core = os.path.dirname(os.path.realpath(__file__))
        for folder in (core, os.path.join(core, "transcripts")):
            try:
                names = sorted(p for p in os.listdir(folder) if p.endswith(".py"))
            except OSError:
                continue
            for name in names:
                try:
                    st = os.stat(os.path.join(folder, name))
                except OSError:
                    continue
                parts.append(
                    f"{os.path.basename(folder)}/{name}:{st.st_dev}:{st.st_ino}:{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}"
                )
        data = "\0".join(parts).encode("utf-8", "surrogateescape")
        _STAMP.append(f"{zlib.crc32(data):08x}{zlib.adler32(data):08x}")
    return _STAMP[0]


# -- the keyed checksum ------------------------------------------------------------------

KEY_NAME = "warm-start.key"
_MAC_FIELD = b'"mac":"'
_MAC_HEX = 64
# What a document to be signed holds as its "mac" (`sign` puts the checksum in its place).
UNSIGNED_MAC = "0" * _MAC_HEX


def _host_key(*, create: bool = False) -> bytes | None:
    """This host's secret for the cache's checksum: 32 random bytes in the state folder,
    0600, made on the first save; None when there is none (nothing is trusted then)."""

    path = paths.state_dir() / KEY_NAME
    try:
        key = read_regular(path, 64, follow=False)
    except FileNotFoundError:
        if not create:
            return None
        from planwatch.core.atomic import PRIVATE_FILE_MODE, create_exclusive

        path.parent.mkdir(parents=True, exist_ok=True)
        create_exclusive(path, os.urandom(32), mode=PRIVATE_FILE_MODE)  # a racing creator's key wins
        key = read_regular(path, 64, follow=False)
    except OSError:
        return None
    return key if len(key) == 32 else None


def _mac(key: bytes, raw: bytes, at: int) -> bytes:
    """BLAKE2b in its keyed mode (a MAC by design: no HMAC construction needed) of every
    byte but the checksum's own place. From `_blake2`, the module `hashlib` takes it
    from: importing `hashlib` sets up OpenSSL, and `hmac` with it, ~4 ms of a warm
    listing's start."""
    try:
        from _blake2 import blake2b
    except ImportError:  # an interpreter built without it: hashlib's, wherever it lives
        from hashlib import blake2b  # type: ignore[assignment]

    # Two updates over views, no copy of the cache: ~6 ms for 4.5 MB (10,000 sessions).
    mac = blake2b(key=key, digest_size=_MAC_HEX // 2)
    view = memoryview(raw)
    mac.update(view[:at])
    mac.update(view[at + _MAC_HEX :])
    return mac.hexdigest().encode()


def _same(a: bytes, b: bytes) -> bool:
    """Compared in a time that does not tell where they differ (hmac.compare_digest,
    which is this function of `_operator` when OpenSSL's is not loaded)."""
    try:
        from _operator import _compare_digest as compare
    except ImportError:
        from hmac import compare_digest as compare  # type: ignore[no-redef]
    return compare(a, b)


def sign(raw: bytes) -> bytes:
    """`raw` (holding `"mac":"000…"`) with a keyed checksum of all its other bytes in
    place of the zeros: a cache edited or forged by hand no longer matches."""
    key = _host_key(create=True)
    at = raw.find(_MAC_FIELD) + len(_MAC_FIELD)
    if key is None:
        return raw  # no key could be made: a cache nobody will trust
    return raw[:at] + _mac(key, raw, at) + raw[at + _MAC_HEX :]


# A cache of more entries than this is encoded by msgspec even when it is not loaded yet
# (a listing that read no line, of Copilot CLI folders or databases: 1,000 Copilot CLI
# folders' warm-start cache is encoded by the standard library in 6 ms, its listing in
# 4, where importing msgspec costs 15, in each of the two processes that write them).
LARGE_CACHE_ENTRIES = 2000


def encoded(doc: Any, entries: int) -> bytes:
    """A cache document as compact JSON. msgspec's C encoder takes about 1 µs an entry
    (10 ms for 10,000 sessions, 4.8 MB), the standard library's 4-10; importing msgspec
    costs 12-15 ms, more than the standard library takes for a couple of thousand small
    entries (a listing of Copilot CLI sessions, which never loads msgspec otherwise). A
    listing writes two caches (the warm-start cache and the listing). A path holding a
    lone surrogate (a file name's byte that is not UTF-8) cannot be written as UTF-8:
    such a cache is written by the standard library, which escapes it."""
    if entries > LARGE_CACHE_ENTRIES or "msgspec" in sys.modules:
        import msgspec

        try:
            return msgspec.json.encode(doc)
        except UnicodeEncodeError:
            pass  # a path holding a lone surrogate (a name's byte that is not UTF-8): escaped below
    import json

    return json.dumps(doc, separators=(",", ":")).encode("ascii")


def decoded(raw: bytes) -> Any:
    """The cache's JSON (this code's own strict JSON, signed) as values; ValueError when
    it is not JSON. msgspec's C decoder reads it in about half the time `json.loads`
    takes (4.5 MB for 10,000 sessions: 110 -> 60 ms), the standard library a small one
    when msgspec is not loaded yet (SMALL_CACHE_BYTES): both give the same values. A
    path holding a lone surrogate (a file name's byte that is not UTF-8, which `encoded`
    writes as an escape) is read by the standard library, which msgspec refuses."""
    if len(raw) > SMALL_CACHE_BYTES or "msgspec" in sys.modules:
        import msgspec

        try:
            return msgspec.json.decode(raw)
        except msgspec.DecodeError:  # an escaped lone surrogate (the file is signed: no other error is likely)
            pass
    import json

    return json.loads(raw)


def signed(raw: bytes) -> bool:
    """True when `raw` carries the keyed checksum of its bytes made with this host's key."""
    key = _host_key()
    found = raw.find(_MAC_FIELD)
    if key is None or found == -1:
        return False
    at = found + len(_MAC_FIELD)
    return _same(raw[at : at + _MAC_HEX], _mac(key, raw, at))
