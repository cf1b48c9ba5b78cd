"""The package's imports follow the floors ``docs/architecture.md`` states: no circles, nothing
imports upward, and a part imports only what its row of the table allows.

The rules are read from the document's table, so the map a newcomer reads and the code cannot
drift apart: a new part without a row, an import its row does not allow, or a row allowing a
part above it fails here.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "src" / "inspect_medsp"
MAP = REPO / "docs" / "architecture.md"
TABLE_HEADING = "## What each part may import"
PATH = re.compile(r"`([\w/]+(?:\.py|/))`")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def part_of(module: str) -> str:
    """``inspect_medsp.encounter.roles`` -> ``encounter/``; ``inspect_medsp.tokens`` ->
    ``tokens.py``; the package itself -> ``__init__.py``."""
    rest = module.split(".")[1:]
    if not rest:
        return "__init__.py"
    if (PACKAGE / rest[0]).is_dir():
        return f"{rest[0]}/"
    return f"{rest[0]}.py"


def path_of(module: str) -> str:
    """The module as the document names it: ``encounter/roles.py``, ``record/``."""
    path = MODULES[module].relative_to(PACKAGE).as_posix()
    return path.removesuffix("__init__.py") or "__init__.py"


def imports(module: str) -> Iterator[tuple[str, int]]:
    """Every module of the package ``module`` imports (at the top or inside a function),
    with the line."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if not node.module.startswith("inspect_medsp"):
                continue
            submodules = [f"{node.module}.{a.name}" for a in node.names]
            found = [m for m in submodules if m in MODULES]
            # ``from inspect_medsp import templates`` imports the module, not the package
            yield from ((m, node.lineno) for m in found or [node.module] if m in MODULES)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in MODULES:
                    yield alias.name, node.lineno


EDGES = {m: sorted({t for t, _ in imports(m) if t != m}) for m in MODULES}


class Row:
    """One row of the table: its parts, and the parts or modules they may import."""

    def __init__(self, floor: int, parts: list[str], allowed: list[str]) -> None:
        self.floor, self.parts, self.allowed = floor, parts, allowed


def read_rows() -> list[Row]:
    text = MAP.read_text(encoding="utf-8")
    assert TABLE_HEADING in text, f"{MAP.name} lost its table '{TABLE_HEADING}'"
    section = text.split(TABLE_HEADING, 1)[1]
    rows: list[Row] = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3 or not cells[0].isdigit():
            continue
        rows.append(Row(int(cells[0]), PATH.findall(cells[1]), PATH.findall(cells[2])))
    return rows


ROWS = read_rows()
ROW_OF = {part: row for row in ROWS for part in row.parts}


def allows(row: Row, target: str) -> bool:
    """The row names the target's part (``data/``) or the target itself
    (``data/models.py``)."""
    return part_of(target) in row.allowed or path_of(target) in row.allowed


def test_the_map_has_a_row_for_every_part_of_the_package() -> None:
    assert ROWS, "no floor rows read from the table"
    parts = sorted({part_of(m) for m in MODULES})
    missing = [p for p in parts if p not in ROW_OF]
    assert not missing, f"docs/architecture.md has no row for {missing}: add them to the map"
    stale = [p for p in ROW_OF if p not in parts]
    assert not stale, f"docs/architecture.md names parts that do not exist: {stale}"
    floors = [row.floor for row in ROWS]
    assert floors == sorted(floors), "the table lists floors from the ground up"


def test_no_row_allows_a_part_on_its_own_floor_or_above() -> None:
    upward = [
        f"{', '.join(row.parts)} (floor {row.floor}) may import {name} (floor "
        f"{ROW_OF[part].floor})"
        for row in ROWS
        for name in row.allowed
        if (part := name if name.endswith("/") or "/" not in name else name.split("/")[0] + "/")
        in ROW_OF
        and ROW_OF[part].floor >= row.floor
    ]
    unknown = [
        name
        for row in ROWS
        for name in row.allowed
        if name not in ROW_OF and not (PACKAGE / name).exists()
    ]
    assert not upward, "\n".join(upward)
    assert not unknown, f"the table allows paths that do not exist: {unknown}"


def test_every_import_is_one_its_row_allows() -> None:
    wrong = [
        f"{path_of(m)}:{line} imports {path_of(t)}"
        for m in MODULES
        for t, line in imports(m)
        if part_of(t) != part_of(m) and not allows(ROW_OF[part_of(m)], t)
    ]
    assert not wrong, "imports the map in docs/architecture.md does not allow:\n" + "\n".join(
        sorted(set(wrong))
    )


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
    circles = cycles(EDGES)
    assert not circles, "import circles:\n" + "\n".join(
        " <-> ".join(path_of(m) for m in c) for c in circles
    )


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
