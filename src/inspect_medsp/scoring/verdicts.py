"""Match a judge's reply to rubric items: exact text, normalised text, then item number."""

from __future__ import annotations

import re
import unicodedata
from typing import Any, Literal

from pydantic import BaseModel, Field

from inspect_medsp.data.models import COMPETENCIES, Competency, RubricItem

MatchedBy = Literal["exact", "normalised", "number", "other_competency", "unjudged"]

_NUMBER_KEY = re.compile(
    r"^\s*(?:item\s*#?\s*(\d+)|\[(\d+)\]|#(\d+)|(\d+)(?=\s*$|[.)]\s))\s*[.:)-]?\s*(.*)$",
    re.I | re.S,
)
_MARKDOWN = re.compile(r"[*_`#>~]+")
_PUNCT = re.compile(r"[^\w\s]", re.UNICODE)
_TRUE = {"true", "yes", "met", "done", "completed", "y", "1", "pass"}
_FALSE = {"false", "no", "not met", "missed", "n", "0", "fail"}


class Verdict(BaseModel):
    """One rubric item's outcome."""

    number: int
    competency: Competency
    text: str
    met: bool
    judged: bool
    evidence: str = ""
    matched_by: MatchedBy = "unjudged"


class Matching(BaseModel):
    """The verdicts found in one judge reply."""

    verdicts: dict[int, Verdict] = Field(default_factory=dict)
    ignored_keys: list[str] = Field(default_factory=list)


def normalise(text: str) -> str:
    """Case, markdown, punctuation and whitespace folded away."""
    text = unicodedata.normalize("NFKC", text).casefold()
    text = _MARKDOWN.sub(" ", text)
    text = _PUNCT.sub(" ", text)
    return " ".join(text.split())


def read_value(value: Any) -> tuple[bool, str] | None:
    """A verdict value: a boolean, a yes/no word, or ``{"met": ..., "evidence": ...}``."""
    if isinstance(value, bool):
        return value, ""
    if isinstance(value, str):
        word = value.strip().casefold()
        if word in _TRUE:
            return True, ""
        if word in _FALSE:
            return False, ""
        return None
    if isinstance(value, dict):
        for key in ("met", "verdict", "value", "completed", "result"):
            if key in value:
                inner = read_value(value[key])
                if inner is not None:
                    evidence = value.get("evidence") or value.get("quote") or ""
                    return inner[0], str(evidence)
    return None


def match_reply(data: dict[str, Any], items: list[RubricItem]) -> Matching:
    """Find a verdict for as many ``items`` as the reply allows; first verdict per item wins."""
    by_number = {i.number: i for i in items}
    exact = {(i.competency, i.text): i for i in items}
    exact_any: dict[str, RubricItem] = {}
    norm: dict[tuple[Competency, str], RubricItem] = {}
    norm_any: dict[str, RubricItem] = {}
    for item in items:
        exact_any.setdefault(item.text, item)
        norm.setdefault((item.competency, normalise(item.text)), item)
        norm_any.setdefault(normalise(item.text), item)

    out = Matching()
    for competency in COMPETENCIES:
        section = data.get(competency)
        if not isinstance(section, dict):
            continue
        for key, value in section.items():
            parsed = read_value(value)
            found, how = _find(str(key), competency, exact, norm, by_number, exact_any, norm_any)
            if parsed is None or found is None or found.number in out.verdicts:
                out.ignored_keys.append(f"{competency}: {key}")
                continue
            out.verdicts[found.number] = Verdict(
                number=found.number,
                competency=found.competency,
                text=found.text,
                met=parsed[0],
                judged=True,
                evidence=parsed[1],
                matched_by=how,
            )
    return out


def _find(
    key: str,
    competency: Competency,
    exact: dict[tuple[Competency, str], RubricItem],
    norm: dict[tuple[Competency, str], RubricItem],
    by_number: dict[int, RubricItem],
    exact_any: dict[str, RubricItem],
    norm_any: dict[str, RubricItem],
) -> tuple[RubricItem | None, MatchedBy]:
    if (competency, key) in exact:
        return exact[(competency, key)], "exact"
    if (competency, normalise(key)) in norm:
        return norm[(competency, normalise(key))], "normalised"
    numbered = _NUMBER_KEY.match(key)
    if numbered is not None:
        rest = numbered.group(5).strip()
        if rest and (competency, normalise(rest)) in norm:
            return norm[(competency, normalise(rest))], "normalised"
        number = next(g for g in numbered.groups()[:4] if g is not None)
        item = by_number.get(int(number))
        if item is not None:
            return item, "number"
    if key in exact_any:
        return exact_any[key], "other_competency"
    if normalise(key) in norm_any:
        return norm_any[normalise(key)], "other_competency"
    return None, "unjudged"


def unjudged(item: RubricItem) -> Verdict:
    """An item the judge never gave a verdict for: counted as not completed."""
    return Verdict(
        number=item.number,
        competency=item.competency,
        text=item.text,
        met=False,
        judged=False,
        matched_by="unjudged",
    )
