"""The tokens a MedSP scorer spent, as its score's metadata stores them.

Inspect counts a sample's tokens per role while the eval runs; a re-grading made later by
``inspect score`` (a re-audit, the grader probes, a re-grade with repeats) is not added to the
sample's usage. Every MedSP scorer therefore stores the model calls it made with its score
(``usage``, measured by ``inspect_medsp.measure``), saying whether it ran after the eval
(``rescored``), so ``medsp-report`` can add what the eval's own counts do not hold.
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel


class RoleSpend(BaseModel):
    """The model calls one role made for a score, and their tokens."""

    calls: int = 0
    """Model calls (every retry counts)."""
    input_tokens: int = 0
    """Input tokens, cached ones included."""
    output_tokens: int = 0
    """Output tokens."""
    total_tokens: int = 0
    """All tokens as the provider counted them."""

    def plus(self, other: RoleSpend) -> RoleSpend:
        """Both spends together."""
        return RoleSpend(
            calls=self.calls + other.calls,
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            total_tokens=self.total_tokens + other.total_tokens,
        )


def added_usage(usage: Mapping[str, RoleSpend], rescored: bool) -> dict[str, RoleSpend]:
    """The spend a score adds to its sample's own usage: all of it for a re-scoring, none for
    a score made in the eval (Inspect counted it already)."""
    return dict(usage) if rescored else {}
