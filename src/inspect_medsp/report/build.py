"""Read logs, analyse them and write the report folder: :func:`analyse` groups the runs and
has each view work out its rows; :func:`write_report` is the build loop over the sections it
is given (it names none itself)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path

from pydantic import BaseModel, Field

from inspect_medsp.data import COMPETENCIES
from inspect_medsp.record import MedspRun
from inspect_medsp.report.analysis import Analysis
from inspect_medsp.report.case_metadata import breakdowns
from inspect_medsp.report.gaps import missed_items
from inspect_medsp.report.groups import (
    GroupKey,
    GroupSummary,
    by_set,
    group_key,
    group_labels,
    in_parts,
    pool_group,
    run_labels,
    superseded_notes,
)
from inspect_medsp.report.head import warnings_and_notes
from inspect_medsp.report.health import run_health
from inspect_medsp.report.input_length import token_bins
from inspect_medsp.report.leaderboard import shared_macro
from inspect_medsp.report.page import render_html
from inspect_medsp.report.problem import Problem
from inspect_medsp.report.runs import collect
from inspect_medsp.report.section import Section, digests, read_by, render_markdown, report_files
from inspect_medsp.report.shards import shard_sets
from inspect_medsp.report.specialties import specialty_scores, specialty_sources
from inspect_medsp.report.strategy import strategy_cells
from inspect_medsp.stats import pairwise

FORMATS = ("md", "html")
INSTALL_HINT = "matplotlib is needed for the charts: pip install 'inspect-medsp[report]'"


def analyse(runs: Sequence[MedspRun], problems: Sequence[Problem] = ()) -> Analysis:
    """Group the runs and work out every finding of the report.

    Raises:
        ShardSetRefused: Logs of one shard set that cannot be parts of one run.
    """
    read, sets = shard_sets(runs)
    ordered = sorted(read, key=lambda r: r.created)
    labels = group_labels(ordered)
    by_key: dict[GroupKey, list[MedspRun]] = defaultdict(list)
    for run in ordered:
        by_key[group_key(run)].append(run)
    groups = [pool_group(key, labels[key], members) for key, members in by_key.items()]
    for group in groups:
        in_parts(group, sets)

    names = run_labels(ordered)
    scored_by_key = {g.key: {(s.id, s.epoch) for s in g.samples if s.scored} for g in groups}
    health = [
        run_health(run, labels[group_key(run)], names[run.path], scored_by_key[group_key(run)])
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

    flags, notes = warnings_and_notes(ordered, groups, health, shared, left_out)
    notes += superseded_notes(sets)
    return Analysis(
        runs=ordered,
        groups=groups,
        health=health,
        missed=[m for g in groups for m in missed_items(g)],
        specialties=[s for g in groups for s in specialty_scores(g.label, g.samples)],
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


class ReportResult(BaseModel):
    """What a report run read, skipped and wrote."""

    analysis: Analysis | None = None
    problems: list[Problem] = Field(default_factory=list)
    files: list[str] = Field(default_factory=list)

    @property
    def reported(self) -> bool:
        return self.analysis is not None


def write_report(
    inputs: Iterable[str | Path],
    out: str | Path,
    sections: Sequence[Section],
    formats: Sequence[str] = ("md",),
) -> ReportResult:
    """Write the report of ``sections`` for every MedSP log under ``inputs`` into ``out``:
    each section's files, then ``report.md`` (and ``report.html``).

    Inputs that are not MedSP logs (or not logs at all) are listed in ``problems`` and in the
    report, except those a section reads (``Section.reads``: ``Analysis.read_by``); nothing
    is written when no MedSP run could be read.

    Raises:
        ValueError: An unknown format.
        ImportError: matplotlib is not installed (the ``report`` extra).
    """
    unknown = [f for f in formats if f not in FORMATS]
    if unknown:
        raise ValueError(f"unknown format {', '.join(unknown)}: use md and/or html")
    try:
        import matplotlib.figure  # noqa: F401  (every chart is drawn with matplotlib)
    except ImportError as err:
        raise ImportError(INSTALL_HINT) from err

    runs, problems = collect(inputs, digests(sections))
    read = read_by(problems, sections)
    problems = [p for p in problems if p.path not in read]
    result = ReportResult(problems=problems)
    if not runs:
        return result
    analysis = analyse(runs, problems).model_copy(update={"read_by": read})
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    files = report_files(analysis, sections)
    written: list[Path] = []
    for file in files:
        path = folder / file.name
        file.write(path)
        written.append(path)
    markdown = render_markdown(analysis, sections, files=files)
    md_path = folder / "report.md"
    md_path.write_text(markdown, encoding="utf-8")
    written.append(md_path)
    if "html" in formats:
        html_path = folder / "report.html"
        html_path.write_text(render_html(markdown), encoding="utf-8")
        written.append(html_path)
    result.analysis = analysis
    result.files = [str(p) for p in written]
    return result
