"""Small truths about the code base: every dependency is used, XML is parsed safely."""

from __future__ import annotations

import ast
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "hideseek_chat"


def _sources() -> dict[Path, ast.Module]:
    return {p: ast.parse(p.read_text(encoding="utf-8")) for p in PACKAGE.rglob("*.py")}


def _docstrings(tree: ast.Module) -> set[int]:
    """The ids of the docstring nodes of ``tree`` (a mention in prose is not a use)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def _used_names() -> tuple[set[str], str]:
    """Top-level modules the package imports, and its string literals (not docstrings)."""
    imported: set[str] = set()
    literals: list[str] = []
    for tree in _sources().values():
        docstrings = _docstrings(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                imported |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                imported.add(node.module.split(".")[0])
            elif (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and id(node) not in docstrings
            ):
                literals.append(node.value)
    return imported, "\n".join(literals)


def test_every_runtime_dependency_is_used_by_the_package() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    modules_of: dict[str, set[str]] = {}
    for module, distributions in packages_distributions().items():
        for distribution in distributions:
            modules_of.setdefault(canonicalize_name(distribution), set()).add(module)
    imported, literals = _used_names()
    unused = []
    for text in project["dependencies"]:
        name = canonicalize_name(Requirement(text).name)
        modules = modules_of.get(name, set())
        assert modules, f"{name} is not installed, so its use cannot be checked"
        # Imported, or named by a string the code uses: a SQLAlchemy driver in a URL
        # ("postgresql+psycopg"), a data package read with importlib.resources ("tzdata").
        if not (modules & imported or any(m in literals for m in modules)):
            unused.append(name)
    assert unused == [], f"listed in pyproject.toml but never used: {unused}"


#: Standard-library XML parsers that resolve entities; uploaded XML goes through defusedxml.
UNSAFE_PARSE = {"fromstring", "parse", "iterparse", "XMLParser", "XML", "parseString"}


def test_xml_is_parsed_with_defusedxml_only() -> None:
    for path, tree in _sources().items():
        where = path.relative_to(ROOT)
        unsafe_modules: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    assert not alias.name.startswith(("lxml", "xml.dom", "xml.sax")), where
                    if alias.name.startswith("xml."):
                        unsafe_modules.add(alias.asname or alias.name)
            elif isinstance(node, ast.ImportFrom) and node.module:
                assert not node.module.startswith(("lxml", "xml.dom", "xml.sax")), where
                if node.module.startswith("xml"):
                    for alias in node.names:
                        assert alias.name not in UNSAFE_PARSE, f"{where} imports {alias.name}"
                        unsafe_modules.add(alias.asname or alias.name)
            elif (
                isinstance(node, ast.Attribute)
                and node.attr in UNSAFE_PARSE
                and isinstance(node.value, ast.Name)
                and node.value.id in unsafe_modules
            ):
                raise AssertionError(f"{where}:{node.lineno} parses XML without defusedxml")


def test_tests_that_read_the_shared_folder_skip_when_it_is_absent() -> None:
    """``../shared`` sits beside a checkout here, not in a clone: its readers must skip."""
    readers = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        if '/ "shared"' in source or "../shared/" in source.replace("see ../shared/", ""):
            readers.append(path.relative_to(ROOT))
            assert "pytest.skip(" in source or "skipif(" in source, f"{path} never skips"
    assert readers, "no test reads ../shared: drop this test"
