"""Every load-time refusal holds on every entry point: ``inspect eval``, ``inspect eval-set``,
``eval()`` and ``eval_set()`` from Python, each refused in one line with no log written; a run
of several tasks treats a ``-T`` as Inspect does (another task's parameter is that task's);
and an Inspect release that moves a private name degrades to one warning, not an error.

The Python entry points run every refusal, in this process. The command lines (a few
seconds a run) run one refusal of each way a refusal learns what it refuses: a ``-T`` name
(the task's ``**kwargs``), an empty ``-T`` value (an explicit None), the run's options and its
concurrency (the frame of ``eval``'s or ``eval_set``'s runner) and a bound role (Inspect's
public ``model_roles()``); ``test_load_checks.py`` runs the others on ``inspect eval``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import Epochs, eval_set
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog, read_eval_log

from inspect_medsp.errors import MedSPParameterError
from inspect_medsp.preflight import RunContext, unknown_in_run
from inspect_medsp.record import OTHER_TASKS_ARGS

BIN = Path(sys.executable).parent
SUPPORT = Path(__file__).parent / "support"
OTHER_TASK = SUPPORT / "other_package_task.py"
"""A task of "another package": its own ``-T difficulty`` and ``-T note``."""
SCRIPTED = "medsp/scripted"
PERSON = "medsp/human/x"
DEMO = "inspect_medsp/medsp_demo"


class Refusal:
    """One load-time refusal: the model, its command-line arguments, the same as Python
    options, and the words of its one line."""

    def __init__(self, model: str, cli: list[str], python: dict[str, Any], says: str) -> None:
        self.model, self.cli, self.python, self.says = model, cli, python, says


REFUSALS: dict[str, Refusal] = {
    "unknown-name": Refusal(
        SCRIPTED,
        ["-T", "max_turn=5"],
        {"task_args": {"max_turn": 5}},
        "task parameter max_turn is not a parameter of medsp_demo: did you mean -T max_turns=...?",
    ),
    "empty-scenarios": Refusal(
        SCRIPTED,
        ["-T", "scenarios="],
        {"task_args": {"scenarios": None}},
        "task parameter scenarios= (empty) is not accepted",
    ),
    "person-epochs": Refusal(
        PERSON,
        ["--epochs", "2", "--max-samples", "1"],
        {"epochs": 2, "max_samples": 1},
        f"--epochs 2 is not accepted with --model {PERSON}",
    ),
    "person-time-limit": Refusal(
        PERSON,
        ["--time-limit", "60", "--max-samples", "1"],
        {"time_limit": 60, "max_samples": 1},
        f"--time-limit 60 is not accepted with --model {PERSON}",
    ),
    "person-max-samples": Refusal(
        PERSON,
        ["--max-samples", "2"],
        {"max_samples": 2},
        f"--model {PERSON} takes one case at a time and --max-samples 2 lets several run",
    ),
    "person-no-score": Refusal(
        PERSON,
        ["-T", "feedback=true", "--no-score", "--max-samples", "1"],
        {"task_args": {"feedback": True}, "score": False, "max_samples": 1},
        "task parameter feedback=true is not accepted with --no-score",
    ),
    "person-as-grader": Refusal(
        SCRIPTED,
        ["--model-role", f"grader={PERSON}"],
        {"model_roles": {"grader": PERSON}},
        f"--model-role grader={PERSON} is not accepted",
    ),
    "person-variants": Refusal(
        PERSON,
        ["-T", "variants=baseline,anxious", "--max-samples", "1"],
        {"task_args": {"variants": "baseline,anxious"}, "max_samples": 1},
        f"task parameter variants=baseline,anxious is not accepted with --model {PERSON}",
    ),
    "epochs-reducer": Refusal(
        SCRIPTED,
        ["--epochs", "2", "--epochs-reducer", "mean"],
        {"epochs": Epochs(2, "mean")},
        "--epochs-reducer mean is not accepted",
    ),
    "scripted-tools": Refusal(
        SCRIPTED,
        ["-T", "protocol=tools"],
        {"task_args": {"protocol": "tools"}},
        f"task parameter protocol='tools' is not accepted with --model {SCRIPTED}",
    ),
}


ON_THE_COMMAND_LINE = (
    "unknown-name",
    "empty-scenarios",
    "person-epochs",
    "person-max-samples",
    "person-as-grader",
    "epochs-reducer",
)
"""One refusal of each way a refusal learns what it refuses."""


def environment(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_API_TOKEN"))}
    env.update(COLUMNS="400", MEDSP_CACHE_DIR=str(tmp_path / "cache"))
    return env


def inspect_cli(tmp_path: Path, logs: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "inspect"), *args, "--log-dir", str(logs)],
        cwd=tmp_path,
        env=environment(tmp_path),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
    )


def one_line(result: subprocess.CompletedProcess[str], logs: Path) -> str:
    """The refusal's line: non-zero exit, no traceback, one logical line (wrapped at most
    into three), and no log written."""
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    assert "Traceback" not in output, output
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    assert 1 <= len(lines) <= 3, output
    assert not list(logs.glob("*.eval")), "a run was started"
    return " ".join(lines)


@pytest.mark.parametrize("command", ["eval", "eval-set"])
def test_every_refusal_holds_on_the_command_line(tmp_path: Path, command: str) -> None:
    def refuse(name: str) -> str | None:
        refusal = REFUSALS[name]
        logs = tmp_path / name / "logs"
        logs.parent.mkdir()
        result = inspect_cli(
            logs.parent, logs, command, DEMO, "--model", refusal.model, "-T",
            f"judge={SCRIPTED}", *refusal.cli, "--display", "plain",
        )  # fmt: skip
        try:
            message = one_line(result, logs)
        except AssertionError as err:
            return f"{name}: {err}"
        return None if refusal.says in message else f"{name}: not refused as such: {message}"

    with ThreadPoolExecutor(max_workers=3) as pool:
        failures = [f for f in pool.map(refuse, ON_THE_COMMAND_LINE) if f is not None]
    assert failures == []


@pytest.mark.parametrize("entry", ["eval", "eval_set"])
@pytest.mark.parametrize("name", list(REFUSALS))
def test_every_refusal_holds_in_python(tmp_path: Path, entry: str, name: str) -> None:
    refusal = REFUSALS[name]
    options = dict(refusal.python)
    task_args = {"judge": SCRIPTED, **options.pop("task_args", {})}
    run = inspect_eval if entry == "eval" else eval_set
    logs = tmp_path / "logs"

    with pytest.raises(MedSPParameterError) as error:
        run(
            DEMO, model=refusal.model, task_args=task_args, log_dir=str(logs),
            display="plain", **options,
        )  # fmt: skip

    message = str(error.value)
    assert "\n" not in message and refusal.says in message
    assert not list(logs.glob("*.eval"))


# --------------------------------------------------------------------------- several tasks


def logs_of(folder: Path) -> dict[str, EvalLog]:
    return {
        (log := read_eval_log(str(path))).eval.task.split("/")[-1]: log
        for path in folder.glob("*.eval")
    }


def test_another_tasks_parameter_is_left_to_it_and_a_typo_still_refused(tmp_path: Path) -> None:
    # inspect eval medsp_demo <another package's task> -T difficulty=medium runs both
    logs = tmp_path / "logs"
    (tmp_path / OTHER_TASK.name).write_text(OTHER_TASK.read_text(encoding="utf-8"))
    (tmp_path / "typo").mkdir()
    (tmp_path / "typo" / OTHER_TASK.name).write_text(OTHER_TASK.read_text(encoding="utf-8"))
    both = [
        "eval", DEMO, OTHER_TASK.name, "--model", SCRIPTED, "-T", f"judge={SCRIPTED}",
        "-T", "difficulty=medium", "--display", "plain",
    ]  # fmt: skip
    result = inspect_cli(tmp_path, logs, *both)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "param 'difficulty' not used by task 'inspect_medsp/medsp_demo'" in output
    ran = logs_of(logs)
    assert {task: log.status for task, log in ran.items()} == {
        "medsp_demo": "success",
        "other_package_task": "success",
    }
    assert ran["other_package_task"].eval.task_args["difficulty"] == "medium"
    # recorded as another task's, so a re-run of medsp_demo alone leaves it out
    assert (ran["medsp_demo"].eval.metadata or {})[OTHER_TASKS_ARGS] == ["difficulty"]
    macro = ran["medsp_demo"].results.scores[0].metrics["macro"].value  # type: ignore[union-attr]
    assert round(macro, 3) == 0.706

    # a name no task of the run takes is refused, with the nearest MedSP name
    typo = tmp_path / "typo"
    result = inspect_cli(typo, typo / "logs", *both[:-2], "-T", "max_turn=5", "--display", "none")
    assert "did you mean -T max_turns=...?" in one_line(result, typo / "logs")


def context(run: tuple[str, ...] | None, **given: Any) -> RunContext:
    return RunContext(loading=True, model=SCRIPTED, task_args=given, run_tasks=run)


DEMO_NAMES = ["judge", "max_turns", "cache", "scenarios"]


def test_a_medsp_task_of_the_run_takes_its_own_names() -> None:
    # medsp_demo with medsp_custom -T cases=DIR: cases is medsp_custom's, not a typo of cache
    run = (DEMO, "inspect_medsp/medsp_custom")
    assert unknown_in_run("medsp_demo", DEMO_NAMES, context(run, cases="cases/")) is None
    alone = unknown_in_run("medsp_demo", DEMO_NAMES, context((DEMO,), cases="cases/"))
    assert alone == (
        "task parameter cases is not a parameter of medsp_demo: did you mean -T cache=...?"
    )


def test_a_task_that_cannot_be_read_leaves_a_name_to_it_but_not_a_near_miss(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    anything = tmp_path / "anything.py"
    anything.write_text(
        textwrap.dedent(
            """
            from inspect_ai import task

            @task
            def anything(**kwargs):
                ...
            """
        )
    )
    for run in ((DEMO, str(anything)), (DEMO, "nowhere/unknown_task")):
        assert unknown_in_run("medsp_demo", DEMO_NAMES, context(run, colour="red")) is None
        near = unknown_in_run("medsp_demo", DEMO_NAMES, context(run, max_turn=5))
        assert near is not None and "did you mean -T max_turns=...?" in near
    assert "-T colour is no parameter of medsp_demo" in caplog.text


def test_outside_inspects_loader_an_unknown_name_is_refused_as_python_would() -> None:
    outside = RunContext(task_args={"difficulty": "medium"})
    assert unknown_in_run("medsp_demo", DEMO_NAMES, outside) is not None


def test_a_users_wrapper_task_keeps_its_own_parameter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # Inspect takes a task file relative to the working folder
    wrapper = tmp_path / "wrapper.py"
    wrapper.write_text(
        textwrap.dedent(
            f"""
            from inspect_ai import task
            from inspect_medsp import medsp_demo

            @task
            def wrapped_demo(note: str = ""):
                return medsp_demo(judge="{SCRIPTED}", scenarios="demo_bad_news/*")
            """
        )
    )
    [log] = inspect_eval(
        wrapper.name, model=SCRIPTED, task_args={"note": "x"}, log_dir=str(tmp_path / "logs"),
        display="none",
    )  # fmt: skip
    assert log.status == "success"
    assert log.eval.task_args["note"] == "x"


# --------------------------------------------------------------------------- a moved name

PLANTED = """
import sys

import inspect_ai._eval.eval as eval_module  # Inspect itself imports as installed
import inspect_ai._eval.registry as registry_module
from inspect_ai import eval

planted = {"task_create": registry_module, "_eval_async_inner": eval_module}
kept = {name: getattr(module, name) for name, module in planted.items()}
for name, module in planted.items():
    delattr(module, name)  # as a release that renamed it
import inspect_medsp._inspect  # noqa: E402,F401

for name, module in planted.items():
    setattr(module, name, kept[name])  # Inspect's own code still calls it
[log] = eval(
    "inspect_medsp/medsp_demo", model="medsp/scripted", task_args={"judge": "medsp/scripted"},
    log_dir=sys.argv[1], display="plain",
)
print("macro", round(log.results.scores[0].metrics["macro"].value, 3))
try:
    eval(
        "inspect_medsp/medsp_demo", model="medsp/scripted",
        task_args={"judge": "medsp/scripted", "max_turn": 5}, log_dir=sys.argv[1], display="none",
    )
except Exception as err:
    print("refused", err)
"""


def test_a_private_name_a_release_moved_is_one_warning_and_the_demo_still_scores(
    tmp_path: Path,
) -> None:
    script = tmp_path / "planted.py"
    script.write_text(PLANTED)
    result = subprocess.run(
        [sys.executable, str(script), str(tmp_path / "logs")],
        cwd=tmp_path,
        env=environment(tmp_path),
        capture_output=True,
        text=True,
        timeout=300,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "Traceback" not in output and "ImportError" not in output, output
    for moved in (
        "inspect_ai._eval.registry.task_create: the load-time checks",
        "inspect_ai._eval.eval._eval_async_inner: under inspect eval, a person's --epochs",
    ):
        warnings = [line for line in output.splitlines() if f"has no {moved}" in line]
        assert len(warnings) == 1, output
    assert "macro 0.706" in result.stdout
    assert "refused task parameter max_turn is not a parameter of medsp_demo" in result.stdout
