"""Where a person is in the run and in the encounter: "case 2 of 3", "turn 4 of 12", and
what their last turn changed.

The case count comes from two Inspect hooks (``hooks/casecount.py``, registered when a MedSP
task is built): the task start gives the samples the run will play (after ``--limit`` and
``--sample-id``) and its epochs, each sample start its place in the order the cases are
played. The turn, its
limit and what changed come from the encounter's own record (the Trajectory in the sample's
store), which the encounter writes before it asks for the next turn.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from inspect_ai.util import store

from inspect_medsp._inspect import sample_active
from inspect_medsp.data import METADATA_KEY, SampleRecord
from inspect_medsp.record import Trajectory


@dataclass
class _Run:
    total: int
    started: dict[tuple[str, int], int] = field(default_factory=dict)


_RUNS: dict[str, _Run] = {}
"""Each running MedSP eval's case count, by Inspect's eval id."""


def run_started(eval_id: str, samples: int, epochs: int) -> None:
    """Note that a run of ``samples`` samples, each ``epochs`` times, began."""
    _RUNS[eval_id] = _Run(total=samples * max(epochs, 1))


def case_started(eval_id: str, sample_id: str, epoch: int) -> None:
    """Note that a case began: it is the run's next case."""
    run = _RUNS.get(eval_id)
    if run is not None:
        run.started.setdefault((sample_id, epoch), len(run.started) + 1)


def case_position(eval_id: str, sample_id: str, epoch: int) -> tuple[int, int] | None:
    """The case's number in the run and the run's number of cases, or None when unknown."""
    run = _RUNS.get(eval_id)
    if run is None or (sample_id, epoch) not in run.started:
        return None
    return run.started[(sample_id, epoch)], run.total


@dataclass(frozen=True)
class TurnFrame:
    """The encounter so far, as the person's screen frames the next turn."""

    turn: int
    """The turn asked for."""
    limit: int | None
    """The encounter's turn limit (None when the record has none)."""
    stage_done: bool
    """The person said last turn that the stage was done."""
    stage_moved: bool
    """The last turn moved the case to another stage."""
    stage: str
    """The stage now."""
    status_changed: bool
    """The patient's status differs from before the last turn."""
    index: int = 0
    """The stage's progress index now (0 for the first stage)."""

    def where(self, title: str = "") -> str:
        """The line under the header: the stage now, as a clinician model reads it
        (``Current stage: <label>``; the model is told no stage number and no case title),
        after the case's title when ``title`` is given (practice only: ``-M title=true``)."""
        stage = f"Current stage: {self.stage}"
        return f"{title} · {stage}" if title else stage

    def changes(self) -> str:
        """What the last turn changed, in words (empty on the first turn)."""
        if self.turn == 1:
            return ""
        if self.stage_moved:
            stage = f"The case moved on to the stage {self.stage}."
            if self.stage_done:
                stage = f"You said the stage was done: {stage[0].lower()}{stage[1:]}"
        elif self.stage_done:
            stage = (
                f"You said the stage was done, but the case stays at {self.stage} "
                "(the environment did not move it on)."
            )
        else:
            stage = f"The stage is still {self.stage}."
        status = (
            " The patient's status has changed."
            if self.status_changed
            else " The patient's status is as it was."
        )
        return stage + status


def turn_frame(turn: int) -> TurnFrame:
    """The frame of turn ``turn`` of the running sample's encounter."""
    traj = Trajectory(store=store())
    turns = traj.turns
    limit = traj.max_turns or None
    if not turns or turn == 1:
        return TurnFrame(turn, limit, False, False, traj.state_label, False, traj.progress_index)
    last = turns[-1]
    index, label, status = last.end_state
    return TurnFrame(
        turn=turn,
        limit=limit,
        stage_done=last.clinician.eos,
        stage_moved=(index, label) != (last.progress_index, last.state_label),
        stage=label,
        status_changed=_status(status) != _status(last.patient_status),
        index=index,
    )


def case_title(metadata: dict[str, object] | None = None) -> str:
    """The running case's title from its metadata (``scenario_title``, else ``title``), or
    empty when it has none; ``metadata`` is the sample's (default: the running sample's)."""
    if metadata is None:
        active = sample_active()
        metadata = dict(active.sample.metadata or {}) if active is not None else {}
    carried = metadata.get(METADATA_KEY)
    if not isinstance(carried, dict):
        return ""
    scenario = SampleRecord.model_validate(carried).scenario
    return scenario.metadata.get("scenario_title") or scenario.metadata.get("title", "")


def _status(text: str) -> str:
    """A status compared for meaning: case, spacing and closing punctuation folded away."""
    return " ".join(text.casefold().split()).rstrip(".;")
