"""Ask the ``auditor`` to review an encounter, and place each finding in the record."""

from __future__ import annotations

import re

from inspect_ai.model import ChatMessageSystem, ChatMessageUser, GenerateConfig, Model

from inspect_medsp.audit.render import audit_record, role_words
from inspect_medsp.audit.result import (
    KINDS,
    NOT_IN_MATERIALS,
    AuditReply,
    Finding,
    HarnessCounts,
    RawFinding,
    Rejected,
)
from inspect_medsp.calls import Contract, RoleResult, generate_json
from inspect_medsp.data import Packets, VariantPlay
from inspect_medsp.record import ROLE_NAMES, Trajectory
from inspect_medsp.templates import render

PROMPTS = "inspect_medsp.audit"

AUDITOR: Contract[AuditReply] = Contract(
    role="auditor",
    model=AuditReply,
    required_any=("findings",),
    shape=(
        '{"findings": [{"turn": 1, "role": "patient|environment", "kind": "...", '
        '"quote": "...", "contradicts": "...", "severity": "minor|invalidating", "why": "..."}], '
        '"summary": "..."}'
    ),
    degrade=lambda raw: AuditReply(),
)

_PUNCT = re.compile(r"[\W_]+")
"""Anything but letters and digits: quotes compare by their words."""


def _fold(text: str) -> str:
    return " ".join(_PUNCT.sub(" ", text).casefold().split())


def persona_part(variant: VariantPlay | None) -> str:
    """The patient variant's instructions for the auditor to check (empty without one)."""
    if variant is None or not variant.patient:
        return ""
    return render("auditor_persona", package=PROMPTS, instructions=variant.patient)


def auditor_messages(
    traj: Trajectory, packets: Packets, variant: VariantPlay | None = None
) -> list[ChatMessageSystem | ChatMessageUser]:
    """The auditor's conversation: the patient script (with a variant's instructions on how
    to play it), the environment materials and the record. Never the rubric, the evaluator's
    materials or the clinician's door note."""
    return [
        ChatMessageSystem(content=render("auditor_system", package=PROMPTS)),
        ChatMessageUser(
            content=render(
                "auditor_request",
                package=PROMPTS,
                patient=packets.sp_actor,
                persona=persona_part(variant),
                environment=packets.environment_controller,
                record=audit_record(traj),
                n_turns=traj.turn_count,
            )
        ),
    ]


async def ask_auditor(
    model: Model,
    traj: Trajectory,
    packets: Packets,
    config: GenerateConfig | None = None,
    cache: bool = False,
    variant: VariantPlay | None = None,
) -> RoleResult[AuditReply]:
    """The auditor's reply, re-asked on a malformed reply like every role call."""
    history = list(auditor_messages(traj, packets, variant))
    return await generate_json(model, list(history), AUDITOR, config, cache=cache)


def place(raw: RawFinding, traj: Trajectory) -> Finding | Rejected:
    """The finding checked against the record: its turn exists, its role and kind are ones
    the audit knows, its severity is one of the two, and its quote is words that role
    produced in that turn."""
    role = raw.role.strip().lower()
    kind = "_".join(raw.kind.strip().lower().replace("-", " ").split())
    severity = raw.severity.strip().lower()
    try:
        turn = int(str(raw.turn).strip().removeprefix("turn").strip())
    except ValueError:
        return Rejected(finding=raw, reason=f"turn {raw.turn!r} is not a turn number")
    if not 1 <= turn <= traj.turn_count:
        return Rejected(finding=raw, reason=f"turn {turn} is not one of 1-{traj.turn_count}")
    if role not in KINDS:
        return Rejected(finding=raw, reason=f"role {raw.role!r} is not patient or environment")
    kinds = KINDS["patient" if role == "patient" else "environment"]
    if kind not in kinds:
        return Rejected(
            finding=raw, reason=f"kind {raw.kind!r} is not one of {', '.join(kinds)} for {role}"
        )
    if severity not in ("minor", "invalidating"):
        return Rejected(
            finding=raw, reason=f"severity {raw.severity!r} is not minor or invalidating"
        )
    quote = _fold(raw.quote)
    said = [
        _fold(w)
        for w in role_words(traj.turns[turn - 1], "patient" if role == "patient" else "environment")
    ]
    if not quote or not any(quote in words for words in said):
        return Rejected(finding=raw, reason=f"the quote is not words of the {role} in turn {turn}")
    return Finding(
        turn=turn,
        role="patient" if role == "patient" else "environment",
        kind=kind,
        quote=raw.quote.strip(),
        contradicts=raw.contradicts.strip() or NOT_IN_MATERIALS,
        severity="minor" if severity == "minor" else "invalidating",
        why=raw.why.strip(),
    )


def harness_counts(traj: Trajectory) -> HarnessCounts:
    """State-rule corrections, unsupported actions and degraded replies per role."""
    return HarnessCounts(
        corrections=sum(len(t.corrections) for t in traj.turns),
        unsupported_actions=sum(a.status == "unsupported" for a in traj.action_log),
        degraded={role: traj.health[role].degraded for role in ROLE_NAMES if role in traj.health},
    )
