"""A lean read's rubric items as rows (``read.sample_of``), and the verdicts made of them when
a reader asks for a sample's items (``MedspSample.items``).

A full-set sweep holds some 200,000 items: as typed objects they were most of the report's
memory, so a lean read keeps each as a tuple whose texts are shared with every other log's
same text, and makes the :class:`ItemVerdict` objects again when asked (a report asks for
every sample's items some five times: the making is kept to a copy of a template dictionary).
"""

from __future__ import annotations

from sys import intern
from typing import Any

from inspect_medsp.record.score import ItemVerdict

ItemRow = tuple[int, str, str, bool, bool, str, bool, tuple[bool | None, ...], float]
"""A rubric item of a lean read (which has no evidence): its verdict's number, competency,
text, met, judged, matched_by, conflict, votes and flip_rate, validated as an
:class:`ItemVerdict` first, its texts shared with every other log's same text."""

ROW_KEYS = (
    "number", "competency", "text", "met", "judged", "matched_by", "conflict", "votes",
    "flip_rate",
)  # fmt: skip
"""The fields of an :data:`ItemRow`, in its order."""

_ROW_SET = frozenset(ROW_KEYS)
_VOTES = ROW_KEYS.index("votes")
assert _VOTES == 7  # item_of indexes the votes by number, for the type checker
_TEMPLATE: dict[str, Any] = {
    name: None if name in _ROW_SET else field.get_default(call_default_factory=True)
    for name, field in ItemVerdict.model_fields.items()
}
"""Every field of a verdict in its order: what a row leaves out (the evidence) at its default
(made once and shared, as the items of a lean read have none), the row's fields filled in."""
_PAIRS = tuple((name, i) for i, name in enumerate(ROW_KEYS) if i != _VOTES)


def item_row(item: ItemVerdict) -> ItemRow:
    """The row of a validated verdict."""
    return (
        item.number, intern(item.competency), intern(item.text), item.met, item.judged,
        intern(item.matched_by), item.conflict, tuple(item.votes), item.flip_rate,
    )  # fmt: skip


def item_of(row: ItemRow) -> ItemVerdict:
    """The verdict of a row, made as ``ItemVerdict.model_construct`` makes it (the row was
    validated) in a fraction of its time: the same fields, in the same order, the same
    fields set."""
    fields = _TEMPLATE.copy()
    for name, i in _PAIRS:
        fields[name] = row[i]
    fields["votes"] = list(row[7])  # _VOTES
    item = ItemVerdict.__new__(ItemVerdict)
    setattr_ = object.__setattr__
    setattr_(item, "__dict__", fields)
    setattr_(item, "__pydantic_fields_set__", set(_ROW_SET))
    setattr_(item, "__pydantic_extra__", None)
    setattr_(item, "__pydantic_private__", None)
    return item


_LAST: list[tuple[tuple[ItemRow, ...], list[ItemVerdict]]] = []
"""The items last made from rows, with the rows they were made from."""


def items_of(rows: tuple[ItemRow, ...]) -> list[ItemVerdict]:
    """The verdicts of a sample's rows: the same list while no other sample's items are asked
    for, as a reader often asks for one sample's items several times."""
    if _LAST and _LAST[0][0] is rows:
        return _LAST[0][1]
    made = [item_of(row) for row in rows]
    _LAST[:] = [(rows, made)]
    return made
