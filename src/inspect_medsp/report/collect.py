"""Find Inspect logs and read the MedSP runs out of them (Inspect's log API only)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from inspect_ai.log import (
    EvalLog,
    EvalSample,
    list_eval_logs,
    read_eval_log,
    read_eval_log_samples,
)

from inspect_medsp.data.scenarios import CASE_META_FIELDS
from inspect_medsp.encounter.records import Trajectory
from inspect_medsp.report.models import (
    ROLES,
    ItemOutcome,
    Problem,
    RoleHealth,
    RunLog,
    SampleResult,
)
from inspect_medsp.scoring.metrics import KEYS, value_rows

SCORER = "medsp_rubric"
"""The name of the MedSP score in ``sample.scores`` and ``log.results.scores``."""

SKIPPED_FIELDS = {"messages", "events", "attachments"}
"""Sample fields the report never needs (the bulk of a log)."""


class NotMedSP(ValueError):
    """A readable Inspect log that is not a MedSP run."""


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
    """One MedSP run: the header's identity and metrics, then every sample.

    Raises:
        NotMedSP: The log is an Inspect log of some other task.
    """
    header = read_eval_log(path, header_only=True)
    metadata = header.eval.metadata or {}
    if "medsp_judge" not in metadata:
        raise NotMedSP("not a MedSP log: its task metadata has no medsp_judge")
    samples = [
        read_sample(s)
        for s in read_eval_log_samples(
            path, all_samples_required=False, exclude_fields=SKIPPED_FIELDS
        )
    ]
    if samples and not any(s.scored for s in samples) and not all(s.error for s in samples):
        raise NotMedSP(f"not a MedSP log: no sample has a {SCORER} score")
    strategy = metadata.get("medsp_strategy") or {}
    return RunLog(
        path=path,
        name=Path(path).name,
        task=header.eval.task,
        created=str(header.eval.created),
        status=header.status,
        clinician=header.eval.model,
        strategy=str(strategy.get("strategy", "off")) if isinstance(strategy, dict) else "off",
        protocol=str(metadata.get("medsp_protocol", "turns")),
        judge=_judge(header, samples, str(metadata["medsp_judge"])),
        data_revision=metadata.get("data_revision"),
        rubric_revision=metadata.get("rubric_revision"),
        metrics=_metrics(header),
        samples=samples,
    )


def _judge(header: EvalLog, samples: list[SampleResult], default: str) -> str:
    """The grader the samples name, else the grader role given, else the task's judge."""
    graders = sorted({s.grader for s in samples if s.grader})
    if graders:
        return " + ".join(graders)
    role = (header.eval.model_roles or {}).get("grader")
    if isinstance(role, list):
        role = role[0] if role else None
    return role.model if role is not None else default


def _metrics(header: EvalLog) -> dict[str, float] | None:
    if header.results is None:
        return None
    for score in header.results.scores:
        if score.name == SCORER or score.scorer == SCORER:
            return {k: float(m.value) for k, m in score.metrics.items()}
    return None


def read_sample(sample: EvalSample) -> SampleResult:
    """The numbers the report needs from one sample."""
    metadata = sample.metadata or {}
    traj = Trajectory.of(sample.store)
    result = SampleResult(
        id=str(sample.id),
        epoch=sample.epoch,
        case_id=str(metadata.get("case_id", str(sample.id).split("/")[0])),
        specialty=_text_or_none(metadata.get("specialty")),
        specialty_source=_text_or_none(metadata.get("specialty_source")),
        case_meta={k: str(metadata[k]) for k in CASE_META_FIELDS if metadata.get(k)},
        clinician_input_tokens=_clinician_input(sample),
        error=sample.error.message if sample.error is not None else None,
        end=traj.end if traj else None,
        turns=traj.turn_count if traj else None,
        health=_health(traj),
        tokens=_tokens(sample),
    )
    score = (sample.scores or {}).get(SCORER)
    if score is None:
        return result
    meta: dict[str, Any] = score.metadata or {}
    if not isinstance(score.value, Mapping):
        result.unscored = str(score.reason or meta.get("unscored") or "unscored")
        return result
    result.scored = True
    rows = value_rows(score.value)
    result.values = {
        k: float(v) for k, v in score.value.items() if k in KEYS and isinstance(v, int | float)
    }
    result.counts = {k: (round(r.completed), round(r.total)) for k, r in rows.items()} or {
        str(k): (int(c["completed"]), int(c["total"]))
        for k, c in (meta.get("counts") or {}).items()
    }
    result.items = [ItemOutcome.model_validate(i) for i in meta.get("items") or []]
    result.unjudged = int(meta.get("unjudged", sum(not i.judged for i in result.items)))
    result.grader = _text_or_none(meta.get("grader"))
    result.end = result.end or _text_or_none(meta.get("end"))
    result.turns = result.turns if result.turns is not None else _int_or_none(meta.get("turns"))
    return result


def _health(traj: Trajectory | None) -> dict[str, RoleHealth]:
    if traj is None:
        return {}
    return {
        role: RoleHealth.model_validate(h.model_dump())
        for role, h in traj.health.items()
        if role in ROLES
    }


def _tokens(sample: EvalSample) -> dict[str, int]:
    """Tokens by role; the clinician (the model without a role) is the rest of the total."""
    roles = {role: usage.total_tokens for role, usage in (sample.role_usage or {}).items()}
    everything = sum(u.total_tokens for u in (sample.model_usage or {}).values())
    if everything or roles:
        roles.setdefault("clinician", max(0, everything - sum(roles.values())))
    return roles


def _clinician_input(sample: EvalSample) -> int | None:
    """Input tokens of the model without a role (the clinician): all models' less the roles'.

    None when the log records no model usage for the sample.
    """
    if not sample.model_usage:
        return None

    def read(usage: Any) -> int:
        cached = (usage.input_tokens_cache_read or 0) + (usage.input_tokens_cache_write or 0)
        return int(usage.input_tokens) + int(cached)

    everything = sum(read(u) for u in sample.model_usage.values())
    roles = sum(read(u) for u in (sample.role_usage or {}).values())
    return max(0, everything - roles)


def _text_or_none(value: Any) -> str | None:
    return None if value is None or value == "" else str(value)


def _int_or_none(value: Any) -> int | None:
    return int(value) if isinstance(value, int | float) else None
