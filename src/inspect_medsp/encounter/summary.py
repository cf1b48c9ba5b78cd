"""One screen per turn in ``inspect view``: an info event, inside the turn's span, that says the
stage, what the clinician said and did, how each action came out, what the patient side said
and what came back, so a reader follows the encounter without unfolding the model calls.

Each order is marked with its category and its cost from the shipped relative-tier table, as the
work-up (``medsp_workup``) decides and prices it without a grading model; a user's own prices
(``-S prices``) only come later, when the work-up scores."""

from __future__ import annotations

from inspect_ai.log import transcript

from inspect_medsp.orders import mark
from inspect_medsp.record import TurnRecord

OUTCOME = {"executed": "✓ executed", "pending": "… pending", "unsupported": "✗ unsupported"}
"""How each action status reads in the summary."""


def _bullets(lines: list[str], empty: str = "nothing") -> list[str]:
    return [f"- {line}" for line in lines] or [f"- _{empty}_"]


def turn_summary(turn: TurnRecord) -> str:
    """The turn as Markdown: stage (and its change), the clinician's words and actions with
    the controller's reading of each and its category and tier cost, the patient side's lines,
    feedback and events, status."""
    env, move = turn.environment, turn.clinician
    index, label, status = turn.end_state
    stage = f"stage {turn.progress_index} `{turn.state_label}`"
    if (index, label) != (turn.progress_index, turn.state_label):
        stage += f" → stage {index} `{label}`"
    ends = " · the clinician ends the stage (eos)" if move.eos else ""
    lines = [f"**Turn {turn.index}** · {stage}{ends}", ""]
    if turn.refused:
        lines += ["**Clinician:** _the provider refused this turn: nothing said or done_", ""]
    else:
        said = f"“{move.speak}”" if move.speak else "_nothing_"
        lines += [f"**Clinician said:** {said}", ""]
        actions = [
            f"{OUTCOME[a.status]} — {a.raw}"
            + (f" _(read as: {a.interpreted_action})_" if a.interpreted_action else "")
            + (f" — {a.rationale}" if a.status != "executed" and a.rationale else "")
            + f" · {mark(a.raw, a.interpreted_action)}"
            for a in turn.actions()
        ]
        lines += ["**Clinician did:**", *_bullets(actions), ""]
    heard = [f"{who}: {words}" for who, words in turn.patient_lines()]
    lines += ["**Patient side said:**", *_bullets(heard), ""]
    lines += ["**Came back:**", *_bullets([*env.feedback, *env.events]), ""]
    lines.append(f"**Patient status:** {status}")
    if env.should_end:
        lines.append(f"**The controller ends the encounter:** {env.completion_reason or 'yes'}")
    notes = [*turn.corrections, *(f"{role} reply degraded" for role in turn.degraded)]
    if notes:
        lines += ["", "**Harness notes:**", *_bullets(notes)]
    return "\n".join(lines)


def log_turn(turn: TurnRecord) -> None:
    """Put the turn's summary in the transcript (an info event, source ``turn N``)."""
    transcript().info(turn_summary(turn), source=f"turn {turn.index}")
