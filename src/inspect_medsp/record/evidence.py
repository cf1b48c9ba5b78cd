"""Where a grader's quoted evidence comes from in the encounter.

The grader quotes the record it read (``render.py``): the clinician's words and actions (each
action with the environment's reading of it beside it), the patient side's words and the
environment's reports. A quote is traced to its line, so the checklist can say which turn and
whose line it is (``T3 action: ...``), and practice feedback can show a person their own
words (``human/evidence.py``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from inspect_medsp.record.render import reading
from inspect_medsp.record.trajectory import ActionRecord, Trajectory

Whose = Literal["said", "did", "patient", "environment"]

LABELS: dict[Whose, str] = {
    "said": "says",
    "did": "action",
    "patient": "patient side",
    "environment": "environment",
}
"""How a cited line names whose it is: ``T2 says: ...``, ``T2 action: ...``."""
_CITED = re.compile(rf"^\s*T\d+ ({'|'.join(LABELS.values())}): ")
"""A quote that already cites its turn and whose line it is (``T3 action: ...``), as the
scripted demo's grader writes them."""

MIN_CHARS = 4
"""Shorter quotes or lines are too common to say where a quote came from."""
NO_EVIDENCE = frozenset({"", "none", "n/a", "-", "no evidence"})

_MARKUP = re.compile(r"[*_`#>~]+")
_QUOTES = "\"'\u201c\u201d\u2018\u2019.\u2026"
"""Straight and curly quotes, full stops and the ellipsis, stripped from a quote's ends."""
_ENDS = re.compile(rf"^[\s{_QUOTES}]+|[\s{_QUOTES}]+$")


def fold(text: str) -> str:
    """Text compared loosely: markup, quotes, ellipses, case and spacing folded away."""
    return " ".join(_ENDS.sub("", _MARKUP.sub(" ", text)).casefold().split())


@dataclass(frozen=True)
class Line:
    """One line of the encounter the grader may have quoted."""

    whose: Whose
    turn: int
    text: str
    """The line as it happened (the person's words or action as typed)."""
    rendered: str
    """The line as the grader read it."""
    reading: str = ""
    """For an action: the environment's reading of it, when that differs from the action."""


def encounter_lines(traj: Trajectory) -> list[Line]:
    """Every line of the encounter, the person's first (their words, then their actions with
    the environment's reading), then the patient side's and the environment's."""
    own: list[Line] = []
    others: list[Line] = []
    for entry in traj.transcript:
        if entry.kind == "clinician_speech":
            own.append(Line("said", entry.turn, entry.text, f"Clinician says: {entry.text}"))
        elif entry.kind == "patient":
            who = "Patient" if entry.speaker == "patient" else entry.speaker
            others.append(Line("patient", entry.turn, entry.text, f"{who} says: {entry.text}"))
        elif entry.kind in ("environment_feedback", "system_event"):
            label = "Environment" if entry.kind == "environment_feedback" else "Event"
            others.append(Line("environment", entry.turn, entry.text, f"{label}: {entry.text}"))
    own += [_action(a) for a in traj.action_log]
    return own + others


def _action(action: ActionRecord) -> Line:
    """An action as the grader read it: the person's words with the environment's reading
    beside them (``record/render.py``)."""
    interpreted = action.interpreted_action
    rendered = f"Clinician action: {action.raw} {reading(action)}"
    differs = bool(interpreted) and fold(interpreted) != fold(action.raw)
    return Line("did", action.turn, action.raw, rendered, interpreted if differs else "")


def source(quote: str, lines: list[Line]) -> Line | None:
    """The line ``quote`` comes from: the first line holding the whole quote (the person's
    lines first), else the longest line the quote holds; None when it is no line's."""
    q = fold(_CITED.sub("", quote))
    if len(q) < MIN_CHARS:
        return None
    for line in lines:
        if q in fold(line.text) or q in fold(line.rendered):
            return line
    held = [line for line in lines if len(fold(line.text)) >= MIN_CHARS and fold(line.text) in q]
    return max(held, key=lambda line: len(line.text)) if held else None


EVIDENCE_CHARS = 200
"""The longest evidence the checklist shows; a longer quote is cut at a word."""


def clip(text: str, limit: int = EVIDENCE_CHARS) -> str:
    """``text`` cut to at most ``limit`` characters at a word boundary, ending in "…"."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    cut = cut[: cut.rfind(" ")] if " " in cut else cut
    return cut.rstrip(" ,;:.") + "…"


def cited(quote: str, lines: list[Line]) -> str:
    """The evidence as the checklist shows it: the quote after its turn and whose line it is
    (``T3 action: ...``), cut at a word; as the grader wrote it when it already cites a turn
    or is no line of the encounter (a note of the grader's own)."""
    text = " ".join(quote.split())
    if fold(text) in NO_EVIDENCE or _CITED.match(text):
        return clip(text)
    line = source(text, lines)
    if line is None:
        return clip(text)
    return clip(f"T{line.turn} {LABELS[line.whose]}: {text}")
