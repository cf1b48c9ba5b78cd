"""What a reader of a MedSP sample in ``inspect view`` meets: each turn's summary before its raw
model calls (which fold under it), the sample header's scores in the grid's order under the
grid's names, and where an appended scorer's tokens are (Inspect leaves them out of usage)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from inspect_ai import Task, eval, score
from inspect_ai.event import InfoEvent, ModelEvent, SpanBeginEvent, SubtaskEvent
from inspect_ai.log import EvalLog, EvalSample, resolve_sample_attachments
from inspect_ai.util import Store
from inspect_ai.viewer import TaskSamplesView, ViewerConfig

from inspect_medsp import Trajectory, medsp_demo
from inspect_medsp.encounter.solver import TURN_SPAN
from inspect_medsp.encounter.summary import turn_summary, turn_view
from inspect_medsp.measure.metering import rescored_spend, spend_of
from inspect_medsp.probes import medsp_grader_probe
from inspect_medsp.record.read import rescored_usage
from tests.support.metrics import scored

SCRIPTED = "medsp/scripted"
README = Path(__file__).parents[1] / "README.md"


@pytest.fixture(scope="module")
def probed(tmp_path_factory: pytest.TempPathFactory) -> EvalLog:
    """The scripted demo, then the recital probe appended as ``inspect score`` appends it."""
    [log] = eval(
        medsp_demo(judge=SCRIPTED),
        model=SCRIPTED,
        log_dir=str(tmp_path_factory.mktemp("logs")),
        display="none",
    )
    assert log.status == "success", log.error
    return score(
        log, [medsp_grader_probe(judge=SCRIPTED, probes="recital")], action="append",
        display="none",
    )  # fmt: skip


def samples(log: EvalLog) -> list[EvalSample]:
    assert log.samples is not None
    return [resolve_sample_attachments(s) for s in log.samples]


def test_each_turn_opens_with_its_summary_and_folds_its_calls(probed: EvalLog) -> None:
    # the encounter's numbers are those of the demo
    assert probed.results is not None
    assert round(probed.results.scores[0].metrics["macro"].value, 3) == 0.706
    assert [str(scored(s).answer) for s in samples(probed)] == [
        "12/17 items", "11/17 items", "13/17 items",
    ]  # fmt: skip
    for sample in samples(probed):
        traj = Trajectory(store=Store(sample.store))
        turns = [e for e in sample.events if isinstance(e, SubtaskEvent) and e.type == TURN_SPAN]
        assert [t.name for t in turns] == [f"turn {n}" for n in range(1, traj.turn_count + 1)]
        # the first thing after the roles line is turn 1's subtask, not a model call
        first = next(
            e for e in sample.events if isinstance(e, ModelEvent | SubtaskEvent | InfoEvent)
            and not (isinstance(e, InfoEvent) and str(e.data).startswith("MedSP roles"))
        )  # fmt: skip
        assert first is turns[0]
        for subtask, turn in zip(turns, traj.turns, strict=True):
            inside = [
                e for e in sample.events
                if e.span_id == subtask.span_id and not isinstance(e, SpanBeginEvent)
            ]  # fmt: skip
            # the subtask's event comes first in its span: the viewer shows it above the
            # calls, which it folds (Inspect's viewer starts every subtask folded)
            assert inside[0] is subtask
            calls = [e for e in inside if isinstance(e, ModelEvent)]
            assert [c.role for c in calls] == ["clinician", "patient", "environment"]
            # input: where the turn starts; output: the turn's summary, whole
            assert subtask.input == {
                "stage": f"{turn.progress_index} `{turn.state_label}`",
                "patient status": turn.patient_status,
            }
            assert subtask.result == turn_view(turn)
            assert set(subtask.result) >= {"patient side said", "came back", "patient status"}
            # the one-text summary is kept, after the calls, for what reads it
            [info] = [e for e in inside if isinstance(e, InfoEvent)]
            assert info.data == turn_summary(turn) and info.source == f"turn {turn.index}"
        # every call of the turns still counts in the sample's usage, per role
        spent = spend_of(sample.events)
        for role in ("clinician", "patient", "environment"):
            assert sample.role_usage[role].total_tokens == spent[role].total_tokens, role


def view_of(log: EvalLog) -> TaskSamplesView:
    viewer = log.eval.viewer
    assert isinstance(viewer, ViewerConfig)
    view = Task(viewer=viewer).viewer
    assert isinstance(view, ViewerConfig) and isinstance(view.task_samples_view, TaskSamplesView)
    return view.task_samples_view


def header_and_grid(log: EvalLog) -> list[tuple[list[str], list[str]]]:
    """Each sample's score names as Inspect's sample header lists them (the value keys, in the
    order the log holds the scores) and the grid's columns of the same scores, in its order;
    each grid heading checked to be the header's name with its unit in parentheses."""
    view = view_of(log)
    labels = view.score_labels or {}
    configured = [
        tuple(c.id.split("__")[1:]) for c in view.columns or [] if c.id.startswith("score__")
    ]
    out = []
    for sample in samples(log):
        header = [
            (scorer, key)
            for scorer, value in (sample.scores or {}).items()
            if isinstance(value.value, dict)
            for key in value.value
        ]
        for _, key in header:
            assert labels[key] == key or re.fullmatch(rf"{key} \(.+\)", labels[key]), key
        grid = [c for c in configured if c in header]
        out.append(([k for _, k in header], [k for _, k in grid]))
    return out


def test_the_header_and_the_grid_show_the_same_names_in_the_same_order(probed: EvalLog) -> None:
    view = view_of(probed)
    assert view.score_labels is not None
    for header, grid in header_and_grid(probed):
        assert header == grid == ["overall", "cost", "orders", "not_asked_for", "recital_up"]
    assert view.score_labels["cost"].startswith("cost (price-table units")
    assert view.score_labels["recital_up"] == "recital_up (items flipped ✗→✓)"
    assert view.score_labels["overall"] == "overall (share of items met)"
    # the header itself shows no unit: Inspect's SampleScoreView takes none
    viewer = probed.eval.viewer
    assert isinstance(viewer, ViewerConfig) and viewer.sample_score_view is not None
    assert viewer.sample_score_view.sort is None


def test_with_the_audit_in_the_eval_the_header_and_the_grid_agree(tmp_path: Path) -> None:
    [log] = eval(
        medsp_demo(judge=SCRIPTED, audit=True, scenarios="demo_bad_news/*"),
        model=SCRIPTED,
        log_dir=str(tmp_path),
        display="none",
    )
    probed = score(
        log, [medsp_grader_probe(judge=SCRIPTED, probes="removal")], action="append",
        display="none",
    )  # fmt: skip
    [(header, grid)] = header_and_grid(probed)
    assert header == grid == [
        "overall", "findings", "invalidating", "cost", "orders", "not_asked_for", "removal_down",
    ]  # fmt: skip


def test_an_appended_scorers_tokens_are_in_its_score_not_in_usage(probed: EvalLog) -> None:
    for sample in samples(probed):
        probe = sample.scores["medsp_grader_probe"] if sample.scores else None
        assert probe is not None and (probe.metadata or {})["rescored"] is True
        # what the probe recorded is exactly its grader calls in the transcript
        appended = rescored_spend(sample.events)
        assert set(appended) == {"grader"} and appended["grader"].calls == 2
        assert rescored_usage(sample.scores or {}) == appended
        assert (probe.metadata or {})["usage"]["grader"] == appended["grader"].model_dump()
        # every grader call in the transcript is the eval's rubric grading or the probe's
        graders = [e for e in sample.events if isinstance(e, ModelEvent) and e.role == "grader"]
        in_eval = (scored(sample).metadata or {})["usage"]["grader"]["total_tokens"]
        total = sum(e.output.usage.total_tokens for e in graders if e.output.usage is not None)
        assert total == in_eval + appended["grader"].total_tokens
        # Inspect 0.3.285 counts only the eval's: the grid's TOKENS and the Info tab
        assert sample.role_usage["grader"].total_tokens == in_eval
        roles = ("clinician", "patient", "environment")
        assert sum(u.total_tokens for u in sample.model_usage.values()) == in_eval + sum(
            sample.role_usage[r].total_tokens for r in roles
        )
    # the README's viewer section says where they are
    readme = README.read_text(encoding="utf-8")
    section = readme[readme.index("In `inspect view` every MedSP task") :]
    section = section[: section.index("\n## ")]
    assert "`usage`" in section and "medsp-report" in section and "TOKENS" in section
