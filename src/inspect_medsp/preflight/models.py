"""Can a model be made here: its provider installed and its key or credentials set.

A model is made the way Inspect makes it (:func:`inspect_ai.model.get_model`), which builds
the provider's client from the environment without calling its API, and is memoised, so the
run later uses the very model checked here.
"""

from __future__ import annotations

import re

from inspect_ai.model import get_model

SCRIPTED_MODEL = "medsp/scripted"
"""The package's scripted demo provider: it replays the demo's hand-written turns and plays no
other part (it cannot call tools, nor label a scenario's specialty)."""

_MARKUP = re.compile(r"\[/?[a-z][a-z ]*\]")
"""Console markup as providers put it in their messages (``[bold][blue]NAME[/blue][/bold]``)."""
_VARIABLE = re.compile(r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9]\b")
"""An environment variable name as providers write them (``OPENAI_API_KEY``)."""


def plain_line(message: object) -> str:
    """A provider's message (Rich markup, several lines) as one plain line."""
    text = _MARKUP.sub("", str(message)).strip().removeprefix("ERROR: ")
    paragraphs = [" ".join(p.split()).rstrip(":.") for p in re.split(r"\n\s*\n", text)]
    return ": ".join(p for p in paragraphs if p)


def model_unavailable(name: str) -> str | None:
    """Why the model ``name`` cannot be made here, in a few words naming the fix, or None.

    Args:
        name: A model name, ``provider/model``.
    """
    try:
        get_model(name)  # inspect-evals-lint: ignore[IEBP001] -- the load's credential check
    except Exception as err:
        reason = plain_line(getattr(err, "message", None) or err) or type(err).__name__
        variables = list(dict.fromkeys(_VARIABLE.findall(reason)))
        if variables:
            return f"{reason}; set {variables[0]}" + (
                f" (or {', '.join(variables[1:])})" if len(variables) > 1 else ""
            )
        return reason
    return None
