"""Find Inspect logs and read the MedSP runs out of them (through ``inspect_medsp.record``)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from inspect_ai.log import list_eval_logs
from inspect_ai.model import ModelUsage

from inspect_medsp.record.read import CLINICIAN, MedspRun, MedspSample, NotMedSP, read_log
from inspect_medsp.record.score import KEYS
from inspect_medsp.record.trajectory import ROLE_NAMES
from inspect_medsp.report.models import Problem, RunLog, SampleResult
from inspect_medsp.scoring.metrics import value_rows

NOT_SCORED = "no_score"
"""The unscored reason of a sample that has no MedSP score at all (a run with ``--no-score``:
score it with ``inspect score LOG --scorer inspect_medsp/medsp_rubric``)."""


def find_logs(inputs: Iterable[str | Path]) -> tuple[list[str], list[Problem]]:
    """Expand files and folders into log files, oldest first; unusable inputs as problems."""
    found: list[str] = []
    problems: list[Problem] = []
    for item in inputs:
        path = Path(item)
        if path.is_dir():
            try:
                infos = list_eval_logs(str(path), recursive=True, descending=False)
            except Exception as err:
                problems.append(Problem(path=str(path), message=f"cannot list logs: {err}"))
                continue
            if not infos:
                message = "no Inspect logs in this folder (.eval, or .json with Inspect's names)"
                problems.append(Problem(path=str(path), message=message))
            found += [_local(info.name) for info in infos]
        elif path.is_file():
            found.append(str(path))
        else:
            problems.append(Problem(path=str(path), message="no such file or folder"))
    unique = list(dict.fromkeys(found))
    return unique, problems


def _local(name: str) -> str:
    return name.removeprefix("file://")


def collect(inputs: Iterable[str | Path]) -> tuple[list[RunLog], list[Problem]]:
    """Read every MedSP run under ``inputs``; anything else becomes a one-line problem."""
    paths, problems = find_logs(inputs)
    runs: list[RunLog] = []
    for path in paths:
        try:
            runs.append(read_run(path))
        except NotMedSP as err:
            problems.append(Problem(path=path, message=str(err)))
        except Exception as err:
            problems.append(
                Problem(
                    path=path, message=f"not a readable Inspect log ({type(err).__name__}: {err})"
                )
            )
    return runs, problems


def read_run(path: str) -> RunLog:
    """One MedSP run: the header's identity and metrics, then every sample. A MedSP run with
    nothing scored (or not scored at all) is read too: the report shows it as unhealthy.

    Raises:
        NotMedSP: The log is an Inspect log of some other task.
    """
    return run_log(read_log(path, require_scores=False))


def run_log(run: MedspRun) -> RunLog:
    """What the report needs of one typed run."""
    meta = run.task_metadata
    return RunLog(
        path=run.path,
        name=run.name,
        task=run.task,
        created=run.created,
        status=run.status,
        clinician=run.model,
        strategy=meta.strategy_name,
        protocol=meta.protocol,
        judge=run.grader,
        data_revision=meta.data_revision,
        rubric_revision=meta.rubric_revision,
        metrics=run.metrics,
        published=meta.load.published if meta.load is not None else None,
        samples=[sample_result(s) for s in run.samples],
    )


def sample_result(sample: MedspSample) -> SampleResult:
    """The numbers the report needs from one sample."""
    traj = sample.trajectory
    score = sample.score
    meta = score.metadata if score is not None else None
    result = SampleResult(
        id=sample.id,
        epoch=sample.epoch,
        case_id=sample.case_id,
        specialty=sample.metadata.specialty or None,
        specialty_source=sample.metadata.specialty_source or None,
        case_meta=sample.metadata.case_meta(),
        clinician_input_tokens=_clinician_input(sample),
        error=sample.error,
        end=traj.end if traj else (meta.end or None if meta else None),
        turns=traj.turn_count if traj else (meta.turns if meta else None),
        refused_turns=traj.refused_turns if traj else 0,
        turn_seconds=[t.clinician_seconds for t in traj.turns if t.clinician_seconds is not None]
        if traj
        else [],
        health={r: h for r, h in traj.health.items() if r in ROLE_NAMES} if traj else {},
        tokens=_tokens(sample),
        grader=meta.grader or None if meta else None,
    )
    if score is None or meta is None:
        if sample.error is None:
            result.unscored = NOT_SCORED
        return result
    if score.value is None:
        result.unscored = score.reason
        return result
    rows = value_rows(score.value)
    result.scored = True
    result.values = {k: v for k in KEYS for v in [score.value.completion(k)] if v is not None}
    result.counts = {k: (round(r.completed), round(r.total)) for k, r in rows.items()} or {
        k: (c.completed, c.total) for k, c in meta.counts.items()
    }
    result.items = meta.items
    result.unjudged = meta.unjudged
    return result


def _tokens(sample: MedspSample) -> dict[str, int]:
    """Tokens by role; the clinician (the model without a role) is the rest of the total."""
    roles = {role: usage.total_tokens for role, usage in sample.role_usage.items()}
    everything = sum(u.total_tokens for u in sample.model_usage.values())
    if everything or roles:
        roles.setdefault(CLINICIAN, max(0, everything - sum(roles.values())))
    return roles


def _clinician_input(sample: MedspSample) -> int | None:
    """Input tokens of the model without a role (the clinician): all models' less the roles'.

    None when the log records no model usage for the sample.
    """
    if not sample.model_usage:
        return None

    def read(usage: ModelUsage) -> int:
        cached = (usage.input_tokens_cache_read or 0) + (usage.input_tokens_cache_write or 0)
        return int(usage.input_tokens) + int(cached)

    everything = sum(read(u) for u in sample.model_usage.values())
    roles = sum(read(u) for u in sample.role_usage.values())
    return max(0, everything - roles)
