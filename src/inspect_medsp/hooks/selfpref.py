"""Self-preference: say so when the grader may be marking its own model's work.

LLM judges are known to favour answers from themselves and from models of their own family.
The check is on model names: the same model, or the same provider family (the part before the
first ``/``, e.g. ``openai/``). It is printed at the end of a MedSP run and in the reports.
Inspect's ``mockllm`` provider and this package's ``medsp/scripted`` demo are no model family
(their replies are written by hand), so they are never flagged. The rule itself,
:func:`self_preference`, is a fact about which model graded and lives in ``record/grader.py``;
this module warns with it when a run ends.
"""

from __future__ import annotations

import logging

from inspect_ai.hooks import Hooks, TaskEnd, hooks
from inspect_ai.log import EvalLog

from inspect_medsp.record import NotMedSP, run_of, self_preference

logger = logging.getLogger(__name__)


def self_preference_lines(log: EvalLog) -> list[str]:
    """The self-preference warnings of a MedSP log (none for another task's log)."""
    try:
        run = run_of(log, require_scores=False)
    except NotMedSP:
        return []
    lines = [self_preference(run.model, grader) for grader in run.graders]
    return [f"MedSP: {line}" for line in lines if line]


@hooks(name="medsp_self_preference", description="Warns when a MedSP grader grades its own kind.")
class SelfPreferenceWarning(Hooks):
    """Logs :func:`self_preference_lines` as warnings when a MedSP task ends."""

    async def on_task_end(self, data: TaskEnd) -> None:
        for line in self_preference_lines(data.log):
            logger.warning(line)
