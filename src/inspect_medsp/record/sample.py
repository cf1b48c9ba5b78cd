"""One logged sample of a MedSP run, typed (:class:`MedspSample`), and what a reader derives
from it: values and counts, rubric items, the encounter's turns, times and health, tokens by
role."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property
from typing import Any, Literal, TypeVar

from inspect_ai.model import ModelUsage
from inspect_ai.scorer import Score
from pydantic import BaseModel, Field, PrivateAttr

from inspect_medsp.record.items import ItemRow, items_of
from inspect_medsp.record.parts import MedspScore, RecordedEncounter, SampleMetadata
from inspect_medsp.record.result import ScorerResult, result_of, unscored_of
from inspect_medsp.record.sample_files import CLINICIAN
from inspect_medsp.record.score import KEYS, ItemVerdict
from inspect_medsp.record.trajectory import ROLE_NAMES, ReplyHealth, Trajectory
from inspect_medsp.record.usage import RoleSpend

R = TypeVar("R", bound=ScorerResult)

NOT_SCORED = "no_score"
"""The unscored reason of a sample that has no MedSP score at all (a run with ``--no-score``:
score it with ``inspect score LOG --scorer inspect_medsp/medsp_rubric``)."""


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
        private = self.__pydantic_private__  # not through pydantic's __getattr__: some
        assert private is not None  # 150,000 reads in a full-set report
        found: RecordedEncounter | Literal[False] | None = private["_recorded"]
        if found is False:
            found = private["_recorded"] = RecordedEncounter.of(self.store)
        return found

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
        private = self.__pydantic_private__
        assert private is not None
        made = private["_made"]
        if made is None or made[0] is not score or made[1] is not value:
            made = private["_made"] = (score, value, self._values(), self._counts())
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
        rows = self.__pydantic_private__["_item_rows"] if self.__pydantic_private__ else None
        if rows is None:
            return self.score.metadata.items
        return items_of(rows)

    @property
    def item_count(self) -> int:
        """How many rubric items a scored sample has (``len(items)``, without making them)."""
        if self.score is None or not self.scored:
            return 0
        rows = self.__pydantic_private__["_item_rows"] if self.__pydantic_private__ else None
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
