# inspect-evals-lint: ignore-file[IEFS002] -- each measurement's task lives in its own part;
#   the package's __init__ exports it
"""``inspect_medsp/medsp_contamination``: has the model under test (``--model``) seen the
benchmark's cases? Over the same scenario selection as the benchmark, a few short probes per
scenario, each beside a control the model cannot have seen."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import replace
from importlib.resources import files
from inspect import signature
from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample

from inspect_medsp.cases import load_custom, refusal, set_findings
from inspect_medsp.contamination.capability import CONTAMINATION
from inspect_medsp.contamination.identity import title_of
from inspect_medsp.contamination.probes import CONTROL_KEY, PROMPTS, build_probes
from inspect_medsp.contamination.result import TASK_KEY
from inspect_medsp.contamination.scorer import THRESHOLDS, medsp_contamination_probe
from inspect_medsp.contamination.selection import check_benchmark, selected_records
from inspect_medsp.contamination.settings import ProbeSettings, checked
from inspect_medsp.contamination.solver import ask_probes
from inspect_medsp.data import METADATA_KEY, SampleRecord, logger
from inspect_medsp.errors import MedSPDataError, MedSPParameterError, MedSPUnknownParameter
from inspect_medsp.measure import medsp_viewer
from inspect_medsp.preflight import (
    Endpoint,
    RunContext,
    place_roles,
    run_context,
    said_at_load,
    unknown_in_run,
)

TASK_METADATA = TASK_KEY
"""Task metadata key: the settings, the prompts' hash and the dataset probed."""

VERSION = "2-A"

HEADLINES = ("clear", "recalled", "continuation_patient", "checklist", "slot")
"""The columns the probe's own samples grid shows first: the share of probes not above the
control (higher = less recall, the way round of benchmark scores) leads."""


def prompt_sha256() -> str:
    """SHA-256 of the probe's prompt files, as shipped."""
    digest = hashlib.sha256()
    folder = files(PROMPTS).joinpath("prompts")
    for name in sorted(p.name for p in folder.iterdir() if p.name.endswith(".md")):
        digest.update(folder.joinpath(name).read_bytes())
    return digest.hexdigest()


def probe_sample(record: SampleRecord, unpublished: SampleRecord | None = None) -> Sample:
    """One scenario to probe: its record travels in the metadata, as in the benchmark, with
    the unpublished case that is its control, if any."""
    meta = record.scenario.metadata
    control = {CONTROL_KEY: unpublished.model_dump()} if unpublished is not None else {}
    return Sample(
        id=record.id,
        input=f"Contamination probes of {title_of(record)} ({record.id})",
        metadata={
            "case_id": record.scenario.case_id,
            "scenario": record.scenario.scenario,
            "specialty": meta.get("specialty"),
            METADATA_KEY: record.model_dump(),
            **control,
        },
    )


def probed_samples(
    records: list[SampleRecord],
    settings: ProbeSettings,
    where: str,
    unpublished: Sequence[SampleRecord] = (),
) -> list[Sample]:
    """One sample per scenario, the ``unpublished`` cases (if any) taken in turn as their
    controls; a scenario with no probe is kept (its score says why it was not probed), and a
    warning line names it.

    Raises:
        MedSPDataError: No scenario has any text to probe.
    """
    controls = [
        unpublished[i % len(unpublished)] if unpublished else None for i in range(len(records))
    ]
    reasons: dict[str, str] = {}
    for record, control in zip(records, controls, strict=True):
        pairs, missing = build_probes(record, settings, control)
        if not pairs:
            reasons[record.id] = "; ".join(f"{k}: {v}" for k, v in missing.items())
    if len(reasons) == len(records):
        first = next(iter(reasons.items()), ("(none)", "no scenario selected"))
        raise MedSPDataError(
            f"{where}: no scenario has text to probe ({len(reasons)} scenarios; "
            f"{first[0]}: {first[1]}); give cases with patient scripts, environment "
            "materials and marking guides of at least opening_words + following_words "
            "words, or lower those"
        )
    if reasons:
        listed = ", ".join(f"{sid} [{why}]" for sid, why in reasons.items())
        logger.warning(
            f"medsp_contamination: {len(reasons)} scenario(s) have nothing to probe: {listed}"
        )
    return [probe_sample(r, c) for r, c in zip(records, controls, strict=True)]


def _scenarios(value: str | list[str] | None) -> list[str] | None:
    if value is None:
        return None
    found = value.split(",") if isinstance(value, str) else [str(v) for v in value]
    patterns = [p.strip() for p in found if p.strip()]
    if not patterns:
        raise MedSPParameterError(
            "task parameter scenarios is empty: give scenario ids or globs, comma-separated "
            "(or omit it to probe every scenario)"
        )
    return patterns


@task
def medsp_contamination(
    benchmark: str = "medsp1000",
    scenarios: str | list[str] | None = None,
    specialties: str | None = None,
    cases: str | None = None,
    data_dir: str | None = None,
    upstream_dir: str | None = None,
    data_revision: str | None = None,
    probes: str | list[str] = "continuation,checklist,slot",
    opening_words: int = 30,
    following_words: int = 40,
    ngram: int = 5,
    run_margin: int = 8,
    ngram_margin: float = 0.1,
    content_margin: float = 0.25,
    item_share: float = 0.6,
    checklist_margin: float = 0.25,
    slots: int = 3,
    slot_margin: float = 0.5,
    control_cases: str | None = None,
    cache: bool = False,
    identifiers: str = "refuse",
    **kwargs: Any,
) -> Task:
    """Has the model (``--model``) seen the cases? Probes each scenario's patient script,
    environment materials, marking guide and checklist, each beside a control.

    Long because its signature and these Args are the task's 21 ``-T`` parameters, which
    Inspect shows as the task's help; the body itself is under 50 lines.

    Args:
        benchmark: The scenarios probed: medsp1000, medsp100 or medsp_demo (the bundled
            scenarios, no download).
        scenarios: Ids or globs (comma-separated) to probe a part of them.
        specialties: A specialties file (from ``medsp-specialties``) labelling each scenario.
        cases: Your own cases (a folder of case folders) instead of the benchmark's.
        data_dir: Local scenario tree in the Hub layout (default: download).
        upstream_dir: Local folder with ``rubrics/`` and ``subset.json``.
        data_revision: Hub revision of the scenario data.
        probes: The probes: continuation, checklist, slot (comma-separated).
        opening_words: Words of a passage shown before the model continues it.
        following_words: Words after the opening a continuation is compared with.
        ngram: Word n-gram length of the continuation overlap.
        run_margin: Words by which a continuation's longest common run must beat the control.
        ngram_margin: Share of n-grams by which a continuation's overlap must beat the control.
        content_margin: Share of a passage's unshown content words by which a continuation's
            recall of them in any order must beat the control (recall in its own words).
        item_share: Share of an item's content words a reply line must hold to recall it.
        checklist_margin: Share of items by which checklist recall must beat the control.
        slots: Values masked per scenario.
        slot_margin: Share of slots by which exact guesses must beat the control.
        control_cases: Cases of your own that were never published (a folder, the case
            format): each scenario's control is the same probes asked of one of them
            (default: the scenario's own text with its content words shuffled).
        cache: Cache the replies with Inspect's response cache.
        identifiers: ``refuse`` (the default) to stop when ``cases`` or ``control_cases``
            hold likely identifiers and the model under test connects off this machine;
            ``allow`` to send them as they are (the task metadata records the findings).
    """
    # kwargs: every -T of the run it does not take, refused unless another task takes it
    context = run_context(kwargs)
    with said_at_load(context):
        refused = unknown_in_run(TASK_NAME, PARAMETERS, context)
        if refused is not None:
            raise MedSPUnknownParameter(refused)
    values: dict[str, Any] = {
        "probes": probes,
        "opening_words": opening_words,
        "following_words": following_words,
        "ngram": ngram,
        "run_margin": run_margin,
        "ngram_margin": ngram_margin,
        "content_margin": content_margin,
        "item_share": item_share,
        "checklist_margin": checklist_margin,
        "slots": slots,
        "slot_margin": slot_margin,
    }
    settings = checked(**values)
    findings, placed = _identifiers_checked(identifiers, cases, control_cases, context)
    chosen = check_benchmark(benchmark) if cases is None else "medsp_demo"
    patterns = _scenarios(scenarios)
    name, records = selected_records(
        chosen, patterns, specialties, cases, data_dir, upstream_dir, data_revision
    )
    where = f"cases={cases}" if cases is not None else f"benchmark={benchmark}"
    unpublished = load_custom(control_cases)[0] if control_cases is not None else []
    samples = probed_samples(records, settings, where, unpublished)
    thresholds = settings.model_dump(include=set(THRESHOLDS))
    own = replace(CONTAMINATION, headlines=HEADLINES)
    return Task(
        dataset=MemoryDataset(samples, name=f"{name} contamination"),
        solver=ask_probes(settings, cache=cache),
        scorer=medsp_contamination_probe(**thresholds),
        fail_on_error=False,
        metadata={
            TASK_METADATA: {
                "settings": settings.model_dump(),
                "prompt_sha256": prompt_sha256(),
                "dataset": name,
                "cases": cases,
                "control_cases": control_cases,
                "identifiers": findings,
                "endpoints": [e.model_dump() for e in placed],
            }
        },
        version=VERSION,
        viewer=medsp_viewer([own]),
    )


def _identifiers_checked(
    identifiers: str, cases: str | None, control_cases: str | None, context: RunContext
) -> tuple[list[str], list[Endpoint]]:
    """The likely identifiers of the user's sets (``cases``, ``control_cases``: both are
    sent to the provider of the model under test) and where that model connects.

    Raises:
        MedSPParameterError: ``identifiers`` is neither ``refuse`` nor ``allow``.
        MedSPDataError: A set with findings, and the model connects off this machine (or is
            not known: a task built in Python), unless ``identifiers=allow``.
    """
    if identifiers not in ("refuse", "allow"):
        raise MedSPParameterError(
            f"task parameter identifiers={identifiers!r}: give refuse (the default) or allow"
        )
    sets = [(p, f) for p, f in (("cases", cases), ("control_cases", control_cases)) if f]
    if not sets:
        return [], []
    model = context.active if context.loading else None
    placed = place_roles({"model under test": model})
    found: list[str] = []
    for parameter, folder in sets:
        findings = set_findings(Path(folder)) if Path(folder).is_dir() else []
        line = refusal(folder, findings, placed, parameter) if identifiers == "refuse" else None
        if line is not None:
            with said_at_load(context):
                raise MedSPDataError(line)
        found += findings
    return found, placed


TASK_NAME = "medsp_contamination"

PARAMETERS = tuple(
    n for n, p in signature(medsp_contamination).parameters.items() if p.kind != p.VAR_KEYWORD
)
"""The task's ``-T`` names: any other is refused at load with the closest of them."""
