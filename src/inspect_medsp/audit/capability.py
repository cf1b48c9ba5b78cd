"""The simulator audit as a capability: its columns, report section, end-of-run line, the
``-T audit=true`` switch and the auditor role it binds in the eval."""

from __future__ import annotations

import math

from inspect_ai.log import EvalLog
from inspect_ai.model import Model
from inspect_ai.scorer import Scorer

from inspect_medsp.audit.audit_report import AUDIT
from inspect_medsp.audit.result import AUDIT_HEADLINES, AUDIT_SCORER, SimulationAudit
from inspect_medsp.audit.scorer import AUDITOR_ROLE, medsp_simulation_audit
from inspect_medsp.measure import Capability, Column, Switch
from inspect_medsp.preflight import RunContext
from inspect_medsp.record import GRADER_ROLE, reduced_samples

# --action and --overwrite: without them Inspect asks in the terminal (and aborts without one)
RE_AUDIT = (
    "inspect score {log} --scorer inspect_medsp/medsp_simulation_audit --action append --overwrite"
)


def unaudited_line(log: EvalLog) -> str | None:
    """One line naming every sample the simulator audit (``-T audit=true``) could not review,
    or None."""
    missing = {
        str(sample.sample_id): str(sample.reason or "unknown")
        for sample in reduced_samples(log, AUDIT_SCORER)
        if isinstance(sample.value, float) and math.isnan(sample.value)
    }
    if not missing:
        return None
    listed = ", ".join(f"{i} [{why}]" for i, why in missing.items())
    again = RE_AUDIT.format(log=log.location or "LOG")
    return f"MedSP: {len(missing)} sample(s) were not audited: {listed}; re-audit: {again}"


def auditor_role(roles: dict[str, Model], context: RunContext) -> dict[str, Model]:
    """The auditor (``-T audit=true``) as a role of the task, so the log's header and the
    viewer's Models tab name it: the model the audit takes anyway when no ``auditor`` role
    is bound, the run's grader (``--model-role grader=...``, else the chosen judge in
    ``roles``).

    Only while Inspect loads the task by name (``inspect eval``, ``eval("...")``): only then
    does the task see the eval's ``--model-role`` bindings, so a grader bound there binds the
    auditor too. A task built in Python before its eval leaves the auditor unbound (the
    audit then follows the encounter's recorded grader, as it always did); so does an
    ``auditor`` bound on the eval (Inspect records that one itself) and the default judge
    (left unbound, as for the grader).
    """
    if not context.loading:
        return {}
    bound = context.role_models
    if AUDITOR_ROLE in bound:
        return {}
    grader = bound.get(GRADER_ROLE) or roles.get(GRADER_ROLE)
    if isinstance(grader, list):
        grader = grader[0] if grader else None
    return {AUDITOR_ROLE: grader} if grader is not None else {}


def _in_eval(judge: str, cache: bool) -> Scorer:
    return medsp_simulation_audit(judge=judge, cache=cache)


SIMULATION_AUDIT = Capability(
    name=AUDIT_SCORER,
    scorer=medsp_simulation_audit,
    columns=(
        Column(
            "invalidating",
            "Audit invalidating",
            palette="good-low",
            low=0,
            high=1,
            unit="1 = an invalidating finding",
        ),
        Column("flagged", "Audit flagged"),
        Column("findings", "Audit findings", palette="good-low", low=0, unit="audit findings"),
        Column("patient_findings", "Audit: patient findings"),
        Column("environment_findings", "Audit: environment findings"),
        Column("invalidating_findings", "Audit: invalidating findings"),
        Column("corrections", "State-rule corrections"),
        Column("unsupported_actions", "Unsupported actions"),
        Column("degraded_replies", "Degraded replies"),
    ),
    headlines=AUDIT_HEADLINES,
    result=SimulationAudit,
    rescore="Re-audit",
    sections=(AUDIT,),
    end_of_run=unaudited_line,
    switch=Switch(
        name="audit",
        default=False,
        help="Also score each encounter with ``medsp_simulation_audit`` (the ``auditor`` "
        "role, by default the grader's model, reviews the patient and environment).",
        accepts="true or false (also audit the simulators with the auditor role)",
    ),
    in_eval=_in_eval,
    eval_roles=auditor_role,
    cached_roles=(AUDITOR_ROLE,),
)
"""The simulator audit: with ``-T audit=true``, or appended with ``inspect score``."""
