"""A lean read's rubric items are kept as rows and made again when a reader asks: the verdict
made of a row is the verdict the log holds (its evidence left out), field for field, in the
same order, with the same fields set, so whatever reads or writes it cannot tell them apart."""

from __future__ import annotations

from inspect_medsp.record import ItemVerdict
from inspect_medsp.record.items import item_of, item_row, items_of


def _verdict(**given: object) -> ItemVerdict:
    fields = {
        "number": 3,
        "competency": "PC",
        "text": "Asks about chest pain",
        "met": True,
        "judged": True,
        "matched_by": "exact",
        "conflict": False,
        "votes": [True, None, True],
        "flip_rate": 0.5,
    }
    return ItemVerdict.model_validate({**fields, **given})


def test_the_verdict_made_of_a_row_is_the_logged_verdict_without_its_evidence() -> None:
    logged = _verdict(evidence="the clinician asked")
    made = item_of(item_row(logged))
    assert made == logged.model_copy(update={"evidence": ""})
    assert list(made.model_dump()) == list(logged.model_dump())
    assert made.model_dump_json() == logged.model_copy(update={"evidence": ""}).model_dump_json()
    assert made.model_fields_set == logged.model_fields_set - {"evidence"}
    assert made.model_dump(exclude_unset=True) == logged.model_dump(
        exclude_unset=True, exclude={"evidence"}
    )


def test_each_verdict_made_has_its_own_votes() -> None:
    row = item_row(_verdict(votes=[True, False]))
    first, second = item_of(row), item_of(row)
    first.votes.append(None)
    assert second.votes == [True, False]
    assert item_of(row).votes == [True, False]


def test_a_samples_items_are_the_same_list_until_another_samples_are_asked_for() -> None:
    rows = (item_row(_verdict(number=1)), item_row(_verdict(number=2, met=False)))
    other = (item_row(_verdict(number=9)),)
    made = items_of(rows)
    assert [i.number for i in made] == [1, 2] and [i.met for i in made] == [True, False]
    assert items_of(rows) is made
    assert [i.number for i in items_of(other)] == [9]
    again = items_of(rows)
    assert again is not made and again == made
