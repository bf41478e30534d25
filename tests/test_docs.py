"""The repository explains itself: its prose points only at what it holds.

The rules planwatch follows are written in `docs/` and the README. A comment, docstring,
test or script that cites a document kept somewhere else (a specification by section, a
tracker's issue number, a folder beside the checkout) sends a newcomer to text they
cannot read, so such a citation fails here; the rule is said where it applies, or the
citation points into `docs/`. Every relative link in the README and in `docs/` must
reach a file of the repository (and a heading of it, when the link names one), so the
front page and the pages it links to never send a reader to nothing.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCANNED = ("core", "tui", "tests", ".ci", "docs", "README.md")
TEXT_SUFFIXES = {".py", ".md", ".sh", ".tcss", ".toml", ".yaml", ".yml", ".txt", ""}

# Each pattern is a kind of citation of text outside the repository. This file is left
# out of the scan, since it has to name them.
OUTSIDE = {
    "a section of an outside specification": re.compile(r"\b(?:SPEC|FORMATS|STYLE)\b"),
    "a folder beside the checkout": re.compile(r"\.\./" + "shared|/work/" + r"shared\b"),
    "an issue number": re.compile(r"\b[Ii]ssue" + r"\s+\d+"),
    "the seed text or the brief": re.compile(r"\b[Tt]he (?:seed(?:'s)?|brief)\b(?!\s*=)"),
}

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def _text_files() -> list[Path]:
    files: list[Path] = []
    for name in SCANNED:
        path = ROOT / name
        if path.is_file():
            files.append(path)
            continue
        for found in sorted(path.rglob("*")):
            if found.is_file() and found.suffix in TEXT_SUFFIXES and "__pycache__" not in found.parts:
                if found == Path(__file__).resolve():  # this file names the patterns it looks for
                    continue
                files.append(found)
    return files


def _citations(path: Path) -> list[str]:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return []
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        for kind, pattern in OUTSIDE.items():
            if pattern.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {kind}: {line.strip()}")
    return found


def test_no_code_test_script_or_doc_cites_a_document_outside_the_repository() -> None:
    files = _text_files()
    assert ROOT / "README.md" in files and any(f.parent.name == "docs" for f in files)
    citations = [c for path in files for c in _citations(path)]
    assert citations == [], "\n".join(citations)


def test_the_citation_check_recognises_each_kind_of_outside_reference() -> None:
    # The check above is only as good as its patterns: each kind must be caught, and
    # ordinary words that resemble them (a random seed, an inspector) must not be.
    samples = {
        "see " + "SPEC §4": True,
        "FORMATS" + " §1 priority order": True,
        "(" + "STYLE §3)": True,
        "the type check (" + 'STYLE: "mypy over core")': True,
        "STYLE" + ".md": True,
        "the style guide, a styled cell": False,
        "../" + "shared/SPEC.md": True,
        "as " + "issue 11 asked": True,
        "under the " + "seed's names": True,
        "rng = random.Random(seed)": False,
        "the inspector's view": False,
        "seed=n": False,
        "docs/store.md, Approvals": False,
    }
    for line, cited in samples.items():
        assert bool([p for p in OUTSIDE.values() if p.search(line)]) is cited, line


def _slug(heading: str) -> str:
    """A Markdown heading as the anchor GitHub gives it: lower case, punctuation
    dropped, spaces as hyphens."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"```.*?```", "", text, flags=re.S)  # a `#` comment in a code block is no heading
    return {_slug(m.group(1)) for m in re.finditer(r"^#{1,6} +(.+)$", text, re.M)}


def _pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


@pytest.mark.parametrize("page", _pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_of_the_readme_and_docs_reaches_a_file_and_heading_of_the_repository(
    page: Path,
) -> None:
    broken = []
    for target in LINK.findall(page.read_text(encoding="utf-8")):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto: — not a file of ours
            continue
        where, _, anchor = target.partition("#")
        resolved = (page.parent / where).resolve() if where else page
        if not resolved.is_relative_to(ROOT) or not resolved.is_file():
            broken.append(f"{target}: no such file in the repository")
        elif anchor and resolved.suffix == ".md" and anchor not in _anchors(resolved):
            broken.append(f"{target}: {resolved.relative_to(ROOT)} has no heading #{anchor}")
    assert broken == [], f"{page.relative_to(ROOT)}: " + "; ".join(broken)
