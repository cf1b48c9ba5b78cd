"""Runs into groups: one group is every run of one clinician, strategy, protocol and judge on
one set of cases (the parts of a run made in parts are one group), its logs pooled by scenario,
and the macro of any subset of its samples with the scorer's own interval. Every view of the
report reads its numbers from these groups."""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from typing import Literal

from pydantic import BaseModel, Field

from inspect_medsp.data import BASELINE, CaseSet, first_difference
from inspect_medsp.preflight import is_person, person_label
from inspect_medsp.record import KEYS, MedspRun, MedspSample
from inspect_medsp.report.pool_check import pooling_warning
from inspect_medsp.report.shards import ShardSet, set_location, set_name
from inspect_medsp.scoring import Row, case_of, completion_summary

MetricsSource = Literal["log", "pooled", "samples"]
GroupKey = tuple[str, str, str, str, str, str]
"""Clinician, strategy, protocol, judge, the case set's key (:attr:`CaseSet.key`), and the shard
set of a run made in parts ("" for a whole run): the parts of one run are one group, never
pooled with another run."""
Key = tuple[str, int]
"""A sample of a group: scenario id and epoch."""


class GroupSummary(BaseModel):
    """One leaderboard row: every run of one clinician, strategy, protocol and judge on one
    set of cases."""

    key: GroupKey
    label: str
    clinician: str
    strategy: str
    protocol: str
    judge: str
    case_set: CaseSet
    runs: list[str]
    metrics: dict[str, float]
    source: MetricsSource
    samples: list[MedspSample]
    """The group's encounters of the cases as published (``baseline``): every number of the
    report's core is read from these."""
    variant_samples: list[MedspSample] = Field(default_factory=list)
    """Its encounters of patient variants (``-T variants=``), compared with the baseline in
    their own section and in no other number."""
    duplicates: list[str] = Field(default_factory=list)
    """Scenarios more than one of the group's logs ran."""
    supplied: dict[str, int] = Field(default_factory=dict)
    """Scenarios each log supplied (all their epochs), by run name."""
    kept: list[str] = Field(default_factory=list)
    """Scenarios whose newer attempt was not scored (stopped, cut short, errored): the
    scored earlier one is kept."""
    disagreement: str = ""
    pool_warning: str = ""
    """Why the logs pooled here may not belong together (``report.pool_check``)."""
    """Why the log's own metrics were not used, when they disagree with its samples."""
    flagged: bool = False
    below_overall: list[str] = Field(default_factory=list)
    shared: dict[str, float] = Field(default_factory=dict)
    """Macro over the scenarios every group scored, from per-sample values."""
    published: int | None = None
    """Scenarios of the group's task as published (None when unknown or mixed)."""
    statuses: list[str] = Field(default_factory=list)
    """The status of each of the group's logs."""
    rubrics_differ: list[str] = Field(default_factory=list)
    """How the rubrics of the group's runs differ from the published files (one line a run
    whose copy differs)."""
    shard_set: str | None = None
    """The ``<run>.shards`` folder of a run made in parts (``-T shard=K/N``)."""
    parts: str = ""
    """The parts of that run found (``4 of 4 parts``)."""
    incomplete: list[str] = Field(default_factory=list)
    """Its missing or failed parts, one line each: the run is incomplete."""

    @property
    def human(self) -> bool:
        """Whether a person played the clinician (``medsp/human[/<name>]``)."""
        return is_person(self.clinician)

    @property
    def flag_words(self) -> str:
        """What a flagged group is called: an incomplete run for a person (an encounter
        stopped or not graded) or for a run missing a part, an unhealthy run for a model."""
        return "incomplete run" if self.human or self.incomplete else "unhealthy run"

    @property
    def seconds_per_turn(self) -> float | None:
        """Median seconds the clinician took for a turn, over every timed turn of the group
        (None when no turn has a time)."""
        seconds = [t for s in self.samples for t in s.turn_seconds]
        return statistics.median(seconds) if seconds else None

    @property
    def scored_ids(self) -> set[str]:
        return {s.id for s in self.samples if s.scored}

    @property
    def comparable(self) -> bool:
        """Scored every published scenario (always, when the published size is unknown), with
        the published rubrics, of a published set."""
        return self.not_comparable is None

    @property
    def not_comparable(self) -> str | None:
        """Why the row does not compare with the published numbers (None: it does)."""
        if (why := self.case_set.not_comparable) is not None:
            return why
        if self.rubrics_differ:
            return "graded against rubrics that are not the published ones"
        if self.published is not None and len(self.scored_ids) < self.published:
            return f"scored {self.coverage} published scenarios"
        return None

    @property
    def coverage(self) -> str:
        """``N of M`` scenarios scored (``N`` alone when the published size is unknown)."""
        n = len(self.scored_ids)
        return f"{n} of {self.published}" if self.published is not None else str(n)

    @property
    def attempted_ids(self) -> set[str]:
        return {s.id for s in self.samples}

    def metric(self, name: str) -> float | None:
        return self.metrics.get(name)


def by_set(groups: Sequence[GroupSummary]) -> dict[str, list[GroupSummary]]:
    """The groups of each case set (by :attr:`CaseSet.key`), in their order."""
    found: dict[str, list[GroupSummary]] = defaultdict(list)
    for group in groups:
        found[group.case_set.key].append(group)
    return dict(found)


def group_key(run: MedspRun) -> GroupKey:
    place = set_location(run)
    return (
        run.model,
        run.strategy,
        run.protocol,
        run.grader,
        run.case_set.key,
        place[0] if place else "",
    )


def in_parts(group: GroupSummary, sets: Sequence[ShardSet]) -> None:
    """Mark the group of a run made in parts: its folder, the parts found, the parts missing
    or failed."""
    found = next((s for s in sets if s.location == group.key[5]), None)
    if found is None:
        return
    group.shard_set = found.location
    group.parts = found.parts_line
    group.incomplete = found.problems()


def superseded_notes(sets: Sequence[ShardSet]) -> list[str]:
    """One note per part logged more than once (which attempt is read), and per merged log
    left out because its parts are read."""
    return [
        f"{s.location}: part {k}/{s.count} was logged {len(older) + 1} times; its newest "
        f"attempt ({s.parts[k].name}) is read, not {', '.join(older)}."
        for s in sets
        for k, older in sorted(s.superseded.items())
    ] + [
        f"{s.location}: its parts are read, not the log merged from them ({path}), which "
        "holds the same samples."
        for s in sets
        for path in s.merged
    ]


def group_labels(runs: Sequence[MedspRun]) -> dict[GroupKey, str]:
    """The clinician model (``human: <name>`` for a person), plus strategy, protocol, judge
    and the case set where the runs differ in them."""
    keys = list(dict.fromkeys(group_key(r) for r in runs))
    sets = {r.case_set.key: r.case_set for r in runs}
    names = {key: _set_name(case_set, sets.values()) for key, case_set in sets.items()}
    varying = [
        (i, name)
        for i, name in ((1, "strategy"), (2, "protocol"), (3, "judge"))
        if len({k[i] for k in keys}) > 1
    ]
    shard_sets = sorted({k[5] for k in keys})
    shard_names = [set_name(s) for s in shard_sets]
    # a shard set by its folder's name, or its whole location when two folders share the name
    run_names = {
        s: n if shard_names.count(n) == 1 else s
        for s, n in zip(shard_sets, shard_names, strict=True)
    }
    labels: dict[GroupKey, str] = {}
    for k in keys:
        parts = [f"{name}={k[i]}" for i, name in varying]
        if len(sets) > 1:
            parts.append(names[k[4]])
        if k[5] and len(shard_sets) > 1:
            parts.append(f"run {run_names[k[5]]}")
        extra = ", ".join(parts)
        who = person_label(k[0]) if is_person(k[0]) else k[0]
        labels[k] = f"{who} ({extra})" if extra else who
    return labels


def _set_name(case_set: CaseSet, sets: Iterable[CaseSet]) -> str:
    """The set's label; when another set has the same label, with its digest and the first
    file in which it differs from the other ("your cases: mine, 3 cases [digest 1a2b...;
    differs from 9f8e... first at dka/rubric.yaml]")."""
    same = list({s.key: s for s in sets if s.label == case_set.label}.values())
    if len(same) < 2 or not case_set.revision:
        return case_set.label
    other = next(s for s in sorted(same, key=lambda s: s.key) if s.key != case_set.key)
    where = first_difference(case_set, other)
    differs = f"; differs from {other.revision} first at {where}" if where else ""
    return f"{case_set.label} [digest {case_set.revision}{differs}]"


def run_labels(runs: Sequence[MedspRun]) -> dict[str, str]:
    """Each run's :attr:`MedspRun.label` by path; runs sharing one are numbered by creation."""
    ordered = sorted(runs, key=lambda r: r.created)
    same: dict[str, list[MedspRun]] = defaultdict(list)
    names: dict[str, str] = {}
    for run in ordered:
        place, shard = set_location(run), run.task_metadata.shard
        if place is not None and shard is not None:
            names[run.path] = f"{run.label} (part {shard.part} of {set_name(place[0])})"
        else:
            same[run.label].append(run)
    for label, members in same.items():
        for i, run in enumerate(members, start=1):
            names[run.path] = label if len(members) == 1 else f"{label} (run {i} of {len(members)})"
    return names


def pool_by_log(
    runs: Sequence[MedspRun],
) -> tuple[list[MedspSample], dict[str, int], set[str], set[str]]:
    """A group's samples, pooled by log: for each scenario the newest log (``runs`` oldest
    first) that scored it supplies all of its epochs; a scenario no log scored comes from the
    newest log that ran it. Epochs of different logs are never joined in one scenario.

    Returns:
        The samples, the scenarios each log supplied (by run name, logs that supplied none
        left out), the scenarios more than one log ran, and those whose newest attempt was not
        scored (stopped, cut short, errored), so an earlier scored one is kept.
    """
    by_run: list[dict[str, list[MedspSample]]] = []
    for run in runs:
        found: dict[str, list[MedspSample]] = defaultdict(list)
        for sample in run.samples:
            found[sample.id].append(sample)
        by_run.append(found)
    ids = {sid for found in by_run for sid in found}
    samples: list[MedspSample] = []
    supplied: Counter[str] = Counter()
    duplicates: set[str] = set()
    kept: set[str] = set()
    for sid in ids:
        holders = [i for i, found in enumerate(by_run) if sid in found]
        scored = [i for i in holders if any(s.scored for s in by_run[i][sid])]
        chosen = (scored or holders)[-1]
        if len(holders) > 1:
            duplicates.add(sid)
        if chosen != holders[-1]:
            kept.add(sid)
        supplied[runs[chosen].name] += 1
        samples += by_run[chosen][sid]
    samples.sort(key=lambda s: (s.id, s.epoch))
    supplying = {r.name: supplied[r.name] for r in runs if supplied[r.name]}
    return samples, supplying, duplicates, kept


def pool_group(key: GroupKey, label: str, runs: list[MedspRun]) -> GroupSummary:
    """Merge a group's runs by log (:func:`pool_by_log`)."""
    played, supplied, duplicates, kept = pool_by_log(runs)
    # a run with patient variants: the baseline alone makes the row (the log's own metrics
    # pool every variant, so they are not used)
    samples = [s for s in played if s.metadata.variant == BASELINE]
    variant_samples = [s for s in played if s.metadata.variant != BASELINE]
    metrics = pooled_metrics(samples)
    source: MetricsSource = "pooled" if len(runs) > 1 else "samples"
    disagreement = ""
    if len(runs) == 1 and runs[0].metrics is not None and not variant_samples:
        source = "log"
        logged = runs[0].metrics.get("macro")
        if logged is not None and abs(logged - metrics.get("macro", float("nan"))) > 1e-9:
            disagreement = (
                f"the log's own macro ({logged:.4f}) differs from its samples' "
                f"({metrics.get('macro', float('nan')):.4f}); the samples' is reported (logs "
                "written before epochs were reduced in the score value kept epoch 1 only)"
            )
    return GroupSummary(
        key=key,
        label=label,
        clinician=key[0],
        strategy=key[1],
        protocol=key[2],
        judge=key[3],
        case_set=runs[-1].case_set,
        runs=[r.name for r in runs],
        metrics=metrics,
        source=source,
        samples=samples,
        variant_samples=variant_samples,
        duplicates=sorted(duplicates),
        supplied=supplied,
        kept=sorted(kept),
        disagreement=disagreement,
        pool_warning=pooling_warning(label, runs),
        published=sizes.pop() if len(sizes := {r.published for r in runs}) == 1 else None,
        statuses=[r.status for r in runs],
        rubrics_differ=[f"{r.name}: {r.rubrics_differ}" for r in runs if r.rubrics_differ],
    )


def pooled_metrics(samples: Sequence[MedspSample]) -> dict[str, float]:
    """The scorer's macro and micro with their intervals, overall and per competency."""
    rows = scenario_rows(samples)
    return {**completion_summary(rows, "macro"), **completion_summary(rows, "micro")}


def scenario_rows(samples: Sequence[MedspSample]) -> dict[str, list[Row]]:
    """One row per scored scenario and key: its counts averaged over its scored epochs (as
    the task's epoch reducer does), tagged with its case for the bootstrap."""
    epochs: dict[str, list[dict[str, tuple[int, int]]]] = defaultdict(list)
    cases: dict[str, str] = {}
    for s in samples:
        if s.scored:
            epochs[s.id].append(s.counts)  # worked out from the score each time: read once
            cases.setdefault(s.id, s.case_id)
    rows: dict[str, list[Row]] = {key: [] for key in KEYS}
    for sid, scored in sorted(epochs.items()):
        for key in KEYS:
            counts = [found[key] for found in scored if key in found]
            if counts:
                completed = sum(c for c, _ in counts) / len(counts)
                total = sum(t for _, t in counts) / len(counts)
                rows[key].append(Row(completed, total, cases[sid] or case_of(sid)))
    return rows


class MacroCell(BaseModel):
    """Macro completion of one group over some of its scored samples, with its interval."""

    group: str
    n: int
    """Scored samples (scenario and epoch)."""
    scenarios: int
    cases: int
    macro: float
    ci_low: float
    ci_high: float


def cell(group: str, samples: Sequence[MedspSample]) -> MacroCell | None:
    """The cell of ``samples`` (only scored ones with counts count); None if there are none."""
    scored = [s for s in samples if s.scored and "overall" in s.counts]
    if not scored:
        return None
    summary = completion_summary({"overall": scenario_rows(scored)["overall"]}, "macro")
    return MacroCell(
        group=group,
        n=len(scored),
        scenarios=len({s.id for s in scored}),
        cases=len({s.case_id for s in scored}),
        macro=summary["macro"],
        ci_low=summary["macro_ci_low"],
        ci_high=summary["macro_ci_high"],
    )
