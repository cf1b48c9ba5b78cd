"""The scripted provider ``medsp/scripted``: the offline demo a newcomer runs first."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog, read_eval_log
from inspect_ai.model import ChatMessage, ChatMessageSystem, ChatMessageUser
from inspect_ai.util import Store

from inspect_medsp import Trajectory, medsp1000, medsp_demo
from inspect_medsp.data import COMPETENCIES
from inspect_medsp.errors import MedSPParameterError
from inspect_medsp.record import render_checklist, render_record
from inspect_medsp.scripted.recognise import NoScriptError, demo_records, recognise
from inspect_medsp.scripted.scripts import load_scripts
from tests.support.tree import write_marked_scenario

SCRIPTED = "medsp/scripted"
ANAPHYLAXIS = "demo_anaphylaxis/scenario1"
REPO = Path(__file__).resolve().parents[1]
TEST_COMMAND = 'pip install -e ".[dev]" && pytest'


def first_screen() -> str:
    """The README's first 40 lines."""
    return "\n".join((REPO / "README.md").read_text(encoding="utf-8").splitlines()[:40])


def readme_demo_command() -> list[str]:
    """The offline demo as the README's first screen gives it, after its install."""
    demo = "inspect eval inspect_medsp/medsp_demo"
    [line] = [x for x in first_screen().splitlines() if demo in x]
    return shlex.split(line.split("&&", 1)[1])


def test_the_readme_opens_with_a_venv_the_no_key_demo_the_tests_then_a_real_model() -> None:
    screen = first_screen()
    steps = ["python3 -m venv", "inspect_medsp/medsp_demo", TEST_COMMAND, "--model openai/gpt-5.5"]
    where = [screen.find(step) for step in steps]
    assert -1 not in where and where == sorted(where), dict(zip(steps, where, strict=True))
    assert "Python 3.11" in screen and "macro 0.706" in screen
    # .ci/run runs the README's test command as written
    assert TEST_COMMAND in (REPO / ".ci" / "run").read_text(encoding="utf-8")


def offline_env(home: Path) -> dict[str, str]:
    """A fresh HOME and temp folder, and every HTTP(S) request sent to a closed port."""
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    dead = "http://127.0.0.1:9"
    home.mkdir(parents=True, exist_ok=True)
    env.update(
        HOME=str(home),
        TMPDIR=str(home),
        XDG_CACHE_HOME=str(home / ".cache"),
        TIKTOKEN_CACHE_DIR=str(home / "tiktoken"),
        HF_HUB_OFFLINE="1",
        HTTP_PROXY=dead,
        HTTPS_PROXY=dead,
        http_proxy=dead,
        https_proxy=dead,
        NO_PROXY="",
        no_proxy="",
    )
    return env


def scripted_run(log_dir: str, **task_args: Any) -> EvalLog:
    [log] = eval(
        medsp_demo(judge=SCRIPTED, **task_args),
        model=SCRIPTED,
        log_dir=log_dir,
        display="none",
    )
    assert log.status == "success", log.error
    return log


def test_readme_demo_line_scores_offline_from_a_fresh_home(tmp_path: Path) -> None:
    """The README's demo line, as written, through the real ``inspect`` CLI with no network
    and a fresh HOME: 3 scored samples, no error, macro 0.706 as the README says, a real mix of
    met and missed items."""
    logs = tmp_path / "logs"
    inspect = Path(sys.executable).parent / "inspect"
    program, *args = readme_demo_command()
    assert program == "inspect"
    proc = subprocess.run(
        [str(inspect), *args, "--log-dir", str(logs), "--display", "plain"],
        cwd=tmp_path,
        env=offline_env(tmp_path / "home"),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    [path] = list(logs.glob("*.eval"))
    log = read_eval_log(str(path))
    assert log.status == "success"
    assert log.samples is not None and len(log.samples) == 3
    assert log.results is not None
    metrics = log.results.scores[0].metrics
    assert f"{metrics['macro'].value:.3f}" == "0.706"
    assert 0 < metrics["micro"].value < 1
    for sample in log.samples:
        assert sample.error is None
        score = sample.scores["medsp_rubric"] if sample.scores else None
        assert score is not None and isinstance(score.value, dict)
        assert 0 < score.value["overall"] < 1
        assert "✓" in str(score.explanation) and "✗" in str(score.explanation)
        traj = Trajectory(store=Store(sample.store))
        assert traj.role_models == dict.fromkeys(
            ("clinician", "patient", "environment", "grader"), SCRIPTED
        )
        assert traj.end == "should_end" and len(traj.state_history) >= 3
        assert all(h.clean == traj.turn_count for h in traj.health.values())
        # its own token count, reported per role
        assert {"patient", "environment", "grader"} <= set(sample.role_usage)
        assert all(u.input_tokens > 0 for u in sample.role_usage.values())
        # every reply says it is a script, not a model
        outputs = [e.output for e in sample.events if e.event == "model"]
        assert outputs and all(
            "not a model" in (o.metadata or {})["medsp_scripted"]["notice"] for o in outputs
        )


def test_refuses_a_scenario_it_has_no_script_for(tmp_path: Path) -> None:
    data, upstream = write_marked_scenario(tmp_path)
    # as a judge it is refused when the task is built (tests/test_human_chair.py); as the
    # clinician of a task built in Python, unknown then, it refuses the sample it cannot play
    with pytest.raises(MedSPParameterError, match="medsp/scripted cannot play 1 case"):
        medsp1000(data_dir=str(data), upstream_dir=str(upstream), judge=SCRIPTED)
    [log] = eval(
        medsp1000(data_dir=str(data), upstream_dir=str(upstream), judge="mockllm/model"),
        model=SCRIPTED,
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert log.samples is not None
    [sample] = log.samples
    assert sample.error is not None
    message = sample.error.message
    assert "no script for scenario mededportal_4242/scenario1" in message
    assert "only the three bundled demo scenarios" in message
    assert sample.scores is None or "medsp_rubric" not in sample.scores


def test_refusal_outside_a_sample_names_the_conversation() -> None:
    with pytest.raises(NoScriptError, match="only the three bundled demo scenarios"):
        recognise([ChatMessageUser(content="Door note: a 58-year-old with chest pain.")])


def test_grader_verdicts_follow_the_record(tmp_path: Path) -> None:
    """Cut the anaphylaxis encounter short: items done only in later turns become misses."""
    full = scripted_run(str(tmp_path / "full"), scenarios=ANAPHYLAXIS)
    short = scripted_run(str(tmp_path / "short"), scenarios=ANAPHYLAXIS, max_turns=2)

    def met(log: EvalLog) -> dict[int, bool]:
        assert log.samples is not None and log.samples[0].scores is not None
        meta = log.samples[0].scores["medsp_rubric"].metadata or {}
        return {i["number"]: i["met"] for i in meta["items"]}

    full_met, short_met = met(full), met(short)
    assert sum(full_met.values()) == 12 and sum(short_met.values()) < 12
    assert full_met[1] and short_met[1]  # epinephrine first: turn 1
    assert full_met[5] and not short_met[5]  # second dose: turn 3
    assert full_met[16] and not short_met[16]  # agreed observation plan: turn 6
    assert not full_met[7] and not short_met[7]  # never prescribes auto-injectors


def test_grader_is_recognised_by_the_checklist_not_the_wording() -> None:
    """Any grader prompt that carries the checklist and the record is answered, keyed by
    bracketed item number."""
    record = next(r for r in demo_records() if r.id == ANAPHYLAXIS)
    messages: list[ChatMessage] = [
        ChatMessageSystem(content="Mark the checklist. Answer in JSON."),
        ChatMessageUser(
            content="Items:\n\n"
            + render_checklist(record.rubric)
            + "\n\nRecord:\n"
            + render_record(Trajectory())
        ),
    ]
    call = recognise(messages)
    assert (call.role, call.record.id) == ("grader", ANAPHYLAXIS)


def test_every_demo_scenario_has_a_script_covering_its_rubric() -> None:
    scripts = load_scripts()
    assert set(scripts) == {r.id for r in demo_records()}
    for record in demo_records():
        script = scripts[record.id]
        keyed = {(c, int(k.strip("[]"))) for c, section in script.grader.items() for k in section}
        assert keyed == {(i.competency, i.number) for i in record.rubric.items()}, record.id
        assert set(script.grader) <= set(COMPETENCIES)
        assert script.turns[-1].environment.should_end
        assert not any(t.environment.should_end for t in script.turns[:-1])
