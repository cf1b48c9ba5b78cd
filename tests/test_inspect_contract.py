"""The private-Inspect contract: every private name ``_inspect.py`` imports and every local
variable the run context (``preflight/context.py``) reads from an Inspect frame exists in the
installed Inspect, and that Inspect is in the range ``pyproject.toml`` states.

An Inspect upgrade that renames one of them fails here, naming it, instead of a load-time
check turning quiet (a frame local that is gone reads as None, and the check then passes).
"""

from __future__ import annotations

import ast
import importlib
import tomllib
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import inspect_ai
import inspect_ai._eval.score
import pytest

from inspect_medsp.preflight import context

ROOT = Path(__file__).parents[1]
INSPECT_MODULE = ROOT / "src" / "inspect_medsp" / "_inspect.py"


def _private_imports(nodes: Iterable[ast.AST]) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for node in nodes:
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("inspect_ai."):
            module = str(node.module)
            if any(part.startswith("_") for part in module.split(".")):
                found += [(module, alias.name) for alias in node.names]
    return found


def private_names(source: str) -> list[tuple[str, str]]:
    """``(module, name)`` of every name imported from a private Inspect module, once each."""
    return list(dict.fromkeys(_private_imports(ast.walk(ast.parse(source)))))


def _type_checking_block(source: str) -> ast.If:
    [block] = [
        node
        for node in ast.parse(source).body
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"
    ]
    return block


def test_every_private_name_is_imported_guarded_as_the_type_checker_sees_it() -> None:
    # at run time each private name is imported in its own try/except ImportError, which
    # gives it a fallback and records it in MOVED; the type checker sees the same names
    block = _type_checking_block(INSPECT_MODULE.read_text(encoding="utf-8"))
    seen = _private_imports(block.body)
    guarded: list[tuple[str, str]] = []
    for node in ast.walk(ast.Module(body=block.orelse, type_ignores=[])):
        if isinstance(node, ast.Try):
            handled = [ast.unparse(h.type) for h in node.handlers if h.type is not None]
            assert handled == ["ImportError"], ast.unparse(node)
            guarded += _private_imports(node.body)
    runtime = _private_imports(ast.walk(ast.Module(body=block.orelse, type_ignores=[])))
    assert sorted(guarded) == sorted(runtime)
    assert sorted(set(runtime)) == sorted(set(seen)), "TYPE_CHECKING and run time differ"


def test_the_zstd_zipfile_module_exists() -> None:
    from inspect_medsp import _inspect

    assert _inspect.zstd_zipfile()
    assert _inspect.ZSTD_ZIPFILE not in _inspect.MOVED


def missing_names(names: Iterable[tuple[str, str]]) -> list[str]:
    """The names of ``names`` the installed Inspect no longer has, ``module.name`` each."""
    missing: list[str] = []
    for module, name in names:
        try:
            found = hasattr(importlib.import_module(module), name)
        except ImportError:
            found = False
        if not found:
            missing.append(f"{module}.{name}")
    return missing


def missing_locals(
    table: Mapping[str, tuple[Callable[..., Any] | None, tuple[str, ...]]],
) -> list[str]:
    """The frame locals of ``table`` (``context.FRAME_LOCALS``) that the installed Inspect's
    function no longer has: its code object's variable names are what its frame holds."""
    missing: list[str] = []
    for name, (function, locals_read) in table.items():
        code = getattr(function, "__code__", None)
        if code is None:
            missing.append(f"{name}: not a Python function")
            continue
        held = {*code.co_varnames, *code.co_cellvars, *code.co_freevars}
        missing += [f"{name}: local {local!r}" for local in locals_read if local not in held]
    return missing


def test_every_private_name_exists_in_the_installed_inspect() -> None:
    names = private_names(INSPECT_MODULE.read_text(encoding="utf-8"))
    assert len(names) >= 10, names  # the parse found the imports
    assert ("inspect_ai._eval.score", "resolve_scorers") in names
    assert missing_names(names) == []


def test_every_frame_local_read_exists_in_the_installed_inspect() -> None:
    run = ("max_samples", "kwargs", "epochs", "time_limit", "score")
    assert context.FRAME_LOCALS["eval_async_inner"][1] == run
    assert context.FRAME_LOCALS["eval_set"][1] == run
    assert missing_locals(context.FRAME_LOCALS) == []
    assert {name: context.unreadable(name) for name in context.FRAME_LOCALS} == dict.fromkeys(
        context.FRAME_LOCALS
    )


def test_the_installed_inspect_moved_no_private_name() -> None:
    from inspect_medsp import _inspect

    assert _inspect.MOVED == {}


def test_a_private_name_renamed_by_an_upgrade_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(inspect_ai._eval.score, "resolve_scorers")
    names = private_names(INSPECT_MODULE.read_text(encoding="utf-8"))
    assert missing_names(names) == ["inspect_ai._eval.score.resolve_scorers"]


def test_a_frame_local_renamed_by_an_upgrade_is_named(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    function, read = context.FRAME_LOCALS["eval_async_inner"]
    assert function is not None
    code = function.__code__
    renamed = code.replace(
        co_varnames=tuple("max_samples_" if v == "max_samples" else v for v in code.co_varnames)
    )

    def upgraded() -> None: ...

    upgraded.__code__ = renamed
    monkeypatch.setitem(context.FRAME_LOCALS, "eval_async_inner", (upgraded, read))
    assert missing_locals(context.FRAME_LOCALS) == ["eval_async_inner: local 'max_samples'"]
    # and the load says so once, in one line, instead of reading None and passing
    monkeypatch.setattr(context, "_SAID", set())
    context.say_moved()
    context.say_moved()
    [warning] = [r.getMessage() for r in caplog.records if "cannot be read" in r.getMessage()]
    assert "eval_async_inner cannot be read (its local max_samples is gone)" in warning
    assert "\n" not in warning


def test_only_the_run_context_reads_a_frame() -> None:
    readers = [
        str(path.relative_to(ROOT / "src"))
        for path in sorted((ROOT / "src" / "inspect_medsp").rglob("*.py"))
        if any(word in path.read_text(encoding="utf-8") for word in ("f_locals", "_getframe"))
    ]
    assert readers == ["inspect_medsp/preflight/context.py"]


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.strip().split("."))


def in_range(version: str, specifier: str) -> bool:
    """Whether ``version`` meets every ``>=``, ``<``, ``<=`` or ``==`` clause of ``specifier``."""
    have = _version(version)
    tests = {">=": tuple.__ge__, "<=": tuple.__le__, "==": tuple.__eq__, "<": tuple.__lt__}
    for clause in specifier.split(","):
        op = next(op for op in tests if clause.strip().startswith(op))
        if not tests[op](have, _version(clause.strip()[len(op) :])):
            return False
    return True


def test_the_installed_inspect_is_in_the_range_the_contract_was_checked_on() -> None:
    from inspect_medsp._inspect import CHECKED_RELEASES

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    [spec] = [
        r.removeprefix("inspect-ai")
        for r in project["project"]["dependencies"]
        if r.startswith("inspect-ai")
    ]
    oldest, newest = CHECKED_RELEASES
    assert spec == f">={oldest}", f"{spec}: require the oldest release checked, {oldest}"
    assert in_range(inspect_ai.__version__, f">={oldest},<={newest}"), (
        f"inspect-ai {inspect_ai.__version__} is not in the checked {oldest}-{newest}: run "
        "this test, the demo and tests/test_entry_points.py on it, then set "
        "_inspect.CHECKED_RELEASES"
    )
