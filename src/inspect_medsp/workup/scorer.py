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
from inspect_medsp.workup.classify import classify_orders
from inspect_medsp.workup.result import WORKUP_SCORER, Workup
from inspect_medsp.workup.tally import tally

KIT = Kit(WORKUP_SCORER, verb="worked up")


class WorkupParameters(BaseModel):
    """The work-up's ``-S`` parameters."""

    model_config = ConfigDict(extra="forbid")

    prices: str | None = None
    classify: str | None = None


ACCEPTED = {
    "prices": "the path of a YAML price table (currency, categories, names), e.g. prices.yaml",
    "classify": "a model name provider/model that sorts the orders into categories",
}


def workup_value(result: Workup) -> dict[str, float | int]:
    """The score's value, the samples grid's three columns: the cost, the orders and those no
    rubric item asked for (left out without the rubric's verdicts). Unsupported, pending and
    unpriced orders are in the metadata (the Scoring tab, the report)."""
    value: dict[str, float | int] = {"cost": result.cost, "orders": len(result.orders)}
    if result.not_asked_for is not None:
        value["not_asked_for"] = result.not_asked_for
    return value


def turn_summary(result: Workup) -> str:
    """The work-up as the Scoring tab shows it: each order with its turn, category, cost and
    the rubric items that cite it."""
    necessity = (
        f", {result.not_asked_for} not asked for by the rubric (not the same as wrong)"
        if result.not_asked_for is not None
        else f" (necessity: {result.necessity})"
    )
    unpriced = f", {len(result.unpriced)} unpriced" if result.unpriced else ""
    lines = [
        f"Work-up: {len(result.orders)} orders, {money(result.cost, result.currency)}"
        f"{unpriced}{necessity}",
        "",
    ]
    for order in result.orders:
        cited = ", ".join(f"[{n}]" for n in order.cited_by) or "not asked for"
        mark = {"executed": "", "pending": " · pending", "unsupported": " · unsupported"}
        lines.append(
            f"- T{order.turn} · {category_name(order.category)} · "
            f"{money(order.cost, result.currency)}{mark[order.status]} · {cited} — "
            f"{order.order}"
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
    """Mean cost and orders per worked-up encounter, the share of orders no met rubric item
    cites (over encounters with rubric verdicts), and how many encounters were worked up."""

    def compute(scores: list[SampleScore]) -> Value:
        values: list[dict[str, float]] = [
            {
                k: float(n)
                for k, n in unnumbered(v, VALUE_KEYS).items()
                if isinstance(n, int | float)
            }
            for s in scores
            if isinstance(v := s.score.value, Mapping)
        ]
        if not values:
            return {"worked_up": 0}
        judged = [v for v in values if "not_asked_for" in v]
        orders = sum(v["orders"] for v in judged)
        out: dict[str, float] = {
            "cost_mean": sum(v["cost"] for v in values) / len(values),
            "orders_mean": sum(v["orders"] for v in values) / len(values),
        }
        if orders:
            out["not_asked_for_share"] = sum(v["not_asked_for"] for v in judged) / orders
        out["worked_up"] = len(values)
        return out

    return compute


@scorer(metrics=[workup_summary()], name=WORKUP_SCORER)
def medsp_workup(prices: str | None = None, classify: str | None = None, **unknown: Any) -> Scorer:
    """The work-up of each encounter: every order's category, its cost from a price table
    (``prices``: your own YAML table; default the shipped relative tiers), whether a met
    rubric item cites it, when each category was first ordered, the share of items met by
    each turn, unsupported orders and those pending at the end.

    Args:
        prices: A YAML price table (see ``orders/prices.yaml``); the shipped tiers if None.
        classify: A model that sorts the orders into categories; else the keyword table.
    """
    KIT.check(WorkupParameters, {"prices": prices, "classify": classify}, ACCEPTED, unknown)
    table: PriceTable = load_prices(prices)
    if classify is not None:
        try:
            get_model(classify)
        except Exception as error:  # a model that cannot be made here: one line, no traceback
            first = (
                str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            )
            raise MedSPDataError(
                f"{WORKUP_SCORER}: classify={classify} cannot be made here ({first}); give a "
                "model name provider/model whose provider is installed and whose key is set"
            ) from None

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
        if classify is not None:
            with KIT.metered() as meter:
                decided, _usable = await KIT.grading(
                    "work-up categories",
                    lambda: classify_orders(get_model(classify), actions),
                    {"model": classify, "orders": str(len(actions))},
                    lambda found: "usable reply" if found[1] else "unusable: keyword table used",
                )
            usage = meter.stored()
        verdicts, missing = rubric_verdicts(state)
        result = tally(
            traj,
            table,
            decided,
            verdicts,
            encounter.record.rubric.n_items,
            missing,
            classify,
        )
        return Score(
            value=KIT.numbered(workup_value(result), encounter.number),
            explanation=turn_summary(result),
            metadata={**result.model_dump(), **usage},
        )

    return work_up
