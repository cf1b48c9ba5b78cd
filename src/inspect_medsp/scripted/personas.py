"""Two scripted models for the probe's tests and demo (``--model medsp/seen-everything`` and
``--model medsp/seen-nothing``): scripts, not models.

``seen-everything`` stands for a model trained on the cases: its memory is the bundled demo
scenarios' texts and checklists, and it answers a probe from them (the words that follow an
opening it finds there, the items of a case whose title the prompt cites, the value at a
masked place whose surrounding words it finds in the case the prompt cites), and says it does
not know anything else. It remembers a case as published, under its title in quotes: a
question that only describes a case's topic (the probe's knowledge control) is one it does
not know. ``seen-nothing``
stands for a model that never saw them: it answers every probe with the same general clinical
text, and guesses a masked number.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from pathlib import Path

from inspect_ai.model import (
    ChatMessage,
    ChatMessageUser,
    GenerateConfig,
    ModelOutput,
)
from inspect_ai.tool import ToolChoice, ToolInfo

from inspect_medsp.data import SampleRecord, load_records
from inspect_medsp.scripted.playback import ScriptPlayer

SEEN_EVERYTHING = "seen-everything"
SEEN_NOTHING = "seen-nothing"
PERSONAS = (SEEN_EVERYTHING, SEEN_NOTHING)
"""The persona names under the ``medsp`` provider."""

MASK = "[?]"
"""What stands in a masked value's place in the probe's slot prompts (the probe's own
``contamination.probes.MASK``; a test holds them equal)."""

WORD = re.compile(r"\w+")
"""How the scripts read a text: runs of letters and digits (their own reading, not the
probe's: what they recite is the source's text as written)."""

DONT_KNOW = "I do not know it."

CONTEXT = 6
"""Words on each side of a mask the memory must match to fill it."""

MIN_RUN = 12
"""Words of an opening the memory must find in a row to continue it."""

RECITED = 80
"""Words a continuation from memory recites."""

GENERAL = (
    "Introduces self and confirms the patient's identity.\n"
    "Takes a focused history of the presenting complaint.\n"
    "Examines the patient and checks the vital signs.\n"
    "Orders appropriate investigations.\n"
    "Explains the findings and the plan in plain language.\n"
    "Checks understanding and invites questions.\n"
    "Arranges follow-up and safety-netting advice."
)
"""What ``seen-nothing`` says to any probe but a slot: general practice, no case's text."""

GUESS = "10"
"""The number ``seen-nothing`` guesses for any slot."""


@dataclass(frozen=True)
class Remembered:
    """One demo case as ``seen-everything`` remembers it."""

    titles: tuple[str, ...]
    texts: tuple[str, ...]
    """The patient script, environment materials and marking guide, as written."""
    items: tuple[str, ...]


def _remembered(record: SampleRecord) -> Remembered:
    packets = record.scenario.packets
    meta = record.scenario.metadata
    return Remembered(
        titles=tuple(v for k, v in meta.items() if "title" in k and v),
        texts=(packets.sp_actor, packets.environment_controller, packets.evaluator),
        items=tuple(item.text for item in record.rubric.items()),
    )


@cache
def memory() -> tuple[Remembered, ...]:
    """What ``seen-everything`` remembers: each bundled demo scenario's texts and checklist."""
    demo = Path(str(files("inspect_medsp.data").joinpath("demo")))
    records, _ = load_records(demo / "scenarios", demo / "upstream", name="MedSP-demo")
    return tuple(_remembered(r) for r in records)


def _words(text: str) -> list[tuple[str, int, int]]:
    """Each word of ``text``, lower case, with where it starts and ends."""
    return [(m.group(0).casefold(), m.start(), m.end()) for m in WORD.finditer(text)]


def _fill(asked: str) -> str:
    """The value at the mask: what stands in the remembered text between the words before
    it and the words after it."""
    before, _, after = asked.rpartition(MASK)
    left = [w for w, _, _ in _words(before)][-CONTEXT:]
    right = [w for w, _, _ in _words(after)][:CONTEXT]
    for case in _cited(asked):
        for text in case.texts:
            found = _words(text)
            folded = [w for w, _, _ in found]
            for i in range(len(left), len(folded) - len(right) + 1):
                if folded[i - len(left) : i] != left:
                    continue
                for j in range(i, min(i + 4, len(folded) - len(right) + 1)):
                    if folded[j : j + len(right)] == right:
                        start = found[i - 1][2] if i else 0
                        end = found[j][1] if j < len(found) else len(text)
                        return text[start:end].strip() or DONT_KNOW
    return DONT_KNOW


def _continue(asked: str) -> str | None:
    """The remembered text after the longest run of words that ends the prompt."""
    said = [w for w, _, _ in _words(asked)][-40:]
    best: tuple[int, int, str] | None = None
    for case in memory():
        for text in case.texts:
            found = _words(text)
            run = _run_end(said, [w for w, _, _ in found])
            if run is not None and (best is None or run[0] > best[0]):
                best = (run[0], found[run[1] - 1][2], text)
    if best is None or best[0] < MIN_RUN:
        return None
    _, end, text = best
    rest = _words(text[end:])
    cut = rest[min(RECITED, len(rest)) - 1][2] if rest else 0
    return text[end : end + cut].strip()


def _run_end(tail: list[str], text: list[str]) -> tuple[int, int] | None:
    """The longest run of words ending ``tail`` that occurs in ``text``: its length and the
    index after it in ``text``."""
    best: tuple[int, int] | None = None
    for j in range(len(text)):
        n = 0
        while n < len(tail) and j - n >= 0 and text[j - n] == tail[len(tail) - 1 - n]:
            n += 1
        if n and (best is None or n > best[0]):
            best = (n, j + 1)
    return best


def _cited(asked: str) -> list[Remembered]:
    """The remembered cases whose title the prompt cites, in quotes."""
    folded = asked.casefold()
    return [c for c in memory() if any(f'"{t.casefold()}"' in folded for t in c.titles)]


def _checklist(asked: str) -> str | None:
    """The checklist of the remembered case whose title the prompt cites."""
    for case in _cited(asked):
        return "\n".join(f"- {item}" for item in case.items)
    return None


def seen_everything(asked: str) -> str:
    """The reply of a model that has seen every demo case's texts."""
    if MASK in asked:
        return _fill(asked)
    return _continue(asked) or _checklist(asked) or DONT_KNOW


def seen_nothing(asked: str) -> str:
    """The reply of a model that has seen none of them."""
    return GUESS if MASK in asked else GENERAL


class ContaminationPersona(ScriptPlayer):
    """``medsp/seen-everything`` or ``medsp/seen-nothing``: replies to the probe's prompts
    from the demo cases' texts or from none; token usage is characters / 4."""

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        asked = "\n".join(m.text for m in input if isinstance(m, ChatMessageUser))
        reply = seen_everything if self.model_name == SEEN_EVERYTHING else seen_nothing
        text = reply(asked)
        return self.scripted_output(text, input)
