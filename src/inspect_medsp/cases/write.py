"""Write case folders: the commented template (``new``), a case from its parts (``demo``,
``draft``), and the bundled demo scenarios converted to the case format."""

from __future__ import annotations

import json
from collections.abc import Mapping
from importlib.resources import as_file, files
from pathlib import Path
from string import Template

import yaml

from inspect_medsp.cases.layout import CASE_FILE, CASE_ID, PACKETS, RUBRIC_FILE, CaseFacts
from inspect_medsp.data import (
    COMPETENCIES,
    TEXT_SUFFIXES,
    Competency,
    read_case_meta,
    read_metadata,
    read_rubric,
)
from inspect_medsp.errors import MedSPDataError

TEMPLATE = "template"
"""The package data folder (of this package) holding the commented template case."""

DEMO_LANGUAGE = "en"


def refuse_existing(folder: Path) -> None:
    """Stop before writing over a folder that holds anything.

    Raises:
        MedSPDataError: ``folder`` exists and is not an empty folder.
    """
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise MedSPDataError(
            f"{folder}: already exists and is not empty; choose a new case folder or move "
            "this one away first"
        )


def new_case(folder: Path) -> list[Path]:
    """Write the commented template case into ``folder`` (its name becomes the case's id).

    Returns:
        The files written.

    Raises:
        MedSPDataError: The folder holds something already, or its name cannot be an id.
    """
    if not CASE_ID.match(folder.name):
        raise MedSPDataError(
            f"{folder}: the folder name '{folder.name}' is also the case's id and may hold "
            "only letters, digits, '_', '-' or '.' (starting with a letter or digit); "
            "choose another name"
        )
    refuse_existing(folder)
    written: list[Path] = []
    with as_file(files("inspect_medsp.cases").joinpath(TEMPLATE)) as template:
        for source in sorted(p for p in Path(template).rglob("*") if p.is_file()):
            target = folder / source.relative_to(template)
            text = source.read_text(encoding="utf-8")
            if source.name == CASE_FILE:
                text = Template(text).safe_substitute(case_id=folder.name)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
            written.append(target)
    return written


def facts_yaml(facts: CaseFacts) -> str:
    """``case.yaml`` for ``facts``, fields in the template's order."""
    data = facts.model_dump(exclude_none=True)
    if not data["names"]:
        del data["names"]
    age = data["patient"]["age"]
    if age.isdigit():
        data["patient"]["age"] = int(age)
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)


def rubric_yaml(rubric: Mapping[Competency, list[str]]) -> str:
    """``rubric.yaml``: the six competencies in order, each with its items."""
    lines: list[str] = []
    for competency in COMPETENCIES:
        items = list(rubric.get(competency, []))
        if not items:
            lines.append(f"{competency}: []")
            continue
        lines.append(f"{competency}:")
        for item in items:
            dumped = yaml.safe_dump([item], allow_unicode=True, width=10_000).rstrip("\n")
            lines.append("  " + dumped.replace("\n", "\n  "))
    return "\n".join(lines) + "\n"


def write_case(
    folder: Path,
    facts: CaseFacts,
    packets: Mapping[str, list[tuple[str, str]]],
    rubric: Mapping[Competency, list[str]],
) -> list[Path]:
    """Write a case from its parts.

    Args:
        folder: The case folder to create (must not hold anything yet).
        facts: ``case.yaml``.
        packets: For each packet folder (``examinee``, ``patient``, ...), its files' names and
            texts.
        rubric: The items of each competency.

    Returns:
        The files written.
    """
    refuse_existing(folder)
    written = [folder / CASE_FILE, folder / RUBRIC_FILE]
    folder.mkdir(parents=True, exist_ok=True)
    written[0].write_text(facts_yaml(facts), encoding="utf-8")
    written[1].write_text(rubric_yaml(rubric), encoding="utf-8")
    for packet in PACKETS:
        for name, text in packets.get(packet, []):
            target = folder / packet / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text.rstrip("\n") + "\n", encoding="utf-8")
            written.append(target)
    return written


def demo_root() -> Path:
    """The bundled demo tree in the published layout."""
    return Path(str(files("inspect_medsp.data").joinpath("demo")))


def published_case(scenario_dir: Path, rubric_file: Path, status: str = "reviewed") -> tuple[
    CaseFacts, dict[str, list[tuple[str, str]]], dict[Competency, list[str]]
]:
    """A scenario of the published layout as the parts of a case (files kept word for word).

    Raises:
        MedSPDataError: The scenario's metadata lacks a fact a case needs.
    """
    case_dir = scenario_dir.parent
    meta = {
        **read_case_meta(case_dir).by_scenario.get(scenario_dir.name, {}),
        **read_metadata(scenario_dir),
    }
    facts = CaseFacts.model_validate(
        {
            "id": case_dir.name,
            "title": meta.get("title") or meta.get("scenario_title"),
            "specialty": meta.get("specialty") or meta.get("department"),
            "patient": {"age": meta.get("patient_age"), "sex": meta.get("patient_gender")},
            "setting": meta.get("setting") or meta.get("department"),
            "language": meta.get("language", DEMO_LANGUAGE),
            "status": status,
            "source": meta.get("source"),
        }
    )
    packets: dict[str, list[tuple[str, str]]] = {}
    for packet, role in PACKETS.items():
        folder = scenario_dir / role
        packets[packet] = [
            (p.relative_to(folder).as_posix(), p.read_text(encoding="utf-8"))
            for p in sorted(folder.rglob("*"))
            if p.is_file() and p.suffix.lower() in TEXT_SUFFIXES
        ]
    return facts, packets, read_rubric(rubric_file).by_competency()


def demo_names() -> dict[str, list[str]]:
    """The names each bundled demo case invents (``demo/names.json``), declared in its
    ``case.yaml`` when the demo is written in the case format."""
    path = demo_root() / "names.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    return {str(case): [str(n) for n in names] for case, names in data.items()}


def write_demo(folder: Path) -> list[Path]:
    """The bundled demo's scenarios as case folders in ``folder`` (one per case).

    Returns:
        The case folders written.

    Raises:
        MedSPDataError: A case folder of that name exists already.
    """
    root = demo_root()
    rubrics = root / "upstream" / "rubrics"
    scenarios = sorted(p for p in (root / "scenarios").glob("*/scenario*") if p.is_dir())
    for scenario_dir in scenarios:
        refuse_existing(folder / scenario_dir.parent.name)
    written: list[Path] = []
    for scenario_dir in scenarios:
        rubric_file = rubrics / f"{scenario_dir.parent.name}_{scenario_dir.name}.json"
        facts, packets, rubric = published_case(scenario_dir, rubric_file)
        facts = facts.model_copy(update={"names": demo_names().get(facts.id, [])})
        target = folder / facts.id
        write_case(target, facts, packets, rubric)
        written.append(target)
    return written
