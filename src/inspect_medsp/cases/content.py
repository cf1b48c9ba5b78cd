"""What ``check`` reads in a case's words: leaks to the clinician and identifiers left in.

A leak is the clinician's material (door note and resources) repeating word for word a fact the
patient reveals only when asked, or a rubric item. An identifier is what likely identifies a
real person (:mod:`inspect_medsp.cases.identify` says what it looks for and what it cannot
see). Both are found by pattern or list, so a check may flag what a clinician then keeps on
purpose.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import yaml

from inspect_medsp.cases.casefiles import CaseFiles, PacketFile
from inspect_medsp.cases.identify import (
    FIXES,
    IdentifierKind,
    declared_tokens,
    find,
    vocabulary,
)
from inspect_medsp.cases.layout import CASE_FILE
from inspect_medsp.cases.problems import Problem, shown

LEAK_WORDS = 6
"""Words in a row that make a repeat a leak (a shorter fact counts when repeated whole)."""
MIN_FACT_WORDS = 3
"""A hidden fact shorter than this is too common to call a leak."""

HIDDEN_HEADING = re.compile(
    r"only when asked|only if asked|when asked|if asked|do not volunteer|don't volunteer|"
    r"not volunteered|hidden",
    re.IGNORECASE,
)
"""A heading in the patient's script that starts what is revealed only when asked."""

_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_WORD = re.compile(r"[\w'\u2019]+")


def words(text: str) -> list[str]:
    """The words of ``text``, case and markup folded away."""
    return [w.casefold().replace("\u2019", "'") for w in _WORD.findall(text.replace("_", " "))]


def hidden_facts(files: list[PacketFile]) -> Iterator[tuple[PacketFile, str]]:
    """Each line of the patient's script under an 'only when asked' heading, with its file.

    The section runs from such a heading to the next heading of the same or a higher level.
    """
    for packet_file in files:
        level = 0
        for line in packet_file.text.splitlines():
            heading = _HEADING.match(line.strip())
            if heading is not None:
                depth = len(heading.group(1))
                if level and depth <= level:
                    level = 0
                if not level and HIDDEN_HEADING.search(heading.group(2)):
                    level = depth
                continue
            fact = _BULLET.sub("", line).strip()
            if level and len(words(fact)) >= MIN_FACT_WORDS:
                yield packet_file, fact


def _runs(sequence: list[str], size: int) -> set[tuple[str, ...]]:
    return {tuple(sequence[i : i + size]) for i in range(len(sequence) - size + 1)}


def repeated(needle: str, haystack_words: list[str]) -> str | None:
    """The words of ``needle`` that ``haystack_words`` repeats in a row (at least
    :data:`LEAK_WORDS` of them, or the whole needle when it is shorter), else None."""
    wanted = words(needle)
    if len(wanted) < MIN_FACT_WORDS:
        return None
    size = min(LEAK_WORDS, len(wanted))
    hay = _runs(haystack_words, size)
    hits = [i for i in range(len(wanted) - size + 1) if tuple(wanted[i : i + size]) in hay]
    if not hits:
        return None
    start = hits[0]
    end = start + size
    text = f" {' '.join(haystack_words)} "
    while end < len(wanted) and f" {' '.join(wanted[start : end + 1])} " in text:
        end += 1
    return " ".join(wanted[start:end])


def leaks(case: CaseFiles) -> list[Problem]:
    """The clinician's files repeating a hidden fact or a rubric item word for word."""
    problems: list[Problem] = []
    facts = list(hidden_facts(case.packets.get("patient", [])))
    items = [(c, n, t) for c, texts in (case.rubric or {}).items() for n, t in enumerate(texts, 1)]
    for examinee_file in case.packets.get("examinee", []):
        seen = words(examinee_file.text)
        where = shown(examinee_file.path)
        for source, fact in facts:
            match = repeated(fact, seen)
            if match is not None:
                problems.append(
                    Problem(
                        file=where,
                        kind="leak",
                        message=f"repeats the patient's hidden fact \"{match}\" "
                        f"({shown(source.path)}, revealed only when asked)",
                        fix="take it out of the clinician's material, or move the fact out "
                        "of the patient's 'only when asked' section if the clinician is meant "
                        "to know it",
                    )
                )
        for competency, number, item in items:
            match = repeated(item, seen)
            if match is not None:
                problems.append(
                    Problem(
                        file=where,
                        kind="leak",
                        message=f"repeats rubric item {competency} {number} word for word "
                        f"(\"{match}\")",
                        fix="the clinician must not read the checklist: reword or remove it "
                        "from the clinician's material",
                    )
                )
    return problems


def identifiers(case: CaseFiles) -> list[Problem]:
    """Likely identifiers in any text file of the case, with the line they are on; the names
    ``case.yaml`` declares as invented are not flagged (:mod:`inspect_medsp.cases.identify`)."""
    declared = declared_tokens(declared_names(case))
    words = vocabulary("\n".join(case.texts.values()))
    problems: list[Problem] = []
    for path, text in sorted(case.texts.items()):
        for number, line in enumerate(text.splitlines(), 1):
            if path.name == CASE_FILE and line.lstrip().startswith(("names:", "#")):
                continue  # the declaration itself, and notes to the author
            for finding in find(line, declared, words):
                problems.append(_identifier(path, number, finding.kind, finding.text))
    return problems


def declared_names(case: CaseFiles) -> list[str]:
    """The names ``case.yaml`` declares, read even when another of its fields is faulty (so
    one mistake does not turn every invented name into a finding)."""
    if case.facts is not None:
        return case.facts.names
    text = case.texts.get(case.folder / CASE_FILE)
    try:
        data = yaml.safe_load(text) if text is not None else None
    except yaml.YAMLError:
        return []
    names = data.get("names") if isinstance(data, dict) else None
    return [str(n) for n in names] if isinstance(names, list) else []


def _identifier(path: Path, line: int, kind: IdentifierKind, found: str) -> Problem:
    found = " ".join(found.split())
    article = "an" if kind[0] in "aeiou" else "a"
    return Problem(
        file=f"{shown(path)}:{line}",
        kind="identifier",
        message=f'likely {article} {kind} left in: "{found}"',
        fix=f"{FIXES[kind]}; cases come from real records and must be de-identified",
    )
