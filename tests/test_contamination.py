"""The contamination probe (``inspect_medsp/medsp_contamination``): it separates a model that
has seen the demo cases from one that has not, its prompts never hold what they ask for, it
leaves the benchmark's prompts alone, it refuses bad input in one line, and its report
section finds a planted difference with the right sign."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog, read_eval_log, resolve_sample_attachments, write_eval_log

import inspect_medsp.measures
from inspect_medsp.cases.write import new_case
from inspect_medsp.cli import main as cli_main
from inspect_medsp.contamination import CONTAMINATION, medsp_contamination
from inspect_medsp.contamination.probes import MASK, PROBE_NAMES, build_probes
from inspect_medsp.contamination.report import ProbedScenario, model_recall
from inspect_medsp.contamination.result import Contamination as Recall
from inspect_medsp.contamination.result import ProbeOutcome
from inspect_medsp.contamination.settings import ProbeSettings
from inspect_medsp.contamination.text import longest_common_run, ngram_overlap, shuffled, words
from inspect_medsp.data import METADATA_KEY, SampleRecord
from inspect_medsp.errors import MedSPDataError, MedSPParameterError
from inspect_medsp.estimate.cli import main as estimate_main
from inspect_medsp.full_report import write_report
from inspect_medsp.record import normalise, result_of
from inspect_medsp.scripted import personas
from inspect_medsp.tasks import medsp_demo
from tests.support.offline_tokens import inspect_cli
from tests.support.probing import probe_demo
from tests.support.runs import run

SCORER = "medsp_contamination_probe"
EVERYTHING = "medsp/seen-everything"
NOTHING = "medsp/seen-nothing"
SETTINGS = ProbeSettings()


@pytest.fixture(scope="module")
def probed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, EvalLog]:
    folder = tmp_path_factory.mktemp("contamination")
    return {m: probe_demo(m, folder / m.split("/")[1]) for m in (EVERYTHING, NOTHING)}


def results(log: EvalLog) -> dict[str, Recall]:
    found: dict[str, Recall] = {}
    for sample in log.samples or []:
        result = result_of(sample.scores or {}, Recall)
        assert result is not None, f"{sample.id}: {sample.scores}"
        found[str(sample.id)] = result
    return found


def numbers(result: Recall) -> dict[str, tuple[float, float, bool]]:
    return {o.name: (o.measure, o.control, o.above) for o in result.outcomes}


def test_seen_everything_is_above_the_control_on_every_probe_of_every_demo_scenario(
    probed: dict[str, EvalLog],
) -> None:
    found = results(probed[EVERYTHING])
    assert len(found) == 3
    for sid, result in found.items():
        got = numbers(result)
        assert list(got) == list(PROBE_NAMES), sid
        assert not result.not_probed, sid
        for name in PROBE_NAMES[:3]:
            measure, control, above = got[name]
            # the whole 40 words recited, against at most a word or two of the shuffled text
            assert (measure, above) == (40.0, True), (sid, name, got[name])
            assert control <= 2, (sid, name, got[name])
        outcome = {o.name: o for o in result.outcomes}
        assert outcome["continuation_patient"].overlap == 1.0
        assert outcome["continuation_patient"].control_overlap == 0.0
        # every item, none from the topic alone (the knowledge control)
        assert got["checklist"] == (1.0, 0.0, True), sid
        assert got["slot"] == (1.0, 0.0, True), sid  # 3 of 3 values exact, control 0 of 3
        assert {o.against for o in result.outcomes if o.kind != "continuation"} == {"knowledge"}
    value = probed[EVERYTHING].samples[0].scores[SCORER].value  # type: ignore[index]
    assert value == {"clear": 0.0, "recalled": 1.0, **{name: 1.0 for name in PROBE_NAMES}}
    metrics = probed[EVERYTHING].results.scores[0].metrics  # type: ignore[union-attr]
    # the headline first, the right way round beside benchmark scores: 0 = everything recalled
    assert next(iter(metrics)) == "clear"
    assert {k: m.value for k, m in metrics.items()} == {
        "clear": 0.0,
        "recalled": 1.0,
        **{name: 1.0 for name in PROBE_NAMES},
    }


def test_seen_nothing_is_above_the_control_on_no_probe(probed: dict[str, EvalLog]) -> None:
    found = results(probed[NOTHING])
    assert len(found) == 3
    for sid, result in found.items():
        got = numbers(result)
        assert list(got) == list(PROBE_NAMES), sid
        assert not any(above for _, _, above in got.values()), (sid, got)
        for name in PROBE_NAMES[:3]:
            assert got[name][0] <= 2, (sid, name, got[name])  # a stray word, no run
        assert got["checklist"] == (0.0, 0.0, False), sid
        assert got["slot"] == (0.0, 0.0, False), sid
    metrics = probed[NOTHING].results.scores[0].metrics  # type: ignore[union-attr]
    assert {k: m.value for k, m in metrics.items()} == {
        "clear": 1.0,
        "recalled": 0.0,
        **{name: 0.0 for name in PROBE_NAMES},
    }


def sent_prompts(log: EvalLog) -> dict[str, list[str]]:
    """Every prompt the probe sent, per scenario: the text of every message of every call."""
    sent: dict[str, list[str]] = {}
    for sample in log.samples or []:
        events = resolve_sample_attachments(sample).events
        calls = [e for e in events if e.event == "model"]
        sent[str(sample.id)] = ["\n".join(m.text for m in call.input) for call in calls]
    return sent


def test_no_prompt_holds_a_rubric_item_or_what_it_asks_for(probed: dict[str, EvalLog]) -> None:
    log = probed[EVERYTHING]
    for sample in log.samples or []:
        record = SampleRecord.model_validate(sample.metadata[METADATA_KEY])
        pairs, _ = build_probes(record, SETTINGS)
        prompts = sent_prompts(log)[str(sample.id)]
        asked = [a for p in pairs for a in (*p.probe, *p.control)]
        assert len(prompts) == len(asked) == 3 + 1 + 3 + 3 + 1 + 3  # probes, then controls
        items = [normalise(i.text) for i in record.rubric.items()]
        continued = [
            a.truth for p in pairs if p.kind == "continuation" for a in (*p.probe, *p.control)
        ]
        for prompt in prompts:
            folded = normalise(prompt)
            assert not [i for i in items if i in folded], prompt
            said = words(prompt)
            for truth in continued:
                # a continuation's truth is 40 words: no prompt shares even 8 of them in a row
                assert longest_common_run(said, truth) < SETTINGS.run_margin, prompt
        for pair in pairs:
            if pair.kind != "slot":
                continue
            for a in (*pair.probe, *pair.control):
                assert any(a.prompt in p for p in prompts)  # the slot asked is a prompt sent
                assert a.truth[0] not in words(a.prompt), (a.truth, a.prompt)
                assert MASK in a.prompt


def test_the_scripted_models_use_the_probe_s_mask() -> None:
    assert personas.MASK == MASK


def encounter_prompts(log: EvalLog) -> list[list[str]]:
    return [
        [
            "\n".join(m.text for m in e.input)
            for e in resolve_sample_attachments(s).events
            if e.event == "model"
        ]
        for s in log.samples or []
    ]


def test_no_benchmark_encounter_s_prompt_changes_with_the_probe_installed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def demo(folder: str) -> EvalLog:
        [log] = eval(
            medsp_demo(judge="medsp/scripted", scenarios="demo_anaphylaxis/*"),
            model="medsp/scripted",
            log_dir=str(tmp_path / folder),
            display="none",
        )
        assert log.status == "success", log.error
        return log

    installed = inspect_medsp.measures.capabilities()
    assert CONTAMINATION in installed
    with_probe = demo("with")
    without = tuple(c for c in installed if c is not CONTAMINATION)
    monkeypatch.setattr(inspect_medsp.measures, "CAPABILITIES", without)
    assert CONTAMINATION not in inspect_medsp.measures.capabilities()
    without_probe = demo("without")
    first, second = encounter_prompts(with_probe), encounter_prompts(without_probe)
    assert first and all(first)
    assert first == second
    assert [s.scores for s in with_probe.samples or []] == [
        s.scores for s in without_probe.samples or []
    ]
    # the probe's own words never reach an encounter
    assert not any(MASK in p or "word for word" in p for calls in first for p in calls)


def test_the_probe_runs_nothing_into_a_benchmark_run_s_grid() -> None:
    assert CONTAMINATION.switch is None and CONTAMINATION.in_eval is None
    assert CONTAMINATION.headlines == ()


@pytest.mark.parametrize(
    ("args", "named"),
    [
        ({"probes": "continuation,recital"}, "probes: recital is not a probe"),
        ({"item_share": 1.5}, "item_share=1.5 is not accepted"),
        ({"run_margin": 0}, "run_margin=0 is not accepted"),
        ({"run_margin": 50}, "run_margin=50 is not accepted: it is longer than following_words"),
        ({"slot_margin": -0.1}, "slot_margin=-0.1 is not accepted"),
        ({"benchmark": "medsp10"}, "benchmark='medsp10' is not accepted"),
    ],
)
def test_a_bad_parameter_is_one_line_before_anything_runs(args: dict[str, Any], named: str) -> None:
    with pytest.raises(MedSPParameterError) as raised:
        medsp_contamination(benchmark=args.pop("benchmark", "medsp_demo"), **args)
    message = str(raised.value)
    assert named in message and "\n" not in message


def short_case_set(root: Path) -> Path:
    folder = root / "cases"
    new_case(folder / "short_case")
    case = folder / "short_case"
    for part in ("patient", "environment", "evaluator"):
        for path in (case / part).glob("*.md"):
            # the headings stay (the case format checks the environment's stages); each is
            # followed by a few words only
            text = path.read_text(encoding="utf-8").splitlines()
            kept = [f"{line}\n\nA few words only.\n" for line in text if line.startswith("#")]
            path.write_text("\n".join(kept) or "A few words only.\n", encoding="utf-8")
    return folder


def test_a_case_set_with_no_text_to_probe_is_one_line(tmp_path: Path) -> None:
    folder = short_case_set(tmp_path)
    with pytest.raises(MedSPDataError) as raised:
        medsp_contamination(cases=str(folder), probes="continuation,slot")
    message = str(raised.value)
    assert "no scenario has text to probe" in message and "\n" not in message
    assert "short_case/scenario1" in message


def test_the_command_line_refuses_an_unknown_probe_with_one_message(tmp_path: Path) -> None:
    done = inspect_cli(
        "eval",
        "inspect_medsp/medsp_contamination",
        "-T",
        "benchmark=medsp_demo",
        "-T",
        "probes=recital",
        "--model",
        NOTHING,
        "--log-dir",
        str(tmp_path),
    )
    assert done.returncode != 0
    said = " ".join((done.stdout + done.stderr).split())
    assert "task parameter probes: recital is not a probe" in said
    assert "Traceback" not in said
    assert not list(tmp_path.rglob("*.eval"))  # nothing ran


def test_the_measures() -> None:
    truth = words("the nurse gives epinephrine 0.5 mg into the thigh and calls the anaesthetist")
    assert longest_common_run(words("then she gives epinephrine 0.5 mg into the arm"), truth) == 6
    assert ngram_overlap(truth, truth, 5) == 1.0
    assert ngram_overlap(words("nothing alike here at all"), truth, 5) == 0.0
    texts = ["Lisinopril 10 mg daily for blood pressure.", "Tryptase 28 micrograms/L at 2 h."]
    mixed = shuffled(texts, "seed")
    assert mixed == shuffled(texts, "seed") and mixed != texts
    # every word and number is still there, numbers in numbers' places
    assert sorted(w for t in mixed for w in words(t)) == sorted(w for t in texts for w in words(t))
    for before, after in zip(texts, mixed, strict=True):
        kinds = [any(c.isdigit() for c in w) for w in words(before)]
        assert kinds == [any(c.isdigit() for c in w) for w in words(after)]


def recall(sid: str, recalled: bool) -> ProbedScenario:
    outcome = ProbeOutcome(
        name="checklist", kind="checklist", measure=0.8 if recalled else 0.1, control=0.1,
        above=recalled, shown="",
    )  # fmt: skip
    return ProbedScenario(id=sid, case=sid.split("/")[0], result=Recall(outcomes=[outcome]))


@pytest.mark.parametrize("planted", [0.2, -0.15])
def test_the_report_finds_a_planted_difference_with_its_sign(planted: float) -> None:
    rng = np.random.default_rng(7)
    ids = [f"case_{c:02d}/scenario{s}" for c in range(30) for s in (1, 2)]
    recalled = {sid: i % 3 == 0 for i, sid in enumerate(ids)}
    completion = {
        sid: float(np.clip(0.5 + (planted if recalled[sid] else 0.0) + rng.normal(0, 0.08), 0, 1))
        for sid in ids
    }
    benchmark = run("openai/model-a", completion)
    other = run("openai/model-b", {sid: 0.5 for sid in ids})
    found = model_recall(
        [("probe.eval", "openai/model-a", [recall(sid, recalled[sid]) for sid in ids])],
        [
            ("model-a", "openai/model-a", benchmark.samples),
            ("model-b", "openai/model-b", other.samples),
        ],
    )
    [model] = found
    assert model.flagged and model.share("checklist") == (20, 60)
    [comparison] = model.comparisons  # the other model's row is not compared
    assert comparison.group == "model-a"
    assert (comparison.recalled, comparison.rest) == (20, 40)
    assert comparison.difference == pytest.approx(planted, abs=0.05)
    assert comparison.interval is not None
    low, high = comparison.interval
    assert low <= comparison.difference <= high
    if planted > 0:
        assert low > 0
    else:
        assert high < 0


def test_the_estimate_prices_the_calls_the_probe_makes(
    probed: dict[str, EvalLog], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    prices = tmp_path / "prices.yaml"
    prices.write_text(
        "medsp/seen-nothing:\n  input: 2.0\n  output: 10.0\n  input_cache_read: 1.0\n"
        "  input_cache_write: 2.0\n",
        encoding="utf-8",
    )
    code = estimate_main(
        ["medsp_contamination", "-T", "benchmark=medsp_demo", "--model", NOTHING,
         "--model-cost-config", str(prices)]
    )  # fmt: skip
    assert code == 0
    printed = capsys.readouterr().out
    total = next(line for line in printed.splitlines() if line.startswith("total"))
    calls, input_tokens, output_tokens, dollars = total.split()[1:]
    usage = probed[NOTHING].stats.model_usage[NOTHING]
    ran = sum(
        len([e for e in s.events if e.event == "model"]) for s in probed[NOTHING].samples or []
    )
    assert int(calls) == ran == 42  # 14 calls a scenario: 7 questions and their controls
    # the prompts are priced as sent (the scripts count tokens as the estimate does)
    assert abs(int(input_tokens.replace(",", "")) - usage.input_tokens) <= 0.01 * usage.input_tokens
    expected = int(input_tokens.replace(",", "")) * 2 + int(output_tokens.replace(",", "")) * 10
    assert float(dollars) == pytest.approx(expected / 1e6, abs=0.006)
    assert estimate_main(["medsp_contamination", "-T", "probes=recital"]) == 2
    assert "recital is not a probe" in capsys.readouterr().err


def test_the_report_shows_the_section_and_flags_the_leaderboard_row(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A synthetic pair: the scripted demo's benchmark run, and probe logs of the same model
    name (the two scripts' logs relabelled), which recall two of its three scenarios."""
    [bench] = eval(
        medsp_demo(judge="medsp/scripted"),
        model="medsp/scripted",
        log_dir=str(tmp_path / "bench"),
        display="none",
    )
    assert bench.status == "success", bench.error
    recalled = probe_demo(
        EVERYTHING, tmp_path / "probe", scenarios="demo_anaphylaxis/*,demo_bad_news/*"
    )
    rest = probe_demo(NOTHING, tmp_path / "probe", scenarios="demo_peds_asthma/*")
    for log in (recalled, rest):
        log.eval.model = "medsp/scripted"
        write_eval_log(log, log.location)
    done = write_report([tmp_path / "bench", tmp_path / "probe"], tmp_path / "report")
    assert done.analysis is not None
    text = (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
    # the probe's logs are read by the section, not inputs that could not be reported
    assert done.problems == [] and "Inputs that could not be reported" not in text
    assert sorted(done.analysis.read_by) == sorted([recalled.location, rest.location])
    assert set(done.analysis.read_by.values()) == {"contamination"}
    for log in (recalled, rest):
        name = Path(log.location).name
        assert f"- log `{name}`: read by the contamination section" in text
    section = text[text.index("## Has the model seen these cases?") :]
    # the row test decides the row: 2 of 3 scenarios above on each probe, with intervals
    assert (
        "| medsp/scripted | ⚠ flagged: recalls cases | 2/3 (67%) [21% to 94%] | 2/3 (67%) "
        "[21% to 94%] |" in section
    )
    assert "- Row test for medsp/scripted: **flagged**" in section
    assert "checklist 2/3 above against a null rate of 5%" in section
    assert "can still be knowledge" in section
    assert "- demo_anaphylaxis/scenario1: 5 probes above the control" in section
    assert "on the 2 recalled scenarios against" in section and "on the other 1" in section
    assert "(no interval: fewer than 6 cases on one side)" in section  # 3 cases in all
    leaderboard = text[text.index("## Leaderboard") : text.index("## Has the model")]
    [row] = [line for line in leaderboard.splitlines() if line.startswith("| 1 |")]
    assert row.split(" | ")[1] == "medsp/scripted ⚠ recalls cases above the control"
    # nor an error on the command line
    inputs = [str(tmp_path / "bench"), str(tmp_path / "probe")]
    assert cli_main([*inputs, "--out", str(tmp_path / "cli")]) == 0
    assert capsys.readouterr().err.count("error") == 0
    # a report of the benchmark run alone has neither
    alone = write_report([tmp_path / "bench"], tmp_path / "alone")
    assert alone.analysis is not None
    plain = (tmp_path / "alone" / "report.md").read_text(encoding="utf-8")
    assert "Has the model seen" not in plain and "recalls cases" not in plain


def test_a_re_score_with_stricter_thresholds_is_numbered_and_refuses_other_logs(
    probed: dict[str, EvalLog], tmp_path: Path
) -> None:
    log = read_eval_log(probed[EVERYTHING].location)
    copy = tmp_path / "probe.eval"
    write_eval_log(log, str(copy))
    done = inspect_cli(
        "score", str(copy), "--scorer", f"inspect_medsp/{SCORER}", "-S", "run_margin=41",
        "-S", "slot_margin=1.0", "--action", "append", "--overwrite", "--display", "none",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    again = read_eval_log(str(copy))
    sample = (again.samples or [])[0]
    # no continuation can beat its control by 41 of its 40 words in a row, but a recital
    # still holds every content word of the passage against none of the control's (the
    # paraphrase rule, content_margin, is its own); 3 of 3 slots still beat 0
    first = sample.scores[SCORER].metadata["outcomes"]  # type: ignore[index]
    assert [o["content"] for o in first[:3]] == [1.0, 1.0, 1.0]
    assert sample.scores[f"{SCORER}1"].value == {  # type: ignore[index]
        "clear_1": 0.0,
        "recalled_1": 1.0,
        "continuation_patient_1": 1.0,
        "continuation_environment_1": 1.0,
        "continuation_marking_1": 1.0,
        "checklist_1": 1.0,
        "slot_1": 1.0,
    }
    rescored = next(s for s in again.results.scores if s.name == f"{SCORER}1")  # type: ignore[union-attr]
    assert rescored.metrics["recalled"].value == pytest.approx(1.0)
    # the probe's log is not a benchmark log: the rubric refuses it in one line
    other = tmp_path / "other.eval"
    write_eval_log(read_eval_log(log.location), str(other))
    refused = inspect_cli(
        "score", str(other), "--scorer", "inspect_medsp/medsp_rubric", "--action", "append",
        "--overwrite", "--display", "none",
    )  # fmt: skip
    said = " ".join((refused.stdout + refused.stderr).split())
    assert refused.returncode != 0 and "not of a MedSP task" in said and "Traceback" not in said


def test_a_scenario_with_nothing_to_probe_is_kept_and_says_why(tmp_path: Path) -> None:
    folder = short_case_set(tmp_path)
    new_case(folder / "full_case")
    [log] = eval(
        medsp_contamination(cases=str(folder), probes="continuation,slot"),
        model=NOTHING,
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert log.status == "success", log.error
    scores = {str(s.id): (s.scores or {})[SCORER] for s in log.samples or []}
    assert set(scores) == {"short_case/scenario1", "full_case/scenario1"}
    short = scores["short_case/scenario1"]
    assert short.metadata is not None and short.metadata["unscored"] == "nothing_to_probe"
    assert "fewer than 70 words" in str(short.metadata["unscored_why"])
    assert isinstance(scores["full_case/scenario1"].value, dict)


@pytest.mark.parametrize(("model", "above"), [(EVERYTHING, True), (NOTHING, False)])
def test_the_user_s_unpublished_cases_can_be_the_control(
    model: str, above: bool, tmp_path: Path
) -> None:
    unpublished = tmp_path / "unpublished"
    new_case(unpublished / "never_published")
    log = probe_demo(model, tmp_path / "logs", control_cases=str(unpublished))
    for sid, result in results(log).items():
        assert result.control == "never_published/scenario1", sid
        got = numbers(result)
        assert list(got) == list(PROBE_NAMES), (sid, result.not_probed)
        assert all(flag is above for _, _, flag in got.values()), (sid, got)
        # nobody has seen the unpublished case: its probes score as the shuffled text did
        assert got["checklist"][1] == 0.0 and got["slot"][1] == 0.0, (sid, got)
        assert all(got[name][1] <= 2 for name in PROBE_NAMES[:3]), (sid, got)
    # the control's prompts are the unpublished case's, under the scenario's own source
    sample = (log.samples or [])[0]
    sent = " ".join(sent_prompts(log)[str(sample.id)])
    assert "Fever and cough in a 71-year-old woman" in sent
