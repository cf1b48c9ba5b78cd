"""Read a case's YAML files so that nothing an author wrote is lost without a word.

PyYAML reads a second ``PC:`` by silently replacing the first, cuts an item at `` #`` (the
rest is a comment), reads ``- Dose: 0.9 mg/kg`` as a pair, ``- 12`` as a number and ``- yes``
as a boolean, and stops at an item starting with ``*`` with its own jargon. Here the file is
composed into YAML's nodes (which keep their line numbers), and each of those readings is a
:class:`Fault` naming the line and the fix; the rubric's items are taken as the author wrote
them only when there is none.
"""

from __future__ import annotations

from dataclasses import dataclass

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

STR_TAG = "tag:yaml.org,2002:str"
NULL_TAG = "tag:yaml.org,2002:null"
QUOTE_FIX = (
    'quote the whole item, - "..." (a " inside becomes \\"), or write - |- and the item '
    "indented on the next line"
)
"""The fix for an item YAML reads as something other than its text."""

TAG_WORDS = {
    "tag:yaml.org,2002:int": "a number",
    "tag:yaml.org,2002:float": "a number",
    "tag:yaml.org,2002:bool": "a yes/no value",
    "tag:yaml.org,2002:timestamp": "a date",
}
"""What YAML reads a plain item as, in words, by its resolved tag."""

START_CHARS = {
    "*": "'*' starts a YAML alias",
    "&": "'&' starts a YAML anchor",
    "!": "'!' starts a YAML tag",
    "%": "'%' starts a YAML directive",
    "@": "'@' is reserved in YAML",
    "`": "'`' is reserved in YAML",
    "|": "'|' starts a YAML block",
    ">": "'>' starts a YAML block",
    "{": "'{' starts a YAML mapping",
    "[": "'[' starts a YAML list",
    '"': "an item starting with '\"' must end with one",
    "'": "an item starting with \"'\" must end with one",
}
"""Why an item starting with one of these characters cannot be read as plain text."""


@dataclass(frozen=True)
class Fault:
    """What is wrong on one line of a YAML file, and the fix."""

    line: int
    """1-based."""
    message: str
    fix: str


@dataclass(frozen=True)
class Item:
    """One item of a list, as the author wrote it, with its line."""

    line: int
    text: str


def _shown(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def compose(text: str) -> tuple[Node | None, list[Fault]]:
    """The document's node tree (None for an empty file), or the one fault YAML stops at."""
    try:
        return yaml.compose(text, Loader=yaml.SafeLoader), []
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        line = mark.line + 1 if mark is not None else 1
        lines = text.splitlines()
        source = lines[line - 1] if 0 < line <= len(lines) else ""
        if "\t" in source or ("\t" in text and "tab" in str(err).lower()):
            at = line if "\t" in source else next(
                (n for n, text_line in enumerate(lines, 1) if "\t" in text_line), line
            )
            column = (lines[at - 1].index("\t") + 1) if 0 < at <= len(lines) else 1
            return None, [
                Fault(
                    at,
                    f"a tab (column {column}): YAML does not read tabs as indentation",
                    "replace the tab with spaces (two spaces a level, as the template does)",
                )
            ]
        item = source.strip().removeprefix("-").strip()
        why = START_CHARS.get(item[:1])
        if why is None and item.count('"') % 2:
            why = "an unbalanced '\"'"
        if why is not None:
            return None, [
                Fault(line, f'YAML cannot read "{_shown(item)}": {why}', QUOTE_FIX)
            ]
        problem = " ".join(str(err.problem or "not readable").split())
        return None, [
            Fault(
                line,
                f'YAML cannot read this line ("{_shown(source.strip())}": {problem})',
                "check the indentation and that each name ends with ':' and each item starts "
                "with '- '; an item holding ': ' or ' #', or starting with a sign: "
                + QUOTE_FIX,
            )
        ]


def duplicate_keys(node: Node) -> list[Fault]:
    """Every name a mapping (at any depth) has twice: YAML keeps only the last."""
    faults: list[Fault] = []
    if isinstance(node, MappingNode):
        first: dict[str, int] = {}
        for key, value in node.value:
            name = str(key.value)
            line = key.start_mark.line + 1
            if name in first:
                faults.append(
                    Fault(
                        line,
                        f"'{name}:' appears again (first on line {first[name]}): YAML keeps "
                        "only the last, so everything under the first is lost",
                        f"put everything under one '{name}:' and delete the other",
                    )
                )
            else:
                first[name] = line
            faults += duplicate_keys(value)
    elif isinstance(node, SequenceNode):
        for child in node.value:
            faults += duplicate_keys(child)
    return faults


def item_of(node: Node, lines: list[str]) -> Item | Fault:
    """The text of one list item as written, or why it is not the text the author meant."""
    line = node.start_mark.line + 1
    source = lines[line - 1].strip() if line <= len(lines) else ""
    if isinstance(node, MappingNode):
        return Fault(
            line,
            f'item "{_shown(source.removeprefix("-").strip())}" reads as a name and a value '
            "(a ': ' inside an item makes it a pair), not as one item",
            QUOTE_FIX,
        )
    if isinstance(node, SequenceNode):
        return Fault(line, "item is a list inside the list", "write each item on its own '- ' line")
    assert isinstance(node, ScalarNode)
    plain = node.style is None
    if (plain and node.tag == NULL_TAG) or not str(node.value).strip():
        return Fault(line, "item is empty", "write the item after '- ', or delete the line")
    if plain and node.tag in TAG_WORDS:
        return Fault(
            line,
            f"item '{node.value}' reads as {TAG_WORDS[node.tag]}, not text",
            "write what the clinician does (or quote it if the item really is "
            f'"{node.value}")',
        )
    if plain:
        end = node.end_mark
        rest = lines[end.line][end.column :] if end.line < len(lines) else ""
        if rest.lstrip().startswith("#"):
            return Fault(
                end.line + 1,
                f'item is cut at \'#\': YAML reads "{_shown(rest.strip())}" as a comment and '
                f'keeps only "{_shown(str(node.value))}"',
                f"if '#...' belongs to the item, {QUOTE_FIX}; if it is your note, put it on a "
                "line of its own",
            )
    return Item(line, str(node.value).strip())
