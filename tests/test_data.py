"""Tests for the data layer: rubrics, scenario packets, samples, load reports and tasks.

The published copy of the rubrics (``upstream`` fixture) is read for the benchmark's own
numbers; everything else runs on small trees in the Hub layout written to ``tmp_path``.
"""

from __future__ import annotations

import json
import logging
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

import inspect_medsp
import inspect_medsp.taskbuild.build as build_module
import inspect_medsp.taskbuild.variant as tasks_module
from inspect_medsp.data import (
    COMPETENCIES,
    ROLES,
    SampleRecord,
    load_rubrics,
    load_subset,
    read_rubric,
    select_ids,
)
from inspect_medsp.data.dataset import (
    METADATA_KEY,
    load_records,
    rubric_report,
    sample_input,
)
from inspect_medsp.data.scenarios import (
    PacketError,
    discover_scenario_ids,
    load_scenario,
    mededportal_doi,
    preview,
    read_case_meta,
    read_packet,
    strip_deleted,
)
from inspect_medsp.errors import MedSPDataError
from inspect_medsp.tasks import medsp100, medsp1000, medsp_demo
from tests.conftest import DEMO, REPO
from tests.support.tree import write_case_meta

# --- the published rubrics -------------------------------------------------------------------

EMPTY_RUBRIC_IDS = {
    "mep_2374-8265.11256-s001/scenario3",
    "mep_2374-8265.11268-s001/scenario3",
    "mep_2374-8265.11298-s001/scenario1",
    "mep_2374-8265.11355-s001/scenario1",
}
"""The four zero-byte files of the published copy (found with ``find rubrics -size 0``)."""

PUBLISHED_BY_COMPETENCY = {
    "PC": 9563,
    "ICS": 8625,
    "MK": 2936,
    "SBP": 2518,
    "PROF": 637,
    "PBLI": 323,
}


def _id_of(path: Path) -> str:
    head, _, number = path.stem.rpartition("_scenario")
    return f"{head}/scenario{number}"


def _itemless_ids(rubrics_dir: Path) -> set[str]:
    """Ids of the non-empty rubric files whose six lists are all empty, read without the loader."""
    out = set()
    for path in rubrics_dir.glob("*.json"):
        raw = path.read_text(encoding="utf-8")
        if raw.strip() and sum(len(json.loads(raw)[c]) for c in COMPETENCIES) == 0:
            out.add(_id_of(path))
    return out


def _one_line(err: BaseException) -> str:
    """The message of ``err``, checked to be a single non-empty line."""
    text = str(err)
    assert text
    assert "\n" not in text, f"message spans several lines: {text!r}"
    return text


def test_published_rubrics_counts_and_problems(upstream: Path) -> None:
    rubric_set = load_rubrics(upstream)

    assert rubric_set.files == 1638
    # every file is either usable or a named problem: nothing vanishes
    assert len(rubric_set.rubrics) + len(rubric_set.problems) == rubric_set.files

    unreadable = {i for i, p in rubric_set.problems.items() if p.fault == "unreadable"}
    no_items = {i for i, p in rubric_set.problems.items() if p.fault == "no_items"}
    zero_byte = {_id_of(p) for p in (upstream / "rubrics").glob("*.json") if p.stat().st_size == 0}
    assert unreadable == EMPTY_RUBRIC_IDS == zero_byte
    for sid in EMPTY_RUBRIC_IDS:
        assert "empty file" in rubric_set.problems[sid].detail
    assert len(no_items) == 86
    assert no_items == _itemless_ids(upstream / "rubrics")

    report = rubric_report(rubric_set, None, "MedSP1000 rubrics")
    assert report.scenarios == 1548
    assert report.items == 24602
    assert report.items_by_competency == PUBLISHED_BY_COMPETENCY
    assert report.count_line() == (
        "MedSP1000 rubrics: 1548 scenarios, 24602 rubric items; "
        "90 excluded: 4 unreadable rubric files, 86 rubrics with no items"
    )
    assert report.excluded == {"unreadable": sorted(unreadable), "no_items": sorted(no_items)}

    lines = report.warning_lines()
    assert len(lines) == 2
    unreadable_line, no_items_line = lines
    assert "excluded 4 unreadable rubric files" in unreadable_line
    for sid in EMPTY_RUBRIC_IDS:
        assert sid in unreadable_line
    assert "excluded 86 rubrics with no items" in no_items_line
    named = set(no_items_line.split(": ", 2)[2].split("; "))
    assert named == no_items


def test_published_subset_resolves_to_100_scenarios(upstream: Path) -> None:
    rubric_set = load_rubrics(upstream)
    subset = load_subset(upstream)

    assert len(subset) == len(set(subset)) == 100
    report = rubric_report(rubric_set, subset, "MedSP-Q100")
    assert report.scenarios == 100
    assert report.items == 1321
    assert sum(report.items_by_competency.values()) == 1321
    assert report.excluded == {}
    assert report.count_line() == "MedSP-Q100: 100 scenarios, 1321 rubric items"


def test_rubric_report_names_ids_without_a_rubric_file(upstream: Path) -> None:
    rubric_set = load_rubrics(upstream)
    ids = ["mededportal_10009/scenario1", "no_such_case/scenario1"]

    report = rubric_report(rubric_set, ids, "part")

    assert report.scenarios == 1
    assert report.excluded == {"no_rubric": ["no_such_case/scenario1"]}
    assert "no_such_case/scenario1" in report.warning_lines()[0]


# --- small trees in the Hub layout ----------------------------------------------------------

CASE_A = "mededportal_10009"
CASE_B = "mep_2374-8265.11256-s001"
CASE_C = "mep-14-10708-s001"
ID_A = f"{CASE_A}/scenario1"
ID_B = f"{CASE_B}/scenario3"
ID_C = f"{CASE_C}/scenario1"
ALL_IDS = sorted([ID_A, ID_B, ID_C])

DOI = "https://www.mededportal.org/doi/10.15766/mep_2374-8265."
SOURCE_URLS = {ID_A: DOI + "10009", ID_B: DOI + "11256", ID_C: DOI + "10708"}

DELETED = "You flew back from Lagos last week."
DELETED_MULTILINE = "Old draft:\nyou are allergic to penicillin."
HIDDEN_TEXT = "HIDDEN_DRAFT_ONLY"


def _role_files(sid: str) -> dict[str, dict[str, str | bytes]]:
    """Four role folders for one scenario, each with text that names the scenario."""
    return {
        "examinee": {"door_note.md": f"Door note for {sid}: adult with cough for two days."},
        "sp_actor": {"patient.md": f"You are the patient in {sid}. You feel tired."},
        "environment_controller": {"states.md": f"States of {sid}: history, exam, plan."},
        "evaluator": {"notes.md": f"Key actions in {sid}: ask about fever and travel."},
    }


def _write_scenario(root: Path, sid: str, roles: dict[str, dict[str, str | bytes]]) -> Path:
    scenario_dir = root / sid
    for role, files in roles.items():
        folder = scenario_dir / role
        folder.mkdir(parents=True, exist_ok=True)
        for name, body in files.items():
            path = folder / name
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(body, bytes):
                path.write_bytes(body)
            else:
                path.write_text(body, encoding="utf-8")
    return scenario_dir


def _rubric(sid: str, n_pc: int = 2) -> dict[str, object]:
    case_id, scenario = sid.split("/")
    return {
        "case_id": case_id,
        "scenario": scenario,
        "scenario_dir": sid,
        "rubric_version": "v1",
        "PC": [f"Asks about fever ({sid}) #{k}" for k in range(n_pc)],
        "MK": ["Names community-acquired pneumonia\nas the likely diagnosis"],
        "SBP": [],
        "ICS": ["Introduces self **by name** & role"],
        "PBLI": [],
        "PROF": ["Respects privacy"],
    }


def _write_rubric(upstream: Path, sid: str, content: dict[str, object] | str) -> Path:
    path = upstream / "rubrics" / f"{sid.replace('/', '_')}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content if isinstance(content, str) else json.dumps(content), "utf-8")
    return path


def _write_subset(upstream: Path, ids: list[str]) -> None:
    body = {"name": "test", "description": "t", "n_scenarios": len(ids), "scenarios": ids}
    (upstream / "subset.json").write_text(json.dumps(body), encoding="utf-8")


@pytest.fixture
def hub_tree(tmp_path: Path) -> tuple[Path, Path]:
    """Three scenarios (one per case id form) and an upstream folder with their rubrics."""
    data = tmp_path / "data"
    upstream = tmp_path / "upstream"

    roles_a = _role_files(ID_A)
    roles_a["examinee"] = {
        "02_task.md": "Take a focused history, then explain your plan.",
        "notes.txt": "Vitals: T 38.4 C, HR 104, RR 22, SpO2 95% on room air.",
        "01_door_note.md": "Door note: 34-year-old teacher with two days of cough and fever.",
        ".draft.md": HIDDEN_TEXT,
        ".cache/old.md": HIDDEN_TEXT,
        "chest_xray.png": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + HIDDEN_TEXT.encode(),
    }
    roles_a["sp_actor"] = {
        "patient.md": (
            f"You are Ms. Ortiz. ~~{DELETED}~~ You have not travelled.\n"
            f"~~{DELETED_MULTILINE}~~\nYou have no allergies."
        )
    }
    _write_scenario(data, ID_A, roles_a)
    (data / ID_A / "metadata.json").write_text(
        json.dumps({"specialty": "Family Medicine", "title": "Cough and fever"}), "utf-8"
    )

    _write_scenario(data, ID_B, _role_files(ID_B))
    (data / CASE_B / "metadata.json").write_text(json.dumps({"specialty": "Neurology"}), "utf-8")
    (data / ID_B / "metadata.json").write_text(json.dumps({"title": "Headache"}), "utf-8")

    _write_scenario(data, ID_C, _role_files(ID_C))
    # not a scenario folder and not a case: ignored
    (data / ".cache").mkdir()
    (data / "README.md").write_text("dataset card", encoding="utf-8")

    for k, sid in enumerate(ALL_IDS):
        _write_rubric(upstream, sid, _rubric(sid, n_pc=k + 1))
    _write_subset(upstream, [ID_C, ID_A])
    return data, upstream


def _headings(packet: str) -> list[str]:
    return [line[3:] for line in packet.splitlines() if line.startswith("## ")]


def test_hub_tree_loads_into_samples(hub_tree: tuple[Path, Path]) -> None:
    data, upstream = hub_tree

    task = medsp1000(data_dir=str(data), upstream_dir=str(upstream))

    samples = list(task.dataset)
    assert [s.id for s in samples] == ALL_IDS
    by_id = {str(s.id): s for s in samples}
    meta = {sid: s.metadata or {} for sid, s in by_id.items()}
    for sid, sample in by_id.items():
        case_id, scenario = sid.split("/")
        record = SampleRecord.model_validate(meta[sid][METADATA_KEY])
        assert record.id == sid
        title = str(meta[sid].get("scenario_title") or meta[sid].get("title") or "")
        assert sample.input == sample_input(title, record.scenario.packets.examinee)
        assert sample.target == ""  # no answer key in the grid's TARGET column
        assert meta[sid]["case_id"] == case_id
        assert meta[sid]["scenario"] == scenario
        assert meta[sid]["source_url"] == SOURCE_URLS[sid]
        assert record.rubric == read_rubric(upstream / "rubrics" / f"{case_id}_{scenario}.json")
        assert meta[sid]["rubric_items"] == record.rubric.n_items
        packets = record.scenario.packets
        if sid != ID_A:
            for role in ROLES:
                assert sid in getattr(packets, role), role

    # the rubric travels verbatim, multi-line and markdown included
    rubric_a = SampleRecord.model_validate(meta[ID_A][METADATA_KEY]).rubric
    assert rubric_a.MK == ["Names community-acquired pneumonia\nas the likely diagnosis"]
    assert rubric_a.ICS == ["Introduces self **by name** & role"]

    # metadata.json keys reach the sample: scenario folder, and case folder under scenario
    assert meta[ID_A]["specialty"] == "Family Medicine"
    assert meta[ID_A]["title"] == "Cough and fever"
    assert meta[ID_B]["specialty"] == "Neurology"
    assert meta[ID_B]["title"] == "Headache"
    assert "specialty" not in meta[ID_C]


def test_examinee_packet_rules(hub_tree: tuple[Path, Path]) -> None:
    data, upstream = hub_tree

    task = medsp1000(data_dir=str(data), upstream_dir=str(upstream), scenarios=ID_A)

    (sample,) = list(task.dataset)
    record = SampleRecord.model_validate((sample.metadata or {})[METADATA_KEY])
    packet = record.scenario.packets.examinee
    # sorted by path, each file under a heading with its name
    assert _headings(packet) == ["01_door_note.md", "02_task.md", "notes.txt"]
    door = packet.index("34-year-old teacher")
    task_text = packet.index("focused history")
    vitals = packet.index("SpO2 95%")
    assert door < task_text < vitals
    assert packet.index("## 02_task.md") < task_text
    # hidden files and folders, and non-text files, are not read
    assert HIDDEN_TEXT not in packet
    assert "chest_xray" not in packet
    assert ".draft" not in packet


def test_examinee_packet_opens_with_a_plain_sentence_naming_its_files(
    hub_tree: tuple[Path, Path],
) -> None:
    """The clinician's packet says in words what it holds before the files follow."""
    data, upstream = hub_tree
    (data / ID_A / "examinee" / "02_task.md").write_text(
        "## Your **task**\n\nTake a focused history, then explain your plan.", encoding="utf-8"
    )

    task = medsp1000(data_dir=str(data), upstream_dir=str(upstream), scenarios=ID_A)

    (sample,) = list(task.dataset)
    packet = SampleRecord.model_validate((sample.metadata or {})[METADATA_KEY]).scenario.packets
    lead, _, rest = packet.examinee.partition("\n\n")
    # a file's first heading is its title; without one, its name in words
    assert lead == (
        "The clinician's materials for this case, in 3 files: door note; Your task; notes."
    )
    assert rest == read_packet(data / ID_A / "examinee")


def test_the_sample_input_reads_as_sentences_where_the_samples_list_previews_it() -> None:
    """Inspect's samples list shows an input's first 250 characters with its blocks run
    together: the input is the door note as plain text, every word of the packet kept."""
    for demo in medsp_demo().dataset:
        record = SampleRecord.model_validate((demo.metadata or {})[METADATA_KEY])
        packet = record.scenario.packets.examinee
        assert isinstance(demo.input, str)
        title = str((demo.metadata or {})["scenario_title"])
        assert demo.input.startswith(f"{title}. Door note. Setting: "), demo.input
        assert "\n" not in demo.input
        assert not re.search(r"[#*_`<>|]|\.md\b|clinician's materials", demo.input), demo.input
        # every word of the files survives, in order: only the lead, the file names and a
        # table's header row ("| measure | value |" in one demo case) are left out
        files = [
            line
            for line in packet.partition("\n\n")[2].splitlines()
            if not line.startswith("## 0") and line != "| measure | value |"
        ]
        kept = iter(re.findall(r"[A-Za-z0-9]+", demo.input))
        assert all(w in kept for w in re.findall(r"[A-Za-z0-9]+", "\n".join(files)))

    table = "## 01_vitals.md\n\n# Vitals\n\n| measure | value |\n|---|---|\n| HR | 148 /min |"
    steps = "## 02_task.md\n\n## Your task\n\n1. Assess.\n2. Treat.\n- Say **why**."
    assert preview(f"Lead.\n\n{table}\n\n{steps}") == (
        "Vitals. HR 148 /min; Your task. 1. Assess. 2. Treat. • Say why."
    )


def test_strike_through_is_removed_from_packets(hub_tree: tuple[Path, Path]) -> None:
    data, _ = hub_tree

    packet = read_packet(data / ID_A / "sp_actor")

    assert DELETED not in packet
    assert "penicillin" not in packet
    assert "~~" not in packet
    assert "You are Ms. Ortiz." in packet
    assert "You have not travelled." in packet
    assert "You have no allergies." in packet


def test_strip_deleted_spans_lines_and_keeps_the_rest() -> None:
    assert strip_deleted("a ~~b~~ c ~~d\ne~~ f") == "a  c  f"
    assert strip_deleted("no deletions here") == "no deletions here"


@pytest.mark.parametrize(
    ("case_id", "number"),
    [(CASE_A, "10009"), (CASE_B, "11256"), (CASE_C, "10708"), ("mededportal_175", "175")],
)
def test_mededportal_doi_for_each_case_id_form(case_id: str, number: str) -> None:
    assert mededportal_doi(case_id) == DOI + number


def test_no_doi_for_ids_without_an_article_number() -> None:
    assert mededportal_doi("demo_anaphylaxis") is None


def test_subset_task_and_scenario_filter(hub_tree: tuple[Path, Path]) -> None:
    data, upstream = hub_tree

    subset_task = medsp100(data_dir=str(data), upstream_dir=str(upstream))
    assert [s.id for s in subset_task.dataset] == sorted([ID_A, ID_C])

    globbed = medsp1000(data_dir=str(data), upstream_dir=str(upstream), scenarios="mep*")
    assert [s.id for s in globbed.dataset] == sorted([ID_B, ID_C])

    listed = medsp1000(data_dir=str(data), upstream_dir=str(upstream), scenarios=[ID_C, ID_B])
    assert [s.id for s in listed.dataset] == sorted([ID_B, ID_C])


def test_discover_ignores_hidden_and_non_scenario_entries(hub_tree: tuple[Path, Path]) -> None:
    data, _ = hub_tree
    (data / CASE_A / "figures").mkdir()
    (data / ".git" / "scenario1").mkdir(parents=True)

    assert discover_scenario_ids(data) == ALL_IDS


# --- bad input ----------------------------------------------------------------------------


def test_missing_data_dir_is_a_one_line_error(tmp_path: Path, hub_tree: tuple[Path, Path]) -> None:
    _, upstream = hub_tree
    missing = tmp_path / "no_such_folder"

    with pytest.raises(MedSPDataError) as caught:
        medsp1000(data_dir=str(missing), upstream_dir=str(upstream))

    message = _one_line(caught.value)
    assert str(missing) in message
    assert "does not exist" in message
    assert "data_dir=" in message


def test_data_dir_without_scenarios_is_a_one_line_error(
    tmp_path: Path, hub_tree: tuple[Path, Path]
) -> None:
    _, upstream = hub_tree
    empty = tmp_path / "empty"
    empty.mkdir()

    with pytest.raises(MedSPDataError) as caught:
        medsp1000(data_dir=str(empty), upstream_dir=str(upstream))

    message = _one_line(caught.value)
    assert str(empty) in message
    assert "data_dir must point at" in message


def test_bad_role_folders_are_excluded_with_a_warning(hub_tree: tuple[Path, Path]) -> None:
    data, upstream = hub_tree
    missing_role = data / ID_A / "evaluator"
    shutil.rmtree(missing_role)
    textless_role = data / ID_B / "sp_actor"
    shutil.rmtree(textless_role)
    _write_scenario(
        data,
        ID_B,
        {
            "sp_actor": {
                ".notes.md": "hidden only",
                "photo.jpg": b"\xff\xd8\xff\xe0 not text",
                "blank.md": "  \n",
                "struck.md": "~~everything here was deleted~~\n",
            }
        },
    )

    records, report = load_records(data, upstream)

    assert [r.id for r in records] == [ID_C]
    assert report.excluded == {"bad_packets": sorted([ID_A, ID_B])}
    assert str(missing_role) in report.details[ID_A]
    assert "role folder missing" in report.details[ID_A]
    assert str(textless_role) in report.details[ID_B]
    assert "no text" in report.details[ID_B]
    (line,) = report.warning_lines()
    assert "\n" not in line
    assert str(missing_role) in line
    assert str(textless_role) in line
    assert report.count_line().endswith(
        "1 scenario, 5 rubric items; 2 excluded: 2 scenarios with a missing or empty role folder"
    )

    # once no scenario is left, the load fails instead of building an empty task
    shutil.rmtree(data / ID_C / "examinee")
    with pytest.raises(MedSPDataError) as caught:
        load_records(data, upstream)
    message = _one_line(caught.value)
    assert "3 scenarios with a missing or empty role folder" in message
    assert "nothing left to score" in message


@pytest.mark.parametrize("problem", ["missing", "textless"])
def test_read_packet_errors_name_the_folder_and_the_fix(tmp_path: Path, problem: str) -> None:
    folder = tmp_path / "case_1" / "scenario1" / "sp_actor"
    if problem == "textless":
        folder.mkdir(parents=True)
        (folder / "scan.pdf").write_bytes(b"%PDF-1.4")

    with pytest.raises(PacketError) as caught:
        read_packet(folder)

    message = _one_line(caught.value)
    assert str(folder) in message
    assert "byrLLCC/MedSP1000" in message


def test_subset_id_absent_from_the_data_is_an_error(hub_tree: tuple[Path, Path]) -> None:
    data, upstream = hub_tree
    absent = "mededportal_99999/scenario1"
    _write_subset(upstream, [ID_A, absent])

    with pytest.raises(MedSPDataError) as caught:
        medsp100(data_dir=str(data), upstream_dir=str(upstream))

    message = _one_line(caught.value)
    assert absent in message
    assert str(data) in message
    assert "re-download" in message


@pytest.mark.parametrize("pattern", ["mededportal_2*", "mep_2374-8265.11256-s001/scenario9"])
def test_scenarios_pattern_matching_nothing_is_an_error(
    hub_tree: tuple[Path, Path], pattern: str
) -> None:
    data, upstream = hub_tree

    with pytest.raises(MedSPDataError) as caught:
        medsp1000(data_dir=str(data), upstream_dir=str(upstream), scenarios=f"{ID_A},{pattern}")

    message = _one_line(caught.value)
    assert f"'{pattern}'" in message
    assert "globs like" in message


def test_scenarios_matching_nothing_shows_two_real_ids_of_different_forms(
    hub_tree: tuple[Path, Path],
) -> None:
    data, upstream = hub_tree

    with pytest.raises(MedSPDataError) as caught:
        medsp1000(data_dir=str(data), upstream_dir=str(upstream), scenarios="demo_*")

    message = _one_line(caught.value)
    assert "scenarios='demo_*'" in message
    assert "none of the 3 scenarios" in message
    assert ID_A in message
    assert (ID_B in message) != (ID_C in message)
    assert f"'{CASE_A}/*'" in message


def test_select_ids_keeps_order_and_accepts_globs() -> None:
    ids = ["a/scenario1", "a/scenario2", "b/scenario1"]
    assert select_ids(ids, None) == ids
    assert select_ids(ids, ["b/*", "a/scenario1"]) == ["a/scenario1", "b/scenario1"]
    with pytest.raises(MedSPDataError):
        select_ids(ids, ["c/*"])


def _without(key: str) -> dict[str, object]:
    body = _rubric("case_x/scenario1")
    del body[key]
    return body


BAD_RUBRICS: dict[str, tuple[str, tuple[str, ...]]] = {
    "empty": ("", ("empty file", "restore it")),
    "whitespace": ("  \n", ("empty file", "restore it")),
    "not_json": ('{"PC": ["Asks about fever",', ("not JSON", "fix the file")),
    "not_object": ('["PC", "MK"]', ("expected a JSON object",)),
    "no_pbli": (json.dumps(_without("PBLI")), ("missing competency key 'PBLI'", 'add "PBLI": []')),
    "number_item": (
        json.dumps({**_rubric("case_x/scenario1"), "PC": ["Asks about fever", 3]}),
        ("'PC' must be a list of strings", "fix its items"),
    ),
    "string_not_list": (
        json.dumps({**_rubric("case_x/scenario1"), "ICS": "Introduces self"}),
        ("'ICS' must be a list of strings",),
    ),
    "null_case_id": (
        json.dumps({**_rubric("case_x/scenario1"), "case_id": None}),
        ("case_id", "fix the file"),
    ),
    "other_scenario": (
        json.dumps(_rubric("case_y/scenario2")),
        ("names scenario case_y/scenario2", "rename"),
    ),
}


@pytest.mark.parametrize("kind", sorted(BAD_RUBRICS))
def test_read_rubric_rejects_bad_files(tmp_path: Path, kind: str) -> None:
    content, expected = BAD_RUBRICS[kind]
    path = _write_rubric(tmp_path, "case_x/scenario1", content)

    with pytest.raises(MedSPDataError) as caught:
        read_rubric(path)

    message = _one_line(caught.value)
    assert str(path) in message
    for fragment in expected:
        assert fragment in message


def test_load_rubrics_keeps_bad_files_as_problems(tmp_path: Path) -> None:
    upstream = tmp_path / "upstream"
    bad_ids = [f"case_{kind}/scenario1" for kind in sorted(BAD_RUBRICS)]
    for kind, sid in zip(sorted(BAD_RUBRICS), bad_ids, strict=True):
        content = BAD_RUBRICS[kind][0].replace("case_x", f"case_{kind}")
        _write_rubric(upstream, sid, content)
    _write_rubric(upstream, "good/scenario1", _rubric("good/scenario1"))
    itemless: dict[str, object] = {c: [] for c in COMPETENCIES}
    _write_rubric(upstream, "itemless/scenario1", itemless)

    rubric_set = load_rubrics(upstream)

    assert rubric_set.files == len(bad_ids) + 2
    assert set(rubric_set.rubrics) == {"good/scenario1"}
    assert set(rubric_set.problems) == {*bad_ids, "itemless/scenario1"}
    for sid in bad_ids:
        problem = rubric_set.problems[sid]
        assert problem.fault == "unreadable"
        path = upstream / "rubrics" / f"{sid.replace('/', '_')}.json"
        with pytest.raises(MedSPDataError) as caught:
            read_rubric(path)
        assert problem.detail == str(caught.value)
    assert rubric_set.problems["itemless/scenario1"].fault == "no_items"

    report = rubric_report(rubric_set, None, "t")
    assert report.excluded == {"unreadable": sorted(bad_ids), "no_items": ["itemless/scenario1"]}
    unreadable_line = report.warning_lines()[0]
    for sid in bad_ids:
        assert sid in unreadable_line


def test_missing_rubric_folder_is_a_one_line_error(tmp_path: Path) -> None:
    with pytest.raises(MedSPDataError) as caught:
        load_rubrics(tmp_path)
    message = _one_line(caught.value)
    assert str(tmp_path / "rubrics") in message


def test_every_exclusion_reason_is_reported(hub_tree: tuple[Path, Path]) -> None:
    data, upstream = hub_tree
    _write_rubric(upstream, ID_A, "")
    _write_rubric(upstream, ID_B, {**_rubric(ID_B), **{c: [] for c in COMPETENCIES}})
    orphan = "mededportal_555/scenario2"
    _write_rubric(upstream, orphan, _rubric(orphan))
    no_rubric = "mededportal_777/scenario1"
    _write_scenario(data, no_rubric, _role_files(no_rubric))

    records, report = load_records(data, upstream)

    assert [r.id for r in records] == [ID_C]
    assert report.excluded == {
        "unreadable": [ID_A],
        "no_items": [ID_B],
        "no_rubric": [no_rubric],
        "no_scenario": [orphan],
    }
    assert report.count_line().endswith(
        "1 scenario, 5 rubric items; 4 excluded: 1 unreadable rubric file, "
        "1 rubric with no items, 1 scenario with no rubric file, "
        "1 rubric whose scenario is not in the data"
    )


def test_unreadable_rubric_is_logged_when_the_task_is_built(
    hub_tree: tuple[Path, Path], caplog: pytest.LogCaptureFixture
) -> None:
    data, upstream = hub_tree
    _write_rubric(upstream, ID_B, "")
    caplog.set_level(logging.INFO, logger="inspect_medsp")

    task = medsp1000(data_dir=str(data), upstream_dir=str(upstream))

    assert [s.id for s in task.dataset] == [ID_A, ID_C]
    warnings = [
        r.getMessage()
        for r in caplog.records
        if r.name == "inspect_medsp" and r.levelno == logging.WARNING
    ]
    assert len(warnings) == 3
    naming, count, coverage = warnings
    # the tree's rubrics carry published names with other contents: a changed copy too
    assert coverage.startswith("MedSP1000: 2 of 1548 published scenarios loaded, and the ")
    assert "rubrics read are not the published ones (rubrics/" in coverage
    assert coverage.endswith("; a run of these is not comparable with the published numbers")
    assert "excluded 1 unreadable rubric file:" in naming
    assert ID_B in naming
    assert "empty file" in naming
    assert "\n" not in naming
    assert count == (
        "MedSP1000: 2 scenarios, 9 rubric items; 1 excluded: 1 unreadable rubric file"
    )


def test_clean_load_logs_the_count_line_at_info(
    hub_tree: tuple[Path, Path], caplog: pytest.LogCaptureFixture
) -> None:
    data, upstream = hub_tree
    caplog.set_level(logging.INFO, logger="inspect_medsp")

    medsp1000(data_dir=str(data), upstream_dir=str(upstream))

    ours = [r for r in caplog.records if r.name == "inspect_medsp"]
    assert [(r.levelno, r.getMessage().split(", and ")[0]) for r in ours] == [
        (logging.INFO, "MedSP1000: 3 scenarios, 15 rubric items"),
        (logging.WARNING, "MedSP1000: 3 of 1548 published scenarios loaded"),
    ]
    assert "the rubrics read are not the published ones" in ours[1].getMessage()


def test_case_meta_file_reaches_sample_metadata(
    hub_tree: tuple[Path, Path], caplog: pytest.LogCaptureFixture
) -> None:
    data, upstream = hub_tree
    write_case_meta(
        data / CASE_A,
        [
            {"scenario_id": "scenario1", "scenario_title": "Cough and fever in a teacher",
             "department": "Family Medicine", "urgency_level": "urgent",
             "patient_gender": "Female", "patient_age": "34", "patient_race": "",
             "patient_nationality": "", "injury_body_part": ""},
            {"scenario_id": "scenario2", "department": "not loaded: no such scenario"},
        ],
    )  # fmt: skip
    write_case_meta(
        data / CASE_B,
        [{"scenario_id": "3", "department": "Neurology clinic", "patient_age": "71 years",
          "urgency_level": "  routine  "}],
    )  # fmt: skip
    broken = write_case_meta(data / CASE_C, '{"scenarios": [{"scenario_id": "scenario1",')
    caplog.set_level(logging.INFO, logger="inspect_medsp")

    task = medsp1000(data_dir=str(data), upstream_dir=str(upstream))

    by_id = {str(s.id): s.metadata or {} for s in task.dataset}
    assert sorted(by_id) == ALL_IDS  # the malformed file's scenario still loads
    a, b, c = by_id[ID_A], by_id[ID_B], by_id[ID_C]
    assert a["scenario_title"] == "Cough and fever in a teacher"
    assert (a["department"], a["urgency_level"]) == ("Family Medicine", "urgent")
    assert (a["patient_gender"], a["patient_age"]) == ("Female", "34")
    assert "patient_race" not in a and "injury_body_part" not in a  # empty values left out
    assert a["specialty"] == "Family Medicine"  # metadata.json is still read beside it
    assert b["department"] == "Neurology clinic" and b["patient_age"] == "71 years"
    assert b["urgency_level"] == "routine"
    assert b["title"] == "Headache"
    assert not any(k in c for k in ("department", "scenario_title", "patient_age"))
    record_a = SampleRecord.model_validate(a[METADATA_KEY])
    assert record_a.scenario.metadata["department"] == "Family Medicine"
    warnings = [
        r.getMessage()
        for r in caplog.records
        if r.name == "inspect_medsp" and r.levelno == logging.WARNING
    ]
    assert len(warnings) == 2  # the broken file, and the 3 of 1548 published scenarios
    assert warnings[0].startswith(str(broken)) and "not valid JSON" in warnings[0]
    assert "\n" not in warnings[0]
    assert warnings[1].startswith("MedSP1000: 3 of 1548 published scenarios loaded")


@pytest.mark.parametrize(
    "body",
    [
        '["scenario1"]',
        '{"scenarios": {"scenario1": {}}}',
        '{"scenarios": [{"department": "no id"}]}',
        '{"scenarios": ["scenario1"]}',
    ],
)
def test_malformed_case_meta_is_one_named_warning(tmp_path: Path, body: str) -> None:
    path = write_case_meta(tmp_path, body)
    meta = read_case_meta(tmp_path)
    assert meta.by_scenario == {}
    assert meta.problem is not None and meta.problem.startswith(str(path))
    assert "\n" not in meta.problem


# --- no run-time dependence on ../shared; the bundled demo ---------------------------------


def test_sources_never_mention_the_shared_folder() -> None:
    offenders = []
    for path in sorted((REPO / "src" / "inspect_medsp").rglob("*")):
        if not path.is_file() or "__pycache__" in path.parts:
            continue
        text = path.read_bytes().decode("utf-8", errors="replace")
        if "shared/upstream" in text or "../shared" in text or "..\\shared" in text:
            offenders.append(str(path.relative_to(REPO)))
    assert offenders == []


DEMO_IDS = ["demo_anaphylaxis/scenario1", "demo_bad_news/scenario1", "demo_peds_asthma/scenario1"]


def test_demo_task_reads_only_package_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MEDSP_CACHE_DIR", str(cache))

    def no_download(*args: object, **kwargs: object) -> None:
        raise AssertionError("medsp_demo must not locate or download benchmark data")

    monkeypatch.setattr(tasks_module, "resolve_scenario_root", no_download)
    monkeypatch.setattr(tasks_module, "resolve_upstream_root", no_download)
    roots: list[Path] = []

    def spy(scenario_root: Path, upstream_root: Path, **kwargs: Any) -> Any:
        roots.extend([scenario_root, upstream_root])
        return load_records(scenario_root, upstream_root, **kwargs)

    monkeypatch.setattr(build_module, "load_records", spy)

    task = medsp_demo()

    assert [s.id for s in task.dataset] == DEMO_IDS
    package_dir = Path(inspect_medsp.__file__).resolve().parent
    assert len(roots) == 2
    for root in roots:
        assert root.is_absolute()
        assert root.resolve().is_relative_to(package_dir)
    assert list(cache.iterdir()) == []
    assert list(tmp_path.iterdir()) == [cache]
    for sample in task.dataset:
        assert sample.metadata is not None
        assert sample.metadata["specialty"]
        assert "source_url" not in sample.metadata


@pytest.mark.parametrize("sid", DEMO_IDS)
def test_demo_scenarios_have_four_packets(sid: str) -> None:
    scenario = load_scenario(DEMO / "scenarios", sid)
    for role in ROLES:
        packet = getattr(scenario.packets, role)
        assert packet.strip(), f"{sid} {role} packet is empty"
        assert _headings(packet), f"{sid} {role} packet has no file heading"
        assert "~~" not in packet


def test_demo_strike_through_passage_is_removed() -> None:
    raw_path = DEMO / "scenarios" / "demo_peds_asthma" / "scenario1" / "sp_actor"
    raw = "\n".join(p.read_text(encoding="utf-8") for p in sorted(raw_path.glob("*.md")))
    struck = re.findall(r"~~(.+?)~~", raw, flags=re.DOTALL)
    assert struck, "the demo should keep an example of deleted material"

    packet = load_scenario(DEMO / "scenarios", "demo_peds_asthma/scenario1").packets.sp_actor

    for passage in struck:
        assert passage.strip() in raw
        assert passage.strip() not in packet
    assert "breathing tube" in packet  # the corrected sentence that follows survives
    assert "Never in intensive care" in packet


def test_demo_rubrics() -> None:
    rubric_set = load_rubrics(DEMO / "upstream")

    assert rubric_set.problems == {}
    assert sorted(rubric_set.rubrics) == DEMO_IDS
    for rubric in rubric_set.rubrics.values():
        assert rubric.n_items == 17
        assert [item.number for item in rubric.items()] == list(range(1, 18))
    assert rubric_set.rubrics["demo_anaphylaxis/scenario1"].PBLI == []
    assert rubric_set.rubrics["demo_bad_news/scenario1"].MK == []
    assert sorted(load_subset(DEMO / "upstream")) == DEMO_IDS
