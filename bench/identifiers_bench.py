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

- **Held out** (``--held-out DIR``): a folder of cases in the case format written blind by
  someone who never saw the check, and its ``labels.yaml``: each identifier's file, exact
  text and kind, and look-alikes that must not be flagged. Each case is read as ``check``
  reads it (its declared names, its own vocabulary). Recall is by the labels' kinds; a
  false alarm is a finding that covers no labelled identifier, counted per 1,000 words of
  the cases' text; a look-alike flagged is counted apart.

    python -m bench.identifiers_bench [--upstream DIR] [--held-out DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from collections import Counter, defaultdict
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

    words: int = 0
    """Words of the text read (for false alarms per 1,000 words)."""
    lookalikes: int = 0
    lookalikes_flagged: list[str] = field(default_factory=list)
    unplaced: list[str] = field(default_factory=list)
    """Labels whose text is not in the file they name (counted apart, never as found)."""

    @property
    def total(self) -> tuple[int, int]:
        return sum(self.found.values()), sum(self.planted.values())

    @property
    def alarms_per_1000_words(self) -> float:
        """Findings that cover no labelled identifier, per 1,000 words of text."""
        return 1000 * len(self.extra) / self.words if self.words else 0.0


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
        recall.words += len(line.split())
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
        if not entry["planted"]:  # a look-alike line: clinical text with no identifier
            recall.lookalikes += 1
            if findings:
                recall.lookalikes_flagged.append(line)
    return recall


def _label_entries(data: object) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    """The identifiers and the look-alikes of a ``labels.yaml``: a mapping with a list of
    identifiers (``identifiers``, ``labels`` or ``planted``) and a list of look-alikes
    (``lookalikes``, ``look_alikes``, ``negatives``, ``traps``, ``not_identifiers``), or one
    list whose look-alikes say ``lookalike: true`` or have no kind."""

    def entries(value: object) -> list[dict[str, str]]:
        if not isinstance(value, list):
            return []
        return [{str(k): str(v) for k, v in e.items()} for e in value if isinstance(e, dict)]

    if isinstance(data, list):
        rows = entries(data)
        negative = {"true", "yes", "1"}
        traps = [
            r for r in rows
            if r.get("lookalike", r.get("look_alike", "")).lower() in negative or "kind" not in r
        ]
        return [r for r in rows if r not in traps], traps
    if not isinstance(data, dict):
        return [], []
    found = next(
        (entries(data[k]) for k in ("identifiers", "labels", "planted", "pii", "phi")
         if k in data), [],
    )
    traps = next(
        (entries(data[k]) for k in ("lookalikes", "look_alikes", "look-alikes", "negatives",
                                    "traps", "not_identifiers", "non_identifiers", "decoys")
         if k in data), [],
    )
    return found, traps


def _file_of(root: Path, name: str, texts: dict[Path, str]) -> Path | None:
    """The case file a label names (relative to the held-out folder or ending with it)."""
    direct = (root / name).resolve()
    if direct in texts:
        return direct
    ends = [p for p in texts if p.as_posix().endswith("/" + name.lstrip("./"))]
    return ends[0] if len(ends) == 1 else None


def held_out_recall(root: Path) -> Recall:
    """Recall by the labels' kinds, false alarms per 1,000 words and look-alikes flagged on a
    held-out set of cases (``root``, with ``labels.yaml``), each case read as ``check`` reads
    it."""
    from inspect_medsp.cases.check import case_folders
    from inspect_medsp.cases.content import declared_names
    from inspect_medsp.cases.identify import declared_tokens
    from inspect_medsp.cases.layout import CASE_FILE
    from inspect_medsp.cases.read import is_case, read_case

    labels_path = root / "labels.yaml"
    identifiers, traps = _label_entries(
        yaml.safe_load(labels_path.read_text(encoding="utf-8"))
    )
    texts: dict[Path, str] = {}
    found_in: dict[Path, list[list[tuple[int, int]]]] = {}
    recall = Recall()
    cases = root / "cases" if (root / "cases").is_dir() else root
    for sub in case_folders(cases):
        if not is_case(sub):
            continue
        case = read_case(sub)
        declared = declared_tokens(declared_names(case))
        words = vocabulary("\n".join(case.texts.values()))
        for file_path, text in case.texts.items():
            key = file_path.resolve()
            texts[key] = text
            per_line: list[list[tuple[int, int]]] = []
            for line in text.splitlines():
                skip = file_path.name == CASE_FILE and line.lstrip().startswith(("names:", "#"))
                recall.words += len(line.split())
                per_line.append(
                    [] if skip else [(f.start, f.end) for f in find(line, declared, words)]
                )
            found_in[key] = per_line

    covered: dict[Path, set[tuple[int, int, int]]] = defaultdict(set)

    def hits(path: Path, value: str, label: bool = True) -> tuple[bool, bool]:
        """Whether ``value`` is in ``path`` and whether a finding covers part of it (a
        finding covering a labelled identifier is no false alarm; one on a look-alike is)."""
        placed = False
        for number, line in enumerate(texts[path].splitlines()):
            at = line.find(value)
            while at >= 0:
                placed = True
                end = at + len(value)
                over = [s for s in found_in[path][number] if s[0] < end and at < s[1]]
                if over:
                    if label:
                        covered[path].update((number, a, b) for a, b in over)
                    return True, True
                at = line.find(value, at + 1)
        return placed, False

    for label in identifiers:
        kind, value = label.get("kind", "?"), label.get("text", "")
        where = _file_of(root, label.get("file", ""), texts)
        recall.planted[kind] += 1
        placed, hit = hits(where, value) if where is not None and value else (False, False)
        if hit:
            recall.found[kind] += 1
        else:
            recall.missed.append(f"{kind}: {value} ({label.get('file', '?')})")
            if not placed:
                recall.unplaced.append(f"{kind}: {value} ({label.get('file', '?')})")
    for trap in traps:
        value = trap.get("text", "")
        where = _file_of(root, trap.get("file", ""), texts)
        recall.lookalikes += 1
        if where is not None and value and hits(where, value, label=False)[1]:
            recall.lookalikes_flagged.append(f"{value} ({trap.get('file', '?')})")
    for path, lines in found_in.items():
        for number, line_spans in enumerate(lines):
            line = texts[path].splitlines()[number]
            recall.extra += [
                f"{path.name}:{number + 1}: {line[a:b]}"
                for a, b in line_spans
                if (number, a, b) not in covered[path]
            ]
    return recall


HELD_OUT_KINDS = {
    "name": "name",
    "date": "date",
    "address": "street address",
    "postcode": "postcode",
    "age_over_89": "age over 89",
    "device_serial": "device serial number",
    "email": "e-mail address",
    "insurance_number": "account number",
    "licence_or_account_number": "account number",
    "ip_address": "ip address",
    "phone": "phone number",
    "record_number": "record number",
    "vehicle_plate": "vehicle plate",
    "url": "url",
    "facility": "facility",
}
"""The held-out labels' kinds as ``check``'s kinds, to set the two tables side by side (a
kind not here keeps its own row)."""


def held_out_table(recall: Recall, tuning: Recall) -> str:
    """Recall by kind on the held-out set beside the tuning set's, and both false alarms."""
    rows = [
        "| kind | tuning: planted | found | recall | held out: labelled as | labelled | found "
        "| recall |",
        "|---|---:|---:|---:|---|---:|---:|---:|",
    ]
    held: dict[str, list[str]] = defaultdict(list)
    for kind in sorted(recall.planted):
        held[HELD_OUT_KINDS.get(kind, kind)].append(kind)

    def tuning_cells(kind: str) -> str:
        n = tuning.planted[kind]
        return f"{n} | {tuning.found[kind]} | {tuning.found[kind] / n:.0%}" if n else "- | - | -"

    def held_cells(kind: str) -> str:
        labels = held.get(kind, [])
        n = sum(recall.planted[k] for k in labels)
        if not n:
            return "- | - | - | -"
        found = sum(recall.found[k] for k in labels)
        return f"{', '.join(labels)} | {n} | {found} | {found / n:.0%}"

    for kind in [*LOOKS_FOR, *sorted(k for k in held if k not in LOOKS_FOR)]:
        if tuning.planted[kind] or kind in held:
            rows.append(f"| {kind} | {tuning_cells(kind)} | {held_cells(kind)} |")
    (tf, tp), (hf, hp) = tuning.total, recall.total
    rows.append(f"| all | {tp} | {tf} | {tf / tp:.0%} | | {hp} | {hf} | {hf / hp:.0%} |")
    rows.append(
        f"| false alarms per 1,000 words | {tuning.alarms_per_1000_words:.1f} | | | | "
        f"{recall.alarms_per_1000_words:.1f} | | |"
    )
    rows.append(
        f"| look-alikes flagged | {len(tuning.lookalikes_flagged)} of {tuning.lookalikes} "
        "lines | | | | "
        f"{len(recall.lookalikes_flagged)} of {recall.lookalikes} | | |"
    )
    return "\n".join(rows)


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


def _plural(kind: str) -> str:
    if kind.startswith("age "):
        return "ages" + kind[3:]
    if kind.endswith("y"):
        return kind[:-1] + "ies"
    return kind + ("es" if kind.endswith("s") else "s")


def published_line(found: Published) -> str:
    """The published copy's findings in one sentence, as the README gives it."""
    names = found.by_kind["name"]
    others = ", ".join(
        f"{n} {kind if n == 1 else _plural(kind)}"
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
    parser.add_argument(
        "--held-out", metavar="DIR", help="a held-out set of cases with its labels.yaml"
    )
    args = parser.parse_args()
    recall = planted_recall()
    print(recall_table(recall))
    found, planted = planted_recall(held_out=True).total
    print(f"planted.yaml's held_out entries (seen while tuning for issue 43): {found} of {planted}")
    for missed in recall.missed:
        print(f"missed: {missed}")
    for extra in recall.extra:
        print(f"extra: {extra}")
    alarms, lines = demo_alarms()
    print(f"demo cases: {len(alarms)} findings in {lines} lines")
    for alarm in alarms:
        print(f"  {alarm}")
    print(
        f"tuning set: {len(recall.extra)} findings cover no planted identifier in "
        f"{recall.words} words ({recall.alarms_per_1000_words:.1f} per 1,000 words)"
    )
    if args.upstream:
        print(f"published rubrics: {published_line(published_findings(Path(args.upstream)))}")
    if args.held_out:
        held = held_out_recall(Path(args.held_out))
        print(held_out_table(held, recall))
        found, planted = held.total
        print(
            f"held-out set: {found} of {planted} found; {len(held.extra)} false alarms in "
            f"{held.words} words; look-alikes flagged: {len(held.lookalikes_flagged)} of "
            f"{held.lookalikes}; labels not found in their file: {len(held.unplaced)}"
        )
        for missed in held.missed:
            print(f"held-out missed: {missed}")
        for extra in held.extra:
            print(f"held-out false alarm: {extra}")
        for flagged in held.lookalikes_flagged:
            print(f"held-out look-alike flagged: {flagged}")


if __name__ == "__main__":
    main()
