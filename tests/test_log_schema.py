"""docs/log-schema.md lists every key a MedSP log holds: the same keys, in the same order, with
the same types as the record's models declare, each with a meaning."""

from __future__ import annotations

import re
from pathlib import Path

from tests.support.schema import ROOTS, documented_models, stored_keys

DOC = Path(__file__).parents[1] / "docs" / "log-schema.md"
HEADING = re.compile(r"^### `(\w+)`\s*$")
ROW = re.compile(r"^\| `([^`]+)` \| `(.+)` \| (.*) \|$")


def doc_tables(text: str) -> dict[str, list[tuple[str, str, str]]]:
    """Each model section of the document: its rows as (key, type, meaning)."""
    tables: dict[str, list[tuple[str, str, str]]] = {}
    current: list[tuple[str, str, str]] | None = None
    for line in text.splitlines():
        heading = HEADING.match(line)
        if heading:
            current = tables.setdefault(heading.group(1), [])
            continue
        row = ROW.match(line)
        if row and current is not None:
            key, kind, meaning = row.groups()
            current.append((key, kind.replace("\\|", "|"), meaning.strip()))
    return tables


def drift(text: str) -> list[str]:
    """Every difference between the document and the models, one line each."""
    tables = doc_tables(text)
    models = {m.__name__: m for m in documented_models()}
    problems = [f"{name}: stored in logs, not documented" for name in models if name not in tables]
    problems += [f"{name}: documented, not a stored model" for name in tables if name not in models]
    for name, model in models.items():
        rows = tables.get(name)
        if rows is None:
            continue
        declared = [(k.name, k.type) for k in stored_keys(model)]
        documented = [(key, kind) for key, kind, _ in rows]
        for key, kind in declared:
            if (key, kind) not in documented:
                problems.append(f"{name}.{key}: the model stores `{kind}`; the document does not")
        for key, kind in documented:
            if (key, kind) not in declared:
                problems.append(f"{name}.{key}: documented as `{kind}`; the model differs")
        if not problems and documented != declared:
            problems.append(f"{name}: keys documented in another order than the model's")
        problems += [f"{name}.{key}: no meaning" for key, _, meaning in rows if not meaning]
    return problems


def test_the_document_lists_every_stored_key_with_its_type() -> None:
    problems = drift(DOC.read_text(encoding="utf-8"))
    assert not problems, (
        "docs/log-schema.md and the record models differ (python -m "
        "tests.support.schema prints the models' tables):\n" + "\n".join(problems)
    )


def test_every_stored_result_of_the_package_is_a_registered_capabilitys() -> None:
    from tests.support.schema import package_results, scorer_results

    assert package_results(), "no ScorerResult found in the package"
    assert set(package_results()) == set(scorer_results())


def test_every_top_level_part_is_in_the_document() -> None:
    text = DOC.read_text(encoding="utf-8")
    for model in ROOTS.values():
        assert f"[`{model.__name__}`](#{model.__name__.lower()})" in text


def test_a_drifted_document_is_caught() -> None:
    text = DOC.read_text(encoding="utf-8")
    dropped = text.replace("| `grader` | `str \\| None` |", "| `graded_by` | `str \\| None` |")
    assert "ScoreMetadata.grader: the model stores `str | None`; the document does not" in drift(
        dropped
    )
    retyped = text.replace("| `turns` | `int \\| None` |", "| `turns` | `int` |")
    assert any(p.startswith("ScoreMetadata.turns: documented as `int`") for p in drift(retyped))
    section = text.index("### `Counts`")
    cut = text[:section] + text[text.index("### ", section + 4) :]
    assert "Counts: stored in logs, not documented" in drift(cut)
