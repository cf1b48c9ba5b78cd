"""Load a custom set for ``medsp_custom``: case folders in the case format, or a tree in the
published layout (``rubrics/`` beside ``<case_id>/<scenarioN>/`` folders, or under
``scenarios/``).

The set is named ``custom: <folder name>, N cases``; it has no published size, so nothing
about a run of it is measured against the published numbers.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from inspect_medsp.cases.casefiles import CaseFiles
from inspect_medsp.cases.check import check_set
from inspect_medsp.cases.layout import PACKETS
from inspect_medsp.data import (
    RUBRICS_FOLDER,
    LoadReport,
    Packets,
    Rubric,
    SampleRecord,
    Scenario,
    custom_set,
    examinee_text,
    join_packet,
    load_records,
    select_ids,
)
from inspect_medsp.errors import MedSPDataError

CUSTOM = "custom"
"""The first word of a custom set's name."""


def set_name(folder: Path, n: int) -> str:
    """``custom: <folder name>, N cases``."""
    return f"{CUSTOM}: {folder.name}, {n} case{'' if n == 1 else 's'}"


def record_of(case: CaseFiles) -> SampleRecord:
    """The sample record of a case read without a problem of its form."""
    assert case.facts is not None and case.rubric is not None
    case_id = case.facts.id
    packets = Packets(
        **{
            role: examinee_text(case.sections(packet))
            if role == "examinee"
            else join_packet(case.sections(packet))
            for packet, role in PACKETS.items()
        }
    )
    rubric = Rubric.model_validate(
        {
            "case_id": case_id,
            "scenario": case.scenario,
            "scenario_dir": f"{case_id}/{case.scenario}",
            **case.rubric,
        }
    )
    scenario = Scenario(
        case_id=case_id, scenario=case.scenario, packets=packets, metadata=case.facts.metadata()
    )
    return SampleRecord(scenario=scenario, rubric=rubric)


def published_roots(folder: Path) -> tuple[Path, Path] | None:
    """The scenario tree and the rubrics' folder of a set in the published layout, else None."""
    if not (folder / RUBRICS_FOLDER).is_dir():
        return None
    scenarios = folder / "scenarios"
    return (scenarios if scenarios.is_dir() else folder), folder


def drafts_line(name: str, drafts: list[str], folder: Path) -> str:
    """The one warning of a set with drafts, naming each."""
    n = len(drafts)
    which = "is a draft" if n == 1 else "are drafts"
    return (
        f"{name}: {n} case{'' if n == 1 else 's'} {which}, not yet reviewed by a clinician "
        f"(status: draft): {', '.join(drafts)}; treat the results as provisional, and set "
        f"status: reviewed in each case.yaml once reviewed (medsp-cases check {folder})"
    )


def load_custom(
    folder: str | Path, scenarios: Sequence[str] | None = None
) -> tuple[list[SampleRecord], LoadReport]:
    """Every case of ``folder``, checked for form, as sample records with the load report.

    Args:
        folder: A folder of case folders (or one case folder), or a tree in the published
            layout.
        scenarios: Ids or globs of the cases to run (``<id>/scenario1``), as ``-T scenarios``.

    Raises:
        MedSPDataError: The folder is missing, holds no case, or a case has a problem of its
            form (the first named, with ``medsp-cases check`` for the rest).
    """
    root = Path(folder).expanduser()
    if not root.is_dir():
        problem = "is not a folder" if root.exists() else "does not exist"
        raise MedSPDataError(
            f"task parameter cases='{folder}' {problem}: give the folder holding your case "
            "folders (medsp-cases new <folder>/<case> starts one)"
        )
    published = published_roots(root)
    if published is not None:
        records, report = load_records(*published, scenarios=scenarios, name=CUSTOM)
        name = set_name(root, len(records))
        update = {"name": name, "case_set": custom_set(root, len(records), [])}
        return [r.model_copy() for r in records], report.model_copy(update=update)
    checked = check_set(root, content=False)
    stopping = [p for p in checked.problems if p.stops_a_run]
    if stopping:
        first = stopping[0].line()
        more = len(stopping) - 1
        rest = f" (and {more} more problem{'' if more == 1 else 's'})" if more else ""
        raise MedSPDataError(
            f"custom set {root}: {first}{rest}; run medsp-cases check {folder} to list them"
        )
    by_id = {record_of(s).id: s for case in checked.cases for s in case.scenarios}
    ids = select_ids(sorted(by_id), scenarios)
    chosen = [by_id[i] for i in ids]
    records = [record_of(case) for case in chosen]
    name = set_name(root, len({r.scenario.case_id for r in records}))
    drafts = list(
        dict.fromkeys(
            c.facts.id for c in chosen if c.facts is not None and c.facts.status == "draft"
        )
    )
    report = LoadReport.of(name, [r.rubric for r in records], {}, {}).model_copy(
        update={"case_set": custom_set(root, len(checked.cases), drafts)}
    )
    if drafts:
        report = report.model_copy(update={"warnings": [drafts_line(name, drafts, root)]})
    return records, report
