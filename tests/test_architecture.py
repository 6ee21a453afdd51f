"""The package's shape, checked statically: no import cycle in chat/, no forbidden arrow
between packages, no overlong module (see ../shared/STYLE.md, "The conversation layer").

Imports are read from the source with ``ast``, never by importing the package: every
``import`` counts, wherever it stands (module level, inside a function, under
``if TYPE_CHECKING:``), since hiding an import there does not remove the dependency.
"""

from __future__ import annotations

import ast
from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

import pytest

PACKAGE_ROOT = Path(__file__).resolve().parents[1] / "hideseek_chat"

#: Which top-level parts of the package each part may import (its own modules always).
#: A part is a subpackage (``rules``) or a top-level module (``app``, ``config``); the root
#: ``__init__`` is "__init__". The arrows go one way: rules <- geo <- store <- (maps,
#: pictures) <- chat <- channels <- app/cli. A new package is one line here; a part missing
#: from the table fails the test until it gets its line. Parts not yet written may be listed.
#: Logging set-up and ``who`` (logs), the Prometheus metrics (metrics): standard library
#: and prometheus-client only, recorded to from every layer that sees something happen.
_OPS = frozenset({"logs", "metrics"})
_BELOW_CHAT = frozenset({"rules", "geo", "store", "maps", "pictures"}) | _OPS
_CHANNELS = frozenset({"telegram", "sms", "web", "console"})
ALLOWED: dict[str, frozenset[str]] = {
    "__init__": frozenset(),
    "rules": frozenset(),
    "geo": frozenset({"rules"}),
    # The settings object, standard library only; the store reads DATABASE_URL through it.
    "config": frozenset(),
    "logs": frozenset(),
    "metrics": frozenset(),
    "store": frozenset({"rules", "geo", "config"}) | _OPS,
    "maps": frozenset({"rules", "geo", "store"}) | _OPS,
    "pictures": frozenset({"rules", "geo", "store"}) | _OPS,
    "chat": _BELOW_CHAT,
    "telegram": _BELOW_CHAT | {"chat"},
    "sms": _BELOW_CHAT | {"chat"},
    "web": _BELOW_CHAT | {"chat"},
    "console": _BELOW_CHAT | {"chat"},
    "app": _BELOW_CHAT | {"chat", "config"} | _CHANNELS,
    "cli": _BELOW_CHAT | {"chat", "config", "app", "cli_maps", "cli_data"} | _CHANNELS,
    # The ``map`` subcommands of the command line (build from an extract, import, export).
    "cli_maps": _BELOW_CHAT | {"chat", "config"},
    "cli_data": frozenset({"store", "config", "chat"}),  # chat.parsing reads phone numbers
    "__main__": frozenset({"cli"}),
}

#: The package whose modules must not import each other in a circle.
ACYCLIC = "chat"

#: Longest module allowed, in lines (STYLE.md: "aim for modules under ~600 lines").
MAX_LINES = 600


@dataclass(frozen=True)
class Import:
    """One import of a package module by another, with where it is written."""

    importer: str
    imported: str
    path: Path
    line: int

    def where(self, root: Path) -> str:
        return f"{self.path.relative_to(root.parent).as_posix()}:{self.line}"


def modules(root: Path) -> dict[str, Path]:
    """Map each module of the package at ``root`` to its file (``a.b`` for ``a/b/__init__.py``)."""
    found: dict[str, Path] = {}
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _known(name: str, known: Mapping[str, Path]) -> str | None:
    """Return the longest prefix of the dotted ``name`` that is a module in ``known``."""
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in known:
            return candidate
        parts.pop()
    return None


def _parse(path: Path) -> ast.Module:
    """``path``'s syntax tree. Python 3.11 can raise a spurious SystemError ("AST
    constructor recursion depth mismatch", CPython gh-106905) when another thread of the
    test process compiles at the same moment (a fresh checkout compiles every module it
    imports): the file is read again then, a few times, before the error counts."""
    source = path.read_text(encoding="utf-8")
    for _ in range(4):
        try:
            return ast.parse(source, filename=str(path))
        except SystemError:
            continue
    return ast.parse(source, filename=str(path))


def imports(root: Path) -> list[Import]:
    """List every import from a module of the package at ``root`` of another of its modules.

    Relative imports are resolved; ``from pkg import name`` counts as importing the
    submodule ``pkg.name`` when there is one, else ``pkg`` itself.
    """
    known = modules(root)
    found: list[Import] = []
    for module, path in known.items():
        is_package = path.name == "__init__.py"
        tree = _parse(path)
        for node in ast.walk(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    here = module.split(".") if is_package else module.split(".")[:-1]
                    base_parts = here[: len(here) - (node.level - 1)]
                    base = ".".join([*base_parts, *([node.module] if node.module else [])])
                else:
                    base = node.module or ""
                targets = [
                    f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                    for alias in node.names
                ]
            for imported in dict.fromkeys(_known(target, known) for target in targets):
                if imported is not None and imported != module:
                    found.append(Import(module, imported, path, node.lineno))
    return found


def part_of(module: str) -> str:
    """Return the top-level part of the package ``module`` belongs to (``rules``, ``app``)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def forbidden_arrows(root: Path, allowed: Mapping[str, Iterable[str]] = ALLOWED) -> list[str]:
    """Describe each import that crosses between parts against ``allowed``, one per line."""
    package = root.name
    problems: list[str] = []
    for part in sorted({part_of(module) for module in modules(root)} - set(allowed)):
        problems.append(f"{package}.{part} is not in the ALLOWED table: give it a line")
    for found in imports(root):
        source, target = part_of(found.importer), part_of(found.imported)
        # The root package runs before any of its submodules anyway; its own imports are
        # checked under "__init__".
        if source == target or target == "__init__" or source not in allowed:
            continue
        if target not in set(allowed[source]):
            may = ", ".join(sorted(allowed[source]))
            problems.append(
                f"{found.importer} -> {found.imported} ({found.where(root)}): "
                + (f"{source} may import only {may}" if may else f"{source} may import none")
            )
    return problems


def _strongly_connected(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """Return the strongly connected components of ``graph`` (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component: list[str] = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            components.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return components


def _shortest_cycle(graph: Mapping[str, set[str]], members: list[str]) -> list[str]:
    """Return a shortest cycle among ``members`` as ``[a, b, ..., a]``."""
    inside = set(members)
    best: list[str] = []
    for start in members:
        previous: dict[str, str] = {}
        queue = deque([start])
        while queue:
            node = queue.popleft()
            if start in graph.get(node, set()):
                path = [node]
                while path[-1] != start:
                    path.append(previous[path[-1]])
                cycle = [*reversed(path), start]
                if not best or len(cycle) < len(best):
                    best = cycle
                break
            for nxt in sorted(graph.get(node, set()) & inside):
                if nxt not in previous and nxt != start:
                    previous[nxt] = node
                    queue.append(nxt)
    return best


def import_cycles(root: Path, within: str = ACYCLIC) -> list[str]:
    """Describe one import cycle per group of modules under ``within`` that import each other.

    Each description is ``a -> b -> c -> a``, then where each arrow is written.
    """
    prefix = f"{root.name}.{within}"
    graph: dict[str, set[str]] = {}
    where: dict[tuple[str, str], str] = {}
    for found in imports(root):
        if all(m == prefix or m.startswith(prefix + ".") for m in (found.importer, found.imported)):
            graph.setdefault(found.importer, set()).add(found.imported)
            where.setdefault((found.importer, found.imported), found.where(root))
    problems: list[str] = []
    for members in _strongly_connected(graph):
        if len(members) < 2:
            continue
        cycle = _shortest_cycle(graph, members)
        arrows = "".join(f"\n      {a} -> {b} ({where[a, b]})" for a, b in pairwise(cycle))
        knot = ""
        if len(members) > len(cycle) - 1:
            knot = (
                f"\n    (one of the cycles among {len(members)} modules that all reach each "
                f"other: {', '.join(members)})"
            )
        problems.append(f"{' -> '.join(cycle)}{arrows}{knot}")
    return problems


def overlong_modules(root: Path, limit: int = MAX_LINES) -> list[str]:
    """Describe each module of the package at ``root`` longer than ``limit`` lines."""
    problems: list[str] = []
    for path in modules(root).values():
        count = len(path.read_text(encoding="utf-8").splitlines())
        if count > limit:
            problems.append(f"{path.relative_to(root.parent).as_posix()}: {count} lines")
    return problems


# --- the package itself ---------------------------------------------------------------


def test_chat_has_no_import_cycle() -> None:
    cycles = import_cycles(PACKAGE_ROOT)
    if cycles:
        pytest.fail(
            f"hideseek_chat.{ACYCLIC} must read top-down with no way back; "
            f"{len(cycles)} import cycle(s):\n  " + "\n  ".join(cycles),
            pytrace=False,
        )


def test_no_forbidden_arrow_between_packages() -> None:
    arrows = forbidden_arrows(PACKAGE_ROOT)
    if arrows:
        pytest.fail(
            "arrows between packages go one way (see ALLOWED in this file):\n  "
            + "\n  ".join(arrows),
            pytrace=False,
        )


def test_no_module_over_the_line_limit() -> None:
    overlong = overlong_modules(PACKAGE_ROOT)
    if overlong:
        pytest.fail(
            f"modules over {MAX_LINES} lines (split them):\n  " + "\n  ".join(overlong),
            pytrace=False,
        )


# --- the checker can fail -------------------------------------------------------------


def _write(root: Path, files: Mapping[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


@pytest.fixture
def package(tmp_path: Path) -> Path:
    """A small clean package shaped like the real one: rules <- store <- chat."""
    return _write(
        tmp_path / "pkg",
        {
            "__init__.py": "",
            "rules/__init__.py": "",
            "rules/state.py": "X = 1\n",
            "store/__init__.py": "from pkg.rules.state import X\n",
            "store/uow.py": "from ..rules import state\n",
            "chat/__init__.py": "",
            "chat/model.py": "from pkg.store import uow\n",
            "chat/service.py": "from . import model\nfrom .model import uow\n",
        },
    )


def test_a_clean_package_passes(package: Path) -> None:
    assert import_cycles(package) == []
    assert forbidden_arrows(package) == []
    assert overlong_modules(package) == []


def test_imports_are_resolved_to_modules(package: Path) -> None:
    arrows = {(i.importer, i.imported) for i in imports(package)}
    assert arrows == {
        ("pkg.store", "pkg.rules.state"),
        ("pkg.store.uow", "pkg.rules.state"),
        ("pkg.chat.model", "pkg.store.uow"),
        ("pkg.chat.service", "pkg.chat.model"),
    }


def test_a_cycle_through_a_function_and_type_checking_is_reported(package: Path) -> None:
    _write(
        package,
        {
            "chat/model.py": "def later():\n    from pkg.chat import service\n",
            "chat/service.py": (
                "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n"
                "    from .model import later\n"
            ),
        },
    )
    (cycle,) = import_cycles(package)
    assert cycle.startswith("pkg.chat.model -> pkg.chat.service -> pkg.chat.model\n")
    assert "pkg/chat/model.py:2" in cycle
    assert "pkg/chat/service.py:3" in cycle


def test_a_three_module_cycle_is_reported_once(package: Path) -> None:
    _write(
        package,
        {
            "chat/a.py": "from pkg.chat import b\n",
            "chat/b.py": "import pkg.chat.c\n",
            "chat/c.py": "def f():\n    from . import a\n",
        },
    )
    (cycle,) = import_cycles(package)
    assert cycle.startswith("pkg.chat.a -> pkg.chat.b -> pkg.chat.c -> pkg.chat.a\n")


def test_a_forbidden_arrow_is_reported(package: Path) -> None:
    _write(
        package,
        {
            "rules/state.py": "import pkg.store.uow\n",
            "rules/deck.py": (
                "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..store import uow\n"
            ),
            "store/uow.py": "def f():\n    from pkg.chat import service\n",
        },
    )
    assert forbidden_arrows(package) == [
        "pkg.rules.deck -> pkg.store.uow (pkg/rules/deck.py:3): rules may import none",
        "pkg.rules.state -> pkg.store.uow (pkg/rules/state.py:1): rules may import none",
        "pkg.store.uow -> pkg.chat.service (pkg/store/uow.py:2): "
        "store may import only config, geo, logs, metrics, rules",
    ]


def test_a_package_missing_from_the_table_is_reported(package: Path) -> None:
    _write(package, {"fax/__init__.py": ""})
    assert forbidden_arrows(package) == ["pkg.fax is not in the ALLOWED table: give it a line"]


def test_an_overlong_module_is_reported(package: Path) -> None:
    _write(package, {"chat/long.py": "x = 1\n" * (MAX_LINES + 1)})
    assert overlong_modules(package) == [f"pkg/chat/long.py: {MAX_LINES + 1} lines"]
