"""Read a case's rubric (``rubric.yaml``): items under competency names, each fault of its
form a problem naming the file and line."""

from __future__ import annotations

from pathlib import Path

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from inspect_medsp.cases.casefiles import CaseFiles, read_text, yaml_fault, yaml_kind
from inspect_medsp.cases.layout import RUBRIC_FILE
from inspect_medsp.cases.problems import shown
from inspect_medsp.cases.yamlfile import NULL_TAG, Fault, compose, duplicate_keys, item_of
from inspect_medsp.data import COMPETENCIES, COMPETENCY_NAMES, Competency

COMPETENCY_LIST = ", ".join(f"{c} ({COMPETENCY_NAMES[c]})" for c in COMPETENCIES)


def read_rubric(case: CaseFiles) -> None:
    """``rubric.yaml`` of a case or scenario folder into ``case.rubric``, every fault of its
    form a problem of the case."""
    path = case.folder / RUBRIC_FILE
    if not path.is_file():
        case.add(
            path,
            "no_items",
            "missing: the case has no rubric",
            f"add {RUBRIC_FILE} with items under {', '.join(COMPETENCIES)}",
        )
        return
    text = read_text(case, path)
    if text is None:
        return
    node, faults = compose(text)
    if node is not None:
        faults += duplicate_keys(node)
    for fault in faults:
        yaml_fault(case, path, fault)
    if faults and node is None:
        return
    if node is not None and not isinstance(node, MappingNode):
        kind = yaml_kind(yaml.safe_load(text))
        case.add(
            path,
            "rubric",
            f"is not items under competency names (it reads as {kind})",
            f"write each competency on its own line ({', '.join(COMPETENCIES)}) followed by "
            "its items, one per line starting with '- '",
        )
        return
    lines = text.splitlines()
    rubric: dict[Competency, list[str]] = {c: [] for c in COMPETENCIES}
    first: dict[tuple[str, str], int] = {}
    for key_node, items in node.value if node is not None else []:
        key = str(key_node.value)
        if key not in COMPETENCIES:
            upper = key.strip().upper()
            hint = f" (did you mean {upper}?)" if upper in COMPETENCIES else ""
            case.add(
                path,
                "unknown_competency",
                f"'{key}' is not a competency{hint}",
                f"put its items under one of {COMPETENCY_LIST}",
            )
            continue
        rubric[key] += _items(case, path, key, items, lines, first)
    total = sum(len(v) for v in rubric.values())
    if total == 0 and not any(p.file.startswith(shown(path)) for p in case.problems):
        case.add(
            path,
            "no_items",
            "the rubric has no items",
            "write the observable actions that earn credit, one '- ' line each, under "
            f"{', '.join(COMPETENCIES)}",
        )
    case.rubric = rubric


def _items(
    case: CaseFiles,
    path: Path,
    key: str,
    items: Node,
    lines: list[str],
    first: dict[tuple[str, str], int],
) -> list[str]:
    """The items under competency ``key``, each fault a problem of the case: not a list, an
    item that is not a line of text, an item repeating an earlier one (``first``: each item's
    first line, by competency and words)."""
    if isinstance(items, ScalarNode) and items.tag == NULL_TAG:
        return []
    if not isinstance(items, SequenceNode):
        yaml_fault(
            case,
            path,
            Fault(
                items.start_mark.line + 1,
                f"'{key}' must be a list of items, each a line of text starting with '- '",
                f"write the items under {key}: one per line as '- <what the clinician does>'",
            ),
        )
        return []
    found: list[str] = []
    for child in items.value:
        item = item_of(child, lines)
        if isinstance(item, Fault):
            yaml_fault(case, path, item)
            continue
        same = (key, " ".join(item.text.split()).casefold())
        if same in first:
            yaml_fault(
                case,
                path,
                Fault(
                    item.line,
                    f"{key} item repeats line {first[same]} word for word: the grader "
                    "gives one verdict per item, so the copy is never judged",
                    "delete one of the two",
                ),
            )
            continue
        first[same] = item.line
        found.append(item.text)
    return found
