"""Count a MedSP run's cases for the person in the clinician's chair ("case 2 of 10").

At the task start, the samples the run will play (after ``--limit`` and ``--sample-id``) and
its epochs; at each sample start, its place in the order the cases are played. The screen
reads them through :func:`inspect_medsp.human.frame.case_position`.
"""

from __future__ import annotations

from inspect_ai.hooks import Hooks, SampleStart, TaskStart, hooks

from inspect_medsp.human import case_started, run_started
from inspect_medsp.record import TaskMetadata


@hooks(name="medsp_case_count", description="Counts a MedSP run's cases for a person's screen.")
class CaseCount(Hooks):
    """Keeps the case count of every running MedSP eval."""

    async def on_task_start(self, data: TaskStart) -> None:
        if TaskMetadata.read(data.spec.metadata) is None:
            return
        ids = data.spec.dataset.sample_ids
        samples = len(ids) if ids is not None else data.spec.dataset.samples or 0
        run_started(data.eval_id, samples, data.spec.config.epochs or 1)

    async def on_sample_start(self, data: SampleStart) -> None:
        case_started(data.eval_id, str(data.summary.id), data.summary.epoch)
