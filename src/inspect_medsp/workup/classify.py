"""The orders' categories decided by a grading model (``-S classify=<model>``).

The model is shown the category names and each order (the clinician's words and the
environment's reading) and replies with one category per order number. An order it leaves
out, or puts in no known category, falls back to the keyword table (``categories.decide``)
and is marked so (``reading`` or ``order``, not ``model``).
"""

from __future__ import annotations

from importlib.resources import files
from typing import Any

from inspect_ai.model import ChatMessageUser, Model
from pydantic import BaseModel, Field, field_validator

from inspect_medsp.calls import Contract, generate_json
from inspect_medsp.orders import CATEGORIES, CATEGORY_NAMES, decide
from inspect_medsp.record import ActionRecord


class Categories(BaseModel):
    """The model's reply: a category per order number."""

    categories: dict[str, str] = Field(default_factory=dict)

    @field_validator("categories", mode="before")
    @classmethod
    def _strings(cls, value: Any) -> Any:
        if isinstance(value, dict):
            return {str(k).strip("[] "): str(v).strip().lower() for k, v in value.items()}
        return value


CONTRACT = Contract(
    role="grader",
    model=Categories,
    required_any=("categories",),
    shape='{"categories": {"1": "medication", "2": "laboratory"}}',
    degrade=lambda raw: Categories(),
)


def numbered_orders(actions: list[ActionRecord]) -> str:
    """The orders as a model is shown them, one a line from 1: the clinician's words and the
    environment's reading (the classifier's and the linker's prompts alike)."""
    return "\n".join(
        f"{i}. {a.raw}" + (f" (understood as: {a.interpreted_action})" * bool(a.interpreted_action))
        for i, a in enumerate(actions, start=1)
    )


def prompt(actions: list[ActionRecord]) -> str:
    """The classification prompt for ``actions``."""
    template = files("inspect_medsp.workup").joinpath("prompts/classify.md")
    categories = "\n".join(f"- {c}: {CATEGORY_NAMES[c]}" for c in CATEGORIES)
    return template.read_text(encoding="utf-8").format(
        categories=categories, orders=numbered_orders(actions)
    )


async def classify_orders(
    model: Model, actions: list[ActionRecord], cache: bool = False
) -> tuple[list[tuple[str, str]], bool]:
    """Each order's category and how it was decided, and whether the model's reply was
    usable (when not, every order falls back to the keyword table)."""
    if not actions:
        return [], True
    result = await generate_json(
        model, [ChatMessageUser(content=prompt(actions))], CONTRACT, cache=cache
    )
    given = result.reply.categories
    out: list[tuple[str, str]] = []
    for i, action in enumerate(actions, start=1):
        chosen = given.get(str(i), "")
        if chosen in CATEGORIES:
            out.append((chosen, "model"))
        else:
            out.append(decide(action.interpreted_action, action.raw))
    return out, not result.degraded
