"""One run context per task load: what Inspect's loader knows is read once and every
load-time check receives it."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log

from inspect_medsp import medsp_demo
from inspect_medsp.preflight import context, models


def test_the_judge_is_checked_once_per_load(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[str] = []
    check = models.model_unavailable

    def counted(name: str) -> str | None:
        asked.append(name)
        return check(name)

    monkeypatch.setattr(context, "model_unavailable", counted)
    medsp_demo(judge="mockllm/model", audit=True)
    assert asked == ["mockllm/model"]


def test_outside_inspects_loader_the_context_knows_nothing() -> None:
    found = context.run_context()
    assert not found.loading and found.model is None and found.task_args == {}
    assert context.rescore_context() == context.RescoreContext()


BIN = Path(sys.executable).parent
SCRIPTED = "medsp/scripted"


def inspect(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_API_TOKEN"))}
    env.update(COLUMNS="400", MEDSP_CACHE_DIR=str(tmp_path / "cache"))
    return subprocess.run(
        [str(BIN / "inspect"), *args, "--log-dir", str(tmp_path / "logs")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def one_line(result: subprocess.CompletedProcess[str], tmp_path: Path) -> str:
    output = result.stdout + result.stderr
    assert result.returncode != 0 and "Traceback" not in output, output
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    assert 1 <= len(lines) <= 3, output
    assert not list((tmp_path / "logs").glob("*.eval")), "a run was started"
    return " ".join(lines)


def test_an_unknown_task_parameter_is_refused_with_the_nearest_name(tmp_path: Path) -> None:
    # Inspect itself only warns and drops it: the run would go on at the default turn limit
    result = inspect(
        tmp_path, "eval", "inspect_medsp/medsp_demo", "--model", SCRIPTED, "-T",
        f"judge={SCRIPTED}", "-T", "max_turn=5", "--display", "none",
    )  # fmt: skip
    message = one_line(result, tmp_path)
    assert "task parameter max_turn is not a parameter of medsp_demo" in message
    assert "did you mean -T max_turns=...?" in message


@pytest.mark.parametrize(
    ("task", "args", "given", "meant"),
    [
        ("medsp_contamination", ["-T", "benchmark=medsp_demo"], "benchmarks=medsp100", "benchmark"),
        ("medsp_specialty", ["-T", "demo=true"], "scenario=demo_bad_news/*", "scenarios"),
    ],
)
def test_the_other_tasks_refuse_an_unknown_parameter_too(
    tmp_path: Path, task: str, args: list[str], given: str, meant: str
) -> None:
    # Inspect would warn and probe (or label) every scenario of the default selection
    result = inspect(
        tmp_path, "eval", f"inspect_medsp/{task}", *args, "-T", given, "--model",
        "medsp/seen-nothing", "--display", "none",
    )  # fmt: skip
    message = one_line(result, tmp_path)
    name = given.split("=")[0]
    assert f"task parameter {name} is not a parameter of {task}" in message
    assert f"did you mean -T {meant}=...?" in message


def test_the_scripted_provider_cannot_label_specialties(tmp_path: Path) -> None:
    result = inspect(
        tmp_path, "eval", "inspect_medsp/medsp_specialty", "-T", "demo=true", "--model",
        SCRIPTED, "--display", "none",
    )  # fmt: skip
    assert f"--model {SCRIPTED} cannot label specialties" in one_line(result, tmp_path)


def test_a_run_without_scoring_says_it_is_not_scored_yet(tmp_path: Path) -> None:
    result = inspect(
        tmp_path, "eval", "inspect_medsp/medsp_demo", "--model", SCRIPTED, "-T",
        f"judge={SCRIPTED}", "-T", "scenarios=demo_bad_news/*", "--no-score",
        "--display", "plain",
    )  # fmt: skip
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    [log] = list((tmp_path / "logs").glob("*.eval"))
    assert "MedSP-demo: not scored yet (run with --no-score)" in output
    # the one command that grades it, alone on its line and unattended
    assert (
        "MedSP: grade the run (not scored: --no-score) with:\n"
        f"inspect score {log} --scorer inspect_medsp/medsp_rubric --action overwrite "
        "--overwrite\n"
    ) in output
    # (the load summary says a part of the demo is not comparable; the end says nothing more)
    assert "scenarios scored" not in output
    assert "not comparable with the published numbers" not in output.split("not scored yet")[1]

    # the printed command, pasted as it is and run with no terminal (stdin closed, no tty):
    # it asks nothing, exits 0 and grades the log in place
    lines = output.splitlines()
    command = lines[lines.index("MedSP: grade the run (not scored: --no-score) with:") + 1]
    words = shlex.split(command)
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_API_TOKEN"))}
    graded = subprocess.run(
        [str(BIN / words[0]), *words[1:]], cwd=tmp_path, env=env, stdin=subprocess.DEVNULL,
        capture_output=True, text=True, timeout=300, start_new_session=True,
    )  # fmt: skip
    assert graded.returncode == 0, graded.stdout + graded.stderr
    assert "Aborted" not in graded.stdout + graded.stderr
    scored = read_eval_log(str(log))
    assert scored.samples is not None
    value = (scored.samples[0].scores or {})["medsp_rubric"]
    assert value.answer == "11/17 items"  # the demo's bad-news case, as the run scores it


def test_a_data_revision_from_the_environment_is_checked_as_the_parameter_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # -T data_revision is no parameter of the bundled demo: the variable is refused the same
    monkeypatch.setenv("MEDSP_DATA_REVISION", "v2")
    result = inspect(
        tmp_path, "eval", "inspect_medsp/medsp_demo", "--model", SCRIPTED, "-T",
        f"judge={SCRIPTED}", "--display", "none",
    )  # fmt: skip
    message = one_line(result, tmp_path)
    assert "MEDSP_DATA_REVISION=v2 is set, but medsp_demo downloads no scenario data" in message
