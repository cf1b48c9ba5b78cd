"""What the grader reads: the Trajectory as the encounter record the rubric is marked against,
and the rubric's items as the checklist."""

from __future__ import annotations

import re

from inspect_medsp.data import COMPETENCY_NAMES, Rubric, RubricItem
from inspect_medsp.record.trajectory import ActionRecord, Trajectory

RECORD_TAG = "encounter_record"
_TAG_START = re.compile(rf"<(?=\s*/?\s*{RECORD_TAG})", re.IGNORECASE)
"""The ``<`` of an opening or closing record tag, in any letter case or spacing."""

TRANSCRIPT_HEAD = (
    "TRANSCRIPT (each clinician action with the environment controller's reading of it: "
    "[status; interpreted as ...; rationale])"
)


def _fence(text: str) -> str:
    """Neutralise anything that would close the record tag early."""
    return _TAG_START.sub("&lt;", text)


def reading(action: ActionRecord) -> str:
    """The controller's reading of an action, in brackets: its status, its interpretation
    (left out when it only repeats the action's words) and its rationale."""
    parts: list[str] = [action.status]
    interpreted = action.interpreted_action.strip()
    if interpreted and interpreted != action.raw.strip():
        parts.append(f"interpreted as {interpreted}")
    if action.rationale.strip():
        parts.append(action.rationale.strip())
    return f"[{'; '.join(parts)}]"


def _take(log: list[ActionRecord], raw: str) -> ActionRecord | None:
    """The turn's logged action for this transcript line: the first with the same words, else
    the first left."""
    for i, action in enumerate(log):
        if action.raw == raw:
            return log.pop(i)
    return log.pop(0) if log else None


def render_record(traj: Trajectory) -> str:
    """Transcript (each action once, with the controller's status, interpretation and
    rationale), state history and how the encounter ended."""
    lines: list[str] = [TRANSCRIPT_HEAD]
    by_turn: dict[int, list[ActionRecord]] = {}
    for action in traj.action_log:
        by_turn.setdefault(action.turn, []).append(action)
    turn = 0
    for entry in traj.transcript:
        if entry.turn != turn:
            turn = entry.turn
            lines.append(f"-- turn {turn} --")
        label = {
            "clinician_speech": "Clinician says",
            "clinician_action": "Clinician action",
            "patient": f"{'Patient' if entry.speaker == 'patient' else entry.speaker} says",
            "environment_feedback": "Environment",
            "system_event": "Event",
        }[entry.kind]
        line = f"{label}: {entry.text}"
        if entry.kind == "clinician_action":
            logged = _take(by_turn.get(entry.turn, []), entry.text)
            line += f" {reading(logged)}" if logged else " [not assessed by the controller]"
        lines.append(line)
    if len(lines) == 1:
        lines.append("(nothing was said or done)")
    # an action the log holds and the transcript does not (only in logs of older versions)
    for action in (a for left in by_turn.values() for a in left):
        lines.append(f"turn {action.turn}, Clinician action: {action.raw} {reading(action)}")
    lines.append("")
    lines.append("STATE HISTORY: " + " -> ".join(traj.state_history))
    lines.append(f"FINAL PATIENT STATUS: {traj.patient_status}")
    lines.append(f"TURNS: {traj.turn_count} of at most {traj.max_turns}")
    lines.append(f"ENDED: {traj.end} ({traj.end_reason or 'no reason given'})")
    return _fence("\n".join(lines))


def render_checklist(rubric: Rubric, items: list[RubricItem] | None = None) -> str:
    """The items under their competency headings, each as ``[n] text``."""
    chosen = rubric.items() if items is None else items
    blocks: list[str] = []
    for competency, name in COMPETENCY_NAMES.items():
        mine = [i for i in chosen if i.competency == competency]
        if mine:
            lines = "\n".join(f"[{i.number}] {i.text}" for i in mine)
            blocks.append(f"{competency} ({name}):\n{lines}")
    return "\n\n".join(blocks)
