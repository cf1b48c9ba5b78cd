"""``medsp-report agreement``: how far graders, grading repeats and clinicians agree.

Compares the per-item verdicts of logs that graded the same encounters (a run and its
re-grades), the repeats of a log graded with ``-S samples=k``, and filled validation sheets.
An item one rater could not score (the sample is unscored for that rater) or left unjudged
is counted in ``unscored`` / ``unjudged`` and left out; it is never read as a verdict.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np
from pydantic import BaseModel, Field

from inspect_medsp.agreement.kappa import agreement
from inspect_medsp.agreement.raters import (
    MET,
    NOT_MET,
    UNSCORED,
    AgreementError,
    Comparison,
    GradedLog,
    ItemRow,
    Key,
    graders_comparison,
    read_inputs,
    repeats_comparison,
    shared_encounters,
)
from inspect_medsp.agreement.validation_sheet import RATERS, read_sheets
from inspect_medsp.record import KEYS, self_preference
from inspect_medsp.scoring import clustered_ratio

TOP_ITEMS = 15


class AgreementRow(BaseModel):
    """One comparison's agreement on one competency (or ``overall``)."""

    comparison: str
    kind: str
    raters: str
    competency: str
    items: int
    unscored: int
    """Items left out because a rater could not score the sample."""
    unjudged: int
    """Items left out because a rater left them unjudged."""
    agreement: float
    agreement_ci_low: float
    agreement_ci_high: float
    unanimous: float
    kappa: float
    kappa_ci_low: float
    kappa_ci_high: float
    kappa_kind: str


class Disagreement(BaseModel):
    """An item the raters of a comparison disagree on, over its encounters."""

    comparison: str
    sample_id: str
    number: int
    competency: str
    item: str
    compared: int
    disagreed: int

    @property
    def share(self) -> float:
        return self.disagreed / self.compared


class Shift(BaseModel):
    """How far a headline number moves from the reference grader to another."""

    reference: str
    other: str
    competency: str
    scenarios: int
    reference_macro: float
    other_macro: float
    difference: float
    ci_low: float
    ci_high: float


class AgreementReport(BaseModel):
    """Everything ``medsp-report agreement`` found and wrote."""

    logs: list[dict[str, Any]]
    encounters: int
    left_out_encounters: int
    human_encounters: int = 0
    rows: list[AgreementRow]
    disagreements: list[Disagreement]
    shifts: list[Shift]
    warnings: list[str] = Field(default_factory=list)
    files: list[str] = Field(default_factory=list)


def agreement_rows(comparison: Comparison) -> list[AgreementRow]:
    """Overall and per-competency agreement of one comparison."""
    out: list[AgreementRow] = []
    for key in KEYS:
        mine = [r for r in comparison.rows if key == "overall" or r.competency == key]
        if not mine:
            continue
        usable = [r for r in mine if all(v in (MET, NOT_MET) for v in r.votes)]
        unscored = sum(UNSCORED in r.votes for r in mine)
        result = agreement([r.votes for r in usable], [r.case_id for r in usable])
        out.append(
            AgreementRow(
                comparison=comparison.name,
                kind=comparison.kind,
                raters=" | ".join(comparison.raters),
                competency=key,
                items=result.items,
                unscored=unscored,
                unjudged=len(mine) - len(usable) - unscored,
                agreement=result.agreement,
                agreement_ci_low=result.agreement_ci[0],
                agreement_ci_high=result.agreement_ci[1],
                unanimous=result.unanimous,
                kappa=result.kappa,
                kappa_ci_low=result.kappa_ci[0],
                kappa_ci_high=result.kappa_ci[1],
                kappa_kind=result.kappa_kind,
            )
        )
    return out


def disagreements(comparison: Comparison, top: int = TOP_ITEMS) -> list[Disagreement]:
    """The items whose verdicts differ most often across their encounters."""
    grouped: dict[tuple[str, int], list[ItemRow]] = defaultdict(list)
    for row in comparison.rows:
        if all(v in (MET, NOT_MET) for v in row.votes):
            grouped[(row.sample_id, row.number)].append(row)
    found = [
        Disagreement(
            comparison=comparison.name,
            sample_id=sample_id,
            number=number,
            competency=rows[0].competency,
            item=rows[0].text,
            compared=len(rows),
            disagreed=sum(len(set(r.votes)) > 1 for r in rows),
        )
        for (sample_id, number), rows in grouped.items()
    ]
    found = [d for d in found if d.disagreed]
    found.sort(key=lambda d: (-d.share, -d.disagreed, d.sample_id, d.number))
    return found[:top]


def shifts(logs: Sequence[GradedLog], keys: Sequence[Key]) -> list[Shift]:
    """Macro completion (overall and per competency) under each grader against the first,
    over the scenarios both scored, with the case-clustered t interval of the difference (the
    leaderboard's: NaN below the fewest cases an interval needs)."""
    reference = logs[0]
    out: list[Shift] = []
    for other in logs[1:]:
        for key in KEYS:
            pairs: dict[str, list[tuple[float, float]]] = defaultdict(list)
            cases: dict[str, str] = {}
            for encounter in keys:
                a, b = reference.results[encounter], other.results[encounter]
                if a.scored and b.scored and key in a.counts and key in b.counts:
                    pairs[encounter[0]].append((_share(a.counts[key]), _share(b.counts[key])))
                    cases[encounter[0]] = reference.encounters[encounter].case_id
            if not pairs:
                continue
            ids = sorted(pairs)
            ref = np.asarray([np.mean([p[0] for p in pairs[i]]) for i in ids])
            new = np.asarray([np.mean([p[1] for p in pairs[i]]) for i in ids])
            interval = clustered_ratio(
                new - ref, np.ones(len(ids)), [cases[i] for i in ids], limits=(-1.0, 1.0)
            )
            low, high = interval.low, interval.high
            out.append(
                Shift(
                    reference=reference.label,
                    other=other.label,
                    competency=key,
                    scenarios=len(ids),
                    reference_macro=float(ref.mean()),
                    other_macro=float(new.mean()),
                    difference=float((new - ref).mean()),
                    ci_low=low,
                    ci_high=high,
                )
            )
    return out


def _share(counts: tuple[int, int]) -> float:
    return counts[0] / counts[1]


def human_comparisons(
    logs: Sequence[GradedLog], sheets: Sequence[str]
) -> tuple[list[Comparison], int]:
    """Rater 1 against rater 2, and each rater against each log's grader, on the sheets'
    items; and how many encounters the sheets cover."""
    humans = read_sheets(sheets, logs[0])
    base: list[tuple[Key, Any]] = [
        (key, item) for key in humans.encounters for item in logs[0].encounters[key].items
    ]

    def rows(vote: Any) -> list[ItemRow]:
        return [
            ItemRow(
                *key,
                logs[0].encounters[key].case_id,
                item.number,
                item.competency,
                item.text,
                vote(key, item.number),
            )
            for key, item in base
        ]

    def human(key: Key, number: int, rater: int) -> int:
        return MET if humans.votes[(*key, number)][rater] else NOT_MET

    out = [
        Comparison(
            name=f"human: {RATERS[0]} vs {RATERS[1]}",
            kind="human-human",
            raters=list(RATERS),
            rows=rows(lambda k, n: (human(k, n, 0), human(k, n, 1))),
        )
    ]
    for log in logs:
        for r, rater in enumerate(RATERS):
            out.append(
                Comparison(
                    name=f"human-grader: {rater} vs {log.name}",
                    kind="human-grader",
                    raters=[rater, log.label],
                    rows=rows(lambda k, n, r=r, log=log: (human(k, n, r), log.vote(k, n))),
                )
            )
    return out, len(humans.encounters)


def analyse_agreement(paths: Sequence[str], human: Sequence[str] = ()) -> AgreementReport:
    """Read the logs (files, or folders of logs: ``raters.read_inputs``) and the sheets, and
    compute every comparison.

    Raises:
        AgreementError: A log or sheet cannot be used, the logs graded different encounters,
            or there is nothing to compare.
    """
    logs, left_out_logs = read_inputs(paths)
    keys, left_out = shared_encounters(logs)
    comparisons: list[Comparison] = []
    if len(logs) > 1:
        comparisons.append(graders_comparison(logs, keys))
    if len(logs) > 2:
        comparisons += [
            graders_comparison([logs[0], other], keys, f"graders: {logs[0].name} vs {other.name}")
            for other in logs[1:]
        ]
    comparisons += [c for log in logs if (c := repeats_comparison(log)) is not None]
    n_human = 0
    if human:
        more, n_human = human_comparisons(logs, human)
        comparisons += more
    if not comparisons:
        raise AgreementError(
            f"{logs[0].path}: nothing to compare; give two or more logs of the same encounters "
            "(a run and its re-grades), a log graded with -S samples=k, or --human sheets"
        )
    warnings = left_out_logs + [
        f"{log.name}: {risk}"
        for log in logs
        for grader in log.grader.split(" + ")
        if (risk := self_preference(log.clinician, grader)) is not None
    ]
    return AgreementReport(
        logs=[
            {
                "name": log.name,
                "path": log.path,
                "clinician": log.clinician,
                "grader": log.grader,
                "encounters": len(log.encounters),
                "scored": sum(r.scored for r in log.results.values()),
                "repeats": log.repeats,
            }
            for log in logs
        ],
        encounters=len(keys),
        left_out_encounters=left_out,
        human_encounters=n_human,
        rows=[row for c in comparisons for row in agreement_rows(c)],
        disagreements=[d for c in comparisons for d in disagreements(c)],
        shifts=shifts(logs, keys) if len(logs) > 1 else [],
        warnings=warnings,
    )
