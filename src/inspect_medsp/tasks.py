"""The MedSP tasks: ``medsp1000`` (every scoreable scenario), ``medsp100`` (the published
quality-controlled subset), ``medsp_demo`` (bundled original scenarios, no download) and
``medsp_custom`` (your own cases, ``-T cases=<folder>``)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any

from inspect_ai import Epochs, Task, task
from inspect_ai.log import HeadlineMetric
from inspect_ai.model import GenerateConfig, Model, get_model
from inspect_ai.solver import Solver

from inspect_medsp.calls import DEFAULT_JUDGE
from inspect_medsp.cases import load_custom, refusal, set_findings
from inspect_medsp.commandline import unknown_parameter
from inspect_medsp.data import (
    CacheUnwritable,
    LoadReport,
    ResolvedSource,
    RubricsNotPublished,
    SampleRecord,
    build_dataset,
    data_revision_unused,
    load_records,
    manifest_digest,
    published_scenarios,
    published_set,
    resolve_scenario_root,
    resolve_upstream_root,
    show_on_console,
    sources_unavailable,
)
from inspect_medsp.encounter import CLINICIAN_ROLE, Protocol, medsp_encounter, medsp_tools_encounter
from inspect_medsp.errors import MedSPDataError, MedSPParameterError
from inspect_medsp.human import debrief, ends_on_error
from inspect_medsp.measures import capabilities, viewer
from inspect_medsp.params import (
    ACCEPTED,
    CUSTOM_PARAMETERS,
    SOURCE_PARAMETERS,
    TaskParameters,
    tools_refuse_strategy,
)
from inspect_medsp.preflight import SCRIPTED_MODEL, RunContext, run_context, said_at_load
from inspect_medsp.record import (
    SCORER,
    TASK_SCHEMA,
    Shard,
    ShardRecord,
    StrategySettings,
    TaskMetadata,
)
from inspect_medsp.runcheck import JUDGED_ROLES, check_run, require_judge
from inspect_medsp.scoring import epoch_mean, medsp_rubric
from inspect_medsp.scripted import demo_records, plays
from inspect_medsp.specialty import label_records
from inspect_medsp.strategies import strategy_policy
from inspect_medsp.variants import VariantSpec, expand, resolve
from inspect_medsp.workload import RunShape, take_part

logger = logging.getLogger("inspect_medsp")

DEMO_PACKAGE = "inspect_medsp.data"


def refuse_scripted_tools(protocol: Protocol, context: RunContext) -> None:
    """Stop the load when the scripted demo is to be the clinician of the tools protocol.

    Raises:
        MedSPParameterError: ``protocol=tools`` for ``--model medsp/scripted``.
    """
    if protocol == "tools" and context.loading and context.model == SCRIPTED_MODEL:
        raise MedSPParameterError(
            f"task parameter protocol='tools' is not accepted with --model {SCRIPTED_MODEL}: "
            "the scripted demo replays JSON turns and cannot call tools; drop -T "
            "protocol=tools (or evaluate another model)"
        )


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


def judge_model(judge: str, context: RunContext) -> Model:
    """The ``judge`` model, made now, so a name no provider knows is one line at load.

    Raises:
        MedSPParameterError: Inspect cannot make a model of that name (unknown provider, its
            package or key missing).
    """
    require_judge(judge, JUDGED_ROLES, context)
    return get_model(judge)


def judged_roles(judge: str, context: RunContext) -> dict[str, Model]:
    """A chosen ``judge`` (``-T judge=...``) for every judged role, so the log records which
    model played each role and a re-score (``inspect score``) uses the same grader.

    Roles bound with ``--model-role`` win: Inspect merges the eval's roles over the task's
    when the eval runs, so nothing here depends on what an earlier eval left in the process.
    The default judge is left unbound: it is the scorer's own default, and binding it would
    make the task need its provider just to be built.
    """
    if judge == DEFAULT_JUDGE:
        return {}
    model = judge_model(judge, context)
    return {role: model for role in JUDGED_ROLES}


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
    switched = [c for c in registered if c.switched_on(params.model_dump())]
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
            *(c.in_eval(judge, cache) for c in switched if c.in_eval is not None),
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
        audit=params.audit,
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


def _resolve_sources(params: TaskParameters) -> tuple[ResolvedSource, ResolvedSource]:
    """Locate both sources; if either is unavailable, one error names the fix for both."""
    data = upstream = None
    data_error = upstream_error = None
    try:
        data = resolve_scenario_root(params.data_dir, params.data_revision)
    except MedSPDataError as exc:
        data_error = exc
    try:
        upstream = resolve_upstream_root(params.upstream_dir)
    except MedSPDataError as exc:
        upstream_error = exc
    for error in (data_error, upstream_error):
        if isinstance(error, CacheUnwritable | RubricsNotPublished):
            raise error
    if data is None or upstream is None:
        raise sources_unavailable(data_error, upstream_error)
    return data, upstream


@dataclass(frozen=True)
class Variant:
    """One registered task: a name, a dataset and where its scenarios come from."""

    task: str
    """The registered name (``inspect eval inspect_medsp/<task>``)."""
    dataset: str
    """The dataset's name, in the log and the report."""
    summary: str
    """The first line of the task's docstring."""
    subset: bool = False
    """Only the scenarios of the published ``subset.json``."""
    bundled: bool = False
    """The scenarios ship with the package: no source parameters, no download."""
    custom: bool = False
    """The scenarios are the user's own (``-T cases=<folder>``): no source parameters."""

    @property
    def excluded(self) -> tuple[str, ...]:
        """The task parameters this variant does not take."""
        if self.custom:
            return SOURCE_PARAMETERS
        return CUSTOM_PARAMETERS + (SOURCE_PARAMETERS if self.bundled else ())

    def build(self, params: TaskParameters, context: RunContext) -> Task:
        """Resolve the sources (or take the bundled demo) and build the task.

        Raises:
            MedSPDataError: A source is missing or could not be fetched.
        """
        # an unknown variant or a malformed variant file stops the load before anything
        chosen_variants(params)
        # a model that cannot be made here, a person where a person cannot be, or a
        # clinician that cannot play the protocol, stops the load before any download
        check_run(params, context)
        unused = data_revision_unused(self.task, downloads=not (self.bundled or self.custom))
        if unused is not None:
            raise MedSPParameterError(unused)
        judged_roles(params.judge, context)
        refuse_scripted_tools(params.protocol, context)
        if self.custom:
            return custom_task(params, context)
        if self.bundled:
            demo = Path(str(files(DEMO_PACKAGE).joinpath("demo")))
            return medsp_task(
                self.dataset,
                demo / "scenarios",
                demo / "upstream",
                params,
                subset=self.subset,
                context=context,
            )
        data, upstream = _resolve_sources(params)
        return medsp_task(
            self.dataset,
            data.root,
            upstream.root,
            params,
            subset=self.subset,
            data_revision=data.revision,
            rubric_revision=upstream.revision,
            rubric_manifest=manifest_digest(),
            rubrics_differ=upstream.differs,
            context=context,
        )


def custom_task(params: TaskParameters, context: RunContext | None = None) -> Task:
    """The task of a custom set (``-T cases=<folder>``).

    Raises:
        MedSPParameterError: ``cases`` was not given.
        MedSPDataError: The folder is missing or a case cannot be loaded.
    """
    folder = params.cases
    if folder is None:
        raise MedSPParameterError(
            f"task parameter cases is required: medsp_custom runs your own cases, -T "
            f"cases=<folder> ({ACCEPTED['cases']})"
        )
    context = context or run_context()
    findings = set_findings(Path(folder)) if Path(folder).is_dir() else []
    if params.identifiers == "refuse":
        line = refusal(folder, findings, run_models(params, context))
        if line is not None:
            raise MedSPDataError(line)

    def load() -> tuple[list[SampleRecord], LoadReport]:
        records, report = load_custom(folder, params.scenarios)
        refuse_unscripted(f"cases='{folder}'", records, run_models(params, context))
        return records, with_findings(report, findings, params.identifiers == "allow")

    return task_of(load, params, context=context)


def refuse_unscripted(where: str, records: list[SampleRecord], models: list[str | None]) -> None:
    """Stop the load when the scripted demo is to play a case it has no script for (it
    replays the bundled demo's scenarios only), rather than fail in the middle of the run
    (for a person, after they played the case's first turn).

    Args:
        where: The cases, as the line names them (``cases='<folder>'``, ``MedSP-Q100``).
        records: The selected cases.
        models: The models the run may send them to (:func:`run_models`).

    Raises:
        MedSPParameterError: ``medsp/scripted`` plays a role and a case is not a demo's.
    """
    if SCRIPTED_MODEL not in models:
        return
    unplayable = [r.id for r in records if not plays(r)]
    if unplayable:
        n = len(unplayable)
        named = ", ".join(unplayable[:3]) + (f", ... ({n - 3} more)" if n > 3 else "")
        demo = ", ".join(sorted(r.id for r in demo_records()))
        raise MedSPParameterError(
            f"{SCRIPTED_MODEL} cannot play {n} case{'' if n == 1 else 's'} of {where} "
            f"({named}): it replays only the bundled demo's scenarios ({demo}; "
            "inspect_medsp/medsp_demo); play these cases with a real model (-T "
            "judge=provider/model, and no medsp/scripted in --model or --model-role)"
        )


def run_models(params: TaskParameters, context: RunContext) -> list[str | None]:
    """The models a run may send its cases to: the clinician (None when not known while the
    task is built), each judged role's (bound with ``--model-role``, else ``judge``), and
    every other role bound with ``--model-role`` (a measurement's own role, such as the
    auditor, which otherwise follows the grader)."""
    roles = context.roles
    names: list[str | None] = [context.model if context.loading else None]
    for role in JUDGED_ROLES:
        bound = roles.get(role)
        names += bound.split(",") if bound else [params.judge]
    for role, bound in roles.items():
        if role not in JUDGED_ROLES:
            names += bound.split(",")
    return names


def with_findings(report: LoadReport, findings: list[str], allowed: bool) -> LoadReport:
    """The load report of a set that runs with identifier findings: the findings, and one
    warning saying so."""
    if not findings:
        return report
    n = len(findings)
    why = "-T identifiers=allow" if allowed else "every model of the run is on this machine"
    warning = (
        f"{report.name}: {n} likely identifier{'' if n == 1 else 's'} left in the cases, sent "
        f"as written ({why}); the log lists each (medsp_load.identifiers)"
    )
    return report.model_copy(
        update={"identifiers": findings, "warnings": [*report.warnings, warning]}
    )


def refuse_unknown(task: str, names: list[str], context: RunContext) -> None:
    """Refuse a ``-T`` name the task does not have, with the closest it does: Inspect only
    warns and drops it, and the run would go on, paid in full, at the default.

    Raises:
        MedSPParameterError: A ``-T`` name that is no parameter of ``task``.
    """
    line = unknown_parameter(task, context.task_args, names)
    if line is not None:
        raise MedSPParameterError(line)


def registered(variant: Variant) -> Callable[..., Task]:
    """The ``@task`` function of ``variant``: its signature and docstring are made from
    :class:`TaskParameters`, so ``-T`` takes every parameter the checked model has, with the
    model's defaults, and nothing is written twice.

    Raises (from the task function):
        MedSPParameterError: A bad parameter value, one line naming it.
        TypeError: A parameter the task does not have (as any Python function).
    """
    signature = TaskParameters.signature(exclude=variant.excluded)

    def build(*args: Any, **kwargs: Any) -> Task:
        given = signature.bind(*args, **kwargs).arguments
        context = run_context()  # read once: every check of this load receives it
        with said_at_load(context):
            refuse_unknown(variant.task, list(signature.parameters), context)
            return variant.build(TaskParameters.check(**given), context)

    build.__name__ = build.__qualname__ = variant.task
    build.__doc__ = f"{variant.summary}\n\n{TaskParameters.describe(exclude=variant.excluded)}"
    setattr(build, "__signature__", signature)  # noqa: B010 (mypy knows no __signature__)
    return task(build)


VARIANTS = (
    Variant("medsp1000", "MedSP1000", "MedSP1000: every scoreable scenario of the benchmark."),
    Variant(
        "medsp100",
        "MedSP-Q100",
        "MedSP-Q100: the published 100-scenario quality-controlled subset.",
        subset=True,
    ),
    Variant(
        "medsp_demo",
        "MedSP-demo",
        "Three original scenarios bundled with the package: try the harness with no download.",
        bundled=True,
    ),
)
"""The registered tasks of the benchmark, in the order ``eval.yaml`` lists them."""

CUSTOM = Variant(
    "medsp_custom",
    "custom",
    "Your own cases (-T cases=<folder>), run with every feature of the published tasks.",
    custom=True,
)
"""The task of a user's own cases: registered too, but no benchmark of the register (its
size is the user's)."""

medsp1000, medsp100, medsp_demo = (registered(v) for v in VARIANTS)
medsp_custom = registered(CUSTOM)
