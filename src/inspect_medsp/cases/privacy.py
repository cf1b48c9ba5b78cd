"""Whether a custom set may leave the building: identifiers found in it, and which of a run's
models are remote.

A set in which ``medsp-cases check`` finds likely identifiers is refused at load when the
clinician or any role is played by a model whose endpoint is not on this machine, unless the
user passes ``-T identifiers=allow``; the run then records the findings in its log, with where
each role's model connects. A model is placed by where it connects, as Inspect built it
(:mod:`inspect_medsp.preflight.endpoints`): in this process (a scripted or mock model, a
person, local weights) or at a loopback address is on this machine; anything else, or a model
that cannot be placed, is remote.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from inspect_medsp.cases.check import check_set
from inspect_medsp.cases.identify import find, vocabulary
from inspect_medsp.cases.load import published_roots
from inspect_medsp.cases.problems import shown
from inspect_medsp.preflight import SERVE_HERE, Endpoint, away, away_line, place


def remote(model: str) -> bool:
    """Whether ``model`` (``provider/model``, made as Inspect makes it) connects anywhere but
    this machine, or cannot be placed (:func:`inspect_medsp.preflight.place`)."""
    return not place("model", model).local


def set_findings(folder: Path) -> list[str]:
    """Every likely identifier ``check`` finds in a custom set, one line each (file, line,
    what). A tree in the published layout declares no names: every name in it is one."""
    if published_roots(folder) is None:
        return [p.line() for p in check_set(folder).problems if p.kind == "identifier"]
    lines: list[str] = []
    for path in sorted(p for p in folder.rglob("*") if p.suffix in {".md", ".txt", ".json"}):
        lines += text_findings(path.read_text(encoding="utf-8", errors="replace"), shown(path))
    return lines


def text_findings(text: str, where: str) -> list[str]:
    """Every likely identifier in ``text`` (a vignette), one line each (where, line, what)."""
    words = vocabulary(text)
    return [
        f"{where}:{number}: likely {f.kind}: \"{f.text}\""
        for number, line in enumerate(text.splitlines(), 1)
        for f in find(line, words=words)
    ]


def refusal(
    folder: str, findings: list[str], placed: Sequence[Endpoint], parameter: str = "cases"
) -> str | None:
    """The one line refusing a set (``-T <parameter>=<folder>``) with ``findings`` for a run
    whose models connect as ``placed``, or None when every one is on this machine or nothing
    was found."""
    if not findings or not away(placed):
        return None
    n = len(findings)
    return (
        f"task parameter {parameter}='{folder}': medsp-cases check finds {n} likely "
        f"identifier{'' if n == 1 else 's'} (first: {findings[0]}), and the set would go off "
        f"this machine to {away_line(placed)}: remove them (medsp-cases check {folder} lists "
        f"each; declare invented names in case.yaml), {SERVE_HERE}, or pass -T "
        "identifiers=allow to send the set as it is (the log records the findings)"
    )
