"""A run says what it covered: the published size of each task, a run that covers less marked
as not comparable, a mostly failing run stopped, and bad role settings refused at load."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import ChatMessage

from inspect_medsp import medsp_demo
from inspect_medsp.data.dataset import load_records, rubric_report
from inspect_medsp.data.published import PUBLISHED_SCENARIOS
from inspect_medsp.data.rubrics import load_rubrics, load_subset
from inspect_medsp.tasks import FAIL_ON_ERROR
from tests.conftest import DEMO
from tests.support.offline_tokens import inspect_cli
from tests.support.scripts import Script
from tests.test_scoring import ANAPHYLAXIS, MET_A, encounter_scripts, per_case

WIDE = 400
"""Console width for CLI runs, so one logical line is one printed line."""


def one_line_without_traceback(output: str, needle: str) -> str:
    """The single output line holding ``needle``; the output must hold no traceback."""
    assert "Traceback" not in output, output
    lines = [line for line in output.splitlines() if needle in line]
    assert len(lines) == 1, output
    return lines[0]


# --------------------------------------------------------------------------- published size


def test_published_sizes_are_those_of_the_pinned_rubrics(upstream: Path) -> None:
    rubric_set = load_rubrics(upstream)
    everything = rubric_report(rubric_set, None, "MedSP1000")
    subset = rubric_report(rubric_set, load_subset(upstream), "MedSP-Q100")

    assert PUBLISHED_SCENARIOS["MedSP1000"] == everything.scenarios == 1548
    assert PUBLISHED_SCENARIOS["MedSP-Q100"] == subset.scenarios == 100


def test_published_size_of_the_demo_is_its_bundled_scenarios() -> None:
    records, report = load_records(DEMO / "scenarios", DEMO / "upstream", name="MedSP-demo")

    assert PUBLISHED_SCENARIOS["MedSP-demo"] == len(records) == report.scenarios == 3


def test_a_task_loading_fewer_scenarios_than_published_says_it_is_not_comparable(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING, logger="inspect_medsp"):
        part = medsp_demo(scenarios=ANAPHYLAXIS)
    assert part.metadata is not None
    assert part.metadata["medsp_load"]["published"] == 3
    assert (
        "MedSP-demo: 1 of 3 published scenarios loaded; a run of these is not comparable "
        "with the published numbers"
    ) in caplog.messages

    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="inspect_medsp"):
        whole = medsp_demo()
    assert whole.metadata is not None and whole.metadata["medsp_load"]["published"] == 3
    assert not [m for m in caplog.messages if "published" in m]


# --------------------------------------------------------------------------- failing runs


def _clinician_failing_in(cases: tuple[str, ...]) -> Script:
    """The scripted clinician, raising a provider error in the given demo scenarios."""
    scripted, _, _ = encounter_scripts()

    def reply(messages: list[ChatMessage]) -> object:
        if any(case in "\n".join(m.text for m in messages) for case in cases):
            raise RuntimeError("provider is down (HTTP 503)")
        assert callable(scripted.replies)
        return scripted.replies(messages)

    return Script(reply)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("failing", "status"),
    [
        # one sample of three: an isolated error is tolerated
        (("Thomas Brennan",), "success"),
        # two of three: a mostly failing run stops
        (("Thomas Brennan", "Linda Haverford"), "error"),
    ],
)
def test_a_mostly_failing_run_stops_and_an_isolated_error_does_not(
    tmp_path: Path, failing: tuple[str, ...], status: str
) -> None:
    _, patient, environment = encounter_scripts()
    [log] = inspect_eval(
        medsp_demo(judge="mockllm/model"),
        model=_clinician_failing_in(failing).model(),
        model_roles={
            "patient": patient.model(),
            "environment": environment.model(),
            "grader": Script(per_case(MET_A)).model(),
        },
        log_dir=str(tmp_path),
        display="none",
    )

    assert FAIL_ON_ERROR == 0.5
    assert log.status == status
    errored = {str(s.id) for s in log.samples or [] if s.error is not None}
    if status == "success":
        assert errored == {ANAPHYLAXIS}
        assert log.results is not None and log.results.completed_samples == 2
    else:
        assert len(errored) >= 2


# --------------------------------------------------------------------------- roles at load


def test_a_judge_no_provider_can_make_is_one_line_at_load() -> None:
    result = inspect_cli(
        "eval", "inspect_medsp/medsp_demo", "--model", "medsp/scripted",
        "-T", "judge=nosuchprovider/x", columns=WIDE,
    )  # fmt: skip

    assert result.returncode != 0
    line = one_line_without_traceback(result.stdout + result.stderr, "nosuchprovider")
    assert "task parameter judge='nosuchprovider/x' is not accepted" in line
    assert "not recognized" in line
    assert "judge takes a model name provider/model" in line
