"""A MedSP log typed: its run (:class:`MedspRun`), and what a reader raises for an Inspect log
of another task (:class:`NotMedSP`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from inspect_medsp.data import CaseSet, published_set
from inspect_medsp.record.grader import graders_named
from inspect_medsp.record.sample import MedspSample
from inspect_medsp.record.task import TaskMetadata


class NotMedSP(ValueError):
    """A readable Inspect log that is not a MedSP run."""


class MedspRun(BaseModel):
    """One MedSP log: how the run was set up, its metrics, and its samples."""

    path: str
    task: str
    created: str
    status: str
    model: str
    """The model under test (the clinician)."""
    grader_role: str | None = None
    """The model bound to the ``grader`` role for the run, if one was."""
    task_metadata: TaskMetadata
    metrics: dict[str, float] | None = None
    """The log's own metrics of the MedSP score (None if it has none)."""
    epochs: int | None = None
    """The epochs the eval was run with (``--epochs``; None when its header has none)."""
    samples: list[MedspSample] = Field(default_factory=list)
    digests: dict[str, Any] = Field(default_factory=dict, exclude=True)
    """What a reader asked to be made of each sample while the log was parsed (the report's
    sections, by name: see ``report.collect``), before the parts it needed were dropped."""

    @property
    def name(self) -> str:
        return Path(self.path).name

    @property
    def strategy(self) -> str:
        return self.task_metadata.strategy_name

    @property
    def protocol(self) -> str:
        return self.task_metadata.protocol

    @property
    def published(self) -> int | None:
        """Scenarios of the run's task as published (None for a task of another name)."""
        load = self.task_metadata.load
        return load.published if load is not None else None

    @property
    def rubrics_differ(self) -> str | None:
        """How the run's rubric copy differs from the published files (None: it does not)."""
        load = self.task_metadata.load
        return load.rubrics_differ if load is not None else None

    @property
    def case_set(self) -> CaseSet:
        """The set of cases the run ran: as recorded, else (a log written before the set was
        recorded) read from the dataset's name, ``custom: <folder>, N cases`` for a custom set."""
        load = self.task_metadata.load
        if load is not None and load.case_set is not None:
            return load.case_set
        name = load.name if load is not None else self.task
        if name.startswith("custom: "):
            folder = name.removeprefix("custom: ").rsplit(", ", 1)[0]
            return CaseSet(kind="custom", name=folder)
        meta = self.task_metadata
        return published_set(name, meta.data_revision, meta.rubric_revision)

    @property
    def label(self) -> str:
        """The run as a reader knows it: clinician model, strategy and judge (not the file)."""
        parts = [self.model, f"strategy {self.strategy}"]
        if self.protocol != "turns":
            parts.append(f"protocol {self.protocol}")
        parts.append(f"judge {self.grader}")
        return ", ".join(parts)

    @property
    def scenario_ids(self) -> set[str]:
        """Every scenario the run attempted."""
        return {s.id for s in self.samples}

    @property
    def scored_ids(self) -> set[str]:
        """The scenarios with a rubric score."""
        return {s.id for s in self.samples if s.scored}

    @property
    def graders(self) -> list[str]:
        """Every model that graded the run (see ``record.grader``)."""
        return graders_named(
            (s.grader for s in self.samples), self.grader_role, self.task_metadata.judge
        )

    @property
    def grader(self) -> str:
        """The graders as one label (``a + b`` when they differ between samples)."""
        return " + ".join(self.graders)
