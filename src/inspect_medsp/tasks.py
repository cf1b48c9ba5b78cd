"""The MedSP tasks: ``medsp1000`` (every scoreable scenario), ``medsp100`` (the published
quality-controlled subset) and ``medsp_demo`` (bundled original scenarios, no download)."""

from __future__ import annotations

from importlib import import_module
from importlib.resources import files
from pathlib import Path

from inspect_ai import Epochs, Task, task
from inspect_ai.log import HeadlineMetric
from inspect_ai.model import Model, get_model
from inspect_ai.solver import Solver

from inspect_medsp.audit.scorer import medsp_simulation_audit
from inspect_medsp.data.dataset import build_dataset, load_records
from inspect_medsp.data.errors import MedSPDataError, MedSPParameterError
from inspect_medsp.data.published import published_scenarios
from inspect_medsp.data.sources import (
    ResolvedSource,
    resolve_scenario_root,
    resolve_upstream_root,
    sources_unavailable,
)
from inspect_medsp.encounter.roles import DEFAULT_JUDGE
from inspect_medsp.encounter.solver import Protocol, medsp_encounter, medsp_tools_encounter
from inspect_medsp.params import ACCEPTED, TaskParameters, tools_refuse_strategy
from inspect_medsp.record.score import SCORER
from inspect_medsp.record.task import TASK_SCHEMA, TaskMetadata
from inspect_medsp.scoring.epochs import epoch_mean
from inspect_medsp.scoring.scorer import medsp_rubric
from inspect_medsp.specialty.file import label_records
from inspect_medsp.strategies import Strategy, StrategySettings, strategy_policy

DEMO_PACKAGE = "inspect_medsp.data"


def _scenario_list(scenarios: str | list[str] | None) -> list[str] | None:
    if scenarios is None:
        return None
    if isinstance(scenarios, str):
        return [s.strip() for s in scenarios.split(",") if s.strip()]
    return list(scenarios)


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
        role_config=settings.role_config(),
        cache=cache,
        strategy=settings.model_dump(),
    )


JUDGED_ROLES = ("patient", "environment", "grader")
"""The roles the ``judge`` model plays unless ``--model-role`` binds them."""

FAIL_ON_ERROR = 0.5
"""Inspect's ``fail_on_error`` proportion: a run stops, with an error status, once half of its
samples have errored (a provider outage, a wrong key), and tolerates fewer (a sample error is
an encounter that failed; it is named in the log and left out of the numbers).
``--fail-on-error`` / ``--no-fail-on-error`` override it."""


def judge_model(judge: str) -> Model:
    """The ``judge`` model, made now, so a name no provider knows is one line at load.

    Raises:
        MedSPParameterError: Inspect cannot make a model of that name (unknown provider, its
            package or key missing).
    """
    try:
        return get_model(judge)
    except Exception as err:
        reason = " ".join(str(err).split()).rstrip(".") or type(err).__name__
        raise MedSPParameterError(
            f"task parameter judge={judge!r} is not accepted ({reason}): judge takes "
            f"{ACCEPTED['judge']}, of an installed provider with its key set"
        ) from None


def judged_roles(judge: str) -> dict[str, Model]:
    """A chosen ``judge`` (``-T judge=...``) for every judged role, so the log records which
    model played each role and a re-score (``inspect score``) uses the same grader.

    Roles bound with ``--model-role`` win: Inspect merges the eval's roles over the task's
    when the eval runs, so nothing here depends on what an earlier eval left in the process.
    The default judge is left unbound: it is the scorer's own default, and binding it would
    make the task need its provider just to be built.
    """
    if judge == DEFAULT_JUDGE:
        return {}
    model = judge_model(judge)
    return {role: model for role in JUDGED_ROLES}


def medsp_task(
    *,
    name: str,
    scenario_root: Path,
    upstream_root: Path,
    subset: bool,
    scenarios: str | list[str] | None,
    max_turns: int,
    protocol: Protocol,
    judge: str,
    settings: StrategySettings,
    cache: bool = False,
    data_revision: str | None = None,
    rubric_revision: str | None = None,
    specialties: str | None = None,
    grader_samples: int = 1,
    audit: bool = False,
) -> Task:
    """Build a MedSP task from resolved folders (shared by the three registered tasks)."""
    # Registering the end-of-run hook here, not at entry-point load, keeps it (and Inspect's
    # "hooks enabled" start-up banner) out of evals of other packages' tasks.
    for hooks in ("unscored", "coverage", "selfpref"):
        import_module(f"inspect_medsp.scoring.{hooks}")
    roles = judged_roles(judge)
    records, report = load_records(
        scenario_root,
        upstream_root,
        subset=subset,
        scenarios=_scenario_list(scenarios),
        name=name,
        data_revision=data_revision,
        rubric_revision=rubric_revision,
    )
    published = published_scenarios(name)
    report = report.model_copy(update={"published": published})
    report.log()
    records, specialty_file = label_records(records, specialties, data_revision)
    return Task(
        dataset=build_dataset(records, name=name),
        solver=_solver(protocol, judge, max_turns, settings, cache),
        scorer=[
            medsp_rubric(
                judge=judge, config=settings.grader_config(), cache=cache, samples=grader_samples
            ),
            *([medsp_simulation_audit(judge=judge, cache=cache)] if audit else []),
        ],
        config=settings.clinician_config(),
        model_roles=roles,
        epochs=Epochs(1, epoch_mean()),
        message_limit=max_turns * 8 + 16 if protocol == "tools" else None,
        fail_on_error=FAIL_ON_ERROR,
        headline_metric=HeadlineMetric(scorer=SCORER, metric="macro"),
        metadata=TaskMetadata(
            schema_version=TASK_SCHEMA,
            load=report,
            protocol=protocol,
            judge=judge,
            max_turns=max_turns,
            strategy=settings.model_dump(),
            data_revision=data_revision,
            rubric_revision=rubric_revision,
            specialties=specialty_file,
        ).stored(),
        version="1.0.0",
    )


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
    if data is None or upstream is None:
        raise sources_unavailable(data_error, upstream_error)
    return data, upstream


def _build(
    name: str,
    params: TaskParameters,
    *,
    subset: bool,
    scenario_root: Path | None = None,
    upstream_root: Path | None = None,
) -> Task:
    """Resolve the sources (unless given as folders) and build the task from checked
    parameters.

    Raises:
        MedSPDataError: A source is missing or could not be fetched.
    """
    judged_roles(params.judge)  # a judge no provider can make stops the load before any download
    revisions: dict[str, str | None] = {}
    if scenario_root is None or upstream_root is None:
        data, upstream = _resolve_sources(params)
        scenario_root, revisions["data_revision"] = data.root, data.revision
        upstream_root, revisions["rubric_revision"] = upstream.root, upstream.revision
    return medsp_task(
        name=name,
        scenario_root=scenario_root,
        upstream_root=upstream_root,
        subset=subset,
        scenarios=params.scenarios,
        max_turns=params.max_turns,
        protocol=params.protocol,
        judge=params.judge,
        settings=params.strategy_settings(),
        cache=params.cache,
        specialties=params.specialties,
        grader_samples=params.grader_samples,
        audit=params.audit,
        **revisions,
    )


@task
def medsp1000(
    data_dir: str | None = None,
    upstream_dir: str | None = None,
    data_revision: str | None = None,
    scenarios: str | list[str] | None = None,
    max_turns: int = 12,
    protocol: Protocol = "turns",
    judge: str = DEFAULT_JUDGE,
    cache: bool = False,
    strategy: Strategy = "off",
    n: int = 5,
    experts: int = 5,
    consensus_rounds: int = 1,
    sample_temperature: float = 0.8,
    fixed_temperature: float = 0.0,
    specialties: str | None = None,
    grader_samples: int = 1,
    audit: bool = False,
) -> Task:
    """MedSP1000: every scoreable scenario of the benchmark.

    Args:
        data_dir: Local scenario tree in the Hub layout (default: download byrLLCC/MedSP1000).
        upstream_dir: Local folder with ``rubrics/`` and ``subset.json`` (default: download
            the pinned reference archive).
        data_revision: Hub revision of the scenario data (default ``main``).
        scenarios: Ids or globs (comma-separated) to run a part of the benchmark.
        max_turns: Turn limit per encounter.
        protocol: ``turns`` (the paper's JSON turns) or ``tools`` (an agent with tools).
        judge: Model for patient, environment and grader roles not given with --model-role.
        cache: Cache model replies with Inspect's response cache, so a re-run of the same
            encounters costs nothing.
        strategy: Clinician test-time compute: ``off``, ``single``, ``bon`` or ``medagents``.
        n: Candidates per turn for ``bon``.
        experts: Specialists for ``medagents``.
        consensus_rounds: Voting rounds for ``medagents``.
        sample_temperature: Temperature of ``bon`` candidates and ``medagents`` advice.
        fixed_temperature: Temperature of every role under ``single`` (and of selection).
        specialties: A specialties file (from ``medsp-specialties``) whose labels go into
            sample metadata; it must label every scenario.
        grader_samples: Grade each encounter this many times and score each item by
            majority (the scorer's ``samples``; repeats run at temperature 1.0).
        audit: Also score each encounter with ``medsp_simulation_audit`` (the ``auditor``
            role, by default the grader's model, reviews the patient and environment).
    """
    params = TaskParameters.check(
        data_dir=data_dir,
        upstream_dir=upstream_dir,
        data_revision=data_revision,
        scenarios=scenarios,
        max_turns=max_turns,
        protocol=protocol,
        judge=judge,
        cache=cache,
        strategy=strategy,
        n=n,
        experts=experts,
        consensus_rounds=consensus_rounds,
        sample_temperature=sample_temperature,
        fixed_temperature=fixed_temperature,
        specialties=specialties,
        grader_samples=grader_samples,
        audit=audit,
    )
    return _build("MedSP1000", params, subset=False)


@task
def medsp100(
    data_dir: str | None = None,
    upstream_dir: str | None = None,
    data_revision: str | None = None,
    scenarios: str | list[str] | None = None,
    max_turns: int = 12,
    protocol: Protocol = "turns",
    judge: str = DEFAULT_JUDGE,
    cache: bool = False,
    strategy: Strategy = "off",
    n: int = 5,
    experts: int = 5,
    consensus_rounds: int = 1,
    sample_temperature: float = 0.8,
    fixed_temperature: float = 0.0,
    specialties: str | None = None,
    grader_samples: int = 1,
    audit: bool = False,
) -> Task:
    """MedSP-Q100: the published 100-scenario quality-controlled subset.

    Parameters are those of :func:`medsp1000`.
    """
    params = TaskParameters.check(
        data_dir=data_dir,
        upstream_dir=upstream_dir,
        data_revision=data_revision,
        scenarios=scenarios,
        max_turns=max_turns,
        protocol=protocol,
        judge=judge,
        cache=cache,
        strategy=strategy,
        n=n,
        experts=experts,
        consensus_rounds=consensus_rounds,
        sample_temperature=sample_temperature,
        fixed_temperature=fixed_temperature,
        specialties=specialties,
        grader_samples=grader_samples,
        audit=audit,
    )
    return _build("MedSP-Q100", params, subset=True)


@task
def medsp_demo(
    scenarios: str | list[str] | None = None,
    max_turns: int = 12,
    protocol: Protocol = "turns",
    judge: str = DEFAULT_JUDGE,
    cache: bool = False,
    strategy: Strategy = "off",
    n: int = 5,
    experts: int = 5,
    consensus_rounds: int = 1,
    sample_temperature: float = 0.8,
    fixed_temperature: float = 0.0,
    specialties: str | None = None,
    grader_samples: int = 1,
    audit: bool = False,
) -> Task:
    """Three original scenarios bundled with the package: try the harness with no download.

    Parameters are those of :func:`medsp1000` (without the data sources).
    """
    params = TaskParameters.check(
        scenarios=scenarios,
        max_turns=max_turns,
        protocol=protocol,
        judge=judge,
        cache=cache,
        strategy=strategy,
        n=n,
        experts=experts,
        consensus_rounds=consensus_rounds,
        sample_temperature=sample_temperature,
        fixed_temperature=fixed_temperature,
        specialties=specialties,
        grader_samples=grader_samples,
        audit=audit,
    )
    demo = Path(str(files(DEMO_PACKAGE).joinpath("demo")))
    return _build(
        "MedSP-demo",
        params,
        subset=False,
        scenario_root=demo / "scenarios",
        upstream_root=demo / "upstream",
    )
