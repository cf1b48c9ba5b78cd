"""``medsp/human``: a person in the clinician's chair, driven here by scripted console input."""

from __future__ import annotations

import io
import math
import re
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import rich
import rich.console
from inspect_ai import eval
from inspect_ai import score as inspect_score
from inspect_ai.log import EvalLog, EvalSample
from inspect_ai.model import get_model
from inspect_ai.scorer import Score
from inspect_ai.util import Store

from inspect_medsp import Trajectory, medsp_demo
from inspect_medsp.comparisons.differences_chart import differences_figure
from inspect_medsp.encounter.engine import SILENT_TO_PATIENT
from inspect_medsp.errors import MedSPParameterError
from inspect_medsp.full_report import render_markdown
from inspect_medsp.human.evidence import told
from inspect_medsp.human.keys import read_line
from inspect_medsp.params import TaskParameters
from inspect_medsp.record import ClinicianReply, Line
from inspect_medsp.report import analyse, collect, leaderboard_table
from inspect_medsp.scoring import medsp_rubric
from inspect_medsp.scripted.scripts import ClinicianTurn, load_scripts
from inspect_medsp.stats import Comparison, Paired
from inspect_medsp.tasks import medsp_task
from tests.support.scripts import Script, environment, executed, patient
from tests.support.tree import MARKERS, write_marked_scenario

SCRIPTED = "medsp/scripted"
HUMAN = "medsp/human/tester"
ANAPHYLAXIS = "demo_anaphylaxis/scenario1"


CTRL_C = "\x03"
"""A line of this alone is Ctrl-C pressed at that question."""


class Keyboard(io.StringIO):
    """Console input typed line by line, each line after ``pause`` seconds of thought; a line
    ``CTRL_C`` interrupts the question as Ctrl-C does."""

    def __init__(self, text: str, pause: float = 0.0) -> None:
        super().__init__(text)
        self.pause = pause

    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
        time.sleep(self.pause)
        line = super().readline(-1 if size is None else size)
        if line.rstrip("\n") == CTRL_C:
            raise KeyboardInterrupt
        return line


def typed(turn: ClinicianTurn | ClinicianReply) -> str:
    """The lines a person types for one turn: words, actions, an empty line, done or not."""
    return "\n".join([turn.speak, *turn.actions, "", "y" if turn.eos else "n"]) + "\n"


@pytest.fixture(autouse=True)
def _screen(monkeypatch: pytest.MonkeyPatch) -> None:
    """A console that prints: an earlier eval of this process with ``display="none"`` leaves
    Inspect's shared console quiet (a real ``inspect eval`` process runs one display)."""
    monkeypatch.setattr(rich.get_console(), "quiet", False)


OPEN = "\n"
"""The Enter that opens the case after the instructions' page."""


def type_in(monkeypatch: pytest.MonkeyPatch, text: str, pause: float = 0.0) -> None:
    """Type ``text`` at the console, after the Enter that opens the case."""
    monkeypatch.setattr("sys.stdin", Keyboard(OPEN + text, pause))


def run(task: Any, model: str, log_dir: Path, **options: Any) -> EvalLog:
    [log] = eval(task, model=model, log_dir=str(log_dir), display="plain", **options)
    assert log.status == "success", log.error
    return log


def only(log: EvalLog) -> EvalSample:
    assert log.samples is not None and len(log.samples) == 1
    return log.samples[0]


def trajectory(sample: EvalSample) -> Trajectory:
    return Trajectory(store=Store(sample.store))


def score(sample: EvalSample) -> Score:
    assert sample.scores is not None
    return sample.scores["medsp_rubric"]


def test_a_person_typing_the_scripted_turns_leaves_the_scripted_models_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Typed at the console, the scripted clinician's words and actions make the same record
    and the same score as the scripted model, and each turn's thinking time is kept."""
    script = load_scripts()[ANAPHYLAXIS]
    model_run = only(run(medsp_demo(scenarios=ANAPHYLAXIS, judge=SCRIPTED), SCRIPTED, tmp_path))
    type_in(monkeypatch, "".join(typed(t.clinician) for t in script.turns), pause=0.02)
    person_run = only(run(medsp_demo(scenarios=ANAPHYLAXIS, judge=SCRIPTED), HUMAN, tmp_path))

    by_model, by_person = trajectory(model_run), trajectory(person_run)
    assert by_person.turn_count == len(script.turns) == by_model.turn_count
    untimed = {"clinician_seconds"}
    assert [t.model_dump(exclude=untimed) for t in by_person.turns] == [
        t.model_dump(exclude=untimed) for t in by_model.turns
    ]
    assert (by_person.end, by_person.end_reason) == (by_model.end, by_model.end_reason)
    assert by_person.role_models["clinician"] == HUMAN
    assert score(person_run).value == score(model_run).value
    # three prompts at least per turn, each answered after 0.02 s
    for turn in by_person.turns:
        assert turn.clinician_seconds is not None and turn.clinician_seconds >= 0.05
    assert all(t.clinician_seconds is not None for t in by_model.turns)

    shown = capsys.readouterr().out
    assert "MedSP encounter · tester · case 1 of 1 · before you start" in shown
    assert "MedSP encounter · tester · case 1 of 1 · turn 1 of 12" in shown
    assert f"case 1 of 1 · turn {len(script.turns)} of 12" in shown
    assert "JSON" not in shown  # the format lines are for models; the form asks instead


def _marked_task(tmp_path: Path) -> Any:
    data, upstream = write_marked_scenario(tmp_path)
    return medsp_task("marked", data, upstream, TaskParameters(max_turns=3, judge="mockllm/model"))


def _roles(pat: Script, env: Script, grader: Script) -> dict[str, Any]:
    return {"patient": pat.model(), "environment": env.model(), "grader": grader.model()}


def test_the_person_sees_the_door_note_and_updates_and_nothing_private(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Everything printed to the person, /history included, carries the door note and the
    turn's feedback, events and patient words, and none of the planted private markers."""
    pat = Script([patient("It hurts here, in the middle.")])
    env = Script(
        [
            environment(0, "initial_assessment", feedback=["ECG: ST elevation V2-V4"]),
            environment(1, "ecg_reviewed", events=["The nurse brings the crash cart"]),
            environment(1, "ecg_reviewed", end=True, reason="done"),
        ]
    )
    grader = Script([{"PC": {"Gives aspirin 300 mg": True}}])
    type_in(
        monkeypatch,
        "Hello, I am Dr Lee.\n12-lead ECG\n\nn\n"
        "/history\nAspirin now.\naspirin 300 mg chewed\n\ny\n"
        "\n\n\n",
    )
    log = run(_marked_task(tmp_path), HUMAN, tmp_path, model_roles=_roles(pat, env, grader))
    shown = capsys.readouterr().out
    assert "Door note: 58-year-old with chest pain" in shown
    assert "ECG: ST elevation V2-V4" in shown
    assert "The nurse brings the crash cart" in shown
    assert "It hurts here, in the middle." in shown
    assert shown.count("Door note: 58-year-old") == 2  # the opening, and /history
    assert "Your turn 1:\nSay: Hello, I am Dr Lee.\nAction: 12-lead ECG\nStage done: no" in shown
    for marker in MARKERS.values():
        assert marker not in shown
    assert trajectory(only(log)).turn_count == 3


def test_typing_nothing_is_a_turn_in_which_nothing_is_said_or_done(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pat = Script([patient("Doctor?")])
    env = Script([environment(0, "initial_assessment")])
    grader = Script([{"PC": {}}])
    type_in(monkeypatch, "\n\n\n" * 2)
    log = run(
        medsp_demo(scenarios=ANAPHYLAXIS, judge="mockllm/model", max_turns=2),
        HUMAN,
        tmp_path,
        model_roles=_roles(pat, env, grader),
    )
    traj = trajectory(only(log))
    assert traj.end == "turn_limit" and traj.turn_count == 2
    assert [t.clinician for t in traj.turns] == [ClinicianReply()] * 2
    assert traj.health["clinician"].clean == 2  # a turn, not a malformed reply
    assert SILENT_TO_PATIENT in pat.calls[0][-1].text
    assert isinstance(score(only(log)).value, dict)  # graded like any complete encounter


@pytest.mark.parametrize(("typed_in", "how"), [("/stop\n", "typed /stop"), ("", "the input ended")])
def test_stopping_is_a_cancelled_encounter_left_unscored_with_its_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, typed_in: str, how: str
) -> None:
    pat = Script([patient("Doctor?")])
    env = Script([environment(0, "initial_assessment")])
    grader = Script([{"PC": {}}])
    type_in(monkeypatch, "Hello.\ncheck vital signs\n\nn\n" + typed_in)
    log = run(
        medsp_demo(scenarios=ANAPHYLAXIS, judge="mockllm/model"),
        HUMAN,
        tmp_path,
        model_roles=_roles(pat, env, grader),
    )
    sample = only(log)
    traj = trajectory(sample)
    assert traj.end == "cancelled" and traj.turn_count == 1
    why = f"{HUMAN} stopped the encounter at turn 2 ({how})"
    assert traj.end_reason.endswith(why)
    result = score(sample)
    assert isinstance(result.value, float) and math.isnan(result.value)
    assert result.reason == "encounter_incomplete"
    assert result.metadata is not None and why in result.metadata["unscored_why"]
    assert len(grader.calls) == 0
    assert log.results is not None and log.results.scores[0].unscored_samples == 1


def test_a_person_plays_the_clinician_only(tmp_path: Path) -> None:
    """As the judge the person is refused at load; bound to a role, at the role's first call,
    each with one line saying what to bind instead."""
    with pytest.raises(MedSPParameterError, match=r"judge=.*a person plays the clinician only"):
        medsp_demo(scenarios=ANAPHYLAXIS, judge=HUMAN)
    [log] = eval(
        medsp_demo(scenarios=ANAPHYLAXIS, judge=SCRIPTED),
        model=SCRIPTED,
        model_roles={"patient": HUMAN},
        log_dir=str(tmp_path),
        display="none",
    )
    sample = only(log)
    assert sample.error is not None and "plays the clinician only" in sample.error.message
    assert trajectory(sample).end == "error"


def test_model_names() -> None:
    assert str(get_model("medsp/human")) == "medsp/human"
    assert str(get_model("medsp/human/res-01")) == "medsp/human/res-01"
    with pytest.raises(Exception, match="letters, digits"):
        get_model("medsp/human/two words")
    with pytest.raises(Exception, match=r"medsp/scripted .*medsp/human/<name>"):
        get_model("medsp/nobody")


def test_a_person_takes_one_case_at_a_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Three cases at once would interleave on one screen: the run stops with the flag to add."""
    type_in(monkeypatch, "")
    [log] = eval(
        medsp_demo(judge=SCRIPTED),
        model=HUMAN,
        log_dir=str(tmp_path),
        display="plain",
        max_samples=3,
    )
    assert log.status == "error" and log.error is not None
    assert "takes one case at a time" in log.error.message
    assert "--max-samples 1" in log.error.message


def _typed_script(scenario: str) -> str:
    return "".join(typed(t.clinician) for t in load_scripts()[scenario].turns)


def test_practice_mode_shows_the_checklist_with_evidence_and_where_the_log_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The scripted demo's grader: every item with ✓ or ✗, the verdicts said to be a
    script's, each met item's evidence told as the person's own turn, and the log to view."""
    type_in(monkeypatch, _typed_script(ANAPHYLAXIS) + "\n")  # and Enter after the checklist
    log = run(medsp_demo(scenarios=ANAPHYLAXIS, judge=SCRIPTED, feedback=True), HUMAN, tmp_path)
    result = score(only(log))
    assert result.metadata is not None
    shown = capsys.readouterr().out
    end = shown[shown.index("MedSP encounter · tester · the end") :]
    assert "The encounter is over (last stage completed" in end  # the clinician's closing
    assert f"Your checklist: {result.answer} met" in end
    met = [i for i in result.metadata["items"] if i["met"]]
    missed = [i for i in result.metadata["items"] if not i["met"]]
    assert met and missed
    assert end.count("✓") == len(met) and end.count("✗") == len(missed)
    flat = " ".join(end.split())
    assert "These verdicts are a script's, not a judgement" in flat
    sources = re.findall(r"you said \(turn|you did \(turn|not yours: |the grader's note", flat)
    assert len(sources) == len(met)  # one evidence line under each met item, none under a miss
    turns = load_scripts()[ANAPHYLAXIS].turns
    typed_lines = {" ".join(t.clinician.speak.split()) for t in turns} | {
        " ".join(a.split()) for t in turns for a in t.clinician.actions
    }
    own = re.findall(r'you (?:said|did) \(turn \d+\): "(.*?)"(?:;|\s[✓✗]|\s\*|$| [A-Z])', flat)
    assert own and all(words in typed_lines for words in own)  # the person's words, whole
    assert "|" not in end[: end.index("Press Enter to go on.")]  # no record rows
    assert f"inspect view {log.location}" in flat


def test_practice_feedback_never_shows_the_environments_reading_as_the_persons_doing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The grader credits an item with the environment's reading of an action: the person
    sees the action they typed, and the reading as the environment's words."""
    pat = Script([patient("It hurts here, in the middle.")])
    env = Script(
        [
            environment(
                0, "initial_assessment", end=True, reason="done",
                assessments=[
                    executed("aspirin please", "Aspirin 300 mg chewed"),
                    executed("sit with them", "Sit quietly for a moment and allow silence"),
                ],
            )
        ]
    )  # fmt: skip
    grader = Script(
        [
            {
                "PC": {
                    "Gives aspirin 300 mg": {"met": True, "evidence": "Aspirin 300 mg chewed"},
                    f"Obtains an ECG {MARKERS['rubric']}": {"met": False, "evidence": "none"},
                },
                "MK": {
                    "Names acute coronary syndrome as the working diagnosis": {
                        "met": True,
                        "evidence": "Patient says: It hurts here",
                    }
                },
                "ICS": {
                    "Introduces themself": {
                        "met": True,
                        "evidence": "Clinician says: Hello, I am Dr Lee.",
                    }
                },
            }
        ]
    )
    type_in(
        monkeypatch,
        "Hello, I am Dr Lee. Where does it hurt?\naspirin please\nsit with them\n\nn\n\n",
    )
    data, upstream = write_marked_scenario(tmp_path)
    task = medsp_task(
        "marked", data, upstream,
        TaskParameters(max_turns=3, judge="mockllm/model", feedback=True),
    )  # fmt: skip
    run(task, HUMAN, tmp_path, model_roles=_roles(pat, env, grader))
    end = capsys.readouterr().out.split("· the end")[1]
    flat = " ".join(end.split())
    assert (
        '✓ [1] Gives aspirin 300 mg you did (turn 1): "aspirin please"; the environment read '
        'it as: "Aspirin 300 mg chewed" (its words, not yours)'
    ) in flat
    assert (
        "✓ [3] Names acute coronary syndrome as the working diagnosis not yours: the patient "
        'side said (turn 1): "It hurts here, in the middle."'
    ) in flat
    assert '✓ [4] Introduces themself you said (turn 1): "Hello, I am Dr Lee. Where does' in flat
    assert "script's" not in flat  # a model graded
    assert 'you did (turn 1): "Sit quietly' not in flat and 'you did (turn 1): "Aspirin' not in flat


def test_evidence_the_encounter_does_not_hold_is_the_graders_own_note() -> None:
    lines = [Line("said", 2, "I will give adrenaline now.", "Clinician says: ...")]
    assert told("none", lines) == ""
    assert told("adrenaline now", lines) == 'you said (turn 2): "I will give adrenaline now."'
    # the scripted demo's grader cites the turn and cuts a long quote at a word with "…"
    assert told("T2 says: I will give adrenaline…", lines) == (
        'you said (turn 2): "I will give adrenaline now."'
    )
    assert told("The clinician recognised anaphylaxis early", lines) == (
        "the grader's note (not a line of the encounter): "
        '"The clinician recognised anaphylaxis early"'
    )


def test_without_practice_mode_the_person_sees_how_it_ended_and_no_checklist(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    type_in(monkeypatch, _typed_script(ANAPHYLAXIS) + "\n")
    run(medsp_demo(scenarios=ANAPHYLAXIS, judge=SCRIPTED), HUMAN, tmp_path)
    end = capsys.readouterr().out.split("· the end")[1]
    assert "The encounter is over" in end
    assert "✓" not in end and "checklist" not in end


def test_a_stopped_encounter_ends_with_its_reason_and_no_checklist(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    type_in(monkeypatch, "/stop\n\n")
    run(medsp_demo(scenarios=ANAPHYLAXIS, judge=SCRIPTED, feedback=True), HUMAN, tmp_path)
    end = " ".join(capsys.readouterr().out.split("· the end")[1].split())
    assert "The encounter was stopped: the sample was terminated during turn 1" in end
    assert "It is not scored." in end and "✓" not in end


def test_practice_mode_with_a_model_clinician_shows_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = run(medsp_demo(scenarios=ANAPHYLAXIS, judge=SCRIPTED, feedback=True), SCRIPTED, tmp_path)
    assert "· the end" not in capsys.readouterr().out
    sample = only(log)
    notes = [str(e.data) for e in sample.events if e.event == "info"]
    notes = [sample.attachments.get(n.removeprefix("attachment://"), n) for n in notes]
    assert any("feedback=true shows the checklist to a person" in n for n in notes)


def test_the_report_names_a_person_as_human_with_time_per_turn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A person and the scripted model on the same case: two groups, the person's labelled
    ``human: <name>`` (not a model) with their median thinking time per turn."""
    logs = tmp_path / "logs"
    run(medsp_demo(scenarios=ANAPHYLAXIS, judge=SCRIPTED), SCRIPTED, logs)
    type_in(monkeypatch, _typed_script(ANAPHYLAXIS), pause=0.05)
    run(medsp_demo(scenarios=ANAPHYLAXIS, judge=SCRIPTED), HUMAN, logs)
    runs, problems = collect([logs])
    assert not problems
    analysis = analyse(runs)
    by_label = {g.label: g for g in analysis.groups}
    assert set(by_label) == {"human: tester", SCRIPTED}
    person, model = by_label["human: tester"], by_label[SCRIPTED]
    assert person.human and not model.human
    assert person.seconds_per_turn is not None and person.seconds_per_turn >= 0.15
    assert model.seconds_per_turn is not None and model.seconds_per_turn < 0.15
    assert analysis.shared_ids == [ANAPHYLAXIS]  # compared on the case both took

    board = leaderboard_table(analysis)
    kinds = dict(zip(board.column("group"), board.column("clinician_kind"), strict=True))
    assert kinds == {"human: tester": "human", SCRIPTED: "model"}
    markdown = render_markdown(analysis, charts=False)
    assert "| human: tester |" in markdown and "Time / turn" in markdown


# --------------------------------------------------------------------------- the chair


def _one_turn_roles(*envs: dict[str, Any]) -> tuple[Script, dict[str, Any]]:
    pat = Script([patient("Doctor?")])
    env = Script(list(envs) or [environment(0, "initial_assessment")])
    grader = Script([{"PC": {}}])
    return pat, _roles(pat, env, grader)


def test_a_slash_command_is_a_command_at_every_question_and_never_the_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """/help at Say, /history at Action and at Stage done, an unknown /command: each is
    carried out (or refused) and the question asked again; none becomes words or an action."""
    _, roles = _one_turn_roles()
    type_in(
        monkeypatch,
        "/help\nHello.\ncheck vital signs\n/history\n/hsitory\nIV access\n\n/history\nn\n/stop\n\n",
    )
    log = run(
        medsp_demo(scenarios=ANAPHYLAXIS, judge="mockllm/model"), HUMAN, tmp_path,
        model_roles=roles,
    )  # fmt: skip
    traj = trajectory(only(log))
    assert [t.clinician for t in traj.turns] == [
        ClinicianReply(speak="Hello.", actions=["check vital signs", "IV access"], eos=False)
    ]
    assert traj.end == "cancelled" and traj.end_reason.endswith("(typed /stop)")
    shown = capsys.readouterr().out
    assert shown.count("/history shows the case so far") == 2  # the opening page and /help
    assert shown.count("This turn so far:\nSay: Hello.\nAction: check vital signs") == 2
    assert "/hsitory is not a command, and nothing was recorded" in shown


@pytest.mark.parametrize("where", ["say", "action", "stage", "open"])
def test_ctrl_c_at_a_question_asks_and_n_goes_on_with_nothing_lost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    where: str,
) -> None:  # fmt: skip
    _, roles = _one_turn_roles(environment(0, "initial_assessment", end=True, reason="done"))
    answers = {
        "open": [f"{CTRL_C}\nn\n", "Hello.", "check vital signs", "", "n"],
        "say": [f"{CTRL_C}\nn\nHello.", "check vital signs", "", "n"],
        "action": ["Hello.", f"{CTRL_C}\nn\ncheck vital signs", "", "n"],
        "stage": ["Hello.", "check vital signs", "", f"{CTRL_C}\nn\nn"],
    }[where]
    text = "\n".join(answers) + "\n\n"
    monkeypatch.setattr("sys.stdin", Keyboard(text if where == "open" else OPEN + text))
    log = run(
        medsp_demo(scenarios=ANAPHYLAXIS, judge="mockllm/model"), HUMAN, tmp_path,
        model_roles=roles,
    )  # fmt: skip
    traj = trajectory(only(log))
    assert traj.end == "should_end"
    assert traj.turns[0].clinician == ClinicianReply(speak="Hello.", actions=["check vital signs"])
    shown = capsys.readouterr().out
    assert "Stop this encounter? It is then not scored. (y/N)" in shown
    assert "Going on with the encounter." in shown


@pytest.mark.parametrize(
    ("typed_after", "where"),
    [
        (f"{CTRL_C}\ny\n", "say"),
        (f"Hello.\n{CTRL_C}\ny\n", "action"),
        (f"Hello.\n\n{CTRL_C}\n{CTRL_C}\n", "stage"),  # Ctrl-C twice stops too
    ],
)
def test_ctrl_c_then_y_stops_the_encounter_cleanly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, typed_after: str, where: str
) -> None:
    """Stopped with Ctrl-C at any question: the encounter is cancelled and unscored, the run
    goes on to its end (its log is written), and nothing typed in the turn is recorded."""
    _, roles = _one_turn_roles()
    type_in(monkeypatch, "Hi.\n\nn\n" + typed_after + "\n")
    log = run(
        medsp_demo(scenarios=ANAPHYLAXIS, judge="mockllm/model"), HUMAN, tmp_path,
        model_roles=roles,
    )  # fmt: skip
    assert log.location and Path(log.location).exists()
    sample = only(log)
    traj = trajectory(sample)
    assert traj.end == "cancelled" and traj.turn_count == 1, where
    assert traj.end_reason.endswith(f"{HUMAN} stopped the encounter at turn 2 (Ctrl-C)")
    assert score(sample).reason == "encounter_incomplete"


def test_the_header_counts_the_cases_and_the_turns_of_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two cases, one after the other: each screen says which case of how many, and which
    turn of the limit."""
    type_in(monkeypatch, "Hello.\n\nn\n/stop\n\n" + OPEN + "/stop\n\n")
    log = run(
        medsp_demo(scenarios="demo_anaphylaxis*,demo_bad_news*", judge=SCRIPTED, max_turns=5),
        HUMAN,
        tmp_path,
        max_samples=1,
    )
    assert log.samples is not None and len(log.samples) == 2
    rules = [line for line in capsys.readouterr().out.splitlines() if "MedSP encounter" in line]
    # (typed input is not echoed here, so a rule may follow the question on its line)
    titles = [
        " ".join(("MedSP encounter" + r.split("MedSP encounter")[1]).strip("─ ").split())
        for r in rules
    ]
    assert titles == [
        "MedSP encounter · tester · case 1 of 2 · before you start",
        "MedSP encounter · tester · case 1 of 2 · turn 1 of 5",
        "MedSP encounter · tester · case 1 of 2 · turn 2 of 5",
        "MedSP encounter · tester · the end",
        "MedSP encounter · tester · case 2 of 2 · before you start",
        "MedSP encounter · tester · case 2 of 2 · turn 1 of 5",
        "MedSP encounter · tester · the end",
    ]


@pytest.mark.parametrize(
    ("moved", "said"),
    [
        (False, "You said the stage was done, but the case stays at initial_assessment"),
        (True, "You said the stage was done: the case moved on to the stage treatment."),
    ],
)
def test_the_screen_acknowledges_stage_done_and_says_whether_the_case_moved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    moved: bool, said: str,
) -> None:  # fmt: skip
    stage = (1, "treatment") if moved else (0, "initial_assessment")
    _, roles = _one_turn_roles(environment(*stage), environment(*stage, end=True, reason="done"))
    type_in(monkeypatch, "Hello.\n\ny\n\n\nn\n\n")
    run(
        medsp_demo(scenarios=ANAPHYLAXIS, judge="mockllm/model"), HUMAN, tmp_path,
        model_roles=roles,
    )  # fmt: skip
    shown = " ".join(capsys.readouterr().out.split())
    assert "Stage done: noted." in shown
    assert said in shown
    assert "[State change]" not in shown


def test_only_a_real_change_is_announced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The environment repeats the status it gave (re-spelt): no change is announced; then it
    gives a new one: the status change is."""
    _, roles = _one_turn_roles(
        environment(0, "initial_assessment", status="Stable, talking."),
        environment(0, "initial_assessment", status="stable,  talking"),
        environment(0, "initial_assessment", status="Drowsy", end=True, reason="done"),
    )
    type_in(monkeypatch, "\n\nn\n" * 3 + "\n")
    run(
        medsp_demo(scenarios=ANAPHYLAXIS, judge="mockllm/model"), HUMAN, tmp_path,
        model_roles=roles,
    )  # fmt: skip
    out = capsys.readouterr().out
    turn2 = out[out.index("turn 2 of 12") : out.index("turn 3 of 12")]
    turn3 = out[out.index("turn 3 of 12") :]
    assert "The patient's status has changed." in turn2  # from "not assessed"
    assert "The patient's status is as it was." in turn3
    assert "[State change]" not in out


def test_the_door_note_is_on_a_40_row_screen_when_the_first_question_comes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The instructions come on a page of their own; on the case's page, the 39 rows above
    the first question hold the door note, for every demo case (repeated right above the
    question when the whole opening is taller than the screen)."""
    monkeypatch.setattr(rich.get_console(), "width", 100)
    monkeypatch.setattr(rich.get_console(), "height", 40)
    type_in(monkeypatch, ("/stop\n\n" + OPEN) * 3)
    run(medsp_demo(judge=SCRIPTED), HUMAN, tmp_path, max_samples=1)
    out = capsys.readouterr().out
    first = out[: out.index("Press Enter to open the case.")]
    assert "You are the clinician" in first and "Door note" not in first
    pages = out.split("Press Enter to open the case.")[1:]
    assert len(pages) == 3
    repeated = 0
    for page in pages:
        screen = page[: page.index("Say (Enter: nothing):")].splitlines()[-39:]
        shown = "\n".join(screen)
        assert "# Door note" in shown and "**Setting:**" in shown
        assert "Current stage: initial_assessment" in shown
        repeated += "the first of your materials, again" in shown
    assert repeated == 2  # the bad-news and asthma cases: longer than the screen


# --------------------------------------------------------------------------- the report


def _person_run(
    logs: Path, monkeypatch: pytest.MonkeyPatch, typed_in: str, scenarios: str = ANAPHYLAXIS
) -> EvalLog:
    type_in(monkeypatch, typed_in)
    return run(medsp_demo(scenarios=scenarios, judge=SCRIPTED), HUMAN, logs, max_samples=1)


def test_a_stopped_attempt_never_replaces_a_scored_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The person finishes the case, then starts it again and stops: the report keeps the
    finished attempt, says so, and marks nothing."""
    logs = tmp_path / "logs"
    _person_run(logs, monkeypatch, _typed_script(ANAPHYLAXIS) + "\n")
    time.sleep(1.1)  # the second log is the newer
    _person_run(logs, monkeypatch, "/stop\n\n")
    runs, problems = collect([logs])
    assert not problems
    analysis = analyse(runs)
    [group] = analysis.groups
    assert [s.scored for s in group.samples] == [True]
    assert group.scored_ids == {ANAPHYLAXIS} and not group.flagged
    assert group.kept == [ANAPHYLAXIS]
    assert any("the scored earlier one is kept" in n for n in analysis.notes)
    assert not any("incomplete" in f or "unhealthy" in f for f in analysis.flags)


def test_a_stopped_case_run_again_to_the_end_leaves_a_healthy_group(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    logs = tmp_path / "logs"
    _person_run(logs, monkeypatch, "/stop\n\n")
    time.sleep(1.1)
    _person_run(logs, monkeypatch, _typed_script(ANAPHYLAXIS) + "\n")
    analysis = analyse(collect([logs])[0])
    [group] = analysis.groups
    assert group.scored_ids == {ANAPHYLAXIS} and not group.flagged
    stopped = next(h for h in analysis.health if h.replaced)
    assert stopped.replaced == [ANAPHYLAXIS] and not stopped.flags
    assert any("re-run and scored in another log" in n for n in analysis.notes)
    markdown = render_markdown(analysis, charts=False)
    assert "incomplete run" not in markdown and "unhealthy run" not in markdown


def test_the_report_speaks_of_a_person_as_a_person(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A person's run with a stopped case: marked incomplete (not an unhealthy model), no
    token counts for the person (n/a), and the model's tokens as they are."""
    logs = tmp_path / "logs"
    _person_run(
        logs, monkeypatch, _typed_script(ANAPHYLAXIS) + "\n" + OPEN + "/stop\n\n",
        scenarios="demo_anaphylaxis*,demo_bad_news*",
    )  # fmt: skip
    run(medsp_demo(scenarios=ANAPHYLAXIS, judge=SCRIPTED), SCRIPTED, logs)
    analysis = analyse(collect([logs])[0])
    person = next(g for g in analysis.groups if g.human)
    assert person.flagged and person.flag_words == "incomplete run"
    [flag] = [f for f in analysis.flags if "human: tester" in f and "incomplete" in f]
    assert "covers only the encounters the person finished" in flag
    assert "as the model's" not in flag
    markdown = render_markdown(analysis, charts=False)
    assert "⚠ incomplete run" in markdown and "⚠ unhealthy run" not in markdown

    health = {h.group: h for h in analysis.health}
    assert "clinician" not in health["human: tester"].tokens
    assert health[SCRIPTED].tokens["clinician"] > 0
    after = markdown.split("Mean tokens per scenario, by role")[1].splitlines()[2:]
    token_rows = after[: after.index("")]  # the table, up to its blank line
    assert token_rows[0].split("|")[2].strip() == "clinician", token_rows[0]
    [row] = [r for r in token_rows if "tester" in r]
    assert row.split("|")[2].strip() == "n/a", row  # the clinician column comes first
    assert analysis.token_bins and not any(b.group == person.label for b in analysis.token_bins)
    assert "reads no tokens: their column is n/a" in markdown


def test_the_difference_chart_stays_within_the_possible_range() -> None:
    """A wide interval and detectable difference on few cases: the axis ends at ±100 points."""
    paired = Paired(
        scenarios=3, cases=3, a=0.1, b=0.9, difference=0.8, ci_low=-0.2, ci_high=1.6,
        p_value=0.5, se=0.5, mdd=1.9,
    )  # fmt: skip
    row = Comparison(group_a="a", group_b="b", competency="overall", paired=paired, p_value=0.5)
    figure = differences_figure([row])
    for ax in figure.axes:
        low, high = ax.get_xlim()
        assert low >= -100 and high <= 100
    assert figure.axes[0].get_xlim() == (-100, 100)


def test_in_a_study_the_person_sees_no_score_and_the_run_is_graded_afterwards(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--no-score``: the person sees how each encounter ended and no number at the end of
    the run; ``inspect score`` grades the log afterwards like any other."""
    type_in(monkeypatch, _typed_script(ANAPHYLAXIS) + "\n")
    log = run(medsp_demo(scenarios=ANAPHYLAXIS, judge=SCRIPTED), HUMAN, tmp_path, score=False)
    shown = capsys.readouterr().out
    assert "The encounter is over" in shown.split("· the end")[1]
    assert "macro" not in shown and "✓" not in shown
    assert log.results is None or not log.results.scores
    graded = inspect_score(log, medsp_rubric(), display="none")
    value = score(only(graded)).value
    assert isinstance(value, dict) and value["overall"] > 0


def test_an_empty_answer_on_a_terminal_ends_its_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """Readline does not end an empty line after a prompt the console printed: the next
    question would run on after it. The form ends the line itself, on a terminal only."""
    out = io.StringIO()
    console = rich.console.Console(file=out, width=80)
    monkeypatch.setattr("sys.stdin", Keyboard("\nwords\n"))
    monkeypatch.setattr("inspect_medsp.human.terminal._on_terminal", lambda: True)
    monkeypatch.setitem(sys.modules, "readline", sys.modules.get("readline", io))
    assert read_line(console, "Say: ") == ""
    assert read_line(console, "Action: ") == "words"
    assert out.getvalue() == "Say: \nAction: "


def test_words_typed_where_only_enter_is_asked_are_said_to_be_not_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _, roles = _one_turn_roles(environment(0, "initial_assessment", end=True, reason="done"))
    monkeypatch.setattr("sys.stdin", Keyboard("Hello.\nHi.\n\n\n\n"))
    log = run(
        medsp_demo(scenarios=ANAPHYLAXIS, judge="mockllm/model"), HUMAN, tmp_path,
        model_roles=roles,
    )  # fmt: skip
    assert trajectory(only(log)).turns[0].clinician == ClinicianReply(speak="Hi.")
    shown = " ".join(capsys.readouterr().out.split())
    assert '"Hello." was not recorded: this was not a question of the encounter.' in shown
