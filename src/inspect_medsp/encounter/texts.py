"""The encounter's own prompts (``encounter/prompts/*.md``), filled by the package's
template engine (:mod:`inspect_medsp.templates`)."""

from __future__ import annotations

from inspect_medsp import templates

PACKAGE = "inspect_medsp.encounter"
"""The package whose ``prompts/`` folder holds the encounter's templates."""


def render(name: str, **values: object) -> str:
    """Fill the encounter template ``prompts/<name>.md``.

    Raises:
        KeyError: A `$name` in the template has no value given.
    """
    return templates.render(name, PACKAGE, **values)
