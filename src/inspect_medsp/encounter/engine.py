"""The state machine of one encounter: run the patient and the environment for a clinician
turn, enforce the stage rules, and write the Trajectory.

Both protocols (``turns`` and ``tools``) drive the same :class:`Encounter`.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any

import anyio
from inspect_ai.agent import Agent, AgentState
from inspect_ai.log import transcript
from inspect_ai.model import ChatMessageSystem, ChatMessageUser

from inspect_medsp.data.models import SampleRecord
from inspect_medsp.encounter.prompts import bullet_lines, render
from inspect_medsp.encounter.records import (
    ROLE_NAMES,
    ActionRecord,
    ReplyHealth,
    RoleName,
    Trajectory,
    TranscriptEntry,
    TurnRecord,
)
from inspect_medsp.encounter.replies import ClinicianReply, EnvironmentReply
from inspect_medsp.encounter.roles import ENVIRONMENT, PATIENT, RoleResult, read_agent_reply


def count_reply(traj: Trajectory, role: RoleName, result: RoleResult[Any]) -> None:
    """Add one reply's outcome to the role's health counters in the Trajectory."""
    health = {k: v.model_copy() for k, v in traj.health.items()}
    h = health.setdefault(role, ReplyHealth())
    if result.degraded:
        h.degraded += 1
    elif result.retries:
        h.retried += 1
    elif result.repairs:
        h.repaired += 1
    else:
        h.clean += 1
    traj.health = health
    if result.degraded:
        transcript().info(
            f"{role} reply degraded after {result.retries} retries "
            f"({'; '.join(result.errors)}): used as {_degraded_as(role)}"
        )
    elif result.repairs or result.retries:
        fixes = [
            *result.repairs,
            *([f"valid after {result.retries} retries"] * bool(result.retries)),
        ]
        transcript().info(f"{role} reply recovered: {', '.join(fixes)}")


def _degraded_as(role: RoleName) -> str:
    return {
        "clinician": "its raw text as speech, no actions, eos false",
        "patient": "its raw text as the patient's words",
        "environment": "no feedback and no state change",
    }[role]


def speaker(line: str, present: Collection[str], script: str) -> tuple[str, str]:
    """Who says a patient-side line, and their words.

    A ``Name: words`` prefix names a companion only when the name is one the patient agent
    declared present (``present``, compared case-insensitively) or one the patient script
    mentions (a case-insensitive whole-word match); otherwise the whole line, colon and all
    ("I took it at 3:30 pm"), is the patient's own words.
    """
    head, sep, rest = line.partition(":")
    name = head.strip()
    if not (sep and name and len(name) <= 40 and "\n" not in name and rest.strip()):
        return "patient", line
    declared = name.casefold() in {p.strip().casefold() for p in present}
    if declared or re.search(rf"(?<!\w){re.escape(name)}(?!\w)", script, re.IGNORECASE):
        return name, rest.strip()
    return "patient", line


class EncounterOver(RuntimeError):
    """A turn was asked for after the encounter ended."""


class Encounter:
    """One scenario's patient and environment sessions and its Trajectory.

    Args:
        record: The sample's scenario and rubric (only the sp_actor and environment packets
            are used here).
        trajectory: The store-backed record to write.
        patient: The agent playing the patient side.
        environment: The agent playing the environment controller.
    """

    def __init__(
        self,
        record: SampleRecord,
        trajectory: Trajectory,
        patient: Agent,
        environment: Agent,
    ) -> None:
        packets = record.scenario.packets
        self.trajectory = trajectory
        self._script = packets.sp_actor
        self._patient = patient
        self._environment = environment
        self._patient_state = AgentState(
            messages=[ChatMessageSystem(content=render("patient_system", packet=packets.sp_actor))]
        )
        self._environment_state = AgentState(
            messages=[
                ChatMessageSystem(
                    content=render("environment_system", packet=packets.environment_controller)
                )
            ]
        )
        self._last_events: list[str] = []
        self._turn_lock = anyio.Lock()

    @property
    def over(self) -> bool:
        """Whether the encounter has ended."""
        return self.trajectory.end != "running"

    async def step(self, clinician: RoleResult[ClinicianReply]) -> TurnRecord:
        """Play one turn after the clinician's reply and record it.

        Turns are played one at a time: concurrent calls (two tool calls the clinician agent
        issued together) wait for each other and become consecutive turns. A turn that fails
        part-way is not recorded and leaves the patient's and the controller's histories as
        they were (the reply-health counters keep the replies that did arrive).

        Raises:
            EncounterOver: The encounter is already over (also when it ended while this call
                waited for the turn before it).
        """
        async with self._turn_lock:
            if self.over:
                raise EncounterOver(
                    f"the encounter is over ({self.trajectory.end_reason}); no further turns"
                )
            return await self._play_turn(clinician)

    async def _play_turn(self, clinician: RoleResult[ClinicianReply]) -> TurnRecord:
        traj = self.trajectory
        count_reply(traj, "clinician", clinician)
        move = clinician.reply
        turn_no = traj.turn_count + 1
        start_index, start_label, start_status = (
            traj.progress_index,
            traj.state_label,
            traj.patient_status,
        )

        patient_state = AgentState(messages=list(self._patient_state.messages))
        patient_state.messages.append(
            ChatMessageUser(
                content=render(
                    "patient_turn",
                    patient_status=start_status,
                    events_block=(
                        f"What just happened around you:\n{bullet_lines(self._last_events)}\n"
                        if self._last_events
                        else ""
                    ),
                    speech=move.speak or "(says nothing)",
                    actions_block=(
                        f"You see the clinician:\n{bullet_lines(move.actions)}\n"
                        if move.actions
                        else ""
                    ),
                )
            )
        )
        patient_state = await self._patient(patient_state)
        patient = read_agent_reply(patient_state, PATIENT)
        count_reply(traj, "patient", patient)

        environment_state = AgentState(messages=list(self._environment_state.messages))
        environment_state.messages.append(
            ChatMessageUser(
                content=render(
                    "environment_turn",
                    turn=turn_no,
                    progress_index=start_index,
                    state_label=start_label,
                    patient_status=start_status,
                    speech=move.speak or "(nothing)",
                    actions=bullet_lines(move.actions),
                    eos=str(move.eos).lower(),
                    patient_lines=bullet_lines(patient.reply.speak),
                )
            )
        )
        environment_state = await self._environment(environment_state)
        environment = read_agent_reply(environment_state, ENVIRONMENT)
        count_reply(traj, "environment", environment)

        env = environment.reply
        index, label, corrections = self._next_state(move.eos, env)
        status = env.patient_status or start_status
        record = TurnRecord(
            index=turn_no,
            state_label=start_label,
            progress_index=start_index,
            patient_status=start_status,
            clinician=move,
            patient=patient.reply,
            environment=env.model_copy(
                update={"progress_index": index, "state_label": label, "patient_status": status}
            ),
            degraded=[
                role
                for role, degraded in zip(
                    ROLE_NAMES,
                    (clinician.degraded, patient.degraded, environment.degraded),
                    strict=True,
                )
                if degraded
            ],
            corrections=corrections,
        )
        for note in corrections:
            transcript().info(f"turn {turn_no}: {note}")
        self._write(record, env, index, label, status)
        self._patient_state, self._environment_state = patient_state, environment_state
        self._last_events = list(env.events)
        return record

    def _next_state(self, eos: bool, env: EnvironmentReply) -> tuple[int, str, list[str]]:
        """Apply the stage rules to the controller's proposed state."""
        prev_index, prev_label = self.trajectory.progress_index, self.trajectory.state_label
        index = prev_index if env.progress_index is None else env.progress_index
        label = env.state_label or prev_label
        if (index, label) == (prev_index, prev_label):
            return index, label, []
        if not eos:
            return (
                prev_index,
                prev_label,
                [
                    f"controller moved the state to {index}:{label} while eos was false; "
                    f"kept {prev_index}:{prev_label}"
                ],
            )
        if index == prev_index + 1:
            return index, label, []
        if index > prev_index + 1:
            return (
                prev_index + 1,
                label,
                [f"controller jumped from index {prev_index} to {index}; held to one step"],
            )
        if index == prev_index:
            return (
                prev_index + 1,
                label,
                [
                    f"controller changed the label to {label} without advancing the index; "
                    f"advanced to {prev_index + 1}"
                ],
            )
        return (
            prev_index,
            prev_label,
            [f"controller moved back to index {index}; kept {prev_index}:{prev_label}"],
        )

    def _write(
        self, turn: TurnRecord, env: EnvironmentReply, index: int, label: str, status: str
    ) -> None:
        traj = self.trajectory
        n = turn.index
        entries = list(traj.transcript)
        if turn.clinician.speak:
            entries.append(
                TranscriptEntry(
                    turn=n, kind="clinician_speech", speaker="clinician", text=turn.clinician.speak
                )
            )
        entries += [
            TranscriptEntry(turn=n, kind="clinician_action", speaker="clinician", text=a)
            for a in turn.clinician.actions
        ]
        present = [
            name for t in (*traj.turns, turn) for name in t.patient.actors_present
        ]
        for line in turn.patient.speak:
            who, words = speaker(line, present, self._script)
            entries.append(TranscriptEntry(turn=n, kind="patient", speaker=who, text=words))
        entries += [
            TranscriptEntry(turn=n, kind="environment_feedback", speaker="environment", text=f)
            for f in env.feedback
        ]
        entries += [
            TranscriptEntry(turn=n, kind="system_event", speaker="environment", text=e)
            for e in env.events
        ]
        actions = list(traj.action_log)
        assessed = {a.raw: a for a in env.action_assessments}
        for i, raw in enumerate(turn.clinician.actions):
            match = assessed.get(raw) or (
                env.action_assessments[i] if i < len(env.action_assessments) else None
            )
            actions.append(
                ActionRecord(
                    turn=n,
                    raw=raw,
                    interpreted_action=match.interpreted_action if match else "",
                    status=match.status if match else "unsupported",
                    rationale=match.rationale if match else "not assessed by the controller",
                )
            )
        history = list(traj.state_history)
        if f"{index}:{label}" != history[-1]:
            history.append(f"{index}:{label}")

        traj.turns = [*traj.turns, turn]
        traj.transcript = entries
        traj.action_log = actions
        traj.state_history = history
        traj.progress_index = index
        traj.state_label = label
        traj.patient_status = status
        traj.turn_count = n
        if env.should_end:
            traj.end = "should_end"
            traj.end_reason = env.completion_reason or "the controller ended the encounter"
        elif n >= traj.max_turns:
            traj.end = "turn_limit"
            traj.end_reason = f"turn limit of {traj.max_turns} reached"

    def clinician_update(self, turn: TurnRecord) -> str:
        """What the clinician is told after a turn (only in-story facts)."""
        env = turn.environment
        changed = (
            env.progress_index,
            env.state_label,
            env.patient_status,
        ) != (turn.progress_index, turn.state_label, turn.patient_status)
        observations = bullet_lines([*env.feedback, *env.events])
        if self.over:
            return render(
                "clinician_closing",
                end_reason=self.trajectory.end_reason,
                observations=observations,
            )
        return render(
            "clinician_update",
            change_line="[State change] The situation has changed." if changed else "",
            state_label=env.state_label,
            patient_status=env.patient_status,
            observations=observations,
            patient_lines=bullet_lines(turn.patient.speak, empty="(nothing)"),
        )
