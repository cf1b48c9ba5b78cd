"""The panel's replies read tolerantly: the specialties the clinician model names (trimmed or
padded to the panel's size from a fallback list) and a specialist's vote."""

from __future__ import annotations

import re
from typing import Any

from inspect_medsp.record import PanelReading, Vote
from inspect_medsp.strategies.common import read_object

FALLBACK_SPECIALTIES: tuple[str, ...] = (
    "Internal Medicine",
    "Emergency Medicine",
    "General Surgery",
    "Pediatrics",
    "Psychiatry",
    "Obstetrics and Gynecology",
    "Neurology",
    "Cardiology",
    "Clinical Pharmacology",
    "Family Medicine",
)
"""Used, in order, to fill a panel the clinician model did not name in full."""

_AGREE = {"agree", "agreed", "yes", "true", "approve", "approved", "accept"}
_DISAGREE = {"disagree", "disagreed", "no", "false", "reject", "rejected", "object"}


def _fill(names: list[str], count: int) -> int:
    """Pad ``names`` to ``count`` from the fallback list; returns how many were added."""
    seen = {n.casefold() for n in names}
    added = 0
    round_no = 1
    while len(names) < count:
        for base in FALLBACK_SPECIALTIES:
            if len(names) >= count:
                break
            name = base if round_no == 1 else f"{base} ({round_no})"
            if name.casefold() not in seen:
                names.append(name)
                seen.add(name.casefold())
                added += 1
        round_no += 1
    return added


def parse_specialties(text: str, count: int) -> tuple[list[str], PanelReading]:
    """Read ``{"specialties": [...]}`` tolerantly; trim or pad the panel to ``count``.

    Returns:
        The panel and a record of what was named, trimmed, padded or wrong.
    """
    data, problem = read_object(text)
    names: list[str] = []
    if data is not None:
        value: Any = data.get("specialties")
        if isinstance(value, str):
            value = re.split(r"[,;\n]", value)
        if isinstance(value, list):
            seen: set[str] = set()
            for item in value:
                if isinstance(item, dict):
                    item = item.get("name") or item.get("specialty")
                if isinstance(item, str) and item.strip() and item.strip().casefold() not in seen:
                    names.append(item.strip())
                    seen.add(item.strip().casefold())
        if not names:
            problem = f"no usable 'specialties' in the reply ({value!r})"
    named = len(names)
    names = names[:count]
    padded = _fill(names, count)
    return names, PanelReading(
        raw=text,
        named=named,
        trimmed=max(0, named - count),
        padded=padded,
        fallback=named == 0,
        problem=problem,
    )


def parse_vote(text: str) -> tuple[Vote, str, str]:
    """Read ``{"agree": bool, "advice": str}`` tolerantly.

    Returns:
        The verdict (``abstain`` when the reply is unusable), the advice, and what was wrong.
    """
    data, problem = read_object(text)
    if data is None:
        return "abstain", "", problem
    advice = data.get("advice", "")
    advice = advice if isinstance(advice, str) else str(advice)
    for key in ("agree", "vote", "verdict"):
        value = data.get(key)
        if isinstance(value, bool):
            return ("agree" if value else "disagree"), advice, ""
        word = value.strip().casefold() if isinstance(value, str) else ""
        if word in _AGREE:
            return "agree", advice, ""
        if word in _DISAGREE:
            return "disagree", advice, ""
    return "abstain", advice, "no usable 'agree' in the reply"
