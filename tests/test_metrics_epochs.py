"""Every custom metric run the way an eval runs it (pytest-inspect-evals): the scorers' own
scores from offline runs, given to a real eval over several epochs and reduced by the tasks'
epoch reducer (``inspect_medsp/epoch_mean``) and by Inspect's ``mean`` and ``mode``, before the
metric reads them. Equal epochs change no number; disagreeing epochs give each scenario its
mean over epochs, as the README's "Epochs" says."""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from inspect_ai import eval, score
from inspect_ai.log import EvalLog
from inspect_ai.scorer import Metric, Score, Value
from pytest_inspect_evals.metrics import (
    assert_agreeing_epochs_change_nothing,
    run_metrics,
)

from inspect_medsp.audit.scorer import audit_summary
from inspect_medsp.contamination import medsp_contamination
from inspect_medsp.contamination.scorer import above_control
from inspect_medsp.probes.scorer import medsp_grader_probe, probe_summary
from inspect_medsp.scoring import epoch_mean
from inspect_medsp.scoring.metrics import macro, medsp_summary, micro
from inspect_medsp.specialty.task import labelled
from inspect_medsp.tasks import medsp_demo
from inspect_medsp.workup.scorer import workup_summary

SCRIPTED = "medsp/scripted"
REDUCERS = (epoch_mean(), "mean", "mode")
"""The tasks' reducer first, then the two Inspect's ``--epochs-reducer`` is most often given."""
STABILITY = ("epoch_sd", "verdict_flip_rate")
"""What only several epochs have (0 when they agree), absent from one epoch."""


class Runs:
    """Each scorer's scores and each sample's metadata, in the demo's sample order."""

    def __init__(self, logs: Mapping[str, EvalLog]) -> None:
        self.scores: dict[str, list[Score]] = {}
        self.metadata: dict[str, list[dict[str, Any]]] = {}
        for scorer, log in logs.items():
            assert log.status == "success", log.error
            assert log.samples is not None
            samples = sorted(log.samples, key=lambda s: str(s.id))
            self.scores[scorer] = [s.scores[scorer] for s in samples if s.scores]
            self.metadata[scorer] = [dict(s.metadata) for s in samples]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Runs:
    """The scripted demo with the audit and the work-up, its probes re-graded, and the
    contamination probe for a model that has seen the demo cases and one that has not."""
    logs = str(tmp_path_factory.mktemp("logs"))
    [demo] = eval(
        medsp_demo(judge=SCRIPTED, audit=True), model=SCRIPTED, log_dir=logs, display="none"
    )
    probed = score(demo, medsp_grader_probe(probes="recital,removal"), action="append")
    seen = {
        model: eval(
            medsp_contamination(benchmark="medsp_demo"), model=model, log_dir=logs, display="none"
        )[0]
        for model in ("medsp/seen-everything", "medsp/seen-nothing")
    }
    return Runs(
        {
            "medsp_rubric": demo,
            "medsp_simulation_audit": demo,
            "medsp_workup": demo,
            "medsp_grader_probe": probed,
            "medsp_contamination_probe": seen["medsp/seen-everything"],
            "seen_nothing": _renamed(seen["medsp/seen-nothing"]),
        }
    )


def _renamed(log: EvalLog) -> EvalLog:
    """The seen-nothing run's scores under their own key, beside the seen-everything run's."""
    assert log.samples is not None
    for sample in log.samples:
        assert sample.scores is not None
        sample.scores["seen_nothing"] = sample.scores["medsp_contamination_probe"]
    return log


CASES: list[tuple[str, str, Metric]] = [
    ("medsp_rubric", "medsp_summary", medsp_summary()),
    ("medsp_rubric", "macro", macro()),
    ("medsp_rubric", "micro", micro()),
    ("medsp_simulation_audit", "audit_summary", audit_summary()),
    ("medsp_workup", "workup_summary", workup_summary()),
    ("medsp_grader_probe", "probe_summary", probe_summary()),
    ("medsp_contamination_probe", "above_control", above_control()),
]


def number(value: Value | None) -> float:
    """A metric's or a value key's number."""
    assert isinstance(value, int | float), value
    return float(value)


def key(s: Score, name: str) -> float:
    """One key of a score's dict value."""
    assert isinstance(s.value, Mapping)
    return number(s.value.get(name, 0))


@pytest.mark.parametrize(("scorer", "name", "metric"), CASES, ids=[n for _, n, _ in CASES])
def test_equal_epochs_change_no_metric(runs: Runs, scorer: str, name: str, metric: Metric) -> None:
    assert_agreeing_epochs_change_nothing(
        [metric],
        runs.scores[scorer],
        metadata=runs.metadata[scorer],
        reducers=REDUCERS,
        ignore=STABILITY,
    )


def test_the_specialty_share_is_unchanged_by_equal_epochs() -> None:
    # the classifier's scorer gives 1.0 for a usable label and 0.0 for none
    assert_agreeing_epochs_change_nothing([labelled()], [1.0, 0.0, 1.0], reducers=REDUCERS)


def completion(s: Score) -> float:
    """Completed over total items, as the metrics count them (the value's figure is rounded)."""
    figures = (s.metadata or {})["figures"]
    return float(figures["overall_completed"]) / float(figures["overall_total"])


def mixed(scores: Sequence[Score]) -> list[list[Score]]:
    """Three scenarios over two epochs: the first disagrees (its own score, then the second
    scenario's), the other two repeat their own."""
    a, b, c = scores
    return [[a, b], [b, b], [c, c]]


def one_item_missed(s: Score) -> Score:
    """The same scenario graded again with its first met item now not met: its completion
    overall and in that item's competency one item lower."""
    metadata = dict(s.metadata or {})
    items = [dict(i) for i in metadata["items"]]
    first = next(i for i in items if i["met"])
    first["met"] = False
    figures = dict(metadata["figures"])
    for key in ("overall", first["competency"]):
        figures[f"{key}_completed"] -= 1
        figures[key] = round(figures[f"{key}_completed"] / figures[f"{key}_total"], 3)
    value = {**dict(s.value), "overall": figures["overall"]}  # type: ignore[arg-type]
    return s.model_copy(
        update={"value": value, "metadata": {**metadata, "items": items, "figures": figures}}
    )


def test_disagreeing_epochs_give_the_mean_over_epochs_of_each_scenario(runs: Runs) -> None:
    scores = runs.scores["medsp_rubric"]
    a, b, c = (completion(s) for s in scores)
    again = one_item_missed(scores[0])
    lower = completion(again)
    assert lower < a
    epochs = [[scores[0], again], [scores[1]] * 2, [scores[2]] * 2]
    metadata = runs.metadata["medsp_rubric"]

    got = run_metrics([medsp_summary()], epochs, reducer=epoch_mean(), metadata=metadata)

    assert got["macro"] == pytest.approx(((a + lower) / 2 + b + c) / 3)
    assert got["scenarios"] == 3
    # the stability figures: the mean SD of a scenario's epochs (only the first has two values)
    assert got["epoch_sd"] == pytest.approx(statistics.stdev([a, lower]) / 3)
    assert number(got["verdict_flip_rate"]) > 0
    full = run_metrics([macro()], epochs, reducer=epoch_mean(), metadata=metadata)
    assert full["macro"] == pytest.approx(got["macro"])


@pytest.mark.xfail(
    strict=True,
    reason="Inspect's own reducers keep the first epoch's metadata, where the figures are: "
    "with --epochs-reducer mean the metrics read the first epoch's item counts",
)
def test_inspects_own_mean_reducer_gives_the_same_macro(runs: Runs) -> None:
    scores = runs.scores["medsp_rubric"]
    epochs = [[scores[0], one_item_missed(scores[0])], [scores[1]] * 2, [scores[2]] * 2]
    ours = run_metrics([medsp_summary()], epochs, reducer=epoch_mean())
    plain = run_metrics([medsp_summary()], epochs, reducer="mean")
    assert plain["macro"] == pytest.approx(ours["macro"])


def test_disagreeing_epochs_of_the_work_up_and_the_audit_are_averaged(runs: Runs) -> None:
    work = runs.scores["medsp_workup"]
    costs = [key(s, "cost") for s in work]
    got = run_metrics([workup_summary()], mixed(work), reducer=epoch_mean())
    assert got["cost_mean"] == pytest.approx(((costs[0] + costs[1]) / 2 + costs[1] + costs[2]) / 3)
    assert got["worked_up"] == 3

    audit = runs.scores["medsp_simulation_audit"]
    invalidating = [key(s, "invalidating") for s in audit]
    got = run_metrics([audit_summary()], mixed(audit), reducer=epoch_mean())
    first = (invalidating[0] + invalidating[1]) / 2
    expected = (first + invalidating[1] + invalidating[2]) / 3
    assert got["invalidating_share"] == pytest.approx(expected)
    assert got["audited"] == 3


def test_a_model_that_recalls_in_one_epoch_of_two_counts_half(runs: Runs) -> None:
    seen = runs.scores["medsp_contamination_probe"]
    unseen = runs.scores["seen_nothing"]
    epochs = [[s, u] for s, u in zip(seen, unseen, strict=True)]

    got = run_metrics([above_control()], epochs, reducer=epoch_mean())
    alone = run_metrics([above_control()], [[s] for s in seen], reducer=None)
    never = run_metrics([above_control()], [[u] for u in unseen], reducer=None)

    for name, value in got.items():
        expected = (number(alone[name]) + number(never.get(name, 0.0))) / 2
        assert value == pytest.approx(expected), name
