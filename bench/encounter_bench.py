"""Cost of the harness: run the demo scenarios with scripted roles and count what is sent.

Usage (from the repository root): ``python -m bench.encounter_bench [--turns 12]``

Every role replies with valid JSON at once, and the controller never ends the case, so each
scenario runs the full turn budget. Printed per role: model calls, prompt characters sent
(all messages of every call, as a provider would receive them) and characters per turn;
per scenario: turns and harness CPU time (the whole run's process CPU time, which with
scripted models is the harness itself); per sample: the store events the log holds (Inspect's
``StoreEvent``, their number and JSON bytes) and the size of the log file per sample.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import NamedTuple

from inspect_ai import eval
from inspect_ai.event import StoreEvent
from inspect_ai.log import EvalLog
from tests.support import offline_tokens
from tests.support.scripts import Script, clinician, environment, patient

from inspect_medsp import medsp_demo

ROLES = ("clinician", "patient", "environment", "grader")


def _scripts() -> dict[str, Script]:
    return {
        "clinician": Script([clinician("Can you tell me more?", ["check vital signs"])]),
        "patient": Script([patient("It started about an hour ago.")]),
        "environment": Script(
            [environment(0, "initial_assessment", feedback=["HR 98, BP 124/78, SpO2 97%"])]
        ),
        "grader": Script([{"reasoning": ["scripted"], "PC": {}}]),
    }


class LogSize(NamedTuple):
    """What one scenario's log holds per sample."""

    samples: int
    store_events: float
    store_bytes: float
    log_bytes: float


def log_size(log: EvalLog) -> LogSize:
    """Store events (number and JSON bytes) and log-file bytes, averaged over the samples."""
    samples = log.samples or []
    n = max(len(samples), 1)
    events = [e for s in samples for e in s.events if isinstance(e, StoreEvent)]
    size = Path(log.location).stat().st_size
    return LogSize(
        samples=len(samples),
        store_events=len(events) / n,
        store_bytes=sum(len(e.model_dump_json()) for e in events) / n,
        log_bytes=size / n,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=12)
    args = parser.parse_args()
    offline_tokens.install()

    rows: list[tuple[str, int, float, dict[str, tuple[int, int]]]] = []
    sizes: dict[str, LogSize] = {}
    for scenario in ("demo_anaphylaxis/*", "demo_bad_news/*", "demo_peds_asthma/*"):
        scripts = _scripts()
        start = time.process_time()
        with tempfile.TemporaryDirectory() as logs:
            [log] = eval(
                medsp_demo(scenarios=scenario, judge="mockllm/model", max_turns=args.turns),
                model=scripts["clinician"].model(),
                model_roles={r: scripts[r].model() for r in ROLES[1:]},
                log_dir=logs,
                display="none",
            )
            cpu = time.process_time() - start
            sizes[scenario.split("/")[0]] = log_size(log)
        per_role = {
            r: (len(s.calls), sum(len(m.text) for call in s.calls for m in call))
            for r, s in scripts.items()
        }
        rows.append((scenario.split("/")[0], args.turns, cpu, per_role))

    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    print(f"{'scenario':<20}{'turns':>6}{'cpu s':>8}{'cpu ms/turn':>13}")
    for name, turns, cpu, per_role in rows:
        print(f"{name:<20}{turns:>6}{cpu:>8.2f}{1000 * cpu / turns:>13.1f}")
        for r, (calls, chars) in per_role.items():
            totals[r][0] += calls
            totals[r][1] += chars
    n_turns = sum(r[1] for r in rows)
    print()
    print(f"{'scenario':<20}{'samples':>8}{'store events':>14}{'store bytes':>13}{'log bytes':>11}")
    for name, size in sizes.items():
        print(
            f"{name:<20}{size.samples:>8}{size.store_events:>14.1f}"
            f"{size.store_bytes:>13,.0f}{size.log_bytes:>11,.0f}"
        )
    print("(store events, store bytes and log bytes are per sample)")
    print()
    print(f"{'role':<13}{'calls':>7}{'prompt chars':>15}{'chars/turn':>12}{'chars/call':>12}")
    for r in ROLES:
        calls, chars = totals[r]
        print(f"{r:<13}{calls:>7}{chars:>15,}{chars // n_turns:>12,}{chars // max(calls, 1):>12,}")


if __name__ == "__main__":
    main()
