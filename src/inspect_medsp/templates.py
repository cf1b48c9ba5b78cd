"""Prompt templates kept as package data files and filled with :class:`string.Template`.

The ground floor of the package: every part that renders a prompt (data, encounter,
strategies, scoring, specialty, estimate) reads its ``prompts/<name>.md`` through here.
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from string import Template


@cache
def _template(package: str, name: str) -> Template:
    text = files(package).joinpath("prompts", f"{name}.md").read_text(encoding="utf-8")
    return Template(text)


def render(name: str, package: str, **values: object) -> str:
    """Fill the template ``prompts/<name>.md`` of ``package``.

    Raises:
        KeyError: A `$name` in the template has no value given.
    """
    return _template(package, name).substitute({k: str(v) for k, v in values.items()}).strip()


def bullet_lines(lines: list[str], empty: str = "(none)") -> str:
    """Lines as a dash list, or ``empty`` when there are none."""
    return "\n".join(f"- {line}" for line in lines) if lines else empty
