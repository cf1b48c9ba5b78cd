"""Patient variants (``-T variants=``): one sample per (scenario, variant), the persona in the
patient's instructions only, the cue substitutions and their refusal, the one-line errors, and
the report's "Does care change with the patient?"."""

from __future__ import annotations

import csv
import subprocess
import sys
from collections.abc import Iterator
from importlib.resources import files
from pathlib import Path

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog, EvalSample, read_eval_log
from inspect_ai.scorer import Score

from inspect_medsp import medsp1000, medsp_demo
from inspect_medsp.cases.cli import main as medsp_cases
from inspect_medsp.comparisons.variants_section import markdown, variant_table, views
from inspect_medsp.data import SampleRecord, load_records
from inspect_medsp.errors import MedSPDataError, MedSPParameterError
from inspect_medsp.full_report import write_report
from inspect_medsp.record import SCORER, ItemVerdict, ScoreMetadata, ScoreValue, TaskMetadata
from inspect_medsp.record.read import MedspRun, MedspSample, MedspScore, SampleMetadata
from inspect_medsp.report import Page, analyse
from inspect_medsp.variants import library_files, play, read_variant, resolve, shipped
from inspect_medsp.workup.result import Order, Workup

SCRIPTED = "medsp/scripted"
ANAPHYLAXIS = "demo_anaphylaxis/scenario1"
BAD_NEWS = "demo_bad_news/scenario1"
SHIPPED = sorted(library_files())
CUE = "cue_ethnicity_example"


def demo_records() -> dict[str, SampleRecord]:
    demo = Path(str(files("inspect_medsp.data").joinpath("demo")))
    records, _ = load_records(demo / "scenarios", demo / "upstream", name="MedSP-demo")
    return {r.id: r for r in records}


@pytest.fixture(scope="module")
def variant_log(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EvalLog]:
    """The scripted demo with the baseline and every shipped variant (one eval, shared)."""
    log_dir = tmp_path_factory.mktemp("variant_logs")
    [log] = eval(
        medsp_demo(judge=SCRIPTED, variants=",".join(["baseline", *SHIPPED])),
        model=SCRIPTED,
        log_dir=str(log_dir),
        display="none",
    )
    assert log.status == "success", log.error
    yield read_eval_log(log.location, resolve_attachments=True)


def _samples(log: EvalLog) -> dict[str, EvalSample]:
    return {str(s.id): s for s in log.samples or []}


def _texts(sample: EvalSample, role: str) -> list[str]:
    """Every input message text of every call the role made, in order."""
    return [
        message.text
        for event in sample.events
        if event.event == "model" and event.role == role
        for message in event.input
    ]


def test_one_sample_per_scenario_and_variant_with_ids_and_metadata(variant_log: EvalLog) -> None:
    samples = _samples(variant_log)
    scenarios = sorted(demo_records())
    personas = [n for n in SHIPPED if n != CUE]
    expected = {
        *scenarios,
        *(f"{s}@{v}" for s in scenarios for v in personas),
        f"{ANAPHYLAXIS}@{CUE}",
    }
    assert set(samples) == expected
    for sid, sample in samples.items():
        scenario, _, variant = sid.partition("@")
        meta = sample.metadata
        assert meta["variant"] == (variant or "baseline")
        assert f"{meta['case_id']}/{meta['scenario']}" == scenario
        # the grid and the sample header (its input, never sent) name the variant, the
        # baseline too (the Id column cuts "...@<variant>")
        assert str(sample.input).startswith(f"[{variant or 'baseline'}] ")
    # the cue ran only where its table marks the case eligible, and the load says so
    task = TaskMetadata.read(variant_log.eval.metadata)
    assert task is not None and task.load is not None
    warnings = task.load.warnings
    assert any(CUE in w and BAD_NEWS in w for w in warnings), warnings


def test_scripted_demo_scores_every_variant_exactly_as_the_baseline(
    variant_log: EvalLog, tmp_path: Path
) -> None:
    samples = _samples(variant_log)
    compared = 0
    for sid, sample in samples.items():
        base = samples[sid.split("@")[0]]
        assert sample.scores is not None and base.scores is not None
        mine, theirs = sample.scores["medsp_rubric"], base.scores["medsp_rubric"]
        assert mine.value == theirs.value, sid
        met = [(i["number"], i["met"]) for i in (mine.metadata or {})["items"]]
        assert met == [(i["number"], i["met"]) for i in (theirs.metadata or {})["items"]]
        compared += sid != base.id
    assert compared == 3 * (len(SHIPPED) - 1) + 1

    result = write_report([variant_log.location], tmp_path / "report")
    text = (tmp_path / "report" / "report.md").read_text()
    assert "## Does care change with the patient?" in text
    with (tmp_path / "report" / "variants.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert {r["variant"] for r in rows} == set(SHIPPED)
    for row in rows:
        assert float(row["difference"]) == 0.0, row
        assert row["items_flipped_down"] == row["items_flipped_up"] == "0", row
    # the work-up: the script orders the same under every variant, so orders and cost match
    overall = [r for r in rows if r["competency"] == "overall"]
    assert {r["variant"] for r in overall} == set(SHIPPED)
    for row in overall:
        assert float(row["orders_difference"]) == 0.0 and float(row["cost_difference"]) == 0.0
        assert float(row["orders_baseline"]) > 0 and float(row["cost_baseline"]) > 0, row
        assert row["without_workup"] == "0", row
    assert "orders per encounter" in text and "+0.00" in text
    assert "without a work-up result" not in text
    assert result is not None


def test_the_patient_alone_receives_the_persona(variant_log: EvalLog) -> None:
    samples = _samples(variant_log)
    for spec in shipped():
        for sid, sample in samples.items():
            if not sid.endswith(f"@{spec.name}"):
                continue
            base = samples[sid.split("@")[0]]
            patient = "\n".join(_texts(sample, "patient"))
            if spec.kind == "cue":
                assert "# Thomas Brennan, 42, Black\n" in patient
            else:
                assert spec.patient.strip() in patient, sid
                assert spec.patient.strip() not in "\n".join(_texts(base, "patient"))
            clinician = _texts(sample, "clinician")
            assert clinician, sid
            # the clinician never sees the variant's name nor a line of its instructions
            for text in clinician:
                assert spec.name not in text
                for line in spec.patient.strip().splitlines():
                    assert line not in text
            if spec.kind != "cue":
                # a persona changes nothing of what the clinician or the controller reads
                assert clinician == _texts(base, "clinician"), sid
                assert _texts(sample, "environment") == _texts(base, "environment"), sid
            else:
                assert "42-year-old Black man" in clinician[1]
                assert "42-year-old Black man" not in "\n".join(_texts(base, "clinician"))
            # the grader reads the same frozen checklist
            grader = "\n".join(_texts(sample, "grader"))
            assert spec.name not in grader
            for line in spec.patient.strip().splitlines():
                assert line not in grader


def test_a_cue_substitutes_consistently_in_every_packet() -> None:
    [spec] = resolve([CUE])
    assert spec is not None
    record = demo_records()[ANAPHYLAXIS]
    played = play(spec, record)
    assert played is not None and played.variant is not None
    made = [(s.role, s.old, s.new, s.count) for s in played.variant.substitutions]
    assert made == [
        ("examinee", "Thomas Brennan, 42-year-old man", "Thomas Brennan, 42-year-old Black man", 1),
        ("sp_actor", "# Thomas Brennan, 42", "# Thomas Brennan, 42, Black", 1),
    ]
    before, after = record.scenario.packets, played.scenario.packets
    assert "42-year-old Black man" in after.examinee
    assert "\n# Thomas Brennan, 42, Black\n" in after.sp_actor
    assert after.environment_controller == before.environment_controller
    assert after.evaluator == before.evaluator
    assert played.rubric == record.rubric
    # a case the table does not list is not played, never altered
    assert play(spec, demo_records()[BAD_NEWS]) is None


NAME_SWAP = """\
name: name_swap
kind: cue
role: every packet
changes: the patient's first name
rationale: A test of the refusal.
substitutions:
  demo_bad_news/scenario1:
    - from: Linda
      to: Amara
"""


def test_a_cue_whose_words_the_rubric_holds_refuses_the_case(tmp_path: Path) -> None:
    path = tmp_path / "name_swap.yaml"
    path.write_text(NAME_SWAP)
    spec = read_variant(path)
    with pytest.raises(MedSPDataError) as caught:
        play(spec, demo_records()[BAD_NEWS])
    line = str(caught.value)
    assert "\n" not in line
    assert line.startswith(f"variant name_swap refuses {BAD_NEWS}: its rubric names 'Linda'")
    # through the task, before any encounter
    with pytest.raises(MedSPDataError, match="refuses demo_bad_news/scenario1"):
        medsp_demo(judge=SCRIPTED, variants=f"baseline,{path}")


BAD_FILES = {
    "not_yaml.yaml": ("name: [unclosed\n", "is not valid YAML at line 2"),
    "no_table.yaml": (
        "name: no_table\nkind: cue\nrole: every packet\nchanges: a name\nrationale: test\n",
        "a cue variant needs its substitution table",
    ),
    "no_patient.yaml": (
        "name: shy\nkind: persona\nrole: patient\nchanges: manner\nrationale: test\n",
        "a persona variant needs patient",
    ),
    "odd_kind.yaml": (
        "name: odd\nkind: mood\nrole: patient\nchanges: manner\nrationale: test\npatient: x\n",
        "field kind",
    ),
}


@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_a_bad_variant_file_is_one_line_before_anything_runs(tmp_path: Path, name: str) -> None:
    text, said = BAD_FILES[name]
    path = tmp_path / name
    path.write_text(text)
    # medsp1000 with a data folder that does not exist: the variant is refused first
    with pytest.raises(MedSPParameterError) as caught:
        medsp1000(data_dir=str(tmp_path / "none"), judge=SCRIPTED, variants=str(path))
    line = str(caught.value)
    assert "\n" not in line and said in line and str(path) in line
    assert medsp_cases(["check", str(path)]) == 1


def test_an_unknown_variant_name_is_one_line_with_the_nearest(tmp_path: Path) -> None:
    with pytest.raises(MedSPParameterError) as caught:
        medsp1000(data_dir=str(tmp_path / "none"), judge=SCRIPTED, variants="baseline,anxiuos")
    line = str(caught.value)
    assert "\n" not in line
    assert "no variant named 'anxiuos'; did you mean anxious?" in line
    with pytest.raises(MedSPParameterError, match="baseline is named twice"):
        medsp_demo(judge=SCRIPTED, variants="baseline,baseline")


def test_inspect_eval_refuses_an_unknown_variant_in_one_line(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "inspect_ai", "eval", "inspect_medsp/medsp_demo",
         "--model", SCRIPTED, "-T", f"judge={SCRIPTED}", "-T", "variants=baseline,talkativ",
         "--log-dir", str(tmp_path / "logs")],
        capture_output=True, text=True, cwd=tmp_path, timeout=120,
    )  # fmt: skip
    assert done.returncode != 0
    assert "Traceback" not in done.stderr + done.stdout
    assert "no variant named 'talkativ'; did you mean talkative?" in done.stderr + done.stdout
    assert not (tmp_path / "logs").exists() or not list((tmp_path / "logs").iterdir())


def test_medsp_cases_checks_a_variant_file(capsys: pytest.CaptureFixture[str]) -> None:
    for path in library_files().values():
        assert medsp_cases(["check", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"variant {CUE} (cue, 2 substitutions on 1 case(s)), no problems" in out


def test_the_shipped_library_is_well_formed() -> None:
    specs = shipped()
    assert [s.name for s in specs] == SHIPPED
    kinds = {s.name: s.kind for s in specs}
    assert kinds[CUE] == "cue" and kinds["relative_answers"] == "voice"
    personas = {"anxious", "guarded", "talkative", "impatient", "low_literacy", "limited_english"}
    assert personas <= {n for n, k in kinds.items() if k == "persona"}
    for spec in specs:
        assert spec.rationale and "\n" not in spec.rationale
        if spec.kind != "cue":
            assert "script" in spec.patient  # each says the script's facts stay as they are


# the report, on a synthetic pair of runs with a planted effect

ITEMS = 20
CASES = 12


def _sample(case: int, variant: str, met: list[bool], cost: float | None = None) -> MedspSample:
    items = [
        ItemVerdict(number=n, competency="PC" if n <= 14 else "ICS", text=f"item {n}", met=m,
                    judged=True)
        for n, m in enumerate(met, start=1)
    ]  # fmt: skip
    pc = sum(met[:14])
    value = ScoreValue.of({"overall": (sum(met), ITEMS), "PC": (pc, 14), "ICS": (sum(met[14:]), 6)})
    sid = f"case{case:02d}/scenario1"
    return MedspSample(
        id=sid if variant == "baseline" else f"{sid}@{variant}",
        metadata=SampleMetadata(case_id=f"case{case:02d}", scenario="scenario1", variant=variant),
        score=MedspScore(value=value, metadata=ScoreMetadata(items=items)),
        scores={} if cost is None else {"medsp_workup": _workup(cost)},
    )


def _workup(cost: float) -> Score:
    """A stored work-up of three orders costing ``cost`` in all."""
    orders = [
        Order(turn=t, order=f"order {t}", status="executed", category="labs",
              category_source="order", cost=cost / 3)
        for t in (1, 2, 3)
    ]  # fmt: skip
    result = Workup(orders=orders, currency="tier units", prices="prices.yaml", cost=cost)
    return Score(value={"cost": cost, "orders": 3}, metadata=result.model_dump())


def _run(name: str, samples: list[MedspSample]) -> MedspRun:
    return MedspRun(
        path=f"/logs/{name}.eval",
        task="inspect_medsp/medsp100",
        created=f"2026-01-01T00:00:0{len(name) % 10}",
        status="success",
        model="openai/model-x",
        task_metadata=TaskMetadata(judge="openai/gpt-5.5", strategy={"strategy": "off"}),
        samples=samples,
    )


def test_the_report_finds_a_planted_effect_and_not_an_absent_one() -> None:
    baseline, variants = [], []
    for case in range(CASES):
        met = [(case + n) % 3 != 0 for n in range(ITEMS)]
        baseline.append(_sample(case, "baseline", met))
        # rushed: four items met at baseline are missed (always ICS items 15-20 first)
        rushed = list(met)
        dropped = [n for n in range(ITEMS - 1, -1, -1) if met[n]][:4]
        for n in dropped:
            rushed[n] = False
        variants.append(_sample(case, "rushed", rushed))
        # calm: one item up in half the cases, one down in the other half (no effect)
        calm = list(met)
        n = next(i for i, m in enumerate(met) if m == (case % 2 == 0))
        calm[n] = not calm[n]
        variants.append(_sample(case, "calm", calm))
    analysis = analyse([_run("base", baseline), _run("variants", variants)])
    [view] = views(analysis)
    overall = {r.group_b: r for r in view.rows if r.competency == "overall"}
    assert overall["rushed"].detectable
    assert overall["rushed"].paired.difference == pytest.approx(-4 / ITEMS)
    assert overall["rushed"].paired.ci_high < 0
    assert not overall["calm"].detectable
    assert overall["calm"].paired.difference == pytest.approx(0.0)
    assert overall["rushed"].corrected and overall["rushed"].family_size == 2
    flips = [f for f in view.flips if f.variant == "rushed"]
    assert sum(f.down for f in flips) == 4 * CASES and not any(f.up for f in flips)
    text = "\n".join(markdown(Page(analysis=analysis, charts=False)))
    assert "**Care changed** with rushed: completion is lower." in text
    assert "calm vs baseline: no difference detectable" in text
    table = variant_table(analysis)
    assert {(r[1], r[2]) for r in table.rows} >= {("rushed", "overall"), ("calm", "ICS")}
    # the leaderboard row is the baseline's alone: its scenarios and its macro, not a mean
    # that folds in the rushed variant's lower completion
    [group] = analysis.groups
    assert len(group.samples) == CASES and len(group.variant_samples) == 2 * CASES
    alone = analyse([_run("base", baseline)]).groups[0]
    assert group.metrics["macro"] == pytest.approx(alone.metrics["macro"])


def test_the_report_finds_a_planted_work_up_cost_and_counts_encounters_without_one() -> None:
    baseline, variants = [], []
    for case in range(CASES):
        met = [(case + n) % 3 != 0 for n in range(ITEMS)]
        cost = 6.0 + case % 4
        baseline.append(_sample(case, "baseline", met, cost))
        # costly: the same orders, each dearer, by 2 to 4 tier units an encounter
        variants.append(_sample(case, "costly", met, cost + 2 + case % 3))
        # calm: the same cost; its last case has no work-up (as with -T workup=false)
        variants.append(_sample(case, "calm", met, None if case == CASES - 1 else cost))
    analysis = analyse([_run("base", baseline), _run("variants", variants)])
    [view] = views(analysis)
    rows = {(r.group_b, r.competency): r for r in view.workup.rows}
    costly = rows[("costly", "cost")]
    assert costly.detectable and costly.paired.ci_low > 0
    assert costly.paired.difference == pytest.approx(sum(2 + c % 3 for c in range(CASES)) / CASES)
    assert costly.corrected and costly.family_size == 2
    assert rows[("costly", "orders")].paired.difference == 0.0
    calm = rows[("calm", "cost")]
    assert not calm.detectable and calm.paired.difference == 0.0
    # the encounter without a work-up is left out of the pair, not priced at 0
    assert calm.paired.scenarios == CASES - 1 and costly.paired.scenarios == CASES
    assert view.workup.without == {"baseline": 0, "costly": 0, "calm": 1}
    text = "\n".join(markdown(Page(analysis=analysis, charts=False)))
    assert "without a work-up result" in text and "calm 1 of 12" in text
    table = variant_table(analysis)
    found = {(r[1], r[2]): dict(zip(table.columns, r, strict=True)) for r in table.rows}
    assert found[("costly", "overall")]["cost_difference"] == costly.paired.difference
    assert found[("calm", "overall")]["without_workup"] == 1
    assert found[("calm", "PC")]["cost_difference"] is None


def _calls(out: str) -> dict[str, list[int]]:
    """Each role's calls and input tokens, as ``medsp-estimate`` prints them."""
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line.split()}
    return {
        role: [int(rows[role][2].replace(",", "")), int(rows[role][3].replace(",", ""))]
        for role in ("clinician", "patient", "environment", "grader")
    }


def test_medsp_estimate_prices_every_variant(capsys: pytest.CaptureFixture[str]) -> None:
    from inspect_medsp.estimate.cli import main as estimate

    assert estimate(["medsp_demo", "-T", "max_turns=6"]) == 0
    alone = _calls(capsys.readouterr().out)
    assert estimate(["medsp_demo", "-T", "max_turns=6", "-T", "variants=baseline,anxious"]) == 0
    out = capsys.readouterr().out
    assert "MedSP-demo: 6 encounters (3 scenarios, 2 patient variants)" in out
    both = _calls(out)
    for role in ("clinician", "patient", "environment", "grader"):
        assert both[role][0] == 2 * alone[role][0]
    # the clinician reads the same prompts; the patient also reads the persona each call
    assert both["clinician"][1] == 2 * alone["clinician"][1]
    assert both["patient"][1] > 2 * alone["patient"][1]


def test_the_audit_reads_the_persona_it_checks(tmp_path: Path) -> None:
    [log] = eval(
        medsp_demo(judge=SCRIPTED, variants="baseline,guarded", audit=True, scenarios=ANAPHYLAXIS),
        model=SCRIPTED,
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert log.status == "success", log.error
    samples = _samples(read_eval_log(log.location, resolve_attachments=True))
    [spec] = resolve(["guarded"])
    assert spec is not None
    variant = "\n".join(_texts(samples[f"{ANAPHYLAXIS}@guarded"], "auditor"))
    baseline = "\n".join(_texts(samples[ANAPHYLAXIS], "auditor"))
    assert "persona_not_played" in variant and "persona_not_played" in baseline
    assert spec.patient.strip() in variant
    assert spec.patient.strip() not in baseline and "<how_to_play>" not in baseline
    for sample in samples.values():
        assert sample.scores is not None and "medsp_simulation_audit" in sample.scores


def test_the_audit_section_counts_a_persona_not_played_per_variant() -> None:
    from inspect_medsp.audit.audit_report import AuditedEncounter, RunAudit, simulation_markdown
    from inspect_medsp.audit.result import Finding, SimulationAudit

    ignored = Finding(
        turn=2, role="patient", kind="persona_not_played", quote="Yes, all fine.", severity="minor"
    )
    encounters = [
        AuditedEncounter(id="c1/s1", epoch=1, case="c1", audit=SimulationAudit(verdict="faithful")),
        AuditedEncounter(
            id="c1/s1@guarded",
            epoch=1,
            case="c1",
            variant="guarded",
            audit=SimulationAudit(verdict="minor", findings=[ignored]),
        ),
    ]
    lines = simulation_markdown([RunAudit(run="run-a", encounters=encounters)])
    assert "| run-a | baseline | 1 | 0 | 0 | 0 |" in lines
    assert "| run-a | guarded | 1 | 1 | 0 | 0 |" in lines
    # a run without variants shows no such table
    plain = simulation_markdown([RunAudit(run="run-a", encounters=encounters[:1])])
    assert not any("By patient variant" in line for line in plain)


def test_samples_df_has_the_variant_column(variant_log: EvalLog) -> None:
    pytest.importorskip("pandas", reason="needs the analysis extra: pip install -e '.[analysis]'")
    from inspect_ai.analysis import SampleSummary, samples_df

    from inspect_medsp.analysis import MedspColumns

    df = samples_df(variant_log.location, columns=SampleSummary + MedspColumns, quiet=True)
    by_id = dict(zip(df["id"], df["medsp_variant"], strict=True))
    assert by_id[ANAPHYLAXIS] == "baseline"
    assert by_id[f"{ANAPHYLAXIS}@{CUE}"] == CUE
    assert sorted(set(by_id.values())) == sorted(["baseline", *SHIPPED])


def test_the_run_s_metrics_and_end_of_run_line_read_the_baseline_alone(
    variant_log: EvalLog,
) -> None:
    from inspect_medsp.hooks.coverage import RunCoverage

    coverage = RunCoverage.of(variant_log)
    assert coverage is not None
    line = coverage.line()
    assert line.startswith("MedSP-demo: 3 of 3 published scenarios scored")
    assert f"{3 * (len(SHIPPED) - 1) + 1} patient-variant encounter(s) scored" in line
    assert "its metrics read the baseline alone" in line
    assert "not comparable" not in line
    # the log's own metrics (inspect view's results header) are the baseline's: 3 scenarios
    assert variant_log.results is not None
    [rubric] = [s for s in variant_log.results.scores if s.name == SCORER]
    assert rubric.metrics["scenarios"].value == 3


def test_medsp_estimate_prices_variants_from_the_rubrics_alone(
    upstream: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from inspect_medsp.estimate.cli import main as estimate

    base = ["medsp100", "--assume-packets", "demo", "-T", f"upstream_dir={upstream}"]
    assert estimate([*base, "-T", "variants=baseline,talkative,guarded"]) == 0
    out = capsys.readouterr().out
    assert "MedSP-Q100: 300 encounters (100 scenarios, 3 patient variants)" in out
    assert _calls(out)["grader"][0] == 300
    # a cue whose table lists none of the selected scenarios is one line, exit 1
    assert estimate([*base, "-T", f"variants=baseline,{CUE}"]) != 0
    err = capsys.readouterr().err
    assert f"variant {CUE} runs on none of the 100 scenarios selected" in err


OWN_VOICE = """\
name: parent_answers
kind: voice
role: patient
changes: who answers (the parent), never what is true
rationale: A user's own variant, run only where a parent is present.
scenarios: ["demo_peds_*/*"]
patient: |
  The parent answers every question, even those asked of the child; every fact stays as the
  script says.
"""


def test_a_users_own_variant_runs_where_its_scenarios_allow(tmp_path: Path) -> None:
    from inspect_medsp.variants import expand

    path = tmp_path / "parent_answers.yaml"
    path.write_text(OWN_VOICE)
    assert medsp_cases(["check", str(path)]) == 0
    records = list(demo_records().values())
    out, lines = expand(records, resolve(["baseline", str(path)]))
    assert [r.sample_id for r in out] == [
        ANAPHYLAXIS,
        BAD_NEWS,
        "demo_peds_asthma/scenario1",
        "demo_peds_asthma/scenario1@parent_answers",
    ]
    assert lines == [
        "variant parent_answers runs only where its scenarios list matches (demo_peds_*/*); "
        f"left out 2: {ANAPHYLAXIS}, {BAD_NEWS}"
    ]
    with pytest.raises(MedSPDataError, match="parent_answers runs on none of the 1 scenarios"):
        expand(records[:1], resolve(["baseline", str(path)]))
