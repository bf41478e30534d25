"""Three-way merge of a record's body (a plan's goal), line by line.

`merge3(base, ours, theirs)` → (text, lost): both sides' changes against `base` applied;
where they change the same lines differently, `theirs` (the later side, as the caller
orders them) is taken there and `ours`'s version of those lines is returned in `lost`,
so the person can find it (`planwatch sync --status`). Pure and deterministic.
"""

from __future__ import annotations

from difflib import SequenceMatcher

Hunk = tuple[int, int, list[str]]
"""(first base line, end base line, the lines that replace them)"""


def _hunks(base: list[str], other: list[str]) -> list[Hunk]:
    matcher = SequenceMatcher(None, base, other, autojunk=False)
    return [(i1, i2, other[j1:j2]) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"]


def _overlap(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] == b[0] or (a[0] < b[1] and b[0] < a[1])


def _apply(base: list[str], lo: int, hi: int, hunks: list[Hunk]) -> list[str]:
    out: list[str] = []
    at = lo
    for i1, i2, lines in sorted(hunks, key=lambda h: (h[0], h[1])):
        out.extend(base[at:i1])
        out.extend(lines)
        at = i2
    out.extend(base[at:hi])
    return out


def merge3(base: str, ours: str, theirs: str) -> tuple[str, list[str]]:
    if ours == theirs or theirs == base:
        return ours, []
    if ours == base:
        return theirs, []
    b = base.splitlines(keepends=True)
    tagged = [(h, 0) for h in _hunks(b, ours.splitlines(keepends=True))]
    tagged += [(h, 1) for h in _hunks(b, theirs.splitlines(keepends=True))]
    tagged.sort(key=lambda item: (item[0][0], item[0][1], item[1]))
    groups: list[tuple[int, int, list[tuple[Hunk, int]]]] = []
    for hunk, side in tagged:
        span = (hunk[0], hunk[1])
        if groups and _overlap((groups[-1][0], groups[-1][1]), span):
            lo, hi, members = groups[-1]
            groups[-1] = (min(lo, span[0]), max(hi, span[1]), members + [(hunk, side)])
        else:
            groups.append((span[0], span[1], [(hunk, side)]))
    out: list[str] = []
    lost: list[str] = []
    at = 0
    for lo, hi, members in groups:
        out.extend(b[at:lo])
        mine = [h for h, s in members if s == 0]
        other = [h for h, s in members if s == 1]
        if not mine or not other:
            out.extend(_apply(b, lo, hi, mine or other))
        else:
            a_lines, t_lines = _apply(b, lo, hi, mine), _apply(b, lo, hi, other)
            out.extend(t_lines)
            if a_lines != t_lines:
                lost.append("".join(a_lines))
        at = hi
    out.extend(b[at:])
    return "".join(out), lost
