"""Every mistake is one line before anything runs: through the real command lines, with no
key in the environment, each wrong input exits non-zero with one short message, no traceback
and no encounter played (no log written)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval

from inspect_medsp.audit import medsp_simulation_audit
from inspect_medsp.errors import MedSPDataError, MedSPParameterError
from inspect_medsp.probes import medsp_grader_probe
from inspect_medsp.scoring import medsp_rubric

REPO = Path(__file__).resolve().parents[1]
MEDSP_LOG = REPO / "tests" / "fixtures" / "schema1_demo_repeats.eval"
"""A log of the scripted demo (graded by ``medsp/scripted``)."""
SCRIPTED = "medsp/scripted"
BIN = Path(sys.executable).parent

OTHER_TASK = """
from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.scorer import match


@task
def arithmetic():
    return Task(dataset=[Sample(input="1+1?", target="2")], scorer=match())
"""


def keyless_env(tmp_path: Path) -> dict[str, str]:
    """The environment without any provider key, with logs and caches under ``tmp_path``."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.endswith(("_API_KEY", "_API_TOKEN")) and k != "MEDSP_UPSTREAM_ARCHIVE_URL"
    }
    env.update(
        COLUMNS="400",
        INSPECT_LOG_DIR=str(tmp_path / "logs"),
        MEDSP_CACHE_DIR=str(tmp_path / "cache"),
    )
    return env


def run(
    tmp_path: Path, command: str, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / command), *args],
        cwd=tmp_path,
        env=env or keyless_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=300,
    )


def refused(result: subprocess.CompletedProcess[str], tmp_path: Path, *needles: str) -> str:
    """The message of a refusal: non-zero exit, no traceback, at most three non-blank lines
    (one logical line, wrapped), each needle in it, and no log of any encounter."""
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    assert "Traceback" not in output, output
    lines = [line for line in output.splitlines() if line.strip()]
    assert 1 <= len(lines) <= 3, output
    message = " ".join(line.strip() for line in lines)
    for needle in needles:
        assert needle in message, message
    assert not list((tmp_path / "logs").glob("*.eval")), "an encounter was started"
    return message


def demo(*args: str) -> list[str]:
    return ["eval", "inspect_medsp/medsp_demo", "--model", SCRIPTED, *args]


# --------------------------------------------------------------------------- models at load


def test_the_default_grader_without_its_key_stops_the_load(tmp_path: Path) -> None:
    result = run(tmp_path, "inspect", *demo())

    refused(result, tmp_path, "default judge openai/gpt-5.5", "set OPENAI_API_KEY")


def test_roles_bound_around_the_default_grader_still_need_its_key(tmp_path: Path) -> None:
    result = run(
        tmp_path, "inspect", *demo(
            "--model-role", f"patient={SCRIPTED}", "--model-role", f"environment={SCRIPTED}",
        ),
    )  # fmt: skip

    message = refused(result, tmp_path, "set OPENAI_API_KEY")
    assert "(it plays grader)" in message


def test_a_bound_role_without_its_key_stops_the_load(tmp_path: Path) -> None:
    bound = ("--model-role", "grader=openai/gpt-5.5")
    result = run(tmp_path, "inspect", *demo("-T", f"judge={SCRIPTED}", *bound))

    refused(result, tmp_path, "OPENAI_API_KEY")


def test_a_judge_whose_provider_is_not_installed_names_the_install(tmp_path: Path) -> None:
    result = run(tmp_path, "inspect", *demo("-T", "judge=nosuchprovider/x"))

    refused(result, tmp_path, "task parameter judge='nosuchprovider/x' is not accepted")


def test_a_rescore_whose_grader_has_no_key_stops_before_grading(tmp_path: Path) -> None:
    out = tmp_path / "rescored.eval"
    result = run(
        tmp_path, "inspect", "score", str(MEDSP_LOG), "--scorer", "inspect_medsp/medsp_rubric",
        "--model-role", "grader=openai/gpt-5.5", "--output-file", str(out),
    )  # fmt: skip

    refused(result, tmp_path, "scorer medsp_rubric grades with openai/gpt-5.5", "OPENAI_API_KEY")
    assert not out.exists()


# --------------------------------------------------------------------------- a person


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (
            ("--model-role", "patient=medsp/human/bob", "--max-samples", "1"),
            ("--model-role patient=medsp/human/bob is not accepted", "clinician only"),
        ),
        (("--model", "medsp/human/x"), ("one case at a time", "add --max-samples 1")),
        (
            ("--model", "medsp/human/x", "--max-samples", "1", "--display", "none"),
            ("needs a screen", "--display none"),
        ),
    ],
    ids=["patient", "no-max-samples", "display-none"],
)
def test_a_person_only_where_a_person_can_be(
    tmp_path: Path, args: tuple[str, ...], needles: tuple[str, ...]
) -> None:
    model = [] if "--model" in args else ["--model", SCRIPTED]
    command = ["eval", "inspect_medsp/medsp_demo", *model, "-T", f"judge={SCRIPTED}", *args]

    result = run(tmp_path, "inspect", *command)

    refused(result, tmp_path, *needles)


@pytest.mark.parametrize(
    ("model", "options", "needles"),
    [
        (
            SCRIPTED,
            {"model_roles": {"grader": "medsp/human/x"}},
            ("--model-role grader=medsp/human/x is not accepted",),
        ),
        (
            "medsp/human/x",
            {"max_samples": 2},
            ("--max-samples 2 lets several run together",),
        ),
        (
            "medsp/human/x",
            {"max_samples": 1, "task_args": {"strategy": "bon"}},
            ("strategy=bon is not accepted with --model medsp/human/x", "off or single"),
        ),
        (
            "medsp/human/x",
            {"max_samples": 1, "task_args": {"protocol": "tools"}},
            ("protocol=tools is not accepted with --model medsp/human/x",),
        ),
        (
            SCRIPTED,
            {"task_args": {"feedback": True}},
            ("feedback=true is not accepted with --model medsp/scripted", "for a person"),
        ),
    ],
    ids=["grader", "max-samples-2", "bon", "tools", "feedback"],
)
def test_each_refusal_comes_from_the_load_in_python_too(
    tmp_path: Path, model: str, options: dict[str, Any], needles: tuple[str, ...]
) -> None:
    task_args = {"judge": SCRIPTED, **options.pop("task_args", {})}

    with pytest.raises(MedSPParameterError) as error:
        inspect_eval(
            "inspect_medsp/medsp_demo", model=model, task_args=task_args,
            log_dir=str(tmp_path / "logs"), display="plain", **options,
        )  # fmt: skip

    message = str(error.value)
    assert "\n" not in message
    for needle in needles:
        assert needle in message
    assert not list((tmp_path / "logs").glob("*.eval"))


# --------------------------------------------------------------------------- other values


def test_an_empty_scenario_selection_is_not_every_scenario(tmp_path: Path) -> None:
    result = run(tmp_path, "inspect", *demo("-T", f"judge={SCRIPTED}", "-T", "scenarios="))

    refused(result, tmp_path, "scenarios= (empty) is not accepted", "omit it")


def test_a_cache_folder_that_cannot_be_written_is_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    env = keyless_env(tmp_path) | {"MEDSP_CACHE_DIR": str(blocker)}
    command = ["eval", "inspect_medsp/medsp100", "--model", SCRIPTED, "-T", f"judge={SCRIPTED}"]

    result = run(tmp_path, "inspect", *command, env=env)

    refused(result, tmp_path, f"cannot write the MedSP cache folder '{blocker}", "MEDSP_CACHE_DIR")


def test_a_scorer_parameter_is_one_line_before_grading(tmp_path: Path) -> None:
    out = tmp_path / "rescored.eval"
    result = run(
        tmp_path, "inspect", "score", str(MEDSP_LOG), "--scorer", "inspect_medsp/medsp_rubric",
        "-S", "samples=abc", "--output-file", str(out),
    )  # fmt: skip

    refused(result, tmp_path, "scorer medsp_rubric: -S samples='abc' is not accepted: samples")
    assert not out.exists()


@pytest.mark.parametrize(
    ("make", "given", "needle"),
    [
        (medsp_rubric, {"samples": "abc"}, "-S samples='abc' is not accepted: samples takes"),
        (medsp_rubric, {"samples": True}, "-S samples=True is not accepted"),
        (medsp_rubric, {"temperature": 5}, "-S temperature=5 is not accepted"),
        (medsp_rubric, {"nosuch": 1}, "-S nosuch is not a parameter of medsp_rubric"),
        (medsp_rubric, {"judge": "medsp/human"}, "-S judge='medsp/human' is not accepted"),
        (medsp_rubric, {"judge": "gpt"}, "-S judge='gpt' is not accepted"),
        (medsp_simulation_audit, {"cache": "maybe"}, "-S cache='maybe' is not accepted"),
        (medsp_simulation_audit, {"config": "hot"}, "-S config='hot' is not accepted"),
        (medsp_grader_probe, {"probes": "recitall"}, "unknown probe recitall"),
        (medsp_grader_probe, {"nosuch": 1}, "-S nosuch is not a parameter of medsp_grader_probe"),
    ],
)
def test_every_scorer_parameter_is_one_line(
    make: Callable[..., object], given: dict[str, Any], needle: str
) -> None:
    with pytest.raises(MedSPDataError) as error:
        make(**given)

    assert "\n" not in str(error.value)
    assert needle in str(error.value)


@pytest.fixture(scope="module")
def other_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A log of a task that is not MedSP's."""
    folder = tmp_path_factory.mktemp("other")
    (folder / "arithmetic.py").write_text(OTHER_TASK)
    made = run(folder, "inspect", "eval", "arithmetic.py", "--model", "mockllm/model",
               "--log-dir", str(folder / "other"))  # fmt: skip
    assert made.returncode == 0, made.stderr
    [log] = list((folder / "other").glob("*.eval"))
    return log


def test_our_scorer_refuses_another_tasks_log(tmp_path: Path, other_log: Path) -> None:
    other, scorer = other_log, "medsp_rubric"
    result = run(
        tmp_path, "inspect", "score", str(other), "--scorer", f"inspect_medsp/{scorer}",
        "--output-file", str(tmp_path / "rescored.eval"),
    )  # fmt: skip

    refused(result, tmp_path, "is a log of task arithmetic, not of a MedSP task", scorer)


def test_a_report_folder_that_cannot_be_written_is_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")

    result = run(tmp_path, "medsp-report", str(MEDSP_LOG), "--out", str(blocker / "report"))

    refused(result, tmp_path, f"--out {blocker / 'report'}: cannot write there")
