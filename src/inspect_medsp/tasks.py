"""The MedSP tasks: ``medsp1000`` (every scoreable scenario), ``medsp100`` (the published
quality-controlled subset), ``medsp_demo`` (bundled original scenarios, no download) and
``medsp_custom`` (your own cases, ``-T cases=<folder>``).

Each task's parameters are written out in its signature, with their defaults: what ``-T``
takes and the log records. What each means is written once, in ``params.TaskParameters``
(checked against these signatures by ``tests/test_tasks.py``), and the docstring Inspect
shows takes its ``Args:`` from there. A measurement's switch (``-T audit=true``,
``-T workup=false``) is no parameter here: its capability declares it (``measure.Switch``),
it arrives in ``**kwargs`` with any other task's ``-T`` names of the run, and
:func:`~inspect_medsp.taskbuild.run` checks it against the registry
(``measures.switches()``), so adding a measurement changes nothing in this module.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from inspect_ai import Task, task

from inspect_medsp.taskbuild import (
    FAIL_ON_ERROR,
    TASK_VERSION,
    Variant,
    custom_task,
    described,
    medsp_task,
    run,
    task_of,
)

__all__ = [
    "CUSTOM",
    "FAIL_ON_ERROR",
    "TASK_VERSION",
    "VARIANTS",
    "Variant",
    "custom_task",
    "medsp100",
    "medsp1000",
    "medsp_custom",
    "medsp_demo",
    "medsp_task",
    "task_of",
]

MEDSP1000 = Variant("medsp1000", "MedSP1000")
MEDSP100 = Variant("medsp100", "MedSP-Q100", subset=True)
DEMO = Variant("medsp_demo", "MedSP-demo", bundled=True)
VARIANTS = (MEDSP1000, MEDSP100, DEMO)
"""The registered tasks of the benchmark, in the order ``eval.yaml`` lists them."""

CUSTOM = Variant("medsp_custom", "custom", custom=True)
"""The task of a user's own cases: registered too, but no benchmark of the register (its
size is the user's)."""


@task
@described(MEDSP1000)
def medsp1000(
    data_dir: str | Path | None = None,
    upstream_dir: str | Path | None = None,
    data_revision: str | None = None,
    scenarios: str | list[str] | None = None,
    variants: str | list[str] | None = None,
    max_turns: int = 12,
    protocol: Literal["turns", "tools"] = "turns",
    judge: str = "openai/gpt-5.5",
    cache: bool = False,
    strategy: Literal["off", "single", "bon", "medagents"] = "off",
    n: int = 5,
    experts: int = 5,
    consensus_rounds: int = 1,
    sample_temperature: float = 0.8,
    fixed_temperature: float = 0.0,
    specialties: str | Path | None = None,
    grader_samples: int = 1,
    feedback: bool = False,
    shard: str | None = None,
    **kwargs: Any,
) -> Task:
    """MedSP1000: every scoreable scenario of the benchmark."""
    return run(MEDSP1000, locals())


@task
@described(MEDSP100)
def medsp100(
    data_dir: str | Path | None = None,
    upstream_dir: str | Path | None = None,
    data_revision: str | None = None,
    scenarios: str | list[str] | None = None,
    variants: str | list[str] | None = None,
    max_turns: int = 12,
    protocol: Literal["turns", "tools"] = "turns",
    judge: str = "openai/gpt-5.5",
    cache: bool = False,
    strategy: Literal["off", "single", "bon", "medagents"] = "off",
    n: int = 5,
    experts: int = 5,
    consensus_rounds: int = 1,
    sample_temperature: float = 0.8,
    fixed_temperature: float = 0.0,
    specialties: str | Path | None = None,
    grader_samples: int = 1,
    feedback: bool = False,
    shard: str | None = None,
    **kwargs: Any,
) -> Task:
    """MedSP-Q100: the published 100-scenario quality-controlled subset."""
    return run(MEDSP100, locals())


@task
@described(DEMO)
def medsp_demo(
    scenarios: str | list[str] | None = None,
    variants: str | list[str] | None = None,
    max_turns: int = 12,
    protocol: Literal["turns", "tools"] = "turns",
    judge: str = "openai/gpt-5.5",
    cache: bool = False,
    strategy: Literal["off", "single", "bon", "medagents"] = "off",
    n: int = 5,
    experts: int = 5,
    consensus_rounds: int = 1,
    sample_temperature: float = 0.8,
    fixed_temperature: float = 0.0,
    specialties: str | Path | None = None,
    grader_samples: int = 1,
    feedback: bool = False,
    shard: str | None = None,
    **kwargs: Any,
) -> Task:
    """Three original scenarios bundled with the package: try the harness with no download."""
    return run(DEMO, locals())


@task
@described(CUSTOM)
def medsp_custom(
    cases: str | Path | None = None,
    identifiers: Literal["refuse", "allow"] = "refuse",
    scenarios: str | list[str] | None = None,
    variants: str | list[str] | None = None,
    max_turns: int = 12,
    protocol: Literal["turns", "tools"] = "turns",
    judge: str = "openai/gpt-5.5",
    cache: bool = False,
    strategy: Literal["off", "single", "bon", "medagents"] = "off",
    n: int = 5,
    experts: int = 5,
    consensus_rounds: int = 1,
    sample_temperature: float = 0.8,
    fixed_temperature: float = 0.0,
    specialties: str | Path | None = None,
    grader_samples: int = 1,
    feedback: bool = False,
    shard: str | None = None,
    **kwargs: Any,
) -> Task:
    """Your own cases (-T cases=<folder>), run with every feature of the published tasks."""
    return run(CUSTOM, locals())
