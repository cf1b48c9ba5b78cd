"""The probes of one scenario, each with its control: what the model is asked and the truth
its reply is measured against.

The probes ask about the material the clinician never sees in the benchmark: the patient
script, the environment materials, the marking guide and the checklist. A control is the
continuation's control is the same probe built from the case with its content words
shuffled within the case (:func:`~inspect_medsp.contamination.text.shuffled`): text no one has
written, so no model can have seen it, asked and measured in exactly the same way. The
checklist's and the slots' control is a *knowledge control*: the same question with what
identifies the case removed (its title, its source, the passage around a value) and its
clinical context kept (the topic, the value's own clause), measured against the same truth,
so what clinical knowledge alone recalls is counted out (docs/contamination.md says why).
When the user gives cases of their own that were never published, every control is the same
probe asked of one of those.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict

from inspect_medsp.contamination.identity import source_of, title_of, topic_of
from inspect_medsp.contamination.settings import ProbeKind, ProbeSettings
from inspect_medsp.contamination.slots import is_case_value, measurement, words_of
from inspect_medsp.contamination.text import (
    WORD,
    shuffled,
    split,
    without_file_headings,
)
from inspect_medsp.data import SampleRecord
from inspect_medsp.templates import render

PROMPTS = "inspect_medsp.contamination"
SYSTEM = "probe_system"

MASK = "[?]"
"""What stands in a slot's place in the passage the model is shown."""

SLOT_CONTEXT = 25
"""Words shown on each side of a masked value."""

CONTROL_KEY = "medsp_contamination_control"
"""Sample metadata key holding the unpublished case (a ``SampleRecord``) whose probes are the
scenario's control, when the user gave such cases."""

SHUFFLED = "shuffled"
"""The control's name when it is the case's own text shuffled."""

KNOWLEDGE = "knowledge"
"""The control's name when it is the same question with the case's identity removed."""

UNPUBLISHED = "unpublished"
"""The control's name when it is the same question asked of an unpublished case."""

NO_SLOT = "no slot"
"""How the slot probe's absence begins when a case has no value it may mask."""


def unpublished_of(metadata: Mapping[str, Any] | None) -> SampleRecord | None:
    """The unpublished control case a sample's metadata holds, if any."""
    stored = (metadata or {}).get(CONTROL_KEY)
    return SampleRecord.model_validate(stored) if stored is not None else None


PARTS: dict[str, tuple[str, str]] = {
    "patient": ("sp_actor", "patient script"),
    "environment": ("environment_controller", "environment materials"),
    "marking": ("evaluator", "marking guide"),
}
"""The continued passages: probe part → (packet, how the prompt names it)."""

PROBE_NAMES: tuple[str, ...] = (
    "continuation_patient",
    "continuation_environment",
    "continuation_marking",
    "checklist",
    "slot",
)
"""Every probe of a scenario, by name, in order."""


class Asked(BaseModel):
    """One question put to the model: its prompt, the truth its reply is measured
    against, and (once asked) the reply."""

    model_config = ConfigDict(frozen=True)

    prompt: str
    truth: list[str]
    """The words that follow (continuation), the checklist's items, or the masked value."""
    reply: str | None = None


class ProbePair(BaseModel):
    """One probe of a scenario and its control."""

    model_config = ConfigDict(frozen=True)

    name: str
    """``continuation_patient``, ..., ``checklist``, ``slot``."""
    kind: ProbeKind
    probe: list[Asked]
    """The question (several for the slot probe, one per masked value)."""
    control: list[Asked]
    """The same questions on the control: the shuffled case, the case without its identity
    (``knowledge``) or an unpublished case."""
    against: str = SHUFFLED
    """The control: ``shuffled``, ``knowledge`` or ``unpublished``."""


@dataclass(frozen=True)
class CaseText:
    """The texts of a case a probe is built from (the true ones or the control's)."""

    title: str
    patient: str
    environment: str
    marking: str
    items: tuple[str, ...]

    def part(self, name: str) -> str:
        return {"patient": self.patient, "environment": self.environment}.get(name, self.marking)


def case_text(record: SampleRecord) -> CaseText:
    """The true texts of ``record``'s case."""
    packets = record.scenario.packets
    return CaseText(
        title=title_of(record),
        patient=without_file_headings(packets.sp_actor),
        environment=without_file_headings(packets.environment_controller),
        marking=without_file_headings(packets.evaluator),
        items=tuple(item.text for item in record.rubric.items()),
    )


def control_text(case: CaseText, seed: str) -> CaseText:
    """``case`` with its content words shuffled within the case (fixed by ``seed``)."""
    texts = shuffled([case.title, case.patient, case.environment, case.marking, *case.items], seed)
    return CaseText(
        title=texts[0],
        patient=texts[1],
        environment=texts[2],
        marking=texts[3],
        items=tuple(texts[4:]),
    )


def _continuation(case: CaseText, part: str, source: str, s: ProbeSettings) -> Asked | None:
    cut = split(case.part(part), s.opening_words, s.following_words)
    if cut is None:
        return None
    prompt = render(
        "continuation",
        package=PROMPTS,
        part=PARTS[part][1],
        title=case.title,
        source=source,
        words=s.following_words,
        opening=cut.shown,
    )
    return Asked(prompt=prompt, truth=cut.following)


def _checklist(case: CaseText, source: str) -> Asked | None:
    if not case.items:
        return None
    prompt = render("checklist", package=PROMPTS, title=case.title, source=source)
    return Asked(prompt=prompt, truth=list(case.items))


def _checklist_knowledge(case: CaseText) -> Asked | None:
    """The checklist asked of the topic alone: no title, no source, no "published"."""
    if not case.items:
        return None
    prompt = render("checklist_knowledge", package=PROMPTS, topic=topic_of(case.title))
    return Asked(prompt=prompt, truth=list(case.items))


_LIST_MARK = re.compile(r"^\s*\d+[.)]\s", re.MULTILINE)


def slot_places(
    case: CaseText, slots: int, after: int = 0, avoid: frozenset[str] = frozenset()
) -> list[tuple[str, int]]:
    """Where the slots are: (part, index of the word) of up to ``slots`` measured values of
    the case (:func:`~inspect_medsp.contamination.slots.is_case_value`: a number with a unit
    or a measurement's name, never a label's, a unit's, a name's or an identifier's) that
    occur once in the whole case (so nothing else in it gives them away) and are not in
    ``avoid`` (the control's values), spread over the environment materials and the patient
    script, never a list's item number, and with their shown words all after the part's
    first ``after`` words (so no slot's passage shows what a continuation is asked for)."""
    every = Counter(
        m.group(0).casefold()
        for text in (case.title, case.patient, case.environment, case.marking, *case.items)
        for m in WORD.finditer(text)
    )
    found: list[tuple[str, int]] = []
    for part in ("environment", "patient"):
        text = case.part(part)
        marks = {m.start() for m in _LIST_MARK.finditer(text)}
        matches = words_of(text)
        for index, match in enumerate(matches):
            word = match.group(0).casefold()
            line_start = text.rfind("\n", 0, match.start()) + 1
            listed = line_start in marks and text[line_start : match.start()].strip() == ""
            clear = index - SLOT_CONTEXT >= after
            if (
                clear
                and not listed
                and every[word] == 1
                and word not in avoid
                and is_case_value(text, matches, index)
            ):
                found.append((part, index))
    if len(found) <= slots:
        return found
    step = len(found) / slots
    return [found[int(i * step)] for i in range(slots)]


def slot_value(case: CaseText, part: str, index: int) -> str:
    """The value a slot masks, lower case."""
    return words_of(case.part(part))[index].group(0).casefold()


def _masked(text: str, found: list[re.Match[str]], words: range, value: str) -> str:
    """The words ``words`` of ``text`` as written, ``value`` masked wherever it stands."""
    first, last = found[words.start], found[words.stop - 1]
    pieces: list[str] = []
    at = first.start()
    for match in found[words.start : words.stop]:
        if match.group(0).casefold() == value.casefold():
            pieces += [text[at : match.start()], MASK]
            at = match.end()
    pieces.append(text[at : last.end()])
    return "".join(pieces)


def _slot_knowledge(case: CaseText, part: str, index: int) -> Asked:
    """A slot asked with the case's identity removed: what the value measures (its name,
    unit and qualifiers, :func:`~inspect_medsp.contamination.slots.measurement`) under the
    case's topic; no title, no source, none of the case's other words or values."""
    text = case.part(part)
    found = words_of(text)
    value = found[index].group(0)
    prompt = render(
        "slot_knowledge",
        package=PROMPTS,
        topic=topic_of(case.title),
        mask=MASK,
        passage=measurement(text, found, index, MASK),
    )
    return Asked(prompt=prompt, truth=[value.casefold()])


def _slot(case: CaseText, part: str, index: int, source: str) -> Asked:
    text = case.part(part)
    found = words_of(text)
    value = found[index].group(0)
    first = max(0, index - SLOT_CONTEXT)
    last = min(len(found) - 1, index + SLOT_CONTEXT)
    passage = _masked(text, found, range(first, last + 1), value)
    prompt = render(
        "slot",
        package=PROMPTS,
        part=PARTS[part][1],
        title=case.title,
        source=source,
        mask=MASK,
        passage=passage,
    )
    return Asked(prompt=prompt, truth=[value.casefold()])


def build_probes(
    record: SampleRecord, settings: ProbeSettings, unpublished: SampleRecord | None = None
) -> tuple[list[ProbePair], dict[str, str]]:
    """The probes of ``record``'s scenario with their controls, and the probes it cannot
    have with why (a passage too short, no checklist, no slot).

    Without ``unpublished``, a continuation's control is the case with its content words
    shuffled, and the checklist's and the slots' is the knowledge control (the same question
    with the case's identity removed, measured against the same truth). Given
    ``unpublished`` (a case of the user's own that was never published), every control is
    the same probe asked of that case: its own title and texts, under the scenario's source,
    so the two read alike, its slots never a value the scenario's slots share."""
    true = case_text(record)
    if unpublished is None:
        control = control_text(true, f"medsp-contamination:{record.id}")
        lacks = "its shuffled copy"
    else:
        control = case_text(unpublished)
        lacks = f"the unpublished control case {unpublished.id}"
    source = source_of(record)
    passage = settings.opening_words + settings.following_words
    pairs: list[ProbePair] = []
    missing: dict[str, str] = {}
    against = SHUFFLED if unpublished is None else UNPUBLISHED
    if "continuation" in settings.probes:
        for part in PARTS:
            name = f"continuation_{part}"
            probe = _continuation(true, part, source, settings)
            other = _continuation(control, part, source, settings)
            if probe is None or other is None:
                whose = "its" if probe is None else f"{lacks}'s"
                missing[name] = f"{whose} {PARTS[part][1]} has fewer than {passage} words"
                continue
            pairs.append(
                ProbePair(
                    name=name, kind="continuation", probe=[probe], control=[other], against=against
                )
            )
    fact = KNOWLEDGE if unpublished is None else UNPUBLISHED
    if "checklist" in settings.probes:
        probe = _checklist(true, source)
        other = _checklist_knowledge(true) if unpublished is None else _checklist(control, source)
        if probe is None or other is None:
            whose = "its" if probe is None else f"{lacks}'s"
            missing["checklist"] = f"{whose} rubric has no items"
        else:
            pairs.append(
                ProbePair(
                    name="checklist", kind="checklist", probe=[probe], control=[other], against=fact
                )
            )
    if "slot" in settings.probes:
        slot = _slot_pair(true, control, unpublished is not None, source, settings, passage)
        if isinstance(slot, str):
            missing["slot"] = slot.replace("{control}", lacks)
        else:
            pairs.append(slot)
    return pairs, missing


def _slot_pair(
    true: CaseText,
    control: CaseText,
    unpublished: bool,
    source: str,
    settings: ProbeSettings,
    passage: int,
) -> ProbePair | str:
    """The slot probe and its control, or why there is none ("no slot: ...")."""
    places = slot_places(true, settings.slots, passage)
    why = (
        f"{NO_SLOT}: no measured value (a number with a unit or a measurement's name, not a "
        "label's, a unit's or a name's) occurs once in {whose} patient script or environment "
        "materials beyond the continued passages"
    )
    if not places:
        return why.format(whose="its")
    if not unpublished:
        return ProbePair(
            name="slot",
            kind="slot",
            probe=[_slot(true, p, i, source) for p, i in places],
            control=[_slot_knowledge(true, p, i) for p, i in places],
            against=KNOWLEDGE,
        )
    values = frozenset(slot_value(true, p, i) for p, i in places)
    others = slot_places(control, settings.slots, passage, avoid=values)
    if not others:
        return why.format(whose="{control}") + " that the scenario's slots do not share"
    return ProbePair(
        name="slot",
        kind="slot",
        probe=[_slot(true, p, i, source) for p, i in places],
        control=[_slot(control, p, i, source) for p, i in others],
        against=UNPUBLISHED,
    )


def system_prompt() -> str:
    """The system message of every probe."""
    return render(SYSTEM, package=PROMPTS)
