"""Which model names are a person: ``medsp/human`` and ``medsp/human/<name>``, and their labels.

Pure string rules, on the ground floor, so every check (a task's, a scorer's, the report's)
and the human clinician's own provider can tell a person from a model, and name them, from
one vocabulary. Like the rest of ``preflight``, a bad name is returned as its line
(`person_name_problem`), never raised.
"""

from __future__ import annotations

import re

PERSON_MODEL = "human"
"""The model name under the ``medsp`` provider."""
PERSON_PREFIX = f"medsp/{PERSON_MODEL}"
"""A person's model name, ``medsp/human``, optionally followed by ``/<name>``."""
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def is_person(model: str) -> bool:
    """Whether ``model`` (``provider/name``) is a person: ``medsp/human`` or
    ``medsp/human/<name>``."""
    return model == PERSON_PREFIX or model.startswith(f"{PERSON_PREFIX}/")


def person_name(model_name: str) -> str:
    """The person's label from ``human`` or ``human/<name>`` (``human`` when unnamed).

    The name is taken as written; `person_name_problem` says whether it is one.
    """
    _, _, name = model_name.partition("/")
    return name or PERSON_MODEL


def person_name_problem(model_name: str) -> str | None:
    """The line refusing ``human/<name>`` when its name is not letters, digits, ``.``, ``_``
    or ``-`` (up to 64); ``None`` when it is one, or when the person is unnamed."""
    _, _, name = model_name.partition("/")
    if not name or _NAME.match(name):
        return None
    return (
        f"medsp/{model_name}: a person's name in medsp/human/<name> is letters, digits, "
        "'.', '_' or '-' (up to 64), e.g. medsp/human/resident01"
    )


def person_label(model: str) -> str:
    """How the report names a person's group: ``human: <name>`` (``human`` when unnamed)."""
    name = model.removeprefix(PERSON_PREFIX).removeprefix("/")
    return f"human: {name}" if name else "human"
