"""The scenarios the probe asks about: the same selection as the benchmark's tasks (the
published data, its subset, the bundled demo, or a user's case set, narrowed by
``scenarios``, labelled by ``specialties``)."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path
from typing import Literal, get_args

from inspect_medsp.cases import load_custom
from inspect_medsp.data import (
    SampleRecord,
    load_records,
    resolve_scenario_root,
    resolve_upstream_root,
)
from inspect_medsp.errors import MedSPParameterError
from inspect_medsp.specialty import label_records

Benchmark = Literal["medsp1000", "medsp100", "medsp_demo"]
BENCHMARKS: tuple[Benchmark, ...] = get_args(Benchmark)
NAMES: dict[Benchmark, str] = {
    "medsp1000": "MedSP1000",
    "medsp100": "MedSP-Q100",
    "medsp_demo": "MedSP-demo",
}


def check_benchmark(value: str) -> Benchmark:
    """``value`` as a benchmark task's name.

    Raises:
        MedSPParameterError: Not one of :data:`BENCHMARKS`.
    """
    for name in BENCHMARKS:
        if value == name:
            return name
    raise MedSPParameterError(
        f"task parameter benchmark={value!r} is not accepted: benchmark takes "
        f"{', '.join(BENCHMARKS)} (or give your own cases with -T cases=<folder>)"
    )


def selected_records(
    benchmark: Benchmark,
    scenarios: list[str] | None,
    specialties: str | None,
    cases: str | None,
    data_dir: str | None,
    upstream_dir: str | None,
    data_revision: str | None,
) -> tuple[str, list[SampleRecord]]:
    """The dataset's name and the records of the selected scenarios, labelled.

    Raises:
        MedSPDataError: A source is missing, a case cannot be loaded, an id matches nothing
            or the specialties file does not label every scenario.
    """
    revision: str | None = None
    if cases is not None:
        records, report = load_custom(cases, scenarios)
        name = report.name
    elif benchmark == "medsp_demo":
        demo = Path(str(files("inspect_medsp.data").joinpath("demo")))
        records, _ = load_records(
            demo / "scenarios", demo / "upstream", scenarios=scenarios, name=NAMES[benchmark]
        )
        name = NAMES[benchmark]
    else:
        data = resolve_scenario_root(data_dir, data_revision)
        upstream = resolve_upstream_root(upstream_dir)
        revision = data.revision
        records, _ = load_records(
            data.root,
            upstream.root,
            subset=benchmark == "medsp100",
            scenarios=scenarios,
            name=NAMES[benchmark],
            data_revision=revision,
            rubric_revision=upstream.revision,
        )
        name = NAMES[benchmark]
    labelled, _ = label_records(records, specialties, revision)
    return name, labelled
