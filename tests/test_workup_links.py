"""The work-up under a grader that quotes nothing (the published benchmark's bare true/false
per item): orders linked to the met items they serve by their words, the share of orders not
asked for within reach of the hand-labelled one or withheld with its reason, a curve that
rises with the items met, pending orders answered by a later result, whole-word prices and
categories, and the held-out hand labels (``tests/fixtures/heldout/workup/``) measured."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from inspect_ai import eval
from inspect_ai.log import EvalLog
from inspect_ai.model import ChatMessage
from inspect_ai.util import Store

from inspect_medsp import medsp_demo
from inspect_medsp.orders import CATEGORIES, decide
from inspect_medsp.orders.prices import load_prices, parse_table
from inspect_medsp.record import (
    ActionAssessment,
    ClinicianReply,
    EnvironmentReply,
    PatientReply,
    Trajectory,
    TurnRecord,
    Verdict,
    result_of,
)
from inspect_medsp.workup import Workup
from inspect_medsp.workup.link import Rubric, link_order
from inspect_medsp.workup.scorer import turn_summary, workup_value
from inspect_medsp.workup.tally import tally
from tests.support.scripts import Script

SCRIPTED = "medsp/scripted"
HELDOUT = Path(__file__).parent / "fixtures" / "heldout" / "workup"


@pytest.fixture(scope="module")
def quoted(tmp_path_factory: pytest.TempPathFactory) -> EvalLog:
    """The demo graded by the scripted grader, which quotes its evidence."""
    folder = tmp_path_factory.mktemp("quoted")
    [log] = eval(medsp_demo(judge=SCRIPTED), model=SCRIPTED, log_dir=str(folder), display="none")
    assert log.status == "success", log.error
    return log


def _verdicts(log: EvalLog) -> dict[str, list[Verdict]]:
    assert log.samples is not None
    return {
        str(s.id): [Verdict.model_validate(v) for v in (s.scores or {})["medsp_rubric"].metadata
                    ["items"]]  # type: ignore[index]
        for s in log.samples
    }  # fmt: skip


def bare_grader(verdicts: dict[str, list[Verdict]]) -> Script:
    """A grader that replies, per item, true or false and nothing else: the same verdicts as
    the scripted grader's, found by the rubric it is shown, with no quote."""

    def reply(messages: list[ChatMessage]) -> dict[str, Any]:
        text = "\n".join(m.text for m in messages)
        [items] = [v for v in verdicts.values() if all(i.text.split("\n")[0] in text for i in v)]
        out: dict[str, Any] = {}
        for item in items:
            out.setdefault(item.competency, {})[f"[{item.number}]"] = item.met
        return out

    return Script(reply)


@pytest.fixture(scope="module")
def bare(quoted: EvalLog, tmp_path_factory: pytest.TempPathFactory) -> EvalLog:
    """The demo graded by a grader that returns bare booleans."""
    folder = tmp_path_factory.mktemp("bare")
    [log] = eval(
        medsp_demo(judge=SCRIPTED),
        model=SCRIPTED,
        model_roles={"grader": bare_grader(_verdicts(quoted)).model()},
        log_dir=str(folder),
        display="none",
    )
    assert log.status == "success", log.error
    return log


def _workups(log: EvalLog) -> dict[str, Workup]:
    assert log.samples is not None
    out = {str(s.id): result_of(s.scores or {}, Workup) for s in log.samples}
    assert all(w is not None for w in out.values())
    return {k: w for k, w in out.items() if w is not None}


# The demo's orders linked by hand (the helper's own reading of the scripts and rubrics,
# written before the linker was run: the tuning set, not the held-out one). Each order's
# position in its encounter -> the met items it serves.
OWN_LINKS: dict[str, dict[int, list[int]]] = {
    "demo_anaphylaxis/scenario1": {
        0: [2], 1: [1], 2: [3], 3: [3], 4: [4], 5: [4], 6: [], 7: [5], 8: [10], 9: [],
        10: [13], 11: [], 12: [], 13: [9, 16], 14: [11],
    },
    "demo_bad_news/scenario1": {0: [5], 1: [], 2: [10], 3: [10], 4: [13], 5: [3], 6: [3]},
    "demo_peds_asthma/scenario1": {
        0: [1], 1: [2], 2: [2], 3: [3], 4: [4], 5: [6], 6: [7], 7: [7], 8: [], 9: [10],
        10: [11],
    },
}  # fmt: skip


def _hand_share(workups: dict[str, Workup], links: dict[str, dict[int, list[int]]]) -> float:
    orders = [(sid, i) for sid, w in workups.items() for i in range(len(w.orders))]
    return sum(not links[sid].get(i) for sid, i in orders) / len(orders)


def test_bare_booleans_give_the_same_rubric_numbers(quoted: EvalLog, bare: EvalLog) -> None:
    for log in (quoted, bare):
        assert log.results is not None
        [rubric] = [s for s in log.results.scores if s.name == "medsp_rubric"]
        assert round(rubric.metrics["macro"].value, 3) == 0.706
    assert all(not v.evidence for vs in _verdicts(bare).values() for v in vs)


def test_under_bare_booleans_the_share_is_true_or_withheld_never_all(bare: EvalLog) -> None:
    found = _workups(bare)
    orders = sum(len(w.orders) for w in found.values())
    given = [w for w in found.values() if w.not_asked_for is not None]
    for w in found.values():
        assert w.untraced == w.items_met  # the grader quoted nothing
        assert w.linked_by.get("quote", 0) == 0
        if w.not_asked_for is None:
            assert w.necessity.startswith("withheld: ")
            assert workup_value(w)["not_asked_for"] == w.necessity
    not_asked = sum(w.not_asked_for or 0 for w in given)
    decided = sum(len(w.orders) - w.orders_undecided for w in given)
    share = not_asked / decided
    hand = _hand_share(found, OWN_LINKS)
    assert share < 1.0 and abs(share - hand) <= 0.10, (share, hand)
    assert orders == 33
    # the log header reads the same share
    assert bare.results is not None
    [workup] = [s for s in bare.results.scores if s.name == "medsp_workup"]
    assert workup.metrics["not_asked_for_share"].value == pytest.approx(share)


def test_under_bare_booleans_the_curve_rises_to_the_items_met(bare: EvalLog) -> None:
    for sid, w in _workups(bare).items():
        assert w.items_met > 0 and w.curve, sid
        assert w.curve[0] > 0, sid  # never flat zero while items were met
        assert w.curve == sorted(w.curve), sid
        assert w.curve[-1] == round(w.items_met / w.items, 4), sid
        placed = sum(w.items_placed.values())
        assert placed >= 0.7 * w.items_met and "quote" not in w.items_placed, sid
        assert w.items_unplaced == w.items_met - placed
        if w.items_unplaced:
            assert "could not be placed in a turn" in w.curve_note


def test_the_bare_curve_is_close_to_the_quoted_one(quoted: EvalLog, bare: EvalLog) -> None:
    q, b = _workups(quoted), _workups(bare)
    for sid in q:
        gaps = [abs(x - y) for x, y in zip(q[sid].curve, b[sid].curve, strict=True)]
        assert max(gaps) <= 0.25, (sid, q[sid].curve, b[sid].curve)


def test_iv_access_and_monitoring_serve_items_4_and_3(bare: EvalLog, quoted: EvalLog) -> None:
    for log in (bare, quoted):
        w = _workups(log)["demo_anaphylaxis/scenario1"]
        by = {o.order: o for o in w.orders}
        cannulas = by["Two large-bore IV cannulas"]
        monitoring = by["Continuous ECG, blood pressure and SpO2 monitoring"]
        assert cannulas.serves == [4] and "words" in cannulas.linked_by
        assert monitoring.serves == [3] and "words" in monitoring.linked_by
        assert "[4] by words — Two large-bore IV cannulas" in turn_summary(w)


def test_the_scoring_tab_says_what_the_share_rests_on(bare: EvalLog) -> None:
    assert bare.samples is not None
    text = (bare.samples[0].scores or {})["medsp_workup"].explanation or ""
    assert "Linked: " in text and "by words" in text and "Met items placed in a turn" in text


def test_the_demo_with_quotes_links_by_quote_and_words(quoted: EvalLog) -> None:
    found = _workups(quoted)
    for sid, w in found.items():
        assert w.untraced == 0 and w.items_placed == {"quote": w.items_met}, sid
    share = sum(w.not_asked_for or 0 for w in found.values()) / sum(
        len(w.orders) - w.orders_undecided for w in found.values()
    )
    assert abs(share - _hand_share(found, OWN_LINKS)) <= 0.10


# A record whose pending tests come back as a later state event and a later reading.


def _turn(index: int, orders: list[tuple[str, str]], feedback: list[str],
          events: list[str]) -> TurnRecord:  # fmt: skip
    return TurnRecord(
        index=index,
        state_label="stage",
        progress_index=index,
        clinician=ClinicianReply(speak="", actions=[o for o, _ in orders]),
        patient=PatientReply(speak=["Okay."]),
        environment=EnvironmentReply(
            feedback=feedback,
            events=events,
            action_assessments=[
                ActionAssessment(raw=o, interpreted_action=o, status=s)  # type: ignore[arg-type]
                for o, s in orders
            ],
        ),
    )


def test_a_pending_order_answered_by_a_later_result_is_not_pending_at_the_end() -> None:
    traj = Trajectory(store=Store())
    traj.turns = [
        _turn(1, [("Full blood count and U&E", "pending"), ("Serum troponin", "pending"),
                  ("Blood cultures", "pending")], ["Bloods sent to the laboratory."], []),
        _turn(2, [], [], ["Results back: Hb 128, WCC 14.2, sodium 136, creatinine 88."]),
        _turn(3, [], ["Troponin: 4 ng/L, below the limit."], ["Blood cultures still pending."]),
    ]  # fmt: skip
    traj.end = "should_end"
    decided = [decide(a.interpreted_action, a.raw) for a in traj.action_log]
    result = tally(traj, load_prices(None), decided, [], items=4)
    assert result.pending_at_end == ["Blood cultures"]
    assert "pending at the end" in turn_summary(result)
    assert "(answered later)" in turn_summary(result)


# Whole words: names and keywords.


def test_a_price_name_matches_whole_words_only() -> None:
    table = parse_table("currency: EUR\ncategories: {}\nnames: {CT: 20, cardiac MRI: 600}\n", "t")
    priced = ["CT head", "Request ct_scan of the chest", "ct-abdomen", "Staging CT/PET"]
    unpriced = ["Pre-alert activation", "electrolytes", "renal function", "Inspect skin",
                "Act now", "Doctor review"]  # fmt: skip
    for order in priced:
        assert table.price(order, "", "imaging") == (20.0, "name: CT"), order
    for order in unpriced:
        assert table.price(order, "", "uncategorised") == (None, ""), order
    assert table.price("Cardiac  MRI with contrast", "", "imaging")[0] == 600.0
    assert table.price("MRI of the cardiac region", "", "imaging")[0] is None


def test_underscores_hyphens_and_slashes_separate_words_in_categories() -> None:
    assert decide("results_review", "")[0] == "records"
    assert decide("neuro_obs", "")[0] == "other_diagnostic"
    assert decide("", "blood-culture/lactate")[0] == "laboratory"
    assert decide("", "electrolytes")[0] == "laboratory"  # no "ct" inside a word


CLINICAL = {
    "Open the biopsy report and the staging CT report": "records",
    "Neurological observations every 30 minutes": "other_diagnostic",
    "Give a written head-injury leaflet": "education",
    "Lie him flat with legs raised": "nursing",
    "Sit her upright": "nursing",
    "Keep nil by mouth": "nursing",
    "Teach-back on the auto-injector": "education",
    "Pre-alert the receiving team": "consultation",
    "Record the allergy in the medical record": "records",
}


def test_categories_place_what_clinicians_order() -> None:
    for order, category in CLINICAL.items():
        assert decide("", order) == (category, "order"), order


# Shorthand as clinicians type it, written for the table from general clinical knowledge (UK,
# US and Australian ward and ED usage); none is taken from either held-out set.
SHORTHAND: dict[str, str] = {
    # laboratory
    "FBC, U&E, CRP": "laboratory", "VBG + lactate": "laboratory", "BC x2": "laboratory",
    "MSU for MC&S": "laboratory", "G&S": "laboratory", "coag screen": "laboratory",
    "hs-trop at 0 and 3h": "laboratory", "CBG": "laboratory", "beta-hCG": "laboratory",
    "EUC, LFT, FBE": "laboratory", "BMP, Mg, Phos": "laboratory", "PET bloods": "laboratory",
    "catheter specimen of urine": "laboratory", "4 units crossmatch": "laboratory",
    # imaging
    "CTKUB ?stone": "imaging", "USS pelvis": "imaging", "TVUSS": "imaging", "AXR": "imaging",
    "V/Q scan": "imaging", "MRCP": "imaging", "eFAST": "imaging", "stat CT head": "imaging",
    "RUQ ultrasound": "imaging", "Arrange an outpatient echo": "imaging",
    # other diagnostic
    "12-lead": "other_diagnostic", "CTG for 20 min": "other_diagnostic", "tele": "other_diagnostic",
    "strict I/O": "other_diagnostic", "postural BP": "other_diagnostic",
    "Record his peak flow": "other_diagnostic", "24h tape": "other_diagnostic",
    "Stop routine obs": "other_diagnostic", "drain output": "other_diagnostic",
    # medication
    "co-amoxiclav 1.2g IV TDS": "medication", "O2 15L NRB": "medication", "IVF": "medication",
    "Hartmann's 1L over 8h": "medication", "Zofran 4 mg IV q6h prn": "medication",
    "2 units PRBC": "medication", "TXA 1g": "medication", "flu jab": "medication",
    "Xylo 10 mg PO": "medication", "hold metformin": "medication", "IV NAC": "medication",
    "0.5 mg IM adrenaline": "medication", "target sats 88-92%": "medication",
    # procedure
    "20G cannula R ACF": "procedure", "IDC": "procedure", "NGT": "procedure", "LP": "procedure",
    "POP backslab": "procedure", "I&D abscess": "procedure", "DC cardioversion": "procedure",
    "reduce shoulder under sedation": "procedure", "list for theatre": "procedure",
    "Remove the foreign body": "procedure", "TWOC": "procedure",
    # consultation
    "d/w med reg": "consultation", "bleep on-call surg reg": "consultation", "SALT": "consultation",
    "PT/OT": "consultation", "r/v by cardiology": "consultation", "MET call": "consultation",
    "let the consultant know": "consultation", "CAMHS": "consultation",
    "resp nurse": "consultation",
    # disposition
    "d/c home": "disposition", "TTO": "disposition", "f/u 2/52": "disposition",
    "2WW referral": "disposition", "RTC 3/12": "disposition", "SDEC": "disposition",
    "Tell mum to come back if he stops feeding": "disposition",
    "pt to see GP in 1 week": "disposition",
    # nursing
    "NBM": "nursing", "1:1": "nursing", "HOB 30": "nursing", "2-hourly turns": "nursing",
    "falls bundle": "nursing", "TEDs": "nursing", "NWB": "nursing", "Mr Jones to be NBM": "nursing",
    # education
    "counsel re: driving": "education", "PIL": "education", "sick day rules": "education",
    "RICE advice": "education", "warn re: drowsiness": "education",
    # records
    "chase bloods": "records", "D/C summary": "records", "med rec": "records",
    "DNACPR form": "records", "datix": "records", "check drug chart": "records",
    # bedside
    "hx from mum": "bedside", "abdo exam": "bedside", "MSE": "bedside", "4AT": "bedside",
    "Kernig's sign": "bedside", "CURB-65": "bedside", "NIHSS": "bedside",
    "XR not needed per Ottawa": "bedside", "PR": "bedside",
}  # fmt: skip


def test_categories_place_the_shorthand_clinicians_type() -> None:
    wrong = {o: decide("", o)[0] for o, c in SHORTHAND.items() if decide("", o)[0] != c}
    assert not wrong, wrong
    assert decide("", "Wiggle the toes")[0] == "uncategorised"  # nothing is guessed


def test_an_order_the_table_cannot_place_is_uncategorised_and_named() -> None:
    traj = Trajectory(store=Store())
    traj.turns = [_turn(1, [("Wiggle the toes", "executed"), ("CT head", "executed")], [], [])]
    decided = [decide(a.interpreted_action, a.raw) for a in traj.action_log]
    result = tally(traj, load_prices(None), decided, None, items=3, missing="no verdicts")
    assert result.uncategorised == ["Wiggle the toes"] and result.unpriced == ["Wiggle the toes"]
    assert "1 uncategorised, so the cost is a lower bound" in turn_summary(result)


def test_an_order_sharing_a_single_word_is_undecided_and_out_of_the_share() -> None:
    rubric = Rubric.of({1: "Explains the plan to the family", 2: "Gives aspirin"}, [1, 2])
    assert link_order("Aspirin 300 mg", "", rubric).serves == (2,)
    assert link_order("Plan the discharge", "", rubric).necessity == "undecided"
    assert link_order("Chest X-ray", "", rubric).necessity == "not_linked"
    assert link_order("Do it now", "", rubric).necessity == "undecided"  # no words to read


# The held-out hand labels, run once the linker and the table were finished.


def _item_number(text: str, verdicts: list[Verdict]) -> int | None:
    want = " ".join(text.split()).casefold()
    for v in verdicts:
        have = " ".join(v.text.split()).casefold()
        if have == want or have.startswith(want) or want.startswith(have):
            return v.number
    return None


def heldout_links(verdicts: dict[str, list[Verdict]]) -> list[tuple[str, int, str, set[int]]]:
    data = yaml.safe_load((HELDOUT / "links.yaml").read_text(encoding="utf-8"))
    out = []
    for entry in data["orders"]:
        items = verdicts[entry["scenario"]]
        serves = {n for t in entry.get("serves") or [] if (n := _item_number(t, items))}
        out.append((entry["scenario"], int(entry["turn"]), entry["order"], serves))
    return out


LINK_PRECISION = 0.87  # the one held-out run: 27 of 31 pairs (0.871); docs/workup.md
LINK_RECALL = 0.84  # 27 of 32 pairs (0.844)


def test_the_linker_on_the_held_out_hand_links(quoted: EvalLog) -> None:
    verdicts = _verdicts(quoted)
    true_pairs = predicted = hits = 0
    for scenario, _, order, serves in heldout_links(verdicts):
        items = verdicts[scenario]
        rubric = Rubric.of({v.number: v.text for v in items}, [v.number for v in items])
        found = set(link_order(order, "", rubric).serves)
        true_pairs += len(serves)
        predicted += len(found)
        hits += len(found & serves)
    assert hits / predicted >= LINK_PRECISION and hits / true_pairs >= LINK_RECALL


def test_the_bare_share_is_within_ten_points_of_the_held_out_hand_share(
    quoted: EvalLog, bare: EvalLog
) -> None:
    verdicts = _verdicts(quoted)
    hand = heldout_links(verdicts)
    met = {sid: {v.number for v in vs if v.met} for sid, vs in verdicts.items()}
    hand_share = sum(not (serves & met[sid]) for sid, _, _, serves in hand) / len(hand)
    found = _workups(bare)
    given = [w for w in found.values() if w.not_asked_for is not None]
    share = sum(w.not_asked_for or 0 for w in given) / sum(
        len(w.orders) - w.orders_undecided for w in given
    )
    assert len(hand) == 33 and abs(share - hand_share) <= 0.10, (share, hand_share)


def heldout_categories(name: str) -> tuple[int, int, list[tuple[str, str, str]]]:
    """The table on a held-out set of hand-categorised orders (``categories.yaml`` or
    ``categories2.yaml``): how many it placed, how many in the annotator's category or an
    alternative, and every misplacement as (order, table, annotator)."""
    data = yaml.safe_load((HELDOUT / name).read_text(encoding="utf-8"))
    placed = correct = 0
    misses: list[tuple[str, str, str]] = []
    for entry in data["orders"]:
        got, _how = decide("", entry["order"])
        placed += got in CATEGORIES
        alternative = entry.get("alternative") or []
        if isinstance(alternative, str):
            alternative = [a.strip() for a in alternative.split(",")]
        if got in {entry["category"], *alternative}:
            correct += 1
        else:
            given = entry["category"] + (f" ({', '.join(alternative)})" if alternative else "")
            misses.append((entry["order"], got, given))
    return placed, correct, misses


# The first set (docs/workup.md) measured the table before the shorthand was added: 46 of 60
# placed, 37 correct. It was then read and used for tuning, so its present figures (60 and 52
# of 60) are a tuning figure, not a held-out one.
CATEGORY_TUNED = (60, 52)


def test_the_category_table_on_the_first_held_out_set_used_for_tuning() -> None:
    placed, correct, _ = heldout_categories("categories.yaml")
    assert (placed, correct) >= CATEGORY_TUNED


# The second set, written blind and never read while the table was built; run once on the
# finished table, the figures as they came out (docs/workup.md): 79 of 80 placed (98.8%), 67 of
# 80 in the annotator's category or an alternative (83.8%). Not tuned afterwards.
CATEGORY2_PLACED = 79
CATEGORY2_CORRECT = 67


def test_the_category_table_on_the_blind_second_set() -> None:
    placed, correct, _ = heldout_categories("categories2.yaml")
    assert placed >= CATEGORY2_PLACED and correct >= CATEGORY2_CORRECT


def test_too_few_decided_orders_withhold_the_share_with_its_reason() -> None:
    traj = Trajectory(store=Store())
    traj.turns = [
        _turn(1, [("Plan the discharge", "executed"), ("Family meeting", "executed"),
                  ("Aspirin 300 mg", "executed")], [], []),
    ]  # fmt: skip
    verdicts = [
        Verdict(number=1, competency="PC", text="Explains the plan to the family", met=True,
                judged=True),
        Verdict(number=2, competency="PC", text="Gives aspirin", met=True, judged=True),
    ]  # fmt: skip
    decided = [decide(a.interpreted_action, a.raw) for a in traj.action_log]
    result = tally(traj, load_prices(None), decided, verdicts, items=2)
    assert result.orders_undecided == 2 and result.not_asked_for is None
    assert result.necessity == (
        "withheld: 1 of 3 orders could be linked or ruled out (2 undecided), fewer than 80%"
    )
    assert workup_value(result)["not_asked_for"] == result.necessity
    assert "(not asked for: withheld: 1 of 3 orders" in turn_summary(result)
    # a group whose every encounter was withheld shows the reason, not a share
    from inspect_medsp.workup.summary import GroupWorkup

    row = GroupWorkup(label="g", encounters=1, missing=0, currency="tier units", cost=3.0,
                      withheld=1)  # fmt: skip
    assert row.not_asked_share is None and row.share_withheld.startswith("withheld: in every")


def test_an_epoch_mean_keeps_a_withheld_reason_and_never_counts_it_as_zero() -> None:
    from inspect_ai.scorer import Score

    from inspect_medsp.scoring import epoch_mean

    reduce = epoch_mean()
    reason = "withheld: 1 of 3 orders could be linked or ruled out (2 undecided), fewer than 80%"
    withheld = Score(value={"cost": 4.0, "orders": 3, "not_asked_for": reason})
    given = Score(value={"cost": 6.0, "orders": 3, "not_asked_for": 2})
    both = reduce([withheld, given])
    assert isinstance(both.value, dict)
    assert both.value["not_asked_for"] == 2 and both.value["cost"] == 5.0
    alone = reduce([withheld, withheld])
    assert isinstance(alone.value, dict) and alone.value["not_asked_for"] == reason


# -S link=<model>: a grading model links the orders, shown only the item texts and the orders.


async def test_a_linking_model_sees_only_the_item_texts_and_the_orders() -> None:
    from inspect_medsp.record import ActionRecord
    from inspect_medsp.workup.linkmodel import link_with_model

    items = {1: "Gives aspirin", 2: "Arranges a chest X-ray", 3: "Explains the plan"}
    actions = [
        ActionRecord(turn=1, raw=raw, interpreted_action=reading, status="executed")
        for raw, reading in (("Aspirin 300 mg", "aspirin"), ("CXR", "chest radiograph"),
                             ("Tell him the plan", ""))
    ]  # fmt: skip
    script = Script([{"links": {"1": [1], "2": ["[2]", 9]}}])
    found, usable = await link_with_model(script.model(), items, actions)
    assert usable and found == {0: [1], 1: [2]}  # item 9 is no item; order 3 left out
    [prompt] = script.texts()
    assert all(f"[{n}] {text}" in prompt for n, text in items.items())
    assert "2. CXR (understood as: chest radiograph)" in prompt
    for hidden in ("met", "competenc", "score", "PC", "ICS"):
        assert hidden not in prompt.replace("metadata", ""), hidden


def test_model_links_take_the_place_of_words_and_the_rest_fall_back() -> None:
    traj = Trajectory(store=Store())
    traj.turns = [
        _turn(1, [("Aspirin 300 mg", "executed"), ("CXR", "executed"),
                  ("Tell him the plan", "executed")], [], []),
    ]  # fmt: skip
    verdicts = [
        Verdict(number=1, competency="PC", text="Gives aspirin", met=True, judged=True),
        Verdict(number=2, competency="PC", text="Arranges a chest X-ray", met=True, judged=True),
        Verdict(number=3, competency="ICS", text="Explains the plan", met=False, judged=True),
    ]  # fmt: skip
    decided = [decide(a.interpreted_action, a.raw) for a in traj.action_log]
    result = tally(traj, load_prices(None), decided, verdicts, items=3,
                   model_links={0: [1], 1: [2]}, linker="some/model")  # fmt: skip
    by = {o.order: o for o in result.orders}
    assert by["Aspirin 300 mg"].serves == [1] and by["Aspirin 300 mg"].linked_by == ["model"]
    assert by["CXR"].serves == [2] and by["CXR"].linked_by == ["model"]
    # left out by the model: its words, which share one plain word with an unmet item only
    assert by["Tell him the plan"].necessity == "not_linked"
    assert result.link == "some/model" and result.linked_by == {"model": 2}


def test_an_unusable_linking_reply_falls_back_to_the_words(quoted: EvalLog) -> None:
    from inspect_ai import score

    from inspect_medsp.workup import medsp_workup

    rescored = score(quoted.model_copy(deep=True), [medsp_workup(link="mockllm/model")],
                     action="append", display="none")  # fmt: skip
    assert rescored.samples is not None
    for sample in rescored.samples:
        again = Workup.model_validate((sample.scores or {})["medsp_workup1"].metadata)
        first = _workups(quoted)[str(sample.id)]
        assert again.link == "mockllm/model"
        assert [o.serves for o in again.orders] == [o.serves for o in first.orders]
        subtasks = [e for e in sample.events if e.event == "subtask" and e.name == "work-up links"]
        assert [s.result for s in subtasks] == ["unusable: linked by words"]


def test_a_chest_pain_record_graded_by_bare_booleans() -> None:
    # a record of our own, graded true/false with no quote: the share and the curve come
    # from the words of the orders and the items, never 100% and never flat
    traj = Trajectory(store=Store())
    traj.turns = [
        _turn(1, [("12-lead ECG now", "executed"), ("Aspirin 300 mg chewed", "executed")],
              ["ECG: ST elevation in II, III, aVF."], []),
        _turn(2, [("Serum troponin", "pending"), ("Chest X-ray", "executed")], [], []),
        _turn(3, [("Call the cardiology registrar for primary PCI", "executed")],
              ["Troponin 850 ng/L."], []),
    ]  # fmt: skip
    traj.turns[1].clinician.speak = "When did the pain start, and does it spread to your arm?"
    texts = {
        1: "Obtains a 12-lead ECG within 10 minutes of arrival",
        2: "Gives aspirin 300 mg",
        3: "Asks when the pain started and where it spreads",
        4: "Refers to cardiology for primary PCI",
        5: "Explains the diagnosis to the patient",
    }
    verdicts = [
        Verdict(number=n, competency="PC", text=t, met=n != 5, judged=True)
        for n, t in texts.items()
    ]
    decided = [decide(a.interpreted_action, a.raw) for a in traj.action_log]
    result = tally(traj, load_prices(None), decided, verdicts, items=5)
    by = {o.order: o for o in result.orders}
    assert by["12-lead ECG now"].serves == [1] and by["Aspirin 300 mg chewed"].serves == [2]
    assert by["Call the cardiology registrar for primary PCI"].serves == [4]
    assert result.not_asked_for == 2  # the troponin and the X-ray
    assert result.untraced == 4 and result.items_placed == {"order": 3, "words": 1}
    assert result.curve == [0.4, 0.6, 0.8]
    assert result.pending_at_end == []  # the troponin came back in turn 3
