"""The work-up of one recorded encounter, computed from its record alone: each order's
category and cost, which met rubric items cite it (through the evidence tracing the
checklist does, ``record/evidence.py``), when each category was first ordered and the share
of items met by the end of each turn."""

from __future__ import annotations

import re
from collections.abc import Sequence

from inspect_medsp.orders import PriceTable
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


def _pending_at_end(actions: Sequence[ActionRecord], i: int) -> bool:
    action = actions[i]
    if action.status != "pending":
        return False
    same = {fold(action.raw), fold(action.interpreted_action)} - {""}
    later = actions[i + 1 :]
    return not any(
        a.turn > action.turn
        and a.status == "executed"
        and ({fold(a.raw), fold(a.interpreted_action)} & same)
        for a in later
    )


def tally(
    traj: Trajectory,
    table: PriceTable,
    categories: Sequence[tuple[str, str]],
    verdicts: Sequence[Verdict] | None,
    items: int,
    missing: str = "",
    classifier: str | None = None,
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
    """
    actions = traj.action_log
    lines = encounter_lines(traj)
    cites: dict[int, list[int]] = {}
    met_turns: list[int | None] = []
    for verdict in verdicts or []:
        if not verdict.met:
            continue
        turn, line = cited_line(verdict.evidence, lines)
        met_turns.append(turn)
        if line is None or line.whose != "did":
            continue
        at = next(
            (i for i, a in enumerate(actions) if a.turn == line.turn and a.raw == line.text), None
        )
        if at is not None:
            cites.setdefault(at, []).append(verdict.number)
    orders: list[Order] = []
    if len(categories) != len(actions):
        raise ValueError(f"{len(categories)} categories for {len(actions)} orders")
    for i, (action, (category, how)) in enumerate(zip(actions, categories, strict=True)):
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
                pending_at_end=_pending_at_end(actions, i),
            )
        )
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
    have = verdicts is not None
    turns = traj.turn_count
    traced = [t for t in met_turns if t is not None]
    curve = (
        [round(sum(t <= n for t in traced) / items, 4) for n in range(1, turns + 1)]
        if have and items
        else []
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
        not_asked_for=sum(not o.cited_by for o in orders) if have else None,
        necessity="" if have else missing,
        unsupported=[o.order for o in orders if o.status == "unsupported"],
        pending_at_end=[o.order for o in orders if o.pending_at_end],
        items=items,
        curve=curve,
        untraced=len(met_turns) - len(traced),
        classify=classifier,
    )
