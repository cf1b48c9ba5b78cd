"""The numbers behind the paper's views: completion by specialty, by the clinician's input
length, by case metadata (department, urgency, patient sex and age group) and by strategy.

Every interval is the scorer's own case-clustered t interval (:func:`completion_summary`) over
the scored samples of the cell; the CSV files and the figures are both made from these records.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence

from pydantic import BaseModel

from inspect_medsp.data import COMPETENCIES
from inspect_medsp.record import MedspSample
from inspect_medsp.report.rows import scenario_rows
from inspect_medsp.scoring import completion_summary

SMALL_SPECIALTY = 10
"""A specialty with fewer scored scenarios than this is flagged in the figure and tables."""

TOKEN_BINS = 5
"""Bins of equal sample count for the input-length view (fewer when values repeat)."""

TOP_CATEGORIES = 12
"""Categories of a metadata field shown one by one; the rest are pooled into one row."""

UNSPECIFIED = "(unspecified)"
NOT_GIVEN = "(not given)"


class Cell(BaseModel):
    """Macro completion of one group over some of its scored samples, with its interval."""

    group: str
    n: int
    """Scored samples (scenario and epoch)."""
    scenarios: int
    cases: int
    macro: float
    ci_low: float
    ci_high: float


def cell(group: str, samples: Sequence[MedspSample]) -> Cell | None:
    """The cell of ``samples`` (only scored ones with counts count); None if there are none."""
    scored = [s for s in samples if s.scored and "overall" in s.counts]
    if not scored:
        return None
    summary = completion_summary({"overall": scenario_rows(scored)["overall"]}, "macro")
    return Cell(
        group=group,
        n=len(scored),
        scenarios=len({s.id for s in scored}),
        cases=len({s.case_id for s in scored}),
        macro=summary["macro"],
        ci_low=summary["macro_ci_low"],
        ci_high=summary["macro_ci_high"],
    )


# --- specialty ------------------------------------------------------------------------


class SpecialtyScore(BaseModel):
    """One group's macro completion in one specialty (``mean`` is the macro)."""

    group: str
    specialty: str
    mean: float
    n: int
    scenarios: int
    cases: int
    ci_low: float
    ci_high: float
    small: bool
    """Fewer than :data:`SMALL_SPECIALTY` scored scenarios: read with care."""
    sources: str
    """Where the labels came from, e.g. ``data`` or ``mockllm/model``, joined by ``; ``."""


def specialty_scores(group: str, samples: Sequence[MedspSample]) -> list[SpecialtyScore]:
    """Macro with its interval per specialty, over the group's scored samples."""
    by: dict[str, list[MedspSample]] = defaultdict(list)
    for s in samples:
        if s.scored:
            by[s.specialty or UNSPECIFIED].append(s)
    out = []
    for name, members in sorted(by.items()):
        c = cell(group, members)
        if c is None:
            continue
        sources = sorted({s.specialty_source or "none" for s in members})
        out.append(
            SpecialtyScore(
                group=group,
                specialty=name,
                mean=c.macro,
                n=c.n,
                scenarios=c.scenarios,
                cases=c.cases,
                ci_low=c.ci_low,
                ci_high=c.ci_high,
                small=c.scenarios < SMALL_SPECIALTY,
                sources="; ".join(sources),
            )
        )
    return out


def specialty_sources(samples: Sequence[MedspSample]) -> dict[str, int]:
    """Scenarios by where their specialty came from (``none``: no specialty at all)."""
    seen: dict[str, str] = {}
    for s in samples:
        seen.setdefault(s.id, s.specialty_source or ("data" if s.specialty else "none"))
    return dict(Counter(seen.values()))


# --- input length -----------------------------------------------------------------------


class TokenBin(BaseModel):
    """One group's macro in one bin of the clinician's input tokens (thousands)."""

    group: str
    bin: int
    low_k: float
    high_k: float
    mean_k: float
    """The group's mean input length in the bin, in thousands of tokens."""
    n: int
    macro: float
    ci_low: float
    ci_high: float


def token_edges(values: Sequence[int], bins: int = TOKEN_BINS) -> list[float]:
    """Bin edges at quantiles of ``values`` (equal counts), without repeats."""
    ordered = sorted(values)
    if not ordered:
        return []
    k = max(1, min(bins, len(set(ordered))))
    edges = [float(ordered[min(len(ordered) - 1, (len(ordered) * i) // k)]) for i in range(k)]
    edges.append(float(ordered[-1]))
    return sorted(set(edges)) if len(set(edges)) > 1 else [edges[0], edges[0]]


def bin_ranges(edges: Sequence[float]) -> list[str]:
    """``low to <high`` per bin (edges in thousands; the last bin includes its high edge, so
    ``low to high``), with as few decimals as keep the edges apart; no two labels overlap."""
    shown = [f"{e:.3f}" for e in edges]
    for digits in range(4):
        candidate = [f"{e:.{digits}f}" for e in edges]
        if len(set(candidate)) == len(set(edges)):
            shown = candidate
            break
    pairs = list(itertools.pairwise(shown))
    return [f"{a} to {'' if i == len(pairs) - 1 else '<'}{b}" for i, (a, b) in enumerate(pairs)]


def _bin_of(value: float, edges: Sequence[float]) -> int:
    for i in range(len(edges) - 2, -1, -1):
        if value >= edges[i]:
            return i
    return 0


def token_bins(groups: Sequence[tuple[str, Sequence[MedspSample]]]) -> list[TokenBin]:
    """Each group's macro per bin of its own input lengths (equal counts within the group):
    groups that read very different amounts (a best-of-N strategy reads several times what
    ``off`` does) are never cut into bins that hold one group's encounters only, so a line
    through a group's bins shows length within that group, not the difference between
    groups."""
    out: list[TokenBin] = []
    for label, samples in groups:
        known = [s for s in samples if s.scored and s.clinician_input_tokens is not None]
        edges = token_edges([s.clinician_input_tokens or 0 for s in known])
        if not edges:
            continue
        by: dict[int, list[MedspSample]] = defaultdict(list)
        for s in known:
            by[_bin_of(s.clinician_input_tokens or 0, edges)].append(s)
        for b, members in sorted(by.items()):
            c = cell(label, members)
            if c is None:
                continue
            tokens = [s.clinician_input_tokens or 0 for s in members]
            out.append(
                TokenBin(
                    group=label,
                    bin=b,
                    low_k=edges[b] / 1000,
                    high_k=edges[b + 1] / 1000,
                    mean_k=sum(tokens) / len(tokens) / 1000,
                    n=c.n,
                    macro=c.macro,
                    ci_low=c.ci_low,
                    ci_high=c.ci_high,
                )
            )
    return out


# --- case metadata ----------------------------------------------------------------------

_MALE = {"male", "m", "man", "boy"}
_FEMALE = {"female", "f", "woman", "girl"}
_YEARS = re.compile(r"(\d+(?:\.\d+)?)\s*-?\s*(?:years?|yrs?|y/?o\b|y\b)")
_UNDER_ONE = re.compile(r"\d+\s*-?\s*(?:months?|mos?\b|weeks?|wks?|days?|hours?)")
_BARE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*s?\s*")
_CHILD_WORDS = ("newborn", "neonate", "infant", "toddler", "child", "baby")
AGE_GROUPS = ("0-17", "18-39", "40-64", "65+")


def patient_sex(text: str) -> str:
    """``female``, ``male`` or the text as given (lower case)."""
    value = " ".join(text.lower().split())
    if value in _MALE:
        return "male"
    if value in _FEMALE:
        return "female"
    return value


def age_group(text: str) -> str:
    """One of :data:`AGE_GROUPS` from free text (``"45"``, ``"6-year-old"``, ``"18 months"``),
    or ``(not given)`` when no age can be read."""
    value = text.lower()
    match = _YEARS.search(value) or _BARE.fullmatch(value)
    if match is not None:
        years = float(match.group(1))
    elif _UNDER_ONE.search(value) or any(w in value for w in _CHILD_WORDS):
        years = 0.0
    else:
        return NOT_GIVEN
    if years < 18:
        return "0-17"
    if years < 40:
        return "18-39"
    return "40-64" if years < 65 else "65+"


def _free_text(text: str) -> str:
    """Spaces normalised and the first letter upper case; the rest as written."""
    value = " ".join(text.split())
    return value[:1].upper() + value[1:]


BREAKDOWN_FIELDS: dict[str, tuple[str, Callable[[str], str]]] = {
    "department": ("department", _free_text),
    "urgency": ("urgency_level", lambda t: " ".join(t.lower().split())),
    "patient sex": ("patient_gender", patient_sex),
    "age group": ("patient_age", age_group),
}
"""Breakdown name: (case metadata key, how a value becomes a category)."""


class Breakdown(Cell):
    """One group's macro in one category of one case-metadata field."""

    field: str
    category: str


def _category_order(field: str, totals: Counter[str]) -> list[str]:
    if field == "age group":
        return [a for a in (*AGE_GROUPS, NOT_GIVEN) if a in totals]
    named = sorted((c for c in totals if c != NOT_GIVEN), key=lambda c: (-totals[c], c))
    return named + ([NOT_GIVEN] if NOT_GIVEN in totals else [])


def breakdowns(groups: Sequence[tuple[str, Sequence[MedspSample]]]) -> list[Breakdown]:
    """Macro per category of each case-metadata field some sample carries.

    A sample without the field counts under ``(not given)``; beyond :data:`TOP_CATEGORIES`
    named categories (by scenarios over all groups) the rest are pooled into one row.
    """
    out: list[Breakdown] = []
    scored = [(g, [s for s in samples if s.scored]) for g, samples in groups]
    for field, (key, categorise) in BREAKDOWN_FIELDS.items():
        if not any(key in s.case_meta for _, samples in scored for s in samples):
            continue

        def category_of(
            s: MedspSample, key: str = key, fn: Callable[[str], str] = categorise
        ) -> str:
            raw = s.case_meta.get(key, "")
            return fn(raw) if raw.strip() else NOT_GIVEN

        ids: dict[str, set[str]] = defaultdict(set)
        for _, samples in scored:
            for s in samples:
                ids[category_of(s)].add(s.id)
        totals = Counter({c: len(v) for c, v in ids.items()})
        order = _category_order(field, totals)
        named = [c for c in order if c != NOT_GIVEN]
        kept = set(named[:TOP_CATEGORIES]) | {NOT_GIVEN}
        rest = named[TOP_CATEGORIES:]
        pooled = f"{len(rest)} other categories"
        shown = [c for c in order if c in kept]
        if rest:
            shown.insert(len([c for c in shown if c != NOT_GIVEN]), pooled)
        for label, samples in scored:
            by: dict[str, list[MedspSample]] = defaultdict(list)
            for s in samples:
                category = category_of(s)
                by[category if category in kept else pooled].append(s)
            for category in shown:
                c = cell(label, by.get(category, []))
                if c is None:
                    continue
                out.append(Breakdown(**c.model_dump(), field=field, category=category))
    return out


# --- strategy -------------------------------------------------------------------------


class StrategyCell(BaseModel):
    """One competency's macro for one group, in a comparison of test-time strategies."""

    group: str
    clinician: str
    strategy: str
    competency: str
    macro: float | None


def strategy_cells(groups: Sequence[tuple[str, str, str, dict[str, float]]]) -> list[StrategyCell]:
    """Competency macros of every group, when the groups differ by strategy (else none).

    Args:
        groups: (label, clinician, strategy, metrics) per group.
    """
    if len({strategy for _, _, strategy, _ in groups}) < 2:
        return []
    ordered = sorted(groups, key=lambda g: (g[1], g[2], g[0]))
    return [
        StrategyCell(
            group=label,
            clinician=clinician,
            strategy=strategy,
            competency=c,
            macro=metrics.get("macro" if c == "overall" else f"{c}_macro"),
        )
        for label, clinician, strategy, metrics in ordered
        for c in ("overall", *COMPETENCIES)
        if c != "overall" or "macro" in metrics
    ]
