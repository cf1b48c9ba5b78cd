"""The Trajectory holds each fact once: the views come from the turns, the demo records what
it recorded before, and a log written before the change reads and re-scores the same."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from inspect_ai import eval
from inspect_ai import score as inspect_score
from inspect_ai.event import SpanEndEvent, StoreEvent, SubtaskEvent
from inspect_ai.log import EvalSample

from inspect_medsp import medsp_demo
from inspect_medsp.encounter.solver import TURN_SPAN
from inspect_medsp.record import LEGACY_VIEWS, Trajectory, render_record
from inspect_medsp.record.score import DECIMALS, KEYS, ScoreValue
from inspect_medsp.scoring import medsp_rubric
from tests.support.metrics import scored

SCRIPTED = "medsp/scripted"
FIXTURE = Path(__file__).parent / "fixtures" / "legacy_trajectory.json"
"""A store the scripted demo wrote before the views stopped being stored, with the record its
grader read and the score it gave."""


def turn_span_store_changes(sample: EvalSample) -> list[str]:
    """The store paths changed by store events logged inside a turn's span (the span of a
    subtask of type ``TURN_SPAN``)."""
    open_turns: set[str] = set()
    changed: list[str] = []
    for event in sample.events:
        if isinstance(event, SubtaskEvent) and event.type == TURN_SPAN and event.span_id:
            open_turns.add(event.span_id)
        elif isinstance(event, SpanEndEvent):
            open_turns.discard(event.id)
        elif isinstance(event, StoreEvent) and event.span_id in open_turns:
            changed += [change.path for change in event.changes]
    return changed


def assert_same_record(record: str, before: str) -> None:
    """``record`` tells the grader what ``before`` (the record as older versions rendered it,
    with a separate action log) told it: every transcript line, each action with its status,
    interpretation and rationale on its line, and the same ending."""
    transcript, _, rest = before.partition("\n\nACTION LOG")
    log, _, tail = rest.partition("\n\n")
    lines = record.splitlines()
    assert lines[0].startswith("TRANSCRIPT")
    assert record.endswith("\n\n" + tail)
    body = [line for line in lines[1:] if line][: len(transcript.splitlines()) - 1]
    old_lines = transcript.splitlines()[1:]
    actions = iter(log.splitlines()[1:])
    for line, was in zip(body, old_lines, strict=True):
        if not was.startswith("Clinician action: "):
            assert line == was
            continue
        raw, interpreted, status, rationale = next(actions).split(": ", 1)[1].split(" | ")
        assert raw == was.removeprefix("Clinician action: ")
        reading = [status] + ([f"interpreted as {interpreted}"] if interpreted != raw else [])
        assert line == f"{was} [{'; '.join([*reading, rationale])}]"
    assert next(actions, None) is None


def legacy() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(FIXTURE.read_text(encoding="utf-8"))
    return data


def test_an_older_store_reads_as_it_was_graded() -> None:
    old = legacy()
    store = old["store"]
    traj = Trajectory.of(store)
    assert traj is not None
    assert_same_record(render_record(traj), old["record"])
    assert [e.model_dump(mode="json") for e in traj.transcript] == store["Trajectory:transcript"]
    assert [a.model_dump(mode="json") for a in traj.action_log] == store["Trajectory:action_log"]
    assert traj.state_history == store["Trajectory:state_history"]
    for name in ("turn_count", "progress_index", "state_label", "patient_status"):
        assert getattr(traj, name) == store[f"Trajectory:{name}"], name
    # the views computed from the turns alone agree with the copies the old log stored (the
    # transcript too, except who said a companion's line: old turns do not record that)
    turns_only = Trajectory.of(
        {k: v for k, v in store.items() if k.split(":", 1)[1] not in LEGACY_VIEWS}
    )
    assert turns_only is not None
    assert turns_only.action_log == traj.action_log
    assert turns_only.state_history == traj.state_history
    assert [(e.turn, e.kind) for e in turns_only.transcript] == [
        (e.turn, e.kind) for e in traj.transcript
    ]
    assert any(e.speaker == "Rob" for e in traj.transcript)


def test_the_demo_records_the_same_encounter_and_an_old_log_rescores_the_same(
    log_dir: str,
) -> None:
    old = legacy()
    [log] = eval(
        medsp_demo(scenarios=old["sample"].split("/")[0] + "/*", judge=SCRIPTED),
        model=SCRIPTED,
        log_dir=log_dir,
        display="none",
    )
    assert log.samples is not None
    [sample] = log.samples
    new = Trajectory.of(sample.store)
    stored = Trajectory.of(old["store"])
    assert new is not None and stored is not None and new.transcript == stored.transcript
    assert render_record(new) == render_record(stored)
    assert_same_record(render_record(new), old["record"])
    assert not any(f"Trajectory:{view}" in sample.store for view in LEGACY_VIEWS)
    # each turn is written once, when complete: after its span, so no turn span logs a change
    # of the record, and the whole encounter is one store change of the solver
    assert not turn_span_store_changes(sample)
    assert sum(isinstance(e, StoreEvent) for e in sample.events) <= 2
    assert sample.scores is not None
    # the same numbers, with the figures of what the clinician's provider did (nothing here)
    # (score schema 3 stores each completion to three decimals; read from the counts, every
    # completion is the old one exactly)
    stops = {"context_exhausted": 0, "refused_turns": 0}
    expected = {k: round(v, DECIMALS) if k in KEYS else v for k, v in old["score"].items()}
    figures = (sample.scores["medsp_rubric"].metadata or {})["figures"]
    assert figures == expected | stops
    assert sample.scores["medsp_rubric"].value == {"overall": expected["overall"]}
    now = ScoreValue.read(figures)
    assert now is not None
    assert {k: now.completion(k) for k in KEYS if k in old["score"]} == {
        k: v for k, v in old["score"].items() if k in KEYS
    }

    # the same log with the store as the old version wrote it, scored again
    old_log = log.model_copy(
        update={"samples": [sample.model_copy(update={"store": old["store"]})]}
    )
    rescored = inspect_score(
        old_log, scorers=[medsp_rubric(judge=SCRIPTED)], action="overwrite", display="none"
    )
    assert rescored.samples is not None
    score = scored(rescored.samples[0])
    assert (score.metadata or {})["figures"] == expected | stops


def test_a_store_without_an_encounter_has_no_trajectory() -> None:
    assert Trajectory.of(None) is None
    assert Trajectory.of({}) is None
    assert Trajectory.of({"SpecialtyVerdict": {"label": "x"}}) is None
