"""What ``inspect view`` shows of a MedSP run: every task carries the same viewer configuration
(one headline per scorer, every other score one click away, every column labelled), a re-score
gets a name and keys of its own, and rounding the stored completions changes no metric."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from importlib.resources import files
from pathlib import Path
from typing import Any, cast

import pytest
from inspect_ai import Task, eval, score
from inspect_ai.event import Event, ModelEvent, ScoreEvent, SpanBeginEvent, SubtaskEvent
from inspect_ai.log import EvalLog
from inspect_ai.scorer import MetricProtocol, SampleScore, Score
from inspect_ai.viewer import TaskSamplesView, ViewerConfig

from inspect_medsp import medsp100, medsp1000, medsp_custom, medsp_demo
from inspect_medsp.audit import medsp_simulation_audit
from inspect_medsp.audit.result import AUDIT_HEADLINES, AUDIT_KEYS, AUDIT_SCORER, SimulationAudit
from inspect_medsp.cases.write import write_demo
from inspect_medsp.encounter.solver import TURN_SPAN
from inspect_medsp.measure import GRADING_TYPE, MAX_SCORE_COLUMNS
from inspect_medsp.measures import viewer
from inspect_medsp.params import TaskParameters
from inspect_medsp.probes import medsp_grader_probe
from inspect_medsp.record import SCORER, ScoreValue, read_log
from inspect_medsp.scoring.metrics import medsp_summary
from inspect_medsp.tasks import medsp_task

SCRIPTED = "medsp/scripted"
DEMO = Path(str(files("inspect_medsp.data").joinpath("demo")))
README = Path(__file__).parents[1] / "README.md"


def samples_view(task: Task) -> TaskSamplesView:
    viewer = task.viewer
    assert isinstance(viewer, ViewerConfig)
    view = viewer.task_samples_view
    assert isinstance(view, TaskSamplesView)
    return view


def score_columns(view: TaskSamplesView) -> dict[str, bool]:
    """Each score column's ``(scorer, key)`` id and whether it shows by default."""
    return {c.id: c.visible for c in view.columns or [] if c.id.startswith("score__")}


def built_tasks(cases: Path) -> dict[str, Task]:
    folders: dict[str, Any] = {
        "data_dir": str(DEMO / "scenarios"),
        "upstream_dir": str(DEMO / "upstream"),
    }
    write_demo(cases)
    return {
        "medsp_custom": medsp_custom(cases=str(cases)),
        "medsp1000": medsp1000(**folders),
        "medsp100": medsp100(**folders),
        "medsp_demo": medsp_demo(),
        "medsp_demo audited": medsp_demo(judge=SCRIPTED, audit=True),
        "custom case set": medsp_task(
            "My cases", DEMO / "scenarios", DEMO / "upstream", TaskParameters()
        ),
    }


def test_every_task_shows_one_headline_per_scorer_with_labels(tmp_path: Path) -> None:
    for name, task in built_tasks(tmp_path / "cases").items():
        assert task.viewer == viewer(), name
        view = samples_view(task)
        columns = score_columns(view)
        # the rubric's completion first, shown and coloured on 0-1
        first = next(iter(columns))
        assert first == f"score__{SCORER}__overall" and columns[first], name
        visible = [c for c, shown in columns.items() if shown]
        assert len(visible) <= MAX_SCORE_COLUMNS, name
        # the audit's verdict and the probes' flips are among them; the competencies and the
        # counts are no columns (they are figures in the metadata)
        assert f"score__{AUDIT_SCORER}__invalidating" in visible
        assert "score__medsp_grader_probe__removal_down" in visible
        for figure in ("PC", "overall_completed", "overall_total", "patient_findings"):
            assert not any(c.endswith(f"__{figure}") for c in columns), figure
        # every score column is labelled (the viewer looks labels up by value key)
        labels = view.score_labels or {}
        keys = {c.rsplit("__", 1)[1] for c in columns}
        assert keys <= set(labels), keys - set(labels)
        # one name per score: the key the sample's header shows, with its unit
        assert labels["overall"] == "overall (share of items met)"
        scale = (view.score_color_scales or {})["overall"]
        assert not isinstance(scale, str | Mapping)
        assert (scale.palette, scale.min, scale.max) == ("good-high", 0, 1)


@pytest.fixture(scope="module")
def audited(tmp_path_factory: pytest.TempPathFactory) -> EvalLog:
    """The demo with the simulator audit (and not the work-up, so the audit's scores and
    gradings are the run's only ones beside the rubric's), audited once more with ``inspect
    score``."""
    [log] = eval(
        medsp_demo(judge=SCRIPTED, audit=True, workup=False),
        model=SCRIPTED,
        log_dir=str(tmp_path_factory.mktemp("logs")),
        display="none",
    )
    assert log.status == "success"
    return score(log, [medsp_simulation_audit(judge=SCRIPTED)], action="append", display="none")


def test_the_viewer_config_is_stored_and_lists_every_score_key(audited: EvalLog) -> None:
    assert audited.eval.viewer == viewer()
    columns = score_columns(samples_view(Task(viewer=audited.eval.viewer)))
    assert audited.samples is not None
    for sample in audited.samples:
        for scorer, value in (sample.scores or {}).items():
            assert isinstance(value.value, dict)
            for key in value.value:
                # a key the config did not list would show by default: none is unlisted
                assert f"score__{scorer}__{key}" in columns, (scorer, key)


def test_a_re_audit_has_the_documented_name_and_its_own_keys(audited: EvalLog) -> None:
    assert audited.samples is not None
    again = f"{AUDIT_SCORER}1"
    for sample in audited.samples:
        scores = sample.scores or {}
        assert set(scores) == {SCORER, AUDIT_SCORER, again}
        first, second = scores[AUDIT_SCORER].value, scores[again].value
        assert isinstance(first, dict) and isinstance(second, dict)
        assert list(first) == list(AUDIT_HEADLINES)
        assert list(second) == [f"{k}_1" for k in AUDIT_HEADLINES]
        # every figure is in the metadata, numbered as the value is
        first = (scores[AUDIT_SCORER].metadata or {})["figures"]
        second = (scores[again].metadata or {})["figures"]
        assert list(first) == list(AUDIT_KEYS)
        assert list(second) == [f"{k}_1" for k in AUDIT_KEYS]
        assert not set(first) & set(second)
        assert all(isinstance(v, int) for v in (*first.values(), *second.values()))
        assert [second[f"{k}_1"] for k in AUDIT_KEYS] == [first[k] for k in AUDIT_KEYS]
        # the re-audit says it ran after the eval, with the tokens it spent
        meta = scores[again].metadata or {}
        assert meta["rescored"] is True and meta["usage"]["auditor"]["calls"] == 1
        assert (scores[AUDIT_SCORER].metadata or {})["rescored"] is False
    # its metrics read as the first audit's, and read_log takes the newer one
    assert audited.results is not None
    metrics = {s.name: {k: m.value for k, m in s.metrics.items()} for s in audited.results.scores}
    # (the interval is a bootstrap over cases, drawn afresh for each scorer)
    drawn = {"invalidating_ci_low", "invalidating_ci_high"}
    first, second = metrics[AUDIT_SCORER], metrics[again]
    assert {k: v for k, v in second.items() if k not in drawn} == {
        k: v for k, v in first.items() if k not in drawn
    }
    for m in (first, second):
        assert m["invalidating_ci_low"] <= m["invalidating_share"] <= m["invalidating_ci_high"]
    read = read_log(str(audited.location)).samples
    assert all(s.result(SimulationAudit) is not None for s in read)
    # the README documents the name and the keys
    readme = README.read_text(encoding="utf-8")
    assert f"`{again}`" in readme and "`findings_1`" in readme


def summary(values: list[dict[str, Any]]) -> dict[str, float]:
    compute = cast(MetricProtocol, medsp_summary())
    scores = [
        SampleScore(score=Score(value=v), sample_id=f"case{i}/scenario1")
        for i, v in enumerate(values)
    ]
    result = compute(scores)
    assert isinstance(result, Mapping)
    return {k: float(v) for k, v in result.items() if isinstance(v, int | float)}


def test_rounding_the_stored_completions_changes_no_metric() -> None:
    """The demo's counts (12/17, 11/17, 13/17 and the competencies'), stored as version 2 did
    (exact completions) and as version 3 does (three decimals): every metric is the same."""
    demo = [
        {"overall": (12, 17), "PC": (6, 7), "MK": (1, 2), "SBP": (2, 3), "ICS": (2, 3)},
        {"overall": (11, 17), "PC": (3, 7), "SBP": (1, 3), "ICS": (7, 8), "PROF": (1, 2)},
        {"overall": (13, 17), "PC": (6, 7), "MK": (1, 2), "ICS": (2, 3), "PBLI": (1, 2)},
    ]
    exact = [
        {
            **{k: c / t for k, (c, t) in counts.items()},
            **{f"{k}_completed": c for k, (c, t) in counts.items()},
            **{f"{k}_total": t for k, (c, t) in counts.items()},
        }
        for counts in demo
    ]
    rounded = [ScoreValue.of(counts).stored() for counts in demo]
    assert rounded[0]["overall"] == 0.706 and exact[0]["overall"] != 0.706
    before, after = summary(exact), summary(rounded)
    assert before == after
    assert Fraction(after["macro"]).limit_denominator(1000) == Fraction(36, 51)
    assert round(after["macro"], 3) == 0.706


def scoring_rows(events: Sequence[Event]) -> list[str]:
    """What ``inspect view`` (0.3.285) keeps of a sample's scoring phase: its events in order
    with every span dropped; the outline labels a subtask event by its name, a model call as
    a turn and a score as "scoring"."""
    begin = next(
        i for i, e in enumerate(events) if isinstance(e, SpanBeginEvent) and e.type == "scorers"
    )
    rows = []
    for event in events[begin:]:
        if isinstance(event, SubtaskEvent):
            rows.append(event.name)
        elif isinstance(event, ModelEvent):
            rows.append(f"call ({event.role})")
        elif isinstance(event, ScoreEvent):
            rows.append("scoring")
    return rows


def test_each_grading_is_a_named_subtask_inside_its_scorer(audited: EvalLog) -> None:
    """The rubric grading and each audit are a subtask of their name (the event the viewer's
    outline shows above the grader's call, where it drops the spans), inside a span of the
    same name inside the scorer's own span; its input names the model, its output what it
    found. A re-audit is named with its number, as its scorer is."""
    assert audited.samples is not None
    for sample in audited.samples:
        assert scoring_rows(sample.events) == [
            "rubric grading",
            "call (grader)",
            "scoring",
            "simulation audit",
            "call (auditor)",
            "scoring",
            "simulation audit 1",
            "call (auditor)",
            "scoring",
        ]
        spans = {e.id: e for e in sample.events if isinstance(e, SpanBeginEvent)}
        # (each encounter turn is a subtask too, of its own type)
        subtasks = [
            e for e in sample.events if isinstance(e, SubtaskEvent) and e.type != TURN_SPAN
        ]
        scorers = []
        for subtask in subtasks:
            assert subtask.type == GRADING_TYPE and not subtask.pending
            assert subtask.span_id is not None
            own = spans[subtask.span_id]
            assert (own.name, own.type) == (subtask.name, "subtask")
            assert own.parent_id is not None
            scorer = spans[own.parent_id]
            assert scorer.type == "scorer"
            scorers.append(scorer.name)
            # the grading's model call is inside the subtask's span
            calls = [e for e in sample.events if isinstance(e, ModelEvent)]
            assert [e.role for e in calls if e.span_id == own.id] == [
                "grader" if subtask.name == "rubric grading" else "auditor"
            ]
        assert scorers == [SCORER, AUDIT_SCORER, f"{AUDIT_SCORER}1"]
        rubric, audit, again = subtasks
        assert rubric.input == {"grader": SCRIPTED}
        total = ((sample.scores or {})[SCORER].metadata or {})["figures"]
        assert isinstance(total, dict)
        met, items = total["overall_completed"], total["overall_total"]
        assert rubric.result == f"{met} of {items} items met"
        found = (sample.scores or {})[AUDIT_SCORER].value
        assert isinstance(found, dict)
        reported = f"{found['findings']} finding{'s' * (found['findings'] != 1)} reported"
        assert audit.input == again.input == {"auditor": SCRIPTED}
        assert audit.result == again.result == reported


def test_the_grid_shows_whole_counts_as_integers(audited: EvalLog) -> None:
    """Each scenario's reduced figures (the Scoring tab's): over one epoch, every count in them
    (items met and asked, full windows, refused turns) is an integer, not "12.0"."""
    [reduction] = [r for r in audited.reductions or [] if r.scorer == SCORER]
    met: list[int] = []
    for sample in reduction.samples:
        assert isinstance(sample.value, dict) and list(sample.value) == ["overall"]
        counts = (sample.metadata or {})["figures"]
        names = [k for k in counts if k.endswith(("_completed", "_total"))]
        for name in (*names, "context_exhausted", "refused_turns"):
            assert isinstance(counts[name], int), (sample.sample_id, name, counts[name])
        met.append(cast(int, counts["overall_completed"]))
    assert sorted(met) == [11, 12, 13]


def test_the_results_header_shows_distinct_metrics_first(audited: EvalLog) -> None:
    """The viewer's results header shows a scorer's first five metrics in columns too narrow
    for "macro_ci_low" and "macro_ci_high" to differ: macro, micro and competencies come first,
    the interval after them."""
    assert audited.results is not None
    rubric = next(s for s in audited.results.scores if s.name == SCORER)
    names = list(rubric.metrics)
    assert names[:5] == ["macro", "micro", "PC", "MK", "SBP"]
    assert {"macro_ci_low", "macro_ci_high"} <= set(names[5:])


def test_the_demo_audited_and_probed_has_a_grid_of_headlines(tmp_path: Path) -> None:
    """Inspect 0.3.285's viewer makes a column of every key of a score's value: with the audit
    and the four probes appended, the samples grid has at most 12 score columns, each
    labelled, the rubric's completion first."""
    [log] = eval(
        medsp_demo(judge=SCRIPTED, audit=True),
        model=SCRIPTED,
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    probed = score(log, [medsp_grader_probe(judge=SCRIPTED)], action="append", display="none")
    assert probed.samples is not None
    columns = list(
        dict.fromkeys(
            (scorer, key)
            for sample in probed.samples
            for scorer, value in (sample.scores or {}).items()
            if isinstance(value.value, dict)
            for key in value.value
        )
    )
    # the rubric's one, the audit's two, the probes' four and the work-up's three
    assert len(columns) == 10 <= MAX_SCORE_COLUMNS, columns
    assert {scorer for scorer, _ in columns} == {
        SCORER,
        AUDIT_SCORER,
        "medsp_grader_probe",
        "medsp_workup",
    }
    view = samples_view(Task(viewer=probed.eval.viewer))
    configured = [c.id for c in view.columns or [] if c.id.startswith("score__")]
    assert configured[0] == f"score__{SCORER}__overall"
    labels = view.score_labels or {}
    assert all(key in labels for _, key in columns)
    # the removal probe's flips ✓→✗ are what a sensitive grader makes: more is better
    scale = (view.score_color_scales or {})["removal_down"]
    assert not isinstance(scale, str | Mapping) and scale.palette == "good-high"
    assert cast(Any, (view.score_color_scales or {})["recital_up"]).palette == "good-low"
