"""Match a grader's replies to rubric items and tally the verdicts, conflicts and stray keys.

A reply gives, under each competency, verdicts keyed by item number (``"[7]"``) or by item
text, as a mapping ``{"<key>": {"met": ..., "evidence": ...}}`` or as a list of
``{"item" | "id" | "number": ..., "met" | "verdict" | "value": ..., "evidence": ...}``, where
an integer ``id``, ``number`` or ``item`` counts as ``[n]`` and ``item`` text as a key.

A key finds its item, in this order:

1. exactly the item's text, under the item's competency;
2. ``[n]``: item ``n``;
3. the item's text after folding case, whitespace, markdown, punctuation and a leading
   numbering such as ``1.`` or ``a)`` on both sides, under the item's competency;
4. ``#n``, ``item n`` or the bare number ``n``: item ``n``;
5. the exact, then folded, text of an item of another competency, when only one item has it.

A number never comes from plain numbering: ``"1. Major depressive disorder"`` is text, since
published items start with such numbering. A number reference is refused (the key is listed
as ignored) when item ``n`` is under another competency, or when text after the number names
a different item than ``n``; ``#n``, ``item n`` and a bare ``n`` also when another item's own
text starts with the label ``n`` (``"#7 Learner asks ..."``), unless their text fits item
``n``. Text that fits more than one item is refused too. Nothing is guessed: a refused key
leaves its item without that verdict.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, Field

from inspect_medsp.data import COMPETENCIES, Competency, RubricItem
from inspect_medsp.record import MARKDOWN as _MARKDOWN
from inspect_medsp.record import PUNCT as _PUNCT
from inspect_medsp.record import Conflict, MatchedBy, Reading, Verdict

_REFERENCE = re.compile(
    r"^[\s*_`]*(?:(\[)\s*(\d+)\s*\]|#\s*(\d+)|item\s*#?\s*(\d+))(?!\d)"
    r"[\s*_`]*(?:[.:)\-\u2013\u2014]\s*)?(.*)$",
    re.I | re.S,
)
"""A number reference, ``[7]``, ``#7`` or ``item 7``, and any text after it."""
_BARE_NUMBER = re.compile(r"^\s*(\d+)\s*$")
_LABEL = re.compile(r"^[\s*_`]*(?:#\s*|item\s*#?\s*)?(\d+)(?!\d)", re.I)
"""A number an item's own text starts with (``7.``, ``#7``, ``Item 7:``): a label of its own."""
_NUMBERING = re.compile(r"^\s*(?:\(?(?:\d+(?:\.\d+)*|[a-z])[.)]|\((?:\d+|[a-z])\))(?=\s)")
"""A leading list numbering: ``1.``, ``2)``, ``1.1.``, ``a)``, ``B.``, ``(c)``."""
_TRUE = {"true", "yes", "met", "done", "completed", "y", "1", "pass"}
_FALSE = {"false", "no", "not met", "missed", "n", "0", "fail"}
_ITEM_FIELDS = ("item", "text", "key")
_NUMBER_FIELDS = ("id", "number")

NAMES_SHARE = 0.75
"""Share of the words after a number that must belong to another item for it to name that item."""
NAMES_MARGIN = 0.25
"""... and by how much more than to the numbered item."""


class Matching(BaseModel):
    """The verdicts found in one reply and the keys that gave none."""

    readings: list[Reading] = Field(default_factory=list)
    ignored_keys: list[str] = Field(default_factory=list)


def fold(text: str) -> str:
    """``normalise`` after dropping a leading list numbering (``1.``, ``a)``, ...)."""
    text = _MARKDOWN.sub(" ", unicodedata.normalize("NFKC", text).casefold())
    text = _PUNCT.sub(" ", _NUMBERING.sub("", text, count=1))
    return " ".join(text.split())


def core(text: str) -> str:
    """``fold`` after also dropping leading reference labels (``[7]``, ``#7``, ``Item 7:``)."""
    for _ in range(3):
        ref = _REFERENCE.match(text)
        if ref is None:
            break
        text = ref.group(5)
    return fold(text)


def read_value(value: Any) -> tuple[bool, str] | None:
    """A verdict value: a boolean, a yes/no word, or ``{"met": ..., "evidence": ...}``."""
    if isinstance(value, bool):
        return value, ""
    if isinstance(value, str):
        word = value.strip().casefold()
        if word in _TRUE:
            return True, ""
        if word in _FALSE:
            return False, ""
        return None
    if isinstance(value, dict):
        for key in ("met", "verdict", "value", "completed", "result"):
            if key in value:
                inner = read_value(value[key])
                if inner is not None:
                    evidence = value.get("evidence") or value.get("quote") or ""
                    return inner[0], str(evidence)
    return None


class _Found(BaseModel):
    item: RubricItem | None = None
    how: MatchedBy = "unjudged"
    why: str = ""
    """Why no item was taken, when there is more to say than that none matched."""


class ItemIndex:
    """A rubric's items, looked up by a reply key under a competency."""

    def __init__(self, items: list[RubricItem]) -> None:
        self.items = items
        self.by_number = {i.number: i for i in items}
        self._exact: dict[tuple[str, str], list[RubricItem]] = {}
        self._folded: dict[tuple[str, str], list[RubricItem]] = {}
        self._core = {i.number: core(i.text) for i in items}
        self._words = {n: _words(text) for n, text in self._core.items()}
        self._labelled: dict[int, list[RubricItem]] = {}
        for item in items:
            label = _LABEL.match(item.text)
            if label is not None and int(label.group(1)) != item.number:
                self._labelled.setdefault(int(label.group(1)), []).append(item)
        for item in items:
            folded = fold(item.text)
            for competency in (item.competency, ""):
                self._exact.setdefault((competency, item.text), []).append(item)
                self._folded.setdefault((competency, folded), []).append(item)

    def find(self, key: str, competency: Competency) -> _Found:
        """The item ``key`` names under ``competency`` (see the module's order)."""
        if not key.strip():
            return _Found(why="no item named")
        exact = self._exact.get((competency, key), [])
        if len(exact) == 1:
            return _Found(item=exact[0], how="exact")
        ref = _REFERENCE.match(key)
        if ref is not None and ref.group(1):
            return self.reference(int(ref.group(2)), ref.group(5), competency)
        folded = self._folded.get((competency, fold(key)), [])
        if len(folded) == 1:
            return _Found(item=folded[0], how="normalised")
        if ref is not None:
            number = next(g for g in ref.groups()[2:4] if g is not None)
            return self.reference(int(number), ref.group(5), competency, bracketed=False)
        bare = _BARE_NUMBER.match(key)
        if bare is not None:
            return self.reference(int(bare.group(1)), "", competency, bracketed=False)
        for table, text in ((self._exact, key), (self._folded, fold(key))):
            anywhere = table.get(("", text), [])
            if len(anywhere) == 1:
                return _Found(item=anywhere[0], how="other_competency")
        several = exact or folded or self._folded.get(("", fold(key)), [])
        if several:
            return _Found(why="fits items " + _numbers(several))
        return _Found()

    def reference(
        self, number: int, text: str, competency: Competency, bracketed: bool = True
    ) -> _Found:
        """Item ``number``, unless it is under another competency or ``text`` names another.

        ``#7``, ``item 7`` and a bare ``7`` (``bracketed=False``) could also mean another
        item whose own text starts with the label 7; they count only when text after the
        number fits item 7 itself.
        """
        item = self.by_number.get(number)
        if item is None:
            return _Found(why=f"no item {number}")
        if item.competency != competency:
            return _Found(why=f"item {number} is under {item.competency}")
        said = core(text)
        named = self._names_other(said, item)
        if named is not None:
            return _Found(why=f"number {number}, but the text names item {named.number}")
        labelled = [] if bracketed or self._fits(said, item) else self._labelled.get(number, [])
        if labelled:
            return _Found(why=f"number {number} could also be item {labelled[0].number}'s label")
        return _Found(item=item, how="number")

    def _fits(self, text: str, item: RubricItem) -> bool:
        """``text`` is ``item``'s own text, perhaps cut short."""
        own = self._core[item.number]
        return bool(text) and (text == own or own.startswith(text + " "))

    def _names_other(self, text: str, item: RubricItem) -> RubricItem | None:
        """Another item that ``text`` names clearly, when it does not fit ``item`` itself."""
        own = self._core[item.number]
        if not text or text == own:
            return None
        others = [i for i in self.items if i.number != item.number]
        for other in others:
            if text == self._core[other.number]:
                return other
        if own.startswith(text + " "):
            return None  # the item's own text cut short
        for other in others:
            if len(text.split()) >= 3 and self._core[other.number].startswith(text + " "):
                return other
        words = _words(text)
        if len(words) < 2:
            return None
        own_share = len(words & self._words[item.number]) / len(words)
        best = max(others, key=lambda i: len(words & self._words[i.number]), default=None)
        if best is None:
            return None
        share = len(words & self._words[best.number]) / len(words)
        if share >= NAMES_SHARE and share >= own_share + NAMES_MARGIN:
            return best
        return None


def _words(text: str) -> set[str]:
    return {w for w in text.split() if len(w) > 2}


def _numbers(items: list[RubricItem]) -> str:
    return ", ".join(str(i.number) for i in items)


def match_reply(data: Mapping[str, Any], index: ItemIndex, reply: int = 0) -> Matching:
    """Every verdict in one reply, each tied to the item its key names, and the stray keys."""
    out = Matching()
    for competency in COMPETENCIES:
        section = data.get(competency)
        entries: list[tuple[str, int | None, str, Any]]
        if isinstance(section, dict):
            entries = [(str(key), None, str(key), value) for key, value in section.items()]
        elif isinstance(section, list):
            entries = [_entry(e) for e in section]
        else:
            continue
        for label, number, key, value in entries:
            shown = f"{competency}: {label}"
            parsed = read_value(value)
            if parsed is None:
                out.ignored_keys.append(f"{shown} (no readable verdict)")
                continue
            found = (
                index.find(key, competency)
                if number is None
                else index.reference(number, key, competency)
            )
            if found.item is None:
                out.ignored_keys.append(f"{shown} ({found.why})" if found.why else shown)
                continue
            out.readings.append(
                Reading(
                    number=found.item.number,
                    met=parsed[0],
                    evidence=parsed[1],
                    key=shown,
                    matched_by=found.how,
                    reply=reply,
                )
            )
    return out


def _entry(entry: Any) -> tuple[str, int | None, str, Any]:
    """A list-shaped verdict as (label, number or None, text, value)."""
    if not isinstance(entry, dict):
        return str(entry), None, "", None
    number: int | None = None
    for name in _NUMBER_FIELDS:
        raw = entry.get(name)
        if isinstance(raw, int) and not isinstance(raw, bool):
            number = raw
            break
        if isinstance(raw, str) and _BARE_NUMBER.match(raw):
            number = int(raw)
            break
    text = next((entry[f] for f in _ITEM_FIELDS if isinstance(entry.get(f), str)), "")
    item = entry.get("item")
    if number is None and isinstance(item, int) and not isinstance(item, bool):
        number = item
    if number is None:
        return (text or str(entry)), None, text, entry
    return (f"[{number}] {text}" if text else f"[{number}]"), number, text, entry


class Tally:
    """Verdicts gathered over a grader's replies: the final verdicts, conflicts and stray keys.

    An item with two different verdicts (in one reply or across replies) is a conflict and
    counts as not met: nothing agreed shows it was done. It stays in the denominator.
    Repeated identical verdicts are not a conflict; the first one's evidence is kept.
    """

    def __init__(self, items: list[RubricItem]) -> None:
        self.items = items
        self.index = ItemIndex(items)
        self.readings: dict[int, list[Reading]] = {}
        self.ignored_keys: list[str] = []
        self.replies = 0

    def add(self, data: Mapping[str, Any]) -> Matching:
        """Take one reply's verdicts; returns what was found in it."""
        matching = match_reply(data, self.index, reply=self.replies)
        self.replies += 1
        for reading in matching.readings:
            self.readings.setdefault(reading.number, []).append(reading)
        self.ignored_keys += matching.ignored_keys
        return matching

    def missing(self) -> list[RubricItem]:
        """Items no reply has given a verdict for yet."""
        return [i for i in self.items if i.number not in self.readings]

    def verdicts(self) -> list[Verdict]:
        """One verdict per item in item order: unjudged and conflicted items are not met."""
        return [self._verdict(item) for item in self.items]

    def conflicts(self) -> list[Conflict]:
        """Items given both verdicts, with every reading, in item order."""
        return [
            Conflict(
                number=item.number,
                competency=item.competency,
                text=item.text,
                readings=self.readings[item.number],
            )
            for item in self.items
            if _conflicted(self.readings.get(item.number, []))
        ]

    def _verdict(self, item: RubricItem) -> Verdict:
        readings = self.readings.get(item.number, [])
        if not readings:
            return unjudged(item)
        first = readings[0]
        conflict = _conflicted(readings)
        evidence = first.evidence
        if conflict:
            evidence = "conflicting verdicts: " + "; ".join(
                f"{'met' if r.met else 'not met'} by {r.key!r}"
                + (f" ({r.evidence})" if r.evidence else "")
                for r in readings
            )
        return Verdict(
            number=item.number,
            competency=item.competency,
            text=item.text,
            met=first.met and not conflict,
            judged=True,
            evidence=evidence,
            matched_by=first.matched_by,
            conflict=conflict,
        )


def _conflicted(readings: list[Reading]) -> bool:
    return len({r.met for r in readings}) > 1


def unjudged(item: RubricItem) -> Verdict:
    """An item the judge never gave a verdict for: counted as not completed."""
    return Verdict(
        number=item.number,
        competency=item.competency,
        text=item.text,
        met=False,
        judged=False,
        matched_by="unjudged",
    )
