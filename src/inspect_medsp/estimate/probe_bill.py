"""``medsp-estimate medsp_contamination``: the contamination probe's calls, tokens and cost.

Every prompt is the one the probe will send (built from the scenarios selected); a reply is
assumed at its largest useful size (a continuation of ``following_words`` words, the whole
checklist recited, a number). The probe's prompts share no prefix of 1,024 tokens, so no
token is counted as cached."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from inspect_ai.model import ModelCost

from inspect_medsp.contamination import probe_calls
from inspect_medsp.estimate.prices import cost
from inspect_medsp.tokens import CHARS_PER_TOKEN, estimate_tokens
from inspect_medsp.workload import RoleEstimate

TASK = "medsp_contamination"


def is_probe_task(name: str) -> bool:
    """Whether ``name`` is the contamination probe's task."""
    return name.removeprefix("inspect_medsp/") == TASK


def probe_estimate(
    args: Mapping[str, Any], model: str | None, prices: dict[str, ModelCost] | None
) -> str:
    """The estimate's table for the probe run with task parameters ``args``.

    Raises:
        MedSPDataError: A bad parameter or unavailable data (the task's own line).
    """
    found = probe_calls(args)
    rows: dict[str, RoleEstimate] = {}
    for call in found.calls:
        row = RoleEstimate(
            calls=1,
            input_tokens=estimate_tokens(call.prompt_chars),
            output_tokens=estimate_tokens(call.reply_chars),
        )
        rows[call.probe] = rows.get(call.probe, RoleEstimate()).plus(row)
    name = model or "(unset)"
    lines = [
        f"ESTIMATE for {found.name}: {found.scenarios} scenarios probed, each probe asked "
        "twice (the case and its control)",
        "",
        f"{'probe':<26}{'model':<26}{'calls':>9}{'input tokens':>15}{'output tokens':>15}"
        + (f"{'list USD':>11}" if prices is not None else ""),
    ]
    total = RoleEstimate()
    for probe, row in [*rows.items(), ("total", RoleEstimate())]:
        if probe == "total":
            row = total
        else:
            total = total.plus(row)
        line = (
            f"{probe:<26}{'' if probe == 'total' else name:<26}{row.calls:>9,}"
            f"{row.input_tokens:>15,}{row.output_tokens:>15,}"
        )
        if prices is not None:
            line += f"{cost(row, prices[name]):>11,.2f}" if name in prices else f"{'n/a':>11}"
        lines.append(line)
    lines += [
        "",
        f"Assumed: {CHARS_PER_TOKEN:g} characters per token; the prompts as they will be sent; "
        "replies at their largest useful size (a continuation of following_words words, the "
        "whole checklist, a number); no retries; no hidden reasoning tokens; no prefix "
        "caching (the probe's prompts share no prefix of 1,024 tokens).",
    ]
    if prices is not None and name not in prices:
        lines.append(f"No price for {name} in --model-cost-config: its cost is n/a.")
    return "\n".join(lines)
