"""One encounter, turn by turn, as protocol section 3 runs it.

A turn takes the clinician's reply, asks the patient, asks the environment controller, applies
the state rule and records the turn: one short method each, in that order, in
:meth:`Encounter.step`. Both protocols (``turns`` and ``tools``) drive the same
:class:`Encounter`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import anyio
from inspect_ai.log import transcript
from inspect_ai.model import ChatMessage, ChatMessageSystem, ChatMessageUser

from inspect_medsp.calls import RoleResult
from inspect_medsp.data import SampleRecord
from inspect_medsp.encounter.health import count_reply
from inspect_medsp.encounter.roles import RoleCall
from inspect_medsp.encounter.speakers import companions
from inspect_medsp.encounter.state import next_state
from inspect_medsp.encounter.summary import log_turn
from inspect_medsp.encounter.texts import patient_opening, render
from inspect_medsp.record import (
    INITIAL_LABEL,
    INITIAL_STATUS,
    REFUSALS_TO_END,
    ROLE_NAMES,
    ActionAssessment,
    ClinicianReply,
    EndReason,
    EnvironmentReply,
    PatientReply,
    ProviderStop,
    ReplyHealth,
    RoleName,
    Trajectory,
    TurnRecord,
)
from inspect_medsp.templates import bullet_lines

SILENT_TO_PATIENT = "(says nothing)"
"""What the patient is told the clinician said when the clinician said nothing."""
SILENT_TO_ENVIRONMENT = "(nothing)"
"""What the controller is told the clinician said when the clinician said nothing."""
NOTHING_HEARD = "(nothing)"
"""What the clinician is told the patient side said when it said nothing."""


class EncounterOver(RuntimeError):
    """A turn was asked for after the encounter ended."""


class RoleStopped(EncounterOver):
    """The patient's or the environment's provider stopped a call (its window was full, or it
    refused): the simulation cannot go on faithfully. :meth:`Encounter.stop` ends the
    encounter with it.

    Args:
        role: The role whose call was stopped.
        turn: The turn being played.
        result: The stopped call.
        health: The reply counts with the replies of the turn so far.
    """

    def __init__(
        self,
        role: RoleName,
        turn: int,
        result: RoleResult[Any],
        health: dict[str, ReplyHealth],
    ) -> None:
        super().__init__(stopped_reason(role, turn, result))
        self.role = role
        self.turn = turn
        self.result = result
        self.health = health


def stopped_reason(role: RoleName, turn: int, result: RoleResult[Any]) -> str:
    """The end reason for a role call the provider stopped: role, turn, what and the fix
    (never the provider's own message: the end reason is part of the grader's record)."""
    if result.context_exhausted:
        what = (
            f"the {role} model's context window was full at turn {turn} "
            f"(a prompt of about {result.prompt_tokens} tokens)"
        )
        fix = "a model with a longer context window"
    else:
        what = f"the {role} model's provider refused at turn {turn} (content filter)"
        fix = "a model whose provider does not filter this scenario"
    if role == "clinician":
        return what
    return (
        f"{what}; the simulation cannot go on faithfully: give the {role} role {fix} "
        f"(--model-role {role}=... or -T judge=...) and re-run this sample"
    )


def numbered_lines(actions: list[str]) -> str:
    """The clinician's actions as the controller reads them: ``1. ...``, one a line (it
    answers each by its number)."""
    return "\n".join(f"{i}. {a}" for i, a in enumerate(actions, 1)) if actions else "(none)"


def named(assessments: list[ActionAssessment], actions: list[str]) -> list[ActionAssessment]:
    """The controller's assessments with each action's words (``raw``) filled in from the
    number it gave; an assessment that already names its action, or whose number is not one
    of the turn's actions, is kept as it came."""
    out: list[ActionAssessment] = []
    for a in assessments:
        if not a.raw and a.action is not None and 1 <= a.action <= len(actions):
            a = a.model_copy(update={"raw": actions[a.action - 1]})
        out.append(a)
    return out


@dataclass(frozen=True)
class PlayedTurn:
    """A turn played and not yet recorded: the record, the reply counts with its replies,
    and the patient's and the controller's conversations with it."""

    turn: TurnRecord
    health: dict[str, ReplyHealth]
    patient: list[ChatMessage]
    environment: list[ChatMessage]


class Encounter:
    """One scenario's patient and environment sessions and its Trajectory.

    Args:
        record: The sample's scenario and rubric (the sp_actor and environment packets are
            used here; the examinee packet is kept as :attr:`examinee` for the clinician).
        trajectory: The store-backed record to write.
        patient: Plays the patient side.
        environment: Plays the environment controller.
    """

    def __init__(
        self,
        record: SampleRecord,
        trajectory: Trajectory,
        patient: RoleCall[PatientReply],
        environment: RoleCall[EnvironmentReply],
    ) -> None:
        packets = record.scenario.packets
        self.trajectory = trajectory
        self.examinee = packets.examinee
        """The clinician's own materials, which open the clinician's conversation."""
        self._script = packets.sp_actor
        self._patient = patient
        self._environment = environment
        # the instructions first (the same in every scenario, so a provider's prompt cache
        # serves them across the run), then the scenario's packet, then the turns
        self._patient_history: list[ChatMessage] = [
            ChatMessageSystem(content=render("patient_system")),
            ChatMessageUser(content=patient_opening(record)),
        ]
        self._environment_history: list[ChatMessage] = [
            ChatMessageSystem(content=render("environment_system")),
            ChatMessageUser(
                content=render("environment_materials", packet=packets.environment_controller)
            ),
        ]
        self._last_events: list[str] = []
        self._turn_lock = anyio.Lock()

    @property
    def over(self) -> bool:
        """Whether the encounter has ended."""
        return self.trajectory.end != "running"

    async def step(self, clinician: RoleResult[ClinicianReply]) -> TurnRecord:
        """Play one turn after the clinician's reply and record it (:meth:`play`, then
        :meth:`record`).

        Turns are played one at a time: concurrent calls (two tool calls the clinician agent
        issued together) wait for each other and become consecutive turns.

        Raises:
            EncounterOver: The encounter is already over (also when it ended while this call
                waited for the turn before it).
        """
        async with self._turn_lock:
            try:
                played = await self.play(clinician)
            except RoleStopped as stopped:
                self.stop(stopped)
                raise
            log_turn(played.turn)
            self.record(played)
            return played.turn

    async def play(self, clinician: RoleResult[ClinicianReply]) -> PlayedTurn:
        """Protocol section 3, steps 1 to 4: the clinician's reply, the patient, the
        environment controller and the state rule; nothing is recorded yet.

        A turn that fails part-way is never recorded and leaves the patient's and the
        controller's histories as they were; the reply-health counters keep the replies that
        did arrive. A clinician turn its provider refused is played as saying and doing
        nothing, and marked ``refused``.

        Raises:
            EncounterOver: The encounter is already over.
            RoleStopped: The patient's or the environment's provider stopped its call (give
                it to :meth:`stop`).
        """
        traj = self.trajectory
        if self.over:
            raise EncounterOver(f"the encounter is over ({traj.end_reason}); no further turns")
        turns = traj.turns
        start = turns[-1].end_state if turns else (0, INITIAL_LABEL, INITIAL_STATUS)
        number = len(turns) + 1
        health = count_reply(traj.health, "clinician", clinician)
        try:
            patient_history, patient = await self._ask_patient(clinician.reply, start)
            health = count_reply(health, "patient", patient)
            if patient.context_exhausted or patient.refused:
                raise RoleStopped("patient", number, patient, health)
            environment_history, environment = await self._ask_environment(
                number, clinician.reply, patient.reply, start
            )
            health = count_reply(health, "environment", environment)
            if environment.context_exhausted or environment.refused:
                raise RoleStopped("environment", number, environment, health)
        except RoleStopped:
            raise
        except BaseException:
            traj.health = health
            raise
        move = next_state(
            start[0],
            start[1],
            clinician.reply.eos,
            environment.reply.progress_index,
            environment.reply.state_label,
        )
        degraded = (clinician.outcome == "degraded", patient.degraded, environment.degraded)
        turn = TurnRecord(
            index=number,
            progress_index=start[0],
            state_label=start[1],
            patient_status=start[2],
            clinician=clinician.reply,
            patient=patient.reply,
            environment=environment.reply.model_copy(
                update={
                    "action_assessments": named(
                        environment.reply.action_assessments, clinician.reply.actions
                    ),
                    "progress_index": move.index,
                    "state_label": move.label,
                    "patient_status": environment.reply.patient_status or start[2],
                }
            ),
            degraded=[role for role, bad in zip(ROLE_NAMES, degraded, strict=True) if bad],
            corrections=[move.correction] if move.correction else [],
            speakers=companions(patient.reply, [t.patient for t in turns], self._script),
            clinician_seconds=clinician.output.time if clinician.output is not None else None,
            stop_reasons={
                "clinician": clinician.stop_reason,
                "patient": patient.stop_reason,
                "environment": environment.stop_reason,
            },
            refused=clinician.refused,
            provider_message=clinician.provider_message if clinician.refused else "",
        )
        return PlayedTurn(turn, health, patient_history, environment_history)

    async def _ask_patient(
        self, move: ClinicianReply, start: tuple[int, str, str]
    ) -> tuple[list[ChatMessage], RoleResult[PatientReply]]:
        """Step 2: the patient answers what the clinician said and did."""
        events = render("patient_events", events=bullet_lines(self._last_events))
        actions = render("patient_actions", actions=bullet_lines(move.actions))
        prompt = render(
            "patient_turn",
            patient_status=start[2],
            events_block=f"{events}\n" if self._last_events else "",
            speech=move.speak or SILENT_TO_PATIENT,
            actions_block=f"{actions}\n" if move.actions else "",
        )
        history = [*self._patient_history, ChatMessageUser(content=prompt)]
        result = await self._patient(history)
        return [*history, result.message], result

    async def _ask_environment(
        self, number: int, move: ClinicianReply, patient: PatientReply, start: tuple[int, str, str]
    ) -> tuple[list[ChatMessage], RoleResult[EnvironmentReply]]:
        """Step 3: the controller reads the turn and proposes feedback, events and a state."""
        prompt = render(
            "environment_turn",
            turn=number,
            progress_index=start[0],
            state_label=start[1],
            patient_status=start[2],
            speech=move.speak or SILENT_TO_ENVIRONMENT,
            actions=numbered_lines(move.actions),
            eos=str(move.eos).lower(),
            patient_lines=bullet_lines(patient.speak),
        )
        history = [*self._environment_history, ChatMessageUser(content=prompt)]
        result = await self._environment(history)
        return [*history, result.message], result

    def record(self, played: PlayedTurn) -> None:
        """Step 5: write the complete turn to the Trajectory, once, with the reply counts and
        the end when it ends the encounter; the roles' histories move on with it."""
        traj, turn = self.trajectory, played.turn
        if turn.index != traj.turn_count + 1 or self.over:
            raise EncounterOver(f"turn {turn.index} cannot follow the record it was played on")
        for note in turn.corrections:
            transcript().info(f"turn {turn.index}: {note}")
        traj.turns = [*traj.turns, turn]
        traj.health = played.health
        ending = self.ending(turn)
        if ending is not None:
            traj.end, traj.end_reason = ending
        self._patient_history, self._environment_history = played.patient, played.environment
        self._last_events = list(turn.environment.events)

    def stop(self, stopped: RoleStopped) -> None:
        """End the encounter because the patient's or the environment's provider stopped a
        call: ``role_stopped``, never graded; the provider's message is kept in
        ``provider_stop`` only."""
        traj = self.trajectory
        if self.over:
            return
        traj.health = stopped.health
        traj.provider_stop = provider_stop(stopped.role, stopped.turn, stopped.result)
        traj.end, traj.end_reason = "role_stopped", str(stopped)
        transcript().info(f"encounter ended (role_stopped): {traj.end_reason}")

    def exhausted(self, clinician: RoleResult[ClinicianReply]) -> None:
        """End the encounter because the clinician's prompt no longer fits its model's context
        window (``context_exhausted``): graded on the turns it played, like the turn limit."""
        traj = self.trajectory
        if self.over:
            return
        number = traj.turn_count + 1
        traj.health = count_reply(traj.health, "clinician", clinician)
        traj.provider_stop = provider_stop("clinician", number, clinician)
        done = traj.turn_count
        traj.end = "context_exhausted"
        traj.end_reason = (
            f"{stopped_reason('clinician', number, clinician)}; "
            f"{done} turn{'' if done == 1 else 's'} completed"
        )
        transcript().info(f"encounter ended (context_exhausted): {traj.end_reason}")

    def ending(self, turn: TurnRecord) -> tuple[EndReason, str] | None:
        """How the encounter ends with ``turn`` (protocol section 3, step 5), if it does."""
        env, limit = turn.environment, self.trajectory.max_turns
        if env.should_end:
            return "should_end", env.completion_reason or "the controller ended the encounter"
        before = [t for t in self.trajectory.turns if t.index < turn.index]
        streak = [*before[len(before) - (REFUSALS_TO_END - 1) :], turn]
        if len(streak) == REFUSALS_TO_END and all(t.refused for t in streak):
            return "refused", (
                f"the clinician model's provider refused {REFUSALS_TO_END} turns in a row "
                f"(turns {streak[0].index} to {turn.index}, content filter)"
            )
        if turn.index >= limit:
            return "turn_limit", f"turn limit of {limit} reached"
        return None

    def clinician_update(self, turn: TurnRecord) -> str:
        """What the clinician is told after a turn (only in-story facts)."""
        env = turn.environment
        changed = turn.end_state != (turn.progress_index, turn.state_label, turn.patient_status)
        observations = bullet_lines([*env.feedback, *env.events])
        ending = self.ending(turn)
        if ending is not None:
            return render("clinician_closing", end_reason=ending[1], observations=observations)
        return render(
            "clinician_update",
            change_line=render("state_change") if changed else "",
            state_label=env.state_label,
            patient_status=env.patient_status,
            observations=observations,
            patient_lines=bullet_lines(turn.patient.speak, empty=NOTHING_HEARD),
        )


def provider_stop(role: RoleName, turn: int, result: RoleResult[Any]) -> ProviderStop:
    """The record of a role call the provider stopped."""
    return ProviderStop(
        role=role,
        turn=turn,
        stop_reason=result.stop_reason,
        message=result.provider_message,
        prompt_tokens=result.prompt_tokens,
    )
