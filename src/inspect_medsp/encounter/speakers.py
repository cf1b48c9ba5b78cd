"""Who said each patient-side line: the patient, or a companion the script names."""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from inspect_medsp.record import PatientReply


def speaker(line: str, present: Collection[str], script: str) -> tuple[str, str]:
    """Who says a patient-side line, and their words.

    A ``Name: words`` prefix names a companion only when the name is one the patient agent
    declared present (``present``, compared case-insensitively) or one the patient script
    mentions (a case-insensitive whole-word match); otherwise the whole line, colon and all
    ("I took it at 3:30 pm"), is the patient's own words.
    """
    head, sep, rest = line.partition(":")
    name = head.strip()
    if not (sep and name and len(name) <= 40 and "\n" not in name and rest.strip()):
        return "patient", line
    declared = name.casefold() in {p.strip().casefold() for p in present}
    if declared or re.search(rf"(?<!\w){re.escape(name)}(?!\w)", script, re.IGNORECASE):
        return name, rest.strip()
    return "patient", line


def companions(reply: PatientReply, earlier: Sequence[PatientReply], script: str) -> dict[int, str]:
    """The lines of ``reply`` a companion said, by line number: names count as present when
    this reply or an earlier one declared them."""
    present = [name for said in (*earlier, reply) for name in said.actors_present]
    return {
        i: who
        for i, line in enumerate(reply.speak)
        if (who := speaker(line, present, script)[0]) != "patient"
    }
