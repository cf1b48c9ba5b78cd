# inspect-evals-lint: ignore-file[IEFS002] -- each measurement's task lives in its own part;
#   the package's __init__ exports it
"""``inspect_medsp/medsp_specialty``: label each scenario with one of the paper's specialties.

The model under test (``--model``) reads only the scenario's examinee packet (what the
clinician is handed) and replies with a label and a one-line reason. ``medsp-specialties``
turns the log into the specialties file the benchmark tasks accept (``-T specialties=``).
"""

from __future__ import annotations

import hashlib
from importlib.resources import files
from inspect import signature
from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageSystem, ChatMessageUser, get_model
from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import Generate, Solver, TaskState, solver
from pydantic import BaseModel, Field

from inspect_medsp.calls import generate_json
from inspect_medsp.data import (
    PacketError,
    discover_scenario_ids,
    logger,
    read_packet,
    resolve_scenario_root,
    select_ids,
)
from inspect_medsp.errors import MedSPDataError, MedSPParameterError, MedSPUnknownParameter
from inspect_medsp.preflight import SCRIPTED_MODEL, run_context, said_at_load, unknown_in_run
from inspect_medsp.record import SPECIALTIES
from inspect_medsp.specialty.reply import SPECIALTY
from inspect_medsp.templates import render

PROMPTS = "inspect_medsp.specialty"
PROMPT_FILES = ("specialty_system", "specialty_request")
STORE_KEY = "medsp_specialty"
SCORER = "specialty_label"
TASK_METADATA = "medsp_specialty"
"""Task metadata key: prompt hash, data revision and the label list of a classifier run."""


class SpecialtyVerdict(BaseModel):
    """What the classifier said about one scenario (``label`` None: no usable reply)."""

    label: str | None = None
    reason: str = ""
    retries: int = 0
    errors: list[str] = Field(default_factory=list)
    raw: str = ""


def prompt_sha256() -> str:
    """SHA-256 of the classifier's prompt templates, as shipped (recorded in the file)."""
    digest = hashlib.sha256()
    for name in PROMPT_FILES:
        digest.update(files(PROMPTS).joinpath("prompts", f"{name}.md").read_bytes())
    return digest.hexdigest()


def specialty_samples(root: Path, scenarios: list[str] | None) -> list[Sample]:
    """One sample per scenario: the system prompt and the examinee packet, nothing else.

    A scenario without a readable examinee folder is left out with one warning line.
    """
    ids = select_ids(discover_scenario_ids(root), scenarios)
    system = render("specialty_system", package=PROMPTS, labels="\n".join(SPECIALTIES))
    samples: list[Sample] = []
    skipped: list[str] = []
    for sid in ids:
        case_id, scenario = sid.split("/", 1)
        try:
            packet = read_packet(root / case_id / scenario / "examinee")
        except PacketError as err:
            skipped.append(f"{sid} ({err})")
            continue
        request = render("specialty_request", package=PROMPTS, packet=packet)
        samples.append(
            Sample(
                id=sid,
                input=[ChatMessageSystem(content=system), ChatMessageUser(content=request)],
                metadata={"case_id": case_id, "scenario": scenario},
            )
        )
    if skipped:
        logger.warning(f"medsp_specialty: skipped {len(skipped)}: {'; '.join(skipped)}")
    if not samples:
        raise MedSPDataError(f"{root}: no scenario with an examinee packet to classify")
    return samples


@solver
def classify_specialty(  # inspect-evals-lint: ignore[IETS005] -- tests/test_specialty.py's runs
    cache: bool = False,
) -> Solver:
    """Ask the model for a label; re-ask twice on an unusable reply, then record it as such."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        result = await generate_json(get_model(), state.messages, SPECIALTY, cache=cache)
        state.messages.append(result.message)
        if result.output is not None:
            state.output = result.output
        verdict = SpecialtyVerdict(
            label=None if result.degraded else result.reply.specialty,
            reason=result.reply.reason,
            retries=result.retries,
            errors=result.errors,
            raw=result.raw,
        )
        state.store.set(STORE_KEY, verdict.model_dump())
        return state

    return solve


@metric
def labelled() -> Metric:
    """Share of scenarios that got a usable label."""

    def compute(scores: list[SampleScore]) -> float:
        return sum(s.score.as_float() for s in scores) / len(scores) if scores else 0.0

    return compute


@scorer(metrics=[labelled()])
def specialty_label() -> Scorer:
    """1 with the label as the answer; 0 when the model never gave a usable one (errors shown)."""

    async def score(state: TaskState, target: Target) -> Score:
        verdict = SpecialtyVerdict.model_validate(state.store.get(STORE_KEY) or {})
        if verdict.label is None:
            return Score(
                value=0.0,
                answer="(no usable label)",
                explanation="; ".join(verdict.errors) or "no reply recorded",
                metadata=verdict.model_dump(),
            )
        return Score(
            value=1.0,
            answer=verdict.label,
            explanation=verdict.reason,
            metadata=verdict.model_dump(),
        )

    return score


@task
def medsp_specialty(
    data_dir: str | None = None,
    data_revision: str | None = None,
    scenarios: str | list[str] | None = None,
    demo: bool = False,
    cache: bool = False,
    **kwargs: Any,
) -> Task:
    """Classify each scenario into one of the paper's specialties from its examinee packet.

    Args:
        data_dir: Local scenario tree in the Hub layout (default: download byrLLCC/MedSP1000).
        data_revision: Hub revision of the scenario data (default ``main``).
        scenarios: Ids or globs (comma-separated) to classify a part of the data.
        demo: Classify the three demo scenarios bundled with the package instead.
        cache: Cache replies with Inspect's response cache.
    """
    # kwargs: every -T of the run it does not take, refused unless another task takes it
    context = run_context(kwargs)
    with said_at_load(context):
        refused = unknown_in_run("medsp_specialty", PARAMETERS, context)
        if refused is not None:
            raise MedSPUnknownParameter(refused)
    if context.loading and context.model == SCRIPTED_MODEL:
        with said_at_load(context):
            raise MedSPParameterError(
                f"--model {SCRIPTED_MODEL} cannot label specialties: the scripted demo "
                "provider replays the demo's encounters and answers no other question; label "
                "with a model (--model provider/model)"
            )
    revision: str | None = None
    if demo:
        root = Path(str(files("inspect_medsp.data").joinpath("demo"))) / "scenarios"
    else:
        source = resolve_scenario_root(data_dir, data_revision)
        root, revision = source.root, source.revision
    chosen = (
        [s.strip() for s in scenarios.split(",") if s.strip()]
        if isinstance(scenarios, str)
        else scenarios
    )
    return Task(
        dataset=MemoryDataset(specialty_samples(root, chosen), name="MedSP-specialty"),
        solver=classify_specialty(cache=cache),
        scorer=specialty_label(),
        fail_on_error=False,
        metadata={
            TASK_METADATA: {
                "prompt_sha256": prompt_sha256(),
                "data_revision": revision,
                "labels": list(SPECIALTIES),
            }
        },
        version="1.0.0",
    )


PARAMETERS = tuple(
    n for n, p in signature(medsp_specialty).parameters.items() if p.kind != p.VAR_KEYWORD
)
"""The task's ``-T`` names: any other is refused at load with the closest of them."""
