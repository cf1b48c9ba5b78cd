"""A MedSP scorer checked when it is made: its parameters, and under ``inspect score`` the log
it is about to score and the models that will grade it.

``inspect score LOG --scorer inspect_medsp/medsp_rubric`` makes the scorer before it reads a
sample, so every mistake here is one line before anything is graded: a bad ``-S`` value, a log
of another task, a person bound to a role (a person plays the clinician only), or a grader that
cannot be made here (its provider not installed, its key not set).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from inspect_ai.log import EvalLog
from pydantic import BaseModel

from inspect_medsp.errors import MedSPDataError
from inspect_medsp.preflight import (
    SERVE_HERE,
    away,
    away_line,
    checked_parameters,
    is_person,
    model_unavailable,
    place_roles,
    rescore_context,
)
from inspect_medsp.record import GRADER_ROLE, TaskMetadata, Trajectory, default_grader

M = TypeVar("M", bound=BaseModel)

# The errors are MedSPDataError, not MedSPParameterError: Inspect's scorer loader takes a
# ValueError from a scorer factory for "no such scorer" and prints its own message instead.

TASKS = "inspect_medsp/medsp1000, medsp100 or medsp_demo"
"""The tasks whose logs a MedSP scorer reads."""


def check_scorer(
    scorer: str,
    model: type[M],
    values: Mapping[str, Any],
    accepted: Mapping[str, str],
    role: str | None,
    unknown: Mapping[str, Any] | None = None,
    task_key: str | None = None,
    sends_to: Mapping[str, str | None] | None = None,
) -> M:
    """The scorer's parameters, checked; under ``inspect score``, the log and its graders too.

    Args:
        scorer: The scorer's name (``--scorer inspect_medsp/<scorer>``).
        model: The pydantic model of its parameters.
        values: The values it was made with.
        accepted: What each parameter takes, in words.
        role: The model role it grades with (``grader``, ``auditor``); None for a scorer
            that asks no model (its log is checked all the same).
        unknown: Parameters it does not have (``-S`` names it was given beyond its own).
        task_key: The task metadata key of the logs it reads, when they are not a benchmark
            task's (a measurement with a task of its own).
        sends_to: Models it sends the samples' content to beyond its role's, by ``-S``
            parameter (the work-up's ``classify``).

    Raises:
        MedSPDataError: One line naming the parameter, log or model at fault; a log whose set
            has identifier findings, re-scored with a model off this machine.
    """
    if unknown:
        names = ", ".join(f"-S {name}" for name in unknown)
        raise MedSPDataError(
            f"scorer {scorer}: {names} is not a parameter of {scorer}; it takes "
            + (", ".join(accepted) if accepted else "no parameters")
        )
    checked = checked_parameters(scorer, model, values, accepted)
    if isinstance(checked, str):
        raise MedSPDataError(checked)
    context = rescore_context()
    log = context.log
    if log is not None and task_key is not None:
        if task_key not in (log.eval.metadata or {}):
            raise MedSPDataError(
                f"{log.location or 'the log'} is a log of task {log.eval.task}: scorer "
                f"{scorer} scores the logs of inspect_medsp/{task_key}; give it one of theirs"
            )
    elif log is not None:
        judge = str(values.get("judge", ""))
        check_log(scorer, log, role, judge, context.roles)
        sent = _grading_models(log, role, judge, context.roles, context.role_values)
        sent += [(f"-S {name}", model) for name, model in (sends_to or {}).items() if model]
        line = identifier_refusal(scorer, log, sent)
        if line is not None:
            raise MedSPDataError(line)
    return checked


def identifier_refusal(
    scorer: str, log: EvalLog, sent: Sequence[tuple[str, Any]]
) -> str | None:
    """The one line refusing to re-score a log whose custom set has identifier findings
    with a model that connects off this machine (``sent``: each role, or ``-S`` parameter,
    and its model as Inspect made it or by name); None when the set had none, the run was
    acknowledged (``-T identifiers=allow``), or every model is on this machine."""
    metadata = TaskMetadata.read(log.eval.metadata)
    findings = metadata.load.identifiers if metadata is not None and metadata.load else []
    if not findings or (log.eval.task_args or {}).get("identifiers") == "allow" or not sent:
        return None
    grouped: dict[str, list[Any]] = {}
    for who, model in sent:
        grouped.setdefault(who, []).extend(model if isinstance(model, list | tuple) else [model])
    placed = place_roles(grouped)
    if not away(placed):
        return None
    n = len(findings)
    return (
        f"scorer {scorer}: {log.location or 'the log'} holds a set with {n} likely "
        f"identifier{'' if n == 1 else 's'} (medsp_load.identifiers; first: {findings[0]}), "
        f"and re-scoring would send it off this machine to {away_line(placed)}: grade with "
        f"a model on this machine ({SERVE_HERE}); nothing was sent and the log is unchanged"
    )


def _grading_models(
    log: EvalLog,
    role: str | None,
    judge: str,
    given: Mapping[str, str],
    values: Mapping[str, Any],
) -> list[tuple[str, Any]]:
    """The models that will grade the log as ``role``: the ``--model-role`` given (as
    Inspect made it), else the role bound in the log, else the grader each sample recorded
    (by name, made as Inspect makes it)."""
    if role is None:
        return []
    if role in values:
        return [(role, values[role])]
    logged = {
        name: ",".join(c.model for c in (bound if isinstance(bound, list) else [bound]))
        for name, bound in (log.eval.model_roles or {}).items()
    }
    bound = given.get(role) or logged.get(role)
    names = {bound} if bound else (
        {default_grader(judge, t.role_models) for t in _trajectories(log)} or {judge}
    )
    return [(role, n) for named in sorted(names) for n in named.split(",") if n]


def check_log(
    scorer: str, log: EvalLog, role: str | None, judge: str, given: Mapping[str, str]
) -> None:
    """The log is a MedSP log and every model that will grade it (``role``'s) can be made
    here.

    Raises:
        MedSPDataError: A log of another task, a person bound to ``role``, or a grading
            model that cannot be made here (``given``: the ``--model-role`` values of
            ``inspect score``).
    """
    where = log.location or "the log"
    if TaskMetadata.read(log.eval.metadata) is None:
        raise MedSPDataError(
            f"{where} is a log of task {log.eval.task}, not of a MedSP task: scorer {scorer} "
            f"scores the encounters of {TASKS}; give it one of their logs"
        )
    if role is None:
        return
    logged = {
        name: ",".join(c.model for c in (bound if isinstance(bound, list) else [bound]))
        for name, bound in (log.eval.model_roles or {}).items()
    }
    bound = given.get(role) or logged.get(role)
    if bound is not None:
        models = {bound}
        how = f"--model-role {role}={bound}"
    else:
        models = {default_grader(judge, t.role_models) for t in _trajectories(log)} or {judge}
        how = f"the {GRADER_ROLE} this log recorded"
    for name in sorted(n for named in models for n in named.split(",")):
        if is_person(name):
            raise MedSPDataError(
                f"{how} is a person, and a person plays the clinician only: bind {role} to a "
                f"model (--model-role {role}=provider/model)"
            )
        reason = model_unavailable(name)
        if reason is not None:
            raise MedSPDataError(
                f"scorer {scorer} grades with {name} ({how}), which cannot be made here: "
                f"{reason}; or grade with another model (--model-role {role}=provider/model)"
            )


def _trajectories(log: EvalLog) -> list[Trajectory]:
    found = [Trajectory.of(sample.store) for sample in log.samples or []]
    return [t for t in found if t is not None]
