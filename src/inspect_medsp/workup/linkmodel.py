"""Orders linked to the checklist items they serve by a grading model (``-S link=<model>``).

The model is shown the rubric's item texts, numbered, and the orders (the clinician's words
and the environment's reading), and nothing else: not the competencies, not which items were
met, not the score. It replies with the item numbers each order serves. The work-up keeps,
of those, the met items (the signal ``model``); an order the model leaves out, or a reply
that cannot be used, falls back to the lexical linker (``link.py``, the signal ``words``).
"""

from __future__ import annotations

from importlib.resources import files
from typing import Any

from inspect_ai.model import ChatMessageUser, Model
from pydantic import BaseModel, Field, field_validator

from inspect_medsp.calls import Contract, generate_json
from inspect_medsp.record import ActionRecord
from inspect_medsp.workup.classify import numbered_orders


class Links(BaseModel):
    """The model's reply: the item numbers each order number serves."""

    links: dict[str, list[int]] = Field(default_factory=dict)

    @field_validator("links", mode="before")
    @classmethod
    def _numbers(cls, value: Any) -> Any:
        if not isinstance(value, dict):
            return value
        out: dict[str, list[int]] = {}
        for key, items in value.items():
            listed = items if isinstance(items, list) else [items]
            numbers = [int(str(i).strip("[] ")) for i in listed if str(i).strip("[] ").isdigit()]
            out[str(key).strip("[] ")] = numbers
        return out


CONTRACT = Contract(
    role="grader",
    model=Links,
    required_any=("links",),
    shape='{"links": {"1": [3], "2": []}}',
    degrade=lambda raw: Links(),
)


def prompt(items: dict[int, str], actions: list[ActionRecord]) -> str:
    """The linking prompt: the item texts and the orders, nothing else of the rubric."""
    template = files("inspect_medsp.workup").joinpath("prompts/link.md")
    listed = "\n".join(f"[{n}] {' '.join(text.split())}" for n, text in sorted(items.items()))
    return template.read_text(encoding="utf-8").format(
        items=listed, orders=numbered_orders(actions)
    )


async def link_with_model(
    model: Model, items: dict[int, str], actions: list[ActionRecord], cache: bool = False
) -> tuple[dict[int, list[int]], bool]:
    """The item numbers the model links each order (by its index in ``actions``) to, only
    the orders it answered for and only numbers of real items; and whether its reply was
    usable."""
    if not actions or not items:
        return {}, True
    result = await generate_json(
        model, [ChatMessageUser(content=prompt(items, actions))], CONTRACT, cache=cache
    )
    given = result.reply.links
    out: dict[int, list[int]] = {}
    for i in range(len(actions)):
        found = given.get(str(i + 1))
        if found is not None:
            out[i] = sorted({n for n in found if n in items})
    return out, not result.degraded
