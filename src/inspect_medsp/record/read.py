"""Read a MedSP log into typed runs and samples: the one way the report, the agreement
commands, the estimate's bill and the end-of-run hooks read what a run wrote.

Any log this package wrote reads, whatever its schema version: an older log's missing keys
take their defaults (see ``record.score`` and ``record.task``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cached_property
from pathlib import Path
from sys import intern
from typing import Any, Literal, NamedTuple, TypeVar

from inspect_ai.log import (
    EvalLog,
    EvalSample,
    EvalSampleScore,
    EvalSampleSummary,
    read_eval_log,
    read_eval_log_samples,
)
from inspect_ai.model import ModelUsage
from inspect_ai.scorer import Score
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator

from inspect_medsp.data import (
    BASELINE,
    CASE_META_FIELDS,
    METADATA_KEY,
    PUBLISHED_KEY,
    CaseSet,
    SampleRecord,
    published_set,
)
from inspect_medsp.record import sample_files
from inspect_medsp.record.grader import GRADER_ROLE, graders_named
from inspect_medsp.record.result import ScorerResult, result_of, unscored_of
from inspect_medsp.record.score import KEYS, SCORER, ItemVerdict, ScoreMetadata, ScoreValue
from inspect_medsp.record.task import TaskMetadata
from inspect_medsp.record.trajectory import (
    ROLE_NAMES,
    EndReason,
    ReplyHealth,
    Trajectory,
)
from inspect_medsp.record.usage import RoleSpend

R = TypeVar("R", bound=ScorerResult)

HEAVY_FIELDS = frozenset({"messages", "events", "attachments"})
"""Sample fields a reader rarely needs (the bulk of a log); ``events`` are read on request."""

CLINICIAN = sample_files.CLINICIAN
"""The name of the model without a role (the model under test) in per-role counts."""

NOT_SCORED = "no_score"
"""The unscored reason of a sample that has no MedSP score at all (a run with ``--no-score``:
score it with ``inspect score LOG --scorer inspect_medsp/medsp_rubric``)."""


LEAN_RAW = frozenset({"rescored", "usage"})
"""The rubric score's metadata a lean read keeps as logged in ``MedspSample.scores`` (what
:func:`rescored_usage` reads); the rest it keeps typed only (``MedspSample.score``)."""


LEAN_MARK = "lean"
"""Set on a sample's JSON by a lean read (``record.sample_files``), with its encounter's
counts under ``encounter``."""


ItemRow = tuple[int, str, str, bool, bool, str, bool, tuple[bool | None, ...], float]
"""A rubric item of a lean read (which has no evidence): its verdict's number, competency,
text, met, judged, matched_by, conflict, votes and flip_rate, validated as an
:class:`ItemVerdict` first, its texts shared with every other log's same text. A full-set
sweep holds some 200,000 items: as typed objects they were most of the report's memory."""


def _item_row(item: ItemVerdict) -> ItemRow:
    return (
        item.number, intern(item.competency), intern(item.text), item.met, item.judged,
        intern(item.matched_by), item.conflict, tuple(item.votes), item.flip_rate,
    )  # fmt: skip


_ITEM_KEYS = (
    "number", "competency", "text", "met", "judged", "matched_by", "conflict", "votes",
    "flip_rate",
)  # fmt: skip
_ITEM_FIELDS_SET = frozenset(_ITEM_KEYS)
_ITEM_DEFAULTS = {
    name: field.get_default(call_default_factory=True)
    for name, field in ItemVerdict.model_fields.items()
    if name not in _ITEM_FIELDS_SET
}
"""What a row leaves out (the evidence: empty)."""


def _item_of(row: ItemRow) -> ItemVerdict:
    """The verdict of a row, made as ``ItemVerdict.model_construct`` makes it (the row was
    validated), in a fifth of its time: the report makes every item anew some five times."""
    given = dict(zip(_ITEM_KEYS, row, strict=True))
    given["votes"] = list(row[7])
    fields = {name: given[name] if name in given else _ITEM_DEFAULTS[name]
              for name in ItemVerdict.model_fields}  # fmt: skip
    item = ItemVerdict.__new__(ItemVerdict)
    object.__setattr__(item, "__dict__", fields)
    object.__setattr__(item, "__pydantic_fields_set__", set(_ITEM_FIELDS_SET))
    object.__setattr__(item, "__pydantic_extra__", None)
    object.__setattr__(item, "__pydantic_private__", None)
    return item


_LAST_ITEMS: dict[int, tuple[tuple[ItemRow, ...], list[ItemVerdict]]] = {}
"""The items last made from rows (under 0), with the rows they were made from."""


class NotMedSP(ValueError):
    """A readable Inspect log that is not a MedSP run."""


class SampleMetadata(BaseModel):
    """A MedSP sample's metadata: its ids, its case's metadata and its whole record."""

    model_config = ConfigDict(populate_by_name=True, extra="allow")

    case_id: str | None = None
    scenario: str | None = None
    rubric_items: int | None = None
    published_scenarios: int | None = Field(
        default=None, validation_alias=PUBLISHED_KEY, serialization_alias=PUBLISHED_KEY
    )
    """Scenarios of the sample's task as published (absent for a task of another name)."""
    specialty: str | None = None
    """The scenario's specialty (from the data or a specialties file), if labelled."""
    specialty_source: str | None = None
    """``data``, or the model that classified the scenario."""
    variant: str = BASELINE
    """The patient variant played (``-T variants=``; ``baseline``, the case as published,
    for a sample of a run made without variants)."""
    record: SampleRecord | None = Field(
        default=None, validation_alias=METADATA_KEY, serialization_alias=METADATA_KEY
    )
    """The scenario and its frozen rubric (``medsp``)."""

    @classmethod
    def read_summary(cls, metadata: Mapping[str, Any] | None) -> SampleMetadata:
        """The metadata as Inspect's sample summary keeps it (without the record, which it
        drops for its size)."""
        return cls.model_validate({k: v for k, v in (metadata or {}).items() if k != METADATA_KEY})

    def case_meta(self) -> dict[str, str]:
        """The case metadata the sample carries (department, urgency ...), non-empty only."""
        extra = self.model_extra or {}
        return {k: str(extra[k]) for k in CASE_META_FIELDS if extra.get(k)}


class TurnTiming(BaseModel):
    """What the per-sample properties read of a recorded turn (``TurnRecord``'s fields)."""

    model_config = ConfigDict(extra="ignore")

    refused: bool = False
    clinician_seconds: float | None = None


TurnRow = tuple[bool, float | None]
"""A recorded turn as the report reads it: refused, and the clinician's seconds."""


class RecordedEncounter(BaseModel):
    """What the per-sample properties read of the store's Trajectory, as plain data (its
    turns' words are not validated: the report counts turns and times them). Each turn is
    validated as a :class:`TurnTiming` and kept as a :data:`TurnRow` (a full-set sweep holds
    some 90,000 turns)."""

    turns: tuple[TurnRow, ...] = ()
    end: EndReason = "running"
    health: dict[str, ReplyHealth] = Field(
        default_factory=lambda: {str(r): ReplyHealth() for r in ROLE_NAMES}
    )

    @field_validator("turns", mode="before")
    @classmethod
    def _rows(cls, turns: Any) -> Any:
        if not isinstance(turns, list | tuple):
            return turns
        rows = []
        for turn in turns:
            t = turn if isinstance(turn, TurnTiming) else TurnTiming.model_validate(turn)
            rows.append((t.refused, t.clinician_seconds))
        return rows

    @classmethod
    def of(cls, store: Mapping[str, Any]) -> RecordedEncounter | None:
        """The encounter a store holds (None when it holds no Trajectory's turns)."""
        prefix = f"{Trajectory.__name__}:"
        if f"{prefix}turns" not in store:
            return None
        found = {n: store[f"{prefix}{n}"] for n in cls.model_fields if f"{prefix}{n}" in store}
        return cls.model_validate(found)


class MedspScore(BaseModel):
    """A sample's MedSP score: its value (None when unscored) and its metadata."""

    value: ScoreValue | None
    metadata: ScoreMetadata
    reason: str | None = None
    """Why it is unscored (Inspect's unscored reason, else the metadata's)."""

    @property
    def scored(self) -> bool:
        return self.value is not None


class MedspSample(BaseModel):
    """One logged sample (scenario and epoch) of a MedSP run."""

    id: str
    epoch: int = 1
    metadata: SampleMetadata
    store: dict[str, Any] = Field(default_factory=dict)
    """The sample store as logged (the Trajectory's keys and any others)."""
    score: MedspScore | None = None
    error: str | None = None
    model_usage: dict[str, ModelUsage] = Field(default_factory=dict)
    role_usage: dict[str, ModelUsage] = Field(default_factory=dict)
    calls: dict[str, int] | None = None
    """Model calls per role (``clinician`` for the model without one), when events were read."""
    scores: dict[str, Score] = Field(default_factory=dict)
    """Every score of the sample as logged, by scorer name (the rubric's, the audit's, the
    probes', any other scorer's); read a scorer's typed result with :meth:`result`."""
    _recorded: RecordedEncounter | Literal[False] | None = PrivateAttr(default=False)
    """The encounter's counts, read from the store when first asked for (False: not yet)."""
    _made: tuple[object, object, dict[str, float], dict[str, tuple[int, int]]] | None = PrivateAttr(
        default=None
    )
    """The score and value that :meth:`_figures` last worked out, and what it found."""
    _item_rows: tuple[ItemRow, ...] | None = PrivateAttr(default=None)
    """A lean read's rubric items, validated and kept as rows (None: in ``score``)."""

    @cached_property
    def trajectory(self) -> Trajectory | None:
        """The recorded encounter (None when the sample stopped before it began), read from
        the store when first asked for."""
        return Trajectory.of(self.store)

    @property
    def _encounter(self) -> RecordedEncounter | None:
        """The store's encounter as plain data, validated once: what the per-sample
        properties below read (a Trajectory validates its fields again on every read)."""
        if self._recorded is False:
            self._recorded = RecordedEncounter.of(self.store)
        return self._recorded

    def result(self, kind: type[R]) -> R | None:
        """The typed result ``kind``'s scorer stored for this sample (its newest score's
        metadata read as ``kind``): None when that scorer did not run on the sample, or ran
        and could not score it (:meth:`result_unscored` says why)."""
        return result_of(self.scores, kind)

    def result_unscored(self, kind: type[ScorerResult]) -> str | None:
        """Why ``kind``'s scorer could not score this sample (``reason: why``, e.g. the
        audit's ``auditor_failed: ...``), when it ran and could not; else None."""
        return unscored_of(self.scores, kind)

    @property
    def rescored_usage(self) -> dict[str, RoleSpend]:
        """Per role, what the scorings made after the eval (``inspect score``) spent: their
        scores' ``usage``, which Inspect does not add to the sample's own usage."""
        return rescored_usage(self.scores)

    @property
    def case_id(self) -> str:
        return self.metadata.case_id or self.id.split("/")[0]

    @property
    def grader(self) -> str | None:
        """The model that graded this sample, as its score records it."""
        return self.score.metadata.grader if self.score is not None else None

    # What a reader derives from the sample (the report, the analysis columns): each from
    # the Trajectory when the sample has one, else from the score's metadata.

    @property
    def specialty(self) -> str | None:
        return self.metadata.specialty or None

    @property
    def specialty_source(self) -> str | None:
        """``data`` or the model that classified the scenario (None without a specialty)."""
        return self.metadata.specialty_source or None

    @property
    def case_meta(self) -> dict[str, str]:
        """Case metadata the sample carries (department, urgency, patient facts), non-empty."""
        return self.metadata.case_meta()

    @property
    def scored(self) -> bool:
        """Whether the sample has a MedSP score value."""
        return self.score is not None and self.score.value is not None

    @property
    def unscored(self) -> str | None:
        """Why the sample has no score (Inspect's unscored reason; :data:`NOT_SCORED` for a
        sample never scored); None when scored or when it stopped on an error unscored."""
        if self.score is None:
            return NOT_SCORED if self.error is None else None
        return self.score.reason if self.score.value is None else None

    @property
    def values(self) -> dict[str, float]:
        """Completion of ``overall`` and each competency the scenario's rubric has."""
        return dict(self._figures()[0])

    @property
    def counts(self) -> dict[str, tuple[int, int]]:
        """Completed and total items, overall and per competency (from the value, else from
        the metadata of an older log)."""
        return dict(self._figures()[1])

    def _figures(self) -> tuple[dict[str, float], dict[str, tuple[int, int]]]:
        """:attr:`values` and :attr:`counts`, worked out once for the score the sample has (a
        report asks for them some 100,000 times on five full-set logs)."""
        score = self.score
        value = score.value if score is not None else None
        made = self._made
        if made is None or made[0] is not score or made[1] is not value:
            made = self._made = (score, value, self._values(), self._counts())
        return made[2], made[3]

    def _values(self) -> dict[str, float]:
        value = self.score.value if self.score is not None else None
        if value is None:
            return {}
        return {k: v for k in KEYS for v in [value.completion(k)] if v is not None}

    def _counts(self) -> dict[str, tuple[int, int]]:
        if self.score is None or self.score.value is None:
            return {}
        found: dict[str, tuple[int, int]] = {}
        for key in KEYS:
            pair = self.score.value.counts(key)
            if pair is not None:
                found[key] = (round(pair[0]), round(pair[1]))
        return found or {k: (c.completed, c.total) for k, c in self.score.metadata.counts.items()}

    @property
    def items(self) -> list[ItemVerdict]:
        """The rubric items' verdicts of a scored sample (a lean read keeps them as rows and
        makes them when asked: see :data:`ItemRow`; the same list while no other sample's
        items are asked for, as a reader often asks for one sample's items several times)."""
        if self.score is None or not self.scored:
            return []
        rows = self._item_rows
        if rows is None:
            return self.score.metadata.items
        last = _LAST_ITEMS.get(0)
        if last is not None and last[0] is rows:
            return last[1]
        made = [_item_of(row) for row in rows]
        _LAST_ITEMS[0] = (rows, made)
        return made

    @property
    def item_count(self) -> int:
        """How many rubric items a scored sample has (``len(items)``, without making them)."""
        if self.score is None or not self.scored:
            return 0
        rows = self._item_rows
        return len(rows) if rows is not None else len(self.score.metadata.items)

    @property
    def unjudged(self) -> int:
        """Rubric items of a scored sample that got no verdict."""
        return self.score.metadata.unjudged if self.score is not None and self.scored else 0

    @property
    def end(self) -> str | None:
        """How the encounter ended."""
        if self._encounter is not None:
            return self._encounter.end
        return self.score.metadata.end or None if self.score is not None else None

    @property
    def turns(self) -> int | None:
        if self._encounter is not None:
            return len(self._encounter.turns)
        return self.score.metadata.turns if self.score is not None else None

    @property
    def recorded_turns(self) -> int:
        """Turns the store's encounter records (0 when it holds none)."""
        return len(self._encounter.turns) if self._encounter is not None else 0

    @property
    def refused_turns(self) -> int:
        """Clinician turns its provider refused (content filter)."""
        return sum(refused for refused, _ in self._encounter.turns) if self._encounter else 0

    @property
    def turn_seconds(self) -> list[float]:
        """Seconds the clinician took for each recorded turn that has a time (a person's
        thinking time for ``medsp/human``, the model calls' time for a model)."""
        turns = self._encounter.turns if self._encounter is not None else ()
        return [seconds for _, seconds in turns if seconds is not None]

    @property
    def health(self) -> dict[str, ReplyHealth]:
        """The encounter roles' reply health."""
        if self._encounter is None:
            return {}
        return {r: h for r, h in self._encounter.health.items() if r in ROLE_NAMES}

    @property
    def tokens(self) -> dict[str, int]:
        """Total tokens by role: the eval's role usage, ``clinician`` (the model without a
        role, or with its own, ``clinician``) being what the other roles leave of the whole,
        plus what scorings made after the eval spent (their scores' ``usage``; Inspect does
        not add it to the sample's)."""
        roles = {r: u.total_tokens for r, u in self.role_usage.items() if r != CLINICIAN}
        everything = sum(u.total_tokens for u in self.model_usage.values())
        if everything or roles or CLINICIAN in self.role_usage:
            roles[CLINICIAN] = max(0, everything - sum(roles.values()))
        for role, spend in self.rescored_usage.items():
            roles[role] = roles.get(role, 0) + spend.total_tokens
        return roles

    @property
    def clinician_input_tokens(self) -> int | None:
        """Input tokens the clinician (the model without a role, or with ``clinician``) read
        over the encounter, cache reads and writes included: all models' less the other
        roles'. None when the log records no model usage for the sample."""
        if not self.model_usage:
            return None
        everything = sum(_input(u) for u in self.model_usage.values())
        roles = sum(_input(u) for r, u in self.role_usage.items() if r != CLINICIAN)
        return max(0, everything - roles)


def _input(usage: ModelUsage) -> int:
    cached = (usage.input_tokens_cache_read or 0) + (usage.input_tokens_cache_write or 0)
    return int(usage.input_tokens) + int(cached)


class MedspRun(BaseModel):
    """One MedSP log: how the run was set up, its metrics, and its samples."""

    path: str
    task: str
    created: str
    status: str
    model: str
    """The model under test (the clinician)."""
    grader_role: str | None = None
    """The model bound to the ``grader`` role for the run, if one was."""
    task_metadata: TaskMetadata
    metrics: dict[str, float] | None = None
    """The log's own metrics of the MedSP score (None if it has none)."""
    epochs: int | None = None
    """The epochs the eval was run with (``--epochs``; None when its header has none)."""
    samples: list[MedspSample] = Field(default_factory=list)
    digests: dict[str, Any] = Field(default_factory=dict, exclude=True)
    """What a reader asked to be made of each sample while the log was parsed (the report's
    sections, by name: see ``report.collect``), before the parts it needed were dropped."""

    @property
    def name(self) -> str:
        return Path(self.path).name

    @property
    def strategy(self) -> str:
        return self.task_metadata.strategy_name

    @property
    def protocol(self) -> str:
        return self.task_metadata.protocol

    @property
    def published(self) -> int | None:
        """Scenarios of the run's task as published (None for a task of another name)."""
        load = self.task_metadata.load
        return load.published if load is not None else None

    @property
    def rubrics_differ(self) -> str | None:
        """How the run's rubric copy differs from the published files (None: it does not)."""
        load = self.task_metadata.load
        return load.rubrics_differ if load is not None else None

    @property
    def case_set(self) -> CaseSet:
        """The set of cases the run ran: as recorded, else (a log written before the set was
        recorded) read from the dataset's name, ``custom: <folder>, N cases`` for a custom set."""
        load = self.task_metadata.load
        if load is not None and load.case_set is not None:
            return load.case_set
        name = load.name if load is not None else self.task
        if name.startswith("custom: "):
            folder = name.removeprefix("custom: ").rsplit(", ", 1)[0]
            return CaseSet(kind="custom", name=folder)
        meta = self.task_metadata
        return published_set(name, meta.data_revision, meta.rubric_revision)

    @property
    def label(self) -> str:
        """The run as a reader knows it: clinician model, strategy and judge (not the file)."""
        parts = [self.model, f"strategy {self.strategy}"]
        if self.protocol != "turns":
            parts.append(f"protocol {self.protocol}")
        parts.append(f"judge {self.grader}")
        return ", ".join(parts)

    @property
    def scenario_ids(self) -> set[str]:
        """Every scenario the run attempted."""
        return {s.id for s in self.samples}

    @property
    def scored_ids(self) -> set[str]:
        """The scenarios with a rubric score."""
        return {s.id for s in self.samples if s.scored}

    @property
    def graders(self) -> list[str]:
        """Every model that graded the run (see ``record.grader``)."""
        return graders_named(
            (s.grader for s in self.samples), self.grader_role, self.task_metadata.judge
        )

    @property
    def grader(self) -> str:
        """The graders as one label (``a + b`` when they differ between samples)."""
        return " + ".join(self.graders)


def _medsp_score(score: Score, metadata: ScoreMetadata) -> MedspScore:
    """The rubric score with its metadata, and why it is unscored when it is."""
    value = ScoreValue.in_score(score.value, {"figures": metadata.figures})
    reason = None if value else str(score.reason or metadata.unscored or "unscored")
    return MedspScore(value=value, metadata=metadata, reason=reason)


def read_sample(sample: EvalSample) -> MedspSample:
    """The typed view of one logged sample."""
    score = (sample.scores or {}).get(SCORER)
    medsp_score = None if score is None else _medsp_score(score, ScoreMetadata.read(score.metadata))
    store = dict(sample.store or {})
    return MedspSample(
        id=str(sample.id),
        epoch=sample.epoch,
        metadata=SampleMetadata.model_validate(sample.metadata or {}),
        store=store,
        score=medsp_score,
        error=sample.error.message if sample.error is not None else None,
        model_usage=dict(sample.model_usage or {}),
        role_usage=dict(sample.role_usage or {}),
        calls=_calls(sample) if sample.events else None,
        scores=dict(sample.scores or {}),
    )


def summary_sample(sample: EvalSampleSummary | EvalSample) -> MedspSample:
    """The typed view of a sample as Inspect's sample summary keeps it: its ids, metadata,
    MedSP score (the summary's scalar metadata fields) and error; no Trajectory or usage."""
    score = (sample.scores or {}).get(SCORER)
    medsp_score = (
        None if score is None else _medsp_score(score, ScoreMetadata.read_summary(score.metadata))
    )
    error = sample.error
    return MedspSample(
        id=str(sample.id),
        epoch=sample.epoch,
        metadata=SampleMetadata.read_summary(sample.metadata),
        score=medsp_score,
        error=error if isinstance(error, str) or error is None else error.message,
    )


def rescored_usage(scores: Mapping[str, Score]) -> dict[str, RoleSpend]:
    """What the scores made after the eval spent, per role: the ``usage`` of every score whose
    metadata says ``rescored`` (every MedSP scorer records both; see ``record/usage.py``)."""
    spent: dict[str, RoleSpend] = {}
    for score in scores.values():
        metadata = score.metadata or {}
        if metadata.get("rescored") is not True:
            continue
        for role, spend in dict(metadata.get("usage") or {}).items():
            spent[role] = spent.get(role, RoleSpend()).plus(RoleSpend.model_validate(spend))
    return spent


def _calls(sample: EvalSample) -> dict[str, int]:
    calls: dict[str, int] = {}
    for event in sample.events:
        if event.event == "model":
            key = event.role or CLINICIAN
            calls[key] = calls.get(key, 0) + 1
    return calls


def reduced_samples(log: EvalLog, scorer: str) -> list[EvalSampleScore]:
    """The scores one scorer gave each sample of a log, its epochs reduced to one."""
    return [s for r in log.reductions or [] if r.scorer == scorer for s in r.samples]


def task_metadata(log: EvalLog) -> TaskMetadata | None:
    """The MedSP task metadata of a log (header enough); None for another task's log."""
    return TaskMetadata.read(log.eval.metadata)


def run_of(
    log: EvalLog, samples: Iterable[EvalSample] | None = None, *, require_scores: bool = True
) -> MedspRun:
    """The typed run of a log read in memory (its own samples unless ``samples`` are given).

    Raises:
        NotMedSP: The log is an Inspect log of some other task (with ``require_scores``, also
            when it has samples, none of which has a MedSP score or an error).
    """
    if task_metadata(log) is None:
        raise NotMedSP("not a MedSP log: its task metadata has no medsp_judge")
    read = [read_sample(s) for s in (log.samples or [] if samples is None else samples)]
    return _run(log, read, require_scores)


def _run(log: EvalLog, read: list[MedspSample], require_scores: bool) -> MedspRun:
    """The typed run of a log's header and its samples read."""
    metadata = task_metadata(log)
    if metadata is None:
        raise NotMedSP("not a MedSP log: its task metadata has no medsp_judge")
    unscoreable = read and not any(s.score for s in read) and not all(s.error for s in read)
    if require_scores and unscoreable:
        raise NotMedSP(f"not a MedSP log: no sample has a {SCORER} score")
    role = (log.eval.model_roles or {}).get(GRADER_ROLE)
    if isinstance(role, list):
        role = role[0] if role else None
    return MedspRun(
        path=log.location or "",
        task=log.eval.task,
        created=str(log.eval.created),
        status=log.status,
        model=log.eval.model,
        grader_role=role.model if role is not None else None,
        task_metadata=metadata,
        metrics=_metrics(log),
        epochs=log.eval.config.epochs,
        samples=read,
    )


def read_log(
    path: str | Path,
    *,
    events: bool = False,
    require_scores: bool = True,
    lean: bool = False,
) -> MedspRun:
    """Read a MedSP log file: header, then every sample (without messages or attachments; with
    model events only when ``events``, for the per-role call counts). ``lean`` keeps only what
    the report reads: no store text or Trajectory (the encounter's turn count, refusals, times,
    end and health are kept), no scenario record, no grader evidence, reasoning or explanation
    (see ``record.sample_files``).

    An ``.eval`` file is read in one pass over its zip (see ``record.sample_files``), not
    sample by sample through Inspect's reader, which re-opens the file and streams every event
    of every sample; the samples are the same.

    Raises:
        NotMedSP: The log is an Inspect log of some other task (with ``require_scores``, also
            when none of its samples has a MedSP score or an error).
    """
    return parsed_run(parse_log(path, events=events, lean=lean), require_scores=require_scores)


class ParsedLog(NamedTuple):
    """A log's header and its samples as JSON (:func:`parse_log`), before they are typed."""

    path: str
    header: EvalLog
    samples: list[dict[str, Any]] | None
    """None: not a local ``.eval`` zip (read with Inspect's reader when typed)."""
    events: bool = False
    digests: Mapping[str, Any] | None = None
    """What was made of the parsed samples before they were typed (``MedspRun.digests``)."""


def parse_log(
    path: str | Path, *, events: bool = False, lean: bool = False, records: bool = False
) -> ParsedLog:
    """The first half of :func:`read_log`: the header and every sample's JSON (the half that
    a worker process can do: what it returns is plain data). ``records``: a lean read keeps
    each scenario's record (see ``record.sample_files.sample_dicts``).

    Raises:
        NotMedSP: The log is an Inspect log of some other task.
    """
    header = read_eval_log(str(path), header_only=True)
    if task_metadata(header) is None:
        raise NotMedSP("not a MedSP log: its task metadata has no medsp_judge")
    found = sample_files.sample_dicts(str(path), header, events=events, lean=lean, records=records)
    return ParsedLog(str(path), header, found, events)


def drop_records(parsed: ParsedLog) -> None:
    """Drop the scenario records a parse kept (``parse_log(records=True)``) from its samples,
    as a lean read has none."""
    for sample in parsed.samples or []:
        sample["metadata"].pop(METADATA_KEY, None)


def parsed_run(parsed: ParsedLog, *, require_scores: bool = True) -> MedspRun:
    """The second half of :func:`read_log`: the typed run of a parsed log.

    Raises:
        NotMedSP: With ``require_scores``, none of the samples has a MedSP score or an error.
    """
    if parsed.samples is None:  # not a zip this reader knows: Inspect's own reader
        skipped = HEAVY_FIELDS - {"events"} if parsed.events else HEAVY_FIELDS
        samples: Iterable[EvalSample] = read_eval_log_samples(
            parsed.path, all_samples_required=False, exclude_fields=set(skipped)
        )
        run = run_of(parsed.header, samples, require_scores=require_scores)
    else:
        run = _run(parsed.header, [sample_of(d) for d in parsed.samples], require_scores)
    return run.model_copy(update={"path": parsed.path, "digests": dict(parsed.digests or {})})


def sample_of(data: Mapping[str, Any]) -> MedspSample:
    """The typed view of one logged sample read as plain JSON (:func:`read_sample`'s reading,
    without validating the parts the view does not keep: messages, events, attachments)."""
    scores = {k: Score.model_validate(v) for k, v in (data.get("scores") or {}).items()}
    score = scores.get(SCORER)
    medsp_score = None if score is None else _medsp_score(score, ScoreMetadata.read(score.metadata))
    lean = bool(data.get(LEAN_MARK))
    if score is not None and lean:  # the typed score keeps the items
        kept = {k: v for k, v in (score.metadata or {}).items() if k in LEAN_RAW}
        scores[SCORER] = score.model_copy(update={"metadata": kept})
    store = dict(data.get("store") or {})
    error = data.get("error")
    events = data.get("events")
    sample = MedspSample(
        id=str(data["id"]),
        epoch=int(data.get("epoch") or 1),
        metadata=SampleMetadata.model_validate(data.get("metadata") or {}),
        store=store,
        score=medsp_score,
        error=str(error.get("message")) if isinstance(error, Mapping) else error,
        model_usage={
            k: ModelUsage.model_validate(v) for k, v in (data.get("model_usage") or {}).items()
        },
        role_usage={
            k: ModelUsage.model_validate(v) for k, v in (data.get("role_usage") or {}).items()
        },
        calls=sample_files.model_calls(events) if events else data.get("calls"),
        scores=scores,
    )
    if lean:
        encounter = data.get("encounter")
        sample._recorded = (
            None if encounter is None else RecordedEncounter.model_validate(encounter)
        )
        if medsp_score is not None and medsp_score.metadata.items:
            sample._item_rows = tuple(map(_item_row, medsp_score.metadata.items))
            medsp_score.metadata.items = []
    return sample


def _metrics(log: EvalLog) -> dict[str, float] | None:
    if log.results is None:
        return None
    for score in log.results.scores:
        if score.name == SCORER or score.scorer == SCORER:
            return {k: float(m.value) for k, m in score.metrics.items()}
    return None
