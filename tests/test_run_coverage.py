"""A run says what it covered: the published size of each task, a run that covers less marked
as not comparable, a mostly failing run stopped, and bad role settings refused at load."""

from __future__ import annotations

import logging
import math
import re
import shlex
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog, headline_metric, list_eval_logs, read_eval_log
from inspect_ai.model import ChatMessage, GenerateConfig, get_model
from inspect_ai.model._model import init_active_model

from inspect_medsp import medsp_demo
from inspect_medsp.audit.scorer import AUDITOR_ROLE
from inspect_medsp.data import load_records, load_rubrics, load_subset, rubric_report
from inspect_medsp.data.published import PUBLISHED_SCENARIOS
from inspect_medsp.errors import MedSPParameterError
from inspect_medsp.hooks.roles import MEDSP_ROLES
from inspect_medsp.runcheck import JUDGED_ROLES
from inspect_medsp.tasks import FAIL_ON_ERROR
from tests.conftest import DEMO
from tests.support.offline_tokens import inspect_cli
from tests.support.scripts import Script
from tests.test_scoring import ANAPHYLAXIS, MET_A, encounter_scripts, per_case

WIDE = 400
"""Console width for CLI runs, so one logical line is one printed line."""
CONSOLE_COLUMNS = re.compile(r"^\s*(\[[^]]*\]\s*)?(WARNING|INFO)\s+|\s+\w+\.py:\d+\s*$")
"""The time, level and source columns Inspect's console puts around a logged message."""


def one_line_without_traceback(output: str, needle: str) -> str:
    """The single output line holding ``needle``, without the console's level and source
    columns; the output must hold no traceback."""
    assert "Traceback" not in output, output
    lines = [line for line in output.splitlines() if needle in line]
    assert len(lines) == 1, output
    return CONSOLE_COLUMNS.sub("", lines[0]).strip()


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
        metrics = log.results.scores[0].metrics  # the run summary: N of M scenarios
        assert (metrics["scenarios"].value, metrics["published_scenarios"].value) == (2, 3)
    else:
        assert len(errored) >= 2


# --------------------------------------------------------------------------- roles at load


def test_a_judge_no_provider_can_make_is_one_line_at_load(log_dir: str) -> None:
    result = inspect_cli(
        "eval", "inspect_medsp/medsp_demo", "--model", "medsp/scripted",
        "-T", "judge=nosuchprovider/x", "--log-dir", log_dir, columns=WIDE,
    )  # fmt: skip

    assert result.returncode != 0
    line = one_line_without_traceback(result.stdout + result.stderr, "nosuchprovider")
    assert "task parameter judge='nosuchprovider/x' is not accepted" in line
    assert "not recognized" in line
    assert "judge takes a model name provider/model" in line


# --------------------------------------------------------------------------- end of the run


def _demo_cli(log_dir: Path, *args: str) -> tuple[str, EvalLog]:
    """``inspect eval`` of the scripted demo (two turns, one scenario), its output and log."""
    result = inspect_cli(
        "eval", "inspect_medsp/medsp_demo", "--model", "medsp/scripted",
        "-T", "judge=medsp/scripted", "-T", "max_turns=2", "-T", "scenarios=demo_a*",
        "--log-dir", str(log_dir), *args, columns=WIDE,
    )  # fmt: skip
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-3000:]
    [info] = list_eval_logs(str(log_dir))
    return output, read_eval_log(info.name)


def test_a_run_with_nothing_scored_keeps_its_headline_and_its_rerun_hint_can_be_pasted(
    tmp_path: Path,
) -> None:
    """A token limit cuts the only encounter short: nothing is scored. The end of the run says
    0 of 3, the headline stays macro, and the re-run command, printed alone on its line at the
    very end and pasted as printed, runs the same sample with the same model, judge, grader
    role, parameters, samples at a time and log folder (without the limit)."""
    output, log = _demo_cli(
        tmp_path / "cut", "--model-role", "grader=mockllm/model", "--token-limit", "2000",
        "--model-role", "grder=mockllm/model", "--max-samples", "1", "--temperature", "0.3",
    )  # fmt: skip

    assert one_line_without_traceback(output, "grder") == (
        "MedSP: --model-role grder=... is not a role MedSP uses, so that model plays nothing; "
        "the roles are patient, environment, grader, auditor (the clinician, the model under "
        "test, is --model)"
    )
    assert "Headline metric" not in output  # not even before the first sample is scored
    resolved = headline_metric(log)
    assert resolved is not None and resolved.name == "macro" and math.isnan(resolved.metric.value)
    assert one_line_without_traceback(output, "published scenarios scored") == (
        "MedSP-demo: 0 of 3 published scenarios scored (1 unscored); not comparable with the "
        "published numbers"
    )
    assert one_line_without_traceback(output, "could not be scored").endswith(
        're-run them with the command printed alone on the line after "MedSP: re-run the ..."'
    )
    lines = output.splitlines()
    heading = f"MedSP: re-run the 1 encounter that did not finish ({ANAPHYLAXIS}) with:"
    assert lines.count(heading) == 1
    command = lines[lines.index(heading) + 1]
    assert command == (
        "inspect eval inspect_medsp/medsp_demo --model medsp/scripted --temperature 0.3 "
        "-T judge=medsp/scripted -T 'scenarios=demo_a*' -T max_turns=2 "
        f"--model-role grader=mockllm/model --max-samples 1 --log-dir {tmp_path / 'cut'} "
        f"--sample-id {ANAPHYLAXIS}"
    )

    result = inspect_cli(*shlex.split(command)[1:], columns=WIDE)
    pasted = result.stdout + result.stderr
    assert result.returncode == 0, pasted[-3000:]
    infos = list_eval_logs(str(tmp_path / "cut"))
    assert len(infos) == 2  # the re-run writes next to the first run
    [rerun] = [r for r in map(read_eval_log, infos) if r.eval.eval_id != log.eval.eval_id]
    assert rerun.eval.model == "medsp/scripted"
    assert rerun.eval.model_generate_config.temperature == 0.3
    assert rerun.eval.config.max_samples == 1 and rerun.eval.config.token_limit is None
    assert rerun.samples is not None and [str(s.id) for s in rerun.samples] == [ANAPHYLAXIS]
    score = (rerun.samples[0].scores or {})["medsp_rubric"]
    assert score.reason == "grader_failed"  # it ran to the end; mockllm is no grader
    # the one re-grade command, alone on the line after its heading, whole and unattended; the
    # log holds other scores (the work-up), so the grading is appended, never overwriting them
    lines = pasted.splitlines()
    heading = f"MedSP: re-grade the 1 encounter not graded ({ANAPHYLAXIS}) with:"
    assert lines.count(heading) == 1
    assert lines[lines.index(heading) + 1] == (
        f"inspect score {str(rerun.location).removeprefix('file://')} --scorer "
        "inspect_medsp/medsp_rubric --action append --overwrite"
    )


# --------------------------------------------------------------------------- roles and protocol


def test_the_scripted_demo_with_the_tools_protocol_is_refused_at_load(log_dir: str) -> None:
    result = inspect_cli(
        "eval", "inspect_medsp/medsp_demo", "--model", "medsp/scripted",
        "-T", "judge=medsp/scripted", "-T", "protocol=tools", "--log-dir", log_dir,
        columns=WIDE,
    )  # fmt: skip

    assert result.returncode != 0
    output = result.stdout + result.stderr
    line = one_line_without_traceback(output, "protocol='tools'")
    assert line == (
        "task parameter protocol='tools' is not accepted with --model medsp/scripted: the "
        "scripted demo replays JSON turns and cannot call tools; drop -T protocol=tools (or "
        "evaluate another model)"
    )
    assert "MedSP-demo:" not in output  # refused before any data is loaded


@pytest.mark.parametrize("named", ["inspect_medsp/medsp_demo", "function"])
def test_the_scripted_demo_with_the_tools_protocol_is_refused_when_python_loads_it(
    named: str, tmp_path: Path
) -> None:
    """``eval()`` loads the task by name, as ``inspect eval`` does: the refusal must fire
    there too, before any sample runs. If Inspect stops loading tasks through the function the
    check looks for, this fails rather than the check going quiet."""
    with pytest.raises(MedSPParameterError, match=r"protocol='tools' is not accepted with"):
        inspect_eval(
            "inspect_medsp/medsp_demo" if named != "function" else medsp_demo,
            model="medsp/scripted",
            task_args={"protocol": "tools", "judge": "medsp/scripted"},
            log_dir=str(tmp_path),
            display="none",
        )
    assert list_eval_logs(str(tmp_path)) == []


def test_a_task_built_in_python_ignores_the_model_an_earlier_eval_left(tmp_path: Path) -> None:
    """Built outside Inspect's loader, the task cannot know its model: it does not read the
    active model an earlier eval left behind. The scripted demo then fails each sample with
    the provider's own one-line reason (no doubled parenthesis)."""
    init_active_model(get_model("medsp/scripted"), GenerateConfig())  # as an earlier eval leaves it
    try:
        task = medsp_demo(protocol="tools", judge="medsp/scripted", scenarios=ANAPHYLAXIS)
    finally:
        init_active_model(get_model("mockllm/model"), GenerateConfig())
    [log] = inspect_eval(
        task, model="medsp/scripted", log_dir=str(tmp_path), display="none", fail_on_error=False
    )

    assert log.samples is not None and log.samples[0].error is not None
    message = log.samples[0].error.message
    assert "medsp/scripted cannot call tools: it plays protocol=turns only; drop -T " in message
    assert "))" not in message


def test_every_role_medsp_asks_for_is_known_to_the_role_check() -> None:
    assert set(MEDSP_ROLES) == {*JUDGED_ROLES, AUDITOR_ROLE}
