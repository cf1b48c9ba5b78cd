"""What each scripted role replies, as the JSON its contract asks for."""

from __future__ import annotations

import json
import re
from typing import Any

from inspect_ai.model import ChatMessage, ChatMessageUser

from inspect_medsp.record import LABELS, clip
from inspect_medsp.scripted.readings import readings, turn_actions
from inspect_medsp.scripted.recognise import Call, NoScriptError, fold
from inspect_medsp.scripted.scripts import ScenarioScript, load_scripts

_ITEM_NUMBER = re.compile(r"^\s*\[(\d+)\]", re.MULTILINE)
_TURN_MARK = re.compile(r"^-- turn (\d+) --$")
_LABELS = {"Clinician says": LABELS["said"], "Clinician action": LABELS["did"]}
_READING = re.compile(r"\s*\[[^\[\]]*\]\s*$")
"""The environment's reading after an action in the record: ``[executed; interpreted as ...]``."""


def cited(line: str, turn: int | None) -> str:
    """A record line as evidence that cites its turn: ``T3 action: ...``."""
    label, sep, words = line.partition(": ")
    if turn is None or not sep:
        return line
    return f"T{turn} {_LABELS.get(label, label)}: {words}"


def script_for(call: Call) -> ScenarioScript:
    """The script of the call's scenario.

    Raises:
        NoScriptError: A demo scenario without a script file.
    """
    script = load_scripts().get(call.record.id)
    if script is None:
        raise NoScriptError(f"medsp/scripted has no script file for scenario {call.record.id}")
    return script


def reply(call: Call, messages: list[ChatMessage]) -> str:
    """The reply text for a recognised call."""
    script = script_for(call)
    if call.role == "grader":
        return json.dumps(grade(call, script, messages))
    if call.role == "auditor":
        return json.dumps(audit(script, messages))
    if call.turn > len(script.turns):
        return json.dumps(_after_script(call, script))
    turn = script.turns[call.turn - 1]
    if call.role == "clinician":
        return turn.clinician.model_dump_json()
    if call.role == "patient":
        return turn.patient.model_dump_json()
    env = turn.environment
    last = next((m.text for m in reversed(messages) if isinstance(m, ChatMessageUser)), "")
    read = readings(turn_actions(last), script, call.turn - 1)
    return json.dumps(
        {
            "feedback": read.feedback,
            "events": env.events,
            "actors_present": env.actors_present,
            "action_assessments": read.assessments,
            "patient_status": env.patient_status,
            "progress_index": env.stage,
            "state_label": env.label,
            "should_end": env.should_end,
            "completion_reason": env.completion_reason,
        }
    )


def _after_script(call: Call, script: ScenarioScript) -> dict[str, Any]:
    """Replies past the last scripted turn (only reachable when the roles are mixed with
    other models): nothing new happens and the environment ends the encounter."""
    last = script.turns[-1].environment
    if call.role == "clinician":
        return {"speak": "", "actions": [], "eos": True}
    if call.role == "patient":
        return {"speak": [], "actors_present": {}}
    return {
        "feedback": [],
        "events": [],
        "actors_present": {},
        "action_assessments": [],
        "patient_status": last.patient_status,
        "progress_index": last.stage,
        "state_label": last.label,
        "should_end": True,
        "completion_reason": "the scripted encounter has no further turns",
    }


def grade(call: Call, script: ScenarioScript, messages: list[ChatMessage]) -> dict[str, Any]:
    """Verdicts for the items asked in the last user message, keyed ``"[n]"`` under each
    competency: an item is met when one of its evidence phrases is in the clinician's own
    lines of the record (what they said, and their actions in their own words: never the
    patient side's words, the environment's reports or its reading of an action)."""
    items = call.record.rubric.items()
    last = next((m.text for m in reversed(messages) if isinstance(m, ChatMessageUser)), "")
    asked = {int(n) for n in _ITEM_NUMBER.findall(last)} or {i.number for i in items}
    item_texts = [fold(i.text) for i in items]
    # a line reciting a checklist item is not read inside that item (the probes' recital)
    lines = [ln for ln in clinician_lines(messages) if not any(t in fold(ln) for t in item_texts)]
    record = " \n ".join(fold(line) for line in clinician_lines(messages))
    for text in item_texts:
        record = record.replace(text, " ")
    evidence = script.evidence()
    out: dict[str, Any] = {}
    met = 0
    for item in items:
        if item.number not in asked:
            continue
        found = next((p for p in evidence.get(item.number, []) if fold(p) in record), None)
        quote = "none"
        if found is not None:
            met += 1
            quote = clip(next((ln for ln in lines if fold(found) in fold(ln)), found))
        out.setdefault(item.competency, {})[f"[{item.number}]"] = {
            "met": found is not None,
            "evidence": quote,
        }
    return {
        "reasoning": [
            f"Scripted grader, not a model: {met} of {len(asked)} items have one of their "
            "scripted evidence phrases in the clinician's own words or actions.",
            script.summary,
        ],
        **out,
    }


def clinician_lines(messages: list[ChatMessage]) -> list[str]:
    """The clinician's lines of the record the grader is given, each citing its turn
    (``T3 action: ...``), an action without the environment's reading in brackets."""
    lines: list[str] = []
    for m in messages:
        if not isinstance(m, ChatMessageUser):
            continue
        turn: int | None = None
        for raw in m.text.splitlines():
            line = raw.strip()
            if mark := _TURN_MARK.match(line):
                turn = int(mark[1])
                continue
            label, sep, words = line.partition(": ")
            if not sep or label not in _LABELS:
                continue
            if label == "Clinician action":
                words = _READING.sub("", words)
            lines.append(cited(f"{label}: {words}", turn))
    return lines


_TURN = re.compile(r"^-- turn (\d+) --$")
_AUDITED_LINE = re.compile(
    r"^(Patient side \([^)]*\) says|Environment feedback|Environment event): (.*)$"
)


def audit(script: ScenarioScript, messages: list[ChatMessage]) -> dict[str, Any]:
    """Findings for every slip of the script found in a line of its role in the record the
    auditor is given (turns read from its ``-- turn N --`` markers)."""
    last = next((m.text for m in reversed(messages) if isinstance(m, ChatMessageUser)), "")
    record = last.rpartition("<encounter_record>")[2]
    findings: list[dict[str, Any]] = []
    turn = 0
    for line in record.splitlines():
        marker = _TURN.match(line.strip())
        if marker:
            turn = int(marker.group(1))
            continue
        audited = _AUDITED_LINE.match(line.strip())
        if not audited:
            continue
        role = "patient" if audited.group(1).startswith("Patient") else "environment"
        words = audited.group(2)
        for slip in script.auditor:
            if slip.role == role and fold(slip.phrase) in fold(words):
                findings.append(
                    {
                        "turn": turn,
                        "role": role,
                        "kind": slip.kind,
                        "quote": slip.phrase,
                        "contradicts": slip.contradicts,
                        "severity": slip.severity,
                        "why": slip.why,
                    }
                )
    return {
        "findings": findings,
        "summary": f"Scripted auditor, not a model: {len(findings)} of the script's "
        f"{len(script.auditor)} known slips are in the record.",
    }
