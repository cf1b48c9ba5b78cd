"""When the provider misbehaves: a reply cut off at the token limit, a prompt longer than the
model's window, a content-filter refusal, and reasoning left in the reply, for every role.

Each test scripts ``mockllm`` outputs carrying Inspect's stop reason and checks what a user
would see: the record's words, the end and its reason, the reply counts, and the score or
the reason it is unscored.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.log import EvalLog, EvalSample
from inspect_ai.model import (
    ChatMessageAssistant,
    ContentReasoning,
    ContentText,
    ModelOutput,
    StopReason,
)

from inspect_medsp import Trajectory, medsp_demo
from inspect_medsp.encounter import Protocol
from inspect_medsp.full_report import write_report
from inspect_medsp.hooks.unscored import provider_line
from tests.support.scripts import Script, clinician, environment, patient

ANAPHYLAXIS = "demo_anaphylaxis/scenario1"
OVERFLOW = (
    "This model's maximum context length is 1375 tokens. However, your messages resulted in "
    "2210 tokens. Please reduce the length of the messages."
)
FILTERED = "The response was filtered due to the prompt triggering content management policy."
GRADER_OK = {"reasoning": ["read the record"], "PC": {}}


def stopped(stop: StopReason, text: str) -> ModelOutput:
    """A mockllm output as Inspect's providers return it for ``stop``."""
    return ModelOutput.from_content(model="mockllm", content=text, stop_reason=stop)


def cut(text: str) -> ModelOutput:
    """A reply cut off at the output-token limit."""
    return stopped("max_tokens", text)


def run(
    clin: Script,
    pat: Script,
    env: Script,
    grader: Script,
    log_dir: str,
    max_turns: int = 4,
    protocol: Protocol = "turns",
) -> EvalLog:
    from inspect_ai import eval

    task = medsp_demo(
        scenarios=ANAPHYLAXIS, judge="mockllm/model", max_turns=max_turns, protocol=protocol
    )
    logs = eval(
        task,
        model=clin.model(),
        model_roles={"patient": pat.model(), "environment": env.model(), "grader": grader.model()},
        log_dir=log_dir,
        display="none",
    )
    assert logs[0].status == "success", logs[0].error
    return logs[0]


def sample_of(log: EvalLog) -> EvalSample:
    assert log.samples is not None and len(log.samples) == 1
    return log.samples[0]


def trajectory(log: EvalLog) -> Trajectory:
    traj = Trajectory.of(sample_of(log).store)
    assert traj is not None
    return traj


def score_of(log: EvalLog) -> Any:
    scores = sample_of(log).scores
    assert scores is not None
    return scores["medsp_rubric"]


def figures_of(log: EvalLog) -> Any:
    """Every figure of the sample's rubric score (its value holds the headline alone)."""
    return (score_of(log).metadata or {})["figures"]


def words(traj: Trajectory) -> str:
    """Everything the record holds as somebody's words or deeds."""
    return "\n".join(
        [e.text for e in traj.transcript] + [a.raw for a in traj.action_log] + [traj.end_reason]
    )


def metrics(log: EvalLog) -> dict[str, float]:
    assert log.results is not None
    (score,) = [s for s in log.results.scores if s.name == "medsp_rubric"]
    return {k: m.value for k, m in score.metrics.items()}


def report_of(log: EvalLog, tmp_path: Path) -> str:
    """The Markdown ``medsp-report`` writes for ``log``."""
    result = write_report([log.location], tmp_path / "report")
    assert result.analysis is not None
    return (tmp_path / "report" / "report.md").read_text(encoding="utf-8")


def test_cut_off_replies_are_re_asked_and_never_become_a_turn(log_dir: str) -> None:
    three = ["Assess airway, breathing, circulation", "Check blood pressure", "Give oxygen"]
    clin = Script(
        [
            # turn 1: cut off mid-action, then complete on the re-ask
            cut('{"speak": "Hello, I am Dr Shah.", "actions": ["Assess airway, breathing, cir'),
            clinician("Hello, I am Dr Shah.", three),
            # turn 2: cut off on every attempt, even where what is left parses
            cut('{"speak": "I will give adrenaline", "actions": ["epinephrine 0.5 mg IM"]}'),
            cut('{"speak": "I will give adrenaline", "actions": ["epineph'),
            cut('{"speak": "I will give adre'),
            clinician("How do you feel now?"),
        ]
    )
    pat = Script(
        [
            patient("My throat feels tight."),
            cut('{"speak": ["I feel dizzy", "and my lips are swel'),
            cut('{"speak": ["I feel dizzy"'),
            cut('{"speak": ["I'),
            patient("Better."),
        ]
    )
    env = Script(
        [
            cut('{"feedback": ["SpO2 91%", "BP 88/5'),
            environment(0, "initial_assessment", feedback=["SpO2 91%", "BP 88/50"]),
            environment(0, "initial_assessment", feedback=["No change"]),
        ]
    )
    log = run(clin, pat, env, Script([GRADER_OK]), log_dir, max_turns=3)
    traj = trajectory(log)
    turns = traj.turns

    # the re-asked reply is used whole: three actions, not a cut one
    assert turns[0].clinician.actions == three
    assert turns[0].environment.feedback == ["SpO2 91%", "BP 88/50"]
    # a reply cut off on every attempt is nothing said or done, never its fragment
    assert turns[1].clinician.speak == "" and turns[1].clinician.actions == []
    assert turns[1].degraded == ["clinician", "patient"]
    assert turns[1].patient.speak == []
    assert turns[1].stop_reasons["clinician"] == "max_tokens"
    entries = [e.text for e in traj.transcript] + [a.raw for a in traj.action_log]
    assert "Assess airway, breathing, cir" not in entries
    assert not any("adrenaline" in e or "epineph" in e or "swel" in e for e in entries)
    assert "I feel dizzy" not in words(traj)

    h = traj.health
    assert (h["clinician"].retried, h["clinician"].degraded, h["clinician"].truncated) == (1, 1, 4)
    assert (h["patient"].degraded, h["patient"].truncated) == (1, 3)
    assert (h["environment"].retried, h["environment"].truncated) == (1, 1)

    # the re-ask says the reply was cut off and asks for a complete, shorter one
    retry = clin.calls[1][-1].text
    assert "cut off" in retry and "shorter" in retry
    # the sample is graded as usual
    assert traj.end == "turn_limit"
    assert figures_of(log)["overall_total"] > 0


def test_clinician_context_exhausted_ends_and_is_graded(
    log_dir: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="inspect_medsp")
    clin = Script(
        [
            clinician("Hello, what happened?", ["check vital signs"]),
            stopped("model_length", OVERFLOW),
        ]
    )
    pat = Script([patient("A wasp stung me.")])
    env = Script([environment(0, "initial_assessment", feedback=["BP 92/58"])])
    grader = Script([GRADER_OK])
    log = run(clin, pat, env, grader, log_dir)
    traj = trajectory(log)

    assert traj.end == "context_exhausted" and traj.complete
    assert traj.turn_count == 1
    assert "turn 2" in traj.end_reason and "tokens" in traj.end_reason
    assert "1 turn completed" in traj.end_reason
    assert traj.health["clinician"].context == 1 and traj.health["clinician"].clean == 1
    # the provider's message is kept, never as anybody's words nor in the grader's record
    assert traj.provider_stop is not None and traj.provider_stop.message == OVERFLOW
    assert traj.provider_stop.role == "clinician" and traj.provider_stop.turn == 2
    assert "maximum context length" not in words(traj)
    assert not any("maximum context length" in t for t in grader.texts())
    assert "context_exhausted" in "\n".join(grader.texts())

    # graded on what the clinician did, and counted in the summary and the end-of-run line
    figures = figures_of(log)
    assert figures["context_exhausted"] == 1 and figures["refused_turns"] == 0
    assert metrics(log)["context_exhausted"] == 1
    line = provider_line(log)
    assert line is not None and "1 encounter(s) ended" in line and ANAPHYLAXIS in line
    # the end-of-run line says it
    assert line in [r.getMessage() for r in caplog.records]
    md = report_of(log, tmp_path)
    assert "1 encounter(s) ended with its context full" in md and "context_exhausted 1" in md


def test_clinician_refusals_are_turns_of_nothing_and_three_in_a_row_end(
    log_dir: str, tmp_path: Path
) -> None:
    clin = Script(
        [
            stopped("content_filter", FILTERED),
            clinician("I am here to help. What happened?"),
            stopped("content_filter", FILTERED),
        ]
    )
    pat = Script([patient("Please help my son.")])
    env = Script([environment(0, "initial_assessment")])
    grader = Script([GRADER_OK])
    log = run(clin, pat, env, grader, log_dir, max_turns=12)
    traj = trajectory(log)

    # turn 1 refused, turn 2 spoken, turns 3 to 5 refused: three in a row end it
    assert [t.refused for t in traj.turns] == [True, False, True, True, True]
    assert traj.end == "refused" and traj.complete
    assert "turns 3 to 5" in traj.end_reason and "content filter" in traj.end_reason
    refused = traj.turns[0]
    assert refused.clinician.speak == "" and refused.clinician.actions == []
    assert refused.provider_message == FILTERED
    assert refused.stop_reasons["clinician"] == "content_filter"
    assert refused.degraded == []
    assert traj.health["clinician"].refused == 4 and traj.health["clinician"].clean == 1
    # the encounter went on: the patient heard silence, not the provider's message
    assert "(says nothing)" in pat.calls[0][-1].text
    assert not any("filtered" in t for t in pat.texts() + env.texts() + grader.texts())
    assert "filtered" not in words(traj)
    # nor is it the clinician's own turn in its history
    history = sample_of(log).messages
    assert not any(m.role == "assistant" and "filtered" in m.text for m in history)

    figures = figures_of(log)
    assert figures["refused_turns"] == 4 and figures["context_exhausted"] == 0
    summary = metrics(log)
    assert summary["refused_turns"] == 4 and summary["refused_encounters"] == 1
    line = provider_line(log)
    assert line is not None and "4 clinician turn(s) refused" in line
    md = report_of(log, tmp_path)
    assert "4 turn(s) refused in 1 encounter(s)" in md and "refused 1" in md


@pytest.mark.parametrize("role", ["patient", "environment"])
@pytest.mark.parametrize("stop", ["model_length", "content_filter"])
def test_a_simulating_role_stopped_leaves_the_sample_unscored(
    role: str, stop: StopReason, log_dir: str
) -> None:
    message = OVERFLOW if stop == "model_length" else FILTERED
    stops = stopped(stop, message)
    clin = Script([clinician("Hello, what happened?")])
    pat = Script([patient("A wasp stung me."), *([stops] if role == "patient" else [])])
    env = Script(
        [environment(0, "initial_assessment"), *([stops] if role == "environment" else [])]
    )
    grader = Script([GRADER_OK])
    log = run(clin, pat, env, grader, log_dir)
    traj = trajectory(log)

    # the simulation stops at turn 2; turn 1 is kept, nothing of turn 2 is recorded
    assert traj.end == "role_stopped" and not traj.complete
    assert traj.turn_count == 1
    assert f"the {role} model" in traj.end_reason and "turn 2" in traj.end_reason
    fix = "longer context window" if stop == "model_length" else "content filter"
    assert fix in traj.end_reason and f"--model-role {role}=" in traj.end_reason
    assert message not in words(traj)
    assert traj.provider_stop is not None and traj.provider_stop.message == message
    counted = traj.health[role]
    assert (counted.context, counted.refused) == ((1, 0) if stop == "model_length" else (0, 1))

    # never graded
    score = score_of(log)
    assert score.reason == "encounter_incomplete"
    assert role in score.explanation and "turn 2" in score.explanation
    assert grader.calls == []


@pytest.mark.parametrize(
    ("outputs", "words_in_reason"),
    [
        (
            [stopped("model_length", OVERFLOW)],
            ["grader model's context window", "--model-role grader="],
        ),
        (
            [stopped("content_filter", FILTERED)],
            ["grader model's provider refused", "content filter"],
        ),
        ([cut('{"PC": {"[1]": {"met": true}}}')] * 3, ["cut off at the output-token limit"]),
    ],
)
def test_a_grader_stopped_is_grader_failed(
    outputs: list[ModelOutput], words_in_reason: list[str], log_dir: str
) -> None:
    clin = Script([clinician("Hello.")])
    pat = Script([patient("Hi.")])
    env = Script([environment(0, "initial_assessment")])
    grader = Script(outputs)
    log = run(clin, pat, env, grader, log_dir, max_turns=1)
    score = score_of(log)
    assert score.reason == "grader_failed"
    for text in words_in_reason:
        assert text in score.explanation
    # no verdict was made of the cut reply, and no provider message is a verdict
    assert score.metadata["items"] == []
    assert OVERFLOW not in score.explanation and FILTERED not in score.explanation


def test_reasoning_is_not_the_reply(log_dir: str) -> None:
    reply = json.dumps(clinician("Hello, I am Dr Shah.", ["check airway"]))
    thinking = '<think>Maybe {"speak": "the wrong words"} first? No.</think>\n' + reply
    reasoned = ModelOutput.from_message(
        ChatMessageAssistant(
            content=[
                ContentReasoning(reasoning="The patient may have anaphylaxis; say: panic."),
                ContentText(text=json.dumps(clinician("Any allergies?"))),
            ],
            model="mockllm",
        )
    )
    clin = Script([thinking, reasoned])
    pat = Script(
        ["<think>I am scared, speak: hidden words</think>" + json.dumps(patient("It hurts."))]
    )
    env = Script([environment(0, "initial_assessment")])
    log = run(clin, pat, env, Script([GRADER_OK]), log_dir, max_turns=2)
    traj = trajectory(log)
    assert traj.turns[0].clinician.speak == "Hello, I am Dr Shah."
    assert traj.turns[0].clinician.actions == ["check airway"]
    assert traj.turns[1].clinician.speak == "Any allergies?"
    assert traj.turns[0].patient.speak == ["It hurts."]
    text = words(traj)
    assert "wrong words" not in text and "panic" not in text and "hidden words" not in text
    assert traj.health["clinician"].clean == 2 and traj.health["patient"].clean == 2


def tool_call(name: str, **arguments: Any) -> ModelOutput:
    return ModelOutput.for_tool_call(model="mockllm", tool_name=name, tool_arguments=arguments)


def test_tools_protocol_clinician_window_full_ends_the_encounter(log_dir: str) -> None:
    clin = Script(
        [tool_call("talk_to_patient", speech="Hello."), stopped("model_length", OVERFLOW)]
    )
    pat = Script([patient("Hi.")])
    env = Script([environment(0, "initial_assessment")])
    log = run(clin, pat, env, Script([GRADER_OK]), log_dir, protocol="tools")
    traj = trajectory(log)
    assert traj.end == "context_exhausted" and traj.turn_count == 1 and traj.complete
    assert "context window was full after 1 turn completed" in traj.end_reason
    assert OVERFLOW not in words(traj)
    assert figures_of(log)["context_exhausted"] == 1


def test_tools_protocol_environment_refusal_ends_the_encounter_unscored(log_dir: str) -> None:
    clin = Script(
        [
            tool_call("talk_to_patient", speech="Hello."),
            tool_call("talk_to_patient", speech="Are you there?"),
            tool_call("submit", answer="done"),
        ]
    )
    pat = Script([patient("Hi.")])
    env = Script([stopped("content_filter", FILTERED)])
    log = run(clin, pat, env, Script([GRADER_OK]), log_dir, protocol="tools")
    traj = trajectory(log)
    assert traj.end == "role_stopped" and traj.turn_count == 0
    assert "environment model's provider refused at turn 1" in traj.end_reason
    # the clinician agent is told only that the encounter is over
    told = [m.text for m in sample_of(log).messages if m.role == "tool"]
    assert told[0] == "The encounter is over. Call submit."
    assert score_of(log).reason == "encounter_incomplete"
