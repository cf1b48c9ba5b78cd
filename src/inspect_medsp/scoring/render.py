"""Render the rubric and the Trajectory as the evaluator reads them (the Trajectory's
rendering lives in ``record/render.py``, where the report reads it too)."""

from __future__ import annotations

from inspect_medsp.data.models import COMPETENCY_NAMES, Rubric, RubricItem
from inspect_medsp.record.render import RECORD_TAG, render_record

__all__ = ["RECORD_TAG", "render_checklist", "render_record"]


def render_checklist(rubric: Rubric, items: list[RubricItem] | None = None) -> str:
    """The items under their competency headings, each as ``[n] text``."""
    chosen = rubric.items() if items is None else items
    blocks: list[str] = []
    for competency, name in COMPETENCY_NAMES.items():
        mine = [i for i in chosen if i.competency == competency]
        if mine:
            lines = "\n".join(f"[{i.number}] {i.text}" for i in mine)
            blocks.append(f"{competency} ({name}):\n{lines}")
    return "\n\n".join(blocks)
