"""The rubric evaluator: the ``grader`` role judges every item against the Trajectory."""

from __future__ import annotations

from typing import Any

from inspect_ai.model import (
    ChatMessage,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    get_model,
)
from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState
from pydantic import BaseModel, ConfigDict, field_validator

from inspect_medsp.data.dataset import METADATA_KEY
from inspect_medsp.data.models import COMPETENCIES, Rubric, RubricItem, SampleRecord
from inspect_medsp.encounter.prompts import render
from inspect_medsp.encounter.records import Trajectory
from inspect_medsp.encounter.roles import Contract, generate_json
from inspect_medsp.scoring.metrics import macro, micro
from inspect_medsp.scoring.render import render_checklist, render_record
from inspect_medsp.scoring.verdicts import Conflict, Tally, Verdict

DEFAULT_JUDGE = "openai/gpt-5.5"
PROMPTS = "inspect_medsp.scoring"


class GraderReply(BaseModel):
    """The evaluator's reply: reasoning plus one verdict mapping per competency."""

    model_config = ConfigDict(extra="allow")

    reasoning: list[str] = []

    @field_validator("reasoning", mode="before")
    @classmethod
    def _lines(cls, value: Any) -> Any:
        if value is None:
            return []
        if isinstance(value, str):
            return [value]
        return [str(v) for v in value] if isinstance(value, list) else value


def _no_degrade(raw: str) -> GraderReply:
    return GraderReply()


GRADER: Contract[GraderReply] = Contract(
    role="grader",
    model=GraderReply,
    required_any=COMPETENCIES,
    shape='{"reasoning": ["..."], "PC": {"[1]": {"met": true, "evidence": "..."}}, ...}',
    degrade=_no_degrade,
)


class GraderError(RuntimeError):
    """The evaluator never replied with usable JSON: the sample's score is an error."""


async def judge_items(
    rubric: Rubric,
    traj: Trajectory,
    judge: str,
    config: GenerateConfig | None = None,
    cache: bool = False,
) -> tuple[list[Verdict], list[str], list[str], list[Conflict]]:
    """Ask the grader for every item; ask once more for items it left out.

    Returns:
        Verdicts in item order (unjudged and conflicted items included, not met), the
        judge's reasoning, the reply keys that matched no item, and the items given both
        verdicts (see ``verdicts.Tally``).

    Raises:
        GraderError: A reply was not JSON after the retries.
    """
    model = get_model(role="grader", default=judge)
    items = rubric.items()
    history: list[ChatMessage] = [
        ChatMessageSystem(content=render("grader_system", package=PROMPTS)),
        ChatMessageUser(
            content=render(
                "grader_request",
                package=PROMPTS,
                checklist=render_checklist(rubric),
                record=render_record(traj),
                n_items=len(items),
            )
        ),
    ]
    tally = Tally(items)
    reasoning: list[str] = []
    for ask in range(2):
        result, _ = await generate_json(model, history, GRADER, config, cache=cache)
        if result.degraded:
            raise GraderError(
                f"grader reply was not usable JSON after {result.retries} retries: "
                + "; ".join(result.errors)
            )
        tally.add(result.reply.model_dump())
        reasoning += result.reply.reasoning
        missing = tally.missing()
        if not missing or ask == 1:
            break
        history += [
            result.message,
            ChatMessageUser(
                content=render(
                    "grader_missing",
                    package=PROMPTS,
                    n_missing=len(missing),
                    missing=render_checklist(rubric, missing),
                )
            ),
        ]
    return tally.verdicts(), reasoning, tally.ignored_keys, tally.conflicts()


def summarise(verdicts: list[Verdict]) -> dict[str, dict[str, int]]:
    """Completed and total items overall and per competency present."""
    counts: dict[str, dict[str, int]] = {}
    for key in ("overall", *COMPETENCIES):
        mine = [v for v in verdicts if key == "overall" or v.competency == key]
        if mine:
            counts[key] = {"completed": sum(v.met for v in mine), "total": len(mine)}
    return counts


def checklist_text(verdicts: list[Verdict], items: list[RubricItem]) -> str:
    """The checklist as ticks and crosses, readable in ``inspect view``."""
    lines: list[str] = []
    by_number = {v.number: v for v in verdicts}
    current = ""
    for item in items:
        if item.competency != current:
            current = item.competency
            lines.append(f"\n**{current}**")
        v = by_number[item.number]
        mark = "✓" if v.met else ("✗" if v.judged else "? (unjudged)")
        mark = "⚠ (conflict, counted ✗)" if v.conflict else mark
        evidence = f" — _{v.evidence}_" if v.evidence else ""
        lines.append(f"- {mark} [{item.number}] {item.text}{evidence}")
    return "\n".join(lines).strip()


@scorer(metrics=[macro(), micro()])
def medsp_rubric(
    judge: str = DEFAULT_JUDGE, config: GenerateConfig | None = None, cache: bool = False
) -> Scorer:
    """Judge the sample's Trajectory against its frozen rubric with the ``grader`` role.

    Args:
        judge: Model used when no ``grader`` role is given (``--model-role grader=...``).
        config: Generation settings for the grader.
        cache: Inspect's response cache for the grader's calls (for re-runs).
    """

    async def score(state: TaskState, target: Target) -> Score:
        record = SampleRecord.model_validate(state.metadata[METADATA_KEY])
        traj = Trajectory(store=state.store)
        verdicts, reasoning, ignored, conflicts = await judge_items(
            record.rubric, traj, judge, config, cache
        )
        counts = summarise(verdicts)
        value = {k: c["completed"] / c["total"] for k, c in counts.items()}
        n_unjudged = sum(not v.judged for v in verdicts)
        return Score(
            value=value,
            answer=f"{counts['overall']['completed']}/{counts['overall']['total']} items",
            explanation=checklist_text(verdicts, record.rubric.items()),
            metadata={
                "items": [v.model_dump() for v in verdicts],
                "counts": counts,
                "unjudged": n_unjudged,
                "ignored_keys": ignored,
                "conflicts": [c.model_dump() for c in conflicts],
                "reasoning": reasoning,
                "grader": str(get_model(role="grader", default=judge)),
                "end": traj.end,
                "turns": traj.turn_count,
            },
        )

    return score
