"""Words matched whole: an order's text and a table's name or keyword are compared after
folding case and treating ``_``, ``-`` and ``/`` as spaces, and a name matches only where it
stands as whole words (``CT`` is in "CT chest" and "ct_scan", never in "electrolytes" or
"Pre-alert activation")."""

from __future__ import annotations

import re
from functools import cache

_SEPARATORS = re.compile(r"[_\-/\u2010-\u2015]+")
_SPACES = re.compile(r"\s+")


def words(text: str) -> str:
    """``text`` folded for whole-word matching: case folded, ``_``, ``-`` and ``/`` read as
    spaces, runs of spaces made one."""
    return _SPACES.sub(" ", _SEPARATORS.sub(" ", text.casefold())).strip()


@cache
def phrase_pattern(phrase: str, plural: bool = True) -> re.Pattern[str]:
    """The pattern of ``phrase`` as whole words (its own separators read as spaces, any run
    of spaces or separators between its words), with an optional plural ending."""
    parts = [re.escape(p) for p in words(phrase).split(" ") if p]
    body = r"\s+".join(parts)
    ending = r"(?:e?s)?" if plural else ""
    return re.compile(rf"(?<![\w]){body}{ending}(?![\w])")


def has_phrase(text: str, phrase: str) -> bool:
    """Whether ``phrase`` stands in ``text`` as whole words (see :func:`words`)."""
    return bool(phrase.strip()) and phrase_pattern(phrase).search(words(text)) is not None
