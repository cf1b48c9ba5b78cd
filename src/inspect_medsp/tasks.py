"""The MedSP tasks: ``medsp1000`` (every scoreable scenario), ``medsp100`` (the published
quality-controlled subset) and ``medsp_demo`` (bundled original scenarios, no download)."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from inspect_ai import Epochs, Task, task
from inspect_ai.log import HeadlineMetric
from inspect_ai.model import model_roles
from inspect_ai.solver import Solver

from inspect_medsp.data.dataset import build_dataset, load_records
from inspect_medsp.data.sources import resolve_scenario_root, resolve_upstream_root
from inspect_medsp.encounter.solver import (
    DEFAULT_JUDGE,
    Protocol,
    medsp_encounter,
    medsp_tools_encounter,
)
from inspect_medsp.scoring.epochs import medsp_epochs
from inspect_medsp.scoring.scorer import medsp_rubric
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
            raise ValueError(
                f"strategy={settings.strategy} works with protocol=turns only; the tools "
                "protocol lets your own agent decide how to spend compute"
            )
        return medsp_tools_encounter(judge=judge, max_turns=max_turns, cache=cache)
    if protocol != "turns":
        raise ValueError(f"protocol must be 'turns' or 'tools', not {protocol!r}")
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


def judged_roles(judge: str) -> dict[str, str]:
    """A chosen ``judge`` (``-T judge=...``) for every judged role the eval has not bound, so
    the log records which model played each role and a re-score (``inspect score``) uses the
    same grader. The default judge is left unbound: it is the scorer's own default, and
    binding it would make the task need its provider just to be built."""
    if judge == DEFAULT_JUDGE:
        return {}
    bound = model_roles()
    return {role: judge for role in JUDGED_ROLES if role not in bound}


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
    grader_samples: int = 1,
) -> Task:
    """Build a MedSP task from resolved folders (shared by the three registered tasks)."""
    records, report = load_records(
        scenario_root,
        upstream_root,
        subset=subset,
        scenarios=_scenario_list(scenarios),
        name=name,
        data_revision=data_revision,
        rubric_revision=rubric_revision,
    )
    report.log()
    return Task(
        dataset=build_dataset(records, name=name),
        solver=_solver(protocol, judge, max_turns, settings, cache),
        scorer=medsp_rubric(
            judge=judge, config=settings.grader_config(), cache=cache, samples=grader_samples
        ),
        config=settings.clinician_config(),
        model_roles=judged_roles(judge),
        epochs=Epochs(1, medsp_epochs()),
        message_limit=max_turns * 8 + 16 if protocol == "tools" else None,
        fail_on_error=False,
        headline_metric=HeadlineMetric(scorer="medsp_rubric", metric="macro"),
        metadata={
            "medsp_load": report.model_dump(),
            "medsp_protocol": protocol,
            "medsp_judge": judge,
            "medsp_max_turns": max_turns,
            "medsp_strategy": settings.model_dump(),
            "data_revision": data_revision,
            "rubric_revision": rubric_revision,
        },
        version="1.0.0",
    )


def _build(
    name: str,
    *,
    subset: bool,
    scenario_root: Path | None = None,
    upstream_root: Path | None = None,
    data_dir: str | None = None,
    upstream_dir: str | None = None,
    data_revision: str | None = None,
    scenarios: str | list[str] | None,
    max_turns: int,
    protocol: Protocol,
    judge: str,
    cache: bool,
    strategy: Strategy,
    n: int,
    experts: int,
    consensus_rounds: int,
    sample_temperature: float,
    fixed_temperature: float,
    grader_samples: int = 1,
) -> Task:
    """Resolve the sources (unless given as folders) and build the task."""
    settings = StrategySettings(
        strategy=strategy,
        n=n,
        experts=experts,
        consensus_rounds=consensus_rounds,
        sample_temperature=sample_temperature,
        fixed_temperature=fixed_temperature,
    )
    revisions: dict[str, str | None] = {}
    if scenario_root is None:
        data = resolve_scenario_root(data_dir, data_revision)
        scenario_root, revisions["data_revision"] = data.root, data.revision
    if upstream_root is None:
        upstream = resolve_upstream_root(upstream_dir)
        upstream_root, revisions["rubric_revision"] = upstream.root, upstream.revision
    return medsp_task(
        name=name,
        scenario_root=scenario_root,
        upstream_root=upstream_root,
        subset=subset,
        scenarios=scenarios,
        max_turns=max_turns,
        protocol=protocol,
        judge=judge,
        settings=settings,
        cache=cache,
        grader_samples=grader_samples,
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
    grader_samples: int = 1,
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
        grader_samples: Grade each encounter this many times and score each item by
            majority (the scorer's ``samples``; repeats run at temperature 1.0).
    """
    return _build("MedSP1000", subset=False, **locals())


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
    grader_samples: int = 1,
) -> Task:
    """MedSP-Q100: the published 100-scenario quality-controlled subset.

    Parameters are those of :func:`medsp1000`.
    """
    return _build("MedSP-Q100", subset=True, **locals())


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
    grader_samples: int = 1,
) -> Task:
    """Three original scenarios bundled with the package: try the harness with no download.

    Parameters are those of :func:`medsp1000` (without the data sources).
    """
    params = dict(locals())
    demo = Path(str(files(DEMO_PACKAGE).joinpath("demo")))
    return _build(
        "MedSP-demo",
        subset=False,
        scenario_root=demo / "scenarios",
        upstream_root=demo / "upstream",
        **params,
    )
