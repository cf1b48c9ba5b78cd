"""The package's surface in counts: how much code, how much each face exports and how much of
that anyone uses, which modules and functions are long, which face names shadow a module, and
how often the tests reach past a face.

Usage (from the repository root): ``python -m bench.surface [--src DIR --tests DIR]``

``--src`` is the folder holding ``inspect_medsp`` (``src``), ``--tests`` the tests' folder
(``tests``). The other readers of the faces (``bench/``, ``tasks/``, ``scorers/``,
``README.md``, ``docs/``) are looked for next to ``--src`` (its parent folder), so a checkout
extracted elsewhere (``git archive BASE src tests bench tasks scorers docs README.md``) is
counted as a whole.

What each count is:

- **faces' exported names**: the names in the ``__all__`` of every package ``__init__.py``
  (the package's own face included).
- **unused exports**: an exported name of part P that nothing outside P names: no module of
  ``src`` outside P imports it from P's face (or reads it as ``face.name``), no Python file of
  the tests, ``bench/``, ``tasks/`` or ``scorers/`` imports it from any module of P (a test
  that imports it from a private module today will import it through the face tomorrow), no
  string names it (``"inspect_medsp.P.name"``, as ``monkeypatch`` does), and no code span of
  ``README.md`` or ``docs/*.md`` names it (a name users are told to import stays). A name the
  package's face re-exports counts as used by the package's face.
- **modules over 400 lines** and **functions over 80 lines** (from ``def`` to the last line,
  methods and nested functions too). A long function *gives a reason* when a line of its
  docstring starts with "Long because".
- **face names equal to a module**: a face exporting a name that is also the name of one of
  its own modules (``report.collect``, the function, beside ``report/collect.py``).
- **test imports**: each import statement in the tests naming a module of the package counts
  once: through a face (``inspect_medsp.record``, ``inspect_medsp.tokens``) or reaching a
  private module (``inspect_medsp.record.read``).
"""

from __future__ import annotations

import argparse
import ast
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

PACKAGE = "inspect_medsp"
MODULE_LIMIT = 400
FUNCTION_LIMIT = 80
REASON = re.compile(r"^\s*Long because", re.MULTILINE)
CODE_SPAN = re.compile(r"```.*?```|`[^`\n]+`", re.DOTALL)


@dataclass
class Surface:
    """The counts of one checkout."""

    modules: int = 0
    lines: int = 0
    exported: dict[str, list[str]] = field(default_factory=dict)
    """Face (``record/``) -> its ``__all__``."""
    unused: dict[str, list[str]] = field(default_factory=dict)
    long_modules: list[tuple[str, int]] = field(default_factory=list)
    long_functions: list[tuple[str, int, bool]] = field(default_factory=list)
    """(``path:function``, lines, whether its docstring gives a reason)."""
    shadowing: list[str] = field(default_factory=list)
    tests_private: int = 0
    tests_face: int = 0


def python_files(root: Path) -> Iterator[Path]:
    if root.is_dir():
        yield from sorted(p for p in root.rglob("*.py") if "__pycache__" not in p.parts)


def parse(path: Path) -> ast.Module | None:
    try:
        return ast.parse(path.read_text(encoding="utf-8"))
    except (SyntaxError, UnicodeDecodeError):
        return None


def all_of(tree: ast.Module) -> list[str]:
    for node in tree.body:
        if isinstance(node, ast.Assign):
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        else:
            continue
        if (
            isinstance(target, ast.Name)
            and target.id == "__all__"
            and isinstance(value, (ast.List, ast.Tuple))
        ):
            return [str(e.value) for e in value.elts if isinstance(e, ast.Constant)]
    return []


def part_of(module: str) -> str:
    """``inspect_medsp.record.read`` -> ``inspect_medsp.record``; ``inspect_medsp`` itself."""
    return ".".join(module.split(".")[:2])


def module_name(package: Path, file: Path) -> str:
    parts = [PACKAGE, *file.relative_to(package).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def names_used(tree: ast.Module, own_part: str | None, via_private: bool) -> set[tuple[str, str]]:
    """(part, name) pairs a file takes from a part of the package: ``from part import name``
    (any module of the part when ``via_private``), ``face.name`` for a face bound to a local
    name, and strings ``"inspect_medsp.part.name"``. Its own part's names are left out."""
    used: set[tuple[str, str]] = set()
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            mod = node.module
            if mod == PACKAGE:
                for a in node.names:
                    used.add((PACKAGE, a.name))
                    aliases[a.asname or a.name] = f"{PACKAGE}.{a.name}"
            elif mod.startswith(PACKAGE + ".") and (via_private or mod == part_of(mod)):
                for a in node.names:
                    used.add((part_of(mod), a.name))
                    if mod == part_of(mod):
                        aliases.setdefault(a.asname or a.name, f"{mod}.{a.name}")
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith(PACKAGE + ".") and a.asname:
                    aliases[a.asname] = a.name
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            for match in re.finditer(rf"\b{PACKAGE}\.(\w+)\.(\w+)", node.value):
                used.add((f"{PACKAGE}.{match[1]}", match[2]))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            chain = dotted(node.value)
            if chain is None:
                continue
            head, _, rest = chain.partition(".")
            base = aliases.get(head, head if head == PACKAGE else None)
            if base is None:
                continue
            full = f"{base}.{rest}" if rest else base
            if full == part_of(full) and full != PACKAGE:
                used.add((full, node.attr))
            elif full == PACKAGE:
                used.add((PACKAGE, node.attr))
    return {(part, name) for part, name in used if part != own_part}


def dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = dotted(node.value)
        return None if inner is None else f"{inner}.{node.attr}"
    return None


def functions(tree: ast.Module) -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    def walk(
        node: ast.AST, prefix: str
    ) -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield prefix + child.name, child
                yield from walk(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.ClassDef):
                yield from walk(child, f"{prefix}{child.name}.")
            else:
                yield from walk(child, prefix)

    yield from walk(tree, "")


def measure(src: Path, tests: Path) -> Surface:
    package = src / PACKAGE
    root = src.resolve().parent
    surface = Surface()
    trees: dict[str, tuple[Path, ast.Module]] = {}
    for file in python_files(package):
        tree = parse(file)
        if tree is None:
            continue
        name = module_name(package, file)
        trees[name] = (file, tree)
        rel = file.relative_to(package).as_posix()
        length = len(file.read_text(encoding="utf-8").splitlines())
        surface.modules += 1
        surface.lines += length
        if length > MODULE_LIMIT:
            surface.long_modules.append((rel, length))
        for qualname, fn in functions(tree):
            size = (fn.end_lineno or fn.lineno) - fn.lineno + 1
            if size > FUNCTION_LIMIT:
                doc = ast.get_docstring(fn) or ""
                surface.long_functions.append((f"{rel}:{qualname}", size, bool(REASON.search(doc))))

    faces = {name: tree for name, (file, tree) in trees.items() if file.name == "__init__.py"}
    used: set[tuple[str, str]] = set()
    for name, (_file, tree) in trees.items():
        used |= names_used(tree, part_of(name), via_private=False)
    for folder in (tests, root / "bench", root / "tasks", root / "scorers"):
        for file in python_files(folder):
            tree = parse(file)
            if tree is not None:
                used |= names_used(tree, None, via_private=True)
    prose = ""
    for page in [root / "README.md", *sorted((root / "docs").glob("*.md"))]:
        if page.is_file():
            prose += "\n".join(CODE_SPAN.findall(page.read_text(encoding="utf-8"))) + "\n"
    words = set(re.findall(r"\w+", prose))

    for face, tree in sorted(faces.items()):
        exported = all_of(tree)
        label = face.removeprefix(PACKAGE + ".") + "/" if face != PACKAGE else "__init__.py"
        surface.exported[label] = exported
        surface.unused[label] = [n for n in exported if (face, n) not in used and n not in words]
        folder = trees[face][0].parent
        own = {p.stem for p in folder.glob("*.py")} | {
            p.name for p in folder.iterdir() if (p / "__init__.py").is_file()
        }
        surface.shadowing += [f"{label.rstrip('/')}.{n}" for n in exported if n in own]

    for file in python_files(tests):
        tree = parse(file)
        if tree is None:
            continue
        for node in ast.walk(tree):
            named: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                named = [node.module]
                if node.module == PACKAGE:
                    named = [f"{PACKAGE}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                named = [a.name for a in node.names]
            named = [m for m in named if m == PACKAGE or m.startswith(PACKAGE + ".")]
            if not named:
                continue
            if any(m != part_of(m) and m in trees for m in named):
                surface.tests_private += 1
            elif any(m in trees or m == PACKAGE for m in named):
                surface.tests_face += 1
    return surface


def table(surface: Surface) -> list[str]:
    exported = sum(len(v) for v in surface.exported.values())
    unused = sum(len(v) for v in surface.unused.values())
    reasoned = sum(1 for _, _, r in surface.long_functions if r)
    return [
        "| count | value |",
        "|---|---|",
        f"| modules in src/{PACKAGE} (lines) | {surface.modules} ({surface.lines:,}) |",
        f"| faces' exported names | {exported} |",
        f"| of them used by nothing outside their part | {unused} |",
        f"| modules over {MODULE_LIMIT} lines | {len(surface.long_modules)} |",
        f"| functions over {FUNCTION_LIMIT} lines (with a reason) | "
        f"{len(surface.long_functions)} ({reasoned}) |",
        f"| face names equal to one of its modules | {len(surface.shadowing)} |",
        f"| test imports reaching a private module / through a face | "
        f"{surface.tests_private} / {surface.tests_face} |",
    ]


def details(surface: Surface) -> list[str]:
    lines = ["", "Unused exports by face:"]
    lines += [
        f"  {face} ({len(names)}): {', '.join(names)}"
        for face, names in surface.unused.items()
        if names
    ]
    lines += ["", f"Modules over {MODULE_LIMIT} lines:"]
    lines += [f"  {path} {n}" for path, n in sorted(surface.long_modules, key=lambda m: -m[1])]
    lines += ["", f"Functions over {FUNCTION_LIMIT} lines:"]
    lines += [
        f"  {where} {n}{' (reason given)' if reason else ''}"
        for where, n, reason in sorted(surface.long_functions, key=lambda f: -f[1])
    ]
    lines += ["", "Face names equal to one of its modules:"]
    lines += [f"  {name}" for name in surface.shadowing]
    return lines


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.surface", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--src", type=Path, default=Path("src"), help="the folder holding inspect_medsp"
    )
    parser.add_argument("--tests", type=Path, default=Path("tests"), help="the tests' folder")
    args = parser.parse_args(argv)
    if not (args.src / PACKAGE / "__init__.py").is_file():
        parser.error(
            f"--src {args.src}: no {PACKAGE}/__init__.py there; give the folder holding the package"
        )
    surface = measure(args.src, args.tests)
    print("\n".join(table(surface) + details(surface)))


if __name__ == "__main__":
    main()
