"""Split a run's selected scenarios into N balanced parts (``-T shard=K/N``).

The parts are a pure function of the selection: each scenario is weighed by the estimate of
:mod:`inspect_medsp.workload.model` (its model calls, then its input and output tokens, for
the run's turn limit, strategy, audit and grader repeats), and the scenarios are dealt out
heaviest first, each to the part with the fewest calls so far (then the fewest tokens, then
the lowest number); equal weights are taken in id order. Nothing random and nothing of the
machine goes in, so every machine cuts the same parts, and every scenario lands in exactly
one part whatever N is. The first N scenarios each open a part of their own, so no part is
empty while N is at most the number of scenarios.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import NamedTuple

from pydantic import BaseModel, ConfigDict

from inspect_medsp.data import SampleRecord
from inspect_medsp.errors import MedSPParameterError
from inspect_medsp.record import Shard, ShardRecord, StrategySettings
from inspect_medsp.workload.model import estimate_records


class Weight(NamedTuple):
    """What one scenario is estimated to cost a part: model calls, then tokens."""

    calls: int
    tokens: int


class RunShape(BaseModel):
    """The settings that change a scenario's estimated calls and tokens."""

    model_config = ConfigDict(frozen=True)

    max_turns: int
    strategy: StrategySettings = StrategySettings()
    audit: bool = False
    grader_samples: int = 1


def weigh(record: SampleRecord, shape: RunShape) -> Weight:
    """The estimate of one scenario's calls and tokens (input and output) in a run of
    ``shape``, every encounter running to the turn limit."""
    total = estimate_records(
        [record],
        shape.max_turns,
        shape.strategy,
        audit=shape.audit,
        grader_samples=shape.grader_samples,
    ).total
    return Weight(total.calls, total.total_tokens)


def deal(ids: Sequence[str], weights: Sequence[Weight], count: int) -> list[int]:
    """The part (from 1) of each scenario: heaviest first, each to the lightest part so far
    (fewest calls, then fewest tokens, then the lowest number)."""
    order = sorted(range(len(ids)), key=lambda i: (-weights[i].calls, -weights[i].tokens, ids[i]))
    loads = [(0, 0, part) for part in range(1, count + 1)]
    parts = [0] * len(ids)
    for i in order:
        calls, tokens, part = min(loads)
        parts[i] = part
        loads[part - 1] = (calls + weights[i].calls, tokens + weights[i].tokens, part)
    return parts


def selection_digest(ids: Sequence[str], weights: Sequence[Weight]) -> str:
    """SHA-256 of the selection: each id with its weight, in id order."""
    lines = sorted(f"{i}\t{w.calls}\t{w.tokens}" for i, w in zip(ids, weights, strict=True))
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


def take_part(
    records: Sequence[SampleRecord], shard: Shard, shape: RunShape
) -> tuple[list[SampleRecord], ShardRecord]:
    """The records of part ``shard`` of ``records`` (kept in their order), and what the log
    stores of it.

    Raises:
        MedSPParameterError: More parts than scenarios (a part would be empty).
    """
    if shard.count > len(records):
        raise MedSPParameterError(
            f"task parameter shard='{shard}' is not accepted: the selection has "
            f"{len(records)} scenario{'' if len(records) == 1 else 's'}, so it splits into at "
            f"most {len(records)} parts; use shard=K/{len(records)} or fewer parts"
        )
    ids = [r.scenario.id for r in records]
    weights = [weigh(r, shape) for r in records]
    parts = deal(ids, weights, shard.count)
    stored = ShardRecord(
        index=shard.index,
        count=shard.count,
        sizes=[parts.count(k) for k in range(1, shard.count + 1)],
        selection=selection_digest(ids, weights),
    )
    return [r for r, part in zip(records, parts, strict=True) if part == shard.index], stored
