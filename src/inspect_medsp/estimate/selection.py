"""The scenarios an estimate covers, read with the package's own task builders and loaders."""

from __future__ import annotations

import inspect
import statistics
from collections.abc import Callable
from importlib.resources import files
from pathlib import Path
from typing import Any

from inspect_ai import Task
from pydantic import BaseModel, ConfigDict

from inspect_medsp.data import (
    Packets,
    SampleRecord,
    Scenario,
    load_rubrics,
    load_subset,
    resolve_upstream_root,
    rubric_report,
    select_ids,
)
from inspect_medsp.errors import MedSPDataError
from inspect_medsp.measures import switches
from inspect_medsp.params import TaskParameters
from inspect_medsp.record import SampleMetadata, StrategySettings, TaskMetadata
from inspect_medsp.tasks import CUSTOM, medsp100, medsp1000, medsp_custom, medsp_demo
from inspect_medsp.variants import expand, resolve
from inspect_medsp.workload import RunShape, take_part

TASKS: dict[str, Callable[..., Task]] = {
    "medsp1000": medsp1000,
    "medsp100": medsp100,
    "medsp_demo": medsp_demo,
    "medsp_custom": medsp_custom,
}
BUILT_ALWAYS = ("medsp_demo", "medsp_custom")
"""Tasks whose packets are always at hand: estimated from the task itself."""
NAMES = {"medsp1000": "MedSP1000", "medsp100": "MedSP-Q100", "medsp_demo": "MedSP-demo"}


class Selection(BaseModel):
    """What will run: the records, the turn limit, the strategy and the judge."""

    model_config = ConfigDict(frozen=True)

    name: str
    records: list[SampleRecord]
    max_turns: int
    settings: StrategySettings
    judge: str
    protocol: str = "turns"
    packets: str = "the scenario data"
    """Where the packet sizes come from."""
    note: str = ""
    """What the selection left out, when anything."""
    audit: bool = False
    """The run also audits the simulators (``-T audit=true``): one auditor call a scenario."""
    grader_samples: int = 1
    """Gradings per encounter (``-T grader_samples=k``)."""


def task_function(name: str) -> Callable[..., Task]:
    """The task called ``name`` (with or without the ``inspect_medsp/`` prefix).

    Raises:
        MedSPDataError: Not a MedSP task.
    """
    fn = TASKS.get(name.removeprefix("inspect_medsp/"))
    if fn is None:
        raise MedSPDataError(f"task {name!r} is not a MedSP task; use one of {', '.join(TASKS)}")
    return fn


def check_args(name: str, args: dict[str, Any]) -> None:
    """Refuse task parameters the task does not have.

    Raises:
        MedSPDataError: An unknown parameter.
    """
    declared = inspect.signature(task_function(name)).parameters.values()
    accepted = [p.name for p in declared if p.kind is not p.VAR_KEYWORD]
    accepted += [s.name for s in switches()]  # the measurements' own (``measure.Switch``)
    for key in args:
        if key not in accepted:
            raise MedSPDataError(
                f"-T {key}: {name} has no parameter {key!r}; it accepts {', '.join(accepted)}"
            )


def from_task(name: str, args: dict[str, Any]) -> Selection:
    """Build the task exactly as ``inspect eval`` would, and read its samples.

    Raises:
        MedSPDataError: A bad parameter or unavailable data (the task's own message).
    """
    check_args(name, args)
    if name == CUSTOM.task and "identifiers" not in args:
        # an estimate sends nothing to any model: a set's identifiers are its run's concern
        args = {**args, "identifiers": "allow"}
    task = task_function(name)(**args)
    meta = TaskMetadata.read(task.metadata)
    if meta is None or meta.max_turns is None:
        raise MedSPDataError(f"task {name!r} is not a MedSP task (its metadata says nothing)")
    records = [
        record
        for sample in task.dataset
        for record in [SampleMetadata.model_validate(sample.metadata or {}).record]
        if record is not None
    ]
    params = TaskParameters.check(switches(), **args)
    return Selection(
        name=task.dataset.name or name,
        records=records,
        max_turns=meta.max_turns,
        settings=StrategySettings.model_validate(meta.strategy),
        judge=meta.judge,
        protocol=meta.protocol,
        audit=params.switched("audit"),
        grader_samples=params.grader_samples,
    )


def demo_packet_sizes() -> Packets:
    """Packets of the mean size of the bundled demo scenarios' packets, as filler of that many
    characters (only their size is used: the estimate counts characters)."""
    demo = Path(str(files("inspect_medsp.data").joinpath("demo")))
    from inspect_medsp.data import load_records

    records, _ = load_records(demo / "scenarios", demo / "upstream", name="MedSP-demo")
    sizes = {
        role: round(statistics.mean(len(getattr(r.scenario.packets, role)) for r in records))
        for role in Packets.model_fields
    }
    return Packets(**{role: "x" * n for role, n in sizes.items()})


def from_rubrics(name: str, args: dict[str, Any]) -> Selection:
    """The published rubrics of the task's scenarios, with packets the mean size of the demo
    packets (for when the scenario data is not at hand).

    The parameters are checked as the task checks them (:class:`TaskParameters`).

    Raises:
        MedSPDataError: A bad parameter, or the rubric copy is unavailable.
    """
    check_args(name, args)
    if name.removeprefix("inspect_medsp/") in BUILT_ALWAYS:
        return from_task(name, args)
    params = TaskParameters.check(switches(), **args)
    upstream = resolve_upstream_root(params.upstream_dir).root
    rubric_set = load_rubrics(upstream)
    subset = name.removeprefix("inspect_medsp/") == "medsp100"
    universe = load_subset(upstream) if subset else sorted(rubric_set.rubrics)
    ids = select_ids(sorted(universe), params.scenarios)
    report = rubric_report(rubric_set, ids, NAMES[name.removeprefix("inspect_medsp/")])
    packets = demo_packet_sizes()
    records = [
        SampleRecord(
            scenario=Scenario(case_id=r.case_id, scenario=r.scenario, packets=packets),
            rubric=r,
        )
        for i in ids
        if (r := rubric_set.rubrics.get(i)) is not None and r.n_items > 0
    ]
    if params.variants is not None:
        # one encounter per (scenario, variant); a cue's words are priced at the packets'
        # assumed size
        records, _ = expand(records, resolve(params.variants), cues=False)
    note = report.count_line() if report.excluded else ""
    if params.shard is not None:
        shape = RunShape(
            max_turns=params.max_turns,
            strategy=params.strategy_settings(),
            audit=params.switched("audit"),
            grader_samples=params.grader_samples,
        )
        records, shard = take_part(records, params.shard, shape)
        part = f"part {shard.part}: {len(records)} of the {shard.scenarios} selected scenarios"
        note = f"{note}; {part}" if note else part
    return Selection(
        name=report.name,
        note=note,
        records=records,
        max_turns=params.max_turns,
        settings=params.strategy_settings(),
        judge=params.judge,
        protocol=params.protocol,
        packets="the mean size of the demo packets (assumed)",
        audit=params.switched("audit"),
        grader_samples=params.grader_samples,
    )
