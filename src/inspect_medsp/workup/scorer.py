"""``medsp_workup``: the work-up of each encounter, read from its record (no model is asked
unless ``-S classify=<model>`` is given)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from inspect_ai.model import get_model
from inspect_ai.scorer import (
    Metric,
    SampleScore,
    Score,
    Scorer,
    Target,
    Value,
    metric,
    scorer,
)
from inspect_ai.solver import TaskState
from pydantic import BaseModel, ConfigDict

from inspect_medsp.errors import MedSPDataError
from inspect_medsp.measure import Kit
from inspect_medsp.orders import PriceTable, category_name, decide, load_prices, money
from inspect_medsp.record import SCORER as RUBRIC_SCORER
from inspect_medsp.record import ScoreMetadata, Verdict, latest, unnumbered
from inspect_medsp.scoring import of_the_baseline
from inspect_medsp.workup.classify import classify_orders
from inspect_medsp.workup.linkmodel import link_with_model
from inspect_medsp.workup.result import WORKUP_SCORER, Workup
from inspect_medsp.workup.tally import tally

KIT = Kit(WORKUP_SCORER, verb="worked up")


class WorkupParameters(BaseModel):
    """The work-up's ``-S`` parameters."""

    model_config = ConfigDict(extra="forbid")

    prices: str | None = None
    classify: str | None = None
    link: str | None = None


ACCEPTED = {
    "prices": "the path of a YAML price table (currency, categories, names), e.g. prices.yaml",
    "classify": "a model name provider/model that sorts the orders into categories",
    "link": "a model name provider/model that links the orders to the rubric items they serve",
}


def workup_value(result: Workup) -> dict[str, float | int | str]:
    """The score's value, the samples grid's three columns: the cost, the orders and those
    linked to no met rubric item (left out without the rubric's verdicts; the one-line reason
    when too few orders could be decided). Unsupported, pending, unpriced and undecided
    orders are in the metadata (the Scoring tab, the report)."""
    value: dict[str, float | int | str] = {"cost": result.cost, "orders": len(result.orders)}
    if result.not_asked_for is not None:
        value["not_asked_for"] = result.not_asked_for
    elif result.necessity.startswith("withheld"):
        value["not_asked_for"] = result.necessity
    return value


def _signals(counts: dict[str, int]) -> str:
    return ", ".join(f"{n} by {signal}" for signal, n in sorted(counts.items())) or "none"


def turn_summary(result: Workup) -> str:
    """The work-up as the Scoring tab shows it: what the necessity and the curve rest on,
    then each order with its turn, category, cost and the met rubric items it serves."""
    decided = len(result.orders) - result.orders_undecided
    necessity = (
        f", {result.not_asked_for} of {decided} decided orders not linked to a met item (not "
        "asked for by the rubric, which is not the same as wrong)"
        if result.not_asked_for is not None
        else f" (not asked for: {result.necessity})"
    )
    unpriced = f", {len(result.unpriced)} unpriced" if result.unpriced else ""
    uncategorised = (
        f"; {len(result.uncategorised)} uncategorised, so the cost is a lower bound"
        if result.uncategorised
        else ""
    )
    lines = [
        f"Work-up: {len(result.orders)} orders, {money(result.cost, result.currency)}"
        f"{unpriced}{uncategorised}{necessity}",
    ]
    if result.necessity == "" or result.necessity.startswith("withheld"):
        lines += [
            "",
            f"Linked: {result.orders_linked} orders to a met item ({_signals(result.linked_by)}),"
            f" {result.orders_undecided} undecided. Met items placed in a turn: "
            f"{sum(result.items_placed.values())} of {result.items_met} "
            f"({_signals(result.items_placed)})"
            + (f"; curve: {result.curve_note}" if result.curve_note else "")
            + ".",
        ]
    lines.append("")
    shown = {"linked": "", "not_linked": "not linked to a met item", "undecided": "undecided",
             "unknown": "not linked (no rubric verdicts)"}  # fmt: skip
    for order in result.orders:
        if order.necessity == "linked" or order.serves:
            serves = ", ".join(f"[{n}]" for n in order.serves) + f" by {'+'.join(order.linked_by)}"
        elif order.cited_by:  # a log written before the linker
            serves = ", ".join(f"[{n}]" for n in order.cited_by)
        else:
            serves = shown[order.necessity]
        mark = {"executed": "", "pending": " · pending", "unsupported": " · unsupported"}
        pending = " at the end" if order.pending_at_end else (" (answered later)" * (
            order.status == "pending"))  # fmt: skip
        status = mark[order.status] + (pending if order.status == "pending" else "")
        lines.append(
            f"- T{order.turn} · {category_name(order.category)} · "
            f"{money(order.cost, result.currency)}{status} · {serves} — {order.order}"
        )
    return "\n".join(lines)


def rubric_verdicts(state: TaskState) -> tuple[list[Verdict] | None, str]:
    """The rubric's verdicts for the sample, or None and why there are none."""
    score = latest(state.scores or {}, RUBRIC_SCORER)
    if score is None:
        return None, f"the sample has no {RUBRIC_SCORER} score"
    metadata = ScoreMetadata.read(score.metadata)
    if metadata.unscored or not isinstance(score.value, dict):
        return None, f"the rubric could not score the sample ({metadata.unscored or 'unscored'})"
    return list(metadata.items), ""


VALUE_KEYS = ("cost", "orders", "not_asked_for")


@metric
def workup_summary() -> Metric:
    """Mean cost and orders per worked-up encounter of the baseline, the share of decided
    orders linked to no met rubric item (over encounters whose share is given), how many
    encounters were worked up and how many had their share withheld."""

    def compute(scores: list[SampleScore]) -> Value:
        values: list[tuple[dict[str, float], Mapping[str, Any]]] = [
            (
                {
                    k: float(n)
                    for k, n in unnumbered(v, VALUE_KEYS).items()
                    if isinstance(n, int | float)
                },
                s.score.metadata or {},
            )
            for s in scores
            if of_the_baseline(s) and isinstance(v := s.score.value, Mapping)
        ]
        if not values:
            return {"worked_up": 0}
        judged = [(v, m) for v, m in values if "not_asked_for" in v]
        decided = sum(v["orders"] - float(m.get("orders_undecided", 0) or 0) for v, m in judged)
        out: dict[str, float] = {
            "cost_mean": sum(v["cost"] for v, _ in values) / len(values),
            "orders_mean": sum(v["orders"] for v, _ in values) / len(values),
        }
        if decided:
            out["not_asked_for_share"] = sum(v["not_asked_for"] for v, _ in judged) / decided
        withheld = sum(1 for _, m in values if str(m.get("necessity", "")).startswith("withheld"))
        out["share_withheld"] = withheld
        out["worked_up"] = len(values)
        return out

    return compute


def _check_models(**models: str | None) -> None:
    """Each model given (by parameter) can be made here, else one line naming it."""
    for name, model in models.items():
        if model is None:
            continue
        try:
            get_model(model)  # inspect-evals-lint: ignore[IEBP001] -- the scorer factory's check
        except Exception as error:  # a model that cannot be made here: one line, no traceback
            first = (
                str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            )
            raise MedSPDataError(
                f"{WORKUP_SCORER}: {name}={model} cannot be made here ({first}); give a "
                "model name provider/model whose provider is installed and whose key is set"
            ) from None


@scorer(metrics=[workup_summary()], name=WORKUP_SCORER)
def medsp_workup(
    prices: str | None = None,
    classify: str | None = None,
    link: str | None = None,
    **unknown: Any,
) -> Scorer:
    """The work-up of each encounter: every order's category, its cost from a price table
    (``prices``: your own YAML table; default the shipped relative tiers), the met rubric
    items it serves, when each category was first ordered, the share of items met by each
    turn, unsupported orders and those pending at the end.

    Args:
        prices: A YAML price table (see ``orders/prices.yaml``); the shipped tiers if None.
        classify: A model that sorts the orders into categories; else the keyword table.
        link: A model that links the orders to the rubric items they serve, shown only the
            item texts and the orders; else the words of both (``workup/link.py``).
    """
    KIT.check(
        WorkupParameters,
        {"prices": prices, "classify": classify, "link": link},
        ACCEPTED,
        unknown,
        sends_to={"classify": classify, "link": link},
    )
    table: PriceTable = load_prices(prices)
    _check_models(classify=classify, link=link)

    async def work_up(state: TaskState, target: Target) -> Score:
        encounter = KIT.read(state)
        if isinstance(encounter, Score):
            return encounter
        traj = encounter.trajectory
        if not traj.turns:
            return KIT.unscored(
                reason="no_turns", why="the encounter has no recorded turns", metadata={}
            )
        actions = traj.action_log
        decided: list[tuple[str, str]] = [decide(a.interpreted_action, a.raw) for a in actions]
        usage: dict[str, Any] = {}
        verdicts, missing = rubric_verdicts(state)
        model_links: dict[int, list[int]] | None = None
        if classify is not None or (link is not None and verdicts):
            with KIT.metered() as meter:
                if classify is not None:
                    decided, _usable = await KIT.grading(
                        "work-up categories",
                        lambda: classify_orders(get_model(classify), actions),
                        {"model": classify, "orders": str(len(actions))},
                        lambda found: (
                            "usable reply" if found[1] else "unusable: keyword table used"
                        ),
                    )
                if link is not None and verdicts:
                    items = {v.number: v.text for v in verdicts}
                    model_links, _linked = await KIT.grading(
                        "work-up links",
                        lambda: link_with_model(get_model(link), items, actions),
                        {"model": link, "orders": str(len(actions))},
                        lambda found: "usable reply" if found[1] else "unusable: linked by words",
                    )
            usage = meter.stored()
        result = tally(
            traj,
            table,
            decided,
            verdicts,
            encounter.record.rubric.n_items,
            missing,
            classify,
            model_links,
            link,
        )
        return Score(
            value=KIT.numbered(workup_value(result), encounter.number),
            explanation=turn_summary(result),
            metadata={**result.model_dump(), **usage},
        )

    return work_up
