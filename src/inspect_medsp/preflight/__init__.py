"""What a run will need, checked before it starts: can each model be made here, and what
the eval being loaded (or the log being re-scored) asks for.

Nothing here calls a model or raises: each check returns the one line to show, and the task
or scorer that asked raises it as its own error.
"""

from inspect_medsp.preflight.context import (
    RunContext,
    rescore_context,
    run_context,
    said_at_load,
    unchecked,
)
from inspect_medsp.preflight.endpoints import (
    SERVE_HERE,
    Endpoint,
    away,
    away_line,
    loopback,
    place,
    place_roles,
)
from inspect_medsp.preflight.models import SCRIPTED_MODEL, model_unavailable, plain_line
from inspect_medsp.preflight.params import (
    GRADER_ACCEPTED,
    Count,
    GraderParameters,
    ModelName,
    Temperature,
    checked_parameters,
)
from inspect_medsp.preflight.people import (
    PERSON_MODEL,
    is_person,
    person_label,
    person_name,
    person_name_problem,
)
from inspect_medsp.preflight.runtasks import unknown_in_run

__all__ = [
    "GRADER_ACCEPTED",
    "PERSON_MODEL",
    "SCRIPTED_MODEL",
    "SERVE_HERE",
    "Count",
    "Endpoint",
    "GraderParameters",
    "ModelName",
    "RunContext",
    "Temperature",
    "away",
    "away_line",
    "checked_parameters",
    "is_person",
    "loopback",
    "model_unavailable",
    "person_label",
    "person_name",
    "person_name_problem",
    "place",
    "place_roles",
    "plain_line",
    "rescore_context",
    "run_context",
    "said_at_load",
    "unchecked",
    "unknown_in_run",
]
