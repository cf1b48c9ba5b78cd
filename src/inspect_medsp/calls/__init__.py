"""The model-call service: one JSON model call with its contract, corrective re-asks, tolerant
reply parsing and the provider's stops (``generate.py``, ``replies.py``). Everything that asks a
model for JSON (the encounter, the strategies, grading, the audit, the probes, the specialty
classifier) stands on it; it knows nothing of any of them."""

from inspect_medsp.calls.generate import (
    CUT_OFF,
    DEFAULT_JUDGE,
    STOPPED,
    Contract,
    RoleResult,
    generate_json,
    stopped_result,
)
from inspect_medsp.calls.local import LocalModelAPI
from inspect_medsp.calls.replies import strip_reasoning

__all__ = [
    "CUT_OFF",
    "DEFAULT_JUDGE",
    "STOPPED",
    "Contract",
    "LocalModelAPI",
    "RoleResult",
    "generate_json",
    "stopped_result",
    "strip_reasoning",
]
