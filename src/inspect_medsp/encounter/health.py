"""Reply health: how each role's replies fared, counted per encounter and noted in the log."""

from __future__ import annotations

from typing import Any

from inspect_ai.log import transcript

from inspect_medsp.calls import RoleResult
from inspect_medsp.record import ReplyHealth, RoleName

DEGRADED_AS: dict[RoleName, str] = {
    "clinician": "its raw text as speech, no actions, eos false",
    "patient": "its raw text as the patient's words",
    "environment": "no feedback and no state change",
}
CUT_OFF_AS: dict[RoleName, str] = {
    "clinician": "nothing said or done",
    "patient": "nothing said",
    "environment": "no feedback and no state change",
}
"""What a role's reply is used as when its last attempt was cut off at the token limit."""
"""What a role's reply is used as when it degraded."""


def count_reply(
    health: dict[str, ReplyHealth], role: RoleName, result: RoleResult[Any]
) -> dict[str, ReplyHealth]:
    """The counters with one more reply of ``role`` (a new dict: the old one is unchanged),
    after noting a degraded or recovered reply in the sample's transcript."""
    counted = {k: v.model_copy() for k, v in health.items()}
    h = counted.setdefault(role, ReplyHealth())
    h.truncated += result.truncated
    if result.context_exhausted:
        h.context += 1
    elif result.refused:
        h.refused += 1
    elif result.degraded:
        h.degraded += 1
    elif result.retries:
        h.retried += 1
    elif result.repairs:
        h.repaired += 1
    else:
        h.clean += 1
    _note(role, result)
    return counted


def _note(role: RoleName, result: RoleResult[Any]) -> None:
    if result.context_exhausted or result.refused:
        what = "its prompt no longer fits the model's context window"
        if result.refused:
            what = "the provider refused to answer (content filter)"
        transcript().info(
            f"{role} call stopped: {what}; the provider's message (not the {role}'s words): "
            f"{result.provider_message or '(none)'}"
        )
    elif result.degraded:
        transcript().info(
            f"{role} reply degraded after {result.retries} retries "
            f"({'; '.join(result.errors)}): used as "
            f"{CUT_OFF_AS[role] if result.stop_reason == 'max_tokens' else DEGRADED_AS[role]}"
        )
    elif result.repairs or result.retries:
        fixes = [
            *result.repairs,
            *([f"valid after {result.retries} retries"] * bool(result.retries)),
        ]
        transcript().info(f"{role} reply recovered: {', '.join(fixes)}")
