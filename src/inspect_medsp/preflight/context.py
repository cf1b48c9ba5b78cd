"""What the eval being loaded, or the log being re-scored, asks for: read once, here.

Inspect calls a task function it loads by name (``inspect eval``) and a scorer it makes for
``inspect score`` from inside its own functions, and passes them nothing of the run: not the
eval's ``--max-samples`` or raw ``-T`` values, nor the log being re-scored. Inspect exports no
public way to read these, so they are read from Inspect's own frames while it is on the call
stack. This module is the only one that reads a frame or a function's local variables: each
local it reads is listed in :data:`FRAME_LOCALS`, and ``tests/test_inspect_contract.py``
checks that every one still exists in the installed Inspect (as it checks every private name
``_inspect.py`` imports). A task load reads :func:`run_context` once and hands the one
:class:`RunContext` to every check; a scorer made for ``inspect score`` reads
:func:`rescore_context`. Outside Inspect's loader (a task or scorer built directly in Python)
each says it does not know.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import FrameType
from typing import Any

from inspect_ai.log import EvalLog
from inspect_ai.model import Model
from inspect_ai.util import display_type

from inspect_medsp._inspect import (
    PrerequisiteError,
    active_model,
    eval_async_inner,
    model_roles,
    resolve_scorers,
    score_cli,
    task_create,
)
from inspect_medsp.preflight.models import model_unavailable

FRAME_LOCALS: dict[str, tuple[Callable[..., Any], tuple[str, ...]]] = {
    # its max_samples, generate settings (kwargs: max_connections), task_args, epochs,
    # time_limit and score are what the task being loaded will run with
    "eval_async_inner": (
        eval_async_inner,
        ("max_samples", "kwargs", "task_args", "epochs", "time_limit", "score"),
    ),
    # its log is the log a scorer is being made for
    "resolve_scorers": (resolve_scorers, ("log",)),
    # its model_roles are the --model-role values given to inspect score
    "score_cli": (score_cli, ("model_roles",)),
    # only found on the stack (no local read): Inspect is loading a task by name
    "task_create": (task_create, ()),
}
"""Every Inspect function whose frame is read, with the local variables read from it."""


def _frame(name: str) -> FrameType | None:
    """The frame of Inspect's function ``name`` (of :data:`FRAME_LOCALS`) if it is on the
    call stack, found by its code object."""
    code = getattr(FRAME_LOCALS[name][0], "__code__", None)
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        if frame.f_code is code:
            return frame
        frame = frame.f_back
    return None


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


@dataclass(frozen=True)
class RunContext:
    """What one task load knows of the eval it is loaded for.

    Args:
        loading: Inspect is loading the task by name for an eval (``inspect eval``,
            ``eval("inspect_medsp/medsp_demo")``); everything below is empty otherwise.
        model: The model under test (the active model while Inspect loads the task).
        role_models: The models bound to roles (``--model-role``).
        concurrency: The eval's sample concurrency (None when unknown).
        task_args: The ``-T`` values as given (a ``-T name=`` with nothing after it is
            there, as None), names Inspect will drop included.
        options: The eval's epochs (``--epochs``), time limit (``--time-limit``) and
            scoring (``--no-score``); None when unknown.
        active: The model under test as Inspect made it (its endpoint is read from it).
    """

    loading: bool = False
    model: str | None = None
    role_models: dict[str, Model | list[Model]] = field(default_factory=dict)
    concurrency: Concurrency | None = None
    task_args: dict[str, Any] = field(default_factory=dict)
    options: RunOptions | None = None
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


def run_context() -> RunContext:
    """The context of the task load in progress, read once from Inspect's frames (an empty
    context outside Inspect's loader: a task built directly in Python is built before any
    model is chosen, and the active model may be one an earlier eval left in the process)."""
    if _frame("task_create") is None:
        return RunContext()
    model = active_model()
    inner = _frame("eval_async_inner")
    settings: Any = _local(inner, "eval_async_inner", "kwargs") or {}
    connections = settings.get("max_connections") if isinstance(settings, dict) else None
    args = _local(inner, "eval_async_inner", "task_args")
    epochs: Any = _local(inner, "eval_async_inner", "epochs")
    epochs = getattr(epochs, "epochs", epochs)
    return RunContext(
        loading=True,
        model=str(model) if model is not None else None,
        active=model,
        role_models=dict(model_roles()),
        concurrency=None
        if inner is None
        else Concurrency(
            max_samples=_int_or_none(_local(inner, "eval_async_inner", "max_samples")),
            max_connections=_int_or_none(connections),
        ),
        task_args=dict(args) if isinstance(args, dict) else {},
        options=None
        if inner is None
        else RunOptions(
            epochs=_int_or_none(epochs),
            time_limit=_int_or_none(_local(inner, "eval_async_inner", "time_limit")),
            score=_local(inner, "eval_async_inner", "score") is not False,
        ),
    )


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

    Inspect prints a prerequisite error's message on its console, which ``--display none``
    silences: the run would stop with a non-zero exit and no word. Only while Inspect loads
    the task (a task built in Python raises to its caller, who sees it).
    """
    try:
        yield
    except PrerequisiteError as err:
        if display_type() == "none" and context.loading:
            print(str(err), file=sys.stderr)
        raise
