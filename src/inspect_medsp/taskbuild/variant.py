"""The registered tasks' shared body: a :class:`Variant` (where its scenarios come from),
the checks of a call's ``-T`` names and values, and the custom set's task."""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any, TypeVar

from inspect_ai import Task

from inspect_medsp.cases import load_custom, refusal, set_findings
from inspect_medsp.data import (
    CacheUnwritable,
    LoadReport,
    ResolvedSource,
    RubricsNotPublished,
    SampleRecord,
    data_revision_unused,
    manifest_digest,
    resolve_scenario_root,
    resolve_upstream_root,
    sources_unavailable,
)
from inspect_medsp.errors import MedSPDataError, MedSPParameterError, MedSPUnknownParameter
from inspect_medsp.measures import switches
from inspect_medsp.params import (
    ACCEPTED,
    CUSTOM_PARAMETERS,
    OTHERS,
    SOURCE_PARAMETERS,
    TaskParameters,
)
from inspect_medsp.preflight import (
    RunContext,
    place_roles,
    run_context,
    said_at_load,
    unknown_in_run,
)
from inspect_medsp.record import (
    OTHER_TASKS_ARGS,
)
from inspect_medsp.runcheck import check_run
from inspect_medsp.taskbuild.build import DEMO_PACKAGE, chosen_variants, medsp_task, task_of
from inspect_medsp.taskbuild.roles import (
    judged_roles,
    refuse_scripted_tools,
    refuse_unscripted,
    run_models,
    run_roles,
    with_findings,
)

logger = logging.getLogger("inspect_medsp")

F = TypeVar("F", bound=Callable[..., Task])


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
    placed = place_roles(run_roles(params, context))
    if params.identifiers == "refuse":
        line = refusal(folder, findings, placed)
        if line is not None:
            raise MedSPDataError(line)

    def load() -> tuple[list[SampleRecord], LoadReport]:
        records, report = load_custom(folder, params.scenarios)
        refuse_unscripted(f"cases='{folder}'", records, run_models(params, context))
        report = report.model_copy(update={"endpoints": placed})
        return records, with_findings(report, findings, params.identifiers == "allow")

    return task_of(load, params, context=context)


def refuse_unknown(task: str, names: list[str], context: RunContext) -> None:
    """Refuse a ``-T`` name the task does not have and no other task of the run takes, with
    the closest it does: Inspect only warns and drops it, and the run would go on, paid in
    full, at the default (``preflight.unknown_in_run``).

    Raises:
        MedSPUnknownParameter: A ``-T`` name that is no parameter of ``task`` (a
            ``TypeError`` too, as a Python function's unexpected keyword is).
    """
    line = unknown_in_run(task, names, context)
    if line is not None:
        raise MedSPUnknownParameter(line)


def run(variant: Variant, arguments: Mapping[str, Any]) -> Task:
    """The body of every registered task: check what it was called with and build it.

    Args:
        variant: The task.
        arguments: The task function's arguments (``locals()``): its written-out parameters,
            and under ``kwargs`` every other ``-T`` of the run, the measurements' switches
            (``measures.switches()``) among them.

    Raises:
        MedSPParameterError: A bad parameter value, one line naming it.
        MedSPUnknownParameter: A ``-T`` name no task of the run takes (a ``TypeError``, as a
            Python function's unexpected keyword is).
    """
    given = dict(arguments)
    others: dict[str, Any] = dict(given.pop(OTHERS, None) or {})
    registered = switches()
    switched = {s.name: others.pop(s.name) for s in registered if s.name in others}
    # read once: every check of this load receives it
    context = run_context(given | switched | others)
    with said_at_load(context):
        refuse_unknown(variant.task, [*given, *(s.name for s in registered)], context)
        built = variant.build(TaskParameters.check(registered, **given, **switched), context)
    if others:  # another task's of the run: recorded as such, left out of a re-run
        built.metadata = {**(built.metadata or {}), OTHER_TASKS_ARGS: sorted(others)}
    return built


def described(variant: Variant) -> Callable[[F], F]:
    """Give a task function its docstring's ``Args:``: its parameters' descriptions
    (``TaskParameters``) and the switches the registered capabilities declare (their help),
    after the summary its own docstring holds."""

    def describe(function: F) -> F:
        summary = inspect.getdoc(function) or variant.dataset
        args = TaskParameters.describe(exclude=variant.excluded, switches=switches())
        function.__doc__ = f"{summary}\n\n{args}"
        return function

    return describe
