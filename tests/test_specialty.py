"""Specialty labels: the classifier task, the specialties file and ``-T specialties=``.

The classifier is ``inspect_medsp/medsp_specialty`` run with a scripted ``mockllm/model``;
its log becomes a file with ``medsp-specialties``, which the benchmark tasks accept.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval
from inspect_ai.log import read_eval_log
from inspect_ai.model import ChatMessage

from inspect_medsp import MedSPDataError, medsp_demo
from inspect_medsp.data import METADATA_KEY, SampleRecord
from inspect_medsp.specialty import SPECIALTIES, SpecialtiesFile, canonical
from inspect_medsp.specialty.export import main as export_main
from inspect_medsp.specialty.task import medsp_specialty, prompt_sha256
from tests.conftest import REPO
from tests.support.scripts import Script
from tests.support.tree import MARKERS, write_marked_scenario
from tests.test_report import clinician_script, environment_script, grader_script, patient_script

EXPECTED = {
    "demo_anaphylaxis/scenario1": "Emergency medicine",
    "demo_bad_news/scenario1": "Hematology and oncology",
    "demo_peds_asthma/scenario1": "Emergency medicine",
}
DATA_SPECIALTY = {
    "demo_anaphylaxis/scenario1": "Emergency Medicine",
    "demo_bad_news/scenario1": "Internal Medicine",
    "demo_peds_asthma/scenario1": "Pediatrics",
}


def classifier(messages: list[ChatMessage]) -> str | dict[str, Any]:
    """Replies in three shapes: fenced JSON in lower case, clean JSON, JSON inside prose."""
    case = messages[-1].text
    if "Pediatric emergency department" in case:
        return '```json\n{"specialty": "emergency medicine", "reason": "A child in the ED."}\n```'
    if "Emergency department" in case:
        return {"specialty": "Emergency Medicine", "reason": "Anaphylaxis in the ED."}
    return 'My answer: {"specialty": "Hematology & Oncology", "reason": ["New cancer", "news."]}'


def classify(log_dir: Path, replies: Any, **task_args: Any) -> tuple[str, Script]:
    script = Script(replies)
    task_args.setdefault("demo", True)
    logs = eval(
        medsp_specialty(**task_args), model=script.model(), log_dir=str(log_dir), display="none"
    )
    assert logs[0].location
    return logs[0].location, script


@pytest.fixture(scope="module")
def classified(tmp_path_factory: pytest.TempPathFactory, _offline_tokens: None) -> Path:
    """The specialties file the scripted classifier's log gives."""
    base = tmp_path_factory.mktemp("specialty")
    log, _ = classify(base / "logs", classifier)
    out = base / "specialties.json"
    assert export_main([log, "--out", str(out)]) == 0
    return out


def _one_line(err: BaseException) -> str:
    text = str(err)
    assert text and "\n" not in text, text
    return text


def test_classifier_log_becomes_a_specialties_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log, script = classify(tmp_path / "logs", classifier)
    out = tmp_path / "specialties.json"

    assert export_main([log, "--out", str(out)]) == 0

    written = json.loads(out.read_text())
    assert written == {
        "model": "mockllm/model",
        "data_revision": None,
        "prompt_sha256": prompt_sha256(),
        "specialties": EXPECTED,
    }
    prompts = REPO / "src" / "inspect_medsp" / "specialty" / "prompts"
    digest = hashlib.sha256()
    for name in ("specialty_system.md", "specialty_request.md"):
        digest.update((prompts / name).read_bytes())
    assert written["prompt_sha256"] == digest.hexdigest()
    assert "3 scenarios labelled by mockllm/model" in capsys.readouterr().out

    samples = read_eval_log(log).samples or []
    scores = {str(s.id): s.scores["specialty_label"] for s in samples if s.scores}
    assert {i: s.answer for i, s in scores.items()} == EXPECTED
    assert scores["demo_bad_news/scenario1"].explanation == "New cancer news."
    assert len(script.calls) == 3  # every reply was usable on the first ask
    system = script.calls[0][0].text
    assert all(label in system for label in SPECIALTIES)


def test_classifier_reads_only_the_examinee_packet(tmp_path: Path) -> None:
    data, _ = write_marked_scenario(tmp_path)
    _, script = classify(tmp_path / "logs", classifier, demo=False, data_dir=str(data))

    seen = "\n".join(script.texts())
    assert "58-year-old with chest pain" in seen
    for marker in MARKERS.values():
        assert marker not in seen


def test_unusable_reply_is_retried_then_shown_not_crashed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log, script = classify(
        tmp_path / "logs",
        lambda _: '{"specialty": "Cardiology", "reason": "heart"}',
        scenarios="demo_bad_news/*",
    )
    assert len(script.calls) == 3  # the first ask and two corrective re-asks
    assert "Cardiology" in script.calls[1][-1].text and "Pediatrics" in script.calls[1][-1].text
    eval_log = read_eval_log(log)
    assert eval_log.status == "success"
    (sample,) = eval_log.samples or []
    score = sample.scores["specialty_label"] if sample.scores else None
    assert score is not None and score.value == 0.0
    assert score.answer == "(no usable label)" and "Cardiology" in str(score.explanation)
    assert eval_log.results is not None
    assert eval_log.results.scores[0].metrics["labelled"].value == 0.0

    out = tmp_path / "specialties.json"
    assert export_main([log, "--out", str(out)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "demo_bad_news/scenario1" in err[0]
    assert json.loads(out.read_text())["specialties"] == {}


def test_export_refuses_a_log_of_another_task(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    logs = eval(medsp_demo(judge="mockllm/model", scenarios="demo_bad_news/*", max_turns=1),
                model="mockllm/model", log_dir=str(tmp_path), display="none")  # fmt: skip
    assert logs[0].location
    assert export_main([logs[0].location, "--out", str(tmp_path / "x.json")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "not a medsp_specialty log" in err[0]
    assert not (tmp_path / "x.json").exists()


def test_specialties_file_labels_the_samples(classified: Path) -> None:
    labelled = medsp_demo(specialties=str(classified))
    plain = medsp_demo()

    for sample in labelled.dataset:
        meta = sample.metadata or {}
        sid = str(sample.id)
        assert meta["specialty"] == EXPECTED[sid]
        assert meta["specialty_source"] == "mockllm/model"
        assert meta["data_specialty"] == DATA_SPECIALTY[sid]
        record = SampleRecord.model_validate(meta[METADATA_KEY])
        assert record.scenario.metadata["specialty"] == EXPECTED[sid]
    for sample in plain.dataset:
        meta = sample.metadata or {}
        assert meta["specialty"] == DATA_SPECIALTY[str(sample.id)]
        assert meta["specialty_source"] == "data"
    assert labelled.metadata is not None and plain.metadata is not None
    recorded = labelled.metadata["medsp_specialties"]
    assert recorded["model"] == "mockllm/model"
    assert recorded["prompt_sha256"] == prompt_sha256()
    assert plain.metadata["medsp_specialties"] is None


def _clinician_calls(log_dir: Path, **task_args: Any) -> list[list[tuple[str, str]]]:
    clinician = Script(clinician_script(["oxygen", "asks"]))
    eval(
        medsp_demo(judge="mockllm/model", **task_args),
        model=clinician.model(),
        model_roles={
            "patient": Script(patient_script).model(),
            "environment": Script(environment_script).model(),
            "grader": Script(grader_script()).model(),
        },
        log_dir=str(log_dir),
        display="none",
    )
    return sorted([(m.role, m.text) for m in call] for call in clinician.calls)


def test_grouping_never_changes_what_the_clinician_sees(
    classified: Path, tmp_path: Path
) -> None:
    without = _clinician_calls(tmp_path / "without")
    with_file = _clinician_calls(tmp_path / "with", specialties=str(classified))

    assert len(without) == 6  # two turns in each of the three scenarios
    assert with_file == without
    seen = "\n".join(text for call in with_file for _, text in call)
    assert "Hematology and oncology" not in seen and "mockllm/model" not in seen


@pytest.mark.parametrize("fault", ["missing", "unknown"])
def test_bad_specialties_file_is_one_line_naming_the_ids(
    classified: Path, tmp_path: Path, fault: str
) -> None:
    data = json.loads(classified.read_text(encoding="utf-8"))
    if fault == "missing":
        del data["specialties"]["demo_bad_news/scenario1"]
        del data["specialties"]["demo_peds_asthma/scenario1"]
    else:
        data["specialties"]["demo_bad_news/scenario1"] = "Cardiology"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))

    with pytest.raises(MedSPDataError) as caught:
        medsp_demo(specialties=str(bad))

    line = _one_line(caught.value)
    assert str(bad) in line
    if fault == "missing":
        assert "no label for 2 scenarios" in line
        assert "demo_bad_news/scenario1" in line and "demo_peds_asthma/scenario1" in line
        assert "demo_anaphylaxis" not in line
    else:
        assert "demo_bad_news/scenario1 ('Cardiology')" in line and "Pediatrics" in line


@pytest.mark.parametrize("body", ["not json", '{"model": "x"}', '{"specialties": []}'])
def test_unreadable_specialties_file_is_one_line(tmp_path: Path, body: str) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(body)
    with pytest.raises(MedSPDataError) as caught:
        medsp_demo(specialties=str(bad))
    assert str(bad) in _one_line(caught.value)
    with pytest.raises(MedSPDataError, match="not found"):
        medsp_demo(specialties=str(tmp_path / "absent.json"))


def test_bad_specialties_file_exits_non_zero_without_traceback(
    classified: Path, tmp_path: Path
) -> None:
    data = json.loads(classified.read_text(encoding="utf-8"))
    data["specialties"]["demo_anaphylaxis/scenario1"] = "Allergy"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    inspect_cli = Path(sys.executable).parent / "inspect"

    done = subprocess.run(
        [str(inspect_cli), "eval", "inspect_medsp/medsp_demo", "--model", "mockllm/model",
         "-T", "judge=mockllm/model", "-T", f"specialties={bad}",
         "--log-dir", str(tmp_path / "logs"), "--display", "plain"],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )  # fmt: skip

    output = done.stdout + done.stderr
    assert done.returncode != 0
    assert "Traceback" not in output
    assert "demo_anaphylaxis/scenario1 ('Allergy')" in output


def test_specialties_file_round_trips(tmp_path: Path) -> None:
    file = SpecialtiesFile(model="m", data_revision="abc", prompt_sha256="0" * 64,
                           specialties={"c/scenario1": "Surgery"})  # fmt: skip
    path = tmp_path / "s.json"
    file.write(path)
    assert SpecialtiesFile.model_validate_json(path.read_text()) == file


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("Obstetrics & Gynecology", "Obstetrics and gynecology"),
        ("OB/GYN", "Obstetrics and gynecology"),
        ("  emergency   MEDICINE ", "Emergency medicine"),
        ("Hematology/Oncology", "Hematology and oncology"),
        ("ENT and Ophthalmology", "ENT and ophthalmology"),
        ("Family medicine", "Primary care"),
        ("Cardiology", None),
    ],
)
def test_label_spellings(text: str, label: str | None) -> None:
    assert canonical(text) == label


def test_paper_labels() -> None:
    assert len(SPECIALTIES) == 15 and SPECIALTIES[-1] == "Other"
    assert all(canonical(s) == s for s in SPECIALTIES)


def test_file_from_another_data_revision_is_a_warning(
    classified: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from inspect_medsp.data import load_records
    from inspect_medsp.specialty import label_records
    from tests.conftest import DEMO

    data = json.loads(classified.read_text(encoding="utf-8"))
    data["data_revision"] = "aaaa111"
    other = tmp_path / "other.json"
    other.write_text(json.dumps(data))
    records, _ = load_records(DEMO / "scenarios", DEMO / "upstream", data_revision="bbbb222")

    labelled, info = label_records(records, other, data_revision="bbbb222")

    assert [r.scenario.metadata["specialty"] for r in labelled] == [
        EXPECTED[r.id] for r in records
    ]
    assert info is not None and info["data_revision"] == "aaaa111"
    warnings = [r.getMessage() for r in caplog.records if r.name == "inspect_medsp"]
    assert len(warnings) == 1 and "aaaa111" in warnings[0] and "bbbb222" in warnings[0]
    # only metadata changed: every role's packet is as before
    assert [r.scenario.packets for r in labelled] == [r.scenario.packets for r in records]
