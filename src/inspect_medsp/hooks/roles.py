"""Warn when a run binds a model role MedSP never asks for (``--model-role grder=...``).

Inspect accepts any role name and a role nobody asks for is silently unused, so a typo would
leave the judge (``-T judge``) playing the role the user meant to bind. The check runs when the
eval starts, on the roles the eval really has (``--model-role`` and the task's own).
"""

from __future__ import annotations

import logging

from inspect_ai.hooks import Hooks, TaskStart, hooks
from inspect_ai.log import EvalSpec

from inspect_medsp.record import TaskMetadata

MEDSP_ROLES: tuple[str, ...] = ("patient", "environment", "grader", "auditor")
"""Every role a MedSP task asks for by name (``auditor`` only with ``-T audit=true``); the
model under test is ``--model``, no role."""

logger = logging.getLogger(__name__)


def unknown_roles_line(spec: EvalSpec) -> str | None:
    """One line naming the roles of a MedSP eval that MedSP never uses, or None."""
    if TaskMetadata.read(spec.metadata) is None:
        return None
    unknown = [role for role in spec.model_roles or {} if role not in MEDSP_ROLES]
    if not unknown:
        return None
    named = ", ".join(f"--model-role {role}=..." for role in unknown)
    return (
        f"MedSP: {named} is not a role MedSP uses, so that model plays nothing; the roles are "
        f"{', '.join(MEDSP_ROLES)} (the clinician, the model under test, is --model)"
    )


@hooks(name="medsp_model_roles", description="Warns about model roles MedSP never uses.")
class UnknownRoleWarning(Hooks):
    """Logs :func:`unknown_roles_line` as a warning when a MedSP task starts."""

    async def on_task_start(self, data: TaskStart) -> None:
        line = unknown_roles_line(data.spec)
        if line is not None:
            logger.warning(line)
