"""Your own cases: the case format, ``medsp-cases`` (new, check, demo, draft) and
``medsp_custom``, which runs a folder of cases as the published tasks run theirs."""

from __future__ import annotations

import logging
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from inspect_ai import Task, eval
from inspect_ai.log import EvalLog

from inspect_medsp import medsp_custom
from inspect_medsp.cases import load_custom
from inspect_medsp.cases.check import check_set
from inspect_medsp.cases.cli import main
from inspect_medsp.cases.draft import draft_case
from inspect_medsp.cases.write import new_case, write_demo
from inspect_medsp.errors import MedSPDataError, MedSPParameterError
from inspect_medsp.estimate.selection import from_task
from inspect_medsp.scripted.draft import sample_vignette
from tests.support.metrics import scored
from tests.support.scripts import Script, clinician, environment, patient

REPO = Path(__file__).resolve().parents[1]

MARKERS = {
    "patient": "MARKER_CASE_PATIENT_71c2",
    "environment": "MARKER_CASE_ENV_4be9",
    "evaluator": "MARKER_CASE_GUIDE_d03a",
    "rubric": "MARKER_CASE_RUBRIC_8f15",
}


def lines_of(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.strip()]


def problems(folder: Path) -> list[str]:
    """The problem lines ``check`` finds (the summary line left out)."""
    return [p.line() for p in check_set(folder).problems]


@pytest.fixture
def case(tmp_path: Path) -> Path:
    """A fresh template case in ``<tmp>/set/mycase``."""
    folder = tmp_path / "set" / "mycase"
    new_case(folder)
    return folder


# new and check


def test_new_then_check_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["new", str(tmp_path / "mine" / "mycase")]) == 0
    assert main(["check", str(tmp_path / "mine")]) == 0
    out = capsys.readouterr().out
    assert "1 case checked, 1 draft, no problems" in out
    facts = yaml.safe_load((tmp_path / "mine" / "mycase" / "case.yaml").read_text())
    assert facts["id"] == "mycase" and facts["status"] == "draft"
    # the template is commented for its author, and no role reads the comments
    door = (tmp_path / "mine" / "mycase" / "examinee" / "01_door_note.md").read_text()
    assert "<!--" in door
    [record], _ = load_custom(tmp_path / "mine")
    assert "<!--" not in record.scenario.packets.examinee
    assert "Door note" in record.scenario.packets.examinee


def test_new_refuses_a_folder_that_holds_something(case: Path) -> None:
    with pytest.raises(MedSPDataError, match="already exists"):
        new_case(case)


def test_a_garbage_rubric_is_a_few_lines_and_no_traceback(case: Path) -> None:
    (case / "rubric.yaml").write_text("}}{{ :: not : a rubric\n\t- [\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "inspect_medsp.cases.cli", "check", str(case.parent)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    said = done.stdout + done.stderr
    assert done.returncode == 1
    assert len(lines_of(said)) <= 5
    assert "Traceback" not in said
    assert "rubric.yaml:1: YAML cannot read this line" in said and "fix:" in said


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit:
        main([])
    assert exit.value.code == 2
    assert capsys.readouterr().err.count("\n") == 1
    with pytest.raises(SystemExit) as exit:
        main(["draft", "vignette.txt"])
    assert exit.value.code == 2
    # one line naming the missing parameters and where the help is
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith("medsp-cases draft: error: ") and "--model, --out" in line
    assert line.endswith("(see medsp-cases draft --help)")
    with pytest.raises(SystemExit) as exit:
        main(["chek", "cases"])
    assert exit.value.code == 2
    [line] = capsys.readouterr().err.splitlines()
    assert "'chek'" in line and "'check'" in line


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _append(path: Path, text: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


def _missing_packet(case: Path) -> None:
    for f in (case / "environment").iterdir():
        f.unlink()
    (case / "environment").rmdir()


def _empty_packet(case: Path) -> None:
    _write(case / "evaluator" / "marking_guide.md", "<!-- to do -->\n\n")


def _no_items(case: Path) -> None:
    _write(case / "rubric.yaml", "PC: []\nMK: []\nSBP:\nICS: []\nPBLI: []\nPROF: []\n")


def _unknown_competency(case: Path) -> None:
    _append(case / "rubric.yaml", "Communication:\n  - Speaks kindly\n")


def _duplicate_id(case: Path) -> None:
    twin = case.parent / "twin"
    new_case(twin)
    text = (twin / "case.yaml").read_text(encoding="utf-8")
    (twin / "case.yaml").write_text(text.replace("id: twin", "id: mycase"), encoding="utf-8")


def _not_utf8(case: Path) -> None:
    (case / "patient" / "02_more.md").write_bytes("Caf\u00e9 owner".encode("latin-1"))


def _leaks_hidden_fact(case: Path) -> None:
    _append(
        case / "examinee" / "01_door_note.md",
        "\nShe says penicillin gave her a swollen face and a rash years ago.\n",
    )


def _leaks_rubric_item(case: Path) -> None:
    _write(
        case / "examinee" / "03_hints.md",
        "# Hints\n\nRemember: examines the chest and checks the vital signs, including oxygen "
        "saturation.\n",
    )


IDENTIFIERS = {
    "date of birth": "DOB: 14/03/1953",
    "phone number": "Daughter's mobile: 07700 900123",
    "record number": "MRN 00482913",
    "e-mail address": "Daughter: jane.hale@example.org",
    "street address": "She lives at 42 Orchard Lane, upstairs.",
}


@pytest.mark.parametrize(
    ("breaks", "kind", "file", "words"),
    [
        (_missing_packet, "missing_packet", "environment", "packet folder missing"),
        (_empty_packet, "empty_packet", "evaluator", "packet is empty"),
        (_no_items, "no_items", "rubric.yaml", "the rubric has no items"),
        (_unknown_competency, "unknown_competency", "rubric.yaml", "'Communication' is not"),
        (_duplicate_id, "duplicate_id", "twin/case.yaml", "id 'mycase' is also the id of"),
        (_not_utf8, "not_utf8", "patient/02_more.md", "not UTF-8 text"),
        (_leaks_hidden_fact, "leak", "examinee/01_door_note.md", "patient's hidden fact"),
        (_leaks_rubric_item, "leak", "examinee/03_hints.md", "rubric item PC 2"),
    ],
)
def test_check_finds_each_problem_on_one_line_with_its_file_and_fix(
    case: Path, breaks: object, kind: str, file: str, words: str
) -> None:
    assert problems(case.parent) == []
    assert callable(breaks)
    breaks(case)
    found = check_set(case.parent).problems
    assert [p.kind for p in found] == [kind], [p.line() for p in found]
    line = found[0].line()
    assert "\n" not in line and file in line and words in line and "; fix: " in line


@pytest.mark.parametrize("kind", sorted(IDENTIFIERS))
def test_check_finds_likely_identifiers(case: Path, kind: str) -> None:
    _append(case / "patient" / "01_patient.md", f"\n{IDENTIFIERS[kind]}\n")
    found = check_set(case.parent).problems
    assert [p.kind for p in found] == ["identifier"], [p.line() for p in found]
    assert f"likely a {kind}" in found[0].line() or f"likely an {kind}" in found[0].line()
    assert "patient/01_patient.md:" in found[0].file and "de-identified" in found[0].fix


def test_clinical_numbers_are_not_identifiers(case: Path) -> None:
    _append(
        case / "environment" / "02_results.md",
        "\n- **Repeat:** BP 96/58, 1 L over 30 min, pH 7.31, 0.5 mg/kg, 4-6 weeks, 1-2 h.\n",
    )
    assert problems(case.parent) == []


def test_every_check_problem_is_listed_and_the_exit_is_1(
    case: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _no_items(case)
    _leaks_hidden_fact(case)
    assert main(["check", str(case.parent)]) == 1
    out = lines_of(capsys.readouterr().out)
    assert len(out) == 3 and out[-1].endswith("2 problems")


# demo and the custom task


def test_demo_cases_pass_check_and_score_as_medsp_demo(
    tmp_path: Path, log_dir: str, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = tmp_path / "democases"
    assert main(["demo", str(cases)]) == 0
    assert sorted(p.name for p in cases.iterdir()) == [
        "demo_anaphylaxis",
        "demo_bad_news",
        "demo_peds_asthma",
    ]
    assert problems(cases) == []
    [log] = eval(
        medsp_custom(cases=str(cases), judge="medsp/scripted"),
        model="medsp/scripted",
        display="none",
        log_dir=log_dir,
    )
    assert log.status == "success", log.error
    assert log.eval.dataset.name == "custom: democases, 3 cases"
    assert log.results is not None
    metrics = log.results.scores[0].metrics
    assert round(metrics["macro"].value, 3) == 0.706
    assert metrics["scenarios"].value == 3
    assert "published_scenarios" not in metrics
    # the report of the set says nothing of the published numbers either
    from inspect_medsp.full_report import write_report

    result = write_report([log_dir], str(tmp_path / "report"), ["md"])
    report = (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
    assert result.analysis is not None and "medsp_custom" in report
    assert "published" not in report.lower() and "comparable" not in report.lower()


def test_a_custom_set_takes_epochs_a_strategy_and_the_audit(tmp_path: Path, log_dir: str) -> None:
    cases = tmp_path / "democases"
    write_demo(cases)
    [log] = eval(
        medsp_custom(cases=str(cases), judge="medsp/scripted", audit=True, strategy="single"),
        model="medsp/scripted",
        epochs=2,
        display="none",
        log_dir=log_dir,
    )
    assert log.status == "success", log.error
    assert log.eval.config.epochs == 2
    assert log.eval.metadata is not None and log.eval.metadata["medsp_strategy"]["strategy"] == (
        "single"
    )
    assert log.results is not None
    scorers = {s.name for s in log.results.scores}
    assert scorers == {"medsp_rubric", "medsp_simulation_audit", "medsp_workup"}
    rubric = next(s for s in log.results.scores if s.name == "medsp_rubric")
    assert round(rubric.metrics["macro"].value, 3) == 0.706


def test_a_custom_run_says_nothing_about_the_published_numbers(tmp_path: Path) -> None:
    cases = tmp_path / "democases"
    write_demo(cases)
    done = subprocess.run(
        [
            sys.executable, "-m", "inspect_ai", "eval", "inspect_medsp/medsp_custom",
            "-T", f"cases={cases}", "--model", "medsp/scripted", "-T", "judge=medsp/scripted",
            "--log-dir", str(tmp_path / "logs"), "--display", "plain",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )  # fmt: skip
    said = done.stdout + done.stderr
    assert done.returncode == 0, said
    assert "custom: democases, 3 cases" in said
    assert "0.706" in said
    assert "published" not in said.lower() and "comparable" not in said.lower()


def test_drafts_run_with_one_warning_naming_them(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    cases = tmp_path / "ours"
    write_demo(cases)
    new_case(cases / "mycase")
    _, report = load_custom(cases)
    assert report.name == "custom: ours, 4 cases"
    assert len(report.warning_lines()) == 1
    [line] = report.warning_lines()
    assert "1 case is a draft" in line and "mycase" in line and "demo_" not in line
    with caplog.at_level(logging.WARNING, logger="inspect_medsp"):
        report.log()
    assert [r.getMessage() for r in caplog.records] == [line]
    # once reviewed, no warning
    facts = cases / "mycase" / "case.yaml"
    facts.write_text(facts.read_text().replace("status: draft", "status: reviewed"))
    assert load_custom(cases)[1].warning_lines() == []


def test_a_case_with_a_problem_of_form_stops_the_load_naming_it(case: Path) -> None:
    _unknown_competency(case)
    with pytest.raises(MedSPDataError, match=r"rubric\.yaml: 'Communication' is not a"):
        medsp_custom(cases=str(case.parent))
    with pytest.raises(MedSPParameterError, match="cases is required"):
        medsp_custom()
    with pytest.raises(MedSPDataError, match="does not exist"):
        medsp_custom(cases=str(case.parent / "nowhere"))


def test_the_loader_reads_the_published_layout_too(tmp_path: Path) -> None:
    demo = REPO / "src" / "inspect_medsp" / "data" / "demo"
    tree = tmp_path / "published"
    (tree / "rubrics").mkdir(parents=True)
    for rubric in (demo / "upstream" / "rubrics").glob("demo_bad*.json"):
        (tree / "rubrics" / rubric.name).write_bytes(rubric.read_bytes())
    sub = subprocess.run(["cp", "-r", str(demo / "scenarios" / "demo_bad_news"), str(tree)])
    assert sub.returncode == 0
    records, report = load_custom(tree)
    assert [r.id for r in records] == ["demo_bad_news/scenario1"]
    assert report.name == "custom: published, 1 case" and report.published is None


def test_medsp_estimate_builds_a_custom_task(tmp_path: Path) -> None:
    write_demo(tmp_path / "democases")
    selection = from_task("medsp_custom", {"cases": str(tmp_path / "democases")})
    assert selection.name == "custom: democases, 3 cases" and len(selection.records) == 3


# isolation


def _marked_set(root: Path) -> Path:
    folder = root / "marked" / "chest"
    new_case(folder)
    facts = folder / "case.yaml"
    facts.write_text(facts.read_text().replace("[Margaret Hale,", "[Reyes,"))
    _write(
        folder / "examinee" / "01_door_note.md",
        "# Door note\n\nMr. Reyes, 58, chest pain for one hour.\n",
    )
    _write(folder / "examinee" / "02_instructions.md", "# Your task\n\nAssess and treat.\n")
    _write(
        folder / "patient" / "01_patient.md",
        f"# Mr. Reyes\n\n## Only when asked\n- Secret history {MARKERS['patient']}: smokes.\n",
    )
    _write(
        folder / "environment" / "01_stages.md",
        f"## 0 initial_assessment\nECG shows ST elevation {MARKERS['environment']}.\n",
    )
    (folder / "environment" / "02_results.md").unlink()
    _write(
        folder / "evaluator" / "marking_guide.md",
        f"# Marking guide\nAspirin and an ECG within 10 minutes {MARKERS['evaluator']}.\n",
    )
    _write(
        folder / "rubric.yaml",
        f"PC:\n  - Gives aspirin 300 mg\n  - Obtains an ECG {MARKERS['rubric']}\n",
    )
    assert problems(folder.parent) == []
    return folder.parent


def _run(
    task: Task, clin: Script, pat: Script, env: Script, grader: Script, log_dir: str
) -> EvalLog:
    [log] = eval(
        task,
        model=clin.model(),
        model_roles={"patient": pat.model(), "environment": env.model(), "grader": grader.model()},
        log_dir=log_dir,
        display="none",
    )
    assert log.status == "success", log.error
    return log


def test_the_clinician_never_sees_a_custom_cases_hidden_materials(
    tmp_path: Path, log_dir: str
) -> None:
    clin = Script([clinician("Hello.", ["ECG"]), clinician("Aspirin now.", ["aspirin"], eos=True)])
    pat = Script([patient("It hurts here.")])
    env = Script(
        [
            environment(0, "initial_assessment", feedback=["ECG: ST elevation"]),
            environment(1, "treated", end=True, reason="done"),
        ]
    )
    grader = Script([{"PC": {"[1]": {"met": True, "evidence": "Aspirin now."}}}])
    task = medsp_custom(cases=str(_marked_set(tmp_path)), judge="mockllm/model", max_turns=3)
    log = _run(task, clin, pat, env, grader, log_dir)

    clinician_text = "\n".join(clin.texts())
    assert "Mr. Reyes, 58, chest pain" in clinician_text
    for marker in MARKERS.values():
        assert marker not in clinician_text
    patient_text = "\n".join(pat.texts())
    assert MARKERS["patient"] in patient_text
    assert not any(MARKERS[k] in patient_text for k in ("environment", "evaluator", "rubric"))
    env_text = "\n".join(env.texts())
    assert MARKERS["environment"] in env_text
    assert not any(MARKERS[k] in env_text for k in ("patient", "evaluator", "rubric"))
    grader_text = "\n".join(grader.texts())
    assert MARKERS["rubric"] in grader_text
    assert log.samples is not None
    assert (scored(log.samples[0]).metadata or {})["figures"]["PC"] == 0.5


# draft


def test_draft_writes_a_checked_draft_from_the_sample_vignette(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vignette = tmp_path / "vignette.txt"
    vignette.write_text(sample_vignette(), encoding="utf-8")
    out = tmp_path / "ours" / "dka"
    code = main(["draft", str(vignette), "--model", "medsp/scripted", "--out", str(out)])
    said = capsys.readouterr().out
    assert code == 0, said
    assert "1 case checked, 1 draft, no problems" in said
    assert "A clinician must review" in said and "status: reviewed" in said
    facts = yaml.safe_load((out / "case.yaml").read_text())
    assert facts["status"] == "draft" and facts["id"] == "dka"
    assert facts["source"] == "drafted by medsp/scripted from the vignette vignette.txt"
    stages = (out / "environment" / "01_stages.md").read_text()
    assert "| 0 | initial_assessment |" in stages
    patient_text = (out / "patient" / "01_patient.md").read_text()
    assert "## Only when asked" in patient_text
    rubric = yaml.safe_load((out / "rubric.yaml").read_text())
    assert all(rubric[c] for c in ("PC", "MK", "SBP", "ICS", "PBLI", "PROF"))
    [record], report = load_custom(out.parent)
    assert record.rubric.n_items == 14 and len(report.warning_lines()) == 1


def test_the_readme_shows_the_sample_vignette_the_scripted_author_drafts() -> None:
    readme = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())
    assert " ".join(sample_vignette().split()) in readme


async def test_draft_refuses_an_empty_vignette_and_a_taken_folder(case: Path) -> None:
    with pytest.raises(MedSPDataError, match="vignette is empty"):
        await draft_case("  \n", "medsp/scripted", case.parent / "other", "v.txt")
    with pytest.raises(MedSPDataError, match="already exists"):
        await draft_case(sample_vignette(), "medsp/scripted", case, "v.txt")


def test_a_case_the_scripted_demo_cannot_play_is_refused_at_load(case: Path) -> None:
    with pytest.raises(
        MedSPParameterError, match=r"medsp/scripted cannot play 1 case .*\(mycase/scenario1\)"
    ):
        medsp_custom(cases=str(case.parent), judge="medsp/scripted")


def test_check_verifies_the_stage_syntax(case: Path) -> None:
    stages = case / "environment" / "01_stages.md"
    text = stages.read_text(encoding="utf-8")
    stages.write_text(
        # a heading with no label (an earlier form with one is read: test_case_upgrade.py)
        text.replace("## 1 treatment_and_response", "## Stage 1:").replace(
            "## 2 disposition", "## 3 disposition"
        ),
        encoding="utf-8",
    )
    found = check_set(case.parent).problems
    assert [p.kind for p in found] == ["stages"] * 3, [p.line() for p in found]
    said = [p.line() for p in found]
    assert '"## Stage 1:" is not a stage heading' in said[0]
    assert "stage 3 (disposition) should be stage 1" in said[1]
    assert "the stages table does not list the stage headings" in said[2]
    assert all("environment/01_stages.md:" in line and "; fix: " in line for line in said)
    with pytest.raises(MedSPDataError, match=r"01_stages\.md:\d+: "):
        medsp_custom(cases=str(case.parent))


def test_a_case_may_hold_several_scenarios(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = tmp_path / "ours"
    write_demo(cases)
    case = cases / "demo_anaphylaxis"
    second = case / "scenario2"
    second.mkdir()
    for part in ("examinee", "patient", "environment", "evaluator"):
        shutil.copytree(case / part, second / part)
    (second / "rubric.yaml").write_text("PC:\n  - Gives oxygen\n", encoding="utf-8")
    _append(second / "examinee" / "01_door_note.md", "\nSeen again on the ward the next day.\n")
    assert problems(cases) == []
    records, report = load_custom(cases)
    ids = [r.id for r in records]
    assert "demo_anaphylaxis/scenario1" in ids and "demo_anaphylaxis/scenario2" in ids
    assert report.name == "custom: ours, 3 cases" and report.scenarios == 4
    [again] = [r for r in records if r.id == "demo_anaphylaxis/scenario2"]
    assert "the next day" in again.scenario.packets.examinee
    assert [i.text for i in again.rubric.items()] == ["Gives oxygen"]
    assert main(["show", str(second), "--role", "clinician"]) == 0
    assert "Seen again on the ward the next day." in capsys.readouterr().out
    # a further scenario's faults are the case's, named in its own folder
    (second / "rubric.yaml").write_text("PC:\n  - 12\n", encoding="utf-8")
    assert any("scenario2/rubric.yaml:2: item '12'" in line for line in problems(cases))
