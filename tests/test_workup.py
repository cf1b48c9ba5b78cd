"""The work-up (``medsp_workup``): each order's category, cost, necessity and timing, on the
offline demo (worked out by hand from the scripts), on a synthetic record, with a user's price
table, with a grading model's classification, appended to an old log, and in the report."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval
from inspect_ai.event import InfoEvent
from inspect_ai.log import EvalLog, read_eval_log, resolve_sample_attachments
from inspect_ai.model import ModelOutput, get_model
from inspect_ai.util import Store
from inspect_ai.viewer import TaskSamplesView, ViewerConfig

from inspect_medsp import medsp_demo
from inspect_medsp.errors import MedSPDataError
from inspect_medsp.orders import load_prices
from inspect_medsp.orders.categories import CATEGORY_NAMES, decide, keyword_category
from inspect_medsp.record import (
    ActionAssessment,
    ActionRecord,
    ClinicianReply,
    EnvironmentReply,
    PatientReply,
    Trajectory,
    TurnRecord,
    Verdict,
    result_of,
)
from inspect_medsp.workup import Workup
from inspect_medsp.workup.classify import classify_orders
from inspect_medsp.workup.tally import tally
from tests.support.cli import inspect_in

SCRIPTED = "medsp/scripted"
FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> EvalLog:
    folder = tmp_path_factory.mktemp("workup")
    [log] = eval(medsp_demo(judge=SCRIPTED), model=SCRIPTED, log_dir=str(folder), display="none")
    assert log.status == "success", log.error
    return log


def _workup(log: EvalLog) -> dict[str, Workup]:
    assert log.samples is not None
    out: dict[str, Workup] = {}
    for sample in log.samples:
        found = result_of(sample.scores or {}, Workup)  # the newest work-up
        assert found is not None, sample.id
        out[str(sample.id)] = found
    return out


# Worked out by hand from src/inspect_medsp/scripted/scripts/*.json: each order of the
# clinician's "actions", its category by the keyword table (the earliest keyword wins) and its
# tier in orders/prices.yaml (bedside 1, disposition 1, laboratory 2, other diagnostic 2,
# medication 2, consultation 3, procedure 4, imaging 5). "cited" is the met items whose
# scripted evidence phrase is first found in that order (the scripted grader quotes the first
# line holding it). The curve counts the met items by the turn of the line holding their
# phrase first, over the 17 items of each rubric.
DEMO: dict[str, dict[str, Any]] = {
    "demo_anaphylaxis/scenario1": {
        # T1 lie flat (nursing 1, [2]); epinephrine (medication 2, [1]); oxygen via
        # non-rebreather (medication 2, [3]); ECG monitoring (other 2); T2 two IV cannulas
        # (procedure 4); saline bolus (medication 2, [4]); blood count... (laboratory 2,
        # pending); T3 repeat epinephrine (medication 2, [5]); call the anaesthetist
        # (consultation 3, [10]); cetirizine (medication 2); T4 confirm with the nurse
        # (bedside 1, [13]); tryptase sample (laboratory 2, pending); T5 hydrocortisone
        # (medication 2); T6 admit (disposition 1); refer to the allergy clinic
        # (consultation 3, [11]).
        "orders": 15,
        "cost": 1 + 2 + 2 + 2 + 4 + 2 + 2 + 2 + 3 + 2 + 1 + 2 + 2 + 1 + 3,  # 31
        "by_category": {
            "nursing": 1,
            "bedside": 1,
            "medication": 6,
            "other_diagnostic": 1,
            "procedure": 1,
            "laboratory": 2,
            "consultation": 2,
            "disposition": 1,
        },
        "cited": {0: [2], 1: [1], 2: [3], 5: [4], 7: [5], 8: [10], 10: [13], 14: [11]},
        # linked by words too: the cannulas to [4], the monitoring to [3], the admission to
        # [9] and [16]; the bloods, cetirizine, tryptase and hydrocortisone serve no met item
        "serves": {
            0: [2],
            1: [1],
            2: [3],
            3: [3],
            4: [4],
            5: [4],
            7: [1, 5],
            8: [10],
            10: [13],
            13: [9, 16],
            14: [11],
        },
        "not_asked_for": 4,
        "undecided": 0,
        "pending": ["Blood count, chemistry and venous gas", "Serum mast cell tryptase sample"],
        "first_turn": {
            "nursing": 1,
            "medication": 1,
            "other_diagnostic": 1,
            "procedure": 2,
            "laboratory": 2,
            "consultation": 3,
            "bedside": 4,
            "disposition": 6,
        },
        # items met by turn: T1 [1][2][3]; T2 [4][6]; T3 [5][10][14]; T4 [13]; T5 none;
        # T6 [9][11][16]: 3, 5, 8, 9, 9, 12 of 17
        "curve": [3, 5, 8, 9, 9, 12],
    },
    "demo_bad_news/scenario1": {
        # T1 close the door (bedside 1); review the chart (records 1); T4 allow silence
        # (bedside 1, [10]); tissues (bedside 1); T5 note ... incident report (records 1);
        # T7 urgent referral (consultation 3); tumour board (consultation 3). Item [3]'s
        # phrase is in the clinician's words of T7, not in the referral order; by words the
        # referral and the tumour board serve [3], the door [5], the incident report [13];
        # the chart review shares a single word with a met item: undecided.
        "orders": 7,
        "cost": 1 + 1 + 1 + 1 + 1 + 3 + 3,  # 11
        "by_category": {"bedside": 3, "records": 2, "consultation": 2},
        "cited": {2: [10]},
        "serves": {0: [5], 2: [10], 4: [13], 5: [3], 6: [3]},
        "not_asked_for": 1,
        "undecided": 1,
        "pending": [],
        "first_turn": {"bedside": 1, "records": 1, "consultation": 7},
        # T1 [5][6]; T2 [7][8]; T3 [9]; T4 [10]; T5 [13][15]; T6 [11]; T7 [2][3]
        "curve": [2, 4, 5, 6, 8, 9, 11],
    },
    "demo_peds_asthma/scenario1": {
        # T1 assess ABC (bedside 1, [1]); oxygen (medication 2, [2]); monitoring (other 2);
        # salbutamol with ipratropium (medication 2, [3]); dexamethasone (medication 2, [4]);
        # T3 re-examine, PRAM (bedside 1, [6]); T4 IV cannula (procedure 4); magnesium
        # (medication 2, [7]); venous blood gas (laboratory 2); T5 call the PICU fellow
        # (consultation 3, [10]); T6 pharmacy, fluticasone (medication 2, [11]).
        "orders": 11,
        "cost": 1 + 2 + 2 + 2 + 2 + 1 + 4 + 2 + 2 + 3 + 2,  # 23
        "by_category": {
            "bedside": 2,
            "medication": 5,
            "other_diagnostic": 1,
            "procedure": 1,
            "laboratory": 1,
            "consultation": 1,
        },
        "cited": {0: [1], 1: [2], 3: [3], 4: [4], 5: [6], 7: [7], 9: [10], 10: [11]},
        "serves": {
            0: [1],
            1: [2],
            2: [2],
            3: [3],
            4: [4],
            5: [6],
            6: [7],
            7: [7],
            9: [10],
            10: [11],
        },
        "not_asked_for": 1,
        "undecided": 0,
        "pending": [],
        "first_turn": {
            "bedside": 1,
            "medication": 1,
            "other_diagnostic": 1,
            "procedure": 4,
            "laboratory": 4,
            "consultation": 5,
        },
        # T1 [1][2][3][4][14][16]; T2 [8]; T3 [6]; T4 [7][13]; T5 [10]; T6 [11][17]
        "curve": [6, 7, 8, 10, 11, 13],
    },
}


def test_every_demo_order_is_counted_categorised_and_priced(demo: EvalLog) -> None:
    found = _workup(demo)
    assert set(found) == set(DEMO)
    for sid, want in DEMO.items():
        w = found[sid]
        assert len(w.orders) == want["orders"], sid
        assert w.cost == want["cost"] and w.currency == "tier units", sid
        assert w.unpriced == [] and all(o.cost is not None for o in w.orders), sid
        assert w.by_category == want["by_category"], sid
        cited = {i: o.cited_by for i, o in enumerate(w.orders) if o.cited_by}
        assert cited == want["cited"], sid
        serves = {i: o.serves for i, o in enumerate(w.orders) if o.serves}
        assert serves == want["serves"], sid
        assert w.not_asked_for == want["not_asked_for"], sid
        assert w.orders_undecided == want["undecided"], sid
        assert w.pending_at_end == want["pending"] and w.unsupported == [], sid
        assert w.first_turn == want["first_turn"], sid
        assert w.items == 17 and w.untraced == 0, sid
        assert w.curve == [round(n / 17, 4) for n in want["curve"]], sid
        assert all(o.category_source == "reading" for o in w.orders), sid


def test_the_demo_score_value_and_turn_summary(demo: EvalLog) -> None:
    assert demo.samples is not None
    sample = next(s for s in demo.samples if s.id == "demo_bad_news/scenario1")
    score = (sample.scores or {})["medsp_workup"]
    assert score.value == {"cost": 11.0, "orders": 7, "not_asked_for": 1}
    assert score.explanation is not None
    assert (
        "1 of 6 decided orders not linked to a met item (not asked for by the rubric, which "
        "is not the same as wrong)"
    ) in score.explanation
    assert (
        "- T4 · history and examination at the bedside · 1 tier unit · [10] by quote+words — "
        "Sit quietly for a moment and allow silence"
    ) in score.explanation
    assert "· undecided — Review the pathology and CT reports in the chart" in score.explanation


def test_each_turn_summary_marks_its_orders_as_the_work_up_does(demo: EvalLog) -> None:
    # The transcript's turn summaries (written during the encounter, before any scorer)
    # mark each order with the category and shipped-tier cost the work-up gives it.
    assert demo.samples is not None
    samples = [resolve_sample_attachments(s) for s in demo.samples]
    for sample in samples:
        workup = _workup(demo)[str(sample.id)]
        summaries = {
            int(source.removeprefix("turn ")): str(e.data)
            for e in sample.events
            if isinstance(e, InfoEvent) and (source := e.source or "").startswith("turn ")
        }
        assert sorted(summaries) == list(range(1, max(summaries) + 1)), sample.id
        for order in workup.orders:
            assert order.cost is not None, (sample.id, order.order)
            unit = "tier unit" if order.cost == 1 else "tier units"
            mark = f" · {CATEGORY_NAMES[order.category]} · {order.cost:g} {unit}"
            did = summaries[order.turn].partition("**Clinician did:**")[2]
            [line] = [ln for ln in did.splitlines() if f" — {order.order}" in ln]
            assert line.endswith(mark), (sample.id, line, mark)
    bad_news = next(s for s in samples if s.id == "demo_bad_news/scenario1")
    turn4 = next(
        str(e.data) for e in bad_news.events if isinstance(e, InfoEvent) and e.source == "turn 4"
    )
    assert (
        "- ✓ executed — Sit quietly for a moment and allow silence _(read as: Sit quietly for a "
        "moment and allow silence)_ · history and examination at the bedside · 1 tier unit"
    ) in turn4


def test_the_viewer_shows_three_labelled_work_up_headlines(demo: EvalLog) -> None:
    viewer = demo.eval.viewer
    assert isinstance(viewer, ViewerConfig)
    view = viewer.task_samples_view
    assert isinstance(view, TaskSamplesView)
    shown = {c.id: c.visible for c in view.columns or []}
    visible = [k for k, v in shown.items() if v and k.startswith("score__medsp_workup__")]
    assert visible == [f"score__medsp_workup__{k}" for k in ("cost", "orders", "not_asked_for")]
    labels = view.score_labels or {}
    # one name per score (the key the sample's header shows), with its unit, the caveat in it
    assert labels["cost"] == "cost (price-table units, priced orders only)"
    assert labels["not_asked_for"] == "not_asked_for (orders not linked to a met item)"
    # not coloured against the run's maximum: the scenarios differ clinically
    scales = view.score_color_scales or {}
    assert "cost" not in scales and "not_asked_for" not in scales


# A synthetic record: one order no item cites, one several cite, an unsupported one, one
# pending at the end, one pending then carried out later, and one no keyword classifies.


def _turn(index: int, orders: list[tuple[str, str, str]], speak: str = "") -> TurnRecord:
    return TurnRecord(
        index=index,
        state_label="stage",
        progress_index=index,
        clinician=ClinicianReply(speak=speak, actions=[o for o, _, _ in orders]),
        patient=PatientReply(speak=["I see."]),
        environment=EnvironmentReply(
            action_assessments=[
                ActionAssessment(raw=o, interpreted_action=r, status=s)  # type: ignore[arg-type]
                for o, r, s in orders
            ]
        ),
    )


def synthetic() -> Trajectory:
    traj = Trajectory(store=Store())
    traj.turns = [
        _turn(
            1,
            [
                ("Chest X-ray", "portable chest radiograph", "executed"),
                ("Troponin", "serum troponin", "pending"),
                ("Check the lactate", "lactate level", "pending"),
            ],
            speak="Tell me when the pain started.",
        ),
        _turn(
            2,
            [
                ("Aspirin 300 mg chewed", "aspirin 300 mg", "executed"),
                ("Cardiac MRI now", "cardiac MRI", "unsupported"),
                ("Check the lactate", "lactate level", "executed"),
                ("Wiggle the toes", "", "executed"),
            ],
        ),
        _turn(3, [("Admit to coronary care", "admission to the CCU", "executed")]),
    ]
    traj.end = "should_end"
    return traj


def _verdict(number: int, met: bool, evidence: str) -> Verdict:
    return Verdict(
        number=number,
        competency="PC",
        text=f"item {number}",
        met=met,
        judged=True,
        evidence=evidence,
    )


VERDICTS = [
    _verdict(1, True, "T2 action: Aspirin 300 mg chewed"),
    _verdict(2, True, "Aspirin 300 mg chewed"),  # uncited quote: traced to the T2 order
    _verdict(3, True, "T1 says: when the pain started"),  # the clinician's words, no order
    _verdict(4, True, "T3 action: Admit to coronary care"),
    _verdict(5, False, "none"),
    _verdict(6, True, "checked the pupils"),  # no line of the encounter: untraced
]


def test_a_synthetic_record_counts_each_kind_of_order() -> None:
    traj = synthetic()
    decided = [decide(a.interpreted_action, a.raw) for a in traj.action_log]
    result = tally(traj, load_prices(None), decided, VERDICTS, items=8)
    by_order = {o.order + f"@T{o.turn}": o for o in result.orders}
    assert by_order["Aspirin 300 mg chewed@T2"].cited_by == [1, 2]  # several items cite it
    assert by_order["Chest X-ray@T1"].cited_by == []  # no item cites it
    assert by_order["Admit to coronary care@T3"].cited_by == [4]
    assert result.not_asked_for == 6  # 8 orders, 2 cited
    assert result.unsupported == ["Cardiac MRI now"]
    # the troponin is pending at the end; the lactate was carried out in turn 2
    assert result.pending_at_end == ["Troponin"]
    assert not by_order["Check the lactate@T1"].pending_at_end
    # "Wiggle the toes" matches no keyword: unclassified, unpriced, counted and named
    toes = by_order["Wiggle the toes@T2"]
    assert (toes.category, toes.category_source, toes.cost) == ("uncategorised", "none", None)
    assert result.unpriced == ["Wiggle the toes"]
    assert result.cost == 5 + 2 + 2 + 2 + 5 + 2 + 1  # X-ray, 2 labs, aspirin, MRI, lab, admit
    assert result.by_category["imaging"] == 2 and result.first_turn["medication"] == 2
    # items met by turn: T1 [3]; T2 [1][2]; T3 [4]; [6] cites no line (untraced) and nothing
    # else places it: it counts from the last turn only, and the curve says so
    assert result.curve == [round(1 / 8, 4), round(3 / 8, 4), round(5 / 8, 4)]
    assert result.untraced == 1 and result.items_unplaced == 1
    assert result.curve_note.startswith("1 of 5 met items could not be placed in a turn")


def test_without_rubric_verdicts_necessity_says_why() -> None:
    traj = synthetic()
    decided = [decide(a.interpreted_action, a.raw) for a in traj.action_log]
    result = tally(
        traj, load_prices(None), decided, None, 8, "the sample has no medsp_rubric score"
    )
    assert result.not_asked_for is None and result.curve == []
    assert result.necessity == "the sample has no medsp_rubric score"
    assert len(result.orders) == 8 and result.cost == 19


def test_a_category_is_decided_by_the_reading_then_the_order_then_not_at_all() -> None:
    # the environment's reading decides when a keyword is in it
    assert decide("portable chest radiograph", "Get a picture of the chest") == (
        "imaging",
        "reading",
    )
    # else the clinician's words
    assert decide("as requested", "Troponin level") == ("laboratory", "order")
    assert decide("", "Blood cultures times two") == ("laboratory", "order")
    # else none
    assert decide("done", "Wiggle the toes") == ("uncategorised", "none")
    # the earliest keyword wins: a call to assess the airway is a consultation
    assert keyword_category("Call the anaesthetist to assess the airway") == "consultation"
    # what the order does comes first: reviewing a CT report is a look at the chart
    assert keyword_category("Review the CT report in the chart") == "records"


async def test_a_grading_model_classifies_and_falls_back_per_order() -> None:
    actions = [
        ActionRecord(turn=1, raw=raw, status="executed")
        for raw in ("Get a picture of the chest", "Troponin", "Wiggle the toes")
    ]  # fmt: skip
    reply = '{"categories": {"1": "imaging", "2": "not a category"}}'
    model = get_model("mockllm/model", custom_outputs=[
        ModelOutput.from_content("mockllm/model", reply)
    ])  # fmt: skip
    decided, usable = await classify_orders(model, actions)
    assert usable
    assert decided == [("imaging", "model"), ("laboratory", "order"), ("uncategorised", "none")]


# A user's price table


def _prices(tmp_path: Path, text: str) -> str:
    path = tmp_path / "prices.yaml"
    path.write_text(text, encoding="utf-8")
    return str(path)


GOOD = """currency: EUR
source: our hospital's 2025 tariff
year: 2025
categories:
  laboratory: 12.5
  imaging: 80
names:
  troponin: 30
  cardiac MRI: 600
"""


def test_a_users_table_prices_by_name_then_category(tmp_path: Path) -> None:
    table = load_prices(_prices(tmp_path, GOOD))
    traj = synthetic()
    decided = [decide(a.interpreted_action, a.raw) for a in traj.action_log]
    result = tally(traj, table, decided, VERDICTS, items=8)
    costs = {o.order + f"@T{o.turn}": (o.cost, o.priced_by) for o in result.orders}
    assert costs["Troponin@T1"] == (30, "name: troponin")
    assert costs["Cardiac MRI now@T2"] == (600, "name: cardiac MRI")
    assert costs["Chest X-ray@T1"] == (80, "category")
    assert costs["Check the lactate@T1"] == (12.5, "category")
    # medication and disposition are not in this table: unpriced, never 0
    assert set(result.unpriced) == {
        "Aspirin 300 mg chewed",
        "Wiggle the toes",
        "Admit to coronary care",
    }
    assert result.cost == 30 + 600 + 80 + 12.5 + 12.5 and result.currency == "EUR"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("currency: EUR\ncategories:\n  radiology: 5\n",
         "categories: unknown category 'radiology'; use one of bedside"),
        ("currency: EUR\ncategories:\n  imaging: -5\n",
         "categories: imaging: -5 is negative; give a cost of 0 or more"),
        ("currency: EUR\nnames:\n  troponin: cheap\n",
         "names: troponin: 'cheap' is not a number; give a cost of 0 or more"),
        ("currency: EUR\nnames:\n  troponin: 5\n  Troponin: 6\n",
         "names: 'Troponin' is given twice (as 'troponin' too); keep one"),
        ("currency: EUR\nnames:\n  troponin: 5\n  troponin: 6\n",
         "an entry 'troponin' is given twice (line 4); keep one"),
        ("categories:\n  imaging: 5\n", "currency: missing; state the unit"),
    ],
)  # fmt: skip
def test_a_bad_price_file_is_one_line_naming_the_file_and_entry(
    tmp_path: Path, text: str, message: str
) -> None:
    path = _prices(tmp_path, text)
    with pytest.raises(MedSPDataError) as raised:
        load_prices(path)
    said = str(raised.value)
    assert said.startswith(f"{path}: ") and message in said and "\n" not in said


def _old_log(tmp_path: Path) -> Path:
    copy = tmp_path / "old.eval"
    shutil.copy(FIXTURES / "schema1_demo_repeats.eval", copy)
    return copy


def test_inspect_score_refuses_a_bad_price_file_before_scoring(tmp_path: Path) -> None:
    log = _old_log(tmp_path)
    before = log.read_bytes()
    bad = _prices(tmp_path, "currency: EUR\ncategories:\n  radiology: 5\n")
    done = inspect_in(
        tmp_path,
        "score",
        str(log),
        "--scorer",
        "inspect_medsp/medsp_workup",
        "-S",
        f"prices={bad}",
        "--action",
        "append",
        "--overwrite",
    )
    output = done.stdout + done.stderr
    assert done.returncode != 0 and "Traceback" not in output, output
    assert f"{bad}: categories: unknown category 'radiology'" in " ".join(output.split())
    assert log.read_bytes() == before


def _without(log: EvalLog, scorer: str) -> dict[str, Any]:
    """The log as JSON without ``scorer``: its entry among the eval's scorers, its results,
    reductions and scores, and the events of its scoring span; the events by their ids
    (Inspect writes a log's events again in time order, and an older log holds a few out of
    it)."""
    data = log.model_dump(mode="json")
    data["eval"]["scorers"] = [s for s in data["eval"]["scorers"] if s["name"] != scorer]
    data["results"]["scores"] = [r for r in data["results"]["scores"] if r["scorer"] != scorer]
    data["reductions"] = [r for r in data["reductions"] if r["scorer"] != scorer]
    for sample in data["samples"]:
        sample["scores"].pop(scorer, None)
        spans = {e["id"] for e in sample["events"]
                 if e["event"] == "span_begin" and e["name"] == scorer}  # fmt: skip
        kept = [
            e for e in sample["events"] if e.get("id") not in spans and e["span_id"] not in spans
        ]
        sample["events"] = sorted(kept, key=lambda e: str(e["uuid"]))
    return data


def test_appended_to_an_old_log_the_work_up_appears_and_nothing_else_changes(
    tmp_path: Path,
) -> None:
    log = _old_log(tmp_path)
    old = read_eval_log(str(log))
    done = inspect_in(
        tmp_path,
        "score",
        str(log),
        "--scorer",
        "inspect_medsp/medsp_workup",
        "--action",
        "append",
        "--overwrite",
    )
    assert done.returncode == 0, done.stderr
    new = read_eval_log(str(log))
    assert _without(new, "medsp_workup") == _without(old, "medsp_workup")
    assert new.samples is not None
    [sample] = new.samples
    w = Workup.model_validate((sample.scores or {})["medsp_workup"].metadata)
    assert len(w.orders) == 15 and w.cost == 31 and w.not_asked_for is not None
    assert new.results is not None
    found = {r.name: {k: m.value for k, m in r.metrics.items()} for r in new.results.scores}
    assert set(found) == {"medsp_rubric", "medsp_workup"}
    assert found["medsp_workup"] == {
        "cost_mean": 31, "orders_mean": 15, "not_asked_for_share": 4 / 15, "share_withheld": 0,
        "worked_up": 1,
    }  # fmt: skip


def test_the_report_shows_the_work_up_per_group_with_its_files(
    demo: EvalLog, tmp_path: Path
) -> None:
    from inspect_medsp.full_report import write_report

    # best-of-N on one scenario beside the demo run: a second group on the same plane
    [bon] = eval(
        medsp_demo(scenarios="demo_bad_news/*", judge=SCRIPTED, strategy="bon", n=2),
        model=SCRIPTED, log_dir=str(tmp_path / "logs"), display="none",
    )  # fmt: skip
    assert bon.status == "success"
    out = tmp_path / "report"
    write_report([Path(str(demo.location)), Path(str(bon.location))], out)
    text = (out / "report.md").read_text(encoding="utf-8")
    section = text.split("## The work-up\n")[1].split("\n## ")[0]
    assert "not the same as wrong" in section and "not a bill a hospital pays" in section
    table = section.split("Paired differences")[0]
    rows = {line.split(" | ")[0].lstrip("| "): line for line in table.splitlines()
            if line.startswith("| medsp/scripted")}  # fmt: skip
    # by hand: (31 + 11 + 23) / 3 per encounter, 33 orders of which 1 undecided and 4 + 1 + 1
    # of the 32 decided not linked to a met item
    off = rows["medsp/scripted (strategy=off)"]
    assert (
        "| 3 | 21.67 (no interval: 3 case(s), fewer than 6) | 0 of 33 (0%) | 11.0 | "
        "6 of 32 (19%) | 1 |"
    ) in off
    assert (
        "| 1 | 11.00 (no interval: 1 case(s), fewer than 6) | 0 of 7 (0%) | 7.0 | 1 of 6 (17%) |"
        in rows["medsp/scripted (strategy=bon)"]
    )
    assert "orders linked to a met item: 17 by quote, 26 by words; 1 undecided" in section
    assert "Paired differences of cost per encounter" in section
    for name in ("workup_frontier.png", "workup_curve.png"):
        assert (out / name).read_bytes().startswith(b"\x89PNG") and f"]({name})" in section
    groups = (out / "workup.csv").read_text(encoding="utf-8").splitlines()
    header = groups[0].split(",")
    off_row = next(r for r in groups if r.startswith("medsp/scripted (strategy=off)"))
    # the curve over the three encounters, each held at its last turn: 11/51 ... 36/51
    curve = dict(zip(header, off_row.split(","), strict=True))
    assert float(curve["items_met_turn_1"]) == round(11 / 51, 4)
    assert float(curve["items_met_turn_7"]) == round(36 / 51, 4)
    orders = (out / "workup_orders.csv").read_text(encoding="utf-8").splitlines()
    assert len(orders) == 1 + 33 + 7


def test_classify_names_its_model_and_falls_back_when_its_reply_is_unusable(
    demo: EvalLog,
) -> None:
    from inspect_ai import score

    from inspect_medsp.workup import medsp_workup

    # mockllm's default reply is no JSON: every order falls back to the keyword table, and
    # the grading is a named subtask that says so
    [bad_news] = [s for s in demo.samples or [] if s.id == "demo_bad_news/scenario1"]
    scorers = [medsp_workup(classify="mockllm/model")]
    rescored = score(demo.model_copy(deep=True), scorers, action="append", display="none")
    assert rescored.samples is not None
    sample = next(s for s in rescored.samples if s.id == bad_news.id)
    again = (sample.scores or {})["medsp_workup1"]
    w = Workup.model_validate(again.metadata)
    assert w.classify == "mockllm/model"
    assert [o.category for o in w.orders] == [
        o.category for o in _workup(demo)[str(bad_news.id)].orders
    ]
    assert all(o.category_source == "reading" for o in w.orders)
    assert again.value == {"cost_1": 11.0, "orders_1": 7, "not_asked_for_1": 1}
    subtasks = [e for e in sample.events if e.event == "subtask" and e.name == "work-up categories"]
    assert [s.result for s in subtasks] == ["unusable: keyword table used"]


def test_a_classify_model_that_cannot_be_made_is_one_line(tmp_path: Path) -> None:
    from inspect_medsp.workup import medsp_workup

    with pytest.raises(MedSPDataError) as raised:
        medsp_workup(classify="nosuchprovider/model")
    said = str(raised.value)
    assert said.startswith("medsp_workup: classify=nosuchprovider/model cannot be made here")
    assert "\n" not in said


def test_unsupported_and_unpriced_orders_reach_the_report_and_the_end_of_run_line(
    demo: EvalLog, tmp_path: Path
) -> None:
    from inspect_ai import score
    from inspect_ai.log import write_eval_log

    from inspect_medsp.full_report import write_report
    from inspect_medsp.workup import medsp_workup
    from inspect_medsp.workup.capability import workup_line

    # plant what a real environment does: it could not carry out the tumour-board listing
    log = demo.model_copy(deep=True)
    [bad_news] = [s for s in log.samples or [] if s.id == "demo_bad_news/scenario1"]
    turns = bad_news.store["Trajectory:turns"]
    turns[-1]["environment"]["action_assessments"][1]["status"] = "unsupported"
    # a table that prices laboratory tests alone: every other order is unpriced
    prices = _prices(tmp_path, "currency: EUR\ncategories:\n  laboratory: 10\n")
    scored = score(log, [medsp_workup(prices=prices)], action="append", display="none")
    path = tmp_path / "planted.eval"
    write_eval_log(scored, str(path))
    found = _workup(read_eval_log(str(path)))
    assert found["demo_bad_news/scenario1"].unsupported == [
        "List the case for next Wednesday's tumour board"
    ]
    # 33 orders, of which 3 laboratory tests are priced (blood count, tryptase, blood gas)
    assert sum(len(w.unpriced) for w in found.values()) == 30
    assert sum(w.cost for w in found.values()) == 30 and all(
        w.currency == "EUR" for w in found.values()
    )
    said = workup_line(read_eval_log(str(path)))
    assert said is not None and said.startswith("MedSP: 30 order(s) the work-up's price table")
    write_report([path], tmp_path / "report")
    text = (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
    section = text.split("## The work-up\n")[1].split("\n## ")[0]
    assert "Most common orders the environment could not carry out:" in section
    assert "- List the case for next Wednesday's tumour board (1)" in section
    assert f"Price table: {prices}; costs in EUR." in section


def test_every_task_works_up_unless_told_not_to() -> None:
    from inspect_ai.util import registry_info

    def names(**kwargs: Any) -> list[str]:
        task = medsp_demo(judge=SCRIPTED, **kwargs)
        return [registry_info(s).name.split("/")[-1] for s in task.scorer or []]

    assert names() == ["medsp_rubric", "medsp_workup"]
    assert names(audit=True) == ["medsp_rubric", "medsp_simulation_audit", "medsp_workup"]
    assert names(workup=False) == ["medsp_rubric"]


def test_cost_per_encounter_has_its_case_clustered_interval_from_six_cases() -> None:
    from types import SimpleNamespace
    from typing import cast

    from inspect_ai.scorer import Score

    from inspect_medsp.record import MedspSample, SampleMetadata
    from inspect_medsp.report import Analysis
    from inspect_medsp.scoring import clustered_ratio
    from inspect_medsp.workup.summary import group_rows

    costs = {"c1": [4.0, 6.0], "c2": [10.0], "c3": [7.0], "c4": [3.0, 5.0], "c5": [8.0],
             "c6": [12.0], "c7": [6.0]}  # fmt: skip
    samples = []
    for case, values in costs.items():
        for i, cost in enumerate(values):
            result = Workup(orders=[], currency="tier units", prices="prices.yaml", cost=cost)
            score = Score(value={"cost": cost, "orders": 0}, metadata=result.model_dump())
            samples.append(MedspSample(id=f"{case}/scenario{i + 1}",
                                       metadata=SampleMetadata(case_id=case),
                                       scores={"medsp_workup": score}))  # fmt: skip
    group = SimpleNamespace(label="g", samples=samples, metrics={"macro": 0.5})
    [row] = group_rows(cast(Analysis, SimpleNamespace(groups=[group])))
    flat = [c for values in costs.values() for c in values]
    expected = clustered_ratio(flat, [1.0] * len(flat), [s.case_id for s in samples])
    assert row.cases == 7 and row.cost == sum(flat) / len(flat)
    assert row.cost_low is not None and row.cost_high is not None
    assert (row.cost_low, row.cost_high) == (expected.low, expected.high)
    assert row.cost_low < row.cost < row.cost_high
