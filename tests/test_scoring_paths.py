"""The number stays right off the happy path: epochs, a failing grader, encounters cut short,
re-scoring, and intervals that resample cases.

Hand figures use the demo rubrics (17 items each) and grader A's verdicts from
``tests/test_scoring.py``: 7, 8 and 8 items met in the three scenarios.
"""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai import score as inspect_score
from inspect_ai.log import EvalLog, EvalSample
from inspect_ai.model import ChatMessage, ModelOutput
from inspect_ai.scorer import SampleScore, Score
from inspect_ai.util import Store

from inspect_medsp import Trajectory, medsp_demo
from inspect_medsp.hooks.unscored import unscored_line
from inspect_medsp.record.read import read_sample
from inspect_medsp.report import pooled_metrics
from inspect_medsp.scoring import medsp_rubric
from inspect_medsp.scoring.metrics import (
    cluster_bootstrap,
    mean_ci,
    medsp_summary,
    score_value,
)
from tests.support.metrics import compute, summary_of
from tests.support.scripts import Script, clinician, environment, patient
from tests.test_scoring import (
    ALL_ITEMS,
    ANAPHYLAXIS,
    JUDGE,
    MET_A,
    Run,
    case_of,
    encounter_scripts,
    frac,
    meta_of,
    per_case,
    rescore,
    run_demo,
    score_of,
    verdicts,
)

ROOT2 = math.sqrt(2)


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    """All three demo scenarios graded by grader A."""
    return run_demo(Script(per_case(MET_A)), str(tmp_path_factory.mktemp("logs")))


def reduced(log: EvalLog) -> dict[str, Score]:
    """The scores Inspect reduced over epochs, by sample id."""
    assert log.reductions is not None
    [reduction] = [r for r in log.reductions if r.scorer == "medsp_rubric"]
    return {str(s.sample_id): s for s in reduction.samples}


# --------------------------------------------------------------------------- 1. epochs


def first_then_nothing() -> Script:
    """Grader A on a scenario's first grading, nothing met on its second."""
    seen: Counter[str] = Counter()

    def reply(messages: list[ChatMessage]) -> dict[str, Any]:
        case = case_of(messages)
        seen[case] += 1
        return verdicts(case, MET_A[case] if seen[case] == 1 else set())

    return Script(reply)


def two_epochs(tmp_path: Path, scenarios: str | None = None) -> EvalLog:
    """The demo encounters run twice each, graded by :func:`first_then_nothing`."""
    clin, pat, env = encounter_scripts()
    [log] = inspect_eval(
        medsp_demo(judge=JUDGE, scenarios=scenarios),
        model=clin.model(),
        model_roles={
            "patient": pat.model(),
            "environment": env.model(),
            "grader": first_then_nothing().model(),
        },
        epochs=2,
        log_dir=str(tmp_path),
        display="none",
    )
    return log


def test_epochs_average_each_scenario_then_the_scenarios(tmp_path: Path) -> None:
    log = two_epochs(tmp_path)
    assert log.eval.config.epochs == 2
    assert log.eval.config.epochs_reducer == ["epoch_mean"]
    summary = summary_of(log)
    # each scenario: (a/17 + 0/17) / 2; then the mean over scenarios: (7 + 8 + 8) / 17 / 3 / 2
    assert frac(summary["macro"]) == Fraction(23, 102)
    assert frac(summary["micro"]) == Fraction(23, 102)  # (7 + 8 + 8 + 0) / (6 * 17)
    assert frac(summary["PC"]) == Fraction(17, 84)  # (2/7 + 1/2 + 3/7) / 3 / 2
    assert summary["scenarios"] == 3
    # stability: the sample SD of (a/17, 0) is a/17/sqrt(2); every met item flipped
    assert summary["epoch_sd"] == (7 + 8 + 8) / 17 / 3 / ROOT2
    assert frac(summary["verdict_flip_rate"]) == Fraction(23, 51)
    # three cases: too few for an interval that keeps its promise
    assert math.isnan(summary["macro_ci_low"]) and math.isnan(summary["macro_ci_high"])

    by_id = reduced(log)
    anaphylaxis = (by_id[ANAPHYLAXIS].metadata or {})["figures"]  # reduced over the epochs
    assert isinstance(anaphylaxis, dict)
    assert by_id[ANAPHYLAXIS].value == {"overall": anaphylaxis["overall"]}
    # stored to three decimals; the mean counts beside it are exact
    assert anaphylaxis["overall"] == round(7 / 17 / 2, 3) == 0.206
    assert anaphylaxis["overall_completed"] == 3.5 and anaphylaxis["overall_total"] == 17
    assert by_id[ANAPHYLAXIS].answer == "3.5/17 items (mean of 2 epochs)"
    assert anaphylaxis["epochs"] == 2 and anaphylaxis["flipped_items"] == 7

    # the report reduces epochs the same way
    assert log.samples is not None and len(log.samples) == 6
    pooled = pooled_metrics([read_sample(s) for s in log.samples])
    assert pooled["macro"] == summary["macro"] and pooled["micro"] == summary["micro"]
    assert pooled["macro_ci_low"] == pytest.approx(summary["macro_ci_low"], nan_ok=True)


def test_rescoring_an_epochs_log_keeps_its_reducer(tmp_path: Path) -> None:
    log = two_epochs(tmp_path, scenarios=ANAPHYLAXIS)
    everything = Script(lambda m: verdicts(case_of(m), ALL_ITEMS))
    rescored = rescore(log, everything)
    summary = summary_of(rescored)
    assert summary["macro"] == 1.0 and summary["micro"] == 1.0
    assert summary["epoch_sd"] == 0.0 and summary["verdict_flip_rate"] == 0.0
    assert len(everything.calls) == 2  # both epochs graded again


# --------------------------------------------------------------------------- 2. grader fails


def test_grader_failing_on_the_re_ask_keeps_its_first_verdicts(run: Run) -> None:
    grader = Script(
        [
            verdicts("demo_anaphylaxis", {1, 2, 3}, only=ALL_ITEMS - {5, 9}),
            "I cannot answer in JSON today.",
        ]
    )
    log = rescore(run.log, grader, only=ANAPHYLAXIS)

    assert log.samples is not None
    [sample] = log.samples
    score = score_of(sample)
    assert isinstance(score.value, float) and math.isnan(score.value)
    assert score.reason == "grader_failed"
    partial = meta_of(sample)["items"]
    assert sorted(i["number"] for i in partial) == sorted(ALL_ITEMS - {5, 9})
    assert [i["number"] for i in partial if i["met"]] == [1, 2, 3]
    assert meta_of(sample)["reasoning"] == ["Scripted verdicts for demo_anaphylaxis."]
    assert len(grader.calls) == 4  # the first ask, the re-ask and its two retries
    assert log.results is not None
    assert log.results.scores[0].unscored_samples == 1
    assert log.results.scores[0].scored_samples == 0


def test_inspect_score_carries_on_past_a_grader_that_fails(run: Run) -> None:
    def grader_reply(messages: list[ChatMessage]) -> str | dict[str, Any]:
        case = case_of(messages)
        return "no" if case == "demo_bad_news" else verdicts(case, MET_A[case])

    log = rescore(run.log, Script(grader_reply))

    assert log.samples is not None and len(log.samples) == 3
    reasons = {str(s.id): score_of(s).reason for s in log.samples}
    assert reasons == {
        "demo_anaphylaxis/scenario1": None,
        "demo_bad_news/scenario1": "grader_failed",
        "demo_peds_asthma/scenario1": None,
    }
    assert log.results is not None
    assert (log.results.scores[0].scored_samples, log.results.scores[0].unscored_samples) == (2, 1)
    summary = summary_of(log)
    assert summary["scenarios"] == 2
    assert frac(summary["macro"]) == Fraction(15, 34)  # (7/17 + 8/17) / 2
    line = unscored_line(log)
    assert line is not None
    assert "1 sample(s) could not be scored" in line
    assert "demo_bad_news/scenario1 [grader_failed]" in line
    assert "re-grade: inspect score" in line


# --------------------------------------------------------------------------- 3. cut short


def test_an_encounter_cut_short_by_a_limit_is_unscored_not_zero(tmp_path: Path) -> None:
    """A token limit stops the encounter in turn 3 of 12: nothing is graded as a zero."""
    clin = Script([clinician("Tell me more.", ["check vital signs"])])
    pat = Script([patient("It hurts.")])
    env = Script([environment(0, "initial_assessment")])  # never ends the case
    grader = Script([verdicts("demo_anaphylaxis", ALL_ITEMS)])
    [log] = inspect_eval(
        medsp_demo(judge=JUDGE, scenarios=ANAPHYLAXIS),
        model=clin.model(),
        model_roles={"patient": pat.model(), "environment": env.model(), "grader": grader.model()},
        token_limit=100,  # each scripted call uses 15 tokens: three roles, 45 a turn
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.samples is not None
    [sample] = log.samples
    assert sample.limit is not None and sample.limit.type == "token"
    traj = trajectory_of(sample)
    assert traj.end == "limit" and traj.end_reason.startswith("token limit reached during turn 3")
    assert traj.turn_count == 2  # the two finished turns are kept
    score = score_of(sample)
    assert isinstance(score.value, float) and math.isnan(score.value)
    assert score.reason == "encounter_incomplete"
    assert len(grader.calls) == 0  # an unfinished encounter is never graded
    assert log.results is not None and log.results.scores[0].unscored_samples == 1
    line = unscored_line(log)
    assert line is not None
    assert line.endswith(
        f"re-run: inspect eval inspect_medsp/medsp_demo --model mockllm/model -T judge={JUDGE} "
        f"-T scenarios={ANAPHYLAXIS} --log-dir {tmp_path} --sample-id {ANAPHYLAXIS}"
    )

    # re-scoring it does not turn it into a zero either
    rescored = rescore(log, grader)
    assert score_of(_only(rescored)).reason == "encounter_incomplete"
    assert len(grader.calls) == 0


def trajectory_of(sample: EvalSample) -> Trajectory:
    return Trajectory(store=Store(sample.store))


def _only(log: EvalLog) -> EvalSample:
    assert log.samples is not None and len(log.samples) == 1
    return log.samples[0]


def test_tools_clinician_that_never_acts_is_unscored(tmp_path: Path) -> None:
    """The agent talks without calling a tool until the message limit: nothing happened."""
    clin = Script([ModelOutput.from_content("mockllm", "Let me think about this case.")])
    pat, env = Script([patient("Hm.")]), Script([environment(0, "initial_assessment")])
    grader = Script([verdicts("demo_anaphylaxis", ALL_ITEMS)])
    [log] = inspect_eval(
        medsp_demo(judge=JUDGE, scenarios=ANAPHYLAXIS, protocol="tools", max_turns=1),
        model=clin.model(),
        model_roles={"patient": pat.model(), "environment": env.model(), "grader": grader.model()},
        log_dir=str(tmp_path),
        display="none",
    )
    score = score_of(_only(log))
    assert score.reason == "encounter_incomplete"
    assert trajectory_of(_only(log)).end == "limit"
    assert len(grader.calls) == 0


def test_an_encounter_stopped_by_a_model_error_is_unscored_on_re_score(tmp_path: Path) -> None:
    """The clinician's provider fails in turn 2: a sample error in the run (Inspect scores no
    errored sample), and a re-score leaves it unscored instead of grading half a record."""

    def clinician_reply(messages: list[ChatMessage]) -> dict[str, Any]:
        if any(m.role == "assistant" for m in messages):
            raise RuntimeError("provider unavailable")
        return clinician("Hello, what happened?")

    pat, env = Script([patient("A wasp stung me.")]), Script([environment(0, "initial_assessment")])
    grader = Script([verdicts("demo_anaphylaxis", ALL_ITEMS)])
    [log] = inspect_eval(
        medsp_demo(judge=JUDGE, scenarios=ANAPHYLAXIS),
        model=Script(clinician_reply).model(),
        model_roles={"patient": pat.model(), "environment": env.model(), "grader": grader.model()},
        log_dir=str(tmp_path),
        display="none",
    )
    sample = _only(log)
    assert sample.error is not None and trajectory_of(sample).end == "error"

    rescored = rescore(log, grader)
    score = score_of(_only(rescored))
    assert isinstance(score.value, float) and math.isnan(score.value)
    assert score.reason == "encounter_incomplete"
    assert "RuntimeError during turn 2" in meta_of(_only(rescored))["unscored_why"]
    assert len(grader.calls) == 0
    assert rescored.results is not None and rescored.results.scores[0].unscored_samples == 1


# --------------------------------------------------------------------------- 7. judges


def test_rescoring_without_a_grader_role_uses_the_runs_grader(tmp_path: Path) -> None:
    clin, pat, env = encounter_scripts()
    judge = "mockllm/judge-x"  # the grader role is left to -T judge=
    [log] = inspect_eval(
        medsp_demo(judge=judge, scenarios=ANAPHYLAXIS),
        model=clin.model(),
        model_roles={"patient": pat.model(), "environment": env.model()},
        log_dir=str(tmp_path),
        display="none",
    )
    roles = log.eval.model_roles or {}
    assert "grader" in roles and not isinstance(roles["grader"], list)
    assert roles["grader"].model == judge
    assert meta_of(_only(log))["grader"] == judge

    rescored = inspect_score(log, scorers=[medsp_rubric()], action="overwrite", display="none")
    assert meta_of(_only(rescored))["grader"] == judge  # not the scorer's default


def test_a_bound_grader_role_is_not_overridden_by_the_judge(run: Run) -> None:
    grader_b = Script(per_case(MET_A))
    rescored = rescore(run.log, grader_b, only=ANAPHYLAXIS)
    assert meta_of(_only(rescored))["grader"] == "mockllm/model"
    assert len(grader_b.calls) == 1  # --model-role grader=... wins over what was recorded


# --------------------------------------------------------------------------- 8. intervals


def test_the_interval_treats_cases_not_scenarios_as_the_unit() -> None:
    """Ten scenarios in each of six cases, every scenario of a case done alike: cases are the
    unit, so the interval is the cluster-robust t interval over six case means, far wider than
    if the sixty scenarios were independent."""
    done = {"c1": 1, "c2": 0, "c3": 1, "c4": 0, "c5": 1, "c6": 1}
    scores = [
        SampleScore(
            score=Score(value=score_value({"overall": (met, 1)})),
            sample_id=f"{case}/scenario{i}",
        )
        for case, met in done.items()
        for i in range(1, 11)
    ]
    summary = compute(medsp_summary(), scores)
    assert summary["macro"] == pytest.approx(4 / 6)
    # by hand: residuals per case 10 * (1 - 2/3) or 10 * (0 - 2/3); se^2 = 6/5 * sum / 60^2
    se = math.sqrt(6 / 5 * (4 * (10 / 3) ** 2 + 2 * (20 / 3) ** 2)) / 60
    # degrees of freedom: the cases' own contributions, (sum r^2)^2 / sum r^4 = 4 (below the
    # Bell-McCaffrey 5); a share's interval is on the logit scale around (40 + 0.5) / (60 + 1)
    shrunk = 40.5 / 61
    half = 2.776445 * se / (shrunk * (1 - shrunk))  # t(0.975) on 4 degrees of freedom
    centre = math.log(shrunk / (1 - shrunk))
    low, high = (1 / (1 + math.exp(-(centre + sign * half))) for sign in (-1, 1))
    assert summary["macro_ci_low"] == pytest.approx(low, rel=1e-6)
    assert summary["macro_ci_high"] == pytest.approx(high, rel=1e-6)
    # as if every scenario were its own case, the interval is far narrower
    low, high = mean_ci([float(met) for met in done.values() for _ in range(10)])
    assert high - low < (summary["macro_ci_high"] - summary["macro_ci_low"]) / 2


def test_fewer_than_six_cases_give_no_interval() -> None:
    scores = [
        SampleScore(score=Score(value=score_value({"overall": (i % 2, 1)})), sample_id=f"c{i}/s1")
        for i in range(5)
    ]
    summary = compute(medsp_summary(), scores)
    assert math.isnan(summary["macro_ci_low"]) and math.isnan(summary["macro_ci_high"])


def test_micro_interval_weights_cases_by_their_items() -> None:
    # one case with 9 of 10 items, another with 0 of 2: micro 9/12, interval from the cases
    low, high = cluster_bootstrap([9.0, 0.0], [10.0, 2.0], ["a", "b"])
    assert (low, high) == (0.0, 0.9)
    assert cluster_bootstrap([9.0, 0.0], [10.0, 2.0], ["a", "b"]) == (low, high)  # seeded
