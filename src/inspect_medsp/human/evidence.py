"""A grader's quoted evidence told to the person in practice feedback.

The quote is traced to its line of the encounter (``record/evidence.py``). The person sees
their own words or action, with the turn, when the quote is theirs; anything else is named for
whose it is, and the environment's reading of an action is never shown as the person's doing.
"""

from __future__ import annotations

from inspect_medsp.record import NO_EVIDENCE, Line, fold, source


def told(quote: str, lines: list[Line]) -> str:
    """The evidence as the person reads it: their own words or action with the turn, or
    whose the quoted line is; empty when the grader gave none."""
    if fold(quote) in NO_EVIDENCE:
        return ""
    line = source(quote, lines)
    if line is None:
        return f'the grader\'s note (not a line of the encounter): "{quote.strip()}"'
    if line.whose == "said":
        return f'you said (turn {line.turn}): "{line.text}"'
    if line.whose == "did":
        own = f'you did (turn {line.turn}): "{line.text}"'
        if line.reading:
            own += f'; the environment read it as: "{line.reading}" (its words, not yours)'
        return own
    if line.whose == "patient":
        return f'not yours: the patient side said (turn {line.turn}): "{line.text}"'
    return f'not yours: the environment reported (turn {line.turn}): "{line.text}"'
