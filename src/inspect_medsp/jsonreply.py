"""Tolerant extraction of one JSON object from a model's reply.

Models wrap JSON in prose or code fences, leave an object unclosed, or give a string where a
list belongs. This module finds the object, closes an unclosed one only where nothing can have
been lost (the text stops after a complete value: only closing brackets are missing), and says
what it had to do, so every repair can be counted rather than hidden. An object cut off inside
a string, a key, a literal or after a comma is refused: part of it is missing, and a reply that
lost content must never be used as if whole.
"""

from __future__ import annotations

import json
import re
from typing import Any, NamedTuple

from pydantic import BaseModel, ConfigDict, Field

_FENCE = re.compile(r"```[a-zA-Z0-9_-]*\s*\n?(.*?)```", re.DOTALL)
_OPEN_FENCE = re.compile(r"```[a-zA-Z0-9_-]*\s*\n?(.*)$", re.DOTALL)


class Extracted(BaseModel):
    """A JSON object found in text, with the repairs needed to find it."""

    model_config = ConfigDict(frozen=True)

    data: dict[str, Any]
    repairs: list[str] = Field(default_factory=list)


class NotJSONError(ValueError):
    """No JSON object could be recovered from a reply."""


class _Scan(NamedTuple):
    end: int | None  # index just past the first object that closes, if one does
    open_closers: list[str]  # closers still owed, innermost last
    in_string: bool


def _scan(text: str, start: int = 0) -> _Scan:
    """Walk JSON text from ``start`` (an opening brace), tracking strings and brackets."""
    stack: list[str] = []
    in_string = False
    escaped = False
    for i in range(start, len(text)):
        ch = text[i]
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
            continue
        if ch == '"':
            in_string = True
        elif ch in "{[":
            stack.append("}" if ch == "{" else "]")
        elif ch in "}]" and stack:
            stack.pop()
            if not stack:
                return _Scan(i + 1, [], False)
    return _Scan(None, stack, in_string)


def close_unclosed(fragment: str) -> str:
    """Close a JSON object whose closing brackets are missing, when nothing else is.

    Raises:
        NotJSONError: The text stops inside a string, a key or a literal, or after a comma
            or a colon: part of the object is missing, so it is not repaired.
    """
    scan = _scan(fragment)
    body = fragment.rstrip()
    if scan.in_string or body.endswith((",", ":")):
        raise NotJSONError("the JSON object is cut off part-way (some of it is missing)")
    closed = body + "".join(reversed(scan.open_closers))
    try:
        json.loads(closed, strict=False)
    except json.JSONDecodeError as err:
        raise NotJSONError("the JSON object is cut off part-way (some of it is missing)") from err
    return closed


def extract_json_object(text: str) -> Extracted:
    """Find the first JSON object in ``text``.

    Args:
        text: A model reply.

    Returns:
        The object and the repairs made (``code fence``, ``prose around JSON``,
        ``unclosed``); no repairs means the reply was exactly one JSON object.

    Raises:
        NotJSONError: No object can be recovered, or it was cut off part-way.
    """
    repairs: list[str] = []
    body = text.strip()
    try:
        value = json.loads(body)
        if isinstance(value, dict):
            return Extracted(data=value)
    except json.JSONDecodeError:
        pass
    fence = _FENCE.search(body) or _OPEN_FENCE.search(body)
    if fence is not None:
        repairs.append("code fence")
        body = fence.group(1).strip()
    start = body.find("{")
    if start < 0:
        raise NotJSONError("no JSON object in the reply")
    end = _scan(body, start).end
    complete = end is not None
    candidate = body[start:end]
    if start > 0 or (complete and body[start + len(candidate) :].strip()):
        repairs.append("prose around JSON")
    if not complete:
        candidate = close_unclosed(candidate)
        repairs.append("unclosed")
    try:
        value = json.loads(candidate, strict=False)
    except json.JSONDecodeError as err:
        raise NotJSONError(f"invalid JSON ({err.msg} at char {err.pos})") from err
    if not isinstance(value, dict):
        raise NotJSONError("the JSON is not an object")
    return Extracted(data=value, repairs=repairs)
