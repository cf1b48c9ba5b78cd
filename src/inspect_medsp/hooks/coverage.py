"""What a MedSP run covered, said at its end: "N of M published scenarios scored".

A run is comparable with the published numbers (the paper's, another run of the same task)
only when it scored every published scenario of its task. :class:`RunCoverage` is read from
the finished log (its reduced scores and results), so the end-of-run line counts exactly what
the metrics were computed over.
"""

from __future__ import annotations

import logging

from inspect_ai.hooks import Hooks, TaskEnd, hooks
from inspect_ai.log import EvalLog
from pydantic import BaseModel, Field

from inspect_medsp.data import BASELINE, show_on_console, variant_of_id
from inspect_medsp.record import SCORER, ScoreValue, ShardRecord, TaskMetadata, reduced_samples

logger = logging.getLogger(__name__)


class RunCoverage(BaseModel):
    """How many scenarios a MedSP run scored, of how many its task has as published."""

    name: str
    """The task's dataset name (``MedSP1000``, ``MedSP-Q100``, ``MedSP-demo``)."""
    published: int | None = None
    """Scenarios of the task as published; None for a task of another name."""
    scored: int = 0
    """Scenarios with a score (at least one scored epoch)."""
    unscored: dict[str, str] = Field(default_factory=dict)
    """Scenarios no epoch of which could be scored, with the reason."""
    errored: int = 0
    """Samples (scenario and epoch) that ended in an error and have no score."""
    rubrics_differ: str | None = None
    """How the run's rubrics differ from the published files, if they do."""
    shard: ShardRecord | None = None
    """The part of the selection the run holds (``-T shard=K/N``), None for a whole run."""
    graded: bool = True
    """The rubric scored the run (False for ``inspect eval --no-score``: not scored yet)."""
    location: str = "LOG"
    """The log's location, for the command that grades it."""
    variants: int = 0
    """Scored samples of a patient variant (``-T variants=``), not counted in ``scored``."""

    @property
    def comparable(self) -> bool:
        """Every published scenario scored (or the task has no published size), with the
        published rubrics; for a part, every scenario of the part (the report pools the parts,
        and says whether the run they make is complete). Patient variants do not count: the
        rubric's metrics read the baseline's encounters alone."""
        expected = self.shard.size(self.shard.index) if self.shard else self.published
        complete = expected is None or self.scored >= expected
        return complete and self.rubrics_differ is None

    @classmethod
    def of(cls, log: EvalLog) -> RunCoverage | None:
        """The coverage of a MedSP log, or None for another task's log."""
        metadata = TaskMetadata.read(log.eval.metadata)
        if metadata is None:
            return None
        load = metadata.load
        coverage = cls(
            name=log.eval.dataset.name or log.eval.task,
            published=load.published if load is not None else None,
            rubrics_differ=load.rubrics_differ if load is not None else None,
            shard=metadata.shard,
        )
        coverage.graded = any(r.scorer == SCORER for r in log.reductions or [])
        coverage.location = log.location or "LOG"
        for sample in reduced_samples(log, SCORER):
            if ScoreValue.read(sample.value) is not None:
                if variant_of_id(str(sample.sample_id)) == BASELINE:
                    coverage.scored += 1
                else:
                    coverage.variants += 1
            else:
                coverage.unscored[str(sample.sample_id)] = str(sample.reason or "unknown")
        if log.results is not None:
            coverage.errored = max(0, log.results.total_samples - log.results.completed_samples)
        return coverage

    def parts(self) -> list[str]:
        """The clauses of :meth:`line`, each a count a reader needs."""
        if self.shard is not None:
            of = f" of the part's {self.shard.size(self.shard.index)}"
        else:
            of = f" of {self.published} published" if self.published is not None else ""
        parts = [f"{self.scored}{of} scenarios scored"]
        if self.variants:
            parts.append(f"{self.variants} patient-variant encounter(s) scored")
        if self.unscored:
            parts.append(f"{len(self.unscored)} unscored")
        if self.errored:
            parts.append(f"{self.errored} sample(s) errored")
        return parts

    def line(self) -> str:
        """One line: N of M scenarios scored, what is missing, and whether it is comparable;
        for a run not graded yet (``--no-score``), that it is not scored yet and how to."""
        if not self.graded:
            return (
                f"{self.name}: not scored yet (run with --no-score); grade it with the command "
                'printed alone after "MedSP: grade" at the end of the run'
            )
        head, *rest = self.parts()
        part = f" part {self.shard.part}" if self.shard is not None else ""
        line = f"{self.name}{part}: {head}"
        if rest:
            line += f" ({', '.join(rest)})"
        if self.rubrics_differ is not None:
            line += f"; the rubrics are not the published ones ({self.rubrics_differ})"
        if self.variants:
            line += (
                "; its metrics read the baseline alone (medsp-report compares each variant "
                "with the baseline)"
            )
        if not self.comparable:
            line += "; not comparable with the published numbers"
        elif self.shard is not None:
            line += f"; medsp-report reads the {self.shard.count} parts as one run"
        return line


@hooks(name="medsp_coverage", description="Says how many published MedSP scenarios a run scored.")
class CoverageLine(Hooks):
    """Prints :meth:`RunCoverage.line` when a MedSP task ends: a warning when the run is not
    comparable with the published numbers, else through Inspect's display."""

    async def on_task_end(self, data: TaskEnd) -> None:
        coverage = RunCoverage.of(data.log)
        if coverage is None:
            return
        if not coverage.graded or (
            coverage.comparable and not coverage.unscored and not coverage.errored
        ):
            logger.info(coverage.line())
            show_on_console(coverage.line())
        else:
            logger.warning(coverage.line())
