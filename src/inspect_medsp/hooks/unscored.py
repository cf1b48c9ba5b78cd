"""Say loudly, at the end of a run, which MedSP samples could not be scored and why."""

from __future__ import annotations

import logging
import posixpath
import shlex
from collections.abc import Callable, Iterable, Sequence
from urllib.parse import unquote, urlparse

import rich
from inspect_ai.hooks import Hooks, RunEnd, TaskEnd, hooks
from inspect_ai.log import EvalLog

from inspect_medsp.hooks.roles import MEDSP_ROLES
from inspect_medsp.record import (
    SCORER,
    ScoreValue,
    TaskMetadata,
    reduced_samples,
    regrade_command,
)

GENERATE_OPTIONS = (
    "temperature",
    "top_p",
    "top_k",
    "max_tokens",
    "seed",
    "reasoning_effort",
    "reasoning_tokens",
    "max_connections",
    "max_retries",
    "timeout",
)
"""The model's generation options a re-run repeats (each is ``--<option>`` on the command
line and a single value)."""

logger = logging.getLogger(__name__)

EndLine = Callable[[EvalLog], str | None]
"""A capability's line at the end of a run for a log (None: nothing to say)."""

_LINES: list[EndLine] = []


def add_lines(lines: Iterable[EndLine]) -> None:
    """Say each of ``lines`` (the registered capabilities' end-of-run lines) when a MedSP
    task ends, after the rubric's own; a line added twice is said once."""
    for line in lines:
        if line not in _LINES:
            _LINES.append(line)


def unscored_line(log: EvalLog, rerun_below: bool = False) -> str | None:
    """One line naming every sample of a MedSP log whose score is unscored, or None.

    Reads the log's reduced scores: a sample none of whose epochs could be scored, and a
    sample with some unscored epochs (named with how many). With ``rerun_below`` the
    re-run command is not in the line but said to follow (see :func:`rerun_lines`).
    """
    missing: dict[str, str] = {}
    partly: list[str] = []
    for sample in reduced_samples(log, SCORER):
        value = ScoreValue.in_score(sample.value, sample.metadata)
        if value is None:
            missing[str(sample.sample_id)] = str(sample.reason or "unknown")
        elif value.unscored_epochs:
            partly.append(f"{sample.sample_id} ({value.unscored_epochs:g} epoch(s))")
    if not missing and not partly:
        return None
    location = log.location or "LOG"
    parts = [f"MedSP: {len(missing)} sample(s) could not be scored and are not in the metrics"]
    if missing:
        parts[0] += ": " + ", ".join(f"{i} [{why}]" for i, why in missing.items())
    if partly:
        parts.append("some epochs unscored: " + ", ".join(partly))
    regrade = [i for i, why in missing.items() if why != "encounter_incomplete"]
    rerun = [i for i, why in missing.items() if why == "encounter_incomplete"]
    if (regrade or partly) and rerun_below:
        parts.append(
            're-grade them with the command printed alone on the line after "MedSP: '
            're-grade the ..."'
        )
    elif regrade or partly:
        parts.append("re-grade: " + regrade_command(location))
    if rerun and rerun_below:
        parts.append(
            're-run them with the command printed alone on the line after "MedSP: re-run the ..."'
        )
    elif rerun:
        parts.append("re-run: " + rerun_command(log, rerun))
    return "; ".join(parts)


def unfinished(log: EvalLog) -> list[str]:
    """The samples of a MedSP log whose encounter did not finish (none of their epochs)."""
    return [
        str(sample.sample_id)
        for sample in reduced_samples(log, SCORER)
        if ScoreValue.read(sample.value) is None and sample.reason == "encounter_incomplete"
    ]


def rerun_lines(log: EvalLog) -> list[str]:
    """What the end of the run prints for a log with unfinished encounters: a line saying
    what the command does, then the command alone (so that it copies whole)."""
    ids = unfinished(log)
    if not ids:
        return []
    n = len(ids)
    return [
        f"MedSP: re-run the {n} encounter{'' if n == 1 else 's'} that did not finish "
        f"({', '.join(ids)}) with:",
        rerun_command(log, ids),
    ]


def regrade_lines(log: EvalLog) -> list[str]:
    """What the end of the run prints for a log with encounters that finished and were not
    graded (or some epochs of them): a line saying what the command does, then the one
    re-grade command alone (so that it copies whole, and runs without asking)."""
    ids = [
        str(sample.sample_id)
        for sample in reduced_samples(log, SCORER)
        if ((value := ScoreValue.in_score(sample.value, sample.metadata)) is None
        and sample.reason != "encounter_incomplete")
        or (value is not None
        and value.unscored_epochs)
    ]
    if not ids:
        return []
    n = len(ids)
    return [
        f"MedSP: re-grade the {n} encounter{'' if n == 1 else 's'} not graded "
        f"({', '.join(ids)}) with:",
        regrade_command(log.location or "LOG"),
    ]


def grade_lines(log: EvalLog) -> list[str]:
    """What the end of the run prints for a MedSP log run with ``--no-score``: a line, then
    the one command that grades it alone (so that it copies whole and runs unattended)."""
    if log.status != "success":
        return []
    if any(r.scorer == SCORER for r in log.reductions or []):
        return []
    if TaskMetadata.read(log.eval.metadata) is None:
        return []
    return [
        "MedSP: grade the run (not scored: --no-score) with:",
        regrade_command(log.location or "LOG"),
    ]


def log_folder(location: str) -> str:
    """The folder of a log, as ``--log-dir`` takes it (a local path, or a remote URL)."""
    if location.startswith("file://"):
        location = unquote(urlparse(location).path)
    folder = posixpath.dirname(location.rstrip("/"))
    return folder or "."


def rerun_command(log: EvalLog, ids: Sequence[str]) -> str:
    """An ``inspect eval`` command that re-runs ``ids`` as the log's run ran them: the same
    task, model (with its ``-M`` arguments and generation options), task parameters (the
    judge always named), the MedSP roles bound apart from the judge, epochs, samples at a
    time and log folder; quoted for a POSIX shell. The run's limits are left out: a limit
    is what cut those encounters short."""
    spec = log.eval
    task = f"{spec.task_file}@{spec.task.split('/')[-1]}" if spec.task_file else spec.task
    words = ["inspect", "eval", task, "--model", spec.model]
    if spec.model_base_url:
        words += ["--model-base-url", spec.model_base_url]
    for name, value in (spec.model_args or {}).items():
        if isinstance(value, str | int | float | bool):  # others were never typed as -M
            words += ["-M", f"{name}={value}"]
    generate = spec.model_generate_config.model_dump(exclude_none=True)
    for option in GENERATE_OPTIONS:
        if option in generate:
            words += [f"--{option.replace('_', '-')}", str(generate[option])]
    passed = dict(spec.task_args_passed or {})
    task_metadata = TaskMetadata.read(spec.metadata)
    recorded = task_metadata.judge if task_metadata is not None else ""
    judge = str(passed.pop("judge", None) or recorded)
    args = ({"judge": judge} if judge else {}) | passed
    for name, value in args.items():
        shown = ",".join(map(str, value)) if isinstance(value, list) else value
        words += ["-T", f"{name}={shown}"]
    for role, config in (spec.model_roles or {}).items():
        if role not in MEDSP_ROLES:
            continue  # a role MedSP never asks for (a typo) plays nothing
        models = config if isinstance(config, list) else [config]
        if [m.model for m in models] != [judge]:
            words += ["--model-role", f"{role}={','.join(m.model for m in models)}"]
    epochs = spec.config.epochs
    if epochs is not None and epochs > 1:
        words += ["--epochs", str(epochs)]
    if spec.config.max_samples is not None:
        words += ["--max-samples", str(spec.config.max_samples)]
    if log.location:
        words += ["--log-dir", log_folder(log.location)]
    words += ["--sample-id", ",".join(ids)]
    return " ".join(shlex.quote(w) for w in words)


def provider_line(log: EvalLog) -> str | None:
    """One line naming the scored samples whose encounter the clinician model's provider cut
    short (its context window was full) or refused turns of, or None when there are none.

    These samples are graded (the model's own limit and behaviour, like the turn limit); the
    line says so, so that a reader knows the window or the filter cut the score.
    """
    context: list[str] = []
    refused: list[str] = []
    turns = 0.0
    for sample in reduced_samples(log, SCORER):
        value = ScoreValue.in_score(sample.value, sample.metadata)
        if value is None:
            continue
        if value.context_exhausted:
            context.append(str(sample.sample_id))
        if value.refused_turns:
            refused.append(str(sample.sample_id))
            turns += float(value.refused_turns)
    parts: list[str] = []
    if context:
        parts.append(
            f"{len(context)} encounter(s) ended because the clinician model's context window "
            f"was full (graded on the turns played): {', '.join(context)}"
        )
    if refused:
        parts.append(
            f"{turns:g} clinician turn(s) refused by the provider's content filter in "
            f"{len(refused)} encounter(s) (graded as saying and doing nothing): "
            f"{', '.join(refused)}"
        )
    return "MedSP: " + "; ".join(parts) if parts else None


@hooks(name="medsp_unscored", description="Names the MedSP samples that could not be scored.")
class UnscoredWarning(Hooks):
    """Logs :func:`unscored_line` as a warning when a MedSP task ends, and prints the
    re-run command when the run ends."""

    async def on_task_end(self, data: TaskEnd) -> None:
        lines = (
            provider_line(data.log),
            unscored_line(data.log, rerun_below=True),
            *(line(data.log) for line in _LINES),
        )
        for line in lines:
            if line is not None:
                logger.warning(line)

    async def on_run_end(self, data: RunEnd) -> None:
        """With the run's summary: each log's re-run command on a line of its own,
        never wrapped by the console (the terminal folds it; it copies whole)."""
        console = rich.get_console()
        for log in data.logs:
            lines = grade_lines(log) + regrade_lines(log) + rerun_lines(log)
            if not lines:
                continue
            if console.quiet:
                logger.warning(" ".join(lines))
                continue
            console.print("")
            for line in lines:
                console.print(line, soft_wrap=True, markup=False, highlight=False, emoji=False)
