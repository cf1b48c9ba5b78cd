"""The rubric evaluator: the ``grader`` role judges every item against the Trajectory."""

from __future__ import annotations

from typing import Annotated, Any

from inspect_ai.model import (
    ChatMessage,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    Model,
)
from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState
from pydantic import BaseModel, ConfigDict, Field, field_validator

from inspect_medsp.calls import DEFAULT_JUDGE, Contract, generate_json
from inspect_medsp.data import COMPETENCIES, Rubric, RubricItem
from inspect_medsp.measure import Kit, items_met
from inspect_medsp.preflight import GRADER_ACCEPTED, Count, GraderParameters, Temperature
from inspect_medsp.record import (
    END_WORDS,
    GRADER_ROLE,
    GRADING_STOPPED,
    SCORE_SCHEMA,
    SCORER,
    Conflict,
    Counts,
    ItemVerdict,
    ScoreMetadata,
    ScoreValue,
    Trajectory,
    Verdict,
    cited,
    encounter_lines,
    grader_model,
    regrade_command,
    render_checklist,
    render_record,
    stoppable_grading,
)
from inspect_medsp.scoring.metrics import medsp_summary
from inspect_medsp.scoring.repeats import REPEAT_TEMPERATURE, Graded, check_repeats, grade
from inspect_medsp.scoring.verdicts import Tally
from inspect_medsp.templates import render

PROMPTS = "inspect_medsp.scoring"

RUBRIC_SPAN = "rubric grading"
"""The subtask of the rubric scorer's grading, every repeat inside it (see
``measure.grading``)."""

KIT = Kit(SCORER, verb="scored", role=GRADER_ROLE)
"""The rubric's checks, reading, unscored score, grading and metering."""


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
    """The evaluator never replied with usable JSON; ``partial`` holds the verdicts it did give.

    Args:
        message: What went wrong.
        partial: Verdicts matched before the failure (from an earlier ask).
        reasoning: The grader's reasoning from those asks.
    """

    def __init__(
        self,
        message: str,
        partial: list[Verdict] | None = None,
        reasoning: list[str] | None = None,
        provider_message: str = "",
    ) -> None:
        super().__init__(message)
        self.partial = partial or []
        self.reasoning = reasoning or []
        self.provider_message = provider_message
        """What the provider sent when it stopped the grader's call (never a verdict)."""


async def judge_items(
    rubric: Rubric,
    traj: Trajectory,
    model: Model,
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
        result = await generate_json(model, history, GRADER, config, cache=cache)
        if result.context_exhausted or result.refused:
            if result.context_exhausted:
                what = (
                    "the grader model's context window was full "
                    f"(a prompt of about {result.prompt_tokens} tokens)"
                )
                fix = "a model with a longer context window"
            else:
                what = "the grader model's provider refused (content filter)"
                fix = "a model whose provider does not filter this scenario"
            raise GraderError(
                f"{what}: re-grade with {fix} (--model-role grader=...)",
                partial=[v for v in tally.verdicts() if v.judged],
                reasoning=reasoning,
                provider_message=result.provider_message,
            )
        if result.degraded:
            raise GraderError(
                f"grader reply was not usable JSON after {result.retries} retries: "
                + "; ".join(result.errors),
                partial=[v for v in tally.verdicts() if v.judged],
                reasoning=reasoning,
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


def summarise(verdicts: list[Verdict]) -> dict[str, Counts]:
    """Completed and total items overall and per competency present."""
    counts: dict[str, Counts] = {}
    for key in ("overall", *COMPETENCIES):
        mine = [v for v in verdicts if key == "overall" or v.competency == key]
        if mine:
            counts[key] = Counts(completed=sum(v.met for v in mine), total=len(mine))
    return counts


def checklist_text(verdicts: list[Verdict], items: list[RubricItem], traj: Trajectory) -> str:
    """The checklist as ticks and crosses, readable in ``inspect view``; each item's evidence
    cites the turn and whose line it quotes (``T3 action: ...``) and is cut at a word."""
    encounter = encounter_lines(traj)
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
        # a conflict's evidence is the harness's account of the readings, shown whole
        quote = v.evidence if v.conflict else cited(v.evidence, encounter)
        evidence = f" — _{quote}_" if quote else ""
        lines.append(f"- {mark} [{item.number}] {item.text}{evidence}")
    return "\n".join(lines).strip()


class RubricParameters(GraderParameters):
    """The parameters of :func:`medsp_rubric`, checked when it is made."""

    samples: Annotated[Count, Field(ge=1)] = 1
    temperature: Temperature = REPEAT_TEMPERATURE


RUBRIC_ACCEPTED = GRADER_ACCEPTED | {
    "samples": "a whole number of at least 1 (gradings per encounter, by majority)",
    "temperature": "a number from 0 to 2 (the grader's temperature for repeats)",
}
"""What each parameter of :func:`medsp_rubric` takes, in words."""


@scorer(metrics=[medsp_summary()])
def medsp_rubric(
    judge: str = DEFAULT_JUDGE,
    config: GenerateConfig | None = None,
    cache: bool = False,
    samples: int = 1,
    temperature: float = REPEAT_TEMPERATURE,
    **unknown: Any,
) -> Scorer:
    """Judge the sample's Trajectory against its frozen rubric with the ``grader`` role.

    A sample that cannot be scored (the encounter was cut short, or the grader failed) gets
    Inspect's unscored score, with the reason and any partial verdicts in its metadata; it
    is counted as unscored and left out of the metrics, never averaged in as 0.

    Args:
        judge: Model used when no ``grader`` role is given (``--model-role grader=...``) and
            the encounter recorded no grader (it records the one in force when it ran).
        config: Generation settings for the grader.
        cache: Inspect's response cache for the grader's calls (for re-runs).
        samples: Grade each encounter this many times and score each item by majority,
            keeping every verdict and the flip rates (see ``inspect_medsp.scoring.repeats``).
        temperature: The grader's temperature for the repeats when ``samples`` > 1.
        unknown: Refused: a parameter the scorer does not have (``-S`` with a typo).

    Raises:
        MedSPParameterError: A bad parameter; under ``inspect score``, a log of another task
            or a grader that cannot be made here.
    """
    given = {"judge": judge, "config": config, "cache": cache, "samples": samples}
    checked = KIT.check(
        RubricParameters, given | {"temperature": temperature}, RUBRIC_ACCEPTED, unknown
    )
    config, cache = checked.config, checked.cache
    samples, temperature = checked.samples, checked.temperature
    check_repeats(samples, temperature)

    async def score(state: TaskState, target: Target) -> Score:
        encounter = KIT.read(state)
        if isinstance(encounter, Score):
            return encounter
        record, traj = encounter.record, encounter.trajectory
        model = grader_model(judge, traj.role_models)
        about = ScoreMetadata(
            schema_version=SCORE_SCHEMA, grader=str(model), end=traj.end, turns=traj.turn_count
        )
        if not traj.complete:
            return unscored(
                "encounter_incomplete",
                f"the encounter did not finish ({traj.end}: "
                f"{traj.end_reason or 'no end recorded'}); re-run this sample",
                about,
            )
        try:
            with KIT.metered() as meter, stoppable_grading(state.store) as region:
                graded = await KIT.grading(
                    RUBRIC_SPAN,
                    lambda: grade(
                        lambda cfg: judge_items(record.rubric, traj, model, cfg, cache),
                        config,
                        samples,
                        temperature,
                    ),
                    {"grader": str(model)},
                    lambda result: items_met(result.verdicts),
                )
            if region.stopped:
                return unscored(
                    GRADING_STOPPED,
                    "the person stopped the grading (Ctrl-C); the encounter is kept whole: grade "
                    f"it with {regrade_command('LOG', scored=True)}",
                    about.adding(**meter.stored()),
                )
        except GraderError as err:
            return _grader_failed(err, about.adding(**meter.stored()))
        except Exception as err:
            why = f"{type(err).__name__}: {err}"
            return unscored("grader_failed", why, about.adding(**meter.stored()))
        return _scored(graded, record.rubric, traj, about, meter.stored())

    return score


def _grader_failed(err: GraderError, about: ScoreMetadata) -> Score:
    """The unscored score of a grading that failed, with the verdicts it had reached."""
    partial = about.adding(
        items=[ItemVerdict.model_validate(v.model_dump()) for v in err.partial],
        reasoning=err.reasoning,
    )
    if err.provider_message:
        partial = partial.adding(provider_message=err.provider_message)
    return unscored("grader_failed", str(err), partial)


def _scored(
    graded: Graded,
    rubric: Rubric,
    traj: Trajectory,
    about: ScoreMetadata,
    stored: dict[str, Any],
) -> Score:
    """The score of a graded encounter: the counts as its value, the verdicts, the repeats
    and the grading's tokens (``stored``) as its metadata, the checklist as its explanation."""
    verdicts = graded.verdicts
    counts = summarise(verdicts)
    checklist = checklist_text(verdicts, rubric.items(), traj)
    metadata = ScoreMetadata(
        schema_version=SCORE_SCHEMA,
        items=graded.items,
        counts=counts,
        unjudged=sum(not v.judged for v in verdicts),
        ignored_keys=graded.ignored,
        conflicts=graded.conflicts,
        reasoning=graded.reasoning,
        grader=about.grader,
        end=about.end,
        turns=about.turns,
        **stored,
    )
    if graded.repeats:
        metadata = metadata.adding(repeats=graded.repeats)
    figures = ScoreValue.of({k: (c.completed, c.total) for k, c in counts.items()})
    figures = figures.model_copy(update=provider_figures(traj))
    metadata = metadata.adding(figures=figures.stored())
    return Score(
        value=figures.headline(),
        answer=f"{counts['overall'].completed}/{counts['overall'].total} items",
        explanation=f"{ending(traj)}\n\n{checklist}",
        metadata=metadata.stored(),
    )


def ending(traj: Trajectory) -> str:
    """One line above the checklist: how many turns, and how the encounter ended in words."""
    turns = f"{traj.turn_count} turn{'' if traj.turn_count == 1 else 's'}"
    reason = f": {traj.end_reason}" if traj.end_reason else ""
    return f"_{turns}; {END_WORDS.get(traj.end, traj.end)}{reason}._"


def provider_figures(traj: Trajectory) -> dict[str, int]:
    """What the clinician model's provider did to the encounter, for the score value (the
    epoch reducer averages them, the run summary sums them): ``context_exhausted`` (1 when the
    encounter ended because the clinician's prompt no longer fit its window) and
    ``refused_turns``."""
    return {
        "context_exhausted": int(traj.end == "context_exhausted"),
        "refused_turns": int(traj.refused_turns),
    }


def unscored(reason: str, why: str, metadata: ScoreMetadata) -> Score:
    """Inspect's unscored score for a sample, with ``why`` shown and kept in the metadata."""
    noted = metadata.adding(unscored=reason, unscored_why=why)
    return KIT.unscored(reason=reason, why=why, metadata=noted.stored())
