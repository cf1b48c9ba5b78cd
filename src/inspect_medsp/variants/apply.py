"""One sample per (scenario, variant): the expansion step a task makes after selecting its
scenarios (and labelling their specialties), and before anything that splits the run."""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence

from inspect_medsp.data import ROLES, Packets, SampleRecord, Substitution, VariantPlay
from inspect_medsp.errors import MedSPDataError
from inspect_medsp.variants.spec import Replacement, VariantSpec


def table_for(spec: VariantSpec, record: SampleRecord) -> list[Replacement] | None:
    """The cue table's rows for ``record`` (keyed by its scenario id, else its case id), or
    None when the table does not mark its case as eligible."""
    table = spec.substitutions or {}
    rows = table.get(record.id)
    return rows if rows is not None else table.get(record.scenario.case_id)


def substitute(
    spec: VariantSpec, record: SampleRecord, rows: Sequence[Replacement]
) -> tuple[Packets, list[Substitution]]:
    """Every packet of ``record`` with the table's rows applied in order, and each
    replacement made in each role's packet.

    Raises:
        MedSPDataError: The rubric holds a word the table replaces (the rubric is frozen,
            so the case is refused, never altered silently), or a row's words occur in no
            packet (the table does not fit the case).
    """
    items = record.rubric.items()
    for row in rows:
        hit = next((i for i in items if row.old.casefold() in i.text.casefold()), None)
        if hit is not None:
            raise MedSPDataError(
                f"variant {spec.name} refuses {record.id}: its rubric names {row.old!r} "
                f"(item {hit.number}, {hit.competency}), and the rubric is frozen; take the "
                "case out of the variant's substitution table"
            )
    texts = record.scenario.packets.model_dump()
    made: list[Substitution] = []
    for row in rows:
        found = False
        for role in ROLES:
            count = texts[role].count(row.old)
            if count:
                found = True
                texts[role] = texts[role].replace(row.old, row.new)
                made.append(Substitution(role=role, old=row.old, new=row.new, count=count))
        if not found:
            raise MedSPDataError(
                f"variant {spec.name} does not fit {record.id}: {row.old!r} occurs in none "
                "of its packets; correct the row in the variant's substitution table"
            )
    return Packets.model_validate(texts), made


def play(spec: VariantSpec, record: SampleRecord, cues: bool = True) -> SampleRecord | None:
    """``record`` as ``spec`` plays it, or None when ``spec`` does not run on it (a cue's
    table does not list its case, or its ``scenarios`` do not match it). ``cues=False``
    leaves the packets as they are (a cost estimate from packets of an assumed size, where
    the table's words cannot be found).

    Raises:
        MedSPDataError: A cue refuses the case (see :func:`substitute`).
    """
    packets = record.scenario.packets
    made: list[Substitution] = []
    if spec.scenarios is not None and not any(
        fnmatch.fnmatchcase(record.id, pattern) for pattern in spec.scenarios
    ):
        return None
    if spec.kind == "cue":
        rows = table_for(spec, record)
        if rows is None:
            return None
        if cues:
            packets, made = substitute(spec, record, rows)
    variant = VariantPlay(
        name=spec.name,
        kind=spec.kind,
        changes=spec.changes,
        patient=spec.patient.strip(),
        substitutions=made,
    )
    scenario = record.scenario.model_copy(update={"packets": packets})
    return record.model_copy(update={"scenario": scenario, "variant": variant})


def _eligible(spec: VariantSpec) -> str:
    """Where ``spec`` runs, in words."""
    if spec.kind == "cue":
        return (
            "its substitution table marks "
            f"{', '.join(sorted(spec.substitutions or {}))} as eligible"
        )
    return f"its scenarios list matches ({', '.join(spec.scenarios or [])})"


def expand(
    records: Sequence[SampleRecord], variants: Sequence[VariantSpec | None], cues: bool = True
) -> tuple[list[SampleRecord], list[str]]:
    """One record per (scenario, variant), scenario by scenario in the order given (None is
    the baseline, the record as it is), and one line per cue variant naming the scenarios its
    table leaves out (``cues``: see :func:`play`).

    Raises:
        MedSPDataError: A cue refuses a case or does not fit it; or a cue runs on none of
            the scenarios selected.
    """
    out: list[SampleRecord] = []
    left_out: dict[str, list[str]] = {}
    ran: dict[str, int] = {}
    for record in records:
        for spec in variants:
            if spec is None:
                out.append(record)
                continue
            played = play(spec, record, cues)
            if played is None:
                left_out.setdefault(spec.name, []).append(record.id)
            else:
                ran[spec.name] = ran.get(spec.name, 0) + 1
                out.append(played)
    for spec in variants:
        if spec is not None and spec.name in left_out and not ran.get(spec.name):
            raise MedSPDataError(
                f"variant {spec.name} runs on none of the {len(records)} scenarios selected: "
                f"{_eligible(spec)}"
            )
    named = {spec.name: spec for spec in variants if spec is not None}
    lines = [
        f"variant {name} runs only where {_eligible(named[name])}; left out {len(ids)}: "
        f"{', '.join(ids)}"
        for name, ids in left_out.items()
    ]
    return out, lines
