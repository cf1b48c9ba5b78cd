"""``medsp_simulation_audit``: the ``auditor`` role reviews the patient and the environment."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from inspect_ai.model import GenerateConfig, get_model
from inspect_ai.scorer import (
    Metric,
    MetricProtocol,
    SampleScore,
    Score,
    Scorer,
    Target,
    Value,
    ci,
    metric,
    scorer,
)
from inspect_ai.solver import TaskState

from inspect_medsp.audit.result import (
    AUDIT_HEADLINES,
    AUDIT_KEYS,
    AUDIT_SCORER,
    NOT_IN_MATERIALS,
    AuditReply,
    Finding,
    SimulationAudit,
    verdict_of,
)
from inspect_medsp.audit.review import ask_auditor, harness_counts, place
from inspect_medsp.calls import DEFAULT_JUDGE, RoleResult
from inspect_medsp.measure import Kit
from inspect_medsp.preflight import GRADER_ACCEPTED, GraderParameters
from inspect_medsp.record import default_grader, figures_of, numbered, unnumbered
from inspect_medsp.scoring import case_of, of_the_baseline

SCORER_NAME = AUDIT_SCORER
AUDITOR_ROLE = "auditor"
AUDIT_SPAN = "simulation audit"
"""The subtask of the auditor's call in the transcript (see ``measure.grading``)."""

KIT = Kit(AUDIT_SCORER, verb="audited", role=AUDITOR_ROLE)
"""The audit's checks, reading, unscored score, grading and metering."""

VALUE_KEYS = AUDIT_KEYS
"""The audit's value keys (see :data:`inspect_medsp.audit.result.AUDIT_KEYS`)."""


def reported(result: RoleResult[AuditReply]) -> str:
    """What the auditor sent, as its grading's output in the transcript."""
    if result.degraded:
        return "no usable reply"
    count = len(result.reply.findings)
    return f"{count} finding{'s' * (count != 1)} reported"


def audit_value(audit: SimulationAudit, number: int = 0) -> dict[str, int]:
    """The score value of an audit (every key a whole number); a re-audit's keys carry its
    number (see :mod:`inspect_medsp.record.numbering`)."""
    value = {
        "invalidating": int(audit.verdict == "invalidating"),
        "flagged": int(audit.verdict != "faithful"),
        "findings": len(audit.findings),
        "patient_findings": audit.count(role="patient"),
        "environment_findings": audit.count(role="environment"),
        "invalidating_findings": audit.count(severity="invalidating"),
        "corrections": audit.harness.corrections,
        "unsupported_actions": audit.harness.unsupported_actions,
        "degraded_replies": sum(audit.harness.degraded.values()),
    }
    return numbered(value, number)


def _finding_line(f: Finding) -> str:
    severity = "**invalidating**" if f.severity == "invalidating" else "minor"
    against = (
        "_not in the materials_"
        if f.contradicts == NOT_IN_MATERIALS
        else f"contradicts _{f.contradicts}_"
    )
    why = f" ({f.why})" if f.why else ""
    return f"- {severity} · turn {f.turn}, {f.role}, `{f.kind}`: “{f.quote}” — {against}{why}"


def explanation(audit: SimulationAudit) -> str:
    """The audit as Markdown for ``inspect view``."""
    h = audit.harness
    lines = [
        f"**Simulation audit: {audit.verdict}** ({len(audit.findings)} findings by {audit.auditor})"
    ]
    lines += [_finding_line(f) for f in audit.findings] or ["- no findings"]
    if audit.verdict == "invalidating":
        lines.append(
            "\n**This encounter still counts in the run's macro** as graded: the audit removes "
            "nothing. `medsp-report` gives the macro with and without the encounters audited "
            "invalidating, and their paired difference."
        )
    if audit.rejected:
        lines.append("\n**Findings the auditor gave that are not in the record** (not counted):")
        for r in audit.rejected:
            f = r.finding
            lines.append(f"- turn {f.turn}, {f.role}, {f.kind}: “{f.quote}” — {r.reason}")
    degraded = ", ".join(f"{role} {n}" for role, n in h.degraded.items()) or "none"
    lines.append(
        f"\n**Harness** (no model): {h.corrections} state-rule corrections, "
        f"{h.unsupported_actions} unsupported actions, degraded replies: {degraded}"
    )
    if audit.summary:
        lines.append(f"\n_{audit.summary}_")
    return "\n".join(lines)


def _share_ci(scores: list[SampleScore], key: str) -> tuple[float, float]:
    """Inspect's ``ci`` (cluster bootstrap over cases) of the mean of one value key."""
    rows = [
        SampleScore(
            score=Score(value=float(_number(s.score.value, key))),
            sample_id=s.sample_id,
            sample_metadata={"case_id": case_of(s.sample_id)},
        )
        for s in scores
    ]
    interval = cast(MetricProtocol, ci(method="bootstrap", cluster="case_id"))
    bounds = interval(rows)
    assert isinstance(bounds, Mapping)
    return _number(bounds, "lower"), _number(bounds, "upper")


def _number(value: Value, key: str) -> float:
    got = value.get(key) if isinstance(value, Mapping) else None
    return float(got) if isinstance(got, int | float) else 0.0


@metric
def audit_summary() -> Metric:
    """Over the baseline's encounters (a patient variant's are compared in the report's
    variants section), share of audited encounters ``invalidating`` (with Inspect's
    cluster-bootstrap interval over cases) and ``flagged``, findings per encounter, and the
    harness counts, from every figure of each audit (its metadata's ``figures``)."""

    def compute(scores: list[SampleScore]) -> Value:
        audited = [
            s.model_copy(
                update={"score": s.score.model_copy(update={"value": unnumbered(v, AUDIT_KEYS)})}
            )
            for s in scores
            if of_the_baseline(s) and (v := figures_of(s.score.value, s.score.metadata)) is not None
        ]
        if not audited:
            return {"audited": 0}
        n = len(audited)
        low, high = _share_ci(audited, "invalidating")
        out: dict[str, float] = {
            "invalidating_share": sum(_number(s.score.value, "invalidating") for s in audited) / n,
            "invalidating_ci_low": low,
            "invalidating_ci_high": high,
            "flagged_share": sum(_number(s.score.value, "flagged") for s in audited) / n,
        }
        for key in VALUE_KEYS[2:]:
            out[key] = sum(_number(s.score.value, key) for s in audited)
        out["audited"] = n
        return out

    return compute


@scorer(metrics=[audit_summary()])
def medsp_simulation_audit(
    judge: str = DEFAULT_JUDGE,
    config: GenerateConfig | None = None,
    cache: bool = False,
    **unknown: Any,
) -> Scorer:
    """Review every patient and environment turn of the recorded encounter against the
    patient script and the environment materials (never the rubric), with the ``auditor``
    role, and count what the harness knows without a model.

    An encounter the auditor cannot review (no turns, or no usable reply after the retries)
    gets Inspect's unscored score with the reason, never a made-up verdict.

    Args:
        judge: Model used when no ``auditor`` role is given (``--model-role auditor=...``)
            and the encounter recorded no grader (the run's judge); by default the auditor
            is the run's grader.
        config: Generation settings for the auditor.
        cache: Inspect's response cache for the auditor's calls.
        unknown: Refused: a parameter the scorer does not have (``-S`` with a typo).

    Raises:
        MedSPParameterError: A bad parameter; under ``inspect score``, a log of another task
            or an auditor that cannot be made here.
    """
    given = {"judge": judge, "config": config, "cache": cache}
    checked = KIT.check(GraderParameters, given, GRADER_ACCEPTED, unknown)
    config, cache = checked.config, checked.cache

    async def score(state: TaskState, target: Target) -> Score:
        encounter = KIT.read(state)
        if isinstance(encounter, Score):
            return encounter
        record, traj, number = encounter.record, encounter.trajectory, encounter.number
        model = get_model(role=AUDITOR_ROLE, default=default_grader(judge, traj.role_models))
        about: dict[str, Any] = {"auditor": str(model), "turns": traj.turn_count, "end": traj.end}
        if not traj.turns:
            return KIT.unscored(
                reason="no_turns",
                why="the encounter has no recorded turns to audit",
                metadata=about,
            )
        try:
            with KIT.metered() as meter:
                result = await KIT.grading(
                    # a re-audit is named as its scorer is: "simulation audit 1"
                    f"{AUDIT_SPAN} {number}" if number else AUDIT_SPAN,
                    lambda: ask_auditor(
                        model, traj, record.scenario.packets, config, cache, record.variant
                    ),
                    {"auditor": str(model)},
                    reported,
                )
        except Exception as err:
            why = f"{type(err).__name__}: {err}"
            return KIT.unscored(reason="auditor_failed", why=why, metadata=about | meter.stored())
        about |= meter.stored()
        if (unusable := _unusable(result, about)) is not None:
            return unusable
        placed = [place(raw, traj) for raw in result.reply.findings]
        findings = [p for p in placed if isinstance(p, Finding)]
        audit = SimulationAudit(
            verdict=verdict_of(findings),
            findings=sorted(findings, key=lambda f: (f.turn, f.role)),
            rejected=[p for p in placed if not isinstance(p, Finding)],
            harness=harness_counts(traj),
            summary=result.reply.summary,
            auditor=str(model),
            turns=traj.turn_count,
            retries=result.retries,
            usage=meter.usage,
            rescored=meter.rescored,
        )
        return _scored(audit, number)

    return score


def _unusable(result: RoleResult[AuditReply], about: dict[str, Any]) -> Score | None:
    """The unscored score of an auditor's reply that cannot be used (a full context window,
    a provider's refusal, no usable JSON after the retries), or None when it can be."""
    if result.context_exhausted or result.refused:
        what = (
            "the auditor model's context window was full "
            f"(a prompt of about {result.prompt_tokens} tokens)"
            if result.context_exhausted
            else "the auditor model's provider refused (content filter)"
        )
        why = f"{what}: re-audit with another model (--model-role auditor=...)"
        extra = {"provider_message": result.provider_message[:2000]}
        return KIT.unscored(reason="auditor_failed", why=why, metadata=about | extra)
    if result.degraded:
        why = (
            f"the auditor's reply was not usable JSON after {result.retries} retries: "
            + "; ".join(result.errors)
        )
        return KIT.unscored(
            reason="auditor_failed", why=why, metadata=about | {"raw": result.raw[:2000]}
        )
    return None


def _scored(audit: SimulationAudit, number: int) -> Score:
    """The audit's score: its headlines as the value (numbered for a re-audit), the whole
    result and every figure as its metadata."""
    value, figures = KIT.headlined(audit_value(audit), AUDIT_HEADLINES, number)
    return Score(
        value=value,
        answer=audit.verdict,
        explanation=explanation(audit),
        metadata=audit.model_dump(mode="json") | figures,
    )
