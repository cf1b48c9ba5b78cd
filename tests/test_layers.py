"""The package's imports follow the floors ``docs/architecture.md`` states: downward and
through the face, and never against one of its named rules. No circles, a part imports only
parts on lower floors and only through their faces (a package's ``__init__.py``: its other
modules are private to it), a module never imports its own part's face, each "never" rule (the
promises the document makes: the report's core names no measurement, ``stats/`` is numpy only,
only ``_inspect.py`` imports Inspect's private modules ...) holds, and a third-party package is
imported only where the third-party table names it.

The rules are read from the document's tables, so the map a newcomer reads and the code cannot
drift apart: a new part without a row (its floor), an import of a part on its own floor or
above, an import of another part's private module, or an import a rule forbids fails here, and
the failure names the rule.

Nothing hides an import from these checks: a relative import is resolved to the module it
names (ruff's TID252 bans them too), and an import by string (``importlib.import_module``,
``__import__``) fails wherever it is, since no table can see what a string names. The checks
are functions over a set of modules, so the tests at the end plant violations and watch
them fail.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "src" / "inspect_medsp"
MAP = REPO / "docs" / "architecture.md"
PYPROJECT = REPO / "pyproject.toml"
TABLE_HEADING = "## What each part may import"
NEVER_HEADING = "## What a part never imports"
THIRD_PARTY_HEADING = "## Third-party packages by part"
PATH = re.compile(r"`([\w/]+(?:\.py|/))`")
NAME = re.compile(r"`(\w+)`")

OPEN_TO_ALL = {"inspect_ai", "pydantic", "pydantic_core"} | set(sys.stdlib_module_names)
"""What every floor may import: Inspect, pydantic (with its core) and the standard library."""

BY_STRING = {"import_module", "__import__"}
"""The names that import a module from a string."""

FRAME_READS = {"_getframe", "currentframe", "f_back", "f_locals"}
"""The names through which a module reads the call stack's frames (``sys._getframe``,
``inspect.currentframe``, ``inspect.stack``, a frame's ``f_back`` and ``f_locals``)."""

KNOWN_EXCEPTIONS: dict[tuple[str, str], str] = {}
"""(rule, module) pairs that break a rule today, each with why it is let pass for now. Empty
it when the reason is gone: an exception that no longer occurs fails the rule's test too."""


@dataclass(frozen=True)
class Module:
    """One module of the package: ``inspect_medsp.data.models`` at ``data/models.py``."""

    name: str
    path: str
    """As the document names it: ``data/models.py``, ``record/`` for a package's
    ``__init__.py``, ``__init__.py`` for the package itself."""
    package: bool
    source: str


def read_package(root: Path) -> dict[str, Module]:
    modules = {}
    for file in sorted(root.rglob("*.py")):
        relative = file.relative_to(root)
        package = relative.name == "__init__.py"
        parts = [root.name, *relative.with_suffix("").parts]
        name = ".".join(parts[:-1] if package else parts)
        path = relative.as_posix().removesuffix("__init__.py") or "__init__.py"
        modules[name] = Module(name, path, package, file.read_text(encoding="utf-8"))
    return modules


MODULES = read_package(PACKAGE)


def planted(path: str, source: str) -> dict[str, Module]:
    """The package with one more module at ``path`` (``data/planted.py``)."""
    name = "inspect_medsp." + path.removesuffix(".py").replace("/", ".")
    return {**MODULES, name: Module(name, path, False, source)}


def is_face(module: str) -> bool:
    """``inspect_medsp.record`` (a package's ``__init__.py``), ``inspect_medsp.tokens`` (a
    top-level module is its own face) and the package itself are faces; modules inside a
    package are private to it."""
    return len(module.split(".")) <= 2


@cache
def bound(source: str) -> frozenset[str]:
    """The names a module binds at its top (under ``if`` blocks too, as ``TYPE_CHECKING``)."""
    names: set[str] = set()
    body = list(ast.parse(source).body)
    while body:
        node = body.pop()
        if isinstance(node, ast.If):
            body.extend([*node.body, *node.orelse])
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
    return frozenset(names)


def part_of(module: str, modules: Mapping[str, Module]) -> str:
    """``inspect_medsp.encounter.roles`` -> ``encounter/``; ``inspect_medsp.tokens`` ->
    ``tokens.py``; the package itself -> ``__init__.py``."""
    rest = module.split(".")[1:]
    if not rest:
        return "__init__.py"
    top = modules.get(f"inspect_medsp.{rest[0]}")
    return f"{rest[0]}/" if top is not None and top.package else f"{rest[0]}.py"


@dataclass(frozen=True)
class Import:
    line: int
    target: str
    """A module of the package, or the top-level name of another package."""
    ours: bool
    relative: bool


@cache
def nodes(source: str) -> tuple[ast.AST, ...]:
    """Every node of the source, parsed once."""
    return tuple(ast.walk(ast.parse(source)))


def absolute(module: Module, node: ast.ImportFrom) -> str:
    """The module an import names, with a relative one resolved against ``module``."""
    if not node.level:
        return node.module or ""
    base = module.name.split(".")
    base = base[: len(base) - node.level + (1 if module.package else 0)]
    return ".".join([*base, *([node.module] if node.module else [])])


def imports(module: Module, modules: Mapping[str, Module]) -> Iterator[Import]:
    """Every import of ``module`` (at the top, inside a function, under ``TYPE_CHECKING``)."""
    for node in nodes(module.source):
        if isinstance(node, ast.ImportFrom):
            source, relative = absolute(module, node), node.level > 0
            if source != "inspect_medsp" and not source.startswith("inspect_medsp."):
                yield Import(node.lineno, source.split(".")[0], False, relative)
                continue
            # ``from inspect_medsp import templates`` imports the module, not the package;
            # ``from inspect_medsp.report import collect`` the function its face binds
            face = modules.get(source)
            found = [
                m
                for a in node.names
                if (m := f"{source}.{a.name}") in modules
                and not (face and a.name in bound(face.source))
            ]
            if len(found) < len(node.names) and source in modules:
                found.append(source)
            yield from (Import(node.lineno, m, True, relative) for m in found)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] != "inspect_medsp":
                    yield Import(node.lineno, alias.name.split(".")[0], False, False)
                elif alias.name in modules:
                    yield Import(node.lineno, alias.name, True, False)


def by_string(module: Module) -> Iterator[int]:
    """The lines of ``module`` that name ``importlib.import_module`` or ``__import__``: called,
    imported or passed on, they import what a string names, which no table can check."""
    for node in nodes(module.source):
        if (
            (isinstance(node, ast.Name) and node.id in BY_STRING)
            or (isinstance(node, ast.Attribute) and node.attr in BY_STRING)
            or (isinstance(node, ast.ImportFrom) and any(a.name in BY_STRING for a in node.names))
        ):
            yield node.lineno


def private_inspect(module: Module) -> Iterator[tuple[int, str]]:
    """Each import of one of Inspect's private modules (``inspect_ai._util.zipfile``,
    ``inspect_ai.log._file``, ``from inspect_ai import _eval``): line and module."""
    for node in nodes(module.source):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
        else:
            continue
        for name in names:
            top, *rest = name.split(".")
            if top == "inspect_ai" and any(part.startswith("_") for part in rest):
                yield node.lineno, name
                break


def frame_reads(module: Module) -> Iterator[int]:
    """The lines of ``module`` that read the call stack's frames."""
    for node in nodes(module.source):
        if (
            (isinstance(node, ast.Attribute) and node.attr in FRAME_READS)
            or (
                isinstance(node, ast.Attribute)
                and node.attr in {"stack", "getouterframes"}
                and isinstance(node.value, ast.Name)
                and node.value.id == "inspect"
            )
            or (
                isinstance(node, ast.ImportFrom)
                and node.module in {"sys", "inspect"}
                and any(a.name in FRAME_READS | {"stack"} for a in node.names)
            )
        ):
            yield node.lineno


class Row:
    """One row of the floor table: its floor and its parts."""

    def __init__(self, floor: int, parts: list[str], text: str) -> None:
        self.floor, self.parts, self.text = floor, parts, text


@dataclass(frozen=True)
class Never:
    """One rule of the "never" table: these parts (or every module but these) never import
    those parts, Inspect's private modules or Inspect's frames."""

    name: str
    parts: tuple[str, ...]
    every_module_but: bool
    targets: tuple[str, ...]
    inspect_private: bool
    frames: bool
    promise: str

    def binds(self, module: Module, modules: Mapping[str, Module]) -> bool:
        """Whether the rule holds ``module`` to it."""
        return covers(list(self.parts), module, modules) != self.every_module_but


def section(heading: str, text: str | None = None) -> str:
    text = MAP.read_text(encoding="utf-8") if text is None else text
    assert heading in text, f"{MAP.name} lost its section '{heading}'"
    return text.split(heading, 1)[1].split("\n## ", 1)[0]


def table(heading: str, text: str | None = None) -> Iterator[list[str]]:
    """The body rows of the first table in the section, as cells."""
    for line in section(heading, text).splitlines():
        if line.startswith("|") and not set(line) <= set("|-: "):
            yield [c.strip() for c in line.strip().strip("|").split("|")]


def read_rows(text: str | None = None) -> list[Row]:
    """The rows of the floor table of ``text`` (the map's own unless given)."""
    return [
        Row(int(cells[0]), PATH.findall(cells[1]), " ".join(cells))
        for cells in table(TABLE_HEADING, text)
        if len(cells) >= 2 and cells[0].isdigit()
    ]


def read_never(text: str | None = None) -> list[Never]:
    """The rules of the "never" table of ``text`` (the map's own unless given)."""
    return [
        Never(
            name=cells[0],
            parts=tuple(PATH.findall(cells[1])),
            every_module_but=cells[1].lower().startswith("every module but"),
            targets=tuple(PATH.findall(cells[2])),
            inspect_private="Inspect's private modules" in cells[2],
            frames="Inspect's frames" in cells[2],
            promise=cells[3] if len(cells) > 3 else "",
        )
        for cells in table(NEVER_HEADING, text)
        if len(cells) >= 3 and cells[0] != "rule"
    ]


def read_third_party() -> dict[str, list[str]]:
    """Each third-party package the map names, and the parts or files that may import it."""
    allowed: dict[str, list[str]] = {}
    for cells in table(THIRD_PARTY_HEADING):
        names = NAME.findall(cells[0])
        if len(cells) >= 2 and len(names) == 1:
            allowed[names[0]] = PATH.findall(cells[1])
    return allowed


ROWS = read_rows()
ROW_OF = {part: row for row in ROWS for part in row.parts}
FLOOR = {part: row.floor for part, row in ROW_OF.items()}
NEVER = read_never()
THIRD_PARTY = read_third_party()


def covers(names: list[str], target: Module, modules: Mapping[str, Module]) -> bool:
    """The names hold the target's part (``data/``) or the target itself
    (``data/models.py``)."""
    return part_of(target.name, modules) in names or target.path in names


def layer_violations(modules: Mapping[str, Module], floors: Mapping[str, int]) -> list[str]:
    """Each import of a part that is not on a lower floor than the importer's, or that
    passes by the imported part's face; and each import of a module's own part's face."""
    wrong = []
    for m in modules.values():
        part = part_of(m.name, modules)
        for i in imports(m, modules):
            if not i.ours:
                continue
            target, there = modules[i.target], part_of(i.target, modules)
            if there == part:
                if is_face(i.target) and not is_face(m.name):
                    wrong.append(
                        f"{m.path}:{i.line} imports its own part's face {target.path}: import "
                        "the module that defines the name (through the face makes circles)"
                    )
            elif part not in floors or floors.get(there, floors[part]) >= floors[part]:
                wrong.append(f"{m.path}:{i.line} imports {target.path}")
            elif not is_face(i.target):
                wrong.append(
                    f"{m.path}:{i.line} imports {target.path}, private to {there}: import its "
                    f"names from its face, {i.target.rsplit('.', 1)[0]}"
                )
    return sorted(set(wrong))


def never_violations(rule: Never, modules: Mapping[str, Module]) -> list[str]:
    """Each import (or frame read) of a module the rule binds that the rule forbids, named
    by the rule."""
    wrong = []
    for m in modules.values():
        if not rule.binds(m, modules):
            continue
        part = part_of(m.name, modules)
        for i in imports(m, modules):
            target = modules.get(i.target)
            if (
                i.ours
                and target is not None
                and part_of(i.target, modules) != part
                and covers(list(rule.targets), target, modules)
            ):
                wrong.append(f"{m.path}:{i.line} imports {target.path}: never ({rule.name})")
        if rule.inspect_private:
            wrong.extend(
                f"{m.path}:{line} imports {name}: never ({rule.name})"
                for line, name in private_inspect(m)
            )
        if rule.frames:
            wrong.extend(
                f"{m.path}:{line} reads a frame: never ({rule.name})" for line in frame_reads(m)
            )
    return sorted(set(wrong))


def excepted(rule: Never, found: list[str]) -> tuple[list[str], list[str]]:
    """``found`` less the rule's known exceptions; and the exceptions that no longer occur."""
    paths = [path for (name, path) in KNOWN_EXCEPTIONS if name == rule.name]
    kept = [f for f in found if f.split(":", 1)[0] not in paths]
    stale = [p for p in paths if not any(f.startswith(f"{p}:") for f in found)]
    return kept, stale


def string_imports(modules: Mapping[str, Module]) -> list[str]:
    return sorted(
        {
            f"{m.path}:{line} imports by string (importlib.import_module or __import__): "
            "import the module by name"
            for m in modules.values()
            for line in by_string(m)
        }
    )


def relative_imports(modules: Mapping[str, Module]) -> list[str]:
    return sorted(
        {
            f"{m.path}:{i.line} imports {modules[i.target].path if i.ours else i.target} "
            "relatively: name it in full"
            for m in modules.values()
            for i in imports(m, modules)
            if i.relative
        }
    )


def third_party_violations(
    modules: Mapping[str, Module], allowed: Mapping[str, list[str]]
) -> list[str]:
    """Each import of a package outside the standard library, Inspect and pydantic by a
    module the third-party table does not name for it."""
    return sorted(
        {
            f"{m.path}:{i.line} imports {i.target}"
            for m in modules.values()
            for i in imports(m, modules)
            if not i.ours
            and i.target not in OPEN_TO_ALL
            and not covers(allowed.get(i.target, []), m, modules)
        }
    )


def edges(modules: Mapping[str, Module]) -> dict[str, list[str]]:
    return {
        m.name: sorted({i.target for i in imports(m, modules) if i.ours and i.target != m.name})
        for m in modules.values()
    }


def test_the_map_has_a_row_for_every_part_of_the_package() -> None:
    assert ROWS, "no floor rows read from the table"
    parts = sorted({part_of(m, MODULES) for m in MODULES})
    missing = [p for p in parts if p not in ROW_OF]
    assert not missing, f"docs/architecture.md has no row for {missing}: add them to the map"
    stale = [p for p in ROW_OF if p not in parts]
    assert not stale, f"docs/architecture.md names parts that do not exist: {stale}"
    floors = [row.floor for row in ROWS]
    assert floors == sorted(floors), "the table lists floors from the ground up"


def test_each_never_rule_names_parts_that_exist() -> None:
    """A rule forbids parts (never a single file: a file's neighbours would pass) and binds
    parts or, as "every module but", the one part or file it leaves out."""
    assert len(NEVER) >= 10, f"the table '{NEVER_HEADING}' lost rules: {[r.name for r in NEVER]}"
    names = [rule.name for rule in NEVER]
    assert len(set(names)) == len(names), f"two rules share a name: {names}"
    for rule in NEVER:
        assert rule.parts, f"rule '{rule.name}' binds no part"
        assert rule.targets or rule.inspect_private or rule.frames, f"'{rule.name}' forbids nothing"
        assert rule.promise, f"rule '{rule.name}' states no promise"
        not_parts = [t for t in rule.targets if t not in ROW_OF]
        assert not not_parts, f"rule '{rule.name}' forbids what is no part: {not_parts}"
        missing = [p for p in rule.parts if p not in ROW_OF and not (PACKAGE / p).exists()]
        assert not missing, f"rule '{rule.name}' names what does not exist: {missing}"


def test_the_map_states_no_order_inside_a_part() -> None:
    """Inside a part modules import each other freely, never in a circle (checked below). An
    order written in the table would be a second rule no test reads; it went stale before."""
    ordered = [row.text for row in ROWS if re.search(r"←|<-|->|→|\binside:", row.text)]
    assert not ordered, (
        "a row states an order inside its part; the layer test does not check one, so state "
        "it as parts of their own or not at all:\n" + "\n".join(ordered)
    )


def test_every_import_is_of_a_lower_floor_through_its_face() -> None:
    wrong = layer_violations(MODULES, FLOOR)
    assert not wrong, "imports the map in docs/architecture.md does not allow:\n" + "\n".join(wrong)


@pytest.mark.parametrize("rule", NEVER, ids=[rule.name for rule in NEVER])
def test_no_module_breaks_a_never_rule(rule: Never) -> None:
    kept, stale = excepted(rule, never_violations(rule, MODULES))
    assert not kept, f"'{rule.name}': {rule.promise}\n" + "\n".join(kept)
    assert not stale, (
        f"KNOWN_EXCEPTIONS lets {stale} break '{rule.name}', but they no longer do: remove them"
    )


def test_no_module_imports_by_string() -> None:
    found = string_imports(MODULES)
    assert not found, "\n".join(found)


def test_no_module_imports_relatively() -> None:
    found = relative_imports(MODULES)
    assert not found, "\n".join(found)


def test_third_party_packages_are_imported_only_where_the_map_allows() -> None:
    wrong = third_party_violations(MODULES, THIRD_PARTY)
    assert not wrong, (
        f"third-party imports the table '{THIRD_PARTY_HEADING}' in docs/architecture.md does "
        "not allow:\n" + "\n".join(wrong)
    )


def declared_distributions() -> set[str]:
    """The distributions ``pyproject.toml`` names: dependencies and every extra."""
    tomllib = pytest.importorskip("tomllib", reason="needs Python 3.11's tomllib")
    project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]
    requirements = [
        *project["dependencies"],
        *(r for extra in project["optional-dependencies"].values() for r in extra),
    ]
    return {normalise(re.split(r"[\s\[<>=!~;]", r, maxsplit=1)[0]) for r in requirements}


def normalise(distribution: str) -> str:
    return re.sub(r"[-_.]+", "-", distribution).lower()


def test_the_third_party_table_names_declared_packages_that_are_imported() -> None:
    assert THIRD_PARTY, f"no rows read from the table '{THIRD_PARTY_HEADING}'"
    declared, providers = declared_distributions(), packages_distributions()
    undeclared = [
        f"{name} (from {', '.join(providers.get(name, ['an uninstalled distribution']))})"
        for name in THIRD_PARTY
        if not any(normalise(d) in declared for d in providers.get(name, []))
    ]
    assert not undeclared, f"pyproject.toml does not declare {undeclared}"
    imported = {i.target for m in MODULES.values() for i in imports(m, MODULES) if not i.ours}
    unused = [name for name in THIRD_PARTY if name not in imported]
    assert not unused, f"the third-party table names packages nothing imports: {unused}"
    unknown = [
        path
        for paths in THIRD_PARTY.values()
        for path in paths
        if path not in ROW_OF and not (PACKAGE / path).exists()
    ]
    assert not unknown, f"the third-party table names paths that do not exist: {unknown}"


def cycles(edges: dict[str, list[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in edges:
        if v not in index:
            visit(v)
    return found


def test_no_module_imports_itself_through_others() -> None:
    circles = cycles(edges(MODULES))
    assert not circles, "import circles:\n" + "\n".join(
        " <-> ".join(MODULES[m].path for m in c) for c in circles
    )


# --------------------------------------------------------------------------- planted violations


@pytest.mark.parametrize(
    "edges",
    [
        {"a": ["b"], "b": ["c"], "c": ["a"], "d": ["a"]},
        {"a": ["b"], "b": ["a"]},
    ],
)
def test_the_circle_check_finds_a_planted_circle(edges: dict[str, list[str]]) -> None:
    assert cycles(edges) in ([["a", "b", "c"]], [["a", "b"]])
    assert cycles({"a": ["b"], "b": ["c"], "c": []}) == []


@pytest.mark.parametrize(
    ("source", "imported"),
    [
        ("from .. import report\n", "report/"),
        ("from ..report import command\n", "report/command.py"),
        ("def later() -> None:\n    from ..report.command import run\n", "report/command.py"),
    ],
)
def test_a_planted_relative_import_of_the_report_from_data_fails(
    source: str, imported: str
) -> None:
    assert not layer_violations(MODULES, FLOOR)
    package = planted("data/planted.py", source)
    line = source.count("\n", 0, source.index("from")) + 1
    assert layer_violations(package, FLOOR) == [f"data/planted.py:{line} imports {imported}"]
    assert relative_imports(package) == [
        f"data/planted.py:{line} imports {imported} relatively: name it in full"
    ]


def test_a_relative_import_inside_a_package_init_resolves_from_the_package() -> None:
    """In ``data/__init__.py``, ``.models`` is ``data/models.py``; ``..report`` is the report."""
    init = MODULES["inspect_medsp.data"]
    package = {
        **MODULES,
        init.name: Module(init.name, init.path, True, "from ..report import command\n"),
    }
    assert layer_violations(package, FLOOR) == ["data/:1 imports report/command.py"]
    package[init.name] = Module(init.name, init.path, True, "from .models import SampleRecord\n")
    assert layer_violations(package, FLOOR) == []
    assert [i.target for i in imports(package[init.name], package)] == ["inspect_medsp.data.models"]


@pytest.mark.parametrize(
    "source",
    [
        'import importlib\n\nimportlib.import_module("inspect_medsp.report")\n',
        'from importlib import import_module as load\n\nload("inspect_medsp.report")\n',
        '__import__("inspect_medsp.report")\n',
    ],
)
def test_a_planted_import_of_the_report_by_string_in_data_fails(source: str) -> None:
    assert not string_imports(MODULES)
    found = string_imports(planted("data/planted.py", source))
    assert found and all(f.startswith("data/planted.py:") for f in found), found


@pytest.mark.parametrize(
    "source",
    ["import matplotlib\n", "from matplotlib import pyplot\n", "import matplotlib.pyplot as plt\n"],
)
def test_matplotlib_planted_in_data_fails(source: str) -> None:
    assert not third_party_violations(MODULES, THIRD_PARTY)
    package = planted("data/planted.py", source)
    assert third_party_violations(package, THIRD_PARTY) == ["data/planted.py:1 imports matplotlib"]
    # and where the table allows it, the same import passes
    assert not third_party_violations(planted("report/planted.py", source), THIRD_PARTY)


@pytest.mark.parametrize(
    ("source", "private"),
    [
        ("from inspect_medsp.record.read import read_log\n", "record/read.py"),
        ("from inspect_medsp.record import read as reading\n", "record/read.py"),
        (
            "def later() -> None:\n    from inspect_medsp.record.score import KEYS\n",
            "record/score.py",
        ),
        (
            "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n"
            "    from inspect_medsp.record.trajectory import Trajectory\n",
            "record/trajectory.py",
        ),
    ],
)
def test_a_planted_import_of_another_parts_private_module_fails(source: str, private: str) -> None:
    """The report stands above ``record/``, but imports it only through its face."""
    assert not layer_violations(MODULES, FLOOR)
    line = source.count("\n", 0, source.index("from inspect_medsp")) + 1
    assert layer_violations(planted("report/planted.py", source), FLOOR) == [
        f"report/planted.py:{line} imports {private}, private to record/: import its names "
        "from its face, inspect_medsp.record"
    ]
    through_the_face = "from inspect_medsp.record import KEYS, Trajectory, read_log\n"
    assert not layer_violations(planted("report/planted.py", through_the_face), FLOOR)


def test_a_name_a_face_binds_is_not_the_module_of_that_name() -> None:
    """``report/__init__.py`` exports the function ``collect`` of its module ``runs.py``:
    importing the name passes the face; the test does not take it for the module."""
    source = "from inspect_medsp.report import collect\n"
    assert "collect" in bound(MODULES["inspect_medsp.report"].source)
    assert not layer_violations(planted("audit/planted.py", source), FLOOR)


def test_a_planted_import_through_its_own_face_fails() -> None:
    package = planted("report/planted.py", "from inspect_medsp.report import Section\n")
    assert layer_violations(package, FLOOR) == [
        "report/planted.py:1 imports its own part's face report/: import the module that "
        "defines the name (through the face makes circles)"
    ]


def test_a_planted_import_on_its_own_floor_fails() -> None:
    """Parts on one floor never import each other: ``stats/`` and ``hooks/`` share floor 7."""
    assert FLOOR["stats/"] == FLOOR["hooks/"]
    package = planted("stats/planted.py", "from inspect_medsp.hooks import add_lines\n")
    assert layer_violations(package, FLOOR) == ["stats/planted.py:1 imports hooks/"]


def rule(name: str) -> Never:
    return next(r for r in NEVER if r.name == name)


def appended(path: str, source: str) -> dict[str, Module]:
    """The package with ``source`` appended to its module at ``path`` (``analysis.py``)."""
    found = next(m for m in MODULES.values() if m.path == path)
    return {**MODULES, found.name: Module(found.name, path, found.package, found.source + source)}


PLANTED = [
    (
        planted("stats/planted.py", "from inspect_medsp.human import run_started\n"),
        "stats is numpy only",
        "stats/planted.py:1 imports human/",
    ),
    (
        planted("stats/planted.py", "def later() -> None:\n    import inspect_medsp.scripted\n"),
        "stats is numpy only",
        "stats/planted.py:2 imports scripted/",
    ),
    (
        planted("stats/planted.py", "from inspect_medsp.encounter import Encounter\n"),
        "stats is numpy only",
        "stats/planted.py:1 imports encounter/",
    ),
    (
        planted("hooks/planted.py", "from inspect_medsp.scoring import MIN_CASES\n"),
        "no seam names a measurement",
        "hooks/planted.py:1 imports scoring/",
    ),
    (
        planted("orders/planted.py", "from inspect_medsp.preflight import RunContext\n"),
        "an order is its words",
        "orders/planted.py:1 imports preflight/",
    ),
    (
        appended("analysis.py", "\nfrom inspect_medsp.estimate import BILL\n"),
        "analysis reads the records",
        "analysis.py:{line} imports estimate/",
    ),
    (
        planted("report/planted.py", "from inspect_medsp.workup import WORKUP\n"),
        "the core names no measurement",
        "report/planted.py:1 imports workup/",
    ),
    (
        planted("record/planted.py", "from inspect_medsp.measure import Kit\n"),
        "the record knows no scorer or engine",
        "record/planted.py:1 imports measure/",
    ),
    (
        appended("tasks.py", "\nfrom inspect_medsp.audit import AUDIT\n"),
        "the task names only the rubric",
        "tasks.py:{line} imports audit/",
    ),
    (
        appended("_registry.py", "\nfrom inspect_medsp.hooks import add_lines\n"),
        "the hooks come with a MedSP task",
        "_registry.py:{line} imports hooks/",
    ),
    (
        planted("report/planted.py", "import inspect_ai._util.zipfile\n"),
        "only _inspect.py imports Inspect's private modules",
        "report/planted.py:1 imports inspect_ai._util.zipfile",
    ),
    (
        planted("data/planted.py", "from inspect_ai.log._file import read_eval_log\n"),
        "only _inspect.py imports Inspect's private modules",
        "data/planted.py:1 imports inspect_ai.log._file",
    ),
    (
        planted("record/planted.py", "from inspect_ai import _eval\n"),
        "only _inspect.py imports Inspect's private modules",
        "record/planted.py:1 imports inspect_ai._eval",
    ),
    (
        planted("calls/planted.py", "import sys\n\nframe = sys._getframe(1)\n"),
        "only the run context reads Inspect's frames",
        "calls/planted.py:3 reads a frame",
    ),
]
"""Each planted module or import, the rule it breaks, and the finding (``{line}``: the
appended line)."""


@pytest.mark.parametrize(
    ("package", "name", "found"), PLANTED, ids=[found.split(": ")[0] for _, _, found in PLANTED]
)
def test_a_planted_import_breaks_its_named_rule(
    package: dict[str, Module], name: str, found: str
) -> None:
    """Each import the floors alone would allow (or no table sees) but a promise forbids
    fails the rule that states the promise, and the failure names it."""
    broken = rule(name)
    assert not excepted(broken, never_violations(broken, MODULES))[0]
    if "{line}" in found:
        path = found.split(":", 1)[0]
        found = found.format(
            line=next(m for m in package.values() if m.path == path).source.count("\n")
        )
    assert f"{found}: never ({name})" in never_violations(broken, package)


@pytest.mark.parametrize("broken", NEVER, ids=[r.name for r in NEVER])
def test_every_never_rule_fails_on_a_planted_import(broken: Never) -> None:
    """Each rule, planted against its first target in a module it binds, fails."""
    if broken.targets:
        source = f"import inspect_medsp.{broken.targets[0].rstrip('/').removesuffix('.py')}\n"
    elif broken.inspect_private:
        source = "import inspect_ai._util.zipfile\n"
    else:
        source = "import sys\n\nframe = sys._getframe(1)\n"
    first = "calls/" if broken.every_module_but else broken.parts[0]
    package = (
        appended(first, "\n" + source)
        if first.endswith(".py")
        else planted(f"{first}planted.py", source)
    )
    found = never_violations(broken, package)
    assert any(f.endswith(f": never ({broken.name})") for f in found), found


WORKED_EXAMPLE = REPO / "tests" / "support" / "orders"
"""The worked example of the recipe "Add a measurement" (docs/architecture.md)."""


def test_the_recipes_worked_example_passes_as_a_slice_of_the_package() -> None:
    """Copied into ``src/`` as a slice on the measurements' floor (that of ``workup/``), the
    worked example breaks no floor, face or never rule: it imports only faces."""
    slice_name = "inspect_medsp.clinician_orders"
    package = dict(MODULES)
    for file in sorted(WORKED_EXAMPLE.glob("*.py")):
        source = file.read_text(encoding="utf-8").replace("tests.support.orders", slice_name)
        is_init = file.name == "__init__.py"
        name = slice_name if is_init else f"{slice_name}.{file.stem}"
        path = "clinician_orders/" + ("" if is_init else file.name)
        package[name] = Module(name, path, is_init, source)
    floors = {**FLOOR, "clinician_orders/": FLOOR["workup/"]}
    assert [i.target for i in imports(package[f"{slice_name}.orders"], package) if i.ours]
    found = [
        *layer_violations(package, floors),
        *(f for r in NEVER for f in never_violations(r, package) if "clinician_orders/" in f),
        *(f for f in third_party_violations(package, THIRD_PARTY) if "clinician_orders/" in f),
    ]
    assert not [f for f in found if f.startswith("clinician_orders/")], "\n".join(found)


def test_importing_the_package_needs_no_optional_extra() -> None:
    """matplotlib and markdown_it are the ``report`` extra's, pandas the ``analysis`` extra's:
    importing the package, its tasks, its command line and every face imports none of them
    (a face exports a drawing module's names lazily)."""
    faces = sorted(name for name in MODULES if is_face(name))
    code = (
        f"import sys\nimport {', '.join(faces)}\n"
        "print([m for m in ('matplotlib', 'markdown_it', 'pandas') if m in sys.modules])"
    )
    run = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]", f"importing the package imported {run.stdout.strip()}"
