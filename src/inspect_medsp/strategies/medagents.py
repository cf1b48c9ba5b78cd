"""MedAgents-style deliberation: a panel of specialists advises the clinician every turn.

At the first turn of a case the clinician model names ``experts`` specialties from its own
materials. Then, every turn:

1. each specialist advises (one call each, at ``sample_temperature``), reading the
   clinician's conversation as text under a system prompt that makes it that specialist;
2. the clinician model writes its turn from its own history plus the advice (synthesis);
3. up to ``consensus_rounds`` rounds: each specialist votes on the proposed turn
   (``{"agree": bool, "advice": str}``); if any disagree the clinician model revises the
   turn; a round in which nobody disagrees ends the deliberation early.

Only the final turn is returned. The clinician's decisions (specialties, synthesis, revision)
and the votes run at ``fixed_temperature``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from inspect_ai.log import transcript
from inspect_ai.model import ChatMessage, GenerateConfig, Model, ModelOutput, get_model
from inspect_ai.solver import TaskState
from inspect_ai.util import span

from inspect_medsp.calls import RoleResult, generate_json
from inspect_medsp.encounter import CLINICIAN, ClinicianPolicy
from inspect_medsp.record import (
    Advice,
    ClinicianReply,
    ConsensusRound,
    MedAgentsTurn,
    PanelFormed,
    PanelReading,
    SpecialistVote,
    StrategySettings,
    Trajectory,
    Vote,
)
from inspect_medsp.strategies.common import (
    ContextFull,
    Ledger,
    adviser_input,
    current_turn,
    describe_turn,
    gather_in_spans,
    history_text,
    prompt,
    record_step,
    reply_json,
    start_record,
    usable_text,
    with_instruction,
)
from inspect_medsp.strategies.panel_replies import parse_specialties, parse_vote

Turn = RoleResult[ClinicianReply]


def _advice_block(panel: Sequence[str], advice: Sequence[str]) -> str:
    return "\n\n".join(
        f"### {specialty}\n{text.strip() or '(no advice given)'}"
        for specialty, text in zip(panel, advice, strict=True)
    )


def _objections_block(votes: Sequence[SpecialistVote]) -> str:
    return "\n\n".join(
        f"### {vote.specialty}\n{vote.advice.strip() or '(no reason given)'}"
        for vote in votes
        if vote.verdict == "disagree"
    )


class Panel:
    """One case's specialists and the calls they make."""

    def __init__(self, model: Model, settings: StrategySettings) -> None:
        self.model = model
        self.settings = settings
        self.specialties: list[str] | None = None
        self.advice_config = GenerateConfig(temperature=settings.sample_temperature)
        self.fixed_config = GenerateConfig(temperature=settings.fixed_temperature)

    async def name_specialties(
        self, history: list[ChatMessage], ledger: Ledger
    ) -> tuple[list[str], PanelReading]:
        """The clinician model names the panel from its own history."""
        text = prompt("medagents_specialties", experts=self.settings.experts)
        asked = with_instruction(history, text)
        async with span("specialties", type="specialties"):
            output = await self.model.generate(asked, config=self.fixed_config)
        ledger.add("specialties", output)
        raw, unusable = usable_text(output, asked, "specialties")
        panel, record = parse_specialties("" if unusable else raw, self.settings.experts)
        if unusable:
            record = record.model_copy(update={"raw": raw, "problem": unusable})
        if record.fallback:
            transcript().info(f"specialties unusable ({record.problem}): using {', '.join(panel)}")
        return panel, record

    def _consult(
        self, specialty: str, text: str, config: GenerateConfig
    ) -> Callable[[], Awaitable[tuple[ModelOutput, list[ChatMessage]]]]:
        system = prompt("medagents_specialist_system", specialty=specialty)

        async def job() -> tuple[ModelOutput, list[ChatMessage]]:
            asked = adviser_input(system, text)
            return await self.model.generate(asked, config=config), asked

        return job

    async def advise(self, history: list[ChatMessage], ledger: Ledger) -> list[Advice]:
        """Every specialist's advice for the coming turn."""
        panel = self.specialties or []
        text = prompt("medagents_advice", history=history_text(history))
        outputs = await gather_in_spans(
            [(f"advice: {s}", self._consult(s, text, self.advice_config)) for s in panel],
            "advice",
        )
        advice: list[Advice] = []
        for specialty, (output, asked) in zip(panel, outputs, strict=True):
            used = ledger.add("advice", output, specialty=specialty)
            text, problem = usable_text(output, asked, f"advice of {specialty}")
            if text and problem:
                # prose cut off at the token limit: kept, and said to be incomplete
                text = f"{text} [{problem}]"
            advice.append(Advice(specialty=specialty, advice=text, tokens=used))
        return advice

    async def vote(
        self, history: list[ChatMessage], proposal: ClinicianReply, ledger: Ledger
    ) -> list[SpecialistVote]:
        """Every specialist's vote on a proposed turn."""
        panel = self.specialties or []
        context = history_text(history)
        jobs = [
            (
                f"vote: {s}",
                self._consult(
                    s,
                    prompt(
                        "medagents_vote",
                        history=context,
                        proposal=reply_json(proposal),
                        specialty=s,
                    ),
                    self.fixed_config,
                ),
            )
            for s in panel
        ]
        outputs = await gather_in_spans(jobs, "vote")
        votes: list[SpecialistVote] = []
        for specialty, (output, asked) in zip(panel, outputs, strict=True):
            used = ledger.add("vote", output, specialty=specialty)
            raw, unusable = usable_text(output, asked, f"vote of {specialty}")
            verdict: Vote = "abstain"
            advice, problem = "", unusable
            if not unusable:
                verdict, advice, problem = parse_vote(raw)
            votes.append(
                SpecialistVote(
                    specialty=specialty,
                    verdict=verdict,
                    advice=advice,
                    problem=problem,
                    raw=raw,
                    tokens=used,
                )
            )
        return votes

    async def synthesise(
        self, history: list[ChatMessage], advice: list[Advice], ledger: Ledger
    ) -> Turn:
        """The clinician's turn written from its history and the panel's advice."""
        block = _advice_block([a.specialty for a in advice], [a.advice for a in advice])
        text = prompt("medagents_synthesis", advice=block)
        async with span("synthesis", type="synthesis"):
            result = await generate_json(
                self.model, with_instruction(history, text), CLINICIAN, self.fixed_config
            )
        ledger.add("synthesis", result.output)
        return result

    async def revise(
        self,
        history: list[ChatMessage],
        draft: ClinicianReply,
        votes: list[SpecialistVote],
        ledger: Ledger,
    ) -> Turn:
        """The clinician's turn revised after dissenting votes."""
        text = prompt(
            "medagents_revision", proposal=reply_json(draft), objections=_objections_block(votes)
        )
        async with span("revision", type="revision"):
            result = await generate_json(
                self.model, with_instruction(history, text), CLINICIAN, self.fixed_config
            )
        ledger.add("revision", result.output)
        return result


async def _form_panel(
    state: TaskState, settings: StrategySettings, panel: Panel, history: list[ChatMessage]
) -> None:
    """Name the panel's specialties (once per encounter) and record the step."""
    ledger = Ledger()
    specialties, record = await panel.name_specialties(history, ledger)
    panel.specialties = specialties
    traj = Trajectory(store=state.store)
    traj.strategy = {**traj.strategy, "specialties": "; ".join(specialties)}
    step = PanelFormed(
        turn=current_turn(state),
        specialties=specialties,
        raw=record.raw,
        named=record.named,
        trimmed=record.trimmed,
        padded=record.padded,
        fallback=record.fallback,
        problem=record.problem,
        calls=ledger.calls,
        tokens=ledger.tokens,
        per_call=ledger.by_call,
    )
    record_step(state, settings, step)


async def _consensus(
    panel: Panel, history: list[ChatMessage], result: Turn, voting: int, ledger: Ledger
) -> tuple[Turn, list[ConsensusRound]]:
    """Up to ``voting`` rounds in which the panel votes on the proposed turn and, on dissent,
    it is revised; the turn as it stands after them, and each round."""
    rounds: list[ConsensusRound] = []
    for round_no in range(1, voting + 1):
        async with span(f"consensus round {round_no}", type="consensus"):
            votes = await panel.vote(history, result.reply, ledger)
            dissent = [v.specialty for v in votes if v.verdict == "disagree"]
            revision = None
            if dissent:
                result = await panel.revise(history, result.reply, votes, ledger)
                if result.context_exhausted:
                    raise ContextFull(result)
                revision = describe_turn(result)
        rounds.append(
            ConsensusRound(round=round_no, votes=votes, dissent=dissent, revision=revision)
        )
        if not dissent or result.refused:
            break
    return result, rounds


def medagents_policy(settings: StrategySettings) -> Callable[[TaskState], ClinicianPolicy]:
    """Build the specialist-panel clinician policy for a sample.

    Args:
        settings: ``experts`` specialists, ``consensus_rounds`` voting rounds, advice at
            ``sample_temperature``, everything else at ``fixed_temperature``.
    """

    def build(state: TaskState) -> ClinicianPolicy:
        model = get_model()  # inspect-evals-lint: ignore[IEBP001] -- build() runs in solve()
        panel = Panel(model, settings)
        start_record(state, settings)

        async def policy(history: list[ChatMessage]) -> Turn:
            try:
                return await deliberate(history)
            except ContextFull as err:
                transcript().info(
                    f"medagents, turn {current_turn(state)}: the clinician model's context "
                    "window is full"
                )
                return err.result

        async def deliberate(history: list[ChatMessage]) -> Turn:
            turn = current_turn(state)
            async with span("medagents", type="strategy"):
                if panel.specialties is None:
                    await _form_panel(state, settings, panel, history)
                ledger = Ledger()
                advice = await panel.advise(history, ledger)
                result = await panel.synthesise(history, advice, ledger)
                if result.context_exhausted:
                    raise ContextFull(result)
                synthesis = describe_turn(result)
                # a refused synthesis is the turn: a refusal, nothing to vote on
                voting = 0 if result.refused else settings.consensus_rounds
                result, rounds = await _consensus(panel, history, result, voting, ledger)
                revised = [r for r in rounds if r.revision is not None]
                transcript().info(
                    f"medagents, turn {turn}: {len(advice)} advisers, "
                    f"{len(rounds)} consensus round(s), "
                    f"{len(revised)} revision(s), "
                    f"{ledger.tokens} tokens"
                )
            step = MedAgentsTurn(
                turn=turn,
                specialties=list(panel.specialties or []),
                advice=advice,
                synthesis=synthesis,
                rounds=rounds,
                final=result.reply,
                revised=bool(revised),
                calls=ledger.calls,
                tokens=ledger.tokens,
                per_call=ledger.by_call,
            )
            record_step(state, settings, step)
            return result

        return policy

    return build
