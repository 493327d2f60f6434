"""docs/rulings.md states every ruling the repository cites, and stands on its own (issue 11
item 5): each ruling number cited in the code, the drivers, the tests, the bench and the docs has a
`### Rn Title` section; the page points at nothing outside the repository and cites the rule
documents by id, title and section, never by line; its own links resolve. Nothing else under
tablectl/, drivers/, tests/, hil/ or docs/ cites a rule document by line number either."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "rulings.md"
CITING = ("tablectl", "tablectl_base", "tablectl_drivers", "tests", "hil", "docs")

CITATION = re.compile(r"\bR(\d+)([a-z]?)\b")
# A match that is not a ruling: the red channel of an RGB triple. None is in the tree today.
NOT_A_RULING = re.compile(r"\bR\d+\s*,?\s*G\d+\s*,?\s*B\d+\b")
HEADING = re.compile(r"^### R(\d+)([a-z]?) \S", re.MULTILINE)
GROUP = re.compile(r"^## ", re.MULTILINE)
LINK = re.compile(r"\]\(([^)\s]+)\)")

# The devices' own rulings rest on the device protocols, and R54 on MQTT's delivery, not on a
# rule document.
NO_DOCUMENT = {"R39", "R40", "R54", "R55"}
POKER_ROOM = {f"R{n}" for n in range(41, 47)}


def ruling_id(number: str, letter: str) -> str:
    return f"R{int(number)}{letter}"


def sort_key(ruling: str) -> tuple[int, str]:
    m = re.fullmatch(r"R(\d+)([a-z]?)", ruling)
    assert m, ruling
    return int(m.group(1)), m.group(2)


def citations() -> dict[str, set[str]]:
    """Every ruling cited under CITING, with the files citing it."""
    found: dict[str, set[str]] = defaultdict(set)
    for top in CITING:
        for path in sorted((ROOT / top).rglob("*")):
            if not path.is_file() or "__pycache__" in path.parts or path.suffix == ".pyc":
                continue
            try:
                text = path.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                continue  # not a text file
            text = NOT_A_RULING.sub("", text)
            for m in CITATION.finditer(text):
                found[ruling_id(m.group(1), m.group(2))].add(str(path.relative_to(ROOT)))
    return found


def page() -> str:
    return PAGE.read_text(encoding="utf-8")


def sections(text: str) -> dict[str, str]:
    """Each ruling section's text (up to the next heading of any level), by ruling id."""
    out: dict[str, str] = {}
    heads = list(HEADING.finditer(text))
    for m in heads:
        rest = text[m.end() :]
        end = re.search(r"^#{1,3} ", rest, re.MULTILINE)
        out[ruling_id(m.group(1), m.group(2))] = rest[: end.start() if end else len(rest)]
    return out


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    out: set[str] = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        m = re.match(r"#{1,6} (.+)", line)
        if not m:
            continue
        base = slug(m.group(1))
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return out


def test_every_cited_ruling_has_a_section() -> None:
    headed = {ruling_id(m.group(1), m.group(2)) for m in HEADING.finditer(page())}
    missing = {r: sorted(files) for r, files in citations().items() if r not in headed}
    assert not missing, f"rulings cited without a '### Rn' section in docs/rulings.md: {missing}"


def test_each_ruling_has_one_section_listed_in_the_contents() -> None:
    text = page()
    ids = [ruling_id(m.group(1), m.group(2)) for m in HEADING.finditer(text)]
    assert len(ids) == len(set(ids)), "a ruling has two sections"
    contents = text[: text.index("\n## The player-dealer and the bank")]
    for m in HEADING.finditer(text):
        title = text[m.start() + 4 : text.index("\n", m.start())]
        assert f"(#{slug(title)})" in contents, f"{title!r} is not in the contents"


def test_rulings_are_in_numeric_order_within_each_subject() -> None:
    text = page()
    for group in GROUP.split(text)[1:]:
        ids = [ruling_id(m.group(1), m.group(2)) for m in HEADING.finditer(group)]
        assert ids == sorted(ids, key=sort_key), f"out of order under {group.splitlines()[0]!r}"


def test_each_ruling_cites_its_documents_and_the_poker_room_is_marked() -> None:
    for ruling, body in sections(page()).items():
        if ruling not in NO_DOCUMENT:
            assert re.search(r"\bdocuments? 00[0-4]\b", body), f"{ruling} cites no document"
        if ruling in POKER_ROOM:  # each says how far the poker room has come
            text = body.lower()
            assert (
                re.search(
                    r"\nimplemented for the flop games(, stud)?( and (stud|draw))?( \([^)]*\))?:",
                    text,
                )
                or "\nnot yet implemented: the poker room" in text
            ), ruling


def test_the_page_stands_on_its_own() -> None:
    text = page()
    for outside in ("../shared", "RULINGS.md", "seeds/", "/work/"):
        assert outside not in text, f"docs/rulings.md refers to {outside!r} outside the repository"
    # The rule documents are cited by id, title and section, never by a line or a file name.
    assert not re.search(r"\blines? \d", text), "a document cited by line number"
    assert not re.search(r"\b00[0-4]_[0-9a-f]{8,}", text), "a document cited by file name"


def test_links_resolve() -> None:
    for target in LINK.findall(page()):
        if re.match(r"[a-z]+:", target):
            continue  # not a path in the repository
        file_part, _, anchor = target.partition("#")
        path = (PAGE.parent / file_part).resolve() if file_part else PAGE
        assert path.exists(), f"link to {target!r}: no such file"
        assert ROOT in path.parents or path == ROOT, f"link to {target!r} leaves the repository"
        if anchor:
            assert path.is_file(), f"link to {target!r}: an anchor in a directory"
            assert anchor in anchors(path), f"link to {target!r}: no such heading"


# A rule document cited by line number: a document id, then "line" or "lines" and a number, or the
# number alone, or "line", a number, "of" and the id. The documents are not in the repository, so
# the code cites the section instead (docs/rulings.md, "The documents").
LINE_CITATION = re.compile(
    r"\b00[0-4],?\s+(?:#\s*)?lines?\s*(?:#\s*)?\d+"
    r"|\b00[0-4],? [1-9]\d{1,3}\b(?!\s*(?:to\b|:\d|%))"
    r"|\blines? \d+ of 00[0-4]\b"
)


def cited(text: str) -> str:
    return " ".join(text.split())


def docstrings(tree: ast.AST) -> set[tuple[int, int]]:
    """Where each docstring of a module starts, as (line, column)."""
    out: set[tuple[int, int]] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                out.add((first.value.lineno, first.value.col_offset))
    return out


def strings(path: Path) -> list[tokenize.TokenInfo]:
    """A Python file's string literals, docstrings left out."""
    text = path.read_text(encoding="utf-8")
    skip = docstrings(ast.parse(text))
    tokens = tokenize.generate_tokens(io.StringIO(text).readline)
    return [t for t in tokens if t.type == tokenize.STRING and t.start not in skip]


def published() -> set[str]:
    """The citations in the engines' strings: an alert's `reason` and `rule`, published over MQTT.
    Consoles match on the rule, so these keep their old form; tests and docs quote them."""
    return {
        cited(m.group(0))
        for path in sorted((ROOT / "tablectl" / "games").rglob("*.py"))
        for token in strings(path)
        for m in LINE_CITATION.finditer(token.string)
    }


def line_citations(path: Path, keep: set[str]) -> list[str]:
    """The line citations in a file, but for a published one in a string literal, a code span or
    a JSON example."""
    text = path.read_text(encoding="utf-8")
    if not LINE_CITATION.search(text):
        return []  # most files: no need to tokenize them
    quoted: list[tuple[int, int]] = []
    if path.suffix == ".py":
        starts = [0]
        for line in text.splitlines(keepends=True):
            starts.append(starts[-1] + len(line))
        quoted = [
            (starts[t.start[0] - 1] + t.start[1], starts[t.end[0] - 1] + t.end[1])
            for t in strings(path)
        ]
    out = []
    for m in LINE_CITATION.finditer(text):
        if cited(m.group(0)) in keep:
            if path.suffix == ".py" and any(a <= m.start() < b for a, b in quoted):
                continue
            if path.suffix != ".py" and text[m.start() - 1 : m.start()] in ("`", '"'):
                continue
        number = text.count("\n", 0, m.start()) + 1
        out.append(f"{path.relative_to(ROOT)}:{number}: {cited(m.group(0))}")
    return out


def test_no_rule_document_is_cited_by_line_number() -> None:
    keep = published()
    found: list[str] = []
    for top in CITING:
        for path in sorted((ROOT / top).rglob("*")):
            if not path.is_file() or "__pycache__" in path.parts or path.suffix == ".pyc":
                continue
            try:
                path.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                continue  # not a text file
            found += line_citations(path, keep)
    assert not found, (
        "rule documents cited by line number; cite the section (docs/rulings.md):\n"
        + ("\n".join(found))
    )
