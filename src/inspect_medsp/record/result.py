"""What a scorer over the record stores: a typed result in its score's metadata.

A scorer other than the rubric's (the simulator audit, the grader probes, one a slice adds)
reads the stored Trajectory and returns an Inspect ``Score`` whose metadata is its
:class:`ScorerResult` dumped, or :func:`~inspect_medsp.measure.kit.unscored_score` with why
it could not. Reading needs nothing more: ``MedspSample.result(Kind)`` finds the newest score
of ``Kind.scorer`` and reads its metadata as ``Kind``, and ``MedspSample.result_unscored(Kind)``
says why that scorer could not score the sample. The log schema's document lists every
subclass in the package (``tests/test_log_schema.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, TypeVar

from inspect_ai.scorer import Score
from pydantic import BaseModel

from inspect_medsp.record.numbering import numbered_names

R = TypeVar("R", bound="ScorerResult")


class ScorerResult(BaseModel):
    """The result one scorer over the record stores as its score's metadata."""

    scorer: ClassVar[str]
    """The scorer's name: its score's key in ``sample.scores``."""


def latest(scores: Mapping[str, Score], name: str) -> Score | None:
    """The newest score of scorer ``name``: ``inspect score --action append`` on a log that
    already has it stores the new one as ``<name>1``, ``<name>2``, ... (see
    :mod:`inspect_medsp.record.numbering`; ``<name>-1``, the form earlier documentation gave,
    is read too)."""
    found = list(numbered_names(name, scores))
    if not found:
        return None
    return scores[max(found)[1]]


def result_of(scores: Mapping[str, Score], kind: type[R]) -> R | None:
    """The result of ``kind``'s scorer in ``scores`` (None when it did not run on the sample,
    or ran and could not score it: its unscored score holds only why)."""
    score = latest(scores, kind.scorer)
    if score is None or not score.metadata or "unscored" in score.metadata:
        return None
    return kind.model_validate(dict(score.metadata))


def unscored_of(scores: Mapping[str, Score], kind: type[ScorerResult]) -> str | None:
    """``reason: why`` when ``kind``'s scorer ran on the sample and could not score it, else
    None."""
    score = latest(scores, kind.scorer)
    return _why_unscored(score.metadata) if score is not None else None


def _why_unscored(metadata: Mapping[str, Any] | None) -> str | None:
    if not metadata or "unscored" not in metadata:
        return None
    why = metadata.get("unscored_why")
    return f"{metadata['unscored']}: {why}" if why else str(metadata["unscored"])
