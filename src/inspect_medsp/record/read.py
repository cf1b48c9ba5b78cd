"""Read a MedSP log into typed runs and samples: the one way the report, the agreement
commands, the estimate's bill and the end-of-run hooks read what a run wrote.

Any log this package wrote reads, whatever its schema version: an older log's missing keys
take their defaults (see ``record.score`` and ``record.task``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from inspect_ai.log import (
    EvalLog,
    EvalSample,
    EvalSampleScore,
    EvalSampleSummary,
    read_eval_log,
    read_eval_log_samples,
)
from inspect_ai.model import ModelUsage
from inspect_ai.scorer import Score

from inspect_medsp.data import METADATA_KEY
from inspect_medsp.record import sample_files
from inspect_medsp.record.grader import GRADER_ROLE
from inspect_medsp.record.items import item_row
from inspect_medsp.record.parts import MedspScore, RecordedEncounter, SampleMetadata
from inspect_medsp.record.run import MedspRun, NotMedSP
from inspect_medsp.record.sample import MedspSample, rescored_usage
from inspect_medsp.record.score import SCORER, ScoreMetadata, ScoreValue
from inspect_medsp.record.task import TaskMetadata

__all__ = [  # what read_log returns, named here too (tests and benches import them from here)
    "CLINICIAN",
    "MedspRun",
    "MedspSample",
    "MedspScore",
    "NotMedSP",
    "ParsedLog",
    "SampleMetadata",
    "drop_records",
    "parse_log",
    "parsed_run",
    "read_log",
    "read_sample",
    "reduced_samples",
    "rescored_usage",
    "run_of",
    "sample_of",
    "summary_sample",
    "task_metadata",
]

HEAVY_FIELDS = frozenset({"messages", "events", "attachments"})
"""Sample fields a reader rarely needs (the bulk of a log); ``events`` are read on request."""

CLINICIAN = sample_files.CLINICIAN
"""The name of the model without a role (the model under test) in per-role counts."""

LEAN_RAW = frozenset({"rescored", "usage"})
"""The rubric score's metadata a lean read keeps as logged in ``MedspSample.scores`` (what
``MedspSample.rescored_usage`` reads); the rest it keeps typed only (``MedspSample.score``)."""

LEAN_MARK = "lean"
"""Set on a sample's JSON by a lean read (``record.sample_files``), with its encounter's
counts under ``encounter``."""


def _medsp_score(score: Score, metadata: ScoreMetadata) -> MedspScore:
    """The rubric score with its metadata, and why it is unscored when it is."""
    value = ScoreValue.in_score(score.value, {"figures": metadata.figures})
    reason = None if value else str(score.reason or metadata.unscored or "unscored")
    return MedspScore(value=value, metadata=metadata, reason=reason)


def read_sample(sample: EvalSample) -> MedspSample:
    """The typed view of one logged sample."""
    score = (sample.scores or {}).get(SCORER)
    medsp_score = None if score is None else _medsp_score(score, ScoreMetadata.read(score.metadata))
    store = dict(sample.store or {})
    return MedspSample(
        id=str(sample.id),
        epoch=sample.epoch,
        metadata=SampleMetadata.model_validate(sample.metadata or {}),
        store=store,
        score=medsp_score,
        error=sample.error.message if sample.error is not None else None,
        model_usage=dict(sample.model_usage or {}),
        role_usage=dict(sample.role_usage or {}),
        calls=_calls(sample) if sample.events else None,
        scores=dict(sample.scores or {}),
    )


def summary_sample(sample: EvalSampleSummary | EvalSample) -> MedspSample:
    """The typed view of a sample as Inspect's sample summary keeps it: its ids, metadata,
    MedSP score (the summary's scalar metadata fields) and error; no Trajectory or usage."""
    score = (sample.scores or {}).get(SCORER)
    medsp_score = (
        None if score is None else _medsp_score(score, ScoreMetadata.read_summary(score.metadata))
    )
    error = sample.error
    return MedspSample(
        id=str(sample.id),
        epoch=sample.epoch,
        metadata=SampleMetadata.read_summary(sample.metadata),
        score=medsp_score,
        error=error if isinstance(error, str) or error is None else error.message,
    )


def _calls(sample: EvalSample) -> dict[str, int]:
    calls: dict[str, int] = {}
    for event in sample.events:
        if event.event == "model":
            key = event.role or CLINICIAN
            calls[key] = calls.get(key, 0) + 1
    return calls


def reduced_samples(log: EvalLog, scorer: str) -> list[EvalSampleScore]:
    """The scores one scorer gave each sample of a log, its epochs reduced to one."""
    return [s for r in log.reductions or [] if r.scorer == scorer for s in r.samples]


def task_metadata(log: EvalLog) -> TaskMetadata | None:
    """The MedSP task metadata of a log (header enough); None for another task's log."""
    return TaskMetadata.read(log.eval.metadata)


def run_of(
    log: EvalLog, samples: Iterable[EvalSample] | None = None, *, require_scores: bool = True
) -> MedspRun:
    """The typed run of a log read in memory (its own samples unless ``samples`` are given).

    Raises:
        NotMedSP: The log is an Inspect log of some other task (with ``require_scores``, also
            when it has samples, none of which has a MedSP score or an error).
    """
    if task_metadata(log) is None:
        raise NotMedSP("not a MedSP log: its task metadata has no medsp_judge")
    read = [read_sample(s) for s in (log.samples or [] if samples is None else samples)]
    return _run(log, read, require_scores)


def _run(log: EvalLog, read: list[MedspSample], require_scores: bool) -> MedspRun:
    """The typed run of a log's header and its samples read."""
    metadata = task_metadata(log)
    if metadata is None:
        raise NotMedSP("not a MedSP log: its task metadata has no medsp_judge")
    unscoreable = read and not any(s.score for s in read) and not all(s.error for s in read)
    if require_scores and unscoreable:
        raise NotMedSP(f"not a MedSP log: no sample has a {SCORER} score")
    role = (log.eval.model_roles or {}).get(GRADER_ROLE)
    if isinstance(role, list):
        role = role[0] if role else None
    return MedspRun(
        path=log.location or "",
        task=log.eval.task,
        created=str(log.eval.created),
        status=log.status,
        model=log.eval.model,
        grader_role=role.model if role is not None else None,
        task_metadata=metadata,
        metrics=_metrics(log),
        epochs=log.eval.config.epochs,
        samples=read,
    )


def read_log(
    path: str | Path,
    *,
    events: bool = False,
    require_scores: bool = True,
    lean: bool = False,
) -> MedspRun:
    """Read a MedSP log file: header, then every sample (without messages or attachments; with
    model events only when ``events``, for the per-role call counts). ``lean`` keeps only what
    the report reads: no store text or Trajectory (the encounter's turn count, refusals, times,
    end and health are kept), no scenario record, no grader evidence, reasoning or explanation
    (see ``record.sample_files``).

    An ``.eval`` file is read in one pass over its zip (see ``record.sample_files``), not
    sample by sample through Inspect's reader, which re-opens the file and streams every event
    of every sample; the samples are the same.

    Raises:
        NotMedSP: The log is an Inspect log of some other task (with ``require_scores``, also
            when none of its samples has a MedSP score or an error).
    """
    return parsed_run(parse_log(path, events=events, lean=lean), require_scores=require_scores)


class ParsedLog(NamedTuple):
    """A log's header and its samples as JSON (:func:`parse_log`), before they are typed."""

    path: str
    header: EvalLog
    samples: list[dict[str, Any]] | None
    """None: not a local ``.eval`` zip (read with Inspect's reader when typed)."""
    events: bool = False
    digests: Mapping[str, Any] | None = None
    """What was made of the parsed samples before they were typed (``MedspRun.digests``)."""


def parse_log(
    path: str | Path, *, events: bool = False, lean: bool = False, records: bool = False
) -> ParsedLog:
    """The first half of :func:`read_log`: the header and every sample's JSON (the half that
    a worker process can do: what it returns is plain data). ``records``: a lean read keeps
    each scenario's record (see ``record.sample_files.sample_dicts``).

    Raises:
        NotMedSP: The log is an Inspect log of some other task.
    """
    header = read_eval_log(str(path), header_only=True)
    if task_metadata(header) is None:
        raise NotMedSP("not a MedSP log: its task metadata has no medsp_judge")
    found = sample_files.sample_dicts(str(path), header, events=events, lean=lean, records=records)
    return ParsedLog(str(path), header, found, events)


def drop_records(parsed: ParsedLog) -> None:
    """Drop the scenario records a parse kept (``parse_log(records=True)``) from its samples,
    as a lean read has none."""
    for sample in parsed.samples or []:
        sample["metadata"].pop(METADATA_KEY, None)


def parsed_run(parsed: ParsedLog, *, require_scores: bool = True) -> MedspRun:
    """The second half of :func:`read_log`: the typed run of a parsed log. Each sample's JSON
    is let go of as soon as it is typed (``parsed.samples`` is empty afterwards), so that a
    log's JSON and its typed samples are not both held whole: a full-set log's JSON is some
    50 MB in the report's process, at the moment its memory peaks.

    Raises:
        NotMedSP: With ``require_scores``, none of the samples has a MedSP score or an error.
    """
    if parsed.samples is None:  # not a zip this reader knows: Inspect's own reader
        skipped = HEAVY_FIELDS - {"events"} if parsed.events else HEAVY_FIELDS
        samples: Iterable[EvalSample] = read_eval_log_samples(
            parsed.path, all_samples_required=False, exclude_fields=set(skipped)
        )
        run = run_of(parsed.header, samples, require_scores=require_scores)
    else:
        given = parsed.samples
        given.reverse()
        typed = []
        while given:
            typed.append(sample_of(given.pop()))
        run = _run(parsed.header, typed, require_scores)
    return run.model_copy(update={"path": parsed.path, "digests": dict(parsed.digests or {})})


def sample_of(data: Mapping[str, Any]) -> MedspSample:
    """The typed view of one logged sample read as plain JSON (:func:`read_sample`'s reading,
    without validating the parts the view does not keep: messages, events, attachments)."""
    scores = {k: Score.model_validate(v) for k, v in (data.get("scores") or {}).items()}
    score = scores.get(SCORER)
    medsp_score = None if score is None else _medsp_score(score, ScoreMetadata.read(score.metadata))
    lean = bool(data.get(LEAN_MARK))
    if score is not None and lean:  # the typed score keeps the items
        kept = {k: v for k, v in (score.metadata or {}).items() if k in LEAN_RAW}
        scores[SCORER] = score.model_copy(update={"metadata": kept})
    store = dict(data.get("store") or {})
    error = data.get("error")
    events = data.get("events")
    sample = MedspSample(
        id=str(data["id"]),
        epoch=int(data.get("epoch") or 1),
        metadata=SampleMetadata.model_validate(data.get("metadata") or {}),
        store=store,
        score=medsp_score,
        error=str(error.get("message")) if isinstance(error, Mapping) else error,
        model_usage={
            k: ModelUsage.model_validate(v) for k, v in (data.get("model_usage") or {}).items()
        },
        role_usage={
            k: ModelUsage.model_validate(v) for k, v in (data.get("role_usage") or {}).items()
        },
        calls=sample_files.model_calls(events) if events else data.get("calls"),
        scores=scores,
    )
    if lean:
        encounter = data.get("encounter")
        sample._recorded = (
            None if encounter is None else RecordedEncounter.model_validate(encounter)
        )
        if medsp_score is not None and medsp_score.metadata.items:
            sample._item_rows = tuple(map(item_row, medsp_score.metadata.items))
            medsp_score.metadata.items = []
    return sample


def _metrics(log: EvalLog) -> dict[str, float] | None:
    if log.results is None:
        return None
    for score in log.results.scores:
        if score.name == SCORER or score.scorer == SCORER:
            return {k: float(m.value) for k, m in score.metrics.items()}
    return None
