"""The task factory: a MedSP task built from checked parameters and what it loads (the
solver, the scorers with the switched-on capabilities, the roles, the metadata)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path

from inspect_ai import Epochs, Task
from inspect_ai.log import HeadlineMetric
from inspect_ai.model import GenerateConfig
from inspect_ai.solver import Solver

from inspect_medsp.data import (
    LoadReport,
    SampleRecord,
    build_dataset,
    load_records,
    published_scenarios,
    published_set,
    show_on_console,
)
from inspect_medsp.encounter import CLINICIAN_ROLE, Protocol, medsp_encounter, medsp_tools_encounter
from inspect_medsp.errors import MedSPParameterError
from inspect_medsp.human import debrief, ends_on_error
from inspect_medsp.measures import capabilities, viewer
from inspect_medsp.params import (
    ACCEPTED,
    TaskParameters,
    tools_refuse_strategy,
)
from inspect_medsp.preflight import (
    RunContext,
    run_context,
)
from inspect_medsp.record import (
    SCORER,
    TASK_SCHEMA,
    Shard,
    ShardRecord,
    StrategySettings,
    TaskMetadata,
)
from inspect_medsp.runcheck import JUDGED_ROLES
from inspect_medsp.scoring import epoch_mean, medsp_rubric
from inspect_medsp.specialty import label_records
from inspect_medsp.strategies import strategy_policy
from inspect_medsp.taskbuild.roles import (
    judged_roles,
    refuse_scripted_tools,
    refuse_unscripted,
    run_models,
)
from inspect_medsp.variants import VariantSpec, expand, resolve
from inspect_medsp.workload import RunShape, take_part

logger = logging.getLogger("inspect_medsp")

DEMO_PACKAGE = "inspect_medsp.data"


def chosen_variants(params: TaskParameters) -> list[VariantSpec | None] | None:
    """The variants ``-T variants=`` names (None for ``baseline``), or None when it is not
    given (each case as published, ids unchanged).

    Raises:
        MedSPParameterError: An unknown name, a malformed variant file, a cue without its
            table: one line, before any data is read.
    """
    return None if params.variants is None else resolve(params.variants)


def given(config: GenerateConfig) -> GenerateConfig | None:
    """``config``, or None when it sets nothing: the log then lists no empty generation
    settings among the scorer's and the solver's parameters."""
    return config if config.model_dump(exclude_none=True) else None


def _solver(
    protocol: Protocol, judge: str, max_turns: int, settings: StrategySettings, cache: bool
) -> Solver:
    if protocol == "tools":
        if settings.strategy != "off":
            raise tools_refuse_strategy(settings.strategy)
        return medsp_tools_encounter(judge=judge, max_turns=max_turns, cache=cache)
    if protocol != "turns":
        raise MedSPParameterError(
            f"task parameter protocol={protocol!r} is not accepted: protocol takes "
            f"{ACCEPTED['protocol']}"
        )
    return medsp_encounter(
        judge=judge,
        max_turns=max_turns,
        policy=strategy_policy(settings),
        role_config=given(settings.role_config()),
        cache=cache,
        strategy=settings.model_dump(),
        on_error=ends_on_error,
    )


def cache_line(
    params: TaskParameters, settings: StrategySettings, scorer_roles: Sequence[str] = ()
) -> str | None:
    """The line a load says under ``-T cache=true``: which roles' calls go through Inspect's
    response cache (None when the switch is off). ``scorer_roles`` are those the switched-on
    capabilities' scorers cache (their ``cached_roles``).

    Inspect's run header has its own ``cache`` entry, which prints Inspect's
    ``GenerateConfig.cache`` under the name of this ``-T`` value. Where every call names its
    own cache (:func:`clinician_uncached` is None) the task's settings carry the switch, so
    the header reads ``cache: 1W``; elsewhere setting them would cache the clinician's calls
    that name none, so the header reads ``cache: None`` and this line says why.
    """
    if not params.cache:
        return None
    uncached = clinician_uncached(params, settings)
    roles = [
        *([] if uncached else [CLINICIAN_ROLE]),
        *JUDGED_ROLES,
        *scorer_roles,
    ]
    named = ", ".join(f"{role}'s" for role in roles[:-1]) + f" and {roles[-1]}'s"
    line = f"MedSP: -T cache=true: the {named} calls go through Inspect's response cache"
    if uncached:
        return (
            f"{line}, the clinician's do not under {uncached}; the run header's 'cache' entry "
            "shows Inspect's own --cache, not this switch"
        )
    return f"{line} (the run header's 'cache: 1W', a week, is this switch)"


def clinician_uncached(params: TaskParameters, settings: StrategySettings) -> str | None:
    """The setting under which ``-T cache=true`` leaves the clinician's calls uncached (None:
    they are cached too). Under ``protocol=turns`` with strategy ``off`` or ``single`` every
    call of the run names its own cache, so the task's generation settings may carry the
    switch for Inspect's run header to show without deciding any call; the agent of
    ``protocol=tools`` and some calls of strategies ``bon`` and ``medagents`` name none."""
    if params.protocol != "turns":
        return f"protocol={params.protocol}"
    if strategy_policy(settings) is not None:
        return f"strategy={settings.strategy}"
    return None


TASK_VERSION = "1-A"
"""The version every registered task carries (Inspect's ``task_version``, and ``eval.yaml``), in
the Inspect Evals scheme N-X: N goes up when results stop being comparable with earlier runs
(prompts, the encounter loop, the grader's instructions, the verdict tally, the metrics, the
data or rubric pins, a default that changes what runs); X when the task interface changes."""

FAIL_ON_ERROR = 0.5
"""Inspect's ``fail_on_error`` proportion: a run stops, with an error status, once half of its
samples have errored (a provider outage, a wrong key), and tolerates fewer (a sample error is
an encounter that failed; it is named in the log and left out of the numbers).
``--fail-on-error`` / ``--no-fail-on-error`` override it."""


def medsp_task(
    name: str,
    scenario_root: Path,
    upstream_root: Path,
    params: TaskParameters | None = None,
    *,
    subset: bool = False,
    data_revision: str | None = None,
    rubric_revision: str | None = None,
    rubric_manifest: str | None = None,
    rubrics_differ: str | None = None,
    context: RunContext | None = None,
) -> Task:
    """Build a MedSP task from resolved folders (what the registered tasks share).

    Args:
        name: The dataset's name (``MedSP1000``, ``MedSP-Q100``, ``MedSP-demo``).
        scenario_root: The scenario tree.
        upstream_root: The folder holding ``rubrics/`` and ``subset.json``.
        params: The task parameters (default: every default); the source parameters are
            not read here, the folders are given.
        subset: Only the scenarios of ``subset.json``.
        data_revision: The scenario data's revision, recorded in the task metadata.
        rubric_revision: The rubric archive's revision, recorded in the task metadata.
        rubric_manifest: The digest of the manifest the rubrics were checked against,
            recorded in the task metadata (None: not checked, as for the bundled demo).
        rubrics_differ: How the rubrics differ from the published files (a local copy):
            the run says so and is marked not comparable with the published numbers.
        context: The load's run context (read now when not given).
    """
    params = params or TaskParameters()
    context = context or run_context()

    def load() -> tuple[list[SampleRecord], LoadReport]:
        records, report = load_records(
            scenario_root,
            upstream_root,
            subset=subset,
            scenarios=params.scenarios,
            name=name,
            data_revision=data_revision,
            rubric_revision=rubric_revision,
        )
        refuse_unscripted(name, records, run_models(params, context))
        published = published_scenarios(name)
        update = {
            "published": published,
            "rubrics_differ": rubrics_differ,
            "case_set": published_set(name, data_revision, rubric_revision),
        }
        return records, report.model_copy(update=update)

    return task_of(
        load,
        params,
        data_revision=data_revision,
        rubric_revision=rubric_revision,
        rubric_manifest=rubric_manifest,
        context=context,
    )


def task_of(
    load: Callable[[], tuple[list[SampleRecord], LoadReport]],
    params: TaskParameters,
    *,
    data_revision: str | None = None,
    rubric_revision: str | None = None,
    rubric_manifest: str | None = None,
    context: RunContext | None = None,
) -> Task:
    """Build a MedSP task from what ``load`` loads (after the checks that need no data).

    Long because its steps run in the load's order (the switched-on
    capabilities and their roles, the refusals that need no data, the load, the labels, the
    variants, the part of a sharded run, the Task), each a line or two, and the order is the
    contract (a refusal before any download, the variants before the split into parts).

    Args:
        load: Loads the records and the load report (its name names the dataset).
        params: The task parameters.
        data_revision: The scenario data's revision, recorded in the task metadata.
        rubric_revision: The rubric archive's revision, recorded in the task metadata.
        rubric_manifest: The digest of the rubric manifest, recorded in the task metadata.
        context: The load's run context (read now when not given).
    """
    context = context or run_context()
    settings = params.strategy_settings()
    judge, cache = params.judge, params.cache
    # Registering the end-of-run hook here, not at entry-point load, keeps it (and Inspect's
    # "hooks enabled" start-up banner) out of evals of other packages' tasks.
    # Importing the part registers its hooks, in their order.
    from inspect_medsp.hooks import add_lines

    registered = capabilities()
    add_lines(c.end_of_run for c in registered if c.end_of_run)
    switched = [c for c in registered if c.switched_on(params.switches)]
    roles = judged_roles(judge, context)
    for capability in switched:
        if capability.eval_roles is not None:
            roles |= capability.eval_roles(roles, context)
    refuse_scripted_tools(params.protocol, context)
    variants = chosen_variants(params)
    records, report = load()
    records, specialty_file = label_records(records, params.specialties, data_revision)
    if variants is not None:
        # one sample per (scenario, variant): after the selection and the labels, before
        # the split into parts, which deals out the encounters
        records, left_out = expand(records, variants)
        report = report.model_copy(update={"warnings": [*report.warnings, *left_out]})
    report.log()
    scorer_roles = [role for c in switched for role in c.cached_roles]
    if (cached := cache_line(params, settings, scorer_roles)) is not None:
        logger.info(cached)
        show_on_console(cached)
    shard = None
    if params.shard is not None:
        records, shard = part_of_run(records, params.shard, params, settings, report.name)
    return Task(
        dataset=build_dataset(records, name=report.name, variants=variants is not None),
        solver=_solver(params.protocol, judge, params.max_turns, settings, cache),
        scorer=[
            medsp_rubric(
                judge=judge,
                config=given(settings.grader_config()),
                cache=cache,
                samples=params.grader_samples,
            ),
            *(c.in_eval(judge, cache) if c.in_eval else c.scorer() for c in switched),
        ],
        config=settings.clinician_config().merge(
            GenerateConfig(cache=True)
            if params.cache and clinician_uncached(params, settings) is None
            else GenerateConfig()
        ),
        model_roles=roles,
        epochs=Epochs(1, epoch_mean()),
        message_limit=params.max_turns * 8 + 16 if params.protocol == "tools" else None,
        fail_on_error=FAIL_ON_ERROR,
        cleanup=debrief(params.feedback),
        headline_metric=HeadlineMetric(scorer=SCORER, metric="macro"),
        metadata=TaskMetadata(
            schema_version=TASK_SCHEMA,
            load=report,
            protocol=params.protocol,
            judge=judge,
            max_turns=params.max_turns,
            strategy=settings.model_dump(),
            data_revision=data_revision,
            rubric_revision=rubric_revision,
            rubric_manifest=rubric_manifest,
            specialties=specialty_file,
            shard=shard,
        ).stored(),
        version=TASK_VERSION,
        viewer=viewer(),
    )


def part_of_run(
    records: list[SampleRecord],
    part: Shard,
    params: TaskParameters,
    settings: StrategySettings,
    name: str,
) -> tuple[list[SampleRecord], ShardRecord]:
    """Part ``part`` of the selected ``records``, said in one line at load.

    Raises:
        MedSPParameterError: More parts than scenarios.
    """
    shape = RunShape(
        max_turns=params.max_turns,
        strategy=settings,
        audit=params.switched("audit"),
        grader_samples=params.grader_samples,
    )
    kept, shard = take_part(records, part, shape)
    line = (
        f"{name}: part {shard.part}, {len(kept)} of the {shard.scenarios} selected scenarios "
        f"(selection {shard.selection[:12]}); write its log to <run>.shards/{shard.index}/"
    )
    logger.info(line)
    show_on_console(line)
    return kept, shard
