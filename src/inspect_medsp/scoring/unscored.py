"""Say loudly, at the end of a run, which MedSP samples could not be scored and why."""

from __future__ import annotations

import logging

from inspect_ai.hooks import Hooks, TaskEnd, hooks
from inspect_ai.log import EvalLog

from inspect_medsp.record.score import SCORER, ScoreValue

RE_GRADE = "inspect score {log} --scorer inspect_medsp/medsp_rubric"
RE_RUN = "inspect eval {task} --sample-id {ids}"

logger = logging.getLogger(__name__)


def unscored_line(log: EvalLog) -> str | None:
    """One line naming every sample of a MedSP log whose score is unscored, or None.

    Reads the log's reduced scores: a sample none of whose epochs could be scored, and a
    sample with some unscored epochs (named with how many).
    """
    missing: dict[str, str] = {}
    partly: list[str] = []
    for reduction in log.reductions or []:
        if reduction.scorer != SCORER:
            continue
        for sample in reduction.samples:
            value = ScoreValue.read(sample.value)
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
    if regrade or partly:
        parts.append("re-grade: " + RE_GRADE.format(log=location))
    if rerun:
        parts.append("re-run: " + RE_RUN.format(task=log.eval.task, ids=",".join(rerun)))
    return "; ".join(parts)


@hooks(name="medsp_unscored", description="Names the MedSP samples that could not be scored.")
class UnscoredWarning(Hooks):
    """Logs :func:`unscored_line` as a warning when a MedSP task ends."""

    async def on_task_end(self, data: TaskEnd) -> None:
        line = unscored_line(data.log)
        if line is not None:
            logger.warning(line)
