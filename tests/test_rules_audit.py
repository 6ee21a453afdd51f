"""The rules audit (docs/rules-audit.md) names a test for every mechanic; each must exist.

A row's test cell names tests as ``file.py::test_name`` (a bare file is under ``tests/rules/``;
``tests/...`` paths are from the checkout's root) and continues a file's list with
``::test_name`` (a section whose text names its test file before the table starts its
rows with that file). A renamed or deleted test leaves a row that claims more than is true, so
this fails until the row is corrected.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
AUDIT = ROOT / "docs" / "rules-audit.md"

#: ``tests/chat/test_x.py``, ``test_x.py``, or ``::test_name`` (continuing the last file).
_REFERENCE = re.compile(r"(?P<file>(?:tests/[\w/]+/)?test_\w+\.py)|::(?P<test>test_\w+)")


@cache
def defined_tests(path: Path) -> frozenset[str]:
    """The test functions a test module defines (at module level or in a class)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return frozenset(
        node.name
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test")
    )


def references() -> list[tuple[int, str, str | None]]:
    """Every ``(line number, test file, test name or None)`` the audit's table rows name."""
    found: list[tuple[int, str, str | None]] = []
    section_file: str | None = None  # "tests in `tests/rules/test_x.py`" above a table
    for number, line in enumerate(AUDIT.read_text(encoding="utf-8").splitlines(), start=1):
        if line.startswith("#"):
            section_file = None
        elif not line.startswith("|"):
            named = _REFERENCE.search(line)
            if named and named["file"]:
                section_file = named["file"]
            continue
        if line.startswith("| ---"):
            continue
        cells = line.strip().strip("|").split("|")
        if len(cells) < 3 or cells[0].strip() == "mechanic":
            continue
        current = section_file
        for match in _REFERENCE.finditer(cells[-1]):
            if match["file"]:
                current = match["file"]
                found.append((number, current, None))
            elif current is not None:
                found.append((number, current, match["test"]))
            else:
                found.append((number, "?", match["test"]))
    return found


def resolve(name: str) -> Path:
    return ROOT / name if name.startswith("tests/") else ROOT / "tests" / "rules" / name


def test_the_audit_names_tests() -> None:
    assert len(references()) > 150


def test_every_mechanic_has_a_test() -> None:
    lines = AUDIT.read_text(encoding="utf-8").splitlines()
    rows = [
        line
        for line in lines
        if line.startswith("| ") and not line.startswith("| ---") and "| mechanic |" not in line
    ]
    bare = [
        row[:80] for row in rows if not _REFERENCE.search(row.strip().strip("|").split("|")[-1])
    ]
    assert bare == [], "rows without a test"


@pytest.mark.parametrize(
    ("line", "file", "name"), references(), ids=lambda v: str(v) if v is not None else ""
)
def test_each_named_test_exists(line: int, file: str, name: str | None) -> None:
    path = resolve(file)
    assert path.is_file(), f"docs/rules-audit.md:{line} names {file}, which does not exist"
    if name is not None:
        assert name in defined_tests(path), (
            f"docs/rules-audit.md:{line} names {file}::{name}, which does not exist"
        )
