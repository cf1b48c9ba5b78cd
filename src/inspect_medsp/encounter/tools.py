"""The ``tools`` protocol: the clinician is any Inspect agent acting through encounter tools.

Every tool call is one turn of the same state machine as the ``turns`` protocol, so the
Trajectory and the scorer are the same.
"""

from __future__ import annotations

from collections.abc import Callable

from inspect_ai.agent import Agent, AgentState, react
from inspect_ai.model import ChatMessageAssistant, ChatMessageUser
from inspect_ai.solver import TaskState
from inspect_ai.tool import Tool, tool

from inspect_medsp.calls import RoleResult
from inspect_medsp.encounter.ending import finish_on_exit
from inspect_medsp.encounter.engine import Encounter, EncounterOver, RoleStopped
from inspect_medsp.encounter.texts import render
from inspect_medsp.record import ClinicianReply

AgentFactory = Callable[[str, list[Tool]], Agent]
"""Builds a clinician agent from its instructions and the encounter tools."""


async def _play(encounter: Encounter, move: ClinicianReply) -> str:
    result = RoleResult(
        reply=move,
        raw=move.model_dump_json(),
        message=ChatMessageAssistant(content=move.model_dump_json()),
    )
    try:
        turn = await encounter.step(result)
    except RoleStopped:
        return "The encounter is over. Call submit."
    except EncounterOver:
        return f"The encounter is over ({encounter.trajectory.end_reason}). Call submit."
    update = encounter.clinician_update(turn)
    if encounter.over:
        update += "\n\nThe encounter is over. Call submit."
    return update


def encounter_tools(encounter: Encounter) -> list[Tool]:
    """The three clinician tools bound to one encounter.

    Each call is a turn of a state machine, so the tools tell Inspect to run a message's
    calls one after another; :meth:`Encounter.step` also serialises turns itself, for agents
    that run tool calls concurrently anyway.
    """

    @tool(parallel=False)
    def talk_to_patient() -> Tool:
        async def execute(speech: str) -> str:
            """Say something aloud to the patient and anyone with them.

            Args:
                speech: The words you say.

            Returns:
                The patient side's reply and anything else that happened.
            """
            return await _play(encounter, ClinicianReply(speak=speech))

        return execute

    @tool(parallel=False)
    def perform_actions() -> Tool:
        async def execute(actions: list[str], speech: str = "") -> str:
            """Carry out non-verbal clinical steps, one concrete step per entry.

            Args:
                actions: Steps such as examining, checking vital signs, ordering or reviewing
                    an investigation, giving a drug with dose and route, calling a colleague.
                speech: Optional words said aloud at the same time.

            Returns:
                Results, readings, staff responses and the patient side's reply.
            """
            return await _play(encounter, ClinicianReply(speak=speech, actions=list(actions)))

        return execute

    @tool(parallel=False)
    def complete_stage() -> Tool:
        async def execute(speech: str = "", actions: list[str] | None = None) -> str:
            """Declare everything needed in the current stage done, so the case moves on.

            Args:
                speech: Optional words said aloud.
                actions: Optional last steps of this stage.

            Returns:
                What happens next, or that the encounter is over.
            """
            move = ClinicianReply(speak=speech, actions=list(actions or []), eos=True)
            return await _play(encounter, move)

        return execute

    return [talk_to_patient(), perform_actions(), complete_stage()]


def default_agent(instructions: str, tools: list[Tool]) -> Agent:
    """``react()`` with the encounter tools, stopping once the encounter is over."""
    return react(name="clinician", prompt=instructions, tools=tools)


async def run_tools_encounter(
    state: TaskState, encounter: Encounter, factory: AgentFactory | None = None
) -> TaskState:
    """Run the clinician agent until it submits or the turn budget is spent.

    The agent's conversation is the sample's messages on every exit, also when a limit, an
    error or a cancellation stops it: as Inspect's ``as_solver()`` does, the state the agent
    works on (``react()`` updates the one it is given) is copied back in a ``finally``.
    """
    traj = encounter.trajectory
    tools = encounter_tools(encounter)
    instructions = render("tools_system", max_turns=traj.max_turns)
    clinician = (factory or default_agent)(instructions, tools)
    opening = render(
        "tools_opening",
        materials=encounter.examinee,
        state_label=traj.state_label,
        patient_status=traj.patient_status,
    )
    agent_state = AgentState(messages=[ChatMessageUser(content=opening)])
    with finish_on_exit(traj):
        try:
            agent_state = await clinician(agent_state)
        finally:
            state.messages = agent_state.messages
            if agent_state.output:
                state.output = agent_state.output
    if not encounter.over:
        stop = agent_state.output.stop_reason if agent_state.output else "stop"
        done = f"{traj.turn_count} turn{'' if traj.turn_count == 1 else 's'} completed"
        if stop == "model_length":
            traj.end = "context_exhausted"
            traj.end_reason = (
                f"the clinician model's context window was full after {done}: "
                "the agent could not go on"
            )
        elif stop == "content_filter":
            traj.end = "refused"
            traj.end_reason = (
                f"the clinician model's provider refused (content filter) after {done}: "
                "the agent stopped"
            )
        else:
            traj.end = "turn_limit" if traj.turn_count >= traj.max_turns else "agent_stopped"
            traj.end_reason = "the clinician agent stopped before the encounter ended"
    return state
