"""What the person in the clinician's chair is shown: exactly the clinician model's messages.

A clinician model reads its system instructions, the opening (door note and task) and, after
each turn, the update (stage, patient status, feedback and events, the patient side's words).
The person reads the same messages, less the lines that tell a model how to format its JSON
(the form asks for the same three things instead) and the bare "[State change]" line (the
screen says what the turn changed instead, from the record: see ``frame.py``). Nothing else
reaches the screen.
"""

from __future__ import annotations

import re

from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageSystem
from pydantic import ValidationError

from inspect_medsp.encounter import render
from inspect_medsp.record import ClinicianReply

_JSON_LINE = re.compile(r'JSON object|\{\s*"speak"')
"""A line telling a model to reply in JSON, or showing the JSON shape."""


class NotClinicianCall(ValueError):
    """The call is not the clinician's turn of the ``turns`` protocol."""


def is_clinician_conversation(messages: list[ChatMessage]) -> bool:
    """Whether ``messages`` is the clinician's conversation of the ``turns`` protocol: it opens
    with the clinician's system instructions."""
    return (
        bool(messages)
        and isinstance(messages[0], ChatMessageSystem)
        and messages[0].text.strip() == render("clinician_system")
    )


def turn_number(messages: list[ChatMessage]) -> int:
    """The turn asked for: the clinician's replies so far, plus one."""
    return sum(isinstance(m, ChatMessageAssistant) for m in messages) + 1


def unseen(messages: list[ChatMessage]) -> list[ChatMessage]:
    """The messages after the clinician's last reply (the whole opening on the first turn)."""
    replies = [i for i, m in enumerate(messages) if isinstance(m, ChatMessageAssistant)]
    return messages[replies[-1] + 1 :] if replies else list(messages)


def for_person(message: ChatMessage) -> str:
    """A message's text as the person reads it: without the JSON-format lines and the bare
    state-change line."""
    change = render("state_change").strip()
    lines = [
        line
        for line in message.text.splitlines()
        if not _JSON_LINE.search(line) and line.strip() != change
    ]
    return _tidy("\n".join(lines))


def instructions(messages: list[ChatMessage]) -> str:
    """The clinician's system instructions as the person reads them (empty when none)."""
    system = [m for m in messages if isinstance(m, ChatMessageSystem)]
    return "\n\n".join(for_person(m) for m in system)


def first_material(text: str) -> str:
    """The first file of the case's materials in an opening message (the door note): from
    its ``## <file>`` heading to the next, or empty when there is none."""
    lines = text.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith("## ")]
    if not starts:
        return ""
    end = starts[1] if len(starts) > 1 else len(lines)
    section = [line for line in lines[starts[0] : end] if line.strip() != "</materials>"]
    return _tidy("\n".join(section))


def history(messages: list[ChatMessage]) -> str:
    """The whole conversation so far as the person reads it: every message, with the
    person's own earlier answers as they were sent."""
    blocks: list[str] = []
    for number, message in enumerate(messages):
        if isinstance(message, ChatMessageAssistant):
            blocks.append(own_turn(turn_number(messages[:number]), message.text))
        elif not isinstance(message, ChatMessageSystem):
            blocks.append(for_person(message))
    return "\n\n".join(b for b in blocks if b)


def own_turn(number: int, text: str) -> str:
    """The person's own earlier answer, in the words of the form."""
    try:
        reply = ClinicianReply.model_validate_json(text)
    except ValidationError:
        return f"Your turn {number}: {text}"
    lines = [f"Your turn {number}:", f"Say: {reply.speak or '(nothing)'}"]
    lines += [f"Action: {action}" for action in reply.actions] or ["Action: (none)"]
    lines.append(f"Stage done: {'yes' if reply.eos else 'no'}")
    return "\n".join(lines)


def _tidy(text: str) -> str:
    """At most one blank line in a row, no blank lines at the ends."""
    return re.sub(r"\n{3,}", "\n\n", text).strip()
