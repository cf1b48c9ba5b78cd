"""Join scenarios with their rubrics into Inspect samples, reporting every exclusion."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.util import display_type
from pydantic import BaseModel, ConfigDict, Field

from inspect_medsp._inspect import display, display_type_initialized
from inspect_medsp.data.caseset import CaseSet
from inspect_medsp.data.models import COMPETENCIES, Competency, Rubric, SampleRecord
from inspect_medsp.data.published import PUBLISHED_KEY, published_scenarios
from inspect_medsp.data.rubrics import RubricSet, load_rubrics, load_subset
from inspect_medsp.data.scenarios import (
    CaseMeta,
    PacketError,
    discover_scenario_ids,
    load_scenario,
    preview,
    read_case_meta,
)
from inspect_medsp.data.selection import select_ids
from inspect_medsp.errors import MedSPDataError
from inspect_medsp.preflight import Endpoint

logger = logging.getLogger("inspect_medsp")

METADATA_KEY = "medsp"
"""Sample metadata key holding the :class:`SampleRecord`."""

REASONS: dict[str, str] = {
    "unreadable": "unreadable rubric files",
    "no_items": "rubrics with no items",
    "no_rubric": "scenarios with no rubric file",
    "bad_packets": "scenarios with a missing or empty role folder",
    "no_scenario": "rubrics whose scenario is not in the data",
}
"""Exclusion reasons, in the order they are reported."""

SINGULAR: dict[str, str] = {
    "unreadable": "unreadable rubric file",
    "no_items": "rubric with no items",
    "no_rubric": "scenario with no rubric file",
    "bad_packets": "scenario with a missing or empty role folder",
    "no_scenario": "rubric whose scenario is not in the data",
}
"""The reasons for a single id ("1 unreadable rubric file", not "1 ... files")."""


def counted(n: int, reason: str) -> str:
    """``n`` and the reason, singular for one."""
    return f"{n} {SINGULAR[reason] if n == 1 else REASONS[reason]}"


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


class LoadReport(BaseModel):
    """What a load kept and what it left out, and why."""

    model_config = ConfigDict(frozen=True)

    name: str
    scenarios: int
    items: int
    items_by_competency: dict[Competency, int]
    excluded: dict[str, list[str]] = Field(default_factory=dict)
    details: dict[str, str] = Field(default_factory=dict)
    warnings: list[str] = Field(default_factory=list)
    """One line per input that loaded only in part (e.g. a malformed case metadata file)."""
    published: int | None = None
    """Scenarios of the task as published (:mod:`inspect_medsp.data.published`), if known."""
    rubrics_differ: str | None = None
    """How the rubric copy read differs from the published files (a local ``upstream_dir``;
    :mod:`inspect_medsp.data.manifest`), None when it is the published copy or unchecked."""
    case_set: CaseSet | None = None
    """Which set of cases was loaded (None in logs written before it was recorded)."""
    identifiers: list[str] = Field(default_factory=list)
    """The likely identifiers ``medsp-cases check`` found in a custom set that ran anyway,
    one line each (``-T identifiers=allow``, or every role's endpoint on this machine)."""
    endpoints: list[Endpoint] = Field(default_factory=list)
    """Where each role's model connects, as the identifier check of a custom set placed it:
    the host and why it counted on this machine or remote (empty for a benchmark task)."""

    @property
    def comparable(self) -> bool:
        """Whether every published scenario loaded (always, when the size is not known) from
        the published rubrics."""
        complete = self.published is None or self.scenarios >= self.published
        return complete and self.rubrics_differ is None

    def coverage_line(self) -> str | None:
        """One line when fewer scenarios loaded than were published, or the rubrics are not
        the published ones, else None."""
        if self.comparable:
            return None
        partial = self.published is not None and self.scenarios < self.published
        parts = (
            [f"{self.scenarios} of {self.published} published scenarios loaded"] if partial else []
        )
        if self.rubrics_differ is not None:
            parts.append(f"the rubrics read are not the published ones ({self.rubrics_differ})")
        return (
            f"{self.name}: {', and '.join(parts)}; a run of these is not comparable with the "
            "published numbers"
        )

    @classmethod
    def of(
        cls,
        name: str,
        kept: Sequence[Rubric],
        excluded: dict[str, list[str]],
        details: dict[str, str],
    ) -> LoadReport:
        """The report of a load that kept the scenarios of ``kept``."""
        by_comp = {c: sum(len(getattr(r, c)) for r in kept) for c in COMPETENCIES}
        return cls(
            name=name,
            scenarios=len(kept),
            items=sum(by_comp.values()),
            items_by_competency=by_comp,
            excluded={r: v for r, v in excluded.items() if v},
            details=details,
        )

    def count_line(self) -> str:
        """One line: scenarios and items kept, then exclusions by reason."""
        line = (
            f"{self.name}: {_plural(self.scenarios, 'scenario')}, "
            f"{_plural(self.items, 'rubric item')}"
        )
        parts = [counted(len(ids), r) for r, ids in self.excluded.items() if ids]
        if parts:
            n = sum(len(ids) for ids in self.excluded.values())
            line += f"; {n} excluded: " + ", ".join(parts)
        return line

    def warning_lines(self) -> list[str]:
        """One line per exclusion reason, naming every id (with the file's fault if known)."""
        lines = list(self.warnings)
        for reason, ids in self.excluded.items():
            if not ids:
                continue
            named = [f"{i} ({self.details[i]})" if i in self.details else i for i in ids]
            lines.append(f"{self.name}: excluded {counted(len(ids), reason)}: {'; '.join(named)}")
        return lines

    def log(self) -> None:
        """Emit the warning lines, the count line and (when fewer scenarios loaded than were
        published) the coverage line on the ``inspect_medsp`` logger.

        A clean load's count line is an info record, which Inspect's console hides at its
        default log level (warning); it is then also printed through Inspect's display, so
        every run starts by saying what it loaded.
        """
        for line in self.warning_lines():
            logger.warning(line)
        if any(self.excluded.values()):
            logger.warning(self.count_line())
        else:
            logger.info(self.count_line())
            show_on_console(self.count_line())
        if (coverage := self.coverage_line()) is not None:
            logger.warning(coverage)


def show_on_console(line: str) -> None:
    """Print ``line`` through Inspect's display unless info records are shown anyway.

    Only while Inspect has chosen a display (``inspect eval``, or a task loaded by
    ``eval()``): a task built in Python code before ``eval()`` prints nothing and leaves the
    choice of display to ``eval()``. Nothing is printed with ``--display none``, nor when
    the log level shows info records (``--log-level info``), where the record is the line.
    """
    if not display_type_initialized() or display_type() == "none":
        return
    if logging.getLogger().getEffectiveLevel() <= logging.INFO:
        return
    display().print(line)


def rubric_report(rubric_set: RubricSet, ids: Sequence[str] | None, name: str) -> LoadReport:
    """Summarise a rubric set over ``ids`` (all files when ``None``) without scenario data."""
    universe = sorted(rubric_set.rubrics) if ids is None else list(ids)
    problems = (
        rubric_set.problems
        if ids is None
        else {i: p for i, p in rubric_set.problems.items() if i in set(ids)}
    )
    kept = [i for i in universe if i in rubric_set.rubrics]
    excluded: dict[str, list[str]] = {r: [] for r in REASONS}
    details: dict[str, str] = {}
    for pid, problem in sorted(problems.items()):
        excluded[problem.fault].append(pid)
        if problem.fault == "unreadable":
            details[pid] = problem.detail
    excluded["no_rubric"] = [
        i for i in universe if i not in rubric_set.rubrics and i not in problems
    ]
    return LoadReport.of(name, [rubric_set.rubrics[i] for i in kept], excluded, details)


def _subset(scenario_root: Path, upstream_root: Path, in_data: Sequence[str]) -> list[str]:
    """The published subset's ids (``subset.json``), each of them in the data tree."""
    wanted = load_subset(upstream_root)
    present = set(in_data)
    for sid in wanted:
        if sid not in present:
            raise MedSPDataError(
                f"subset scenario {sid} is not in {scenario_root}; the data tree is "
                "incomplete: re-download byrLLCC/MedSP1000 or fix data_dir"
            )
    return list(wanted)


def load_records(
    scenario_root: Path,
    upstream_root: Path,
    *,
    subset: bool = False,
    scenarios: Sequence[str] | None = None,
    name: str = "MedSP1000",
    data_revision: str | None = None,
    rubric_revision: str | None = None,
) -> tuple[list[SampleRecord], LoadReport]:
    """Load every scoreable scenario with its rubric.

    Args:
        scenario_root: Top of a tree in the Hub layout.
        upstream_root: Folder holding ``rubrics/`` (and ``subset.json`` when ``subset``).
        subset: Restrict to the published subset in ``subset.json``.
        scenarios: Optional ids or globs to restrict further.
        name: Name used in report lines.
        data_revision: Commit of the scenario data, recorded in each sample.
        rubric_revision: Commit of the rubric archive, recorded in each sample.

    Returns:
        The records in id order and the report of what was left out.

    Raises:
        MedSPDataError: A subset id is not in the data, a pattern matches nothing, or nothing
            scoreable remains.
    """
    rubric_set = load_rubrics(upstream_root)
    in_data = discover_scenario_ids(scenario_root)
    universe = _subset(scenario_root, upstream_root, in_data) if subset else in_data
    ids = select_ids(sorted(universe), scenarios)

    excluded: dict[str, list[str]] = {r: [] for r in REASONS}
    details: dict[str, str] = {}
    records: list[SampleRecord] = []
    case_meta: dict[str, CaseMeta] = {}
    for sid in ids:
        problem = rubric_set.problems.get(sid)
        rubric = rubric_set.rubrics.get(sid)
        if problem is not None:
            excluded[problem.fault].append(sid)
            if problem.fault == "unreadable":
                details[sid] = problem.detail
            continue
        if rubric is None:
            excluded["no_rubric"].append(sid)
            continue
        try:
            case_id = sid.split("/", 1)[0]
            if case_id not in case_meta:
                case_meta[case_id] = read_case_meta(scenario_root / case_id)
            scenario = load_scenario(scenario_root, sid, case_meta[case_id])
        except PacketError as err:
            excluded["bad_packets"].append(sid)
            details[sid] = str(err)
            continue
        records.append(
            SampleRecord(
                scenario=scenario,
                rubric=rubric,
                data_revision=data_revision,
                rubric_revision=rubric_revision,
            )
        )
    if not subset and not scenarios:
        present = set(in_data)
        excluded["no_scenario"] = sorted(s for s in rubric_set.rubrics if s not in present)

    report = LoadReport.of(name, [r.rubric for r in records], excluded, details)
    problems = [m.problem for m in case_meta.values() if m.problem is not None]
    report = report.model_copy(update={"warnings": problems})
    if not records:
        raise MedSPDataError(
            f"{report.count_line()}: nothing left to score; check data_dir, upstream_dir "
            "and scenarios"
        )
    return records, report


def sample_input(title: str, packet: str) -> str:
    """A sample's input as Inspect's samples grid and sample header show it: the scenario's
    title, then the preview of the clinician's packet (never sent: the clinician reads the
    packet itself)."""
    lead = title.strip().rstrip(".")
    return f"{lead}. {preview(packet)}" if lead else preview(packet)


def variant_lead(record: SampleRecord, tagged: bool = False) -> str:
    """``[<variant>] `` before a variant sample's input, and ``[baseline] `` before the
    baseline's in a run with variants (``tagged``); nothing in a run without them. The grid's
    Input column and the sample's header show it where the Id column cuts ``...@<variant>``;
    the clinician is never sent the input."""
    return f"[{record.variant_name}] " if tagged or record.variant is not None else ""


def record_to_sample(  # inspect-evals-lint: ignore[IETS004] -- tests/test_data.py, by its output
    record: SampleRecord, published: int | None = None, variants: bool = False
) -> Sample:
    """One Inspect sample: input is the clinician's own materials as plain text (a preview;
    the clinician is sent the packet from the record), metadata the full record (and the
    published size of its task, when known); ``variants``: the run plays patient variants,
    and every sample's input starts with its variant's tag."""
    scenario = record.scenario
    title = scenario.metadata.get("scenario_title") or scenario.metadata.get("title", "")
    case = {
        k: v
        for k, v in scenario.metadata.items()
        # the scenario folder's own title, when it repeats the case file's, is said once
        if not (k == "title" and v == scenario.metadata.get("scenario_title"))
    }
    stored = record.model_dump(mode="json")
    for optional in ("data_revision", "rubric_revision", "variant"):
        if stored.get(optional) is None:
            stored.pop(optional, None)
    return Sample(
        id=record.sample_id,
        # the list's preview of the clinician's packet, after the scenario's title (the grid
        # and the sample's header show the input); the clinician is sent the packet alone.
        # No target: a column headed TARGET reads as the answer key, and no scorer reads one
        # a variant's name leads, so the grid and the header say which patient was played
        input=variant_lead(record, variants) + sample_input(title, scenario.packets.examinee),
        metadata={
            **case,
            "case_id": scenario.case_id,
            "scenario": scenario.scenario,
            "rubric_items": record.rubric.n_items,
            "variant": record.variant_name,
            **({PUBLISHED_KEY: published} if published is not None else {}),
            METADATA_KEY: stored,
        },
    )


def build_dataset(
    records: Sequence[SampleRecord], name: str, variants: bool = False
) -> MemoryDataset:
    """An Inspect dataset of the records, in order; a task named as published (see
    :mod:`inspect_medsp.data.published`) gives each sample its published size; with
    ``variants`` (``-T variants=``) each input starts with its variant's tag."""
    published = published_scenarios(name)
    samples = [record_to_sample(r, published, variants) for r in records]
    return MemoryDataset(samples, name=name)
