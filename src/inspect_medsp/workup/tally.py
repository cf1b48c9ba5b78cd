"""The work-up of one recorded encounter, computed from its record alone: each order's
category and cost, which met rubric items it serves (by the words of both, ``link.py``, and
by the grader's quote traced as the checklist traces it, ``record/evidence.py``), when each
category was first ordered and the share of items met by the end of each turn."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from inspect_medsp.orders import UNCLASSIFIED, PriceTable
from inspect_medsp.record import (
    LABELS,
    NO_EVIDENCE,
    ActionRecord,
    Line,
    Trajectory,
    Verdict,
    encounter_lines,
    fold,
    source,
)
from inspect_medsp.workup.link import OrderLink, Rubric, answers, link_order, said_turns
from inspect_medsp.workup.result import Order, Workup

_WHOSE = {label: whose for whose, label in LABELS.items()}
_CITE = re.compile(rf"^\s*T(\d+) ({'|'.join(map(re.escape, LABELS.values()))}): ")


def cited_line(evidence: str, lines: Sequence[Line]) -> tuple[int | None, Line | None]:
    """The turn a verdict's evidence cites and the line it quotes: a quote that names its
    turn and whose line it is (``T3 action: ...``) is looked for among that turn's lines of
    that kind; any other quote among every line (the person's first)."""
    text = " ".join(evidence.split())
    if fold(text) in NO_EVIDENCE:
        return None, None
    cite = _CITE.match(text)
    if cite is None:
        line = source(text, list(lines))
        return (line.turn if line is not None else None), line
    turn, whose = int(cite[1]), _WHOSE[cite[2]]
    pool = [ln for ln in lines if ln.turn == turn and ln.whose == whose]
    return turn, source(text, pool)


DECIDED_FLOOR = 0.8
"""The share of orders not asked for is given only when at least this share of the orders
could be decided (linked to a met item, or sharing nothing with one)."""
PLACED_FLOOR = 0.5
"""The curve is given only when at least this share of the met items could be placed in a
turn."""


def _pending_at_end(actions: Sequence[ActionRecord], i: int, traj: Trajectory) -> bool:
    """Whether a pending order is still pending at the end: no later order of the same
    reading was carried out, and no later result, reading or state event answers it."""
    action = actions[i]
    if action.status != "pending":
        return False
    same = {fold(action.raw), fold(action.interpreted_action)} - {""}
    later = actions[i + 1 :]
    if any(
        a.turn > action.turn
        and a.status == "executed"
        and ({fold(a.raw), fold(a.interpreted_action)} & same)
        for a in later
    ):
        return False
    reports = [
        text
        for turn in traj.turns
        if turn.index > action.turn
        for text in (*turn.environment.feedback, *turn.environment.events)
    ]
    return not any(answers(action.raw, action.interpreted_action, r) for r in reports)


def _quotes(
    verdicts: Sequence[Verdict], lines: Sequence[Line], actions: Sequence[ActionRecord]
) -> tuple[dict[int, list[int]], dict[int, int]]:
    """The orders each met item's quote traces to and the turn each quote places its item."""
    cites: dict[int, list[int]] = {}
    turns: dict[int, int] = {}
    for verdict in verdicts:
        if not verdict.met:
            continue
        turn, line = cited_line(verdict.evidence, lines)
        if turn is not None:
            turns[verdict.number] = turn
        if line is None or line.whose != "did":
            continue
        at = next(
            (i for i, a in enumerate(actions) if a.turn == line.turn and a.raw == line.text), None
        )
        if at is not None:
            cites.setdefault(at, []).append(verdict.number)
    return cites, turns


def _place(
    traj: Trajectory,
    rubric: Rubric,
    quoted: dict[int, int],
    links: Sequence[OrderLink],
    actions: Sequence[ActionRecord],
) -> dict[int, tuple[int, str]]:
    """Each met item's turn and what placed it: the quote's turn, else the first order that
    serves it, else the clinician's words."""
    placed: dict[int, tuple[int, str]] = {n: (t, "quote") for n, t in quoted.items()}
    for action, link in zip(actions, links, strict=True):
        for n in link.serves:
            placed.setdefault(n, (action.turn, "order"))
    said = [(turn.index, turn.clinician.speak) for turn in traj.turns if turn.clinician.speak]
    for n, turn in said_turns(said, rubric).items():
        placed.setdefault(n, (turn, "words"))
    return {n: p for n, p in placed.items() if n in rubric.met}


def _links(
    actions: Sequence[ActionRecord],
    rubric: Rubric,
    cites: dict[int, list[int]],
    model_links: dict[int, list[int]] | None,
    have: bool,
) -> list[OrderLink]:
    """Each order linked to the met items it serves (by the linking model's answer for it,
    when it gave one, else by the words and the quotes that cite it); with no verdicts
    (``have`` false), each order's necessity is unknown."""
    if not have:
        return [OrderLink((), (), "unknown") for _ in actions]
    return [
        link_order(
            a.raw,
            a.interpreted_action,
            rubric,
            cites.get(i, []),
            None if model_links is None else model_links.get(i),
        )
        for i, a in enumerate(actions)
    ]


def _orders(
    traj: Trajectory,
    table: PriceTable,
    categories: Sequence[tuple[str, str]],
    links: Sequence[OrderLink],
    cites: dict[int, list[int]],
) -> list[Order]:
    """Each order of ``traj.action_log`` with its category, price, citing items and link."""
    actions = traj.action_log
    orders: list[Order] = []
    for i, (action, (category, how), link) in enumerate(
        zip(actions, categories, links, strict=True)
    ):
        cost, priced_by = table.price(action.raw, action.interpreted_action, category)
        orders.append(
            Order(
                turn=action.turn,
                order=action.raw,
                reading=action.interpreted_action,
                status=action.status,
                category=category,
                category_source=how,
                cost=cost,
                priced_by=priced_by,
                cited_by=sorted(cites.get(i, [])),
                serves=list(link.serves),
                linked_by=list(link.by),
                necessity=link.necessity,
                pending_at_end=_pending_at_end(actions, i, traj),
            )
        )
    return orders


def _by_category(
    orders: Sequence[Order],
) -> tuple[dict[str, int], dict[str, float], dict[str, int]]:
    """Per category: how many orders, their priced cost, and the turn of the first."""
    by_category: dict[str, int] = {}
    cost_by_category: dict[str, float] = {}
    first_turn: dict[str, int] = {}
    for order in orders:
        by_category[order.category] = by_category.get(order.category, 0) + 1
        first_turn.setdefault(order.category, order.turn)
        if order.cost is not None:
            cost_by_category[order.category] = (
                cost_by_category.get(order.category, 0.0) + order.cost
            )
    return by_category, cost_by_category, first_turn


def _count(signals: Iterable[str]) -> dict[str, int]:
    """How many times each signal occurs, in the order each first occurs."""
    counts: dict[str, int] = {}
    for signal in signals:
        counts[signal] = counts.get(signal, 0) + 1
    return counts


def _necessity(orders: Sequence[Order], have: bool, missing: str) -> str:
    """Why the orders' necessity is not given ("" when it is): no verdicts (``missing``), or
    too few orders linked or ruled out."""
    if not have:
        return missing
    decided = sum(1 for o in orders if o.necessity in ("linked", "not_linked"))
    undecided = sum(1 for o in orders if o.necessity == "undecided")
    if orders and decided < DECIDED_FLOOR * len(orders):
        return (
            f"withheld: {decided} of {len(orders)} orders could be linked or ruled out "
            f"({undecided} undecided), fewer than {DECIDED_FLOOR:.0%}"
        )
    return ""


def _curve(placed: Sequence[int], met: int, items: int, turns: int) -> tuple[list[float], str]:
    """The share of the rubric's ``items`` met by each turn, from the turns the ``met`` items
    were ``placed`` in (an unplaced one counted from the last turn), and its note."""
    if not items:
        return [], ""
    unplaced = met - len(placed)
    if met and len(placed) < PLACED_FLOOR * met:
        return [], (
            f"withheld: {len(placed)} of {met} met items could be placed in a turn, "
            f"fewer than {PLACED_FLOOR:.0%}"
        )
    curve = [
        round((sum(t <= n for t in placed) + unplaced * (n == turns)) / items, 4)
        for n in range(1, turns + 1)
    ]
    note = (
        f"{unplaced} of {met} met items could not be placed in a turn: counted from the last "
        "turn only"
        if unplaced
        else ""
    )
    return curve, note


def tally(
    traj: Trajectory,
    table: PriceTable,
    categories: Sequence[tuple[str, str]],
    verdicts: Sequence[Verdict] | None,
    items: int,
    missing: str = "",
    classifier: str | None = None,
    model_links: dict[int, list[int]] | None = None,
    linker: str | None = None,
) -> Workup:
    """The work-up of the encounter ``traj``.

    Args:
        traj: The recorded encounter.
        table: The price table.
        categories: Each order's category and how it was decided, in the order of
            ``traj.action_log``.
        verdicts: The rubric's verdicts for the sample; None when it has none (necessity
            and the curve are then not given, and ``missing`` says why).
        items: The rubric's number of items.
        missing: Why there are no verdicts.
        classifier: The grading model that classified the orders, if one did.
        model_links: The items a linking model gave each order it answered for (by its
            index in ``traj.action_log``); the others are linked by their words.
        linker: The linking model, if one linked.
    """
    actions = traj.action_log
    if len(categories) != len(actions):
        raise ValueError(f"{len(categories)} categories for {len(actions)} orders")
    have = verdicts is not None
    found = list(verdicts or [])
    cites, quoted = _quotes(found, encounter_lines(traj), actions)
    rubric = Rubric.of({v.number: v.text for v in found}, [v.number for v in found if v.met])
    links = _links(actions, rubric, cites, model_links, have)
    orders = _orders(traj, table, categories, links, cites)
    by_category, cost_by_category, first_turn = _by_category(orders)
    linked = [o for o in orders if o.necessity == "linked"]
    not_linked = [o for o in orders if o.necessity == "not_linked"]
    linked_by = _count(signal for order in linked for signal in order.linked_by)
    necessity = _necessity(orders, have, missing)
    met = sorted(rubric.met)
    placed = _place(traj, rubric, quoted, links, actions) if have else {}
    placed_by = _count(signal for _turn, signal in placed.values())
    unplaced = len(met) - len(placed)
    curve, curve_note = (
        _curve([t for t, _ in placed.values()], len(met), items, traj.turn_count)
        if have
        else ([], missing)
    )
    return Workup(
        orders=orders,
        currency=table.currency,
        prices=table.path,
        cost=sum(o.cost for o in orders if o.cost is not None),
        unpriced=[o.order for o in orders if o.cost is None],
        by_category=by_category,
        cost_by_category=cost_by_category,
        first_turn=first_turn,
        not_asked_for=len(not_linked) if have and not necessity else None,
        necessity=necessity,
        orders_linked=len(linked),
        orders_undecided=sum(1 for o in orders if o.necessity == "undecided"),
        linked_by=linked_by,
        items_met=len(met),
        items_placed=placed_by,
        items_unplaced=unplaced if have else 0,
        curve_note=curve_note,
        uncategorised=[o.order for o in orders if o.category in (UNCLASSIFIED, "unclassified")],
        unsupported=[o.order for o in orders if o.status == "unsupported"],
        pending_at_end=[o.order for o in orders if o.pending_at_end],
        items=items,
        curve=curve,
        untraced=sum(1 for n in met if n not in quoted),
        classify=classifier,
        link=linker,
    )
