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


def turn_sections(turn: TurnRecord) -> dict[str, str]:
    """The turn's parts, each as Markdown, in reading order: its stage (and its change), what
    the clinician said and did (each action with the controller's reading of it and its
    category and tier cost), what the patient side said, what came back, the patient's status
    and the harness's notes (only when there are any)."""
    env, move = turn.environment, turn.clinician
    index, label, status = turn.end_state
    stage = f"stage {turn.progress_index} `{turn.state_label}`"
    if (index, label) != (turn.progress_index, turn.state_label):
        stage += f" → stage {index} `{label}`"
    ends = " · the clinician ends the stage (eos)" if move.eos else ""
    sections = {"turn": f"**Turn {turn.index}** · {stage}{ends}"}
    if turn.refused:
        sections["clinician"] = "_the provider refused this turn: nothing said or done_"
    else:
        sections["clinician said"] = f"“{move.speak}”" if move.speak else "_nothing_"
        actions = [
            f"{OUTCOME[a.status]} — {a.raw}"
            + (f" _(read as: {a.interpreted_action})_" if a.interpreted_action else "")
            + (f" — {a.rationale}" if a.status != "executed" and a.rationale else "")
            + f" · {mark(a.raw, a.interpreted_action)}"
            for a in turn.actions()
        ]
        sections["clinician did"] = "\n".join(_bullets(actions))
    heard = [f"{who}: {words}" for who, words in turn.patient_lines()]
    sections["patient side said"] = "\n".join(_bullets(heard))
    sections["came back"] = "\n".join(_bullets([*env.feedback, *env.events]))
    sections["patient status"] = status
    if env.should_end:
        sections["the controller ends the encounter"] = env.completion_reason or "yes"
    notes = [*turn.corrections, *(f"{role} reply degraded" for role in turn.degraded)]
    if notes:
        sections["harness notes"] = "\n".join(_bullets(notes))
    return sections


def turn_view(turn: TurnRecord) -> dict[str, str]:
    """The turn's summary as the output of its subtask (``encounter.solver.turn_subtask``):
    :func:`turn_sections` without the heading, which the subtask's title and input say."""
    sections = turn_sections(turn)
    del sections["turn"]
    return sections


def turn_summary(turn: TurnRecord) -> str:
    """The turn as one Markdown text (:func:`turn_sections`, each part under its bold
    heading)."""
    lines: list[str] = []
    for name, text in turn_sections(turn).items():
        if name == "turn":
            lines += [text, ""]
        elif name == "clinician":
            lines += [f"**Clinician:** {text}", ""]
        elif name == "the controller ends the encounter":
            lines[-1:] = [f"**The controller ends the encounter:** {text}", ""]
        elif name in ("clinician said", "patient status"):
            lines += [f"**{name[0].upper()}{name[1:]}:** {text}", ""]
        else:
            lines += [f"**{name[0].upper()}{name[1:]}:**", text, ""]
    return "\n".join(lines).rstrip("\n")


def log_turn(turn: TurnRecord) -> None:
    """Put the turn's summary in the transcript (an info event, source ``turn N``)."""
    transcript().info(turn_summary(turn), source=f"turn {turn.index}")
