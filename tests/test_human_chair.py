"""The chair, exam-safe: Ctrl-C at any moment stops one encounter (or its grading), never the
run; a paste is one answer; a person's misuse is refused at load; the offline demo reads and
credits the person's own actions.

Ctrl-C is raised here as the real signal (``signal.raise_signal``) from inside a role model's
call, while the models work or grade, as a terminal's Ctrl-C arrives; the answers come from
scripted console input. The full-screen display's own Ctrl-C key needs a terminal (see the
README's "Human baselines" for the run in tmux)."""

from __future__ import annotations

import importlib
import io
import re
import signal
from pathlib import Path
from typing import Any

import anyio
import pytest
import rich
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog, resolve_sample_attachments
from inspect_ai.model import (
    ChatMessage,
    ChatMessageUser,
    GenerateConfig,
    Model,
    ModelOutput,
    get_model,
)
from inspect_ai.tool import ToolChoice, ToolInfo
from inspect_ai.util import Store
from rich.console import Console

from inspect_medsp import Trajectory, medsp_demo
from inspect_medsp.errors import MedSPParameterError
from inspect_medsp.human.debriefing import typed_when_stopped
from inspect_medsp.human.form import Stopped, ask_turn
from inspect_medsp.human.keys import ctrl_c_at_the_prompt, read_line
from inspect_medsp.record import ClinicianReply, PersonStop
from inspect_medsp.scripted.readings import readings
from inspect_medsp.scripted.recognise import Call, demo_records
from inspect_medsp.scripted.replies import grade
from inspect_medsp.scripted.scripts import load_scripts
from tests.support.scripts import Script, environment, patient
from tests.test_data import (
    ALL_IDS,
    ID_A,
    ID_C,
    _role_files,
    _rubric,
    _write_rubric,
    _write_scenario,
    _write_subset,
)


def hub_tree(root: Path) -> tuple[Path, Path]:
    """Three scenarios of the published form (none of them a demo's) and their rubrics,
    the subset holding two."""
    data, upstream = root / "data", root / "upstream"
    for k, sid in enumerate(ALL_IDS):
        _write_scenario(data, sid, _role_files(sid))
        _write_rubric(upstream, sid, _rubric(sid, n_pc=k + 1))
    _write_subset(upstream, [ID_C, ID_A])
    return data, upstream


HUMAN = "medsp/human/tester"
SCRIPTED = "medsp/scripted"
ANAPHYLAXIS = "demo_anaphylaxis/scenario1"
TWO_CASES = "demo_anaphylaxis*,demo_bad_news*"
OPEN = "\n"
"""The Enter that opens a case after its instructions' page."""


@pytest.fixture(autouse=True)
def _screen(monkeypatch: pytest.MonkeyPatch) -> None:
    """A console that prints (an earlier eval with ``display="none"`` leaves it quiet)."""
    monkeypatch.setattr(rich.get_console(), "quiet", False)


def type_in(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(text))


def run(log_dir: Path, roles: dict[str, Any], scenarios: str = ANAPHYLAXIS, **task: Any) -> EvalLog:
    [log] = inspect_eval(
        medsp_demo(scenarios=scenarios, judge="mockllm/model", **task),
        model=HUMAN, model_roles=roles, max_samples=1, log_dir=str(log_dir), display="plain",
    )  # fmt: skip
    assert log.status == "success", log.error
    assert log.samples is not None
    return log


def trajectory(log: EvalLog, index: int = 0) -> Trajectory:
    assert log.samples is not None
    return Trajectory(store=Store(log.samples[index].store))


def ctrl_c_in(script: Script, at_call: int = 1, seconds: float = 0.5, last: bool = False) -> Model:
    """The script's model, which at its ``at_call``-th call receives Ctrl-C and then takes
    ``seconds`` to answer (the chair asks in between); with ``last``, Ctrl-C comes as it
    hands its answer back."""

    async def answer(
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        pressed = len(script.calls) + 1 == at_call
        if pressed and not last:
            signal.raise_signal(signal.SIGINT)
        await anyio.sleep(seconds)
        output = script(input, tools, tool_choice, config)
        if pressed and last:
            signal.raise_signal(signal.SIGINT)
        return output

    return get_model("mockllm/model", custom_outputs=answer, memoize=False)


def roles(pat: Model | Script, env: Model | Script, grader: Model | Script) -> dict[str, Any]:
    def model(m: Model | Script) -> Model:
        return m.model() if isinstance(m, Script) else m

    return {"patient": model(pat), "environment": model(env), "grader": model(grader)}


ENDS = environment(0, "initial_assessment", end=True, reason="done")
GRADED = {"PC": {"[1]": {"met": True, "evidence": "T1 said: Hello."}}}


# --------------------------------------------------------------------------- while models work


def test_ctrl_c_while_the_models_answer_asks_and_y_stops_that_encounter_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ctrl-C while the patient answers turn 1: the screen asks at once; y ends this
    encounter as stopped by the person, with the turn they sent kept; the run goes on to the
    next case and ends with its re-run command."""
    before = signal.getsignal(signal.SIGINT)
    pat = Script([patient("Doctor?")])
    type_in(
        monkeypatch,
        OPEN + "Hello.\ncheck vital signs\n\nn\n" + "y\n" + "\n" + OPEN + "/stop\n" + "\n",
    )
    log = run(tmp_path, roles(ctrl_c_in(pat), Script([ENDS]), Script([GRADED])), TWO_CASES)

    assert log.samples is not None and len(log.samples) == 2  # the next case ran
    stopped = trajectory(log)
    assert stopped.end == "cancelled" and stopped.turn_count == 0
    assert stopped.end_reason == (
        f"{HUMAN} stopped the encounter at turn 1 (Ctrl-C while the models answered it; "
        "0 turns completed)"
    )
    stop = PersonStop.of(Store(log.samples[0].store))
    assert stop is not None and stop.seconds is not None and stop.seconds >= 0
    assert stop.model_copy(update={"seconds": None}) == PersonStop(
        turn=1, during="models", how="Ctrl-C", speak="Hello.", actions=["check vital signs"],
        sent=True,
    )  # fmt: skip
    score = log.samples[0].scores["medsp_rubric"]  # type: ignore[index]
    assert score.metadata and score.metadata["unscored"] == "encounter_incomplete"
    assert log.samples[0].error is None
    assert trajectory(log, 1).end == "cancelled"  # the second case: typed /stop
    shown = capsys.readouterr().out
    assert "Ctrl-C: the patient and environment are answering your turn 1." in shown
    assert "Stopping this encounter. Your turn 1 is kept in the log" in shown
    assert "Your turn 1, sent before you stopped (kept in the log, not scored):" in shown
    assert "MedSP: re-run the 2 encounters that did not finish" in shown
    assert signal.getsignal(signal.SIGINT) is before  # the case gave Ctrl-C back


def test_ctrl_c_while_the_models_answer_and_n_goes_on_with_nothing_lost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pat = Script([patient("Doctor?")])
    type_in(monkeypatch, OPEN + "Hello.\ncheck vital signs\n\nn\n" + "n\n" + "\n")
    log = run(tmp_path, roles(ctrl_c_in(pat), Script([ENDS]), Script([GRADED])))

    traj = trajectory(log)
    assert traj.end == "should_end"
    assert traj.turns[0].clinician == ClinicianReply(speak="Hello.", actions=["check vital signs"])
    assert "Going on: the models are still answering your turn 1." in capsys.readouterr().out


def test_ctrl_c_as_the_models_finish_is_asked_before_the_next_turn_is_typed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Pressed in the environment's last moment: the stop question comes before anything of
    the next turn is read (never after the person typed a whole turn that is then lost)."""
    env = Script([environment(0, "initial_assessment")])
    type_in(monkeypatch, OPEN + "Hello.\n\nn\n" + "y\n" + "\n")
    log = run(
        tmp_path,
        roles(Script([patient("Doctor?")]), ctrl_c_in(env, last=True), Script([GRADED])),
    )

    traj = trajectory(log)
    assert traj.end == "cancelled"
    assert [t.clinician for t in traj.turns] in ([], [ClinicianReply(speak="Hello.")])
    shown = capsys.readouterr().out
    assert shown.count("Stop this encounter? It is then not scored. (y/N)") == 1
    assert len(env.calls) == 1  # no second turn was played
    assert "turn 2 of 12" not in shown  # no question of a next turn after the stop


# --------------------------------------------------------------------------- during grading


def test_ctrl_c_during_grading_keeps_the_encounter_ungraded_with_its_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Stopped while graded: the encounter is whole and complete, its score unscored as
    ``grading_stopped`` (never a zero), and the end of the case gives the command that
    grades it; practice mode shows no checklist then."""
    grader = Script([GRADED])
    type_in(monkeypatch, OPEN + "Hello.\n\ny\n" + "y\n" + "\n")
    log = run(
        tmp_path, roles(Script([patient("Doctor?")]), Script([ENDS]), ctrl_c_in(grader)),
        feedback=True,
    )  # fmt: skip

    traj = trajectory(log)
    assert traj.complete and traj.turn_count == 1
    score = log.samples[0].scores["medsp_rubric"]  # type: ignore[index]
    assert score.metadata and score.metadata["unscored"] == "grading_stopped"
    # the log holds other scores (the work-up): the grading is appended, never overwriting them
    assert "--scorer inspect_medsp/medsp_rubric --action append" in str(score.explanation)
    shown = capsys.readouterr().out
    assert "Ctrl-C: the encounter is over and is being graded." in shown
    assert "Not graded: you stopped the grading." in shown
    command = (
        f"inspect score {log.location} --scorer inspect_medsp/medsp_rubric --action append "
        "--overwrite"
    )
    assert f"asks nothing):\n{command}\n" in shown  # alone on its line, never wrapped
    assert "Your checklist" not in shown
    # the stop is recorded as a stop during the encounter is
    stop = PersonStop.of(Store(log.samples[0].store))  # type: ignore[index]
    assert stop is not None and (stop.during, stop.how, stop.turn) == ("grading", "Ctrl-C", 1)


def test_help_shows_the_instructions_again_and_the_stopped_turn_is_timed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """/help repeats the clinician's instructions (the page they were on has scrolled away)
    before how to answer; the turn stopped in is on the person's time line."""
    type_in(monkeypatch, OPEN + "Hello.\n\nn\n" + "/help\n/stop\n" + "\n")
    stays = Script([environment(0, "initial_assessment")])
    run(tmp_path, roles(Script([patient("Doctor?")]), stays, Script([GRADED])))
    shown = capsys.readouterr().out
    assert shown.count("You are the physician in a simulated clinical encounter") == 2
    assert shown.index("You are the physician", shown.index("turn 2")) < shown.rindex(
        "Each turn answers three questions"
    )
    assert re.search(r"Your time: \d:\d\d in all \(turn 1 \d:\d\d, turn 2 \(stopped\) \d:\d\d\)",
                     " ".join(shown.split()))  # fmt: skip


def test_ctrl_c_at_the_end_of_a_case_is_said_not_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C at "Press Enter to go on": the screen says the case is over and kept, and
    asks again; Enter then goes on."""
    debrief = importlib.import_module("inspect_medsp.human.debriefing")  # not the function

    answers = iter([KeyboardInterrupt, ""])

    def read(console: Console, prompt: str, prefill: str = "") -> str:
        answer = next(answers)
        if answer is KeyboardInterrupt:
            raise KeyboardInterrupt
        return str(answer)

    monkeypatch.setattr(debrief, "read_line", read)
    out = io.StringIO()
    debrief.go_on(Console(file=out, width=200))
    assert "Ctrl-C: this case is over and kept in the log" in out.getvalue()
    assert next(answers, None) is None  # asked again, and Enter went on


# --------------------------------------------------------------------------- at the questions


def test_a_ctrl_c_between_two_questions_is_taken_at_the_next_one() -> None:
    """Pressed while nothing reads (the screen printing), Ctrl-C neither interrupts the
    printing nor waits a turn: the next question is interrupted before it reads anything."""
    console = Console(file=io.StringIO())
    with ctrl_c_at_the_prompt():
        signal.raise_signal(signal.SIGINT)  # between questions: noted, not raised
        with pytest.raises(KeyboardInterrupt):
            read_line(console, "Say: ")


class Pasting(io.StringIO):
    """Console input in which each read returns one chunk: a typed line, or a paste of
    several lines as a terminal with bracketed paste hands it over."""

    def __init__(self, *chunks: str) -> None:
        super().__init__()
        self.chunks = list(chunks)

    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
        return self.chunks.pop(0) if self.chunks else ""


def test_a_pasted_four_line_answer_lands_in_one_question(monkeypatch: pytest.MonkeyPatch) -> None:
    paste = "Hello, I am Dr Lee.\nI will help your breathing.\n\nMum, please stay.\n"
    monkeypatch.setattr("sys.stdin", Pasting(paste, "oxygen by mask\nIV access\n", "\n", "n\n"))
    out = io.StringIO()

    reply = ask_turn(Console(file=out, width=200), lambda: "")

    assert reply == ClinicianReply(
        speak="Hello, I am Dr Lee. I will help your breathing. Mum, please stay.",
        actions=["oxygen by mask", "IV access"],
        eos=False,
    )
    shown = out.getvalue()
    assert "(pasted: 3 lines, said as one answer; the next question is Action)" in shown
    assert "(pasted: 2 lines, 2 actions of this turn; an empty line ends them)" in shown


def test_a_paste_never_answers_stage_done(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", Pasting("Hi.\n", "\n", "y\nn\n", "y\n"))
    out = io.StringIO()
    assert ask_turn(Console(file=out, width=200), lambda: "") == ClinicianReply(
        speak="Hi.", eos=True
    )
    assert "Please answer y or n" in out.getvalue()


def test_a_command_at_the_end_of_a_line_is_words_and_said_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("sys.stdin", Pasting("Hi.\n", "give oxygen /stop\n", "\n", "\n"))
    out = io.StringIO()
    reply = ask_turn(Console(file=out, width=200), lambda: "")
    assert reply == ClinicianReply(speak="Hi.", actions=["give oxygen /stop"])
    assert "/stop at the end of your line was kept as words of that line" in out.getvalue()


def test_a_stop_at_a_question_keeps_what_was_typed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", Pasting("Hello.\n", "check pulse\n", "/stop\n"))
    stopped = ask_turn(Console(file=io.StringIO()), lambda: "")
    assert stopped == Stopped("typed /stop", "Hello.", ("check pulse",))


# --------------------------------------------------------------------------- refused at load


@pytest.mark.parametrize(
    ("options", "needles"),
    [
        ({"epochs": 2}, ("--epochs 2 is not accepted with --model medsp/human/x",)),
        ({"time_limit": 20}, ("--time-limit 20 is not accepted", "--working-limit")),
        (
            {"score": False, "task_args": {"feedback": True}},
            ("feedback=true is not accepted with --no-score",),
        ),
        (
            {"task_args": {"variants": "baseline,anxious"}},
            ("variants=baseline,anxious is not accepted with --model medsp/human/x",),
        ),
    ],
    ids=["epochs", "time-limit", "feedback-no-score", "variants"],
)
def test_a_persons_misuse_is_refused_at_load_in_one_line(
    tmp_path: Path, options: dict[str, Any], needles: tuple[str, ...]
) -> None:
    task_args = {"judge": SCRIPTED, **options.pop("task_args", {})}
    with pytest.raises(MedSPParameterError) as error:
        inspect_eval(
            "inspect_medsp/medsp_demo", model="medsp/human/x", task_args=task_args,
            max_samples=1, log_dir=str(tmp_path / "logs"), display="plain", **options,
        )  # fmt: skip
    message = str(error.value)
    assert "\n" not in message
    for needle in needles:
        assert needle in message
    assert not list((tmp_path / "logs").glob("*.eval"))


def test_a_judge_that_cannot_play_the_cases_is_refused_before_the_first_case(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """medsp/scripted as the judge of cases it has no script for (here the 100-case task on
    a local tree): one line at load naming the cases and the scenarios it can play; no
    question is asked and no log is written (it used to fail after the person's first turn,
    with a traceback)."""
    data, upstream = hub_tree(tmp_path)
    type_in(monkeypatch, OPEN + "Hello.\n\nn\n")
    with pytest.raises(MedSPParameterError) as error:
        inspect_eval(
            "inspect_medsp/medsp100", model="medsp/human/cand03",
            task_args={"judge": SCRIPTED, "data_dir": str(data), "upstream_dir": str(upstream)},
            max_samples=1, score=False, log_dir=str(tmp_path / "logs"), display="plain",
        )  # fmt: skip
    message = str(error.value)
    assert "\n" not in message
    assert message.startswith("medsp/scripted cannot play 2 cases of MedSP-Q100 (")
    assert "demo_anaphylaxis/scenario1, demo_bad_news/scenario1, demo_peds_asthma" in message
    assert "Say (Enter: nothing)" not in capsys.readouterr().out
    assert not list((tmp_path / "logs").glob("*.eval"))


def test_a_models_error_in_a_persons_case_ends_that_encounter_without_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The patient's model fails after the person's first turn: that encounter ends, unscored
    (never a zero), the person reads one line saying what failed, the next case is played,
    and the traceback is in the log's transcript, not on the screen."""

    def down(*args: object) -> ModelOutput:
        raise RuntimeError("the patient's provider is down")

    failing = get_model("mockllm/model", custom_outputs=down, memoize=False)
    type_in(monkeypatch, OPEN + "Hello.\n\nn\n" + "\n" + OPEN + "/stop\n" + "\n")
    log = run(tmp_path, roles(failing, Script([ENDS]), Script([GRADED])), TWO_CASES)

    assert log.samples is not None and len(log.samples) == 2  # the next case was played
    first = trajectory(log)
    assert first.end == "error" and first.end_reason == (
        "RuntimeError during turn 1 (0 turns completed): the patient's provider is down"
    )
    assert log.samples[0].error is None
    score = log.samples[0].scores["medsp_rubric"]  # type: ignore[index]
    assert score.metadata and score.metadata["unscored"] == "encounter_incomplete"
    shown = capsys.readouterr().out
    assert "The encounter ended on an error of the models, not of yours: RuntimeError" in shown
    assert "Traceback" not in shown and "the patient's provider is down\")" not in shown
    sample = resolve_sample_attachments(log.samples[0])
    infos = [e for e in sample.events if e.event == "info"]
    assert any("Traceback (most recent call last)" in str(e.data) for e in infos)


def test_a_models_error_in_a_models_case_is_still_a_sample_error(tmp_path: Path) -> None:
    def down(*args: object) -> ModelOutput:
        raise RuntimeError("the patient's provider is down")

    failing = get_model("mockllm/model", custom_outputs=down, memoize=False)
    clinician = Script([{"speak": "Hello.", "actions": [], "eos": False}]).model()
    [log] = inspect_eval(
        medsp_demo(scenarios=ANAPHYLAXIS, judge="mockllm/model"), model=clinician,
        model_roles=roles(failing, Script([ENDS]), Script([GRADED])),
        log_dir=str(tmp_path), display="none",
    )  # fmt: skip
    assert log.status == "error" and log.error is not None
    assert "provider is down" in log.error.message


def test_the_case_title_is_shown_only_when_asked_for_practice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A clinician model is never told the case's title: the line under the header is the
    stage as the model reads it, and the title comes only with -M title=true."""
    for title, shown in ((False, False), (True, True)):
        type_in(monkeypatch, OPEN + "/stop\n" + "\n")
        inspect_eval(
            medsp_demo(scenarios=ANAPHYLAXIS, judge=SCRIPTED), model=HUMAN,
            model_args={"title": title}, log_dir=str(tmp_path), display="plain",
        )  # fmt: skip
        screen = capsys.readouterr().out
        assert "Current stage: initial_assessment" in screen
        assert ("Anaphylaxis after a wasp sting · Current stage" in screen) is shown
        assert "stage 1:" not in screen


def test_a_line_typed_when_the_stop_is_confirmed_is_kept_as_typed_not_sent(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Ctrl-C while a line is typed and not entered: the line comes back with the stop
    (kept in the log as typed, not sent), next to what the turn had entered."""
    from inspect_medsp.human import form, keys

    answers = iter(["Hello.", KeyboardInterrupt, "y"])

    def read(console: Console, prompt: str, prefill: str = "") -> str:
        answer = next(answers)
        if answer is KeyboardInterrupt:
            keys._Keys.typed = "give adrenal"  # what readline held when Ctrl-C came
            raise KeyboardInterrupt
        return str(answer)

    monkeypatch.setattr(form, "read_line", read)
    stopped = ask_turn(Console(file=io.StringIO()), lambda: "")
    assert stopped == Stopped("Ctrl-C", "Hello.", (), "give adrenal")
    shown = typed_when_stopped(PersonStop(turn=2, during="question", how="Ctrl-C",
                                          speak="Hello.", unsent="give adrenal"))  # fmt: skip
    assert "Typed, not sent (you had not pressed Enter; kept in the log): give adrenal" in shown


def test_a_line_typed_when_the_stop_is_declined_is_asked_again_with_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Ctrl-C, then Enter (go on): the same question comes back with the line typed on it,
    and what is entered then is the answer."""
    from inspect_medsp.human import form, keys

    prefills: list[str] = []
    answers = iter([KeyboardInterrupt, "", "half typed, then more", "", "n"])

    def read(console: Console, prompt: str, prefill: str = "") -> str:
        prefills.append(prefill)
        answer = next(answers)
        if answer is KeyboardInterrupt:
            keys._Keys.typed = "half typed"
            raise KeyboardInterrupt
        return str(answer)

    monkeypatch.setattr(form, "read_line", read)
    reply = ask_turn(Console(file=io.StringIO()), lambda: "")
    assert reply == ClinicianReply(speak="half typed, then more", actions=[], eos=False)
    assert prefills[:3] == ["", "", "half typed"]  # the Say question again, with the line


# --------------------------------------------------------------------------- offline feedback


def test_the_scripted_environment_reads_each_action_by_its_words() -> None:
    """An extra action first and the rest in another order: each reading is the action's
    own; the unknown one is noted; no reading is taken from the script's position."""
    script = load_scripts()[ANAPHYLAXIS]
    actions = ["Check a finger-prick blood glucose", *reversed(script.turns[1].clinician.actions)]

    read = readings(actions, script, 1)

    assert [a["interpreted_action"] for a in read.assessments] == actions
    assert read.assessments[0]["status"] == "pending"
    assert read.feedback[0] == "Noted: Check a finger-prick blood glucose."
    # the script's own actions in its order: answered exactly as scripted
    own = readings(script.turns[1].clinician.actions, script, 1)
    assert own.feedback == script.turns[1].environment.feedback


def test_a_paraphrase_is_read_as_the_scripted_action_it_names() -> None:
    script = load_scripts()[ANAPHYLAXIS]
    read = readings(["Repeat IM epinephrine 0.5 mg into the right thigh"], script, 2)
    assert read.assessments[0]["interpreted_action"] == script.turns[2].clinician.actions[0]
    assert read.feedback == [script.turns[2].environment.feedback[0]]


def test_the_scripted_grader_credits_only_the_clinicians_own_lines() -> None:
    """An evidence phrase in the patient's words, the environment's report or the
    environment's reading of an action is no credit; the same phrase typed is."""
    record = next(r for r in demo_records() if r.id == ANAPHYLAXIS)
    script = load_scripts()[ANAPHYLAXIS]
    phrase = "lie him flat on the trolley with his legs raised"

    def verdict(*lines: str) -> bool:
        text = "\n".join(["-- turn 1 --", *lines])
        result = grade(Call("grader", record, 1), script, [ChatMessageUser(content=text)])
        return bool(result["PC"]["[2]"]["met"])

    assert not verdict(f"Patient says: please {phrase}")
    assert not verdict(f"Environment: nurse will {phrase}")
    assert not verdict(f"Clinician action: lay flat [executed; interpreted as {phrase}]")
    assert verdict(f"Clinician action: {phrase} [executed]")
    assert verdict(f"Clinician says: Nurse, {phrase}, please.")


def test_a_practice_encounter_with_an_extra_action_first_reads_every_action_as_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The demo played as the script, with an extra order before the first action: every
    logged reading is the action's own (the extra one noted), the checklist is the
    script's, and the screen names the case and stage and gives the person's time."""
    script = load_scripts()[ANAPHYLAXIS]
    turns = []
    for number, turn in enumerate(script.turns):
        actions = turn.clinician.actions
        if number == 0:
            actions = ["Check a finger-prick blood glucose", *actions]
        turns.append(
            "\n".join([turn.clinician.speak, *actions, "", "y" if turn.clinician.eos else "n"])
        )
    type_in(monkeypatch, OPEN + "\n".join(turns) + "\n\n")
    [log] = inspect_eval(
        medsp_demo(scenarios=ANAPHYLAXIS, judge=SCRIPTED, feedback=True), model=HUMAN,
        log_dir=str(tmp_path), display="plain",
    )  # fmt: skip

    traj = trajectory(log)
    extra, *rest = traj.action_log
    assert (extra.raw, extra.interpreted_action, extra.status) == (
        "Check a finger-prick blood glucose",
        "Check a finger-prick blood glucose",
        "pending",
    )
    assert all(a.interpreted_action == a.raw for a in rest)
    score = log.samples[0].scores["medsp_rubric"]  # type: ignore[index]
    assert score.answer == "12/17 items"  # as the scripted clinician scores
    shown = capsys.readouterr().out
    assert "Current stage: initial_assessment" in shown
    assert "Anaphylaxis after a wasp sting" not in shown  # the title only with -M title=true
    assert "the environment read it as" not in shown
    assert "Your time: " in shown and "(turn 1 0:" in shown
