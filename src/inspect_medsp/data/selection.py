"""Which scenarios a run keeps: ids or shell globs over the ids available, a pattern that
matches nothing refused with ids of the data to copy from."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Sequence

from inspect_medsp.errors import MedSPDataError


def select_ids(available: Sequence[str], patterns: Sequence[str] | None) -> list[str]:
    """Keep the ids matching any of ``patterns`` (exact ids or shell globs).

    Raises:
        MedSPDataError: A pattern matches nothing (the message shows ids from ``available``).
    """
    if not patterns:
        return list(available)
    chosen: set[str] = set()
    for pattern in patterns:
        hits = [i for i in available if fnmatch.fnmatchcase(i, pattern)]
        if not hits:
            raise MedSPDataError(
                f"task parameter scenarios='{pattern}' matches none of the {len(available)} "
                f"scenarios available; {_id_hint(available)}"
            )
        chosen.update(hits)
    return [i for i in available if i in chosen]


_DIGITS = re.compile(r"\d+")


def _id_hint(available: Sequence[str]) -> str:
    """Two real ids of the data (of different forms where it has several) and a glob."""
    if not available:
        return "the data has no scenarios"
    first = available[0]
    form = _DIGITS.sub("#", first.split("/")[0])
    second = next(
        (i for i in available if _DIGITS.sub("#", i.split("/")[0]) != form),
        available[1] if len(available) > 1 else None,
    )
    examples = f"{first} or {second}" if second else first
    return (
        f"ids there look like {examples} (<case_id>/<scenarioN>), "
        f"and globs like '{first.split('/')[0]}/*' work"
    )
