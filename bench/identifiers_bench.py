"""How well ``medsp-cases check`` finds identifiers: recall per kind on a planted set, and
what it flags in text with no real person in it (the demo cases, the published rubrics).

- **Planted** (``tests/fixtures/identifiers/planted.yaml``): lines of case text as an author
  might leave them, each with the identifiers planted in it. One is found when a finding of
  any kind covers part of it (the author is then sent to the line).
- **Demo cases**: the bundled demo written in the case format, with the names each case
  declares. Every finding there is a false alarm.
- **Published rubrics** (a local copy, ``MEDSP_TEST_UPSTREAM`` or ``--upstream``): every
  item text of every readable rubric file, with the file's own lower-case words as its
  vocabulary, as ``check`` reads a case. The published cases name their simulated patients
  and staff, so most name findings there are names; those the same file also writes after
  Mr, Mrs, Ms, Miss or Dr are counted apart as confirmed names.

    python -m bench.identifiers_bench [--upstream DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from inspect_medsp.cases.check import check_set
from inspect_medsp.cases.identify import HONORIFIC, LOOKS_FOR, NAME_WORD, find, vocabulary
from inspect_medsp.cases.write import write_demo

PLANTED = Path(__file__).parents[1] / "tests" / "fixtures" / "identifiers" / "planted.yaml"


@dataclass
class Recall:
    """Planted identifiers found, per kind."""

    found: Counter[str] = field(default_factory=Counter)
    planted: Counter[str] = field(default_factory=Counter)
    missed: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)
    """Findings in the planted lines that cover no planted identifier."""

    @property
    def total(self) -> tuple[int, int]:
        return sum(self.found.values()), sum(self.planted.values())


def planted_recall(path: Path = PLANTED, held_out: bool = False) -> Recall:
    """Recall per kind on the planted set (the whole set's lower-case words as vocabulary).

    Args:
        path: The planted set.
        held_out: Only the entries written after the check was tuned (never used to tune it).
    """
    entries = yaml.safe_load(path.read_text(encoding="utf-8"))
    words = vocabulary("\n".join(str(e["line"]) for e in entries))
    entries = [e for e in entries if e.get("held_out", False) or not held_out]
    recall = Recall()
    for entry in entries:
        line = str(entry["line"])
        findings = find(line, words=words)
        spans: list[tuple[int, int]] = []
        for kind, value in entry["planted"]:
            start = line.index(str(value))
            end = start + len(str(value))
            spans.append((start, end))
            recall.planted[kind] += 1
            if any(f.start < end and start < f.end for f in findings):
                recall.found[kind] += 1
            else:
                recall.missed.append(f"{kind}: {value}")
        recall.extra += [
            f"{f.kind}: {f.text}"
            for f in findings
            if not any(f.start < end and start < f.end for start, end in spans)
        ]
    return recall


def demo_alarms() -> tuple[list[str], int]:
    """What ``check`` flags in the demo cases as written in the case format, and the lines
    of text it read."""
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "demo"
        write_demo(root)
        result = check_set(root)
        lines = sum(len(t.splitlines()) for case in result.cases for t in case.texts.values())
        return [p.line() for p in result.problems], lines


def _strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


@dataclass
class Published:
    """Findings in the published rubric copy."""

    files: int = 0
    unreadable: int = 0
    texts: int = 0
    by_kind: Counter[str] = field(default_factory=Counter)
    confirmed_names: int = 0
    """Name findings whose word the same file also writes after Mr, Mrs, Ms, Miss or Dr."""


def published_findings(upstream: Path) -> Published:
    """Every finding in the item texts of the rubric files under ``upstream/rubrics``."""
    found = Published()
    for path in sorted((upstream / "rubrics").glob("*.json")):
        found.files += 1
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            found.unreadable += 1
            continue
        texts = list(_strings(data))
        found.texts += len(texts)
        whole = "\n".join(texts)
        words = vocabulary(whole)
        titled = {w for m in HONORIFIC.finditer(whole) for w in NAME_WORD.findall(m.group(1))}
        for text in texts:
            for line in text.splitlines():
                for finding in find(line, words=words):
                    found.by_kind[finding.kind] += 1
                    if finding.kind == "name" and any(
                        w in titled for w in NAME_WORD.findall(finding.text)
                    ):
                        found.confirmed_names += 1
    return found


def recall_table(recall: Recall) -> str:
    """The planted set's recall per kind, as the README shows it."""
    rows = ["| kind | planted | found | recall |", "|---|---:|---:|---:|"]
    for kind in LOOKS_FOR:
        n = recall.planted[kind]
        if n:
            rows.append(f"| {kind} | {n} | {recall.found[kind]} | {recall.found[kind] / n:.0%} |")
    found, planted = recall.total
    rows.append(f"| all | {planted} | {found} | {found / planted:.0%} |")
    return "\n".join(rows)


def published_line(found: Published) -> str:
    """The published copy's findings in one sentence, as the README gives it."""
    names = found.by_kind["name"]
    others = ", ".join(
        f"{n} {kind}{'' if n == 1 else 'es' if kind.endswith('s') else 's'}"
        for kind, n in sorted(found.by_kind.items())
        if kind != "name"
    )
    return (
        f"{found.texts:,} item texts of {found.files - found.unreadable:,} readable rubric "
        f"files: {names} name findings ({found.confirmed_names} of them words the same file "
        f"also writes after Mr, Mrs, Ms, Miss or Dr), {others or 'nothing else'}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--upstream", default=os.environ.get("MEDSP_TEST_UPSTREAM"))
    args = parser.parse_args()
    recall = planted_recall()
    print(recall_table(recall))
    found, planted = planted_recall(held_out=True).total
    print(f"held out: {found} of {planted}")
    for missed in recall.missed:
        print(f"missed: {missed}")
    for extra in recall.extra:
        print(f"extra: {extra}")
    alarms, lines = demo_alarms()
    print(f"demo cases: {len(alarms)} findings in {lines} lines")
    for alarm in alarms:
        print(f"  {alarm}")
    if args.upstream:
        print(f"published rubrics: {published_line(published_findings(Path(args.upstream)))}")


if __name__ == "__main__":
    main()
