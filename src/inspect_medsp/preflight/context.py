"""What the eval being loaded, or the log being re-scored, asks for.

Inspect calls a task function it loads by name (``inspect eval``) and a scorer it makes for
``inspect score`` from inside its own functions, and passes them nothing of the run: not the
eval's ``--max-samples``, nor the log being re-scored. Inspect exports no public way to read
these, so they are read from Inspect's own frames while it is on the call stack; outside
those (a task or scorer built directly in Python) each reader says it does not know.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from inspect_ai.log import EvalLog
from inspect_ai.model import Model

from inspect_medsp._inspect import (
    active_model,
    calling_frame,
    eval_async_inner,
    loading_task_by_name,
    model_roles,
    resolve_scorers,
    score_cli,
)


def inspect_loading() -> bool:
    """Whether Inspect is loading a task by name for an eval (see ``_inspect.py``)."""
    return loading_task_by_name()


def loading_model() -> str | None:
    """The model Inspect is loading a task for, or None when that is not known.

    Inspect makes the eval's model the active model before it calls a task function it loads
    by name (``inspect eval``, ``eval("inspect_medsp/medsp_demo")``). A task built directly in
    Python is built before any model is chosen, and the active model may then be one an
    earlier eval left in the process: it is read only while Inspect's loader is on the stack.
    """
    if not loading_task_by_name():
        return None
    model = active_model()
    return str(model) if model is not None else None


def loading_roles() -> dict[str, str]:
    """The model roles bound for the eval a task is being loaded for (``--model-role``),
    each role's model name (several, comma-joined); empty outside Inspect's loader."""
    if not loading_task_by_name():
        return {}
    return {role: _names(bound) for role, bound in model_roles().items()}


def loading_role_models() -> dict[str, Model | list[Model]]:
    """The models bound to roles for the eval a task is being loaded for (``--model-role``);
    empty outside Inspect's loader."""
    if not loading_task_by_name():
        return {}
    return dict(model_roles())


def _names(bound: Model | list[Model]) -> str:
    return ",".join(str(m) for m in bound) if isinstance(bound, list) else str(bound)


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


def loading_concurrency() -> Concurrency | None:
    """The sample concurrency of the eval a task is being loaded for; None when unknown."""
    if not loading_task_by_name():
        return None
    frame = calling_frame(eval_async_inner)
    if frame is None:
        return None
    settings: Any = frame.f_locals.get("kwargs") or {}
    connections = settings.get("max_connections") if isinstance(settings, dict) else None
    return Concurrency(
        max_samples=_int_or_none(frame.f_locals.get("max_samples")),
        max_connections=_int_or_none(connections),
    )


@dataclass(frozen=True)
class RunOptions:
    """What the eval being loaded asks of each sample: its epochs, its clock limits and
    whether it is scored."""

    epochs: int | None
    time_limit: int | None
    score: bool


def loading_run_options() -> RunOptions | None:
    """The epochs (``--epochs``), time limit (``--time-limit``) and scoring (``--no-score``)
    of the eval a task is being loaded for; None when unknown."""
    if not loading_task_by_name():
        return None
    frame = calling_frame(eval_async_inner)
    if frame is None:
        return None
    epochs: Any = frame.f_locals.get("epochs")
    epochs = getattr(epochs, "epochs", epochs)
    return RunOptions(
        epochs=_int_or_none(epochs),
        time_limit=_int_or_none(frame.f_locals.get("time_limit")),
        score=frame.f_locals.get("score") is not False,
    )


def loading_task_args() -> dict[str, Any]:
    """The task arguments (``-T``) of the eval a task is being loaded for, as given (a
    ``-T name=`` with nothing after it is there, as None); empty when unknown."""
    if not loading_task_by_name():
        return {}
    frame = calling_frame(eval_async_inner)
    given = frame.f_locals.get("task_args") if frame is not None else None
    return dict(given) if isinstance(given, dict) else {}


def _int_or_none(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def rescoring_log() -> EvalLog | None:
    """The log ``inspect score`` is making a scorer for, or None (a scorer made directly)."""
    frame = calling_frame(resolve_scorers)
    log = frame.f_locals.get("log") if frame is not None else None
    return log if isinstance(log, EvalLog) else None


def rescoring_roles() -> dict[str, str]:
    """The ``--model-role`` values given to ``inspect score`` (empty when none or unknown)."""
    frame = calling_frame(score_cli)
    roles = frame.f_locals.get("model_roles") if frame is not None else None
    if not isinstance(roles, dict):
        return {}
    return {str(role): _role_name(value) for role, value in roles.items()}


def _role_name(value: object) -> str:
    if isinstance(value, list | tuple):
        return ",".join(_role_name(v) for v in value)
    if isinstance(value, dict):
        return str(value.get("model", ""))
    return str(value)
