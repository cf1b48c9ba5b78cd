"""Which ``-T`` names the other tasks of a run take: a name that no MedSP task of the run
takes but another task does is that task's, and Inspect's to warn of.

A task of the run is found as Inspect was given it: a registered name
(``inspect_medsp/medsp_demo``, ``other_package/task``) is looked up in Inspect's registry and
its function's signature read; a file (``tests/support/other.py``, ``other.py@name``, a
folder) is read as source, its ``@task`` functions' parameters taken from the syntax, nothing
of it run. A task found neither way is unknown: what it takes cannot be told.
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from inspect_medsp._inspect import registry_lookup
from inspect_medsp.commandline import closest, unknown_parameter
from inspect_medsp.preflight.context import RunContext, logger, unchecked

PACKAGE = "inspect_medsp"


@dataclass
class RunParameters:
    """The ``-T`` names the tasks of a run take.

    Args:
        names: Every name some task of the run declares.
        any_name: Some task of another package takes any name (``**kwargs``).
        unknown: The tasks whose parameters could not be read.
    """

    names: set[str] = field(default_factory=set)
    any_name: bool = False
    unknown: list[str] = field(default_factory=list)


def run_parameters(specs: Iterable[str]) -> RunParameters:
    """What the tasks ``specs`` (as Inspect was given them) take."""
    found = RunParameters()
    for spec in specs:
        taken = _registered(spec)
        if taken is None:
            taken = _from_files(spec)
        if taken is None:
            found.unknown.append(spec)
            continue
        names, any_name = taken
        found.names |= names
        found.any_name = found.any_name or any_name
    return found


def _registered(spec: str) -> tuple[set[str], bool] | None:
    """The parameters of the registered task ``spec`` (a MedSP task's declared ones only:
    its ``**kwargs`` is how it hears of names it does not take)."""
    if registry_lookup is None:
        return None
    try:
        function = registry_lookup("task", spec)
    except Exception:
        return None
    if function is None or not callable(function):
        return None
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return None
    ours = str(getattr(function, "__module__", "")).split(".")[0] == PACKAGE
    names = {p.name for p in parameters if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)}
    return names, not ours and any(p.kind == p.VAR_KEYWORD for p in parameters)


def _from_files(spec: str) -> tuple[set[str], bool] | None:
    """The parameters of the ``@task`` functions of the file or folder ``spec`` names
    (``file.py@name``: that function alone), read from their source."""
    file, _, name = spec.partition("@")
    path = Path(file)
    if path.is_file() and path.suffix == ".py":
        files = [path]
    elif path.is_dir():
        files = sorted(p for p in path.rglob("*.py") if not p.name.startswith((".", "_")))
    else:
        return None
    names: set[str] = set()
    any_name = False
    for source in files:
        try:
            tree = ast.parse(source.read_text(encoding="utf-8"))
        except (OSError, SyntaxError, UnicodeDecodeError):
            return None
        for node in ast.walk(tree):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            if not any(_is_task(d) for d in node.decorator_list) or name not in ("", node.name):
                continue
            args = node.args
            names |= {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
            any_name = any_name or args.kwarg is not None
    return names, any_name


def _is_task(decorator: ast.expr) -> bool:
    """Whether ``decorator`` is ``@task``, ``@task(...)`` or ``@inspect_ai.task``."""
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    if isinstance(target, ast.Name):
        return target.id == "task"
    return isinstance(target, ast.Attribute) and target.attr == "task"


def unknown_in_run(task: str, names: Sequence[str], context: RunContext) -> str | None:
    """The one-line refusal of a ``-T`` name given to ``task`` that it does not take
    (``names``) and no task of the run takes, with the closest name it has; None when every
    name is one of its own or another task's of the run.

    Inspect only warns of a name a task does not take and drops it; alone, the run would go
    on, paid in full, at the default, so it is refused. In a run of several tasks a name that
    another task of the run declares is that task's: ``task`` ignores it with Inspect's own
    warning. When what the run's other tasks take cannot be told (a task of another package
    that takes any name, one that cannot be read, or the run's tasks not readable at all),
    a near-miss of one of ``task``'s names is still refused, and any other name is left to
    Inspect with a warning saying so.

    Args:
        task: The task's name (``medsp_demo``).
        names: The parameters it takes.
        context: The load's run context (its ``task_args`` are what the task was given).
    """
    unknown = [name for name in context.task_args if name not in names]
    if not unknown:
        return None
    run = (
        run_parameters(context.run_tasks)
        if context.loading and context.run_tasks is not None
        else None
    )
    ignored: list[str] = []
    for name in unknown:
        guess = closest(name, names)
        if run is not None and name in run.names:
            ignored.append(name)
            continue
        if context.loading and guess is None:
            if run is None:
                unchecked(
                    f"-T {name} is no parameter of {task}, and this Inspect does not say "
                    "which tasks the run loads: whether another takes it is left to Inspect"
                )
                continue
            if run.any_name or run.unknown:
                unknown_tasks = ", ".join(run.unknown) or "a task taking **kwargs"
                unchecked(
                    f"-T {name} is no parameter of {task}; whether {unknown_tasks} takes it "
                    "cannot be told, so it is left to that task"
                )
                continue
        return unknown_parameter(task, [name], names)
    for name in ignored:  # as Inspect warns of a name a task does not take
        logger.warning(f"param '{name}' not used by task '{PACKAGE}/{task}'")
    return None
