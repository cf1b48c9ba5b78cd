"""What the eval being loaded, or the log being re-scored, asks for: read once, here.

Inspect calls a task function it loads by name (``inspect eval``, ``inspect eval-set``,
``eval()``, ``eval_set()``) and a scorer it makes for ``inspect score`` from inside its own
functions. What has a public reading is read publicly: the model under test is the active
model (``get_model()``, asked only while Inspect loads a task, so it never falls back to
``INSPECT_EVAL_MODEL``), the roles are ``inspect_ai.model.model_roles()``, and the ``-T``
values are what the task function receives (a MedSP task declares ``**kwargs``, so it
receives every one, and an explicit ``None`` is an empty ``-T name=``). What has none is read
from Inspect's own frames while it is on the call stack: that a task is being loaded, the
run's ``--max-samples``, ``--epochs``, ``--time-limit`` and ``--no-score`` (from
``eval_async_inner`` under ``eval``, from ``eval_set`` itself under ``eval_set``, which loads
its tasks outside the other), the run's other tasks, and the log being re-scored. This module
is the only one that reads a frame or a function's local variables: each local it reads is
listed in :data:`FRAME_LOCALS`, and ``tests/test_inspect_contract.py`` checks that every one
still exists in the installed Inspect (as it checks every private name ``_inspect.py``
imports). When a release has moved one, the checks that need it say so once, in one line
(:func:`unchecked`), and do not run; they never pass silently. Outside Inspect's loader (a
task or scorer built directly in Python) the context says it does not know.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import FrameType
from typing import Any

import inspect_ai
from inspect_ai import eval_set
from inspect_ai.log import EvalLog
from inspect_ai.model import Model, get_model, model_roles
from inspect_ai.util import display_type, registry_info

from inspect_medsp._inspect import (
    MOVED,
    PrerequisiteError,
    eval_async_inner,
    load_tasks,
    resolve_scorers,
    score_cli,
    task_create,
)
from inspect_medsp.preflight.models import model_unavailable

logger = logging.getLogger("inspect_medsp")

RUN_LOCALS = ("max_samples", "kwargs", "epochs", "time_limit", "score")
"""What a run asks of its samples, as the locals of the function that runs it."""

FRAME_LOCALS: dict[str, tuple[Callable[..., Any] | None, tuple[str, ...]]] = {
    # under inspect eval / eval(): its max_samples, generate settings (kwargs:
    # max_connections), epochs, time_limit and score are what the task being loaded will run
    # with
    "eval_async_inner": (eval_async_inner, RUN_LOCALS),
    # under inspect eval-set / eval_set(): the same, read from eval_set's own frame, which
    # loads the tasks itself (eval_async_inner is not on the stack then)
    "eval_set": (eval_set, RUN_LOCALS),
    # its task_specs are every task of the run (another package's task may take a -T)
    "load_tasks": (load_tasks, ("task_specs",)),
    # its log is the log a scorer is being made for
    "resolve_scorers": (resolve_scorers, ("log",)),
    # its model_roles are the --model-role values given to inspect score
    "score_cli": (score_cli, ("model_roles",)),
    # Inspect is loading a task by name; its kwargs are the -T values as given (a task's
    # written-out parameters arrive in the task function with their defaults filled in)
    "task_create": (task_create, ("kwargs",)),
}
"""Every Inspect function whose frame is read, with the local variables read from it."""

RUN_FRAMES = ("eval_async_inner", "eval_set")
"""The functions whose frame holds what the run asks of its samples, by entry point."""

_SAID: set[str] = set()


def unchecked(line: str) -> None:
    """Warn once per process, in one line, that a check cannot run here (and why)."""
    if line not in _SAID:
        _SAID.add(line)
        logger.warning(f"inspect-medsp: {line}")


def unreadable(name: str) -> str | None:
    """Why the frame of ``name`` (of :data:`FRAME_LOCALS`) cannot be read with the installed
    Inspect (its function moved, or a local it reads renamed), or None when it can."""
    function, wanted = FRAME_LOCALS[name]
    code = getattr(function, "__code__", None)
    if code is None:
        return "its function is gone"
    held = {*code.co_varnames, *code.co_cellvars, *code.co_freevars}
    gone = [local for local in wanted if local not in held]
    return f"its local {', '.join(gone)} is gone" if gone else None


def say_moved() -> None:
    """Warn once of each private Inspect name the installed release has moved (``_inspect.py``)
    and of each frame whose locals it renamed, naming what no longer works."""
    version = f"inspect-ai {inspect_ai.__version__}"
    for name, degrades in MOVED.items():
        unchecked(f"{version} has no {name}: {degrades}")
    for name in FRAME_LOCALS:
        why = unreadable(name)
        function = FRAME_LOCALS[name][0]
        if why is not None and function is not None:
            unchecked(f"{version}: {name} cannot be read ({why}); what it tells is not checked")


def _frames(*names: str) -> dict[str, FrameType]:
    """The nearest frame of each of Inspect's functions ``names`` (of :data:`FRAME_LOCALS`)
    on the call stack, found by its code object (a function it cannot read is not sought)."""
    codes = {
        FRAME_LOCALS[name][0].__code__: name  # type: ignore[union-attr]
        for name in names
        if unreadable(name) is None
    }
    found: dict[str, FrameType] = {}
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        name = codes.get(frame.f_code)
        if name is not None and name not in found:
            found[name] = frame
        frame = frame.f_back
    return found


def _frame(name: str) -> FrameType | None:
    return _frames(name).get(name)


def _local(frame: FrameType | None, function: str, name: str) -> Any:
    """Local ``name`` of ``function``'s frame (one :data:`FRAME_LOCALS` lists), or None."""
    assert name in FRAME_LOCALS[function][1], f"{function}.{name} is not in FRAME_LOCALS"
    return frame.f_locals.get(name) if frame is not None else None


def _names(bound: Model | list[Model]) -> str:
    return ",".join(str(m) for m in bound) if isinstance(bound, list) else str(bound)


def _int_or_none(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


@dataclass(frozen=True)
class Concurrency:
    """How many samples of the eval being loaded may run at once, as asked."""

    max_samples: int | None
    max_connections: int | None

    @property
    def one_at_a_time(self) -> bool:
        """Whether samples surely run one at a time (``--max-samples 1``, or no
        ``--max-samples`` and ``--max-connections 1``, which then bounds them)."""
        if self.max_samples is not None:
            return self.max_samples == 1
        return self.max_connections == 1


@dataclass(frozen=True)
class RunOptions:
    """What the eval being loaded asks of each sample: its epochs, its clock limits and
    whether it is scored."""

    epochs: int | None
    time_limit: int | None
    score: bool
    reducers: tuple[str, ...] | None = None
    """The epoch reducers given (``--epochs-reducer``), by registered name; None when none."""


@dataclass(frozen=True)
class RunContext:
    """What one task load knows of the eval it is loaded for.

    Args:
        loading: Inspect is loading the task by name for an eval (``inspect eval``,
            ``inspect eval-set``, ``eval("inspect_medsp/medsp_demo")``, ``eval_set(...)``);
            everything below but ``task_args`` is empty otherwise.
        model: The model under test (the active model while Inspect loads the task).
        role_models: The models bound to roles (``--model-role``).
        concurrency: The eval's sample concurrency (None when unknown).
        task_args: The task's arguments as given (a ``-T name=`` with nothing after it is
            there, as None), names it does not take included.
        options: The eval's epochs (``--epochs``), time limit (``--time-limit``) and
            scoring (``--no-score``); None when unknown.
        run_tasks: Every task the run loads, as Inspect was given them (``inspect eval A
            B``: ``("A", "B")``); None when unknown (built in Python, or not readable).
        entry: The Inspect function running the eval the task is loaded for
            (``eval_async_inner`` for ``eval``, ``eval_set``); None when unknown.
        active: The model under test as Inspect made it (its endpoint is read from it).
    """

    loading: bool = False
    model: str | None = None
    role_models: dict[str, Model | list[Model]] = field(default_factory=dict)
    concurrency: Concurrency | None = None
    task_args: dict[str, Any] = field(default_factory=dict)
    options: RunOptions | None = None
    run_tasks: tuple[str, ...] | None = None
    entry: str | None = None
    active: Model | None = None
    _unavailable: dict[str, str | None] = field(default_factory=dict, compare=False)

    @property
    def roles(self) -> dict[str, str]:
        """Each bound role's model name (several, comma-joined)."""
        return {role: _names(bound) for role, bound in self.role_models.items()}

    def unavailable(self, name: str) -> str | None:
        """Why model ``name`` cannot be made here (None: it can), asked once per load."""
        if name not in self._unavailable:
            self._unavailable[name] = model_unavailable(name)
        return self._unavailable[name]


def run_context(task_args: Mapping[str, Any] | None = None) -> RunContext:
    """The context of the task load in progress, read once (an empty context but for
    ``task_args`` outside Inspect's loader: a task built directly in Python is built before
    any model is chosen, and the active model may be one an earlier eval left in the process).

    Args:
        task_args: The arguments the task function was given (its ``**kwargs`` included);
            while Inspect loads the task by name, the ``-T`` values as Inspect was given them
            (``task_create``'s) stand for them, so a name left at its default is not among
            them and an empty ``-T name=`` is there as None.
    """
    given = dict(task_args or {})
    say_moved()
    found = _frames("task_create", "load_tasks", *RUN_FRAMES)
    if "task_create" not in found:
        return RunContext(task_args=given)
    passed = _local(found["task_create"], "task_create", "kwargs")
    if isinstance(passed, dict):
        given = dict(passed)
    # Inspect makes the eval's model active before it loads a task: get_model() returns it
    try:
        active: Model | None = get_model()  # inspect-evals-lint: ignore[IEBP001] -- load check
    except Exception:  # no active model and no INSPECT_EVAL_MODEL: none to check
        active = None
    model = str(active) if active is not None else None
    entry = next((name for name in found if name in RUN_FRAMES), None)
    inner = found.get(entry) if entry is not None else None
    specs = _local(found.get("load_tasks"), "load_tasks", "task_specs")
    concurrency, options = _run_asks(inner, entry) if inner is not None and entry else (None, None)
    return RunContext(
        loading=True,
        model=model,
        active=active,
        role_models=dict(model_roles()),
        concurrency=concurrency,
        task_args=given,
        options=options,
        run_tasks=tuple(str(s) for s in specs)
        if isinstance(specs, list | tuple) and "load_tasks" in found
        else None,
        entry=entry,
    )


def _run_asks(frame: FrameType, entry: str) -> tuple[Concurrency, RunOptions]:
    """What the run of ``frame`` (the frame of ``entry``, of :data:`RUN_FRAMES`) asks."""
    settings: Any = _local(frame, entry, "kwargs") or {}
    connections = settings.get("max_connections") if isinstance(settings, dict) else None
    given: Any = _local(frame, entry, "epochs")
    epochs = getattr(given, "epochs", given)
    return (
        Concurrency(
            max_samples=_int_or_none(_local(frame, entry, "max_samples")),
            max_connections=_int_or_none(connections),
        ),
        RunOptions(
            epochs=_int_or_none(epochs),
            time_limit=_int_or_none(_local(frame, entry, "time_limit")),
            score=_local(frame, entry, "score") is not False,
            reducers=_reducer_names(given),
        ),
    )


def _reducer_names(epochs: object) -> tuple[str, ...] | None:
    """The registered names of the reducers an ``Epochs`` was given (None: none given, or not
    an ``Epochs``); a reducer with no registered name is named by its function."""
    try:
        reducers = getattr(epochs, "reducer", None)
    except Exception:  # a reducer name Inspect cannot resolve: Inspect itself says so
        return None
    if not reducers:
        return None
    names: list[str] = []
    for reducer in reducers:
        try:
            names.append(registry_info(reducer).name)
        except Exception:
            names.append(getattr(reducer, "__name__", str(reducer)))
    return tuple(names)


@dataclass(frozen=True)
class RescoreContext:
    """What ``inspect score`` asks of a scorer it is making.

    Args:
        log: The log it is made for (None: a scorer made directly).
        roles: The ``--model-role`` values given (empty when none or unknown).
        role_values: The same, as Inspect made them (a model with its own ``model_args``).
    """

    log: EvalLog | None = None
    roles: dict[str, str] = field(default_factory=dict)
    role_values: dict[str, Any] = field(default_factory=dict)


def rescore_context() -> RescoreContext:
    """The log ``inspect score`` is making a scorer for, and its ``--model-role`` values."""
    say_moved()
    log = _local(_frame("resolve_scorers"), "resolve_scorers", "log")
    given = _local(_frame("score_cli"), "score_cli", "model_roles")
    roles = (
        {str(role): _role_name(value) for role, value in given.items()}
        if isinstance(given, dict)
        else {}
    )
    return RescoreContext(
        log=log if isinstance(log, EvalLog) else None,
        roles=roles,
        role_values={str(r): v for r, v in given.items()} if isinstance(given, dict) else {},
    )


def _role_name(value: object) -> str:
    if isinstance(value, list | tuple):
        return ",".join(_role_name(v) for v in value)
    if isinstance(value, dict):
        return str(value.get("model", ""))
    return str(value)


@contextmanager
def said_at_load(context: RunContext) -> Iterator[None]:
    """Say a load error on stderr when Inspect would print it to a silent display.

    Inspect's ``eval`` prints a prerequisite error's message on its console, which ``--display
    none`` silences: the run would stop with a non-zero exit and no word. Only while Inspect
    loads the task for ``eval`` (a task built in Python raises to its caller, who sees it;
    ``eval_set`` prints it whatever the display).
    """
    try:
        yield
    except PrerequisiteError as err:
        if display_type() == "none" and context.loading and context.entry != "eval_set":
            print(str(err), file=sys.stderr)
        raise
