"""The encounter: state rules, the record, isolation, tolerant replies, both protocols."""

from __future__ import annotations

import json
import re
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
from inspect_medsp.params import TaskParameters
from inspect_medsp.record import ClinicianReply, EnvironmentReply, PatientReply, TurnRecord
from inspect_medsp.tasks import medsp_task
from tests.support.metrics import scored
from tests.support.offline_tokens import inspect_cli
from tests.support.scripts import Script, clinician, environment, executed, patient
from tests.support.tree import MARKERS, write_marked_scenario

ANAPHYLAXIS = "demo_anaphylaxis/scenario1"


def run(
    task: Any,
    clin: Script,
    pat: Script,
    env: Script,
    grader: Script,
    log_dir: str,
    **options: Any,
) -> EvalLog:
    """Run ``task`` with one script per role; ``options`` go to ``eval`` (limits, ...)."""
    logs = eval(
        task,
        model=clin.model(),
        model_roles={"patient": pat.model(), "environment": env.model(), "grader": grader.model()},
        log_dir=log_dir,
        display="none",
        **options,
    )
    assert logs[0].status == "success", logs[0].error
    return logs[0]


def trajectory(log: EvalLog, i: int = 0) -> Trajectory:
    assert log.samples is not None
    from inspect_ai.util import Store

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
            clinician=ClinicianReply.model_validate(clin.listed()[i]),
            patient=PatientReply.model_validate(pat.listed()[i]),
            environment=EnvironmentReply.model_validate(
                {
                    **env.listed()[i],
                    "progress_index": end[0],
                    "state_label": end[1],
                    "patient_status": end[2],
                }
            ),
            corrections=corrections[i],
            clinician_seconds=traj.turns[i].clinician_seconds,  # measured, checked below
            stop_reasons={"clinician": "stop", "patient": "stop", "environment": "stop"},
        )
        for i, (start, end) in enumerate(zip(starts, ends, strict=True))
    ]
    assert traj.turns == expected
    assert all(isinstance(t.clinician_seconds, float) for t in traj.turns)

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
    params = TaskParameters.check(max_turns=3, protocol=protocol, judge="mockllm/model")
    return medsp_task("marked", data, upstream, params)


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
    score = scored(log.samples[0])
    assert score.value == {"overall": 0.5}
    assert (score.metadata or {})["figures"] == {
        **{"overall": 0.5, "PC": 1.0, "MK": 0.0, "ICS": 0.0},
        **{"overall_completed": 2, "overall_total": 4, "PC_completed": 2, "PC_total": 2},
        **{"MK_completed": 0, "MK_total": 1, "ICS_completed": 0, "ICS_total": 1},
        **{"context_exhausted": 0, "refused_turns": 0},
    }
    _assert_isolated(clin, pat, env, grader)


FENCED = "```json\n{json}\n```"
PROSE = "Here is my reply: {json} Hope that helps."


def _variants(good: list[str]) -> list[str]:
    """fenced, prose-wrapped, unclosed, wrong types, garbage then good, garbage x3."""
    fenced, prose, unclosed, wrong = good[:4]
    return [
        FENCED.replace("{json}", fenced),
        PROSE.replace("{json}", prose),
        unclosed,
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
                '{"speak": "Let me listen to your chest", "actions": ["auscultate chest"]',
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
                '{"speak": ["It feels wheezy", "and tight"]',
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
                '"state_label": "initial_assessment"',
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
    """Inspect's plain mock model through the CLI: every role degrades visibly, the run
    completes."""
    logs = tmp_path / "logs"
    proc = inspect_cli(
        "eval", "inspect_medsp/medsp_demo", "--model", "mockllm/model",
        "-T", "judge=mockllm/model", "--log-dir", str(logs), "--display", "plain",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    [path] = list(logs.glob("*.eval"))
    log = read_eval_log(str(path))
    assert log.status == "success"
    assert log.samples is not None and len(log.samples) == 3
    for i, sample in enumerate(log.samples):
        traj = trajectory(log, i)
        # roles not bound with --model-role fall back to the judge, and the log says so
        assert traj.role_models == dict.fromkeys(
            ("clinician", "patient", "environment", "grader"), "mockllm/model"
        )
        assert {"patient", "environment", "grader"} <= set(sample.role_usage)
        assert traj.turn_count == 12 and traj.end == "turn_limit"
        assert traj.health["clinician"].degraded == 12
        assert traj.health["environment"].degraded == 12
        spans = {e.name for e in sample.events if e.event == "span_begin"}
        assert "turn 1" in spans and "turn 12" in spans
        # the grader cannot speak JSON either: a visibly unscored sample, not a zero
        assert sample.error is None and sample.scores is not None
        score = sample.scores["medsp_rubric"]
        assert score.reason == "grader_failed"
        assert score.metadata is not None
        assert "grader reply was not usable JSON" in score.metadata["unscored_why"]
    assert log.results is not None and log.results.scores[0].unscored_samples == 3
    # the end of the run names them (the console may wrap the line)
    said = " ".join(re.sub(r"\S+\.py:\d+", "", proc.stderr + proc.stdout).split())
    assert "MedSP: 3 sample(s) could not be scored and are not in the metrics" in said
    assert "demo_bad_news/scenario1 [grader_failed]" in said


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


# --- every exit finishes the record; turns are serialised; who says a line ---------------


def _tool_calls(*calls: tuple[str, dict[str, Any]]) -> ModelOutput:
    """One assistant message issuing several tool calls at once."""
    outputs = [_tool_call(name, **arguments) for name, arguments in calls]
    first = outputs[0]
    first.message.tool_calls = [o.message.tool_calls[0] for o in outputs]  # type: ignore[index]
    return first


def _roles(messages: list[Any]) -> list[str]:
    return [m.role for m in messages]


def test_model_error_mid_encounter_finishes_the_record(log_dir: str) -> None:
    """A clinician model that fails in turn 2: a sample error, and a record that says so."""

    def clinician_replies(input: list[Any]) -> dict[str, Any]:
        if sum(m.role == "assistant" for m in input):
            raise RuntimeError("provider unavailable")
        return clinician("Hello, what happened?")

    log = run(
        medsp_demo(scenarios=ANAPHYLAXIS, judge="mockllm/model"),
        Script(clinician_replies),
        Script([patient("A wasp stung me.")]),
        Script([environment(0, "initial_assessment")]),
        Script([{"PC": {}}]),
        log_dir,
        fail_on_error=False,  # one sample of one errored: the default would stop the run
    )
    assert log.samples is not None
    sample = log.samples[0]
    assert sample.error is not None and "provider unavailable" in sample.error.message
    traj = trajectory(log)
    assert traj.end == "error" and not traj.complete
    assert traj.end_reason == (
        "RuntimeError during turn 2 (1 turn completed): provider unavailable"
    )
    assert traj.turn_count == 1 and len(traj.turns) == 1


@pytest.mark.parametrize(
    ("limits", "kind"), [({"message_limit": 6}, "message"), ({"token_limit": 100}, "token")]
)
def test_tools_protocol_limit_keeps_the_conversation(
    tmp_path: Path, log_dir: str, limits: dict[str, int], kind: str
) -> None:
    """At a message or token limit the agent's conversation is the sample's messages."""
    clin = Script(
        [
            _tool_call("talk_to_patient", speech="Hello, where is the pain?"),
            _tool_call("perform_actions", actions=["12-lead ECG"]),
            _tool_call("talk_to_patient", speech="Any allergies?"),
        ]
    )
    pat = Script([patient("In the middle of my chest."), patient("Okay.")])
    env = Script(
        [
            environment(0, "initial_assessment"),
            environment(0, "initial_assessment", feedback=["ECG: ST elevation V2-V4"]),
        ]
    )
    logs = eval(
        _marked_task(tmp_path, "tools"),
        model=clin.model(),
        model_roles={
            "patient": pat.model(),
            "environment": env.model(),
            "grader": Script([{"PC": {}}]).model(),
        },
        log_dir=log_dir,
        display="none",
        **limits,  # type: ignore[arg-type]
    )
    log = logs[0]
    assert log.status == "success" and log.samples is not None
    sample = log.samples[0]
    assert sample.error is None
    assert sample.limit is not None and sample.limit.type == kind
    traj = trajectory(log)
    assert traj.end == "limit" and not traj.complete
    assert traj.end_reason.startswith(
        f"{kind} limit reached during turn 3 (2 turns completed): {kind.title()} limit"
    )
    assert [t.clinician.speak for t in traj.turns] == ["Hello, where is the pain?", ""]
    assert [a.raw for a in traj.action_log] == ["12-lead ECG"]
    # the clinician agent's own conversation, up to the limit, is what the log shows
    assert _roles(sample.messages) == ["system", "user", "assistant", "tool", "assistant", "tool"]
    assert "Hello, where is the pain?" in str(sample.messages[2].tool_calls)  # type: ignore[union-attr]
    assert "In the middle of my chest." in sample.messages[3].text
    assert "ECG: ST elevation V2-V4" in sample.messages[5].text


def test_tools_protocol_limit_inside_a_turn(tmp_path: Path, log_dir: str) -> None:
    """A token limit passed by the controller's reply in turn 2: the half-played turn is not
    recorded, the agent is told its tool hit the limit, and the record ends at ``limit``."""
    clin = Script(
        [
            _tool_call("talk_to_patient", speech="Hello?"),
            _tool_call("talk_to_patient", speech="Any allergies?"),
        ]
    )
    logs = eval(
        _marked_task(tmp_path, "tools"),
        model=clin.model(),
        model_roles={
            "patient": Script([patient("Hi."), patient("None.")]).model(),
            "environment": Script([environment(0, "initial_assessment")]).model(),
            "grader": Script([{"PC": {}}]).model(),
        },
        token_limit=80,
        log_dir=log_dir,
        display="none",
    )
    log = logs[0]
    assert log.status == "success" and log.samples is not None
    traj = trajectory(log)
    assert traj.end == "limit"
    assert traj.end_reason == (
        "token limit reached during turn 2 (1 turn completed): "
        "Token limit exceeded. value: 90; limit: 80"
    )
    assert traj.turn_count == 1 and len(traj.turns) == 1
    assert {e.turn for e in traj.transcript} == {1}
    last = log.samples[0].messages[-1]
    assert last.role == "tool" and last.error is not None and last.error.type == "limit"


def test_token_limit_in_the_turns_protocol(log_dir: str) -> None:
    """Each call costs 15 tokens: turn 1 takes 45, turn 2's clinician reply passes 50."""
    log = run(
        medsp_demo(scenarios=ANAPHYLAXIS, judge="mockllm/model"),
        Script([clinician("Tell me more.")]),
        Script([patient("It started an hour ago.")]),
        Script([environment(0, "initial_assessment")]),
        Script([{"PC": {}}]),
        log_dir,
        token_limit=50,
    )
    assert log.samples is not None
    assert log.samples[0].limit is not None and log.samples[0].limit.type == "token"
    traj = trajectory(log)
    assert traj.end == "limit" and not traj.complete
    assert traj.end_reason == (
        "token limit reached during turn 2 (1 turn completed): "
        "Token limit exceeded. value: 60; limit: 50"
    )
    assert traj.turn_count == 1


def test_time_limit_in_the_turns_protocol(log_dir: str) -> None:
    """Inspect enforces a time limit by cancelling the sample; the record still says limit."""
    log = run(
        medsp_demo(scenarios=ANAPHYLAXIS, judge="mockllm/model"),
        Script([clinician("Tell me more.")]),
        Script([patient("Sorry, what?")], delay=30),
        Script([environment(0, "initial_assessment")]),
        Script([{"PC": {}}]),
        log_dir,
        time_limit=1,
    )
    assert log.samples is not None
    assert log.samples[0].limit is not None and log.samples[0].limit.type == "time"
    traj = trajectory(log)
    assert traj.end == "limit" and not traj.complete
    assert traj.end_reason == "time limit of 1 s reached during turn 1 (0 turns completed)"


def test_exit_kinds_are_named() -> None:
    """A cancellation outside any limit is ``cancelled``; a record that already ended keeps
    its end (the error and limit ends are shown by the runs above)."""
    import asyncio

    from inspect_ai.util import Store

    from inspect_medsp.encounter.ending import finish_on_exit

    async def cancelled(traj: Trajectory) -> None:
        with finish_on_exit(traj):
            raise asyncio.CancelledError()

    traj = Trajectory(store=Store())
    with pytest.raises(asyncio.CancelledError):
        asyncio.run(cancelled(traj))
    assert (traj.end, traj.end_reason) == (
        "cancelled",
        "the sample was cancelled during turn 1 (0 turns completed)",
    )
    ended = Trajectory(store=Store())
    ended.end, ended.end_reason = "should_end", "case complete"
    with pytest.raises(ValueError), finish_on_exit(ended):
        raise ValueError("late")
    assert (ended.end, ended.end_reason, ended.complete) == ("should_end", "case complete", True)
    # a provider's long error message is cut, the headline kept
    failed = Trajectory(store=Store())
    with pytest.raises(ValueError), finish_on_exit(failed):
        raise ValueError("x" * 5000)
    assert failed.end == "error" and not failed.complete
    assert failed.end_reason.startswith("ValueError during turn 1 (0 turns completed): xxx")
    assert failed.end_reason.endswith("x…") and len(failed.end_reason) < 400


def _concurrent_tools_task() -> Any:
    """The tools protocol with a clinician agent that runs a message's tool calls
    concurrently (the encounter tools ask for serial calls; such an agent overrides that)."""
    from inspect_ai import task_with
    from inspect_ai.agent import react
    from inspect_ai.tool import Tool, ToolDef

    from inspect_medsp import medsp_tools_encounter

    def concurrent_clinician(instructions: str, tools: list[Tool]) -> Any:
        parallel = [ToolDef(t, parallel=True).as_tool() for t in tools]
        return react(name="concurrent", prompt=instructions, tools=parallel)

    return task_with(
        medsp_demo(scenarios=ANAPHYLAXIS, judge="mockllm/model", protocol="tools"),
        solver=medsp_tools_encounter(judge="mockllm/model", agent=concurrent_clinician),
    )


@pytest.mark.parametrize("concurrent", [False, True])
def test_parallel_tool_calls_make_separate_turns(log_dir: str, concurrent: bool) -> None:
    """Two tool calls in one message are turn 1 and turn 2, each with its own exchange,
    whether the agent runs them one after another (the default) or at the same time."""
    clin = Script(
        [
            _tool_calls(
                ("talk_to_patient", {"speech": "Where were you stung?"}),
                ("perform_actions", {"actions": ["check vital signs"]}),
            ),
            _tool_call("submit", answer="done"),
        ]
    )
    # replies take a moment, so the two calls really overlap
    pat = Script([patient("On my neck."), patient("Go ahead.")], delay=0.05)
    env = Script(
        [
            environment(0, "initial_assessment"),
            environment(
                0,
                "initial_assessment",
                feedback=["BP 92/58"],
                assessments=[executed("check vital signs")],
            ),
        ],
        delay=0.05,
    )
    log = run(
        _concurrent_tools_task()
        if concurrent
        else medsp_demo(scenarios=ANAPHYLAXIS, judge="mockllm/model", protocol="tools"),
        clin,
        pat,
        env,
        Script([{"PC": {}}]),
        log_dir,
    )
    traj = trajectory(log)
    assert [t.index for t in traj.turns] == [1, 2] and traj.turn_count == 2
    assert [(t.clinician.speak, t.clinician.actions) for t in traj.turns] == [
        ("Where were you stung?", []),
        ("", ["check vital signs"]),
    ]
    assert [t.patient.speak for t in traj.turns] == [["On my neck."], ["Go ahead."]]
    assert [t.environment.feedback for t in traj.turns] == [[], ["BP 92/58"]]
    assert [(e.turn, e.kind) for e in traj.transcript] == [
        (1, "clinician_speech"),
        (1, "patient"),
        (2, "clinician_action"),
        (2, "patient"),
        (2, "environment_feedback"),
    ]
    # each role's history: instructions, the packet, then turns that alternate (the second
    # turn follows the first one's reply)
    assert len(pat.calls) == 2 and len(env.calls) == 2
    for role in (pat, env):
        assert _roles(role.calls[1]) == ["system", "user", "user", "assistant", "user"]
    assert "Where were you stung?" in pat.calls[0][-1].text
    assert "check vital signs" in pat.calls[1][-1].text
    # each tool result is its own turn's outcome
    assert log.samples is not None
    tool_results = [m.text for m in log.samples[0].messages if m.role == "tool"]
    assert "On my neck." in tool_results[0] and "Go ahead." in tool_results[1]


def test_parallel_call_after_the_end_plays_no_turn(log_dir: str) -> None:
    """When the first of two concurrent calls ends the encounter, the second is refused."""
    clin = Script(
        [
            _tool_calls(
                ("complete_stage", {"speech": "You can go home."}),
                ("talk_to_patient", {"speech": "Any questions?"}),
            ),
            _tool_call("submit", answer="done"),
        ]
    )
    env = Script([environment(1, "discharge", end=True, reason="case complete")], delay=0.05)
    log = run(
        _concurrent_tools_task(),
        clin,
        Script([patient("Thanks.")], delay=0.05),
        env,
        Script([{"PC": {}}]),
        log_dir,
    )
    traj = trajectory(log)
    assert traj.turn_count == 1 and traj.end == "should_end" and traj.complete
    assert len(env.calls) == 1
    assert log.samples is not None
    tool_results = [m.text for m in log.samples[0].messages if m.role == "tool"]
    assert "The encounter is over (case complete)" in tool_results[1]


def test_a_colon_names_a_speaker_only_for_a_known_person(log_dir: str) -> None:
    """ "3:30 pm" stays in the patient's line; ``Mum:`` is Mum's once she is declared present,
    also in later turns; ``Karen:`` is Karen's because the script names her."""
    clin = Script([clinician("When did it start?"), clinician("And now?", eos=True)])
    pat = Script(
        [
            patient(
                "I took it at 3:30 pm",
                "Mum: he was fine yesterday",
                "Honestly: I feel awful",
                present={"Mum": "sitting beside the bed"},
            ),
            patient("Mum: still worried", "Karen: I came straight from work"),
        ]
    )
    env = Script(
        [environment(0, "initial_assessment"), environment(1, "airway_and_shock", end=True)]
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
    lines = [(e.turn, e.speaker, e.text) for e in traj.transcript if e.kind == "patient"]
    assert lines == [
        (1, "patient", "I took it at 3:30 pm"),
        (1, "Mum", "he was fine yesterday"),
        (1, "patient", "Honestly: I feel awful"),
        (2, "Mum", "still worried"),
        (2, "Karen", "I came straight from work"),
    ]


def test_speaker_prefix_rules() -> None:
    from inspect_medsp.encounter.speakers import speaker

    script = "Her lines appear with the prefix `Grace:`. Married to Karen (at work)."
    assert speaker("Grace: She woke at 2:00", [], script) == ("Grace", "She woke at 2:00")
    assert speaker("KAREN: on my way", [], script) == ("KAREN", "on my way")
    assert speaker("Gra: hello", [], script) == ("patient", "Gra: hello")
    assert speaker("mum: he is pale", ["Mum "], "") == ("mum", "he is pale")
    assert speaker("Mum:", ["Mum"], "") == ("patient", "Mum:")
    assert speaker("It is 3:30 now", ["Mum"], script) == ("patient", "It is 3:30 now")


def test_the_controller_names_actions_by_number_and_the_record_keeps_their_words() -> None:
    from inspect_medsp.calls.replies import parse_reply
    from inspect_medsp.encounter.engine import named, numbered_lines
    from inspect_medsp.record import EnvironmentReply

    actions = ["Check the airway", "Give oxygen"]
    assert numbered_lines(actions) == "1. Check the airway\n2. Give oxygen"
    reply, repairs = parse_reply(
        '{"action_assessments": [{"action": 2, "status": "executed"}, '
        '{"action": "[1]", "status": "pending"}, {"raw": "Call a nurse", "status": "executed"}, '
        '{"action": 9, "status": "executed"}]}',
        EnvironmentReply,
    )
    assert repairs == []
    filled = named(reply.action_assessments, actions)
    # by number; an echoed action kept as given; a number not in the list left empty
    assert [a.raw for a in filled] == ["Give oxygen", "Check the airway", "Call a nurse", ""]
    # the number is how the controller answered, not part of the stored record
    assert all("action" not in a.model_dump() for a in filled)
