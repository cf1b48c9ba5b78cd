"""Which role and demo scenario a call is for, read from the messages it receives.

Nothing here depends on prompt sentences: a call is the grader when its user messages carry
most items of a demo rubric; the auditor when they carry both the patient script and the
environment materials of one demo scenario; otherwise the role is the one whose private
packet (door note, patient script or environment materials) fills the opening of the
conversation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Literal

from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageUser

from inspect_medsp._inspect import sample_active
from inspect_medsp.data import SampleRecord, load_records
from inspect_medsp.errors import MedSPDataError

ScriptedRole = Literal["clinician", "patient", "environment", "grader", "auditor"]

MATCH_SHARE = 0.6
"""Share of a packet's lines (or a rubric's items) that must appear for a match."""

MIN_LINE = 30
"""Shorter packet lines (headings, table rules) are too generic to identify a scenario."""

_MARKUP = re.compile(r"[*_`#|>~]+")


class NoScriptError(MedSPDataError):
    """The scripted provider was asked to play something it has no script for."""


@dataclass(frozen=True)
class Call:
    """What one generate call asks the scripted provider to play."""

    role: ScriptedRole
    record: SampleRecord
    turn: int
    """1-based turn of an encounter role: the replies it has already given, plus one."""


def fold(text: str) -> str:
    """Text compared loosely: markup, case and spacing folded away."""
    return " ".join(_MARKUP.sub(" ", text).casefold().split())


@cache
def demo_records() -> tuple[SampleRecord, ...]:
    """The bundled demo scenarios with their rubrics, read with the package's loader."""
    demo = Path(str(files("inspect_medsp.data").joinpath("demo")))
    records, _ = load_records(demo / "scenarios", demo / "upstream", name="MedSP-demo")
    return tuple(records)


def _lines(packet: str) -> list[str]:
    return [f for f in (fold(line) for line in packet.splitlines()) if len(f) >= MIN_LINE]


def _share(needles: list[str], haystack: str) -> float:
    return sum(n in haystack for n in needles) / len(needles) if needles else 0.0


def _opening(messages: list[ChatMessage]) -> str:
    """The messages up to and including the first user message, folded."""
    opening: list[str] = []
    for message in messages:
        opening.append(message.text)
        if isinstance(message, ChatMessageUser):
            break
    return fold("\n".join(opening))


def user_text(messages: list[ChatMessage]) -> str:
    """Every user message, folded."""
    return fold("\n".join(m.text for m in messages if isinstance(m, ChatMessageUser)))


def recognise(messages: list[ChatMessage]) -> Call:
    """The role, scenario and turn of a call.

    Raises:
        NoScriptError: The messages belong to no bundled demo scenario.
    """
    turn = sum(isinstance(m, ChatMessageAssistant) for m in messages) + 1
    asked = user_text(messages)
    for record in demo_records():
        items = [fold(i.text) for i in record.rubric.items()]
        if _share(items, asked) >= MATCH_SHARE:
            return Call("grader", record, turn)
    for record in demo_records():
        packets = record.scenario.packets
        both = (packets.sp_actor, packets.environment_controller)
        if all(_share(_lines(p), asked) >= MATCH_SHARE for p in both):
            return Call("auditor", record, turn)
    opening = _opening(messages)
    best: tuple[float, ScriptedRole, SampleRecord] | None = None
    for record in demo_records():
        packets = record.scenario.packets
        own: tuple[tuple[ScriptedRole, str], ...] = (
            ("clinician", packets.examinee),
            ("patient", packets.sp_actor),
            ("environment", packets.environment_controller),
        )
        for role, packet in own:
            share = _share(_lines(packet), opening)
            if share >= MATCH_SHARE and (best is None or share > best[0]):
                best = (share, role, record)
    if best is None:
        raise NoScriptError(
            f"medsp/scripted has no script for {_name(messages)}: only the three bundled demo "
            "scenarios (" + ", ".join(r.id for r in demo_records()) + ") are scripted; "
            "run it with inspect_medsp/medsp_demo, or use a real model"
        )
    return Call(best[1], best[2], turn)


def plays(record: SampleRecord) -> bool:
    """Whether the scripted provider can play every role of ``record``: each packet and the
    rubric are recognised as a bundled demo scenario's, as :func:`recognise` recognises a call."""
    packets = record.scenario.packets
    own = (packets.examinee, packets.sp_actor, packets.environment_controller)
    items = fold("\n".join(i.text for i in record.rubric.items()))
    for demo in demo_records():
        theirs = demo.scenario.packets
        mine = (theirs.examinee, theirs.sp_actor, theirs.environment_controller)
        packets_match = all(
            _share(_lines(d), fold(p)) >= MATCH_SHARE for d, p in zip(mine, own, strict=True)
        )
        if packets_match and _share([fold(i.text) for i in demo.rubric.items()], items) >= (
            MATCH_SHARE
        ):
            return True
    return False


def _name(messages: list[ChatMessage]) -> str:
    """The scenario of a call as well as it can be named: the running sample's id, else the
    opening words of the conversation."""
    active = sample_active()
    if active is not None and active.sample.id is not None:
        return f"scenario {active.sample.id}"
    words = " ".join(user_text(messages).split()[:12])
    return f"the scenario whose conversation opens {words!r}"
