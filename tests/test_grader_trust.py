"""Can the grader be trusted? Agreement between graders, grading repeats, clinician sheets and
the self-preference warning, with scripted graders whose disagreements are known.

Hand figures use the demo rubrics (17 items each, numbered as in ``tests/test_scoring.py``)
and grader A's verdicts ``MET_A``: 7, 8 and 8 items met.
"""

from __future__ import annotations

import csv
import math
import random
import shutil
from collections import Counter
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai._eval.score import resolve_scorers
from inspect_ai.dataset import Sample
from inspect_ai.log import EvalLog, read_eval_log, write_eval_log
from inspect_ai.model import ChatMessage, GenerateConfig
from inspect_ai.scorer import match

from inspect_medsp import medsp_demo
from inspect_medsp.agreement.agreement import AgreementRow, analyse_agreement
from inspect_medsp.agreement.raters import AgreementError, read_graded
from inspect_medsp.agreement.validation_sheet import allocate, draw
from inspect_medsp.cli import main
from inspect_medsp.data import COMPETENCIES
from inspect_medsp.full_report import write_report
from inspect_medsp.hooks.selfpref import self_preference_lines
from inspect_medsp.record import Verdict, self_preference
from inspect_medsp.scoring import medsp_rubric
from inspect_medsp.scoring.repeats import TIE_RULE, majority
from tests.conftest import REPO
from tests.support.scripts import Script, clinician, environment, patient
from tests.test_scoring import (
    ANAPHYLAXIS,
    CASES,
    JUDGE,
    MET_A,
    RUBRICS,
    Run,
    case_of,
    encounter_scripts,
    meta_of,
    per_case,
    rescore,
    run_demo,
    verdicts,
)

Item = tuple[str, int]
"""A demo scenario (case name) and an item number."""


def saved(log: EvalLog, path: Path) -> str:
    """Write a re-scored log to ``path`` (``inspect score`` writes it; the API returns it)."""
    write_eval_log(log, str(path))
    return str(path)


def flipped(met: dict[str, set[int]], flips: set[Item]) -> dict[str, set[int]]:
    """``met`` with the verdicts of ``flips`` turned over."""
    out = {case: set(items) for case, items in met.items()}
    for case, number in flips:
        out[case] ^= {number}
    return out


def cohen(a: Sequence[bool], b: Sequence[bool]) -> tuple[Fraction, Fraction]:
    """Percent agreement and Cohen's kappa by the textbook formula, exactly."""
    n = len(a)
    observed = Fraction(sum(x == y for x, y in zip(a, b, strict=True)), n)
    pa, pb = Fraction(sum(a), n), Fraction(sum(b), n)
    chance = pa * pb + (1 - pa) * (1 - pb)
    return observed, (observed - chance) / (1 - chance)


def competency_votes(
    first: dict[str, set[int]], second: dict[str, set[int]], key: str
) -> tuple[list[bool], list[bool]]:
    """Both raters' verdicts on every item of ``key`` (``overall``: every item)."""
    a: list[bool] = []
    b: list[bool] = []
    for case in CASES:
        for item in RUBRICS[case].items():
            if key in ("overall", item.competency):
                a.append(item.number in first[case])
                b.append(item.number in second[case])
    return a, b


def by_competency(rows: list[AgreementRow], comparison: str) -> dict[str, AgreementRow]:
    return {r.competency: r for r in rows if r.comparison == comparison}


def close(value: float, fraction: Fraction) -> bool:
    return abs(value - float(fraction)) < 1e-12


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    """All three demo scenarios graded by grader A, saved as a log file."""
    return run_demo(Script(per_case(MET_A)), str(tmp_path_factory.mktemp("logs")))


def path_of(run: Run) -> str:
    assert run.log.location
    return run.log.location


# --------------------------------------------------------------------------- 1. graders

# Grader B differs from A on six known items: 2 in PC, one each in MK, ICS, PBLI (and a second
# ICS item in bad_news).
FLIPS_B: set[Item] = {
    ("demo_anaphylaxis", 2),  # PC: B met, A not
    ("demo_anaphylaxis", 8),  # MK: A met, B not
    ("demo_bad_news", 5),  # ICS: A met, B not
    ("demo_bad_news", 10),  # ICS: B met, A not
    ("demo_peds_asthma", 4),  # PC: B met, A not
    ("demo_peds_asthma", 15),  # PBLI: B met, A not
}
MET_B = flipped(MET_A, FLIPS_B)

# By hand (items, agreement, Cohen's kappa):
# overall: 51 items, 45 agree; A met 23, B met 25; chance (23*25 + 28*26) / 51^2 = 1303/2601;
#   kappa = (2295 - 1303) / (2601 - 1303) = 992/1298 = 496/649
# PC: 16 items, 14 agree; A met 6, B met 8; chance 1/2; kappa (7/8 - 1/2) / (1/2) = 3/4
# MK: 4 items, 3 agree; A met 1, B met 0; chance 3/4; kappa 0
# SBP: 8 items, all agree (item 12 of peds met by both): kappa 1
# ICS: 13 items, 11 agree; both met 10; chance 109/169; kappa (143 - 109) / (169 - 109) = 17/30
# PBLI: 2 items, 1 agrees; A met 1, B met 2; chance 1/2; kappa 0
# PROF: 8 items, all agree: kappa 1
HAND_B: dict[str, tuple[int, Fraction, Fraction]] = {
    "overall": (51, Fraction(45, 51), Fraction(496, 649)),
    "PC": (16, Fraction(7, 8), Fraction(3, 4)),
    "MK": (4, Fraction(3, 4), Fraction(0)),
    "SBP": (8, Fraction(1), Fraction(1)),
    "ICS": (13, Fraction(11, 13), Fraction(17, 30)),
    "PBLI": (2, Fraction(1, 2), Fraction(0)),
    "PROF": (8, Fraction(1), Fraction(1)),
}


def test_two_graders_agreement_and_kappa_equal_the_hand_computation(
    run: Run, tmp_path: Path
) -> None:
    regrade = saved(rescore(run.log, Script(per_case(MET_B))), tmp_path / "b.eval")
    result = analyse_agreement([path_of(run), regrade])

    rows = by_competency(result.rows, "graders")
    assert set(rows) == set(HAND_B)
    for key, (items, agree, kappa) in HAND_B.items():
        row = rows[key]
        assert row.items == items and row.unscored == 0 and row.unjudged == 0, key
        assert close(row.agreement, agree) and close(row.kappa, kappa), key
        assert row.kappa_kind == "cohen"
        # the same figures from the textbook formula on the scripts' verdicts
        assert (agree, kappa) == cohen(*competency_votes(MET_A, MET_B, key))
        # three cases: no agreement interval, as the leaderboard gives none below MIN_CASES
        assert math.isnan(row.agreement_ci_low) and math.isnan(row.agreement_ci_high)
    assert result.encounters == 3 and result.left_out_encounters == 0

    # the items they disagree on are exactly the flipped ones
    shown = {(d.sample_id.split("/")[0], d.number) for d in result.disagreements}
    assert shown == FLIPS_B
    assert all(d.compared == 1 and d.disagreed == 1 for d in result.disagreements)

    # the headline moves by B's net extra items: overall (0 + 0 + 2) / 17 / 3 = 2/51
    shift = {s.competency: s for s in result.shifts}
    assert close(shift["overall"].difference, Fraction(2, 51))
    assert close(shift["overall"].reference_macro, Fraction(23, 51))
    assert close(shift["PC"].difference, Fraction(2, 21))  # (1/7 + 0 + 1/7) / 3
    assert close(shift["MK"].difference, Fraction(-1, 4))  # (-1/2 + 0) / 2
    assert math.isnan(shift["overall"].ci_low)  # three cases: no interval (MIN_CASES)


def fleiss(votes: Sequence[Sequence[bool]]) -> tuple[Fraction, Fraction]:
    """Fleiss' observed agreement and kappa by the textbook formula, exactly."""
    m = len(votes[0])
    pairs = [
        Fraction(sum(v) * (sum(v) - 1) + (m - sum(v)) * (m - sum(v) - 1), m * (m - 1))
        for v in votes
    ]
    observed = sum(pairs, Fraction(0)) / len(votes)
    p = Fraction(sum(sum(v) for v in votes), m * len(votes))
    chance = p * p + (1 - p) * (1 - p)
    return observed, (observed - chance) / (1 - chance)


def test_three_graders_give_fleiss_and_each_pair_cohen(run: Run, tmp_path: Path) -> None:
    """Graders A, B and A again: on each of B's six flips one of three pairs agrees.

    By hand, overall: observed (45 + 6/3) / 51 = 47/51; met 71 of 153 verdicts, chance
    (71^2 + 82^2) / 153^2 = 11765/23409; kappa (21573 - 11765) / 11644 = 2452/2911.
    """
    regrade = saved(rescore(run.log, Script(per_case(MET_B))), tmp_path / "b.eval")
    result = analyse_agreement([path_of(run), regrade, path_of(run)])
    rows = by_competency(result.rows, "graders")
    assert rows["overall"].kappa_kind == "fleiss"
    assert close(rows["overall"].agreement, Fraction(47, 51))
    assert close(rows["overall"].kappa, Fraction(2452, 2911))
    for key, row in rows.items():
        a, b = competency_votes(MET_A, MET_B, key)
        agree, kappa = fleiss([(x, y, x) for x, y in zip(a, b, strict=True)])
        assert close(row.agreement, agree), key
        assert close(row.kappa, kappa) if chance_defined(a + b) else row.kappa != row.kappa
    a_name = Path(path_of(run)).name
    pair = by_competency(result.rows, f"graders: {a_name} vs b.eval")
    for key, (_, agree, kappa) in HAND_B.items():
        assert close(pair[key].agreement, agree) and close(pair[key].kappa, kappa), key
        assert pair[key].kappa_kind == "cohen"
    assert by_competency(result.rows, f"graders: {a_name} vs {a_name}")["overall"].kappa == 1.0


def chance_defined(votes: Sequence[bool]) -> bool:
    return 0 < sum(votes) < len(votes)


def test_the_command_writes_table_chart_and_summary(run: Run, tmp_path: Path) -> None:
    regrade = saved(rescore(run.log, Script(per_case(MET_B))), tmp_path / "b.eval")
    out = tmp_path / "agreement"
    assert main(["agreement", path_of(run), regrade, "--out", str(out)]) == 0
    with (out / "agreement.csv").open() as handle:
        table = list(csv.DictReader(handle))
    assert list(table[0])[:4] == ["comparison", "kind", "raters", "competency"]
    assert {"items", "agreement", "kappa", "agreement_ci_low", "kappa_ci_high"} <= set(table[0])
    overall = next(r for r in table if r["competency"] == "overall")
    assert int(overall["items"]) == 51 and abs(float(overall["agreement"]) - 45 / 51) < 1e-6
    assert [r["competency"] for r in table] == ["overall", *COMPETENCIES[:3], "ICS", "PBLI", "PROF"]
    summary = (out / "agreement.md").read_text()
    assert "![agreement](agreement.png)" in summary
    # agreement 45/51 = 0.882, kappa 496/649 = 0.764, each with its interval
    [line] = [x for x in summary.splitlines() if x.startswith("| graders | overall | 51 |")]
    assert "| 0 / 0 | 0.88 |" in line and "| 0.76 [" in line and "(cohen)" in line
    assert (out / "agreement.png").stat().st_size > 10_000
    assert (out / "disagreements.csv").read_text().count("\n") == 1 + len(FLIPS_B)


def test_a_log_compared_with_itself_agrees_fully(run: Run) -> None:
    result = analyse_agreement([path_of(run), path_of(run)])
    rows = by_competency(result.rows, "graders")
    assert set(rows) == set(HAND_B)
    for key, row in rows.items():
        assert row.agreement == 1.0 and row.kappa == 1.0 and row.unanimous == 1.0, key
        assert math.isnan(row.agreement_ci_low)  # three cases: no interval
    assert result.disagreements == []
    assert all(s.difference == 0.0 for s in result.shifts)


def test_items_unscored_or_unjudged_by_one_grader_are_left_out(run: Run, tmp_path: Path) -> None:
    """Grader C fails on bad_news (unscored) and never judges items 3 and 8 of anaphylaxis,
    both met under A: read as "not met", they would be disagreements."""

    def grader_c(messages: list[ChatMessage]) -> str | dict[str, Any]:
        case = case_of(messages)
        if case == "demo_bad_news":
            return "not JSON"
        everything = {i.number for i in RUBRICS[case].items()}
        skipped = {3, 8} if case == "demo_anaphylaxis" else set()
        return verdicts(case, MET_A[case], only=everything - skipped)

    regrade = saved(rescore(run.log, Script(grader_c)), tmp_path / "c.eval")
    rows = by_competency(analyse_agreement([path_of(run), regrade]).rows, "graders")
    assert (rows["overall"].items, rows["overall"].unscored, rows["overall"].unjudged) == (
        51 - 17 - 2,
        17,
        2,
    )
    assert rows["overall"].agreement == 1.0
    assert (rows["PC"].unjudged, rows["MK"].unjudged, rows["ICS"].unscored) == (1, 1, 8)


def test_logs_of_different_encounters_are_refused(
    run: Run, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A fresh run of the same scenarios with another clinician: same ids, other records."""
    other_clinician = Script(
        lambda m: clinician("Good morning, I am Dr Lee.", ["check vital signs"], eos=True)
    )
    [other] = inspect_eval(
        medsp_demo(judge=JUDGE),
        model=other_clinician.model(),
        model_roles={
            "patient": Script([patient("Hello.")]).model(),
            "environment": Script([environment(0, "initial_assessment", end=True)]).model(),
            "grader": Script(per_case(MET_A)).model(),
        },
        log_dir=str(tmp_path),
        display="none",
    )
    assert other.location
    with pytest.raises(AgreementError, match="graded a different encounter"):
        analyse_agreement([path_of(run), other.location])

    code = main(["agreement", path_of(run), other.location, "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "graded a different encounter" in err and other.location in err
    assert "demo_anaphylaxis/scenario1 epoch 1" in err
    assert not (tmp_path / "out").exists()


def test_nothing_to_compare_is_one_line(run: Run, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["agreement", path_of(run), "--out", "unused"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nothing to compare" in err


# --------------------------------------------------------------------------- 2. repeats

# For these items the grader answers at random, right ("met") with probability 0.7; every
# other item it answers as grader A. The draw depends only on the scenario, the request's
# seed and the item, so the test knows every answer.
RANDOM_ITEMS: dict[str, set[int]] = {
    "demo_anaphylaxis": {2, 4, 5, 6, 7, 9, 10, 11, 12},
    "demo_bad_news": {2, 3, 4, 10, 11, 12, 15, 16, 17},
    "demo_peds_asthma": {4, 5, 6, 7, 8, 9, 10, 11, 15},
}
P_RIGHT = 0.7


def answer(case: str, seed: int | None, number: int) -> bool:
    if number not in RANDOM_ITEMS[case]:
        return number in MET_A[case]
    return random.Random(f"{case}:{seed}:{number}").random() < P_RIGHT


class RandomGrader:
    """A grader script that also records the config of each call."""

    def __init__(self) -> None:
        self.seeds: Counter[tuple[str, int | None]] = Counter()
        self.configs: list[GenerateConfig] = []

    def script(self) -> Script:
        def reply(messages: list[ChatMessage]) -> dict[str, Any]:
            case = case_of(messages)
            config = script.configs[-1]
            self.seeds[(case, config.seed)] += 1
            met = {i.number for i in RUBRICS[case].items() if answer(case, config.seed, i.number)}
            return verdicts(case, met)

        script = Script(reply)
        return script


def test_majority_of_five_repeats_flips_fewer_verdicts_and_logs_the_flip_rates(
    run: Run, tmp_path: Path
) -> None:
    grader = RandomGrader()
    script = grader.script()
    # what `inspect score LOG --scorer inspect_medsp/medsp_rubric -S samples=5` resolves, on
    # the old log of a run that was graded once
    (scorer,) = resolve_scorers(run.log, "inspect_medsp/medsp_rubric", {"samples": 5})
    rescored = rescore(run.log, script, scorer=scorer)
    seeds = [11, 12, 13, 14, 15]
    assert sorted(grader.seeds) == sorted((case, s) for case in CASES for s in seeds)
    assert set(grader.seeds.values()) == {1}  # five distinct requests per scenario, no re-asks
    assert {c.temperature for c in script.configs} == {1.0}

    assert rescored.samples is not None
    wrong_single = [0] * 5
    wrong_majority = 0
    for sample in rescored.samples:
        case = str(sample.id).split("/")[0]
        meta = meta_of(sample)
        assert meta["repeats"]["samples"] == 5 and meta["repeats"]["seeds"] == seeds
        assert meta["repeats"]["tie_rule"] == TIE_RULE == "not met"
        votes_by_competency: dict[str, list[tuple[list[bool], bool]]] = {}
        for item in meta["items"]:
            expected = [answer(case, s, item["number"]) for s in seeds]
            assert item["votes"] == expected  # every verdict of every repeat, in order
            majority_met = sum(expected) >= 3
            assert item["met"] is majority_met
            assert item["flip_rate"] == sum(v != majority_met for v in expected) / 5
            votes_by_competency.setdefault(item["competency"], []).append((expected, majority_met))
            if item["number"] in RANDOM_ITEMS[case]:
                wrong_majority += not majority_met
                for r, vote in enumerate(expected):
                    wrong_single[r] += not vote
        # per competency: the share of votes that differ from their item's majority
        for competency, entries in votes_by_competency.items():
            differing = sum(v != m for votes, m in entries for v in votes)
            assert meta["repeats"]["flip_rate"][competency] == differing / (5 * len(entries))
            unanimous = sum(len(set(votes)) == 1 for votes, _ in entries)
            assert meta["repeats"]["flipped_items"][competency] == len(entries) - unanimous
        met = sum(item["met"] for item in meta["items"])
        assert meta["counts"]["overall"] == {"completed": met, "total": 17}

    # 27 random items: a single grading gets 30% of them wrong on average, the majority of
    # five 16%; with these draws the five single gradings get 11, 9, 9, 7, 5 wrong
    assert sorted(wrong_single) == [5, 7, 9, 9, 11]
    assert wrong_majority < sum(wrong_single) / 5
    assert wrong_majority == 5


def test_the_scorer_file_and_the_task_parameter_pass_the_repeats_on(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)
    (scorer,) = resolve_scorers(run.log, "scorers/medsp_rubric.py", {"samples": 3})
    rescored = rescore(run.log, RandomGrader().script(), only=ANAPHYLAXIS, scorer=scorer)
    assert rescored.samples is not None
    assert meta_of(rescored.samples[0])["repeats"]["seeds"] == [11, 12, 13]

    grader = RandomGrader()
    clin, pat, env = encounter_scripts()
    [log] = inspect_eval(
        medsp_demo(judge=JUDGE, scenarios=ANAPHYLAXIS, grader_samples=2),
        model=clin.model(),
        model_roles={
            "patient": pat.model(),
            "environment": env.model(),
            "grader": grader.script().model(),
        },
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.samples is not None
    assert meta_of(log.samples[0])["repeats"]["samples"] == 2
    assert sorted(grader.seeds) == [("demo_anaphylaxis", 11), ("demo_anaphylaxis", 12)]


def test_agreement_reads_the_repeats_as_raters(run: Run, tmp_path: Path) -> None:
    rescored = rescore(
        run.log, RandomGrader().script(), scorer=medsp_rubric(judge=JUDGE, samples=5)
    )
    path = saved(rescored, tmp_path / "repeats.eval")
    result = analyse_agreement([path])
    [name] = {r.comparison for r in result.rows}
    assert name == "repeats of repeats.eval"
    row = by_competency(result.rows, name)["overall"]
    assert row.kappa_kind == "fleiss" and row.items == 51
    # Fleiss' observed agreement: mean over items of the share of agreeing pairs of repeats
    pairs = Fraction(0)
    for case in CASES:
        for item in RUBRICS[case].items():
            n = sum(answer(case, s, item.number) for s in range(11, 16))
            pairs += Fraction(n * (n - 1) + (5 - n) * (4 - n), 20)
    assert close(row.agreement, pairs / 51)


def test_repeats_differ_under_the_response_cache_and_replay_from_it(
    run: Run, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    first, second = RandomGrader(), RandomGrader()
    scorer = medsp_rubric(judge=JUDGE, samples=3, cache=True)
    one = rescore(run.log, first.script(), only="demo_anaphylaxis/scenario1", scorer=scorer)
    two = rescore(run.log, second.script(), only="demo_anaphylaxis/scenario1", scorer=scorer)
    assert sorted(first.seeds.elements()) == [("demo_anaphylaxis", s) for s in (11, 12, 13)]
    assert not second.seeds  # the re-run came from the cache, repeat by repeat
    assert one.samples is not None and two.samples is not None
    votes = [i["votes"] for i in meta_of(one.samples[0])["items"]]
    assert votes == [i["votes"] for i in meta_of(two.samples[0])["items"]]
    assert any(len(set(v)) > 1 for v in votes)  # the cached repeats are not one reply


def test_the_tie_rule_and_an_unjudged_vote() -> None:
    def v(met: bool, judged: bool = True) -> list[Verdict]:
        return [Verdict(number=1, competency="PC", text="x", met=met, judged=judged)]

    graded = majority([v(True), v(False)], [[], []], [[], []], temperature=1.0, seeds=[1, 2])
    assert graded.verdicts[0].met is False and graded.items[0].flip_rate == 0.5
    graded = majority(
        [v(True), v(False, judged=False), v(True)],
        [[]] * 3,
        [[]] * 3,
        temperature=1.0,
        seeds=[1, 2, 3],
    )
    assert graded.verdicts[0].met is True and graded.items[0].votes == [True, None, True]
    assert graded.items[0].flip_rate == 0.0
    nobody = majority(
        [v(False, judged=False)] * 2, [[]] * 2, [[]] * 2, temperature=1.0, seeds=[1, 2]
    )
    assert nobody.verdicts[0].judged is False


def test_repeats_at_temperature_zero_are_refused() -> None:
    with pytest.raises(Exception, match="temperature=0"):
        medsp_rubric(samples=3, temperature=0)
    with pytest.raises(Exception, match="samples takes a whole number of at least 1"):
        medsp_rubric(samples=0)


# --------------------------------------------------------------------------- 3. clinicians

# Rater 1 differs from grader A on two items, rater 2 on three (one of them the same item,
# turned the same way, so the raters agree there).
FLIPS_1: set[Item] = {("demo_anaphylaxis", 2), ("demo_bad_news", 5)}
FLIPS_2: set[Item] = {("demo_anaphylaxis", 2), ("demo_peds_asthma", 4), ("demo_peds_asthma", 15)}


def fill(sheets: Path) -> list[Path]:
    """Fill every sheet as the two raters would."""
    filled: list[Path] = []
    raters = (flipped(MET_A, FLIPS_1), flipped(MET_A, FLIPS_2))
    for sheet in sorted(sheets.glob("*.csv")):
        with sheet.open(newline="") as handle:
            rows = list(csv.DictReader(handle))
        for row in rows:
            case = row["sample_id"].split("/")[0]
            for name, met in zip(("rater_1", "rater_2"), raters, strict=True):
                row[name] = "yes" if int(row["number"]) in met[case] else "No "
        with sheet.open("w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
        filled.append(sheet)
    return filled


def test_validation_sheet_round_trip(run: Run, tmp_path: Path) -> None:
    out = tmp_path / "validation"
    assert main(["validation-sheet", path_of(run), "--n", "30", "--out", str(out)]) == 0
    pages = sorted((out / "pages").glob("*.md"))
    sheets = sorted((out / "sheets").glob("*.csv"))
    assert len(pages) == len(sheets) == 3  # only three encounters to draw from
    page = pages[0].read_text()
    assert "TRANSCRIPT" in page and "STATE HISTORY" in page
    # each action once, with the controller's status and rationale, as the grader read it
    assert "Clinician action: " in page and "[executed; " in page
    assert "Dr Ada Quinn" in page
    assert "Scripted verdicts" not in page and "item 1" not in page  # the raters judge blind
    with sheets[0].open() as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 17 and {r["rater_1"] for r in rows} == {""} == {r["rater_2"] for r in rows}
    assert rows[0]["item"] == RUBRICS["demo_anaphylaxis"].items()[0].text

    filled = fill(out / "sheets")
    result = analyse_agreement([path_of(run)], human=[str(p) for p in filled])
    assert result.human_encounters == 3
    raters = (flipped(MET_A, FLIPS_1), flipped(MET_A, FLIPS_2))
    expected = {
        "human: rater_1 vs rater_2": (raters[0], raters[1]),
        f"human-grader: rater_1 vs {Path(path_of(run)).name}": (raters[0], MET_A),
        f"human-grader: rater_2 vs {Path(path_of(run)).name}": (raters[1], MET_A),
    }
    assert {r.comparison for r in result.rows} == set(expected)
    for name, (first, second) in expected.items():
        rows_ = by_competency(result.rows, name)
        for key, row in rows_.items():
            agree, kappa = cohen(*competency_votes(first, second, key))
            assert close(row.agreement, agree), (name, key)
            assert close(row.kappa, kappa) if kappa.denominator else row.kappa != row.kappa
    # by hand, overall: raters disagree on 3 items, rater 1 and A on 2, rater 2 and A on 3
    overall = {name: by_competency(result.rows, name)["overall"] for name in expected}
    assert [round(r.agreement * 51) for r in overall.values()] == [48, 49, 48]

    # and through the command, in the same table
    code = main(
        ["agreement", path_of(run), "--human", *map(str, filled), "--out", str(tmp_path / "a")]
    )
    assert code == 0
    kinds = {r["kind"] for r in csv.DictReader((tmp_path / "a" / "agreement.csv").open())}
    assert kinds == {"human-human", "human-grader"}


def test_the_draw_is_stratified_by_competency_mix_and_score(run: Run) -> None:
    log = read_graded(path_of(run))
    # three strata of one encounter each: two asked for, the two first by name
    drawn = draw(log, 2)
    assert [key[0] for key, _ in drawn] == [
        "demo_anaphylaxis/scenario1",
        "demo_peds_asthma/scenario1",
    ]
    assert all(stratum.endswith("1/3 to 2/3") for _, stratum in drawn)
    assert allocate({"a": 10, "b": 5, "c": 1}, 4) == {"a": 2, "b": 1, "c": 1}
    assert allocate({"a": 10, "b": 5, "c": 1}, 2) == {"a": 1, "b": 1, "c": 0}
    assert allocate({"a": 10, "b": 5, "c": 1}, 30) == {"a": 10, "b": 5, "c": 1}
    assert sum(allocate({"a": 60, "b": 30, "c": 10}, 30).values()) == 30


def _edit(sheet: Path, change: Any) -> Path:
    with sheet.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    rows = change(rows)
    with sheet.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return sheet


def _set(rows: list[dict[str, str]], index: int, **values: str) -> list[dict[str, str]]:
    rows[index] = {**rows[index], **values}
    return rows


BAD_SHEETS = {
    "missing_row": (
        lambda rows: rows[:4] + rows[5:],
        "row(s) for item(s) [5] of demo_peds_asthma/scenario1 epoch 1 missing",
    ),
    "text_changed": (
        lambda rows: _set(rows, 2, item="Gives adrenaline"),
        "row 4: the text of item [3] was changed",
    ),
    "not_yes_no": (
        lambda rows: _set(rows, 4, rater_2="maybe"),
        "row 6: rater_2 is 'maybe' for item [5]; write yes or no",
    ),
    "empty_value": (
        lambda rows: _set(rows, 0, rater_1=""),
        "row 2: rater_1 is empty for item [1]; write yes or no",
    ),
    "missing_column": (
        lambda rows: [{k: v for k, v in r.items() if k != "rater_2"} for r in rows],
        "column(s) rater_2 missing; use a sheet written by medsp-report validation-sheet",
    ),
    "repeated_row": (
        lambda rows: [*rows, rows[3]],
        "row 19: item [4] of demo_peds_asthma/scenario1 appears twice",
    ),
}


@pytest.mark.parametrize("fault", sorted(BAD_SHEETS))
def test_each_malformed_sheet_gives_its_one_line(
    run: Run, tmp_path: Path, capsys: pytest.CaptureFixture[str], fault: str
) -> None:
    out = tmp_path / "validation"
    assert main(["validation-sheet", path_of(run), "--n", "1", "--out", str(out)]) == 0
    [sheet] = fill(out / "sheets")
    capsys.readouterr()
    change, message = BAD_SHEETS[fault]
    _edit(sheet, change)
    code = main(["agreement", path_of(run), "--human", str(sheet), "--out", str(tmp_path / "a")])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and "Traceback" not in err
    assert str(sheet) in err and message in err, err


# --------------------------------------------------------------------------- 4. self-preference


def test_self_preference_same_model_or_family() -> None:
    same = self_preference("openai/gpt-5.5", "openai/gpt-5.5")
    assert same is not None and "the same model (openai/gpt-5.5)" in same
    family = self_preference("openai/gpt-5.5-mini", "openai/gpt-5.5")
    assert family is not None and "the same provider family (openai/" in family
    assert self_preference("anthropic/claude-opus-4-5", "openai/gpt-5.5") is None
    assert self_preference("mockllm/model", "mockllm/model") is None  # scripted, no model
    assert self_preference("medsp/scripted", "medsp/scripted") is None  # the scripted demo


def test_the_run_summary_and_both_reports_warn_of_self_preference(run: Run, tmp_path: Path) -> None:
    """The run's log, renamed as if an OpenAI model had been graded by another OpenAI model."""
    log = read_eval_log(path_of(run))
    log.eval.model = "openai/gpt-5.5-mini"
    assert log.samples is not None
    for sample in log.samples:
        assert sample.scores is not None
        sample.scores["medsp_rubric"].metadata = {
            **(sample.scores["medsp_rubric"].metadata or {}),
            "grader": "openai/gpt-5.5",
        }
    path = saved(log, tmp_path / "openai.eval")

    [line] = self_preference_lines(log)
    assert "same provider family (openai/" in line
    report = write_report([path], tmp_path / "report")
    assert report.analysis is not None
    assert any("Self-preference risk" in f for f in report.analysis.flags)
    assert "Self-preference risk" in (tmp_path / "report" / "report.md").read_text()
    agreement = analyse_agreement([path, path])
    assert any("Self-preference risk" in w for w in agreement.warnings)


def test_a_folder_is_read_as_its_logs(
    run: Run, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``medsp-report agreement DIR`` reads every log under DIR, as ``medsp-report`` does; a
    log of another task there is left out with a warning, not compared."""
    folder = tmp_path / "runs"
    (folder / "regrades").mkdir(parents=True)
    shutil.copy2(path_of(run), folder / "run.eval")
    saved(rescore(run.log, Script(per_case(MET_B))), folder / "regrades" / "b.eval")
    [other] = inspect_eval(
        Task(dataset=[Sample(input="Say hello.", target="hello")], scorer=match()),
        model="mockllm/model",
        log_dir=str(folder),
        display="none",
    )

    capsys.readouterr()  # what the other task's eval printed (its display, in any test order)
    out = tmp_path / "agreement"
    assert main(["agreement", str(folder), "--out", str(out)]) == 0
    captured = capsys.readouterr()
    overall = [line for line in captured.out.splitlines() if line.startswith("graders")]
    assert len(overall) == 1, captured.out
    assert "agreement 0.882" in overall[0] and "over 51 items" in overall[0]
    assert f"warning: {other.location}: not a MedSP log" in captured.err
    assert "left out" in captured.err
    result = analyse_agreement([str(folder)])
    assert [log["name"] for log in result.logs] == ["run.eval", "b.eval"]


def test_a_folder_without_logs_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "empty").mkdir()
    assert main(["agreement", str(tmp_path / "empty"), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert f"{tmp_path / 'empty'}: no Inspect logs in this folder" in err
    assert not (tmp_path / "out").exists()
