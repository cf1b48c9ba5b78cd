"""The MedSP score as the log stores it: the value (the headline the viewer's samples grid shows:
completion overall), and the metadata (every figure of the score, what the grader said, item
by item, and about what).

The scorer writes both through these models and every reader reads them back through them, so
the stored names live here and nowhere else. A score written before the models existed (no
``schema_version`` in its metadata) reads as :data:`LEGACY_SCHEMA`.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from inspect_medsp.data import COMPETENCIES, Competency
from inspect_medsp.record.usage import RoleSpend

SCORE_SCHEMA = 4
"""Version of the score value and metadata this package writes (stored as the metadata's
``schema_version``). 2: written through :class:`ScoreValue` and :class:`ScoreMetadata`; the
keys are those of version 1 plus ``schema_version``. 3: completions stored to
:data:`DECIMALS` decimals (every reader takes them from the counts), the provider figures as
whole numbers, and the grader's ``usage`` and ``rescored`` in the metadata. 4: the value holds
the headline alone (``overall``); every figure the value held up to 3 (a :class:`ScoreValue`)
is the metadata's ``figures``, reduced over epochs by the MedSP reducer."""
LEGACY_SCHEMA = 1
"""The version of a score whose metadata has no ``schema_version`` (written before 2)."""

SCORER = "medsp_rubric"


def regrade_command(log: str, scored: bool = False) -> str:
    """The one command that grades (again) a log's encounters with the rubric scorer and
    writes the grades into the log itself, asking nothing (it runs unattended: Inspect's
    ``inspect score`` otherwise asks whether to overwrite or append, and without a terminal
    stops with ``Aborted!``); ``log`` is quoted for a POSIX shell.

    A log not scored yet (``--no-score``) is graded with ``--action overwrite``. A log that
    already holds scores (``scored``) is graded with ``--action append``: Inspect's overwrite
    would drop every other score of the log (the work-up, an audit, the probes), while an
    appended grading is stored as ``medsp_rubric1`` beside the first and read as the newest.
    """
    action = "append" if scored else "overwrite"
    return (
        f"inspect score {shlex.quote(log)} --scorer inspect_medsp/{SCORER} "
        f"--action {action} --overwrite"
    )


"""The name of the MedSP score in ``sample.scores`` and the log's results."""

DECIMALS = 3
"""Decimals of a stored completion (``0.706``): the counts beside it are exact, and the metrics
and the report compute every completion from them."""

KEYS: tuple[str, ...] = ("overall", *COMPETENCIES)
"""The completion keys of a score value: overall, then each competency."""

HEADLINE_KEYS: tuple[str, ...] = ("overall",)
"""The keys a score's value holds from version 4 on (the samples grid shows every value key
as a column); every other figure is in the metadata's :data:`FIGURES`."""

FIGURES = "figures"
"""The metadata key of every figure of a score whose value holds its headline alone (the
rubric's :class:`ScoreValue`; another scorer's full value, numbered as its value is)."""


def figures_of(value: object, metadata: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """Every figure of any scorer's score: its metadata's :data:`FIGURES` when its value holds
    the headlines alone, else its value (a score written before them); None for an unscored
    score (Inspect's NaN) or a value that is no mapping."""
    if not isinstance(value, Mapping):
        return None
    figures = (metadata or {}).get(FIGURES)
    return dict(figures) if isinstance(figures, Mapping) else dict(value)


MatchedBy = Literal["exact", "normalised", "number", "other_competency", "unjudged"]
"""How a grader's key found its rubric item (see ``inspect_medsp.scoring.verdicts``)."""


class Verdict(BaseModel):
    """One rubric item's outcome."""

    number: int
    competency: Competency
    text: str
    met: bool
    judged: bool
    evidence: str = ""
    matched_by: MatchedBy = "unjudged"
    conflict: bool = False
    """The grader gave this item both verdicts: counted as not met (see ``Conflict``)."""


class Reading(BaseModel):
    """One verdict for one item, as found in one reply."""

    number: int
    met: bool
    evidence: str = ""
    key: str
    """Where it was found, ``"<competency>: <key>"``."""
    matched_by: MatchedBy
    reply: int = 0
    """Which reply it came from: 0 for the first ask, 1 for the re-ask of missing items."""


class Conflict(BaseModel):
    """An item the grader marked both met and not met; it counts as ``counted_as``."""

    number: int
    competency: Competency
    text: str
    readings: list[Reading]
    counted_as: bool = False


class ItemVerdict(Verdict):
    """One item of the score metadata: its verdict and, with grading repeats, every vote."""

    votes: list[bool | None] = Field(default_factory=list)
    """Each repeat's verdict (null: that repeat left it unjudged); empty without repeats."""
    flip_rate: float = 0.0
    """With repeats: the share of judged votes that differ from the majority verdict."""


class ConflictRecord(Conflict):
    """A conflict as stored: with repeats, which repeat (from 1) gave both verdicts."""

    repeat: int | None = None


class Counts(BaseModel):
    """Completed and total rubric items."""

    completed: int
    total: int


class RepeatSummary(BaseModel):
    """How the repeats of a sample's grading were made and how much they disagreed."""

    samples: int
    temperature: float
    seeds: list[int]
    tie_rule: str
    flipped_items: dict[str, int]
    """Per competency and ``overall``: items whose votes were not unanimous."""
    flip_rate: dict[str, float]
    """Per competency and ``overall``: the share of judged votes that differ from their
    item's majority."""


class ScoreValue(BaseModel):
    """A sample's score value: completion overall and per competency its rubric has, the item
    counts behind them, and (after the MedSP epoch reducer) how stable its epochs were.

    With several epochs every key is the mean over the scored epochs. A competency the rubric
    lacks is absent (None here), never 0.
    """

    model_config = ConfigDict(extra="allow")

    SCHEMA_VERSION: ClassVar[int] = SCORE_SCHEMA

    overall: float
    PC: float | None = None
    MK: float | None = None
    SBP: float | None = None
    ICS: float | None = None
    PBLI: float | None = None
    PROF: float | None = None
    overall_completed: int | float = 0
    overall_total: int | float = 0
    PC_completed: int | float | None = None
    PC_total: int | float | None = None
    MK_completed: int | float | None = None
    MK_total: int | float | None = None
    SBP_completed: int | float | None = None
    SBP_total: int | float | None = None
    ICS_completed: int | float | None = None
    ICS_total: int | float | None = None
    PBLI_completed: int | float | None = None
    PBLI_total: int | float | None = None
    PROF_completed: int | float | None = None
    PROF_total: int | float | None = None
    context_exhausted: int | float | None = None
    """1 when the encounter ended because the clinician's prompt no longer fit its model's
    context window (graded on the turns played), else 0; absent in older logs."""
    refused_turns: int | float | None = None
    """Clinician turns its provider's content filter refused (graded as saying and doing
    nothing); absent in older logs."""
    epochs: int | float | None = None
    """Scored epochs of the scenario (the MedSP reducer, two or more only)."""
    epoch_sd: float | None = None
    """Sample standard deviation of overall completion across the scored epochs."""
    flipped_items: int | float | None = None
    """Items whose verdict was not the same in every scored epoch."""
    unscored_epochs: int | float | None = None
    """Epochs of the scenario that could not be scored (left out of the mean)."""

    @classmethod
    def of(cls, counts: Mapping[str, tuple[int, int]]) -> ScoreValue:
        """The value of one grading from ``(completed, total)`` for ``overall`` and each
        competency the rubric has (completions to :data:`DECIMALS` decimals)."""
        fields: dict[str, float] = {}
        for key in (k for k in KEYS if k in counts):
            completed, total = counts[key]
            fields[key] = round(completed / total, DECIMALS)
            fields[f"{key}_completed"] = completed
            fields[f"{key}_total"] = total
        return cls.model_validate(fields)

    @classmethod
    def read(cls, value: object) -> ScoreValue | None:
        """The value of a scored sample; None for an unscored one (Inspect's NaN)."""
        if not isinstance(value, Mapping) or "overall" not in value:
            return None
        return cls.model_validate(dict(value))

    @classmethod
    def in_score(cls, value: object, metadata: Mapping[str, Any] | None) -> ScoreValue | None:
        """Every figure of a scored sample: its metadata's ``figures`` (version 4 on), else
        the value itself (up to version 3, when the value held them all); None for an
        unscored sample."""
        if cls.read(value) is None:
            return None
        figures = (metadata or {}).get(FIGURES)
        return cls.read(figures) if isinstance(figures, Mapping) else cls.read(value)

    def headline(self) -> dict[str, float]:
        """The value a score stores from version 4 on: :data:`HEADLINE_KEYS` alone."""
        return {key: getattr(self, key) for key in HEADLINE_KEYS}

    def stored(self) -> dict[str, float]:
        """The value as the log stores it: completions first, then the counts (so the viewer
        lists the completions first); absent keys left out."""
        return self.model_dump(exclude_none=True)

    def with_whole_counts(self) -> ScoreValue:
        """The value with whole counts as integers (a mean over epochs makes them floats:
        "12", not "12.0", in the viewer): the item counts and the clinician's full windows and
        refused turns; counts that differ between epochs keep their fraction.
        """
        names = [f"{key}_{part}" for key in KEYS for part in ("completed", "total")]
        whole = {
            name: int(v)
            for name in (*names, "context_exhausted", "refused_turns")
            if isinstance(v := getattr(self, name), float) and v.is_integer()
        }
        return self.model_copy(update=whole)

    def rounded(self) -> ScoreValue:
        """The value with each completion recomputed from its counts to :data:`DECIMALS`
        decimals (a mean over epochs of rounded completions is not itself rounded)."""
        exact = {
            key: round(counts[0] / counts[1], DECIMALS)
            for key in KEYS
            if (counts := self.counts(key)) is not None
        }
        return self.model_copy(update=exact)

    def completion(self, key: str) -> float | None:
        """Completion of ``overall`` or a competency (None when the rubric lacks it): from the
        counts when the value has them (the stored completion is rounded), else as stored."""
        counts = self.counts(key)
        if counts is not None:
            return counts[0] / counts[1]
        value = getattr(self, key, None)
        return float(value) if isinstance(value, int | float) else None

    def counts(self, key: str) -> tuple[float, float] | None:
        """Completed and total items of ``overall`` or a competency (None when absent)."""
        completed = getattr(self, f"{key}_completed", None)
        total = getattr(self, f"{key}_total", None)
        if isinstance(completed, int | float) and isinstance(total, int | float) and total > 0:
            return float(completed), float(total)
        return None


SUMMARY_FIELDS = ("schema_version", "unjudged", "grader", "end", "turns", "unscored", "figures")
"""Fields of :class:`ScoreMetadata` a sample summary keeps whole (the scalars, and the
``figures``, well under the 1k a summary keeps of a value)."""


class ScoreMetadata(BaseModel):
    """What a MedSP score's metadata holds: the verdicts and what they were given about.

    A scored sample has every field up to ``turns`` (``repeats`` with grading repeats); an
    unscored one has ``grader``, ``end``, ``turns``, ``unscored`` and ``unscored_why`` (and the
    ``items`` and ``reasoning`` of a grading that failed part way). Keys other packages or
    later versions add are kept (``extra``).
    """

    model_config = ConfigDict(extra="allow")

    SCHEMA_VERSION: ClassVar[int] = SCORE_SCHEMA

    schema_version: int = LEGACY_SCHEMA
    """Version of the score value and metadata (absent in logs written before version 2)."""
    items: list[ItemVerdict] = Field(default_factory=list)
    """Every rubric item's verdict, in item order (the majority with repeats)."""
    counts: dict[str, Counts] = Field(default_factory=dict)
    """Completed and total items, overall and per competency the rubric has."""
    unjudged: int = 0
    """Items no grading gave a verdict (counted as not met)."""
    ignored_keys: list[str] = Field(default_factory=list)
    """Keys of the grader's replies that matched no item."""
    conflicts: list[ConflictRecord] = Field(default_factory=list)
    """Items a grading marked both met and not met (counted as not met)."""
    reasoning: list[str] = Field(default_factory=list)
    """The grader's reasoning (prefixed ``[repeat i]`` with repeats)."""
    grader: str | None = None
    """The model that graded (see :func:`inspect_medsp.record.grader.grader_model`)."""
    end: str | None = None
    """How the encounter ended (the Trajectory's ``end``)."""
    turns: int | None = None
    """Turns the encounter played."""
    repeats: RepeatSummary | None = None
    """How the grading repeats were made and how much they disagreed (``grader_samples``
    above 1 only)."""
    unscored: str | None = None
    """Why the sample could not be scored: ``encounter_incomplete``, ``grader_failed`` or
    ``grading_stopped`` (a person stopped the grading of their encounter)."""
    provider_message: str | None = None
    """What the grader's provider sent instead of a reply when it refused or the prompt did
    not fit its window (``grader_failed``); never a verdict."""
    unscored_why: str | None = None
    """The reason in words, with what to do."""
    usage: dict[str, RoleSpend] = Field(default_factory=dict)
    """Model calls and tokens of this grading, per role (see ``record/usage.py``); absent
    before version 3."""
    rescored: bool = False
    """Made by ``inspect score`` after the eval: its ``usage`` is not in the sample's own."""
    figures: dict[str, int | float] | None = None
    """Every figure of the score (version 4 on; the score value up to version 3, see
    :class:`ScoreValue`): completions, item counts, the clinician's provider figures and,
    reduced over epochs, their stability; the value holds ``overall`` alone."""

    @classmethod
    def read(cls, metadata: Mapping[str, Any] | None) -> ScoreMetadata:
        """The metadata of a MedSP score of any version."""
        return cls.model_validate(dict(metadata or {}))

    @classmethod
    def read_summary(cls, metadata: Mapping[str, Any] | None) -> ScoreMetadata:
        """The scalar fields of the metadata, as Inspect's sample summaries keep them (they
        drop values over 1k, such as the items)."""
        kept = {k: v for k, v in (metadata or {}).items() if k in SUMMARY_FIELDS}
        return cls.model_validate(kept)

    def adding(self, **fields: Any) -> ScoreMetadata:
        """This metadata with ``fields`` given too (so they are stored)."""
        return type(self).model_validate(self.model_dump(exclude_unset=True) | fields)

    def stored(self) -> dict[str, Any]:
        """The metadata as the log stores it: the fields that were given, no others."""
        return self.model_dump(mode="json", exclude_unset=True)
