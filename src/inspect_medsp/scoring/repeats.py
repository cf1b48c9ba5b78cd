"""Self-consistency: grade an encounter k times and score each item by majority.

With ``samples=k`` (k > 1) the grader judges the same record k times, each time at
``temperature`` (default :data:`REPEAT_TEMPERATURE`) and with its own seed (``seed + i`` for
repeat ``i``, counting from 0; ``seed`` is the grader config's seed, else
:data:`REPEAT_SEED`). The seed is part of the request, so the repeats are distinct requests:
Inspect's response cache (``cache=true``) keeps one reply per repeat and can never hand the
same reply back k times, and a cached re-run reproduces every repeat.

Majority rule: an item is met when more than half of the repeats that judged it say met. A
tie (possible with an even k, or when some repeats left the item unjudged) counts as not met,
the same side an unjudged item falls on. An item no repeat judged stays unjudged.

Every repeat's verdict is kept in the score metadata: each entry of ``items`` gains
``votes`` (one of true, false or null for unjudged, per repeat) and ``flip_rate`` (the share
of its judged votes that differ from its majority verdict), and ``repeats`` holds per
competency and overall the number of items whose votes were not unanimous
(``flipped_items``) and the ``flip_rate``: the share of all judged votes that differ from
their item's majority verdict.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from inspect_ai.model import GenerateConfig
from inspect_ai.util import collect
from pydantic import BaseModel, Field

from inspect_medsp.data import COMPETENCIES
from inspect_medsp.errors import MedSPDataError
from inspect_medsp.record import Conflict, ConflictRecord, ItemVerdict, RepeatSummary, Verdict

REPEAT_TEMPERATURE = 1.0
"""The grader's temperature for repeats when none is given: repeats must be able to differ."""
REPEAT_SEED = 11
"""The first repeat's seed when the grader config sets none."""
TIE_RULE = "not met"

GradeOnce = Callable[
    [GenerateConfig | None],
    Awaitable[tuple[list[Verdict], list[str], list[str], list[Conflict]]],
]
"""One grading of the record with a given config: verdicts, reasoning, ignored reply keys and
items given both verdicts (see :func:`inspect_medsp.scoring.scorer.judge_items`)."""


class Graded(BaseModel):
    """The verdicts a sample is scored on, and what the repeats add to its metadata."""

    verdicts: list[Verdict]
    items: list[ItemVerdict]
    reasoning: list[str]
    ignored: list[str]
    conflicts: list[ConflictRecord] = Field(default_factory=list)
    """Items a grading gave both verdicts (with ``repeat`` when graded several times)."""
    repeats: RepeatSummary | None = Field(default=None)


def check_repeats(samples: int, temperature: float) -> None:
    """Refuse settings that cannot give k distinct gradings.

    Raises:
        MedSPDataError: ``samples`` below 1, or repeats at a temperature that is not above 0.
    """
    if samples < 1:
        raise MedSPDataError(f"samples must be 1 or more (grading repeats), not {samples}")
    if samples > 1 and not temperature > 0:
        raise MedSPDataError(
            f"temperature={temperature} would make the {samples} grading repeats identical; "
            f"use a temperature above 0 (default {REPEAT_TEMPERATURE})"
        )


def repeat_configs(
    config: GenerateConfig | None, samples: int, temperature: float
) -> list[GenerateConfig]:
    """The grader config of each repeat: the given one at ``temperature`` with seed + i."""
    base = config or GenerateConfig()
    first = base.seed if base.seed is not None else REPEAT_SEED
    return [
        base.merge(GenerateConfig(temperature=temperature, seed=first + i)) for i in range(samples)
    ]


async def grade(
    once: GradeOnce, config: GenerateConfig | None, samples: int, temperature: float
) -> Graded:
    """Grade once (``samples == 1``, exactly as before) or ``samples`` times by majority."""
    if samples == 1:
        verdicts, reasoning, ignored, conflicts = await once(config)
        return Graded(
            verdicts=verdicts,
            items=[ItemVerdict.model_validate(v.model_dump()) for v in verdicts],
            reasoning=reasoning,
            ignored=ignored,
            conflicts=[ConflictRecord.model_validate(c.model_dump()) for c in conflicts],
        )
    configs = repeat_configs(config, samples, temperature)
    results = await collect(*(once(c) for c in configs))
    graded = majority(
        [r[0] for r in results],
        [r[1] for r in results],
        [r[2] for r in results],
        temperature=temperature,
        seeds=[c.seed or 0 for c in configs],
    )
    graded.conflicts = [
        ConflictRecord.model_validate(c.model_dump() | {"repeat": i + 1})
        for i, r in enumerate(results)
        for c in r[3]
    ]
    return graded


def majority(
    runs: list[list[Verdict]],
    reasoning: list[list[str]],
    ignored: list[list[str]],
    *,
    temperature: float,
    seeds: list[int],
) -> Graded:
    """Majority verdicts of several gradings of one record, with every vote kept."""
    votes: dict[int, list[bool | None]] = {}
    for run in runs:
        for v in run:
            votes.setdefault(v.number, []).append(v.met if v.judged else None)
    verdicts: list[Verdict] = []
    items: list[ItemVerdict] = []
    for first in runs[0]:
        mine = votes[first.number]
        judged = [vote for vote in mine if vote is not None]
        met = sum(judged) * 2 > len(judged)
        agree = next(
            (
                v
                for run in runs
                for v in run
                if v.number == first.number and v.judged and v.met == met
            ),
            first,
        )
        verdict = agree.model_copy(update={"met": met, "judged": bool(judged)})
        verdicts.append(verdict)
        items.append(
            ItemVerdict.model_validate(
                verdict.model_dump() | {"votes": mine, "flip_rate": flip_rate(judged, met)}
            )
        )
    return Graded(
        verdicts=verdicts,
        items=items,
        reasoning=[f"[repeat {i + 1}] {text}" for i, got in enumerate(reasoning) for text in got],
        ignored=sorted({key for keys in ignored for key in keys}),
        repeats=RepeatSummary(
            samples=len(runs),
            temperature=temperature,
            seeds=seeds,
            tie_rule=TIE_RULE,
            **flip_summary(items),
        ),
    )


def flip_rate(judged: list[bool], met: bool) -> float:
    """The share of judged votes that differ from the majority verdict ``met``."""
    return sum(vote != met for vote in judged) / len(judged) if judged else 0.0


def flip_summary(items: list[ItemVerdict]) -> dict[str, Any]:
    """``flipped_items`` and ``flip_rate`` overall and per competency the items have."""
    flipped: dict[str, int] = {}
    rates: dict[str, float] = {}
    for key in ("overall", *COMPETENCIES):
        mine = [i for i in items if key == "overall" or i.competency == key]
        if not mine:
            continue
        judged = [[v for v in i.votes if v is not None] for i in mine]
        n_votes = sum(len(j) for j in judged)
        differing = sum(v != i.met for i, j in zip(mine, judged, strict=True) for v in j)
        flipped[key] = sum(len(set(j)) > 1 for j in judged)
        rates[key] = differing / n_votes if n_votes else 0.0
    return {"flipped_items": flipped, "flip_rate": rates}
