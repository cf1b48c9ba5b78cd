"""Identifiers caught before they leave: what ``medsp-cases check`` finds (recall per kind on
a planted set, false alarms on the demo cases and the published rubrics, the figures
docs/identifiers.md gives), and a custom set with findings refused at load for a remote
model unless the user acknowledges it, which the log records."""

from __future__ import annotations

from pathlib import Path

import pytest
from bench.identifiers_bench import (
    demo_alarms,
    held_out_recall,
    held_out_table,
    planted_recall,
    published_findings,
    published_line,
    recall_table,
)
from inspect_ai import eval

from inspect_medsp import medsp_custom
from inspect_medsp.cases.identify import find
from inspect_medsp.cases.privacy import remote
from inspect_medsp.cases.write import write_demo
from inspect_medsp.errors import MedSPDataError
from inspect_medsp.record import read_log

README = (Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8")
DOC = (Path(__file__).parents[1] / "docs" / "identifiers.md").read_text(encoding="utf-8")
HELD_OUT = Path(__file__).parent / "fixtures" / "heldout" / "identifiers"
LEAK = "\n- **Next of kin:** daughter, Priya Raman, mobile 07700 900457.\n"


def test_planted_identifiers_are_found_as_the_doc_says() -> None:
    recall = planted_recall()
    found, planted = recall.total
    assert planted >= 150
    assert recall_table(recall) in DOC
    assert "docs/identifiers.md" in README
    assert found / planted >= 0.95, recall.missed
    for kind, n in recall.planted.items():
        assert recall.found[kind] / n >= 0.9, (kind, recall.missed)
    # the look-alike lines of the tuning set: what the doc says is flagged there
    assert f"{len(recall.extra)} findings cover no planted identifier in {recall.words}" in (
        " ".join(DOC.split())
    )


def test_the_demo_cases_declare_their_names_and_flag_nothing() -> None:
    alarms, lines = demo_alarms()
    assert alarms == [] and lines > 400
    assert f"no finding in the {lines} lines of the demo cases" in DOC


def test_false_alarms_on_the_published_rubrics_are_what_the_docs_say(upstream: Path) -> None:
    found = published_findings(upstream)
    assert found.texts > 30_000
    assert published_line(found) in " ".join(DOC.split())
    # no pattern misfires on clinical numbers: what is found there is a name, a contact, a
    # web address or the one 95-year-old a rubric describes
    assert set(found.by_kind) <= {"name", "phone number", "e-mail address", "url", "age over 89"}


@pytest.mark.parametrize(
    ("line", "kind"),
    [
        ("NHS number 943 476 5919 on the letter.", "record number"),
        ("Medical record #4829137", "record number"),
        ("Chart no. 55-21-908", "record number"),
        ("Seen on 14-Mar-2025 in clinic.", "date"),
        ("Call pager 4471.", "phone number"),
        ("Postcode: M13 9PL", "postcode"),
        ("Springfield, IL 62704", "postcode"),
        ("The patient, Rosalind Achterberg, asks to go home.", "name"),
        ("Her son Kwame drives her.", "name"),
    ],
)
def test_each_kind_the_issue_names_is_found(line: str, kind: str) -> None:
    assert kind in [f.kind for f in find(line)], find(line)


def test_clinical_text_is_not_a_name() -> None:
    for line in (
        "Bell's palsy and Parkinson disease are in the differential.",
        "GCS 14 on the Glasgow Coma Scale; Wells score 4.",
        "May she go home? Will you ask the Harm Reduction team?",
        "BP 96/58, pH 7.29/55/80/23, 0.5 mg/kg, 4-6 weeks.",
    ):
        assert find(line) == [], line


def test_which_models_are_remote(monkeypatch: pytest.MonkeyPatch) -> None:
    assert not remote("medsp/scripted") and not remote("mockllm/model")
    assert remote("openai/gpt-5.5") and remote("anthropic/claude-sonnet-4-5")
    # a model is placed by where it connects (its provider's base URL), not by its name
    # (a name is made once per process, as Inspect memoises it: each service its own name)
    monkeypatch.setenv("THEATRE_BASE_URL", "http://127.0.0.1:8000/v1")
    monkeypatch.setenv("THEATRE_API_KEY", "not-a-key")
    assert not remote("openai-api/theatre/llama")
    monkeypatch.setenv("CLINIC_BASE_URL", "https://llm.example.com/v1")
    monkeypatch.setenv("CLINIC_API_KEY", "not-a-key")
    assert remote("openai-api/clinic/llama")
    # a host that merely starts like a loopback one is a name, and remote
    monkeypatch.setenv("WARD_BASE_URL", "http://127.example.com/v1")
    monkeypatch.setenv("WARD_API_KEY", "not-a-key")
    assert remote("openai-api/ward/llama")


def _leaky_set(root: Path) -> Path:
    cases = root / "ours"
    write_demo(cases)
    patient = cases / "demo_anaphylaxis" / "patient" / "01_patient.md"
    patient.write_text(patient.read_text(encoding="utf-8") + LEAK, encoding="utf-8")
    return cases


def test_a_set_with_findings_is_refused_for_a_remote_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cases = _leaky_set(tmp_path)
    monkeypatch.setenv("HOSPITAL_BASE_URL", "https://llm.example.com/v1")
    monkeypatch.setenv("HOSPITAL_API_KEY", "not-a-key")
    with pytest.raises(MedSPDataError) as refused:
        eval(
            "inspect_medsp/medsp_custom",
            task_args={"cases": str(cases), "judge": "openai-api/hospital/llama"},
            model="medsp/scripted",
            display="none",
            log_dir=str(tmp_path / "logs"),
        )
    line = str(refused.value)
    assert "\n" not in line and "2 likely identifiers" in line
    assert "01_patient.md" in line and "openai-api/hospital/llama" in line
    assert "-T identifiers=allow" in line
    assert not (tmp_path / "logs").exists() or not any((tmp_path / "logs").iterdir())


def test_the_acknowledgement_runs_the_set_and_the_log_records_it(tmp_path: Path) -> None:
    cases = _leaky_set(tmp_path)
    # built in Python, the clinician is not known at load: refused like a remote one
    with pytest.raises(MedSPDataError, match="not known while a task is built in Python"):
        medsp_custom(cases=str(cases), judge="medsp/scripted")
    [log] = eval(
        medsp_custom(cases=str(cases), judge="medsp/scripted", identifiers="allow"),
        model="medsp/scripted",
        display="none",
        log_dir=str(tmp_path / "logs"),
    )
    assert log.status == "success", log.error
    assert log.eval.task_args["identifiers"] == "allow"
    run = read_log(log.location)
    load = run.task_metadata.load
    assert load is not None and len(load.identifiers) == 2
    assert all("01_patient.md" in f for f in load.identifiers)
    assert any("sent as written (-T identifiers=allow)" in w for w in load.warnings)


def test_an_estimate_of_a_set_with_findings_sends_nothing_and_is_not_refused(
    tmp_path: Path,
) -> None:
    from inspect_medsp.estimate.selection import from_task

    cases = _leaky_set(tmp_path)
    selection = from_task("medsp_custom", {"cases": str(cases)})
    assert len(selection.records) == 3


@pytest.mark.parametrize(
    ("line", "kind", "text"),
    [
        ("Hosp No. RJ0048271 on the letter.", "record number", "RJ0048271"),
        ("UR number 1029384 at the new hospital.", "record number", "1029384"),
        ("Medicare card 2123 45670 1.", "account number", "2123 45670 1"),
        ("Her mobile is 0412 345 678.", "phone number", "0412 345 678"),
        ("Write to aoife.b[at]example.org please.", "e-mail address", "example.org"),
        ("Lindenstraße 14, 10117 Berlin", "street address", "Lindenstraße 14"),
        ("Lindenstraße 14, 10117 Berlin", "postcode", "10117 Berlin"),
        ("12 rue de la Paix, 75002 Paris", "street address", "rue de la Paix"),
        ("Fitzroy VIC 3065", "postcode", "VIC 3065"),
        ("Eircode D02 X285", "postcode", "D02 X285"),
        ("It began on Christmas Eve 2021.", "date", "Christmas Eve 2021"),
        ("Last seen in June 2024.", "date", "June 2024"),
        ("Interpreter Nguyễn Thị Hoa came.", "name", "Nguyễn Thị Hoa"),
        ("Seen by Dr Rafał Kowalczyk today.", "name", "Rafał Kowalczyk"),
        ("Seen by Dr Aoife Ní Bhriain today.", "name", "Aoife Ní Bhriain"),
        ("Husband at home; Siobhan (daughter) visits.", "name", "Siobhan"),
        ("A 94-year-old woman.", "age over 89", "94-year-old"),
        ("Moved to Kingfisher Ward.", "facility", "Kingfisher Ward"),
        ("See https://example.org/forum for more.", "url", "https://example.org/forum"),
        ("Logged in from 192.168.14.201.", "ip address", "192.168.14.201"),
        ("Car registration KX19 PZT.", "vehicle plate", "KX19 PZT"),
        ("Pacemaker serial number PJN204719R.", "device serial number", "PJN204719R"),
    ],
)
def test_the_kinds_issue_43_names_are_found_whole(line: str, kind: str, text: str) -> None:
    """Each as a privacy officer looks for it, found whole (not cut at a letter: "Rafa")."""
    found = [(f.kind, f.text) for f in find(line)]
    assert any(k == kind and text in t for k, t in found), found


def test_look_alikes_the_issue_names_are_not_flagged() -> None:
    for line in (
        "Left arm weakness, likely Todd's paresis, resolved.",
        "Bilirubin mildly raised; known Gilbert's, no further work-up.",
        "Grew up in rural Victoria and moved to the city.",
        "She was born 6 weeks early and spent a month in special care.",
        "Takes the Yasmin pill; no other medicines.",
        "The Stroke Unit and the District General Hospital share a CT scanner.",
        "Heart rate is 96 and she is 93% saturated.",
    ):
        assert find(line) == [], (line, find(line))


def _held_out_like(root: Path) -> Path:
    """A held-out set in the shape the blind author writes: cases and labels.yaml."""
    cases = root / "heldout"
    write_demo(cases)
    patient = cases / "demo_anaphylaxis" / "patient" / "01_patient.md"
    patient.write_text(
        patient.read_text(encoding="utf-8")
        + "\nHer neighbour Bronwyn Ellis rang 0412 345 678; she was seen for Todd's paresis.\n"
        + "A hidden record: file ref QQ-never-found.\n",
        encoding="utf-8",
    )
    labels = {
        "identifiers": [
            {"file": "demo_anaphylaxis/patient/01_patient.md", "text": "Bronwyn Ellis",
             "kind": "name"},
            {"file": "demo_anaphylaxis/patient/01_patient.md", "text": "0412 345 678",
             "kind": "phone"},
            {"file": "demo_anaphylaxis/patient/01_patient.md", "text": "QQ-never-found",
             "kind": "record number"},
        ],
        "lookalikes": [
            {"file": "demo_anaphylaxis/patient/01_patient.md", "text": "Todd's paresis"},
        ],
    }
    import yaml

    (cases / "labels.yaml").write_text(yaml.safe_dump(labels), encoding="utf-8")
    return cases


def test_the_held_out_measurement_runs_and_counts_what_a_user_would(tmp_path: Path) -> None:
    held = held_out_recall(_held_out_like(tmp_path))
    assert held.planted == {"name": 1, "phone": 1, "record number": 1}
    assert held.found == {"name": 1, "phone": 1}
    assert held.missed == ["record number: QQ-never-found (demo_anaphylaxis/patient/01_patient.md)"]
    assert held.lookalikes == 1 and held.lookalikes_flagged == []
    assert held.extra == [] and held.words > 1000
    table = held_out_table(held, planted_recall())
    assert "| phone number | 15 | 15 | 100% | phone | 1 | 1 | 100% |" in table
    assert "| all |" in table and "false alarms per 1,000 words" in table


@pytest.mark.skipif(not HELD_OUT.is_dir(), reason="the held-out set is not in this checkout")
def test_the_held_out_figures_are_what_the_doc_says() -> None:
    held = held_out_recall(HELD_OUT)
    assert held.total[1] > 0 and held.unplaced == [], held.unplaced
    assert held_out_table(held, planted_recall()) in DOC
