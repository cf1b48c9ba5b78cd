"""The encounter as the auditor reads it: every turn numbered, every line labelled with who
produced it, each action with the controller's status, and the state after the turn."""

from __future__ import annotations

import re

from inspect_medsp.audit.result import AuditedRole
from inspect_medsp.record import Trajectory, TurnRecord

RECORD_TAG = "encounter_record"
_TAG_START = re.compile(rf"<(?=\s*/?\s*{RECORD_TAG})", re.IGNORECASE)


def _fence(text: str) -> str:
    """Neutralise anything that would close the record tag early."""
    return _TAG_START.sub("&lt;", text)


def turn_lines(turn: TurnRecord, before: tuple[int, str, str] | None = None) -> list[str]:
    """One turn of the record, as the auditor reads it; the state it started in is written
    only when it is not ``before`` (the state the previous turn ended in, already given)."""
    move, env = turn.clinician, turn.environment
    lines = [f"-- turn {turn.index} --"]
    if (turn.progress_index, turn.state_label, turn.patient_status) != before:
        lines.append(
            f"State before: stage {turn.progress_index} ({turn.state_label}); "
            f"patient status: {turn.patient_status}"
        )
    if move.speak:
        lines.append(f"Clinician says: {move.speak}")
    for action in turn.actions():
        why = f" ({action.rationale})" if action.rationale else ""
        lines.append(f"Clinician action: {action.raw} [controller: {action.status}{why}]")
    lines.append(f"Clinician asks to end the stage: {'yes' if move.eos else 'no'}")
    for who, words in turn.patient_lines():
        lines.append(f"Patient side ({who}) says: {words}")
    for feedback in env.feedback:
        lines.append(f"Environment feedback: {feedback}")
    for event in env.events:
        lines.append(f"Environment event: {event}")
    index, label, status = turn.end_state
    lines.append(f"State after: stage {index} ({label}); patient status: {status}")
    if env.should_end:
        lines.append(f"Environment ends the encounter: {env.completion_reason or 'no reason'}")
    for correction in turn.corrections:
        lines.append(f"Harness correction: {correction}")
    if turn.refused:
        lines.append(
            "Harness note: the clinician's provider refused this turn (content filter); "
            "nothing was said or done"
        )
    for role in turn.degraded:
        lines.append(f"Harness note: the {role} reply was unusable and degraded")
    return lines


def audit_record(traj: Trajectory) -> str:
    """Every turn of the encounter, for the auditor."""
    lines: list[str] = []
    before: tuple[int, str, str] | None = None
    for turn in traj.turns:
        lines += turn_lines(turn, before)
        before = turn.end_state
    lines.append(f"ENDED: {traj.end} ({traj.end_reason or 'no reason given'})")
    return _fence("\n".join(lines))


def role_words(turn: TurnRecord, role: AuditedRole) -> list[str]:
    """What ``role`` produced in a turn: the patient side's lines, or the controller's
    feedback, events, action readings, status and end reason."""
    if role == "patient":
        return [line for line in turn.patient.speak]
    env = turn.environment
    return [
        *env.feedback,
        *env.events,
        *(f"{a.interpreted_action} {a.rationale}" for a in env.action_assessments),
        env.patient_status or "",
        env.state_label or "",
        env.completion_reason,
    ]
