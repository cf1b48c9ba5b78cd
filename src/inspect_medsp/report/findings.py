"""Turn MedSP runs into the report's findings: groups, shared-scenario comparison, gaps,
run health and the warnings a reader must see before trusting a number."""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from typing import Literal

from pydantic import BaseModel, Field

from inspect_medsp.data.caseset import CaseSet
from inspect_medsp.data.models import BASELINE, COMPETENCIES
from inspect_medsp.preflight.people import is_person, person_label
from inspect_medsp.record.grader import self_preference
from inspect_medsp.record.read import CLINICIAN, MedspRun, MedspSample
from inspect_medsp.record.score import KEYS
from inspect_medsp.record.trajectory import ROLE_NAMES, ReplyHealth
from inspect_medsp.record.vocabulary import normalise
from inspect_medsp.report.pool_check import pooling_warning
from inspect_medsp.report.problem import Problem
from inspect_medsp.report.rows import scenario_rows
from inspect_medsp.report.shards import ShardSet, set_location, set_name, shard_sets
from inspect_medsp.report.views import (
    Breakdown,
    SpecialtyScore,
    StrategyCell,
    TokenBin,
    breakdowns,
    specialty_sources,
    strategy_cells,
    token_bins,
)
from inspect_medsp.report.views import specialty_scores as views_specialty_scores
from inspect_medsp.scoring.metrics import (
    case_of,
    completion_summary,
    mean_ci,
)
from inspect_medsp.stats.pairwise import Comparison, pairwise

SCRIPTED_CLINICIAN = "medsp/scripted"
"""The package's scripted demo provider: a replay of hand-written turns, not a model."""

DEGRADED_LIMIT = 0.10
"""A run is flagged when more than this share of any role's replies was degraded."""

UNJUDGED_LIMIT = 0.10
"""A run is flagged when more than this share of its rubric items got no verdict."""

MetricsSource = Literal["log", "pooled", "samples"]
GroupKey = tuple[str, str, str, str, str, str]
"""Clinician, strategy, protocol, judge, the case set's key (:attr:`CaseSet.key`), and the shard
set of a run made in parts ("" for a whole run): the parts of one run are one group, never
pooled with another run."""
Key = tuple[str, int]
"""A sample of a group: scenario id and epoch."""


class RunHealth(BaseModel):
    """Whether one run's score can be read as the clinician model's."""

    run: str
    path: str
    group: str
    label: str = ""
    """The run by clinician model, strategy and judge (numbered when several runs share it)."""
    status: str
    samples: int
    scored: int
    errored: int
    unscored: dict[str, str] = Field(default_factory=dict)
    """Samples Inspect counts as unscored, with the reason."""
    items: int
    unjudged: int
    roles: dict[str, ReplyHealth]
    ends: dict[str, int]
    refused_turns: int = 0
    """Clinician turns its provider refused (content filter), graded as nothing done."""
    refused_encounters: int = 0
    """Samples with at least one refused clinician turn."""
    mean_turns: float | None
    tokens: dict[str, float]
    """Mean total tokens per sample, by role."""
    replaced: list[str] = Field(default_factory=list)
    """Samples not scored here that another run of the group scored (a re-run): no flag."""
    flags: list[str] = Field(default_factory=list)

    @property
    def context_exhausted(self) -> int:
        """Encounters that ended because the clinician's prompt no longer fit its window."""
        return self.ends.get("context_exhausted", 0)

    def provider_stops(self) -> str:
        """What the clinician model's provider did to the run, in words (empty: nothing)."""
        parts: list[str] = []
        if self.context_exhausted:
            parts.append(f"{self.context_exhausted} encounter(s) ended with its context full")
        if self.refused_turns:
            parts.append(
                f"{self.refused_turns} turn(s) refused in {self.refused_encounters} encounter(s)"
            )
        cut = self.roles.get("clinician", ReplyHealth()).truncated
        if cut:
            parts.append(f"{cut} reply attempt(s) cut off at the token limit")
        return "; ".join(parts)

    def degraded_share(self, role: str) -> float | None:
        health = self.roles.get(role)
        if health is None or health.total == 0:
            return None
        return health.degraded / health.total


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


class MissedItem(BaseModel):
    """A rubric item (by competency and normalised text) across a group's scenarios."""

    group: str
    competency: str
    text: str
    seen: int
    missed: int
    unjudged: int
    scenarios: list[str]


class Analysis(BaseModel):
    """Everything the tables, charts and text are made from."""

    runs: list[MedspRun]
    groups: list[GroupSummary]
    health: list[RunHealth]
    missed: list[MissedItem]
    specialties: list[SpecialtyScore]
    specialty_sources: dict[str, dict[str, int]] = Field(default_factory=dict)
    """Scenarios by the source of their specialty label, per group."""
    token_bins: list[TokenBin] = Field(default_factory=list)
    breakdowns: list[Breakdown] = Field(default_factory=list)
    strategy: list[StrategyCell] = Field(default_factory=list)
    shared_ids: list[str]
    """The scenarios every group scored (none when the groups ran different case sets)."""
    shared_by_set: dict[str, list[str]] = Field(default_factory=dict)
    """The scenarios every group of a case set scored, by :attr:`CaseSet.key`."""
    comparisons: list[Comparison] = Field(default_factory=list)
    """Paired differences b - a of every pair of groups (leaderboard order), per competency."""
    left_out: list[str] = Field(default_factory=list)
    """Groups left out of the shared-scenario comparison because nothing of theirs was scored."""
    flags: list[str]
    notes: list[str]
    problems: list[Problem]


def analyse(runs: Sequence[MedspRun], problems: Sequence[Problem] = ()) -> Analysis:
    """Group the runs and work out every finding of the report.

    Raises:
        ShardSetRefused: Logs of one shard set that cannot be parts of one run.
    """
    read, sets = shard_sets(runs)
    ordered = sorted(read, key=lambda r: r.created)
    labels = _labels(ordered)
    by_key: dict[GroupKey, list[MedspRun]] = defaultdict(list)
    for run in ordered:
        by_key[_key(run)].append(run)
    groups = [_group(key, labels[key], members) for key, members in by_key.items()]
    for group in groups:
        in_parts(group, sets)

    names = run_labels(ordered)
    scored_by_key = {g.key: {(s.id, s.epoch) for s in g.samples if s.scored} for g in groups}
    health = [
        run_health(run, labels[_key(run)], names[run.path], scored_by_key[_key(run)])
        for run in ordered
    ]
    flagged_groups = {h.group for h in health if h.flags}
    for group in groups:
        group.flagged = group.label in flagged_groups or bool(group.incomplete)
        overall = group.metric("macro")
        group.below_overall = [
            c
            for c in COMPETENCIES
            if overall is not None
            and (value := group.metric(f"{c}_macro")) is not None
            and value < overall
        ]
    groups.sort(key=_rank)

    compared = [g for g in groups if g.scored_ids]
    shared_by_set = {
        key: sorted(set.intersection(*(g.scored_ids for g in members)))
        for key, members in by_set(compared).items()
    }
    for group in compared:
        group.shared = shared_macro(group.samples, set(shared_by_set[group.case_set.key]))
    # scenario ids of different sets name different cases: nothing is shared across sets
    shared = next(iter(shared_by_set.values())) if len(shared_by_set) == 1 else []
    left_out = [g.label for g in groups if not g.scored_ids]

    flags, notes = _warnings(ordered, groups, health, shared, left_out)
    notes += superseded_notes(sets)
    return Analysis(
        runs=ordered,
        groups=groups,
        health=health,
        missed=[m for g in groups for m in missed_items(g)],
        specialties=[s for g in groups for s in specialty_scores(g)],
        specialty_sources={g.label: specialty_sources(g.samples) for g in groups},
        # a person reads no tokens: their groups have no input length (n/a)
        token_bins=token_bins([(g.label, g.samples) for g in groups if not g.human]),
        breakdowns=breakdowns([(g.label, g.samples) for g in groups]),
        strategy=strategy_cells([(g.label, g.clinician, g.strategy, g.metrics) for g in groups]),
        shared_ids=shared,
        shared_by_set=shared_by_set,
        comparisons=[
            c
            for members in by_set(groups).values()
            for c in pairwise([(g.label, g.samples) for g in members])
        ],
        left_out=left_out,
        flags=flags,
        notes=notes,
        problems=list(problems),
    )


def _rank(group: GroupSummary) -> tuple[bool, str, float, str]:
    """Sets apart (published sets first, then the user's own, each by name), then the best
    macro first; groups without one last."""
    value = group.metric("macro")
    return (
        group.case_set.custom,
        group.case_set.key,
        -value if value is not None else 1.0,
        group.label,
    )


def by_set(groups: Sequence[GroupSummary]) -> dict[str, list[GroupSummary]]:
    """The groups of each case set (by :attr:`CaseSet.key`), in their order."""
    found: dict[str, list[GroupSummary]] = defaultdict(list)
    for group in groups:
        found[group.case_set.key].append(group)
    return dict(found)


def _key(run: MedspRun) -> GroupKey:
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
    """One note per part logged more than once: which attempt is read."""
    return [
        f"{s.location}: part {k}/{s.count} was logged {len(older) + 1} times; its newest "
        f"attempt ({s.parts[k].name}) is read, not {', '.join(older)}."
        for s in sets
        for k, older in sorted(s.superseded.items())
    ]


def _labels(runs: Sequence[MedspRun]) -> dict[GroupKey, str]:
    """The clinician model (``human: <name>`` for a person), plus strategy, protocol, judge
    and the case set where the runs differ in them."""
    keys = list(dict.fromkeys(_key(r) for r in runs))
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
    """The set's label, with its revision when another set has the same label."""
    same = [s for s in sets if s.label == case_set.label]
    if len(same) > 1 and case_set.revision:
        return f"{case_set.label} [{case_set.revision}]"
    return case_set.label


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


def _group(key: GroupKey, label: str, runs: list[MedspRun]) -> GroupSummary:
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


def shared_macro(samples: Sequence[MedspSample], ids: set[str]) -> dict[str, float]:
    """Macro over ``ids`` from the samples' score values (epochs averaged per scenario)."""
    out: dict[str, float] = {}
    for key in KEYS:
        per_id: dict[str, list[float]] = defaultdict(list)
        for s in samples:
            if s.scored and s.id in ids and key in s.values:
                per_id[s.id].append(s.values[key])
        values = [sum(v) / len(v) for _, v in sorted(per_id.items())]
        if not values:
            continue
        name = "macro" if key == "overall" else f"{key}_macro"
        out[name] = sum(values) / len(values)
        if key == "overall":
            cases = [case_of(sid) for sid, _ in sorted(per_id.items())]
            out["macro_ci_low"], out["macro_ci_high"] = mean_ci(values, cases)
    return out


def run_health(
    run: MedspRun, group: str, label: str | None = None, scored_elsewhere: set[Key] | None = None
) -> RunHealth:
    """Errors, unjudged items, reply degradations, end reasons, turns and tokens of a run.

    A sample that errored or was not scored here but whose scenario and epoch another run of
    the group scored (``scored_elsewhere``: a re-run of a stopped encounter) is no flag: it
    is listed in ``replaced``.
    """
    replaced = sorted(
        {
            s.id
            for s in run.samples
            if not s.scored and (s.id, s.epoch) in (scored_elsewhere or set())
        }
    )
    roles: dict[str, ReplyHealth] = {role: ReplyHealth() for role in ROLE_NAMES}
    for sample in run.samples:
        for role, h in sample.health.items():
            roles[role] = roles.get(role, ReplyHealth()).plus(h)
    scored = [s for s in run.samples if s.scored]
    turns = [s.turns for s in run.samples if s.turns is not None]
    person = is_person(run.model)  # a person reads no tokens: n/a, never 0
    token_roles = sorted(
        {r for s in run.samples for r in s.tokens if not (person and r == CLINICIAN)}
    )
    n = len(run.samples)
    health = RunHealth(
        run=run.name,
        path=run.path,
        group=group,
        label=label or run.label,
        status=run.status,
        samples=n,
        scored=len(scored),
        errored=sum(s.error is not None and s.id not in replaced for s in run.samples),
        unscored={s.id: s.unscored for s in run.samples if s.unscored and s.id not in replaced},
        replaced=replaced,
        items=sum(s.item_count for s in scored),
        unjudged=sum(s.unjudged for s in scored),
        roles=roles,
        ends=dict(Counter(s.end or "unknown" for s in run.samples)),
        refused_turns=sum(s.refused_turns for s in run.samples),
        refused_encounters=sum(s.refused_turns > 0 for s in run.samples),
        mean_turns=sum(turns) / len(turns) if turns else None,
        tokens={r: sum(s.tokens.get(r, 0) for s in run.samples) / n for r in token_roles},
    )
    if run.status != "success":
        health.flags.append(f"run status is {run.status}")
    if health.errored:
        health.flags.append(f"{health.errored} of {n} samples errored")
    if health.unscored:
        shown = ", ".join(f"{i} ({why})" for i, why in sorted(health.unscored.items()))
        health.flags.append(f"{len(health.unscored)} of {n} samples unscored: {shown}")
    for role in ROLE_NAMES:
        share = health.degraded_share(role)
        if share is not None and share > DEGRADED_LIMIT:
            h = roles[role]
            health.flags.append(f"{role} replies degraded: {h.degraded} of {h.total} ({share:.0%})")
    if health.items and health.unjudged / health.items > UNJUDGED_LIMIT:
        health.flags.append(f"{health.unjudged} of {health.items} rubric items unjudged")
    return health


def missed_items(group: GroupSummary) -> list[MissedItem]:
    """Each rubric item of the group's scored samples: how often seen, missed and unjudged."""
    found: dict[tuple[str, str], MissedItem] = {}
    for sample in group.samples:
        for item in sample.items:
            key = (item.competency, normalise(item.text))
            entry = found.get(key)
            if entry is None:
                entry = found[key] = MissedItem(
                    group=group.label,
                    competency=item.competency,
                    text=item.text,
                    seen=0,
                    missed=0,
                    unjudged=0,
                    scenarios=[],
                )
            entry.seen += 1
            entry.missed += item.judged and not item.met
            entry.unjudged += not item.judged
            if sample.id not in entry.scenarios:
                entry.scenarios.append(sample.id)
    return sorted(
        found.values(),
        key=lambda m: (
            -m.missed,
            -(m.missed / m.seen),
            -m.unjudged,
            COMPETENCIES.index(m.competency) if m.competency in COMPETENCIES else 99,
            m.text,
        ),
    )


def specialty_scores(group: GroupSummary) -> list[SpecialtyScore]:
    """Macro completion of the group's scored samples by specialty, with 95% intervals."""
    return views_specialty_scores(group.label, group.samples)


def _scenarios(n: int) -> str:
    return f"{n} scenario{'' if n == 1 else 's'}"


def _warnings(
    runs: Sequence[MedspRun],
    groups: Sequence[GroupSummary],
    health: Sequence[RunHealth],
    shared: Sequence[str],
    left_out: Sequence[str] = (),
) -> tuple[list[str], list[str]]:
    flags: list[str] = []
    notes: list[str] = []
    judges = sorted({g.judge for g in groups})
    if len(judges) > 1:
        flags.append(
            f"Mixed judges: these runs were scored by {len(judges)} different grader models "
            f"({', '.join(judges)}); scores from different judges are not directly comparable."
        )
    case_sets = by_set(groups)
    if len(case_sets) > 1:
        named = "; ".join(
            f"{members[0].case_set.label}: {', '.join(g.label for g in members)}"
            for members in case_sets.values()
        )
        flags.append(
            f"Different case sets ({named}): each set has its own rows, and no group is "
            "compared with a group of another set (a scenario id of one set is not the same "
            "case in another)."
        )
    for members in case_sets.values():
        case_set = members[0].case_set
        if case_set.custom:
            flags.append(
                f"These are your own cases ({case_set.label}), not the MedSP benchmark: the "
                "numbers of their rows say how the clinician did on these cases only."
            )
        if case_set.drafts:
            n = len(case_set.drafts)
            flags.append(
                f"{case_set.label}: {n} case{' is a draft' if n == 1 else 's are drafts'}, "
                f"not yet reviewed by a clinician: {', '.join(case_set.drafts)}; treat their "
                "results as provisional."
            )
    for members in case_sets.values():
        flags += _scenario_flags([g for g in members if g.label not in left_out])
    if left_out:
        flags.append(
            f"Nothing was scored in {len(left_out)} group{'' if len(left_out) == 1 else 's'} "
            f"({'; '.join(left_out)}): left out of the comparison on shared scenarios (see "
            "the health of the runs for why)."
        )
    revisions = {
        (r.task_metadata.data_revision, r.task_metadata.rubric_revision)
        for r in runs
        if not r.case_set.custom
    }
    if len(revisions) > 1:
        shown = "; ".join(
            f"data {d or '-'}, rubrics {r or '-'}" for d, r in sorted(revisions, key=str)
        )
        flags.append(f"Different data or rubric revisions ({shown}): the same scenario may differ.")
    for run in runs:
        for grader in run.graders:
            if (risk := self_preference(run.model, grader)) is not None:
                flags.append(f"Run {run.name}: {risk}")
    scripted = [r for r in runs if r.model == SCRIPTED_CLINICIAN]
    if scripted:
        names = ", ".join(r.name for r in scripted)
        flags.append(
            f"The clinician of {names} is {scripted[0].model}, the package's scripted demo "
            "provider: it replays hand-written turns, so its score shows how the benchmark "
            "works, not what any model can do."
        )
    for g in groups:
        if g.case_set.custom or g.label in left_out:
            continue
        if g.rubrics_differ:
            flags.append(
                f"{g.label} was graded against rubrics that are not the published ones "
                f"({'; '.join(g.rubrics_differ)}): not comparable with the published numbers."
            )
        elif not g.comparable:
            flags.append(
                f"{g.label} scored {g.coverage} published scenarios: not comparable with the "
                "published numbers, which cover every one."
            )
    people = {g.label for g in groups if g.human}
    for h in health:
        if h.flags and h.group in people:
            flags.append(
                f"Run {h.run} ({h.group}) is incomplete: {'; '.join(h.flags)}. Its score covers "
                "only the encounters the person finished and that were graded."
            )
        elif h.flags:
            flags.append(
                f"Run {h.run} ({h.group}) is unhealthy: {'; '.join(h.flags)}. "
                "Do not read its score as the model's."
            )
        if h.replaced:
            notes.append(
                f"Run {h.run} ({h.group}): {len(h.replaced)} encounter(s) not scored there "
                f"were re-run and scored in another log of the group: {', '.join(h.replaced)}."
            )
    for g in groups:
        if g.pool_warning:
            flags.append(g.pool_warning)
        for line in g.incomplete:
            flags.append(f"{g.label} is an incomplete run ({g.parts}): {line}.")
    for g in groups:
        if g.shard_set is not None:
            notes.append(
                f"{g.label}: one run in {g.parts} ({g.shard_set}); "
                + (
                    "its numbers are computed from the per-sample rubric counts with the "
                    "scorer's own macro, micro and intervals."
                    if g.source == "pooled"
                    else "its numbers are the part's own."
                )
            )
        elif g.source == "pooled":
            notes.append(
                f"{g.label}: {len(g.runs)} logs pooled; its numbers are computed from the "
                "per-sample rubric counts with the scorer's own macro, micro and intervals."
            )
        elif g.source == "samples":
            notes.append(
                f"{g.label}: the log has no metrics ({_why_no_metrics(g)}); its numbers are "
                "computed from the per-sample rubric counts with the scorer's own formulas."
            )
        if g.disagreement:
            notes.append(f"{g.label}: {g.disagreement}.")
        if g.duplicates:
            notes.append(
                f"{g.label}: {len(g.duplicates)} scenarios appear in more than one log; each "
                "takes all of its epochs from the newest log that scored it (epochs of "
                "different logs are never mixed)."
                + (
                    f" For {', '.join(g.kept)} the newer attempt was not scored (stopped, cut "
                    "short or errored), so the scored earlier one is kept."
                    if g.kept
                    else ""
                )
            )
        if len(g.supplied) > 1 or (g.source == "pooled" and g.supplied):
            parts = "; ".join(f"{name} supplied {_scenarios(n)}" for name, n in g.supplied.items())
            notes.append(f"{g.label}: {parts}.")
    return flags, notes


def _scenario_flags(compared: Sequence[GroupSummary]) -> list[str]:
    """Whether the groups of one case set ran and scored the same scenarios."""
    shared = set.intersection(*(g.scored_ids for g in compared)) if compared else set()
    sets = {frozenset(g.attempted_ids) for g in compared}
    scored_sets = {frozenset(g.scored_ids) for g in compared}
    if len(sets) > 1:
        everyone = frozenset.intersection(*sets)
        odd = "; ".join(
            f"{g.label} ran {_scenarios(len(g.attempted_ids))}, {extra} of them not run by "
            "every group"
            for g in compared
            if (extra := len(set(g.attempted_ids) - everyone))
        )
        return [
            f"Different scenario sets: the groups did not all run the same scenarios ({odd}; "
            f"{len(everyone)} were run by every group). The comparison uses only the "
            f"{_scenarios(len(shared))} every run scored."
        ]
    if len(scored_sets) > 1:
        return [
            "The runs attempted the same scenarios but some failed to score; the comparison "
            f"uses only the {_scenarios(len(shared))} every run scored."
        ]
    return []


def _why_no_metrics(group: GroupSummary) -> str:
    """Why a single log holds no metrics, from what it holds."""
    failed = [status for status in group.statuses if status != "success"]
    if failed:
        return f"its status is {failed[0]}"
    if not group.scored_ids:
        return "no sample was scored"
    return "its status is success, but it has none"
