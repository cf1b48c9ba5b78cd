"""The log schema as the record models declare it: every stored key, its type and its
docstring.

``docs/log-schema.md`` documents these keys; ``tests/test_log_schema.py`` compares the two, so a
field added, renamed, retyped or removed without the document (or the other way round) fails the
suite. ``python -m tests.support.schema`` prints the tables, to start a section for a new model.
"""

from __future__ import annotations

import ast
import inspect
import itertools
import re
import textwrap
import types
import typing
from collections.abc import Iterator
from typing import Any, NamedTuple

from pydantic import BaseModel

import inspect_medsp._registry  # noqa: F401  (every scorer of the package, with its result)
from inspect_medsp.measures import capabilities
from inspect_medsp.record import (
    PersonStop,
    SampleMetadata,
    ScoreMetadata,
    ScorerResult,
    ScoreValue,
    TaskMetadata,
    Trajectory,
)

ROOTS: dict[str, type[BaseModel]] = {
    "task metadata (`log.eval.metadata`)": TaskMetadata,
    "sample metadata (`sample.metadata`)": SampleMetadata,
    "sample store (`sample.store`, keys `Trajectory:<field>`)": Trajectory,
    "a person's stop (`sample.store['medsp_human_stop']`)": PersonStop,
    "score value (`sample.scores['medsp_rubric'].value`)": ScoreValue,
    "score metadata (`sample.scores['medsp_rubric'].metadata`)": ScoreMetadata,
}
"""Where each top-level model is stored in an Inspect log (each scorer's result is added below)."""


def scorer_results() -> list[type[ScorerResult]]:
    """Every result type a registered capability stores (the audit's, the probes', any a
    slice adds), in the registry's order."""
    return [c.result for c in capabilities() if c.result is not None]


def package_results() -> list[type[ScorerResult]]:
    """The subclasses of ``ScorerResult`` defined in the package (each must be a registered
    capability's result)."""
    found: list[type[ScorerResult]] = []
    todo = list(ScorerResult.__subclasses__())
    while todo:
        kind = todo.pop(0)
        todo += kind.__subclasses__()
        if kind.__module__.startswith("inspect_medsp.") and kind not in found:
            found.append(kind)
    return found


ROOTS.update({f"`sample.scores['{k.scorer}'].metadata`": k for k in scorer_results()})


class Key(NamedTuple):
    """One stored key of a model."""

    name: str
    type: str
    doc: str


def type_name(annotation: Any) -> str:
    """A field's type as the document writes it (``list[ItemVerdict]``, ``int | None``)."""
    text = str(annotation) if not isinstance(annotation, type) else annotation.__name__
    text = re.sub(r"\b(?:[A-Za-z_]\w*\.)+(\w+)", r"\1", text)
    return text.replace("NoneType", "None").replace("typing.", "")


def _docstrings(model: type[BaseModel]) -> dict[str, str]:
    """Attribute docstrings (a string right after a field) of the model and its bases."""
    docs: dict[str, str] = {}
    for cls in reversed(model.__mro__):
        if not (isinstance(cls, type) and issubclass(cls, BaseModel)) or cls is BaseModel:
            continue
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
        except (OSError, TypeError):
            continue
        body = tree.body[0].body if isinstance(tree.body[0], ast.ClassDef) else []
        for field, after in itertools.pairwise(body):
            if (
                isinstance(field, ast.AnnAssign)
                and isinstance(field.target, ast.Name)
                and isinstance(after, ast.Expr)
                and isinstance(after.value, ast.Constant)
                and isinstance(after.value.value, str)
            ):
                docs[field.target.id] = " ".join(after.value.value.split())
    return docs


def stored_keys(model: type[BaseModel]) -> list[Key]:
    """The keys a model is stored under, in order, with type and docstring."""
    docs = _docstrings(model)
    keys: list[Key] = []
    for name, field in model.model_fields.items():
        if field.exclude:
            continue
        stored = field.serialization_alias or field.alias or name
        keys.append(Key(stored, type_name(field.annotation), docs.get(name, "")))
    return keys


def _models_in(annotation: Any) -> Iterator[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation
    for arg in typing.get_args(annotation):
        yield from _models_in(arg)
    if isinstance(annotation, types.UnionType):
        for arg in annotation.__args__:
            yield from _models_in(arg)


def documented_models() -> list[type[BaseModel]]:
    """Every model a MedSP log stores: the roots and every model their fields hold."""
    seen: list[type[BaseModel]] = []
    todo = list(ROOTS.values())
    while todo:
        model = todo.pop(0)
        if model in seen:
            continue
        seen.append(model)
        for field in model.model_fields.values():
            if not field.exclude:
                todo += [m for m in _models_in(field.annotation) if m not in seen]
    return seen


def markdown(model: type[BaseModel]) -> str:
    """The model's table, as ``docs/log-schema.md`` writes it."""
    rows = [f"### `{model.__name__}`", "", "| key | type | meaning |", "|---|---|---|"]
    rows += [f"| `{k.name}` | `{k.type}` | {k.doc} |" for k in stored_keys(model)]
    return "\n".join(rows)


if __name__ == "__main__":
    print("\n\n".join(markdown(m) for m in documented_models()))
