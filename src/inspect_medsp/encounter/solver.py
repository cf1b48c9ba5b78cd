"""The encounter as Inspect solvers: the ``turns`` protocol (the paper's) and ``tools``."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Literal

from inspect_ai.log import transcript
from inspect_ai.model import (
    CachePolicy,
    ChatMessage,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    Model,
    get_model,
    model_roles,
)
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import store, subtask

from inspect_medsp._inspect import active_generate_config
from inspect_medsp.calls import DEFAULT_JUDGE, RoleResult, generate_json
from inspect_medsp.data import METADATA_KEY, SampleRecord
from inspect_medsp.encounter.ending import finish_on_exit
from inspect_medsp.encounter.engine import Encounter, PlayedTurn, RoleStopped
from inspect_medsp.encounter.roles import CLINICIAN, ENVIRONMENT, PATIENT, RoleCall, role_call
from inspect_medsp.encounter.summary import log_turn, turn_view
from inspect_medsp.encounter.texts import render
from inspect_medsp.encounter.tools import AgentFactory, run_tools_encounter
from inspect_medsp.record import MAX_TURNS, ClinicianReply, Trajectory, grader_model

Protocol = Literal["turns", "tools"]

ClinicianPolicy = RoleCall[ClinicianReply]
"""Produces the clinician's turn from its history; test-time-compute strategies replace it."""

TURN_SPAN = "encounter_turn"
"""Type of one encounter turn's subtask (not ``turn``: the viewer's outline folds spans of that
type into its own "N turns" counter, which hides the turn numbers)."""


async def turn_subtask(traj: Trajectory, play: Callable[[], Awaitable[dict[str, str]]]) -> None:
    """Play one turn as an Inspect subtask named ``turn N``: the subtask event comes first in
    the turn's part of the transcript, and the viewer shows it as the turn's stage and status
    at the start (input) and its readable summary (output, :func:`turn_view`), with the turn's
    raw model calls (clinician, patient, environment) folded away under it (Inspect's viewer
    starts every subtask folded). The subtask works on the sample's own store, as the turn did
    before it was one."""
    start = {
        "stage": f"{traj.progress_index} `{traj.state_label}`",
        "patient status": traj.patient_status,
    }
    await subtask(f"turn {traj.turn_count + 1}", store=store(), type=TURN_SPAN, input=start)(play)()


ROLE_CONFIG = GenerateConfig(cache_prompt=True)
"""Role histories are append-only, so provider prompt caching pays off."""


def sample_record(state: TaskState) -> SampleRecord:
    """The scenario and rubric this sample carries."""
    return SampleRecord.model_validate(state.metadata[METADATA_KEY])


def role_model(role: str, judge: str) -> Model:
    """The model bound to ``role`` with ``--model-role``, else the ``judge`` fallback."""
    return get_model(  # inspect-evals-lint: ignore[IEBP001] -- called in solve()
        role=role, default=judge
    )


def start_encounter(
    state: TaskState,
    judge: str,
    max_turns: int,
    protocol: Protocol,
    config: GenerateConfig,
    cache: bool | CachePolicy = False,
    strategy: Mapping[str, str | int | float] | None = None,
) -> Encounter:
    """Bind the role models, reset the Trajectory and open the encounter for a sample."""
    record = sample_record(state)
    patient_model = role_model("patient", judge)
    environment_model = role_model("environment", judge)
    roles = {
        "clinician": str(get_model()),  # inspect-evals-lint: ignore[IEBP001] -- called in solve()
        "patient": str(patient_model),
        "environment": str(environment_model),
        "grader": str(grader_model(judge)),
    }
    traj = Trajectory(store=state.store)
    traj.protocol = protocol
    traj.max_turns = max_turns
    traj.role_models = roles
    traj.strategy = dict(strategy or {"strategy": "off"})
    transcript().info(
        "MedSP roles: " + ", ".join(f"{role}={model}" for role, model in roles.items())
    )
    role_config = ROLE_CONFIG.merge(config)
    return Encounter(
        record,
        traj,
        patient=role_call(PATIENT, patient_model, role_config, cache),
        environment=role_call(ENVIRONMENT, environment_model, role_config, cache),
    )


CLINICIAN_ROLE = "clinician"
"""The role name the clinician's calls carry, so the transcript labels them ("MODEL CALL
(CLINICIAN)") as it labels the patient's and the environment's."""


def clinician_model() -> Model:
    """The model under test (``--model``), labelled as the clinician: its calls show the role
    in the transcript and their tokens count under it in the sample's role usage. A
    ``--model-role clinician=...`` never replaces ``--model`` (the roles hook warns that it
    plays nothing).

    The labelled model is a copy of the active one, and Inspect gives the eval's generation
    settings (the task's, e.g. strategy ``single``'s fixed temperature, and ``inspect eval
    --temperature ...``) only to the active model object itself; the copy carries them."""
    model = get_model()  # inspect-evals-lint: ignore[IEBP001] -- called in solve()
    if CLINICIAN_ROLE in model_roles():
        return model
    labelled = get_model(  # inspect-evals-lint: ignore[IEBP001] -- called in solve()
        role=CLINICIAN_ROLE, default=model
    )
    labelled.config = model.config.merge(active_generate_config())
    return labelled


def default_policy(
    model: Model, config: GenerateConfig | None = None, cache: bool | CachePolicy = False
) -> ClinicianPolicy:
    """One clinician reply from the model under test, with the usual retries."""

    async def policy(history: list[ChatMessage]) -> RoleResult[ClinicianReply]:
        return await generate_json(model, history, CLINICIAN, config, cache=cache)

    return policy


def _clinician_opening(examinee: str, traj: Trajectory) -> list[ChatMessage]:
    """The clinician's conversation as it starts: its instructions, then its materials (the
    door note and task) with the encounter's opening state."""
    return [
        ChatMessageSystem(content=render("clinician_system")),
        ChatMessageUser(
            content=render(
                "clinician_opening",
                materials=examinee,
                state_label=traj.state_label,
                patient_status=traj.patient_status,
            )
        ),
    ]


@solver
def medsp_encounter(  # inspect-evals-lint: ignore[IETS005] -- every medsp_demo run in tests/
    judge: str = DEFAULT_JUDGE,
    max_turns: int = MAX_TURNS,
    policy: Callable[[TaskState], ClinicianPolicy] | None = None,
    role_config: GenerateConfig | None = None,
    cache: bool | CachePolicy = False,
    strategy: Mapping[str, str | int | float] | None = None,
    on_error: Callable[[TaskState, Exception], bool] | None = None,
) -> Solver:
    """The ``turns`` protocol: the model under test replies ``{speak, actions, eos}`` each turn.

    ``state.messages`` is the clinician's conversation as it lived it.

    Long because a turn is a closure over the sample's state, run as the turn's subtask
    (``turn_subtask``, so the viewer shows its summary before its calls): the turn and what
    the loop does with its outcome sit together, in the order they happen.

    Args:
        judge: Model for roles not given with ``--model-role``.
        max_turns: Turn limit.
        policy: Builds the clinician policy for a sample (default: one reply per turn).
        role_config: Generation settings for the patient and environment.
        cache: Inspect's response cache for the clinician and role calls (for re-runs).
        strategy: The clinician strategy and its settings, recorded in the Trajectory.
        on_error: Asked when a model's error ended the encounter (recorded ``error`` with
            its reason): True keeps the sample going, to scoring (which leaves it unscored),
            instead of a sample error (a person's case: ``human.ends_on_error``).
    """

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        try:
            return await play(state)
        except Exception as err:
            ended = Trajectory(store=state.store).end == "error"
            if on_error is None or not ended or not on_error(state, err):
                raise
            return state

    async def play(state: TaskState) -> TaskState:
        encounter = start_encounter(
            state, judge, max_turns, "turns", role_config or GenerateConfig(), cache, strategy
        )
        traj = encounter.trajectory
        clinician = (
            default_policy(clinician_model(), cache=cache) if policy is None else policy(state)
        )
        state.messages = _clinician_opening(encounter.examinee, traj)
        with finish_on_exit(traj):
            while not encounter.over:
                ended: RoleResult[ClinicianReply] | RoleStopped | None = None
                played: PlayedTurn | None = None

                async def turn() -> dict[str, str]:
                    nonlocal ended, played
                    result = await clinician(state.messages)
                    if result.output is not None and not result.provider_message:
                        state.output = result.output
                    if result.context_exhausted:
                        ended = result
                        return {"ended": "the clinician's context window was full"}
                    if not result.refused:
                        # a refusal is no reply: the provider's message stays out of the
                        # clinician's history
                        state.messages.append(result.message)
                    try:
                        played = await encounter.play(result)
                    except RoleStopped as err:
                        ended = err
                        return {"ended": str(err)}
                    log_turn(played.turn)
                    update = encounter.clinician_update(played.turn)
                    state.messages.append(ChatMessageUser(content=update))
                    return turn_view(played.turn)

                await turn_subtask(traj, turn)
                # the turn's change of the encounter's record is logged once, after its span
                if isinstance(ended, RoleStopped):
                    encounter.stop(ended)
                elif ended is not None:
                    encounter.exhausted(ended)
                elif played is not None:
                    encounter.record(played)
        return state

    return solve


@solver
def medsp_tools_encounter(
    judge: str = DEFAULT_JUDGE,
    max_turns: int = MAX_TURNS,
    agent: AgentFactory | None = None,
    cache: bool | CachePolicy = False,
) -> Solver:
    """The ``tools`` protocol: any Inspect agent acts through encounter tools.

    Args:
        judge: Model for roles not given with ``--model-role``.
        max_turns: Turn budget; every tool call is one turn of the state machine.
        agent: Builds the clinician agent from its instructions and the tools (default
            ``react()``).
        cache: Inspect's response cache for the role calls (for re-runs).
    """

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        encounter = start_encounter(state, judge, max_turns, "tools", GenerateConfig(), cache)
        return await run_tools_encounter(state, encounter, agent)

    return solve
