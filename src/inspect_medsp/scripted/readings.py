"""The scripted environment's answer to each action, read by what the action says.

A script lists the scripted clinician's actions turn by turn, and the environment's feedback
for each turn. A person (or another model) in the clinician's chair orders other things, in
another order and at other turns, so the scripted environment does not answer by position:
each action is matched by its words to the scripted action it names (anywhere in the script,
the nearest turn first), and answered with that action's reading, status and feedback lines.
An action the script does not know is answered with a neutral "noted". A turn whose actions
are exactly the script's is answered exactly as scripted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from inspect_medsp.record import ActionStatus
from inspect_medsp.scripted.recognise import fold
from inspect_medsp.scripted.scripts import ScenarioScript, load_scripts

STEM = 5
"""Letters of a word compared (``cannula`` and ``cannulas`` are one word)."""
MIN_SHARED = 2
"""Words an action must share with a scripted action to be read as it."""
_WORD = re.compile(r"[a-z]+|\d+(?:\.\d+)?")
_COMMON = frozenset(
    {"the", "and", "for", "with", "into", "his", "her", "him", "its", "now", "then", "from"}
    | {"give", "nurse", "please", "start", "order", "check", "all", "their", "your", "our"}
    | {"this", "that", "two", "one", "are", "was", "per"}
)
_ACTIONS = re.compile(r"^Clinician actions \(numbered\):\n(.*?)\nEnd of stage", re.S | re.M)
_NUMBERED = re.compile(r"^\d+\.\s+(.*)$")


def words(text: str) -> frozenset[str]:
    """The words of ``text`` that name something (short and common words left out), each cut
    to :data:`STEM` letters; numbers kept whole."""
    found = _WORD.findall(fold(text))
    return frozenset(
        w if w[0].isdigit() else w[:STEM]
        for w in found
        if w not in _COMMON and (w[0].isdigit() or len(w) >= 3)
    )


@dataclass(frozen=True)
class Known:
    """A scripted action with the environment's answer to it."""

    turn: int
    """The script's turn it is in (0-based)."""
    action: str
    status: ActionStatus
    feedback: tuple[str, ...]
    """The feedback lines of its turn that speak of it."""


def known_actions(script: ScenarioScript) -> tuple[Known, ...]:
    """Every scripted action, each with the feedback lines of its turn that share the most
    words with it (a line sharing none with any action belongs to none)."""
    shipped = load_scripts().get(script.scenario)
    return _known(script.scenario) if shipped is script else _read_known(script)


@cache
def _known(scenario: str) -> tuple[Known, ...]:
    return _read_known(load_scripts()[scenario])


def _read_known(script: ScenarioScript) -> tuple[Known, ...]:
    out: list[Known] = []
    for index, turn in enumerate(script.turns):
        actions = turn.clinician.actions
        statuses = turn.environment.statuses or []
        lines: dict[int, list[str]] = {i: [] for i in range(len(actions))}
        for line in turn.environment.feedback:
            shared = [len(words(line) & words(a)) for a in actions]
            if shared and max(shared) > 0:
                lines[shared.index(max(shared))].append(line)
        for i, action in enumerate(actions):
            status = statuses[i] if i < len(statuses) else "executed"
            out.append(Known(index, action, status, tuple(lines[i])))
    return tuple(out)


def read_action(action: str, script: ScenarioScript, turn: int) -> Known | None:
    """The scripted action ``action`` names, or None: the one sharing the most words with
    it (at least :data:`MIN_SHARED`), on a tie the one nearest the script's turn ``turn``."""
    mine = words(action)
    best: tuple[int, int, Known] | None = None
    for known in known_actions(script):
        shared = len(mine & words(known.action))
        if shared < MIN_SHARED:
            continue
        rank = (shared, -abs(known.turn - turn))
        if best is None or rank > best[:2]:
            best = (*rank, known)
    return best[2] if best is not None else None


def turn_actions(prompt: str) -> list[str]:
    """The clinician's actions of a turn, from the environment's turn prompt."""
    found = _ACTIONS.search(prompt)
    if found is None:
        return []
    return [
        m.group(1).strip() for line in found.group(1).splitlines() if (m := _NUMBERED.match(line))
    ]


@dataclass(frozen=True)
class Readings:
    """The environment's answer to a turn's actions: the feedback lines and one assessment
    per action."""

    feedback: list[str]
    assessments: list[dict[str, object]]


def readings(actions: list[str], script: ScenarioScript, turn: int) -> Readings:
    """How the scripted environment answers ``actions`` at the script's turn ``turn``
    (0-based): exactly as scripted when they are the script's own, else each by its words."""
    scripted = script.turns[turn] if turn < len(script.turns) else None
    if scripted is not None and actions == scripted.clinician.actions:
        statuses = scripted.environment.statuses or []
        return Readings(
            list(scripted.environment.feedback),
            [
                _assessment(
                    i, action, statuses[i] if i < len(statuses) else "executed", "as ordered"
                )
                for i, action in enumerate(actions)
            ],
        )
    feedback: list[str] = []
    assessments: list[dict[str, object]] = []
    for i, action in enumerate(actions):
        known = read_action(action, script, turn)
        if known is None:
            feedback.append(f"Noted: {action.rstrip('.')}.")
            assessments.append(
                _assessment(i, action, "pending", "not in the demo's script: noted, no result")
            )
            continue
        lines = [line for line in known.feedback if line not in feedback]
        feedback += lines or ([] if known.feedback else [f"Done: {known.action}."])
        assessments.append(_assessment(i, known.action, known.status, "read as a scripted action"))
    return Readings(feedback, assessments)


def _assessment(index: int, reading: str, status: str, why: str) -> dict[str, object]:
    return {
        "action": index + 1,
        "interpreted_action": reading,
        "status": status,
        "rationale": f"scripted: {why}",
    }
