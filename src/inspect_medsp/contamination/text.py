"""Words, the content-word shuffle that makes a control, and the measures of the probe.

Everything is measured on words: a word is a run of letters and digits (``0.5``, ``mg/L`` and
``auto-injector`` are one word each), compared in lower case, so markup, spacing and line
breaks never count for or against a reply.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass

WORD = re.compile(r"[A-Za-z0-9]+(?:[.'/-][A-Za-z0-9]+)*")
"""One word of a text."""

_FILE_HEADING = re.compile(r"^## \S+\.(?:md|txt|markdown)\s*$", re.MULTILINE)
"""The heading a packet puts above each of its files (``## 01_patient.md``)."""

_FUNCTION_WORDS = (
    "a about above after again against all also am an and any are as at be because been "
    "before being below between both but by can could did do does doing down during each "
    "few for from further had has have having he her here hers him his how i if in into "
    "is it its itself just may me might more most must my no nor not now of off on once "
    "only or other our ours out over own same she should so some such than that the their "
    "theirs them then there these they this those through to too under until up very was "
    "we were what when where which while who whom why will with would you your yours"
)
STOP_WORDS = frozenset(_FUNCTION_WORDS.split(" "))
"""Function words: kept in place by the shuffle, and never enough on their own to match an
item."""


def words(text: str) -> list[str]:
    """The words of ``text``, lower case."""
    return [w.casefold() for w in WORD.findall(text)]


def without_file_headings(packet: str) -> str:
    """A packet's text without the file-name headings the loader puts above each file."""
    return _FILE_HEADING.sub("", packet).strip()


def is_content(word: str) -> bool:
    """A word that carries content: not a function word, and three letters or more or a
    number."""
    folded = word.casefold()
    return folded not in STOP_WORDS and (len(folded) >= 3 or any(c.isdigit() for c in folded))


def is_number(word: str) -> bool:
    """A word holding a digit (``28``, ``0.5``, ``7.31``, ``10mg``)."""
    return any(c.isdigit() for c in word)


def content_words(text: str) -> set[str]:
    """The distinct content words of ``text``, lower case."""
    return {w for w in words(text) if is_content(w)}


def shuffled(texts: Sequence[str], seed: str) -> list[str]:
    """``texts`` with their content words shuffled among them: every content word of all
    the texts is drawn once, in an order fixed by ``seed``, into the places content words
    held (a number into a number's place, a word into a word's); function words, numbers
    of words, markup and line breaks stay where they were.

    The result reads like the case's own vocabulary in an order no one has written, so a
    model cannot have seen it: what a model scores on it is what it scores without memory.
    """
    found = [m.group(0) for text in texts for m in WORD.finditer(text)]
    numbers = [w for w in found if is_number(w)]
    others = [w for w in found if is_content(w) and not is_number(w)]
    shuffler = random.Random(seed)
    shuffler.shuffle(numbers)
    shuffler.shuffle(others)
    drawn_numbers, drawn_others = iter(numbers), iter(others)

    def swap(match: re.Match[str]) -> str:
        word = match.group(0)
        if is_number(word):
            return next(drawn_numbers)
        return next(drawn_others) if is_content(word) else word

    return [WORD.sub(swap, text) for text in texts]


@dataclass(frozen=True)
class Split:
    """A passage cut after its opening words: what the model is shown and what it should
    write next."""

    shown: str
    """The passage's text up to the end of its opening words, as written."""
    following: list[str]
    """The words after them (the truth a continuation is compared with)."""


def split(text: str, opening: int, following: int) -> Split | None:
    """``text`` cut after ``opening`` words, with the ``following`` words after them; None
    when the text has fewer than ``opening + following`` words."""
    found = list(WORD.finditer(text))
    if len(found) < opening + following:
        return None
    end = found[opening - 1].end()
    return Split(
        shown=text[:end], following=[m.group(0).casefold() for m in found[opening:][:following]]
    )


def longest_common_run(reply: Sequence[str], truth: Sequence[str]) -> int:
    """The longest run of consecutive words that ``reply`` and ``truth`` share."""
    best = 0
    previous = [0] * (len(truth) + 1)
    for word in reply:
        current = [0] * (len(truth) + 1)
        for j, other in enumerate(truth, start=1):
            if word == other:
                current[j] = previous[j - 1] + 1
                best = max(best, current[j])
        previous = current
    return best


def ngram_overlap(reply: Sequence[str], truth: Sequence[str], n: int) -> float:
    """The share of ``truth``'s word n-grams that ``reply`` also holds (0 when the truth has
    none)."""
    wanted = [tuple(truth[i : i + n]) for i in range(len(truth) - n + 1)]
    if not wanted:
        return 0.0
    held = {tuple(reply[i : i + n]) for i in range(len(reply) - n + 1)}
    return sum(g in held for g in wanted) / len(wanted)


def content_recall(reply: Sequence[str], truth: Sequence[str], shown: Sequence[str]) -> float:
    """The share of ``truth``'s distinct content words, less those the prompt ``shown``
    already held, that ``reply`` holds anywhere, in any order (0 when none are left).

    A continuation recalled in the model's own words keeps the passage's content words and
    loses their order and run (a paraphrase); the words shown are left out, since echoing
    them needs no memory."""
    given = {w for w in shown if is_content(w)}
    wanted = {w for w in truth if is_content(w)} - given
    if not wanted:
        return 0.0
    said = {w for w in reply if is_content(w)}
    return len(wanted & said) / len(wanted)


def items_recalled(lines: Sequence[str], items: Sequence[str], share: float) -> list[bool]:
    """For each item, whether one line of the reply holds at least ``share`` of the item's
    content words."""
    said = [content_words(line) for line in lines]
    found: list[bool] = []
    for item in items:
        wanted = content_words(item)
        found.append(bool(wanted) and any(len(wanted & s) / len(wanted) >= share for s in said))
    return found


def reply_lines(reply: str) -> list[str]:
    """A reply's non-empty lines (a list's items), markers and all."""
    return [line.strip() for line in reply.splitlines() if line.strip()]


def first_number(reply: str) -> str | None:
    """A slot's guess: the reply's first word holding a digit; None when it has none."""
    return next((w for w in words(reply) if any(c.isdigit() for c in w)), None)
