"""Clinician validation: draw encounters for two human raters, and read their sheets back.

``write_validation`` draws a stratified sample of a log's scored encounters. A stratum is the
rubric's competency mix (which competencies it has) and the grader's overall completion band
(below 1/3, 1/3 to 2/3, 2/3 and above). Every stratum gets one encounter while the sample
allows, the rest is shared in proportion to the strata's sizes (highest averages), and the
encounters within a stratum are drawn at random with a fixed seed.

For each encounter it writes a page (the record exactly as the grader read it: transcript
with each action's status from the controller, state history) and a sheet: one CSV row per
rubric item with empty ``rater_1`` and ``rater_2`` columns to fill with ``yes`` or ``no``.
The grader's verdicts are on neither, so the raters judge blind.
"""

from __future__ import annotations

import csv
import random
import re
from collections.abc import Sequence
from pathlib import Path

from inspect_ai.util import Store
from pydantic import BaseModel

from inspect_medsp.agreement.raters import AgreementError, Encounter, GradedLog, Key
from inspect_medsp.record import Trajectory, render_record
from inspect_medsp.report import Cell, Table, write_csv

SEED = 30
RATERS = ("rater_1", "rater_2")
COLUMNS = ("sample_id", "epoch", "encounter", "number", "competency", "item", *RATERS, "comment")
ANSWERS = {"yes": True, "no": False}
BANDS = ((1 / 3, "below 1/3"), (2 / 3, "1/3 to 2/3"), (float("inf"), "2/3 and above"))


class Drawn(BaseModel):
    """One encounter chosen for the raters."""

    sample_id: str
    epoch: int
    stratum: str
    page: str
    sheet: str


def band(completion: float) -> str:
    """The completion band of a score."""
    return next(name for upper, name in BANDS if completion < upper)


def stratum_of(log: GradedLog, key: Key) -> str:
    """Competency mix and score band of a scored encounter."""
    encounter, result = log.encounters[key], log.results[key]
    mix = "+".join(dict.fromkeys(i.competency for i in encounter.items))
    return f"{mix}; {band(result.values.get('overall', 0.0))}"


def allocate(sizes: dict[str, int], n: int) -> dict[str, int]:
    """How many to draw from each stratum: one each while ``n`` allows (largest strata
    first), then the rest by highest averages (size over draws so far plus one)."""
    quota = dict.fromkeys(sizes, 0)
    for name in sorted(sizes, key=lambda s: (-sizes[s], s))[:n]:
        quota[name] = 1
    for _ in range(min(n, sum(sizes.values())) - sum(quota.values())):
        open_ = [s for s in sizes if quota[s] < sizes[s]]
        best = max(open_, key=lambda s: (sizes[s] / (quota[s] + 1), -sorted(sizes).index(s)))
        quota[best] += 1
    return quota


def draw(log: GradedLog, n: int, seed: int = SEED) -> list[tuple[Key, str]]:
    """A stratified sample of ``n`` scored encounters (all of them if there are fewer)."""
    strata: dict[str, list[Key]] = {}
    for key in sorted(log.encounters):
        result = log.results.get(key)
        if result is not None and result.scored:
            strata.setdefault(stratum_of(log, key), []).append(key)
    quota = allocate({s: len(keys) for s, keys in strata.items()}, n)
    rng = random.Random(seed)
    chosen: list[tuple[Key, str]] = []
    for name in sorted(strata):
        chosen += [(key, name) for key in rng.sample(strata[name], quota[name])]
    return sorted(chosen)


def slug(key: Key) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", f"{key[0]}_e{key[1]}").strip("_")


def page_text(encounter: Encounter, index: int) -> str:
    """The readable page of one encounter: what the grader read, and nothing of its verdicts."""
    record = render_record(Trajectory(store=Store(encounter.store)))
    fence = "`" * max(3, 1 + max((len(r) for r in re.findall(r"`+", record)), default=0))
    return (
        f"# Encounter {index}: {encounter.sample_id} (epoch {encounter.epoch})\n\n"
        f"Judge each rubric item in the sheet from this record alone: `yes` if the clinician "
        f"did it, `no` otherwise.\n\n{fence}text\n{record}\n{fence}\n"
    )


def write_validation(log: GradedLog, n: int, out: str | Path, seed: int = SEED) -> list[Drawn]:
    """Write ``pages/``, ``sheets/`` and ``validation.md`` for ``n`` drawn encounters.

    Raises:
        AgreementError: ``n`` below 1, or the log has no scored encounter.
    """
    if n < 1:
        raise AgreementError(f"--n must be 1 or more, not {n}")
    chosen = draw(log, n, seed)
    if not chosen:
        raise AgreementError(f"{log.path}: no scored encounter to draw from")
    folder = Path(out)
    (folder / "pages").mkdir(parents=True, exist_ok=True)
    (folder / "sheets").mkdir(parents=True, exist_ok=True)
    drawn: list[Drawn] = []
    for index, (key, stratum) in enumerate(chosen, start=1):
        encounter = log.encounters[key]
        name = f"{index:02d}_{slug(key)}"
        page = folder / "pages" / f"{name}.md"
        page.write_text(page_text(encounter, index), encoding="utf-8")
        rows: list[list[Cell]] = [
            [encounter.sample_id, encounter.epoch, encounter.fingerprint, item.number,
             item.competency, item.text, "", "", ""]
            for item in encounter.items
        ]  # fmt: skip
        sheet = write_csv(Table(name=name, columns=list(COLUMNS), rows=rows), folder / "sheets")
        drawn.append(
            Drawn(
                sample_id=key[0],
                epoch=key[1],
                stratum=stratum,
                page=str(page.relative_to(folder)),
                sheet=str(sheet.relative_to(folder)),
            )
        )
    (folder / "validation.md").write_text(index_text(log, drawn, n), encoding="utf-8")
    return drawn


def index_text(log: GradedLog, drawn: Sequence[Drawn], n: int) -> str:
    """The coordinator's page: what was drawn and how to fill and read back the sheets."""
    scored = sum(r.scored for r in log.results.values())
    lines = [
        "# Clinician validation",
        "",
        f"{len(drawn)} of {scored} scored encounters of `{log.name}` (asked for {n}), drawn by "
        "competency mix and grader score band. Give each rater the pages and the sheets, not "
        "this file (the strata name the grader's score band).",
        "",
        "Each rater fills one column of every sheet (`rater_1` or `rater_2`) with `yes` or "
        "`no` per item, and changes nothing else. Then:",
        "",
        f"    medsp-report agreement {log.path} --human sheets/*.csv --out agreement",
        "",
        "| # | encounter | stratum (competencies; score band) | page | sheet |",
        "|---|---|---|---|---|",
    ]
    for i, d in enumerate(drawn, start=1):
        lines.append(
            f"| {i} | {d.sample_id} epoch {d.epoch} | {d.stratum} | [{d.page}]({d.page}) "
            f"| [{d.sheet}]({d.sheet}) |"
        )
    return "\n".join(lines) + "\n"


class HumanVotes(BaseModel):
    """The two raters' verdicts read from the sheets, by encounter and item number."""

    votes: dict[tuple[str, int, int], tuple[bool, bool]]
    encounters: list[Key]


def read_sheets(paths: Sequence[str], log: GradedLog) -> HumanVotes:
    """Read filled sheets, checking each against the log's encounters and rubrics.

    Raises:
        AgreementError: One line naming the sheet and row at fault: a missing column, an
            unknown or different encounter, an item text changed, a row missing or repeated,
            or a value that is not yes/no.
    """
    votes: dict[tuple[str, int, int], tuple[bool, bool]] = {}
    keys: list[Key] = []
    for path in paths:
        for key, found in _read_sheet(path, log).items():
            if key in keys:
                raise AgreementError(f"{path}: {key[0]} epoch {key[1]} is in another sheet too")
            keys.append(key)
            votes |= {(*key, number): pair for number, pair in found.items()}
    return HumanVotes(votes=votes, encounters=keys)


def _read_sheet(path: str, log: GradedLog) -> dict[Key, dict[int, tuple[bool, bool]]]:
    try:
        with open(path, newline="", encoding="utf-8-sig") as handle:
            rows = list(csv.DictReader(handle))
            header = list(rows[0].keys()) if rows else []
    except (OSError, UnicodeDecodeError, csv.Error) as err:
        raise AgreementError(f"{path}: cannot read the sheet ({err})") from err
    missing = [c for c in COLUMNS if c != "comment" and c not in header]
    if not rows or missing:
        what = f"column(s) {', '.join(missing)} missing" if rows else "no rows"
        raise AgreementError(
            f"{path}: {what}; use a sheet written by medsp-report validation-sheet"
        )
    found: dict[Key, dict[int, tuple[bool, bool]]] = {}
    for line, row in enumerate(rows, start=2):
        where = f"{path}: row {line}"
        try:
            key: Key = (row["sample_id"], int(row["epoch"]))
            number = int(row["number"])
        except (TypeError, ValueError):
            raise AgreementError(f"{where}: epoch and number must be whole numbers") from None
        encounter = log.encounters.get(key)
        if encounter is None:
            raise AgreementError(f"{where}: {key[0]} epoch {key[1]} is not in {log.path}")
        if row["encounter"] != encounter.fingerprint:
            raise AgreementError(
                f"{where}: drawn from another recording of {key[0]} epoch {key[1]}; give the "
                "log the sheet was written from"
            )
        item = next((i for i in encounter.items if i.number == number), None)
        if item is None:
            raise AgreementError(f"{where}: {key[0]} has no rubric item [{number}]")
        if (row["item"] or "").strip() != item.text.strip():
            raise AgreementError(
                f"{where}: the text of item [{number}] was changed (the rubric says "
                f"{item.text!r}); restore it"
            )
        answers = []
        for rater in RATERS:
            value = (row[rater] or "").strip().casefold()
            if value not in ANSWERS:
                shown = repr(row[rater]) if row[rater] else "empty"
                raise AgreementError(
                    f"{where}: {rater} is {shown} for item [{number}]; write yes or no"
                )
            answers.append(ANSWERS[value])
        mine = found.setdefault(key, {})
        if number in mine:
            raise AgreementError(f"{where}: item [{number}] of {key[0]} appears twice")
        mine[number] = (answers[0], answers[1])
    for key, mine in found.items():
        absent = [i.number for i in log.encounters[key].items if i.number not in mine]
        if absent:
            shown = ", ".join(f"[{n}]" for n in absent)
            raise AgreementError(
                f"{path}: row(s) for item(s) {shown} of {key[0]} epoch {key[1]} missing "
                f"({len(mine)} of {len(log.encounters[key].items)} items)"
            )
    return found
