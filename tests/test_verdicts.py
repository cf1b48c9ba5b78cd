"""Matching a grader's reply keys to rubric items: never the wrong item, conflicts counted.

Published rubric items are used where they show the hazard: 184 of them start with their own
list numbering (``"1. Greet the patient ..."``) and some with ``#7`` or ``Item 9:`` labels
that are not the item's number in the checklist. The rest use a small synthetic rubric.
The last part goes through the scorer with scripted ``mockllm`` roles on the demo scenarios,
reusing the helpers and hand-computed numbers of ``test_scoring``.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import pairwise
from typing import Any

import pytest
from inspect_ai.model import ChatMessage

from inspect_medsp.data import Rubric, RubricItem, load_rubrics
from inspect_medsp.record import Verdict
from inspect_medsp.scoring.verdicts import ItemIndex, Tally, core
from tests.conftest import published_upstream
from tests.support.metrics import metrics_of
from tests.support.scripts import Script
from tests.test_scoring import (
    ALL_ITEMS,
    ANAPHYLAXIS,
    CASES,
    MET_A,
    METRICS_A,
    RUBRICS,
    VALUES_A,
    Run,
    case_of,
    frac,
    items_of,
    meta_of,
    rescore,
    run_demo,
    score_of,
    values_of,
    verdicts,
)

# items 1-3 PC, 4-5 MK, 6-8 SBP, 9 ICS, 10 PBLI, 11 PROF
SYNTHETIC = Rubric(
    case_id="synthetic",
    scenario="scenario1",
    PC=[
        "Checks airway, breathing and circulation on arrival",
        "Gives IM epinephrine 0.5 mg into the outer thigh",
        "Starts high-flow oxygen by non-rebreather mask",
    ],
    MK=["Names anaphylaxis as the working diagnosis", "Explains the risk of a biphasic reaction"],
    SBP=[
        "Calls the airway team early once stridor develops",
        "Refers the patient to an allergy clinic for venom testing",
        "Records the venom allergy in the medical record",
    ],
    ICS=["Keeps the patient informed in calm, simple language"],
    PBLI=["Reflects on the delay in giving epinephrine"],
    PROF=["Respects the patient's wish to leave while explaining the risks"],
)
ITEMS = SYNTHETIC.items()
TEXT = {i.number: i.text for i in ITEMS}

# the published rubrics used below, with the checklist numbers of the items that matter
NUMBERED = "mep_2374-8265.11518-s001/scenario4"  # every item starts with "<n>. "
LABELLED = "mep_2374-8265.11248-s001/scenario1"  # most items start with "#<n> "


def tally(*replies: dict[str, Any], items: list[RubricItem] = ITEMS) -> Tally:
    out = Tally(items)
    for reply in replies:
        out.add(reply)
    return out


def by_number(t: Tally) -> dict[int, Verdict]:
    return {v.number: v for v in t.verdicts()}


@pytest.fixture(scope="module")
def published() -> dict[str, Rubric]:
    """Every usable published rubric by scenario id (read once for the module)."""
    return load_rubrics(published_upstream()).rubrics


def published_items(published: dict[str, Rubric], scenario_id: str) -> list[RubricItem]:
    return published[scenario_id].items()


# --------------------------------------------------------------------------- numbers


def test_published_numbering_in_a_key_is_text_never_an_item_number(
    published: dict[str, Rubric],
) -> None:
    items = published_items(published, NUMBERED)
    text = {i.number: i.text for i in items}
    # the checklist's item 1 is PC "7. Question about the chief concern ..."; item 14 is
    # ICS "1. Greet the patient appropriately for the time of day ..."
    assert text[1].startswith("7. Question about the chief concern")
    assert text[14].startswith("1. Greet the patient appropriately")
    assert text[7].startswith("16. Ask for signs and symptoms")

    t = tally(
        {
            "PC": {
                "1. Asked why the patient came in today": {"met": True},  # no item: not item 1
                "7. Asks about the chief concern": {"met": True},  # paraphrase: not item 7
            },
            "ICS": {
                "1. Greets the patient warmly": {"met": True},  # paraphrase of 14: not item 1
                # item 14's text with other numbering, case and spacing: item 14 by its text
                "3) " + text[14][3:].upper().replace(" ", "  "): {"met": False},
            },
        },
        items=items,
    )

    verdicts = by_number(t)
    assert [v.number for v in verdicts.values() if v.judged] == [14]
    assert verdicts[14].met is False and verdicts[14].matched_by == "normalised"
    assert verdicts[1].judged is False and verdicts[7].judged is False
    assert t.ignored_keys == [
        "PC: 1. Asked why the patient came in today",
        "PC: 7. Asks about the chief concern",
        "ICS: 1. Greets the patient warmly",
    ]
    assert t.conflicts() == []


def test_published_labels_like_hash_7_never_move_a_verdict(published: dict[str, Rubric]) -> None:
    items = published_items(published, LABELLED)
    text = {i.number: i.text for i in items}
    # checklist item 12 is ICS "#7 Learner asks how confident ..."; item 7 is PC
    assert text[12].startswith("#7 Learner asks how confident")
    assert text[7] == "Safer sex counseling"
    assert text[16] == "#12 Learner asked open ended questions"
    assert text[9] == "Major depressive disorder, cellulitis of antecubital fossa"

    t = tally(
        {
            "PC": {
                # our item 7 by number, but the text is item 12's
                "[7] Learner asks how confident the patient feels": {"met": True},
            },
            "MK": {
                "1. Major depressive disorder": {"met": True},  # cut short and numbered: no item
                "2. major depressive disorder, cellulitis of antecubital fossa": {"met": True},
            },
            "ICS": {
                "#7 Learner asks how confident the patient feels": {"met": True},  # 7 is PC
                text[12].lower(): {"met": False},  # item 12 by its own text
                "[12] Learner asked open ended questions": {"met": True},  # that is item 16
                "[16] #12 Learner asked open ended questions": {"met": True},  # copied line
            },
        },
        items=items,
    )

    verdicts = by_number(t)
    assert {n for n, v in verdicts.items() if v.judged} == {9, 12, 16}
    assert verdicts[9].met is True and verdicts[9].matched_by == "normalised"
    assert verdicts[12].met is False and verdicts[12].matched_by == "normalised"
    assert verdicts[16].met is True and verdicts[16].matched_by == "number"
    assert verdicts[1].judged is False and verdicts[7].judged is False
    assert t.ignored_keys == [
        "PC: [7] Learner asks how confident the patient feels (number 7, but the text names"
        " item 12)",
        "MK: 1. Major depressive disorder",
        "ICS: #7 Learner asks how confident the patient feels (item 7 is under PC)",
        "ICS: [12] Learner asked open ended questions (number 12, but the text names item 16)",
    ]


def test_hash_or_bare_number_that_is_also_a_published_label_needs_the_bracket(
    published: dict[str, Rubric],
) -> None:
    labelled = published_items(published, LABELLED)
    numbered = published_items(published, NUMBERED)
    # LABELLED: item 4 is PC "#5 Learner asks if the patient had ever tried treatment ...",
    # item 5 is PC "Start buprenorphine ..."; NUMBERED: item 1 is PC "7. Question about ..."
    assert labelled[3].text.startswith("#5 Learner asks if the patient had ever tried")
    assert labelled[4].text.startswith("Start buprenorphine")
    assert numbered[0].text.startswith("7. Question about the chief concern")

    t = tally(
        {"PC": {"#5": True, "item 5": True, "[6]": True, "#7 Safer sex counseling": False}},
        items=labelled,
    )
    assert {v.number: v.met for v in t.verdicts() if v.judged} == {6: True, 7: False}
    assert t.ignored_keys == [
        "PC: #5 (number 5 could also be item 4's label)",
        "PC: item 5 (number 5 could also be item 4's label)",
    ]
    t = tally({"PC": {"[5]": True}}, items=labelled)
    assert [v.number for v in t.verdicts() if v.judged] == [5]

    t = tally({"PC": {"7": True, "[8]": False}}, items=numbered)
    assert {v.number: v.met for v in t.verdicts() if v.judged} == {8: False}
    assert t.ignored_keys == ["PC: 7 (number 7 could also be item 1's label)"]


@pytest.mark.parametrize(
    "key", ["[7]", "[ 7 ]", "#7", "# 7", "item 7", "Item 7", "ITEM #7", "item7", "**[7]**", "7"]
)
def test_reference_forms_name_the_item_of_that_number(key: str) -> None:
    t = tally({"SBP": {key: {"met": True, "evidence": "called at turn 2"}}})

    verdict = by_number(t)[7]
    assert verdict.judged and verdict.met and verdict.matched_by == "number"
    assert verdict.evidence == "called at turn 2"
    assert [v.number for v in t.verdicts() if v.judged] == [7]
    assert t.ignored_keys == []


@pytest.mark.parametrize(
    ("key", "judged"),
    [
        (f"[7] {TEXT[7]}", True),  # the line as the checklist shows it
        ("[7]: Refers the patient to an allergy clinic", True),  # cut short
        ("#7 - refers the patient to an ALLERGY clinic for venom testing.", True),
        ("item 7: allergy referral", True),  # a paraphrase that names no other item
        (f"[7] {TEXT[8]}", False),  # the next item's text
        ("[7] Records the venom allergy", False),  # the next item's text cut short
        ("[7] venom allergy recorded in the medical record", False),  # its paraphrase
        ("[6] Refers to allergy clinic for venom testing", False),  # off by one the other way
    ],
)
def test_number_with_text_naming_another_item_is_refused(key: str, judged: bool) -> None:
    t = tally({"SBP": {key: {"met": True}}})

    verdicts = by_number(t)
    assert [n for n, v in verdicts.items() if v.judged] == ([7] if judged else [])
    if not judged:
        (ignored,) = t.ignored_keys
        assert ignored.startswith(f"SBP: {key} (number ")
        assert "but the text names item 8)" in ignored or "names item 7)" in ignored


def test_numbers_outside_the_section_or_rubric_are_refused() -> None:
    t = tally({"PC": {"[4]": True, "[12]": True, "#0": True, "[2]": "yes"}})

    verdicts = by_number(t)
    assert [n for n, v in verdicts.items() if v.judged] == [2]
    assert t.ignored_keys == [
        "PC: [4] (item 4 is under MK)",
        "PC: [12] (no item 12)",
        "PC: #0 (no item 0)",
    ]


def test_text_of_one_item_under_another_competency_counts_only_when_unique() -> None:
    twins = Rubric(
        case_id="twins",
        scenario="scenario1",
        PC=["Washes hands", "Checks the airway"],
        MK=[],
        SBP=[],
        ICS=["Washes hands"],  # the same words under two competencies
        PBLI=[],
        PROF=["Apologises for the wait"],
    )
    t = tally(
        {"PC": {"Apologises for the wait": True}, "PROF": {"washes hands": True}},
        items=twins.items(),
    )

    verdicts = by_number(t)
    assert verdicts[4].judged and verdicts[4].matched_by == "other_competency"
    assert not verdicts[1].judged and not verdicts[3].judged  # "Washes hands" is 1 or 3
    assert t.ignored_keys == ["PROF: washes hands (fits items 1, 3)"]


# --------------------------------------------------------------------------- list sections


def test_list_shaped_sections_score() -> None:
    t = tally(
        {
            "PC": [
                {"item": "[1]", "met": True, "evidence": "turn 1"},
                {"id": 2, "verdict": "no"},
                {"number": 3, "value": True},
            ],
            "MK": [
                {"item": TEXT[4], "met": False, "evidence": "none"},
                {"id": "5", "item": TEXT[5], "met": "yes"},
            ],
            "SBP": [
                {"item": 6, "met": True},
                {"id": 7, "item": TEXT[8], "met": True},  # number and text disagree
                {"text": TEXT[8].lower(), "met": False},
                {"id": 9, "met": True},  # item 9 is ICS
            ],
            "ICS": [{"item": "#9", "completed": True}, "a stray line", {"note": "no item"}],
        }
    )

    verdicts = by_number(t)
    assert {n: (v.met, v.matched_by) for n, v in verdicts.items() if v.judged} == {
        1: (True, "number"),
        2: (False, "number"),
        3: (True, "number"),
        4: (False, "exact"),
        5: (True, "number"),
        6: (True, "number"),
        8: (False, "normalised"),
        9: (True, "number"),
    }
    assert verdicts[1].evidence == "turn 1"
    assert [i.number for i in t.missing()] == [7, 10, 11]
    assert t.ignored_keys == [
        f"SBP: [7] {TEXT[8]} (number 7, but the text names item 8)",
        "SBP: [9] (item 9 is under ICS)",
        "ICS: a stray line (no readable verdict)",
        "ICS: {'note': 'no item'} (no readable verdict)",
    ]


# --------------------------------------------------------------------------- conflicts


def test_two_verdicts_for_one_item_are_a_conflict_counted_as_not_met() -> None:
    first = {
        "PC": {"[1]": {"met": True, "evidence": "ABC at turn 1"}, TEXT[1]: {"met": False}},
        "MK": {"[4]": True, TEXT[4]: {"met": True, "evidence": "said anaphylaxis"}},
    }
    second = {"MK": {"[5]": True}, "SBP": {"[6]": False}, "PC": {"#2": True}}
    third = {"SBP": {"Calls the airway team early once stridor develops": True}}
    t = tally(first, second, third)

    verdicts = by_number(t)
    # item 1: both verdicts in one reply; item 6: one verdict per reply
    for number in (1, 6):
        assert verdicts[number].judged and verdicts[number].conflict
        assert verdicts[number].met is False
    assert verdicts[1].evidence == (
        f"conflicting verdicts: met by 'PC: [1]' (ABC at turn 1); not met by 'PC: {TEXT[1]}'"
    )
    # identical verdicts twice: no conflict, the first evidence kept
    assert verdicts[4].met and not verdicts[4].conflict and verdicts[4].evidence == ""
    assert verdicts[2].met and verdicts[5].met
    assert [c.number for c in t.conflicts()] == [1, 6]
    conflict = t.conflicts()[1]
    assert conflict.counted_as is False
    assert [(r.met, r.key, r.reply) for r in conflict.readings] == [
        (False, "SBP: [6]", 1),
        (True, "SBP: Calls the airway team early once stridor develops", 2),
    ]
    assert sum(v.met for v in t.verdicts()) == 3  # items 2, 4 and 5; 11 items in all
    assert len(t.verdicts()) == 11


# --------------------------------------------------------------------------- every published rubric


def test_every_published_rubric_matches_by_text_by_number_and_never_off_by_one(
    published: dict[str, Rubric],
) -> None:
    shifted = 0
    for rubric in published.values():
        items = rubric.items()
        for form in ("{text}", "[{number}]", "[{number}] {text}"):
            reply: dict[str, dict[str, Any]] = {}
            for item in items:
                key = form.format(number=item.number, text=item.text)
                reply.setdefault(item.competency, {})[key] = {"met": item.number % 3 == 0}
            t = tally(reply, items=items)
            assert t.ignored_keys == [], (rubric.id, form)
            expected = "exact" if form == "{text}" else "number"
            assert [(v.met, v.matched_by) for v in t.verdicts()] == [
                (i.number % 3 == 0, expected) for i in items
            ], (rubric.id, form)

        # a grader one line off: item n's number with item n+1's text
        index = ItemIndex(items)
        for this, following in pairwise(items):
            if this.competency != following.competency:
                continue
            found = index.reference(this.number, following.text, this.competency)
            same_words = core(this.text) == core(following.text)
            assert (found.item is not None) is same_words, (rubric.id, this.number)
            shifted += 1
    assert shifted > 20_000


# --------------------------------------------------------------------------- through the scorer


def bracketed(number: int, text: str) -> str:
    return f"[{number}]"


@pytest.fixture(scope="module")
def numbered_run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    """The three demo scenarios graded by grader A keyed by ``"[n]"``, as the prompt asks."""

    def grader(messages: list[ChatMessage]) -> dict[str, Any]:
        case = case_of(messages)
        return verdicts(case, MET_A[case], key=bracketed)

    return run_demo(Script(grader), str(tmp_path_factory.mktemp("logs")))


def test_grader_keying_by_bracketed_number_scores_as_keying_by_text(numbered_run: Run) -> None:
    log = numbered_run.log
    assert log.status == "success"
    assert len(numbered_run.grader.calls) == 3  # every item came back the first time
    for case in CASES:
        sample = numbered_run.sample(case)
        metadata = meta_of(sample)
        items = metadata["items"]
        assert [i["matched_by"] for i in items] == ["number"] * 17
        assert {i["number"] for i in items if i["met"]} == MET_A[case]
        assert metadata["ignored_keys"] == [] and metadata["conflicts"] == []
        assert values_of(sample) == VALUES_A[case]  # the same as keyed by text
    metrics = metrics_of(log)
    assert {k: frac(v) for k, v in metrics.items() if "_ci_" not in k} == METRICS_A

    # the grader was asked for exactly these keys
    system, request = numbered_run.grader.calls[0][:2]
    assert '"PC": {"[1]": {"met": true' in system.text
    assert "not by the item's text" in system.text
    assert 'that bracketed number, for example "[7]", is the key' in request.text


def test_numbered_key_whose_text_differs_never_lands_on_another_item(numbered_run: Run) -> None:
    text = {i.number: i.text for i in RUBRICS["demo_anaphylaxis"].items()}
    first = verdicts("demo_anaphylaxis", set(), only=ALL_ITEMS - {1, 10})
    first["PC"]["1. Gives an antihistamine first"] = {"met": True}  # numbering, not item 1
    first["PC"][f"[10] {text[10]}"] = {"met": True}  # item 10 is SBP
    first["SBP"][f"[11] {text[10]}"] = {"met": True}  # number 11, text of item 10
    first["SBP"]["#12 Calls the airway team early"] = {"met": True}  # item 10 cut short
    grader = Script([first, {"PC": {"[1]": False}, "SBP": {"[10]": True}}], repeat_last=False)

    log = rescore(numbered_run.log, grader, only=ANAPHYLAXIS)

    assert len(grader.calls) == 2  # items 1 and 10 were still missing, so asked again
    re_ask = grader.calls[1][-1].text
    assert f"[1] {text[1]}" in re_ask and f"[10] {text[10]}" in re_ask
    items = {i["number"]: i for i in items_of(log)}
    assert items[1]["met"] is False and items[1]["matched_by"] == "number"
    assert items[10]["met"] is True and items[10]["matched_by"] == "number"
    assert items[11]["met"] is False and items[12]["met"] is False  # verbatim, not met
    assert log.samples is not None
    metadata = meta_of(log.samples[0])
    assert metadata["ignored_keys"] == [
        "PC: 1. Gives an antihistamine first",
        f"PC: [10] {text[10]} (item 10 is under SBP)",
        f"SBP: [11] {text[10]} (number 11, but the text names item 10)",
        "SBP: #12 Calls the airway team early (number 12, but the text names item 10)",
    ]
    assert metadata["counts"]["overall"] == {"completed": 1, "total": 17}
    assert metadata["conflicts"] == []


def test_conflicting_verdicts_are_counted_shown_and_count_as_not_met(numbered_run: Run) -> None:
    text = {i.number: i.text for i in RUBRICS["demo_anaphylaxis"].items()}
    first = verdicts("demo_anaphylaxis", {1, 2, 3}, only=ALL_ITEMS - {9})
    first["PC"]["[2]"] = {"met": False, "evidence": "none"}  # item 2 both ways, one reply
    first["PC"]["[3]"] = {"met": True, "evidence": "again"}  # item 3 twice the same way
    # the re-ask brings item 9 and a second, different verdict for item 1
    second = {"MK": {"[9]": True}, "PC": {"[1]": {"met": False, "evidence": "no IM dose"}}}
    grader = Script([first, second], repeat_last=False)

    log = rescore(numbered_run.log, grader, only=ANAPHYLAXIS)

    assert len(grader.calls) == 2
    assert log.samples is not None
    score = score_of(log.samples[0])
    metadata = meta_of(log.samples[0])
    items = {i["number"]: i for i in metadata["items"]}
    for number in (1, 2):
        assert items[number]["conflict"] is True
        assert items[number]["judged"] is True and items[number]["met"] is False
    assert items[3]["conflict"] is False and items[3]["met"] is True
    assert items[9]["met"] is True
    # counted as not completed, kept in the denominator: items 3 and 9 of 17
    assert metadata["counts"]["overall"] == {"completed": 2, "total": 17}
    assert metadata["counts"]["PC"] == {"completed": 1, "total": 7}
    assert values_of(log.samples[0])["overall"] == Fraction(2, 17)
    assert metadata["unjudged"] == 0

    conflicts = metadata["conflicts"]
    assert [(c["number"], c["competency"], c["counted_as"]) for c in conflicts] == [
        (1, "PC", False),
        (2, "PC", False),
    ]
    assert [(r["met"], r["key"], r["reply"]) for r in conflicts[0]["readings"]] == [
        (True, f"PC: {text[1]}", 0),
        (False, "PC: [1]", 1),
    ]
    assert [(r["met"], r["key"]) for r in conflicts[1]["readings"]] == [
        (True, f"PC: {text[2]}"),
        (False, "PC: [2]"),
    ]
    # the checklist shows it
    assert score.explanation is not None
    lines = score.explanation.splitlines()
    line_1 = next(line for line in lines if f"[1] {text[1]}" in line)
    assert line_1.startswith("- ⚠ (conflict, counted ✗) [1]")
    assert f"met by 'PC: {text[1]}' (turn 1, item 1); not met by 'PC: [1]' (no IM dose)" in line_1
    assert next(line for line in lines if f"[3] {text[3]}" in line).startswith("- ✓ [3]")
    assert sum("⚠" in line for line in lines) == 2


def test_list_shaped_sections_score_through_the_scorer(numbered_run: Run) -> None:
    case = "demo_anaphylaxis"
    reply: dict[str, Any] = {"reasoning": ["Marked as a list."]}
    for item in RUBRICS[case].items():
        met = item.number in MET_A[case]
        shapes: list[dict[str, Any]] = [
            {"item": f"[{item.number}]", "met": met},
            {"id": item.number, "verdict": met},
            {"number": item.number, "value": "yes" if met else "no"},
            {"item": item.text, "met": met, "evidence": "turn 1" if met else "none"},
        ]
        entry = shapes[item.number % 4]
        reply.setdefault(item.competency, []).append(entry)
    grader = Script([reply])

    log = rescore(numbered_run.log, grader, only=ANAPHYLAXIS)

    assert len(grader.calls) == 1
    assert log.samples is not None
    assert values_of(log.samples[0]) == VALUES_A[case]
    items = items_of(log)
    assert all(i["judged"] for i in items)
    assert [i["matched_by"] for i in items] == [
        "exact" if i["number"] % 4 == 3 else "number" for i in items
    ]
    assert meta_of(log.samples[0])["ignored_keys"] == []
