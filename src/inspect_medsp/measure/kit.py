"""The skeleton every MedSP scorer over the record shares: what a slice's scorer writes is only
what it measures.

A :class:`Kit` is made with the scorer's name, the word for what it does to a sample
("scored", "audited") and the model role it grades with (None for a scorer that asks no
model). When the scorer is made, :meth:`Kit.check` checks its ``-S`` parameters and, under
``inspect score``, that the log is a MedSP log and that its graders can be made here (one line
before anything is graded). For each sample, :meth:`Kit.read` gives the sample's record, its
stored Trajectory and the re-score number (or the unscored score of a sample that is not a
MedSP encounter); :meth:`Kit.unscored` says why a sample has no score; :meth:`Kit.grading`
runs a grading as a named subtask; :meth:`Kit.metered` measures its tokens;
:meth:`Kit.numbered` numbers a re-score's value keys; and :meth:`Kit.headlined` keeps the
value to the headlines the samples grid shows, every figure in the metadata.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, TypeVar

from inspect_ai.scorer import Score
from inspect_ai.solver import TaskState
from inspect_ai.util import Store
from pydantic import BaseModel, ConfigDict, ValidationError

from inspect_medsp.data import METADATA_KEY, SampleRecord
from inspect_medsp.measure.grading import grading
from inspect_medsp.measure.metering import Meter, metered
from inspect_medsp.measure.rescore import check_scorer
from inspect_medsp.record import FIGURES, Trajectory, numbered, rescore_number

M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")
V = TypeVar("V")


class NoParameters(BaseModel):
    """The parameters of a scorer that takes none."""

    model_config = ConfigDict(extra="forbid")


def unscored_score(reason: str, why: str, metadata: Mapping[str, Any], not_done: str) -> Score:
    """Inspect's unscored score for a sample, from any MedSP scorer: ``Not <not_done>
    (<reason>): <why>`` shown, and the reason and why kept in the metadata (``unscored``,
    ``unscored_why``) beside ``metadata``; counted as unscored, never as 0."""
    return Score.unscored(
        reason=reason,
        explanation=f"Not {not_done} ({reason}): {why}",
        metadata={**metadata, "unscored": reason, "unscored_why": why},
    )


@dataclass(frozen=True)
class Encounter:
    """What a scorer reads of one sample: its record, its stored Trajectory, and which score
    of this scorer it is making (0 the first, N for the re-score ``<scorer>N``)."""

    record: SampleRecord
    trajectory: Trajectory
    number: int


@dataclass(frozen=True)
class Kit:
    """The checked skeleton of one MedSP scorer.

    Args:
        name: The scorer's name: its key in ``sample.scores`` and ``--scorer
            inspect_medsp/<name>``.
        verb: What it does to a sample, for "Not <verb> (<reason>): <why>".
        role: The model role it grades with (``grader``, ``auditor``); None when it asks no
            model.
        task_key: The task metadata key that marks the logs it reads, for a measurement
            with a task of its own (``medsp_contamination``); None: a benchmark task's log.
    """

    name: str
    verb: str
    role: str | None = None
    task_key: str | None = None

    def check(
        self,
        model: type[M],
        values: Mapping[str, Any],
        accepted: Mapping[str, str],
        unknown: Mapping[str, Any] | None = None,
        sends_to: Mapping[str, str | None] | None = None,
    ) -> M:
        """The scorer's parameters checked by ``model`` (``accepted``: what each takes, in
        words); under ``inspect score``, the log and its graders too (``sends_to``: models it
        sends a sample's content to beyond its role's, by ``-S`` parameter), and that a set
        with identifier findings would not leave this machine.

        Raises:
            MedSPDataError: One line naming the parameter, log or model at fault.
        """
        return check_scorer(
            self.name,
            model,
            values,
            accepted,
            self.role,
            unknown,
            task_key=self.task_key,
            sends_to=sends_to,
        )

    def check_none(self, unknown: Mapping[str, Any] | None = None) -> None:
        """The checks of a scorer that takes no parameters: none given, and under ``inspect
        score`` a MedSP log."""
        self.check(NoParameters, {}, {}, unknown)

    def read(self, state: TaskState) -> Encounter | Score:
        """The sample's record and stored Trajectory (read from a copy of the store, which
        stays as logged), and this score's re-score number; the unscored score
        (``not_medsp``) of a sample that holds no MedSP encounter."""
        stored = state.metadata.get(METADATA_KEY)
        try:
            record = SampleRecord.model_validate(stored)
        except ValidationError:
            why = (
                f"sample {state.sample_id} holds no MedSP encounter (its metadata has no "
                f"valid {METADATA_KEY!r} record): {self.name} scores the logs of MedSP tasks"
            )
            return self.unscored(reason="not_medsp", why=why, metadata={})
        # a copy: a Trajectory made on a store writes its fields' defaults into it, so reading
        # an older log's encounter in place would change the sample's store
        return Encounter(
            record=record,
            trajectory=Trajectory(store=Store(dict(state.store.items()))),
            number=rescore_number(self.name, state.scores or {}),
        )

    def unscored(self, reason: str, why: str, metadata: Mapping[str, Any]) -> Score:
        """Inspect's unscored score with ``why`` (see :func:`unscored_score`)."""
        return unscored_score(reason, why, metadata, self.verb)

    async def grading(
        self,
        name: str,
        work: Callable[[], Awaitable[T]],
        about: Mapping[str, str],
        outcome: Callable[[T], str],
    ) -> T:
        """One grading, run as the Inspect subtask ``name`` (see
        :func:`inspect_medsp.measure.grading.grading`)."""
        return await grading(name, work, about, outcome)

    def metered(self) -> AbstractContextManager[Meter]:
        """Measure the model calls made inside the block, per role."""
        return metered()

    @staticmethod
    def numbered(value: Mapping[str, V], number: int) -> dict[str, V]:
        """A value's keys as re-score ``number`` stores them (``findings_1``); unchanged for
        the first score."""
        return numbered(value, number)

    @staticmethod
    def headlined(
        figures: Mapping[str, V], headlines: Sequence[str], number: int
    ) -> tuple[dict[str, V], dict[str, dict[str, V]]]:
        """The value and the metadata entry of a score whose figures are ``figures``: the
        value holds the ``headlines`` alone (``inspect view``'s samples grid shows every value
        key as a column), the metadata's ``figures`` every one; both numbered as re-score
        ``number``. The MedSP epoch reducer takes the mean of the figures."""
        value = {key: figures[key] for key in headlines if key in figures}
        return numbered(value, number), {FIGURES: numbered(figures, number)}
