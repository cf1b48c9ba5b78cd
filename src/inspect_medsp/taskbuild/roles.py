"""Who plays a MedSP run's roles, and the refusals that depend on it: the scripted demo
where it cannot play, the judge that cannot be made here, the roles a custom set's
cases may be sent to."""

from __future__ import annotations

import logging
from typing import Any

from inspect_ai.model import Model, get_model

from inspect_medsp.calls import DEFAULT_JUDGE
from inspect_medsp.data import (
    LoadReport,
    SampleRecord,
)
from inspect_medsp.encounter import Protocol
from inspect_medsp.errors import MedSPParameterError
from inspect_medsp.params import (
    TaskParameters,
)
from inspect_medsp.preflight import (
    SCRIPTED_MODEL,
    RunContext,
)
from inspect_medsp.runcheck import JUDGED_ROLES, require_judge
from inspect_medsp.scripted import demo_records, plays

logger = logging.getLogger("inspect_medsp")

DEMO_PACKAGE = "inspect_medsp.data"


def refuse_scripted_tools(protocol: Protocol, context: RunContext) -> None:
    """Stop the load when the scripted demo is to be the clinician of the tools protocol.

    Raises:
        MedSPParameterError: ``protocol=tools`` for ``--model medsp/scripted``.
    """
    if protocol == "tools" and context.loading and context.model == SCRIPTED_MODEL:
        raise MedSPParameterError(
            f"task parameter protocol='tools' is not accepted with --model {SCRIPTED_MODEL}: "
            "the scripted demo replays JSON turns and cannot call tools; drop -T "
            "protocol=tools (or evaluate another model)"
        )


def judge_model(judge: str, context: RunContext) -> Model:
    """The ``judge`` model, made now, so a name no provider knows is one line at load.

    Raises:
        MedSPParameterError: Inspect cannot make a model of that name (unknown provider, its
            package or key missing).
    """
    require_judge(judge, JUDGED_ROLES, context)
    return get_model(judge)  # inspect-evals-lint: ignore[IEBP001] -- made at load to check it


def judged_roles(judge: str, context: RunContext) -> dict[str, Model]:
    """A chosen ``judge`` (``-T judge=...``) for every judged role, so the log records which
    model played each role and a re-score (``inspect score``) uses the same grader.

    Roles bound with ``--model-role`` win: Inspect merges the eval's roles over the task's
    when the eval runs, so nothing here depends on what an earlier eval left in the process.
    The default judge is left unbound: it is the scorer's own default, and binding it would
    make the task need its provider just to be built.
    """
    if judge == DEFAULT_JUDGE:
        return {}
    model = judge_model(judge, context)
    return {role: model for role in JUDGED_ROLES}


def refuse_unscripted(where: str, records: list[SampleRecord], models: list[str | None]) -> None:
    """Stop the load when the scripted demo is to play a case it has no script for (it
    replays the bundled demo's scenarios only), rather than fail in the middle of the run
    (for a person, after they played the case's first turn).

    Args:
        where: The cases, as the line names them (``cases='<folder>'``, ``MedSP-Q100``).
        records: The selected cases.
        models: The models the run may send them to (:func:`run_models`).

    Raises:
        MedSPParameterError: ``medsp/scripted`` plays a role and a case is not a demo's.
    """
    if SCRIPTED_MODEL not in models:
        return
    unplayable = [r.id for r in records if not plays(r)]
    if unplayable:
        n = len(unplayable)
        named = ", ".join(unplayable[:3]) + (f", ... ({n - 3} more)" if n > 3 else "")
        demo = ", ".join(sorted(r.id for r in demo_records()))
        raise MedSPParameterError(
            f"{SCRIPTED_MODEL} cannot play {n} case{'' if n == 1 else 's'} of {where} "
            f"({named}): it replays only the bundled demo's scenarios ({demo}; "
            "inspect_medsp/medsp_demo); play these cases with a real model (-T "
            "judge=provider/model, and no medsp/scripted in --model or --model-role)"
        )


def run_models(params: TaskParameters, context: RunContext) -> list[str | None]:
    """The models a run may send its cases to: the clinician (None when not known while the
    task is built), each judged role's (bound with ``--model-role``, else ``judge``), and
    every other role bound with ``--model-role`` (a measurement's own role, such as the
    auditor, which otherwise follows the grader)."""
    roles = context.roles
    names: list[str | None] = [context.model if context.loading else None]
    for role in JUDGED_ROLES:
        bound = roles.get(role)
        names += bound.split(",") if bound else [params.judge]
    for role, bound in roles.items():
        if role not in JUDGED_ROLES:
            names += bound.split(",")
    return names


def run_roles(params: TaskParameters, context: RunContext) -> dict[str, Any]:
    """Each role a run may send its cases to, with its model as Inspect made it (the
    clinician's None when not known while the task is built): the clinician, each judged
    role (bound with ``--model-role``, else ``judge``, by name) and every other bound role."""
    roles: dict[str, Any] = {"clinician": context.active if context.loading else None}
    for role in JUDGED_ROLES:
        roles[role] = context.role_models.get(role) or params.judge
    for role, bound in context.role_models.items():
        roles.setdefault(role, bound)
    return roles


def with_findings(report: LoadReport, findings: list[str], allowed: bool) -> LoadReport:
    """The load report of a set that runs with identifier findings: the findings, and one
    warning saying so."""
    if not findings:
        return report
    n = len(findings)
    why = (
        "-T identifiers=allow"
        if allowed
        else "every role's model connects to this machine: "
        + ", ".join(f"{e.role} {e.where()}" for e in report.endpoints)
    )
    warning = (
        f"{report.name}: {n} likely identifier{'' if n == 1 else 's'} left in the cases, sent "
        f"as written ({why}); the log lists each (medsp_load.identifiers) and where each "
        "role's model connects (medsp_load.endpoints)"
    )
    return report.model_copy(
        update={"identifiers": findings, "warnings": [*report.warnings, warning]}
    )
