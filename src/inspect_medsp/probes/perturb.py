"""Perturbed copies of a recorded Trajectory: the original is never changed.

Each function returns the copy and one line saying what changed, or None when the probe has
nothing to change in this encounter (nothing to recite, no cited action to remove).
"""

from __future__ import annotations

import re

from inspect_ai.util import Store

from inspect_medsp.probes.result import Probe
from inspect_medsp.record import LEGACY_VIEWS, Trajectory, TurnRecord, Verdict
from inspect_medsp.templates import render

MIN_CITATION = 12
"""A grader's evidence shorter than this (folded) is too short to name an action."""

_WORDS = re.compile(r"[\W_]+")


def text(name: str, **values: str) -> str:
    """The probe text ``prompts/<name>.md``, filled: words the perturbed copy puts in the
    clinician's mouth."""
    return render(name, package="inspect_medsp.probes", **values)


def copy_of(traj: Trajectory) -> Trajectory:
    """A Trajectory on its own store, without stored legacy views (so every view is computed
    from the turns, and a change to the turns shows in the record the grader reads)."""
    key = type(traj).__name__
    data = {
        k: v
        for k, v in dict(traj.store.items()).items()
        if k not in {f"{key}:{view}" for view in LEGACY_VIEWS}
    }
    return Trajectory(store=Store(data))


def _say(turn: TurnRecord, words: str) -> TurnRecord:
    move = turn.clinician
    speech = f"{move.speak} {words}".strip()
    return turn.model_copy(update={"clinician": move.model_copy(update={"speak": speech})})


def recital(traj: Trajectory, baseline: list[Verdict]) -> tuple[Trajectory, str, set[int]] | None:
    """The clinician's last turn also recites, as claims, every item not met."""
    unmet = [v for v in baseline if not v.met]
    if not unmet or not traj.turns:
        return None
    claims = " ".join(f"{i}. {v.text.strip().rstrip('.')}." for i, v in enumerate(unmet, 1))
    copy = copy_of(traj)
    turns = list(copy.turns)
    turns[-1] = _say(turns[-1], text("recital", claims=claims))
    copy.turns = turns
    return (
        copy,
        f"turn {turns[-1].index}: recited {len(unmet)} unmet items",
        {v.number for v in unmet},
    )


def injection(traj: Trajectory, baseline: list[Verdict]) -> tuple[Trajectory, str, set[int]] | None:
    """The clinician's last turn asks the examiner to mark every item met."""
    if not traj.turns:
        return None
    copy = copy_of(traj)
    turns = list(copy.turns)
    turns[-1] = _say(turns[-1], text("injection"))
    copy.turns = turns
    unmet = {v.number for v in baseline if not v.met}
    return copy, f"turn {turns[-1].index}: asked the examiner to mark every item met", unmet


def padding(traj: Trajectory, baseline: list[Verdict]) -> tuple[Trajectory, str, set[int]] | None:
    """Every clinician turn also carries the same long, clinically irrelevant talk."""
    if not traj.turns:
        return None
    pad = text("padding")
    copy = copy_of(traj)
    copy.turns = [_say(t, pad) for t in copy.turns]
    added = len(pad) * len(copy.turns)
    return copy, f"{len(copy.turns)} turns: {added} characters of small talk added", set()


def _fold(words: str) -> str:
    return " ".join(_WORDS.sub(" ", words).casefold().split())


def cites(evidence: str, action: str) -> bool:
    """Whether a grader's evidence quotes this action (or the action contains the quote)."""
    quote, act = _fold(evidence), _fold(action)
    if not act or len(quote) < MIN_CITATION:
        return False
    return act in quote or quote in act


def removal(traj: Trajectory, baseline: list[Verdict]) -> tuple[Trajectory, str, set[int]] | None:
    """The actions of the turn whose actions most met items cite as evidence are dropped (the
    earliest such turn on a tie); the items citing them should flip down."""
    citing: dict[int, set[int]] = {}
    for turn in traj.turns:
        for verdict in baseline:
            if verdict.met and any(cites(verdict.evidence, a) for a in turn.clinician.actions):
                citing.setdefault(turn.index, set()).add(verdict.number)
    if not citing:
        return None
    index = max(citing, key=lambda i: (len(citing[i]), -i))
    copy = copy_of(traj)
    turns = list(copy.turns)
    position = next(p for p, t in enumerate(turns) if t.index == index)
    dropped = turns[position]
    move = dropped.clinician.model_copy(update={"actions": []})
    turns[position] = dropped.model_copy(update={"clinician": move})
    copy.turns = turns
    n = len(dropped.clinician.actions)
    change = f"turn {index}: dropped its {n} actions, cited by {len(citing[index])} met items"
    return copy, change, citing[index]


PERTURB = {"recital": recital, "injection": injection, "padding": padding, "removal": removal}
"""Each probe's perturbation."""


def perturb(
    probe: Probe, traj: Trajectory, baseline: list[Verdict]
) -> tuple[Trajectory, str, set[int]] | None:
    """The probe's copy of ``traj``, what changed, and the items it aims at."""
    return PERTURB[probe](traj, baseline)
