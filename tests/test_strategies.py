"""Clinician test-time compute: ``off``, ``single``, ``bon`` and ``medagents``.

Scripted models tell the strategy's calls apart by their prompt text, so each test can count
exactly which clinician-model calls a turn made, check what entered the clinician's history,
and check that no private material (patient script, environment materials, evaluator notes,
rubric, sample metadata) reached any call the clinician model received.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import Task, eval
from inspect_ai.event import SpanBeginEvent
from inspect_ai.log import EvalLog, EvalSample, read_eval_log
from inspect_ai.model import ChatMessage, ChatMessageAssistant, ModelOutput
from inspect_ai.util import Store

from inspect_medsp import medsp_demo
from inspect_medsp.encounter import Protocol
from inspect_medsp.params import TaskParameters
from inspect_medsp.record import (
    BestOfNTurn,
    MedAgentsTurn,
    PanelFormed,
    StrategySettings,
    Trajectory,
)
from inspect_medsp.strategies.best_of_n import parse_choice
from inspect_medsp.strategies.panel_replies import (
    FALLBACK_SPECIALTIES,
    parse_specialties,
    parse_vote,
)
from inspect_medsp.tasks import medsp_task
from tests.support.scripts import Reply, Script, clinician, environment, patient

CASE = "mededportal_99999"
MARKERS = {
    "sp_actor": "MARKER_SP_7f3",
    "environment_controller": "MARKER_ENV_91c",
    "evaluator": "MARKER_EVAL_d2e",
}
RUBRIC_MARKER = "MARKER_RUBRIC_44a"
META_MARKER = "MARKER_META_5b0"
EXAMINEE_MARKER = "EXAMINEE_SEES_c01"
PRIVATE = [*MARKERS.values(), RUBRIC_MARKER, META_MARKER]

# Phrases of the strategy prompts that identify each kind of call.
SELECT = "this message asks you to choose"
SPECIALTIES = "set up an advisory panel"
CONSULTANT = "You are a consultant in "
VOTE = "agree that this turn is sound"
SYNTHESIS = "you asked a panel of specialists for advice"
REVISION = "put it to your panel of specialists"
CLINICIAN_TURN_LABEL = "### The clinician's turn"


# ---------------------------------------------------------------- scenario tree and runs


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path]:
    """A one-scenario tree in the Hub layout with a private marker in every hidden place."""
    scenario = tmp_path / "data" / CASE / "scenario1"
    texts = {
        "examinee": f"Door note: a 40-year-old with chest pain. Reference {EXAMINEE_MARKER}.",
        **{role: f"Private {role} material {marker}." for role, marker in MARKERS.items()},
    }
    for role, text in texts.items():
        (scenario / role).mkdir(parents=True)
        (scenario / role / "x.md").write_text(text, encoding="utf-8")
    (scenario / "metadata.json").write_text(
        json.dumps({"specialty": f"Cardiology {META_MARKER}"}), encoding="utf-8"
    )
    rubrics = tmp_path / "upstream" / "rubrics"
    rubrics.mkdir(parents=True)
    rubric = {
        "case_id": CASE,
        "scenario": "scenario1",
        "scenario_dir": f"{CASE}/scenario1",
        "rubric_version": "v1",
        "PC": [f"Orders an ECG {RUBRIC_MARKER}", "Gives aspirin"],
        "MK": [],
        "SBP": [],
        "ICS": ["Introduces self"],
        "PBLI": [],
        "PROF": [],
    }
    (rubrics / f"{CASE}_scenario1.json").write_text(json.dumps(rubric), encoding="utf-8")
    return tmp_path / "data", tmp_path / "upstream"


def tree_task(
    tree: tuple[Path, Path],
    settings: StrategySettings,
    max_turns: int = 3,
    protocol: Protocol = "turns",
) -> Task:
    params = TaskParameters(
        **settings.model_dump(), max_turns=max_turns, protocol=protocol, judge="mockllm/model"
    )
    return medsp_task("MedSP-test", tree[0], tree[1], params)


class Roles:
    """Scripted patient, environment (two turns, then the case ends) and grader."""

    def __init__(self) -> None:
        self.patient = Script([patient("It hurts here."), patient("Thank you, doctor.")])
        self.environment = Script(
            [
                environment(0, "initial_assessment", feedback=["HR 96"]),
                environment(0, "initial_assessment", end=True, reason="no further states"),
            ]
        )
        self.grader = Script([{"reasoning": ["scripted"], "ICS": {"Introduces self": True}}])

    def models(self) -> dict[str, Any]:
        return {
            "patient": self.patient.model(),
            "environment": self.environment.model(),
            "grader": self.grader.model(),
        }


def run(task: Task, clin: Script, roles: Roles, log_dir: str) -> tuple[EvalLog, EvalSample]:
    logs = eval(
        task,
        model=clin.model(),
        model_roles=roles.models(),
        log_dir=log_dir,
        display="none",
    )
    assert logs[0].status == "success", logs[0].error
    log = read_eval_log(logs[0].location)
    assert log.samples is not None and len(log.samples) == 1
    return log, log.samples[0]


def trajectory(sample: EvalSample) -> Trajectory:
    return Trajectory(store=Store(sample.store))


def assistant_texts(sample: EvalSample) -> list[str]:
    return [m.text for m in sample.messages if isinstance(m, ChatMessageAssistant)]


def all_text(call: list[ChatMessage]) -> str:
    return "\n".join(m.text for m in call)


# ---------------------------------------------------------------- the scripted clinician


def kind_of(call: list[ChatMessage]) -> str:
    """Which strategy step a clinician-model call is, from its prompt text."""
    system, last = call[0].text, call[-1].text
    if system.startswith(CONSULTANT):
        return "vote" if VOTE in last else "advice"
    if SELECT in last:
        return "selection"
    if SPECIALTIES in last:
        return "specialties"
    if SYNTHESIS in last:
        return "synthesis"
    if REVISION in last:
        return "revision"
    return "turn"


def turn_of(call: list[ChatMessage]) -> int:
    """The encounter turn a call belongs to (history length, as the clinician saw it)."""
    if call[0].text.startswith(CONSULTANT):
        return call[-1].text.count(CLINICIAN_TURN_LABEL) + 1
    return sum(isinstance(m, ChatMessageAssistant) for m in call) + 1


def specialty_of(call: list[ChatMessage]) -> str:
    return call[0].text[len(CONSULTANT) :].split(".", 1)[0]


class Clinic:
    """The clinician model's script: a reply for every kind of strategy call."""

    def __init__(
        self,
        choice: int = 2,
        specialties: str | tuple[str, ...] = ("Cardiology", "Nephrology", "Dermatology"),
        dissent: dict[int, str] | None = None,
    ) -> None:
        self.choice = choice
        self.specialties = specialties
        self.dissent = dissent or {}
        self.drafted: Counter[int] = Counter()

    def __call__(self, call: list[ChatMessage]) -> Reply:
        kind, turn = kind_of(call), turn_of(call)
        eos = turn >= 2
        if kind == "turn":
            self.drafted[turn] += 1
            return clinician(f"draft t{turn} n{self.drafted[turn]}", [f"act t{turn}"], eos)
        if kind == "selection":
            return {"choice": self.choice, "reason": "clearest plan"}
        if kind == "specialties":
            if isinstance(self.specialties, str):
                return self.specialties
            return {"specialties": list(self.specialties)}
        if kind == "advice":
            return f"ADVICE_{specialty_of(call)}_t{turn}: check the ECG."
        if kind == "vote":
            if self.dissent.get(turn) == specialty_of(call):
                return {"agree": False, "advice": f"OBJECTION_t{turn}: give aspirin"}
            return {"agree": True, "advice": ""}
        if kind == "synthesis":
            return clinician(f"synthesis t{turn}", ["order ECG"], eos)
        return clinician(f"revision t{turn}", ["order ECG", "give aspirin 300 mg PO"], eos)


def kinds_by_turn(clin: Script) -> dict[int, Counter[str]]:
    turns: dict[int, Counter[str]] = {}
    for call in clin.calls:
        turns.setdefault(turn_of(call), Counter())[kind_of(call)] += 1
    return turns


def temperatures(clin: Script, kind: str) -> set[float | None]:
    return {
        config.temperature
        for call, config in zip(clin.calls, clin.configs, strict=True)
        if kind_of(call) == kind
    }


def span_names(sample: EvalSample) -> list[str]:
    return [e.name for e in sample.events if isinstance(e, SpanBeginEvent)]


# ---------------------------------------------------------------- off and single


def demo_run(clin: Script, roles: Roles, log_dir: str, **params: Any) -> EvalSample:
    task = medsp_demo(scenarios="demo_anaphylaxis/*", judge="mockllm/model", **params)
    return run(task, clin, roles, log_dir)[1]


def test_off_is_one_plain_call_per_turn_and_identical_to_default(log_dir: str) -> None:
    default, off, roles = Script(Clinic()), Script(Clinic()), Roles()
    demo_run(default, Roles(), log_dir)
    sample = demo_run(off, roles, log_dir, strategy="off")

    assert dict(kinds_by_turn(off)) == {1: Counter(turn=1), 2: Counter(turn=1)}
    as_sent = [[(m.role, m.text) for m in call] for call in off.calls]
    assert as_sent == [[(m.role, m.text) for m in call] for call in default.calls]
    assert off.configs == default.configs
    for script in (off, roles.patient, roles.environment, roles.grader):
        assert {c.temperature for c in script.configs} == {None}
    traj = trajectory(sample)
    assert traj.strategy["strategy"] == "off" and traj.strategy_log == []


def test_single_runs_every_role_at_the_fixed_temperature(log_dir: str) -> None:
    clin, roles = Script(Clinic()), Roles()
    sample = demo_run(clin, roles, log_dir, strategy="single")

    assert dict(kinds_by_turn(clin)) == {1: Counter(turn=1), 2: Counter(turn=1)}
    assert [c.temperature for c in clin.configs] == [0.0, 0.0]
    for script in (roles.patient, roles.environment, roles.grader):
        assert script.configs and {c.temperature for c in script.configs} == {0.0}
    assert [json.loads(t)["speak"] for t in assistant_texts(sample)] == [
        "draft t1 n1",
        "draft t2 n1",
    ]
    assert trajectory(sample).strategy["strategy"] == "single"


# ---------------------------------------------------------------- best-of-N


def test_bon_samples_n_candidates_then_one_selection(tree: tuple[Path, Path], log_dir: str) -> None:
    settings = StrategySettings(strategy="bon", n=3)
    clin, roles = Script(Clinic(choice=2)), Roles()
    log, sample = run(tree_task(tree, settings), clin, roles, log_dir)

    per_turn = Counter(turn=3, selection=1)
    assert dict(kinds_by_turn(clin)) == {1: per_turn, 2: per_turn}
    assert temperatures(clin, "turn") == {0.8}
    assert temperatures(clin, "selection") == {0.0}
    for script in (roles.patient, roles.environment, roles.grader):
        assert {c.temperature for c in script.configs} == {0.0}

    traj = trajectory(sample)
    log_entries = traj.strategy_log
    assert all(isinstance(e, BestOfNTurn) for e in log_entries)
    assert [e.turn for e in log_entries] == [1, 2]
    chosen = []
    for entry in log_entries:
        assert isinstance(entry, BestOfNTurn)
        candidates = entry.candidates
        assert len(candidates) == 3 and entry.chosen == 2
        assert entry.reason == "clearest plan"
        assert entry.calls == 4 and entry.tokens == 4 * 15
        chosen.append(candidates[1].reply.model_dump(mode="json"))
    # Only the chosen candidate of each turn entered the clinician's history.
    assert [json.loads(t) for t in assistant_texts(sample)] == chosen
    assert not any(re.search(r"\bchoice\b", m.text) for m in sample.messages)

    assert traj.strategy["strategy"] == "bon" and traj.strategy["n"] == 3
    assert traj.strategy["tokens"] == 15 * len(clin.calls) == 120
    assert traj.strategy["calls"] == len(clin.calls)
    assert log.eval.metadata is not None
    assert log.eval.metadata["medsp_strategy"] == settings.model_dump()

    names = span_names(sample)
    assert names.count("best-of-3") == 2 and names.count("selection") == 2
    assert {"candidate 1", "candidate 2", "candidate 3"} <= set(names)


def test_bon_unusable_selection_falls_back_to_the_first_candidate(
    tree: tuple[Path, Path], log_dir: str
) -> None:
    clin = Script(Clinic(choice=7))
    _, sample = run(tree_task(tree, StrategySettings(strategy="bon", n=2)), clin, Roles(), log_dir)
    entries = trajectory(sample).strategy_log
    assert all(isinstance(e, BestOfNTurn) for e in entries)
    assert [e.chosen for e in entries if isinstance(e, BestOfNTurn)] == [1, 1]
    assert isinstance(entries[0], BestOfNTurn)
    selection = entries[0].selection
    assert selection.fallback is True and "between 1 and 2" in str(selection.problem)
    first = entries[0].candidates
    assert json.loads(assistant_texts(sample)[0]) == first[0].reply.model_dump(mode="json")


def test_parse_choice_is_tolerant() -> None:
    assert parse_choice('{"choice": 3, "reason": "safest"}', 5) == (3, "safest", "")
    assert parse_choice('Here: ```json\n{"choice": "Option 2"}\n```', 5)[0] == 2
    assert parse_choice('{"choice": 2.0}', 5)[0] == 2
    assert parse_choice('{"choice": 0}', 5)[0] is None
    assert parse_choice('{"choice": true}', 5)[0] is None
    assert parse_choice("the second one", 5)[0] is None


# ---------------------------------------------------------------- medagents


def test_medagents_panel_advice_synthesis_votes_and_revision(
    tree: tuple[Path, Path], log_dir: str
) -> None:
    settings = StrategySettings(strategy="medagents", experts=2, consensus_rounds=1)
    clin, roles = Script(Clinic(dissent={1: "Nephrology"})), Roles()
    log, sample = run(tree_task(tree, settings), clin, roles, log_dir)

    turns = kinds_by_turn(clin)
    assert turns == {
        1: Counter(specialties=1, advice=2, synthesis=1, vote=2, revision=1),
        2: Counter(advice=2, synthesis=1, vote=2),
    }
    advisers = {specialty_of(c) for c in clin.calls if kind_of(c) in ("advice", "vote")}
    assert advisers == {"Cardiology", "Nephrology"}
    assert temperatures(clin, "advice") == {0.8}
    for kind in ("specialties", "synthesis", "vote", "revision"):
        assert temperatures(clin, kind) == {0.0}

    # The revised turn (turn 1) and the synthesised turn (turn 2) are all that entered.
    assert [json.loads(t)["speak"] for t in assistant_texts(sample)] == [
        "revision t1",
        "synthesis t2",
    ]
    history = "\n".join(m.text for m in sample.messages)
    for leaked in ("ADVICE_", "OBJECTION_", "specialties", "draft t"):
        assert leaked not in history
    # The revision saw the dissent; the synthesis saw the advice.
    revision = next(c for c in clin.calls if kind_of(c) == "revision")
    assert "OBJECTION_t1" in revision[-1].text and "synthesis t1" in revision[-1].text
    synthesis = next(c for c in clin.calls if kind_of(c) == "synthesis")
    assert "ADVICE_Cardiology_t1" in synthesis[-1].text

    traj = trajectory(sample)
    panel, turn1, turn2 = traj.strategy_log
    assert isinstance(panel, PanelFormed)
    assert isinstance(turn1, MedAgentsTurn) and isinstance(turn2, MedAgentsTurn)
    assert panel.kind == "specialties" and panel.specialties == ["Cardiology", "Nephrology"]
    assert panel.trimmed == 1 and panel.fallback is False and panel.calls == 1
    assert turn1.revised is True and turn1.calls == 6
    assert turn2.revised is False and turn2.calls == 5
    rounds = turn1.rounds
    assert rounds[0].dissent == ["Nephrology"]
    assert traj.strategy["strategy"] == "medagents" and traj.strategy["experts"] == 2
    assert traj.strategy["specialties"] == "Cardiology; Nephrology"
    assert traj.strategy["calls"] == len(clin.calls) == 12
    assert traj.strategy["tokens"] == 15 * 12
    assert sum(e.tokens for e in traj.strategy_log) == 15 * 12
    assert log.eval.metadata is not None
    assert log.eval.metadata["medsp_strategy"] == settings.model_dump()

    names = span_names(sample)
    assert names.count("medagents") == 2 and names.count("specialties") == 1
    assert names.count("synthesis") == 2 and names.count("revision") == 1
    assert {"advice: Cardiology", "vote: Nephrology", "consensus round 1"} <= set(names)


def test_medagents_unusable_specialties_fall_back(tree: tuple[Path, Path], log_dir: str) -> None:
    settings = StrategySettings(strategy="medagents", experts=3, consensus_rounds=2)
    clin = Script(Clinic(specialties="nothing useful"))
    _, sample = run(tree_task(tree, settings), clin, Roles(), log_dir)
    panel = trajectory(sample).strategy_log[0]
    assert isinstance(panel, PanelFormed)
    assert panel.fallback is True and panel.padded == 3
    assert panel.specialties == list(FALLBACK_SPECIALTIES[:3])
    # Everyone agrees at once, so the second consensus round is not needed.
    assert kinds_by_turn(clin)[2] == Counter(advice=3, synthesis=1, vote=3)


def test_parse_specialties_and_votes_are_tolerant() -> None:
    names, record = parse_specialties('{"specialties": "Cardiology, cardiology; Neurology"}', 3)
    assert names == ["Cardiology", "Neurology", FALLBACK_SPECIALTIES[0]]
    assert record.named == 2 and record.padded == 1
    names, record = parse_specialties("no json", 12)
    assert len(set(names)) == 12 and record.fallback is True
    assert parse_vote('{"agree": false, "advice": "add oxygen"}') == ("disagree", "add oxygen", "")
    assert parse_vote('{"vote": "Agree"}')[0] == "agree"
    assert parse_vote('{"agree": "no"}')[0] == "disagree"
    assert parse_vote("I agree")[0] == "abstain"


# ---------------------------------------------------------------- isolation and protocol


@pytest.mark.parametrize(
    "settings",
    [
        StrategySettings(strategy="bon", n=3),
        StrategySettings(strategy="medagents", experts=2, consensus_rounds=1),
    ],
    ids=["bon", "medagents"],
)
def test_strategies_never_show_private_material_to_the_clinician_model(
    tree: tuple[Path, Path], log_dir: str, settings: StrategySettings
) -> None:
    clin = Script(Clinic(dissent={1: "Cardiology", 2: "Nephrology"}))
    roles = Roles()
    _, sample = run(tree_task(tree, settings), clin, roles, log_dir)

    kinds = {kind_of(c) for c in clin.calls}
    expected = (
        {"turn", "selection"}
        if settings.strategy == "bon"
        else {"specialties", "advice", "synthesis", "vote", "revision"}
    )
    assert kinds == expected
    for call in clin.calls:
        text = all_text(call)
        assert EXAMINEE_MARKER in text  # the clinician's own materials do reach every call
        leaked = [marker for marker in PRIVATE if marker in text]
        assert not leaked, f"{kind_of(call)} call saw {leaked}"
    # The markers were live: the other roles did receive their own packets.
    assert MARKERS["sp_actor"] in "\n".join(roles.patient.texts())
    assert MARKERS["environment_controller"] in "\n".join(roles.environment.texts())
    assert RUBRIC_MARKER in "\n".join(roles.grader.texts())
    assert sample.metadata["specialty"].endswith(META_MARKER)


def test_tools_protocol_refuses_a_strategy(tree: tuple[Path, Path]) -> None:
    def tools_task(strategy: Any) -> Task:
        return tree_task(tree, StrategySettings(strategy=strategy), protocol="tools")

    for strategy in ("single", "bon", "medagents"):
        with pytest.raises(ValueError, match="protocol=turns only"):
            tools_task(strategy)
    assert isinstance(tools_task("off"), Task)


# ---------------------------------------------------------------- the provider stops a call

FILTERED = "The response was filtered due to the prompt triggering content management policy."
OVERFLOW = "This model's maximum context length is 1375 tokens."


class StoppingClinic(Clinic):
    """The clinic, with the provider stepping in on chosen calls: ``(kind, turn, nth)`` to a
    stop reason (``nth`` counts the calls of that kind in that turn, from 1)."""

    def __init__(self, stops: dict[tuple[str, int, int], str], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.stops = stops
        self.seen: Counter[tuple[str, int]] = Counter()

    def __call__(self, call: list[ChatMessage]) -> Reply:
        kind, turn = kind_of(call), turn_of(call)
        self.seen[(kind, turn)] += 1
        stop = self.stops.get((kind, turn, self.seen[(kind, turn)]))
        if stop == "content_filter":
            return ModelOutput.from_content("mockllm", FILTERED, stop_reason="content_filter")
        if stop == "model_length":
            return ModelOutput.from_content("mockllm", OVERFLOW, stop_reason="model_length")
        if stop == "max_tokens":
            return ModelOutput.from_content("mockllm", '{"agree": false', stop_reason="max_tokens")
        return super().__call__(call)


def test_bon_refused_drafts_are_not_offered_and_all_refused_is_a_refused_turn(
    tree: tuple[Path, Path], log_dir: str
) -> None:
    stops = {("turn", 1, 1): "content_filter"} | {
        ("turn", 2, n): "content_filter" for n in (1, 2, 3)
    }
    clin = Script(StoppingClinic(stops, choice=2))
    _, sample = run(tree_task(tree, StrategySettings(strategy="bon", n=3)), clin, Roles(), log_dir)
    traj = trajectory(sample)
    first, second = traj.strategy_log
    assert isinstance(first, BestOfNTurn) and isinstance(second, BestOfNTurn)
    # turn 1: two usable drafts offered; choice 2 of those is draft 3
    selection = next(c for c in clin.calls if kind_of(c) == "selection")[-1].text
    assert FILTERED not in selection and "Option 3" not in selection
    assert first.chosen == 3 and first.candidates[0].outcome == "refused"
    # turn 2: every draft refused: no selection, the turn is a refusal
    assert kinds_by_turn(clin)[2] == Counter(turn=3)
    assert traj.turns[1].refused and traj.turns[1].clinician.speak == ""
    assert not traj.turns[0].refused
    assert traj.health["clinician"].refused == 1
    assert not any(FILTERED in m.text for m in sample.messages)


def test_medagents_stops_follow_the_clinician_rules(tree: tuple[Path, Path], log_dir: str) -> None:
    settings = StrategySettings(strategy="medagents", experts=2, consensus_rounds=1)
    stops = {
        ("advice", 1, 1): "content_filter",
        ("vote", 1, 2): "max_tokens",
        ("advice", 2, 2): "model_length",
    }
    clin = Script(StoppingClinic(stops))
    _, sample = run(tree_task(tree, settings), clin, Roles(), log_dir)
    traj = trajectory(sample)
    _, turn1 = traj.strategy_log
    assert isinstance(turn1, MedAgentsTurn)
    # a refused adviser gives no advice; its message is nobody's advice
    assert sorted(a.advice == "" for a in turn1.advice) == [False, True]
    synthesis = next(c for c in clin.calls if kind_of(c) == "synthesis")[-1].text
    assert FILTERED not in synthesis and "(no advice given)" in synthesis
    # a vote cut off at the token limit is not read (it would have been a dissent)
    votes = turn1.rounds[0].votes
    assert sorted(v.verdict for v in votes) == ["abstain", "agree"]
    assert any("cut off" in v.problem for v in votes) and turn1.revised is False
    # the panel's call at turn 2 found the window full: the encounter ends there, graded
    assert traj.end == "context_exhausted" and traj.turn_count == 1
    assert "turn 2" in traj.end_reason
    assert traj.health["clinician"].context == 1
    assert not any(OVERFLOW in e.text for e in traj.transcript)
