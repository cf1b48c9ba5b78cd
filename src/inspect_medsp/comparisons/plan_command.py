"""``medsp-report plan LOG [LOG ...] [--detect 0.03] [--model-cost-config FILE]``."""

from __future__ import annotations

import argparse
import contextlib
import sys

from inspect_medsp.commandline import Command
from inspect_medsp.errors import MedSPDataError


def arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("logs", nargs="+", metavar="LOG_OR_DIR", help="Inspect logs or folders")
    p.add_argument(
        "--detect",
        type=float,
        default=0.03,
        help="difference in macro completion to detect, as a share (default 0.03: 3 points)",
    )
    p.add_argument(
        "--model-cost-config",
        default=None,
        metavar="FILE",
        help="prices in Inspect's --model-cost-config format (YAML or JSON, $ per 1M tokens)",
    )


def run(args: argparse.Namespace) -> int:
    """Print the plan; bad input is one line on stderr and exit 2."""
    if not 0 < args.detect < 1:
        print(
            f"medsp-report plan: --detect {args.detect}: give a share between 0 and 1 "
            "(0.03 is 3 points)",
            file=sys.stderr,
        )
        return 2
    from inspect_medsp.comparisons.plan_report import make_plan, render_plan
    from inspect_medsp.estimate import load_prices
    from inspect_medsp.report import ShardSetRefused, analyse, collect

    try:
        prices = load_prices(args.model_cost_config) if args.model_cost_config else None
    except MedSPDataError as err:
        print(f"medsp-report plan: {err}", file=sys.stderr)
        return 2
    runs, problems = collect(args.logs)
    for problem in problems:
        print(f"medsp-report plan: error: {problem.line()}", file=sys.stderr)
    if not runs:
        print("medsp-report plan: nothing could be read", file=sys.stderr)
        return 1
    try:
        analysis = analyse(runs, problems)
    except ShardSetRefused as err:
        print(f"medsp-report plan: error: {err}", file=sys.stderr)
        return 1
    plan = make_plan(analysis, args.detect, prices)
    with contextlib.suppress(BrokenPipeError):
        print(render_plan(plan), end="")
    return 0


PLAN = Command(
    name="plan",
    help="the interval, detectable difference, scenarios and cost to plan a run",
    description=(
        "From one or more MedSP runs (typically medsp100): the interval and detectable "
        "difference to expect on the full 1,548 scenarios, the scenarios and epochs a "
        "comparison of two runs needs to detect a difference, and its cost."
    ),
    arguments=arguments,
    run=run,
)
