"""Finding the JSON object in a model's reply, and saying what had to be repaired."""

from __future__ import annotations

from typing import Any

import pytest

from inspect_medsp.jsonreply import NotJSONError, extract_json_object


@pytest.mark.parametrize(
    ("reply", "data", "repairs"),
    [
        ('{"speak": "hi", "eos": false}', {"speak": "hi", "eos": False}, []),
        ('```json\n{"a": [1, 2]}\n```', {"a": [1, 2]}, ["code fence"]),
        ('Sure. {"a": "}"} Anything else?', {"a": "}"}, ["prose around JSON"]),
        (
            'Here: {"speak": "hello", "actions": ["check BP"]',
            {"speak": "hello", "actions": ["check BP"]},
            ["prose around JSON", "unclosed"],
        ),
        ('{"a": {"b": [1, {"c": "x\\"y"}', {"a": {"b": [1, {"c": 'x"y'}]}}, ["unclosed"]),
        (
            '```\n{"open": "fence never closed"',
            {"open": "fence never closed"},
            ["code fence", "unclosed"],
        ),
    ],
)
def test_objects_are_found_and_repairs_named(
    reply: str, data: dict[str, Any], repairs: list[str]
) -> None:
    found = extract_json_object(reply)
    assert found.data == data
    assert found.repairs == repairs


@pytest.mark.parametrize(
    "reply",
    [
        "I would rather talk.",
        "[1, 2, 3]",
        '{"a": }',
        # cut off part-way: something is missing, so nothing is repaired into a reply
        '{"speak": "hello", "actions": ["Assess airway, breathing, cir',
        '{"speak": "hi", "eo',
        '{"speak": "hi", "eos": tr',
        '{"speak": "hi",',
        '{"speak": "hi", "actions":',
        '{"a": {"b": [1, {"c": "x\\"y',
    ],
)
def test_replies_without_an_object_are_refused(reply: str) -> None:
    with pytest.raises(NotJSONError):
        extract_json_object(reply)
