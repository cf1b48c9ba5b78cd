"""The encounter: state rules, the record, isolation, tolerant replies, both protocols."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog, read_eval_log
from inspect_ai.model import ModelOutput

from inspect_medsp import Trajectory, medsp_demo
from inspect_medsp.encounter.records import TurnRecord
from inspect_medsp.encounter.replies import ClinicianReply, EnvironmentReply, PatientReply
from inspect_medsp.strategies import StrategySettings
from inspect_medsp.tasks import medsp_task
from tests.conftest import REPO
from tests.support.scripts import Script, clinician, environment, executed, patient
from tests.support.tree import MARKERS, write_marked_scenario

ANAPHYLAXIS = "demo_anaphylaxis/scenario1"


def run(task: Any, clin: Script, pat: Script, env: Script, grader: Script, log_dir: str) -> EvalLog:
    logs = eval(
        task,
        model=clin.model(),
        model_roles={"patient": pat.model(), "environment": env.model(), "grader": grader.model()},
        log_dir=log_dir,
        display="none",
    )
    assert logs[0].status == "success", logs[0].error
    return logs[0]


def trajectory(log: EvalLog, i: int = 0) -> Trajectory:
    assert log.samples is not None
    from inspect_ai.util._store import Store

    return Trajectory(store=Store(log.samples[i].store))


GRADER_ALL_FALSE = Script([{"reasoning": ["nothing done"], "PC": {}}])


def test_states_move_only_on_eos_and_end_on_should_end(log_dir: str) -> None:
    clin = Script(
        [
            clinician("Hello, I am Dr Shah. What happened?", ["check vital signs"]),
            clinician("I am giving you adrenaline now.", ["epinephrine 0.5 mg IM thigh"], eos=True),
            clinician("", ["reassess airway"], eos=True),
            clinician("We will watch you for some hours.", [], eos=True),
        ]
    )
    pat = Script(
        [
            patient("A wasp stung me and my throat feels tight."),
            patient("Please hurry."),
            patient("Breathing is easier."),
            patient("Okay."),
        ]
    )
    env = Script(
        [
            # proposes a move although eos is false: the move must be refused
            environment(
                1,
                "airway_and_shock",
                feedback=["BP 92/58, SpO2 93%"],
                status="flushed",
                assessments=[executed("check vital signs", "vital signs")],
            ),
            environment(
                1,
                "airway_and_shock",
                feedback=["Epinephrine given"],
                events=["Stridor"],
                status="BP 80/50, stridor",
                assessments=[executed("epinephrine 0.5 mg IM thigh", "IM adrenaline")],
            ),
            # jumps two stages at once: held to one step
            environment(
                3, "observation_and_discharge", feedback=["Airway patent"], status="BP 110/70"
            ),
            environment(2, "observation_and_discharge", end=True, reason="no further stage"),
        ]
    )
    log = run(
        medsp_demo(scenarios=ANAPHYLAXIS, judge="mockllm/model"),
        clin,
        pat,
        env,
        Script([{"PC": {}}]),
        log_dir,
    )
    traj = trajectory(log)

    # the whole record, turn by turn
    starts = [
        (0, "initial_assessment", "not assessed"),
        (0, "initial_assessment", "flushed"),
        (1, "airway_and_shock", "BP 80/50, stridor"),
        (2, "observation_and_discharge", "BP 110/70"),
    ]
    ends = [*starts[1:], (2, "observation_and_discharge", "stable")]
    corrections = [
        [
            "controller moved the state to 1:airway_and_shock while eos was false; "
            "kept 0:initial_assessment"
        ],
        [],
        ["controller jumped from index 1 to 3; held to one step"],
        [],
    ]
    expected = [
        TurnRecord(
            index=i + 1,
            progress_index=start[0],
            state_label=start[1],
            patient_status=start[2],
            clinician=ClinicianReply.model_validate(clin.replies[i]),
            patient=PatientReply.model_validate(pat.replies[i]),
            environment=EnvironmentReply.model_validate(
                {
                    **env.replies[i],
                    "progress_index": end[0],
                    "state_label": end[1],
                    "patient_status": end[2],
                }
            ),
            corrections=corrections[i],
        )
        for i, (start, end) in enumerate(zip(starts, ends, strict=True))
    ]
    assert traj.turns == expected

    assert [(t.progress_index, t.state_label) for t in traj.turns] == [
        (0, "initial_assessment"),
        (0, "initial_assessment"),
        (1, "airway_and_shock"),
        (2, "observation_and_discharge"),
    ]
    assert traj.state_history == [
        "0:initial_assessment",
        "1:airway_and_shock",
        "2:observation_and_discharge",
    ]
    assert traj.turns[0].corrections and "eos was false" in traj.turns[0].corrections[0]
    assert traj.turns[2].corrections and "held to one step" in traj.turns[2].corrections[0]
    assert traj.end == "should_end" and traj.end_reason == "no further stage"
    assert traj.turn_count == 4
    assert traj.patient_status == "stable"
    assert [t.clinician.eos for t in traj.turns] == [False, True, True, True]
    assert traj.turns[1].patient.speak == ["Please hurry."]
    assert traj.turns[1].environment.events == ["Stridor"]
    assert [(a.turn, a.raw, a.status) for a in traj.action_log] == [
        (1, "check vital signs", "executed"),
        (2, "epinephrine 0.5 mg IM thigh", "executed"),
        (3, "reassess airway", "unsupported"),
    ]
    kinds = [(e.turn, e.kind) for e in traj.transcript if e.turn == 2]
    assert kinds == [
        (2, "clinician_speech"),
        (2, "clinician_action"),
        (2, "patient"),
        (2, "environment_feedback"),
        (2, "system_event"),
    ]
    assert traj.health["environment"].clean == 4
    # the clinician's conversation is state.messages: system, opening, then reply/update pairs
    assert log.samples is not None
    messages = log.samples[0].messages
    assert [m.role for m in messages] == ["system", "user"] + ["assistant", "user"] * 4
    assert "[State change]" in messages[5].text and "Stridor" in messages[5].text
    assert "encounter is over" in messages[-1].text
    # each turn is a span in the viewer
    spans = [e.name for e in log.samples[0].events if e.event == "span_begin"]
    assert {"turn 1", "turn 2", "turn 3", "turn 4"} <= set(spans)
    # token use per role is in the log
    assert {"patient", "environment", "grader"} <= set(log.samples[0].role_usage)


def test_state_change_banner_only_when_stage_or_status_changed(log_dir: str) -> None:
    clin = Script(
        [
            clinician("What happened?", ["check vital signs"]),
            clinician("I will stay with you.", ["attach monitor"]),
            clinician("Moving on to treatment.", ["epinephrine 0.5 mg IM thigh"], eos=True),
            clinician("Reassessing.", eos=True),
        ]
    )
    pat = Script([patient("My throat feels tight.")])
    env = Script(
        [
            # the status changes: banner
            environment(0, "initial_assessment", feedback=["BP 92/58"], status="flushed"),
            # events, but the same stage and status: no banner, the events are still told
            environment(
                0, "initial_assessment", events=["The nurse brings the crash cart"],
                status="flushed",
            ),
            # the stage changes, the status does not: banner
            environment(1, "airway_and_shock", feedback=["Epinephrine given"], status="flushed"),
            environment(1, "airway_and_shock", end=True, reason="done", status="flushed"),
        ]
    )  # fmt: skip
    log = run(medsp_demo(scenarios=ANAPHYLAXIS, judge="mockllm/model"), clin, pat, env,
              Script([{"PC": {}}]), log_dir)  # fmt: skip
    assert log.samples is not None
    updates = [m.text for m in log.samples[0].messages if m.role == "user"][1:]
    assert len(updates) == 4
    assert ["[State change]" in u for u in updates[:3]] == [True, False, True]
    assert "The nurse brings the crash cart" in updates[1]
    assert "encounter is over" in updates[3]


def test_encounter_stops_at_the_turn_limit(log_dir: str) -> None:
    clin = Script([clinician("Tell me more.")])
    pat = Script([patient("It started an hour ago.")])
    env = Script([environment(0, "initial_assessment")])
    log = run(
        medsp_demo(scenarios=ANAPHYLAXIS, judge="mockllm/model", max_turns=3),
        clin,
        pat,
        env,
        Script([{"PC": {}}]),
        log_dir,
    )
    traj = trajectory(log)
    assert traj.turn_count == 3 and traj.end == "turn_limit"
    assert len(clin.calls) == 3 and len(pat.calls) == 3 and len(env.calls) == 3


def _marked_task(tmp_path: Path, protocol: str) -> Any:
    data, upstream = write_marked_scenario(tmp_path)
    return medsp_task(
        name="marked",
        scenario_root=data,
        upstream_root=upstream,
        subset=False,
        scenarios=None,
        max_turns=3,
        protocol=protocol,  # type: ignore[arg-type]
        judge="mockllm/model",
        settings=StrategySettings(),
    )


def _assert_isolated(clin: Script, pat: Script, env: Script, grader: Script) -> None:
    clinician_text = "\n".join(clin.texts())
    assert clinician_text, "the clinician received nothing"
    for marker in MARKERS.values():
        assert marker not in clinician_text
    patient_text = "\n".join(pat.texts())
    assert MARKERS["sp_actor"] in patient_text
    for key in ("environment_controller", "evaluator", "rubric"):
        assert MARKERS[key] not in patient_text
    env_text = "\n".join(env.texts())
    assert MARKERS["environment_controller"] in env_text
    for key in ("sp_actor", "evaluator", "rubric"):
        assert MARKERS[key] not in env_text
    grader_text = "\n".join(grader.texts())
    assert MARKERS["rubric"] in grader_text
    for key in ("sp_actor", "environment_controller", "evaluator"):
        assert MARKERS[key] not in grader_text


def test_isolation_turns_protocol(tmp_path: Path, log_dir: str) -> None:
    clin = Script([clinician("Hello.", ["ECG"]), clinician("Aspirin now.", ["aspirin"], eos=True)])
    pat = Script([patient("It hurts here.")])
    env = Script(
        [
            environment(0, "initial_assessment", feedback=["ECG: ST elevation"]),
            environment(1, "ecg_reviewed", end=True, reason="done"),
        ]
    )
    grader = Script([{"PC": {"Gives aspirin 300 mg": True}}])
    run(_marked_task(tmp_path, "turns"), clin, pat, env, grader, log_dir)
    _assert_isolated(clin, pat, env, grader)


def _tool_call(name: str, **arguments: Any) -> ModelOutput:
    return ModelOutput.for_tool_call(model="mockllm", tool_name=name, tool_arguments=arguments)


def test_tools_protocol_fills_the_same_record(tmp_path: Path, log_dir: str) -> None:
    clin = Script(
        [
            _tool_call("talk_to_patient", speech="Hello, where is the pain?"),
            _tool_call("perform_actions", actions=["12-lead ECG", "aspirin 300 mg chewed"]),
            _tool_call("complete_stage"),
            _tool_call("submit", answer="Treated as STEMI."),
        ]
    )
    pat = Script([patient("In the middle of my chest."), patient("Okay."), patient("Fine.")])
    env = Script(
        [
            environment(0, "initial_assessment"),
            environment(
                0,
                "initial_assessment",
                feedback=["ECG: ST elevation V2-V4"],
                assessments=[executed("12-lead ECG"), executed("aspirin 300 mg chewed")],
            ),
            environment(1, "ecg_reviewed", end=True, reason="case complete"),
        ]
    )
    grader = Script([{"PC": {"Gives aspirin 300 mg": True, "[2]": True}, "MK": {}, "ICS": {}}])
    log = run(_marked_task(tmp_path, "tools"), clin, pat, env, grader, log_dir)
    traj = trajectory(log)
    assert traj.protocol == "tools"
    assert traj.turn_count == 3 and traj.end == "should_end"
    assert [t.clinician.eos for t in traj.turns] == [False, False, True]
    assert [a.raw for a in traj.action_log] == ["12-lead ECG", "aspirin 300 mg chewed"]
    assert traj.state_history == ["0:initial_assessment", "1:ecg_reviewed"]
    assert log.samples is not None
    score = log.samples[0].scores["medsp_rubric"]  # type: ignore[index]
    assert score.value == {"overall": 0.5, "PC": 1.0, "MK": 0.0, "ICS": 0.0}
    _assert_isolated(clin, pat, env, grader)


FENCED = "```json\n{json}\n```"
PROSE = "Here is my reply: {json} Hope that helps."


def _variants(good: list[str]) -> list[str]:
    """fenced, prose-wrapped, truncated, wrong types, garbage then good, garbage x3."""
    fenced, prose, truncated, wrong = good[:4]
    return [
        FENCED.replace("{json}", fenced),
        PROSE.replace("{json}", prose),
        truncated,
        wrong,
        "I'd rather not answer in JSON.",
        good[4],
        "nope",
        "still no",
        "never",
    ]


def test_malformed_replies_are_recovered_or_degraded(log_dir: str) -> None:
    import json

    clin = Script(
        _variants(
            [
                json.dumps(clinician("Hello.", ["check vital signs"])),
                json.dumps(clinician("Any allergies?")),
                '{"speak": "Let me listen to your chest", "actions": ["auscultate ch',
                '{"speak": ["Giving", "adrenaline"], "actions": "epinephrine IM", "eos": "false"}',
                json.dumps(clinician("Lie flat please.")),
            ]
        )
    )
    pat = Script(
        _variants(
            [
                json.dumps(patient("My throat is tight.")),
                json.dumps(patient("Only penicillin.")),
                '{"speak": ["It feels wheezy", "and tight',
                '{"speak": "Thank you doctor", "actors_present": ["Mr Brennan"]}',
                json.dumps(patient("Okay.")),
            ]
        )
    )
    env = Script(
        _variants(
            [
                json.dumps(environment(0, "initial_assessment", feedback=["BP 90/60"])),
                json.dumps(environment(0, "initial_assessment")),
                '{"feedback": ["Wheeze bilaterally"], "progress_index": 0, '
                '"state_label": "initial_ass',
                '{"feedback": "Epinephrine given", "progress_index": "0", "should_end": "no"}',
                json.dumps(environment(0, "initial_assessment", status="BP 100/65")),
            ]
        )
    )
    log = run(
        medsp_demo(scenarios=ANAPHYLAXIS, judge="mockllm/model", max_turns=6),
        clin,
        pat,
        env,
        Script([{"PC": {}}]),
        log_dir,
    )
    traj = trajectory(log)
    assert traj.turn_count == 6 and traj.end == "turn_limit"
    for role in ("clinician", "patient", "environment"):
        health = traj.health[role]
        assert (health.clean, health.repaired, health.retried, health.degraded) == (0, 4, 1, 1)

    turns = traj.turns
    assert turns[0].clinician.actions == ["check vital signs"]
    assert turns[2].clinician.speak == "Let me listen to your chest"
    assert turns[3].clinician == turns[3].clinician.model_copy(
        update={"speak": "Giving adrenaline", "actions": ["epinephrine IM"], "eos": False}
    )
    assert turns[3].patient.actors_present == {"Mr Brennan": ""}
    assert turns[3].environment.feedback == ["Epinephrine given"]
    # the sixth turn degrades every role, visibly
    last = turns[5]
    assert last.degraded == ["clinician", "patient", "environment"]
    assert last.clinician.speak == "never" and last.clinician.actions == []
    assert last.patient.speak == ["never"]
    assert last.environment.feedback == [] and last.progress_index == 0
    assert log.samples is not None
    resolved = read_eval_log(log.location, resolve_attachments=True)
    assert resolved.samples is not None
    infos = [str(e.data) for e in resolved.samples[0].events if e.event == "info"]
    assert any("clinician reply degraded after 2 retries" in i for i in infos)
    assert any("code fence" in i for i in infos)
    # retries ask again with a correction; only the reply used enters the clinician's history
    assert "could not be used" in clin.calls[5][-1].text
    assistant = [m for m in log.samples[0].messages if m.role == "assistant"]
    assert len(assistant) == 6


def test_cli_demo_completes_with_plain_mockllm(tmp_path: Path) -> None:
    """The README's offline smoke command: every role degrades visibly, the run completes."""
    logs = tmp_path / "logs"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "tests.support.offline_tokens",
            "eval",
            "inspect_medsp/medsp_demo",
            "--model",
            "mockllm/model",
            "-T",
            "judge=mockllm/model",
            "--log-dir",
            str(logs),
            "--display",
            "plain",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    [path] = list(logs.glob("*.eval"))
    log = read_eval_log(str(path))
    assert log.status == "success"
    assert log.samples is not None and len(log.samples) == 3
    for i, sample in enumerate(log.samples):
        traj = trajectory(log, i)
        # roles not bound with --model-role fall back to the judge, and the log says so
        assert traj.role_models == dict.fromkeys(
            ("clinician", "patient", "environment"), "mockllm/model"
        )
        assert {"patient", "environment", "grader"} <= set(sample.role_usage)
        assert traj.turn_count == 12 and traj.end == "turn_limit"
        assert traj.health["clinician"].degraded == 12
        assert traj.health["environment"].degraded == 12
        spans = {e.name for e in sample.events if e.event == "span_begin"}
        assert "turn 1" in spans and "turn 12" in spans
        # the grader cannot speak JSON either: a visible sample error, not a zero
        assert (
            sample.error is not None and "grader reply was not usable JSON" in sample.error.message
        )


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_inspect_view_serves_the_turns(log_dir: str) -> None:
    """The log opens in ``inspect view``: its server hands the viewer every turn's span."""
    clin = Script([clinician("Hello.", ["check vital signs"]), clinician("Done.", eos=True)])
    env = Script(
        [environment(0, "initial_assessment"), environment(1, "airway_and_shock", end=True)]
    )
    log = run(
        medsp_demo(scenarios=ANAPHYLAXIS, judge="mockllm/model"),
        clin,
        Script([patient("Okay.")]),
        env,
        Script([{"PC": {}}]),
        log_dir,
    )
    port = _free_port()
    viewer = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "inspect_ai",
            "view",
            "--log-dir",
            log_dir,
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        url = f"http://127.0.0.1:{port}/api/logs/{log.location}"
        body = None
        deadline = time.monotonic() + 60
        while body is None and time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(url, timeout=5) as response:
                    body = json.load(response)
            except OSError:
                time.sleep(0.5)
        assert body is not None, "inspect view did not answer"
        [sample] = body["samples"]
        spans = [e["name"] for e in sample["events"] if e["event"] == "span_begin"]
        assert "turn 1" in spans and "turn 2" in spans
        assert body["results"]["scores"][0]["name"] == "medsp_rubric"
    finally:
        viewer.terminate()
        viewer.wait(timeout=10)


def test_own_clinician_agent_takes_the_chair(tmp_path: Path, log_dir: str) -> None:
    """``medsp_tools_encounter(agent=...)`` puts any Inspect agent in the clinician's chair."""
    from inspect_ai import task_with
    from inspect_ai.agent import react
    from inspect_ai.tool import Tool, ToolDef

    from inspect_medsp import medsp_tools_encounter

    seen: list[list[str]] = []

    def my_clinician(instructions: str, tools: list[Tool]) -> Any:
        seen.append([ToolDef(t).name for t in tools])
        return react(name="my_clinician", prompt=instructions, tools=tools)

    task = task_with(
        _marked_task(tmp_path, "tools"),
        solver=medsp_tools_encounter(judge="mockllm/model", agent=my_clinician),
    )
    clin = Script(
        [
            _tool_call("complete_stage", speech="Aspirin now.", actions=["aspirin 300 mg"]),
            _tool_call("submit", answer="done"),
        ]
    )
    env = Script([environment(1, "ecg_reviewed", end=True, reason="done")])
    log = run(task, clin, Script([patient("Okay.")]), env, Script([{"PC": {}}]), log_dir)
    assert seen == [["talk_to_patient", "perform_actions", "complete_stage"]]
    traj = trajectory(log)
    assert traj.protocol == "tools" and traj.end == "should_end"
    assert traj.action_log[0].raw == "aspirin 300 mg"


def test_cache_makes_a_rerun_free(
    tmp_path: Path, log_dir: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With ``cache=true`` a second run of the same encounter calls no model at all."""
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))

    def scripts() -> tuple[Script, Script, Script, Script]:
        return (
            Script([clinician("Hello.", ["check vital signs"]), clinician("Done.", eos=True)]),
            Script([patient("Okay.")]),
            Script([environment(0, "initial_assessment"), environment(1, "next", end=True)]),
            Script([{"PC": {"[1]": True}}]),
        )

    first = scripts()
    log = run(medsp_demo(scenarios=ANAPHYLAXIS, judge="mockllm/model", cache=True), *first, log_dir)
    second = scripts()
    again = run(
        medsp_demo(scenarios=ANAPHYLAXIS, judge="mockllm/model", cache=True), *second, log_dir
    )
    assert all(s.calls for s in first)
    assert [len(s.calls) for s in second] == [0, 0, 0, 0]
    assert log.samples is not None and again.samples is not None
    assert again.samples[0].scores == log.samples[0].scores
