"""Which model grades: decided here once, recorded with every score, read back from it.

While a sample runs, :func:`grader_model` decides: the ``grader`` role bound for the eval or
the re-score (``--model-role grader=...``), else the grader the encounter recorded when it was
played (so ``inspect score`` without a role re-grades with the same model), else the task's
judge. The scorer stores its name in the score metadata (``grader``); a reader takes it from
there with :func:`graders_named`, and only a log none of whose samples names one falls back to
the role bound in the log, then to the task's judge. :func:`self_preference` says when the
grader may be marking its own model's (or family's) work.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from inspect_ai.model import Model, get_model

GRADER_ROLE = "grader"
"""The Inspect model role of the rubric evaluator."""


def default_grader(judge: str, recorded: Mapping[str, str] | None = None) -> str:
    """The grader when no ``grader`` role is bound: the one the encounter recorded, else the
    task's judge (also the default of roles that follow the grader, such as the auditor)."""
    return (recorded or {}).get(GRADER_ROLE) or judge


def grader_model(judge: str, recorded: Mapping[str, str] | None = None) -> Model:
    """The model that grades the current sample.

    Args:
        judge: The task's judge (``-T judge``), the last fallback.
        recorded: The role models the sample's encounter recorded (``Trajectory.role_models``).
    """
    return get_model(  # inspect-evals-lint: ignore[IEBP001] -- called per sample
        role=GRADER_ROLE, default=default_grader(judge, recorded)
    )


def graders_named(sample_graders: Iterable[str | None], bound: str | None, judge: str) -> list[str]:
    """The graders of a log, sorted: those its samples' scores name, else the ``grader`` role
    bound in the log (``bound``), else the task's judge."""
    found = sorted({g for g in sample_graders if g})
    if found:
        return found
    return [bound or judge]


NOT_MODELS = frozenset({"mockllm", "none", "medsp"})
"""Providers whose replies no language model writes (``medsp`` is the scripted demo)."""


def self_preference(clinician: str, grader: str) -> str | None:
    """One sentence when ``grader`` and ``clinician`` are the same model or family, else None."""
    if not clinician or not grader or grader.split("/")[0] in NOT_MODELS:
        return None
    if clinician == grader:
        kind = f"the same model ({grader})"
    elif clinician.split("/")[0] == grader.split("/")[0] and "/" in clinician and "/" in grader:
        kind = f"the same provider family ({grader.split('/')[0]}/: {clinician}, {grader})"
    else:
        return None
    return (
        f"Self-preference risk: the grader and the clinician are {kind}; LLM graders tend to "
        "favour their own model's work, so grade with another family too "
        "(inspect score LOG --model-role grader=...) and compare with medsp-report agreement."
    )
