"""``medsp-estimate TASK [-T name=value ...]``: calls, tokens and cost per role, before a run."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Sequence
from typing import Any

from inspect_ai.model import ModelCost

from inspect_medsp.commandline import USAGE_ERROR, Parser, parse_task_args
from inspect_medsp.data import BASELINE
from inspect_medsp.errors import PrerequisiteError
from inspect_medsp.estimate.prices import cached_cost, cost, load_prices
from inspect_medsp.estimate.probe_bill import is_probe_task, probe_estimate
from inspect_medsp.estimate.selection import TASKS, Selection, from_rubrics, from_task
from inspect_medsp.tokens import CHARS_PER_TOKEN
from inspect_medsp.workload import (
    GRADING_ROLES,
    PROBES,
    ROLES,
    Assumptions,
    Estimate,
    estimate_records,
)

ROLE_LABELS = {"strategy": "strategy extras", "probes": "grader probes"}
BATCH_DISCOUNT = 0.5
"""What a provider's batch API charges against its list price (OpenAI, Anthropic and Google:
half)."""
CACHING = (
    "Prompt caching: OpenAI caches a repeated prefix of 1,024+ tokens automatically; "
    "Anthropic and Bedrock (Claude, Nova) cache it because Inspect's cache_prompt is on by "
    "default (--cache-prompt false turns it off); for other providers check whether they "
    "cache prefixes before counting on the cached column."
)


def parser() -> Parser:
    p = Parser(
        prog="medsp-estimate",
        description=(
            "Estimate the model calls, tokens and (given prices) cost of a MedSP run per role, "
            "before running it."
        ),
    )
    p.add_argument(
        "task",
        help=f"one of {', '.join(TASKS)} or medsp_contamination (optionally inspect_medsp/...)",
    )
    p.add_argument(
        "-T",
        dest="task_args",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a task parameter, as for inspect eval (data_dir, scenarios, max_turns, ...)",
    )
    p.add_argument("--model", default=None, help="the model under test (the clinician)")
    p.add_argument(
        "--model-role",
        action="append",
        default=[],
        metavar="ROLE=MODEL",
        help="the model of patient, environment or grader (default: the task's judge)",
    )
    p.add_argument(
        "--model-cost-config",
        default=None,
        metavar="FILE",
        help="prices in Inspect's --model-cost-config format (YAML or JSON, $ per 1M tokens)",
    )
    p.add_argument(
        "--turns",
        type=int,
        default=None,
        help="turns per encounter to assume (default: max_turns, an upper bound)",
    )
    p.add_argument(
        "--reply-scale",
        type=float,
        default=1.0,
        help="multiply the assumed reply sizes (wordier models: 1.5, 2, ...)",
    )
    p.add_argument(
        "--probes",
        default=None,
        metavar="NAMES",
        help=f"also the grader probes scored afterwards (comma-separated: {','.join(PROBES)})",
    )
    p.add_argument(
        "--grade-in-batch",
        action="store_true",
        help="the grader, auditor and probe calls go through the provider's batch API "
        f"(inspect score with batch on the grader role): priced at {BATCH_DISCOUNT:g} of list",
    )
    p.add_argument(
        "--assume-packets",
        choices=["demo"],
        default=None,
        help="without the scenario data: take packets the mean size of the demo packets",
    )
    return p


def _pairs(values: Sequence[str], flag: str) -> dict[str, Any]:
    """``name=value`` options; ``-T`` values parsed as ``inspect eval -T`` parses them."""
    for value in values:
        key, sep, _ = value.partition("=")
        if not sep or not key.strip():
            raise PrerequisiteError(f"{flag} {value!r}: write it as name=value")
    if flag == "-T":
        return parse_task_args(values)
    return {k.strip(): v for k, _, v in (value.partition("=") for value in values)}


def probe_names(value: str | None) -> list[str]:
    """The probes of ``--probes``, checked."""
    if value is None:
        return []
    names = [n.strip() for n in value.split(",") if n.strip()]
    for name in names:
        if name not in PROBES:
            raise PrerequisiteError(f"--probes {name}: the probes are {', '.join(PROBES)}")
    return names


def role_models(selection: Selection, model: str | None, roles: dict[str, str]) -> dict[str, str]:
    """The model of every row: ``--model`` for the clinician and its strategy, else the
    ``--model-role`` binding or the task's judge."""
    unknown = set(roles) - {"patient", "environment", "grader", "auditor"}
    if unknown:
        raise PrerequisiteError(
            f"--model-role {sorted(unknown)[0]}: roles are patient, environment, grader and "
            "auditor"
        )
    clinician = model or "(unset)"
    grader = roles.get("grader", selection.judge)
    return {
        "clinician": clinician,
        "strategy": clinician,
        **{r: roles.get(r, selection.judge) for r in ("patient", "environment")},
        "grader": grader,
        "probes": grader,
        "auditor": roles.get("auditor", grader),
    }


def render(
    selection: Selection,
    estimate: Estimate,
    models: dict[str, str],
    prices: dict[str, ModelCost] | None,
    batch: bool = False,
) -> str:
    """The estimate as a table with its assumptions; ``batch``: the grading rows at the batch
    price.

    Long because it writes the printout top to bottom (header, one row per role,
    totals, the assumptions' lines), each line next to the figures it prints; split, the
    order of the printout would be spread over functions that each print a part of it."""
    a = estimate.assumptions
    s = estimate.strategy
    strategy: str = s.strategy
    if strategy == "bon":
        strategy += f" (n={s.n})"
    elif strategy == "medagents":
        strategy += f" (experts={s.experts}, consensus_rounds={s.consensus_rounds})"
    turns = (
        f"{estimate.turns} turns per encounter (assumed with --turns)"
        if a.turns
        else f"{estimate.turns} turns per encounter (max_turns: every encounter runs to the "
        "limit, an upper bound)"
    )
    played = {r.variant_name for r in selection.records}
    what = f"{estimate.scenarios} scenarios"
    if played != {BASELINE}:
        # one encounter per (scenario, variant)
        scenarios = len({r.id for r in selection.records})
        what = (
            f"{estimate.scenarios} encounters ({scenarios} scenarios, {len(played)} patient "
            "variants)"
        )
    lines = [
        f"ESTIMATE for {selection.name}: {what}, {estimate.items} rubric "
        f"items; strategy {strategy}; {turns}",
        *([selection.note] if selection.note else []),
        "",
    ]
    header = (
        f"{'role':<17}{'model':<26}{'calls':>9}{'input tokens':>15}{'of them cached':>16}"
        f"{'output tokens':>15}"
    )
    if prices is not None:
        header += f"{'list USD':>11}{'cached USD':>12}"
    lines.append(header)
    totals: list[float] | None = [0.0, 0.0]
    missing: list[str] = []
    for role in (*ROLES, "total"):
        row = estimate.total if role == "total" else estimate.roles[role]
        if role in ("strategy", "auditor", "probes") and row.calls == 0:
            continue
        model = "" if role == "total" else models[role]
        line = (
            f"{ROLE_LABELS.get(role, role):<17}{model:<26}{row.calls:>9,}"
            f"{row.input_tokens:>15,}{row.cached_tokens:>16,}{row.output_tokens:>15,}"
        )
        if prices is not None:
            if role == "total":
                line += (
                    f"{totals[0]:>11,.2f}{totals[1]:>12,.2f}"
                    if totals is not None
                    else f"{'n/a':>11}{'n/a':>12}"
                )
            elif model in prices:
                discount = BATCH_DISCOUNT if batch and role in GRADING_ROLES else 1.0
                listed = cost(row, prices[model], discount)
                cached = cached_cost(row, prices[model], discount)
                line += f"{listed:>11,.2f}{cached:>12,.2f}"
                totals = None if totals is None else [totals[0] + listed, totals[1] + cached]
            else:
                line += f"{'n/a':>11}{'n/a':>12}"
                totals = None
                missing.append(model)
        lines.append(line)
    lines += [
        "",
        f"Assumed: {CHARS_PER_TOKEN:g} characters per token; packet sizes from "
        f"{selection.packets}; replies of the demo scripts' mean size x{a.reply_scale:g} "
        f"(clinician {a.size(a.clinician_reply)}, patient {a.size(a.patient_reply)}, "
        f"environment {a.size(a.environment_reply)} characters, grader "
        f"{a.size(a.grader_per_item)} per item); no retries; no hidden reasoning tokens.",
        "Cached: the part of each prompt that repeats an earlier request's prefix of "
        f"{a.min_cached_tokens:,}+ tokens (each role's history, and its instructions from the "
        "second scenario on).",
    ]
    if prices is not None:
        lines.append(
            "list USD: every input token at the input price. cached USD: cached tokens at "
            "input_cache_read, the rest of the input at input_cache_write."
        )
        if batch:
            lines.append(
                f"Grader, auditor and probe rows at {BATCH_DISCOUNT:g} of those prices (the "
                "batch API, graded afterwards with inspect score)."
            )
    lines.append(CACHING)
    for model in sorted(set(missing)):
        lines.append(f"No price for {model} in --model-cost-config: its cost is n/a.")
    if selection.protocol != "turns":
        lines.append(f"protocol={selection.protocol}: estimated as for the turns protocol.")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Print the estimate; one line and exit 2 on bad input."""
    args = parser().parse_args(argv)
    try:
        task_args = _pairs(args.task_args, "-T")
        roles = _pairs(args.model_role, "--model-role")
        prices = load_prices(args.model_cost_config) if args.model_cost_config else None
        if args.turns is not None and args.turns < 1:
            raise PrerequisiteError(f"--turns {args.turns}: use a whole number of 1 or more")
        if args.reply_scale <= 0:
            raise PrerequisiteError(f"--reply-scale {args.reply_scale}: use a number above 0")
        probes = probe_names(args.probes)
        if is_probe_task(args.task):  # the contamination probe: its own calls, one model
            with contextlib.suppress(BrokenPipeError):
                print(probe_estimate(task_args, args.model, prices))
            return 0
        build = from_rubrics if args.assume_packets == "demo" else from_task
        selection = build(args.task, task_args)
        models = role_models(selection, args.model, roles)
    except (PrerequisiteError, ValueError, TypeError) as err:
        if isinstance(err, PrerequisiteError):
            message = str(err.message)
        else:  # raised while building the task: name what it was given
            given = " ".join(f"-T {a}" for a in args.task_args)
            message = f"{args.task} {given}: {err}"
        print(f"medsp-estimate: {' '.join(str(message).split())}", file=sys.stderr)
        return USAGE_ERROR
    estimate = estimate_records(
        selection.records,
        selection.max_turns,
        selection.settings,
        Assumptions(turns=args.turns, reply_scale=args.reply_scale),
        audit=selection.audit,
        grader_samples=selection.grader_samples,
        probes=probes,
    )
    with contextlib.suppress(BrokenPipeError):  # e.g. piped into head
        print(render(selection, estimate, models, prices, args.grade_in_batch))
    return 0


if __name__ == "__main__":
    sys.exit(main())
