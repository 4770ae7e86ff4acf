"""The fenced code blocks of the documents (README.md and docs/*.md), and excerpt matching.

A block is found wherever CommonMark finds one: a fence of three backticks at the start of a
line or indented by up to three spaces (inside a list item), its body dedented by as much. The
line before a fence may name the block with an HTML comment (``<!-- training-loop -->``), and
every block knows the heading it stands under.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = ("README.md", *sorted(f"docs/{path.name}" for path in (ROOT / "docs").glob("*.md")))

_FENCE = re.compile(r"^( {0,3})```(\S*)[ \t]*\n(.*?)^\1```[ \t]*$", re.DOTALL | re.MULTILINE)
_HEADING = re.compile(r"^#{1,6} (.+)$", re.MULTILINE)
_MARKER = re.compile(r"<!-- ([\w-]+) -->\n( {0,3})```")
# The address of the server of `make run` in the documents: the tests run their examples against
# a server of their own and read this address as that server's.
ADDRESS = "localhost:50051"


@dataclass(frozen=True)
class Block:
    """One fenced block: where it is, its fence language, its body (dedented), its heading."""

    doc: str
    line: int
    language: str
    body: str
    section: str
    marker: str

    @property
    def first_line(self) -> str:
        return next((line for line in self.body.splitlines() if line.strip()), "")

    def __str__(self) -> str:
        return f"{self.doc}:{self.line} ```{self.language} ({self.first_line.strip()[:60]})"


@cache
def blocks(doc: str | None = None) -> tuple[Block, ...]:
    """Every fenced block of one document, or of every document, in order."""
    if doc is None:
        return tuple(block for name in DOCUMENTS for block in blocks(name))
    text = (ROOT / doc).read_text(encoding="utf-8")
    fences = list(_FENCE.finditer(text))
    headings = [
        (m.start(), m.group(1).strip())
        for m in _HEADING.finditer(text)
        if not any(f.start() < m.start() < f.end() for f in fences)
    ]
    markers = {m.end() - len(m.group(2)) - 3: m.group(1) for m in _MARKER.finditer(text)}
    found = []
    for match in fences:
        indent = len(match.group(1))
        body = "".join(
            line[indent:] if line[:indent].strip() == "" else line
            for line in match.group(3).splitlines(keepends=True)
        )
        found.append(
            Block(
                doc=doc,
                line=text.count("\n", 0, match.start()) + 1,
                language=match.group(2),
                body=body,
                section=next((title for at, title in reversed(headings) if at < match.start()), ""),
                marker=markers.get(match.start(), ""),
            )
        )
    return tuple(found)


def squash(line: str) -> str:
    """A line without its whitespace: excerpts and programs compare this way (indentation,
    line breaks inside a call and the spaces a formatter puts are not the example's)."""
    return "".join(line.split())


_ELISION = re.compile(r"^\s*(//|#)?\s*(…|\.\.\.)\s*$")


def excerpt_chunks(body: str) -> list[list[str]]:
    """An excerpt's runs of lines, split where it elides lines (a line ``// …``, ``# …`` or
    ``...``); blank lines and import lines are left out (imports are checked by name)."""
    chunks: list[list[str]] = [[]]
    for line in body.splitlines():
        if _ELISION.match(line):
            chunks.append([])
        elif line.strip() and not line.lstrip().startswith("import "):
            chunks[-1].append(squash(line))
    return [chunk for chunk in chunks if chunk]


def missing_chunks(body: str, program: str) -> list[list[str]]:
    """The runs of an excerpt that the program does not hold as consecutive lines (blank
    lines and whitespace aside)."""
    lines = [squash(line) for line in program.splitlines() if line.strip()]
    missing = []
    for chunk in excerpt_chunks(body):
        size = len(chunk)
        if not any(lines[i : i + size] == chunk for i in range(len(lines) - size + 1)):
            missing.append(chunk)
    return missing
