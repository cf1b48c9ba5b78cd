"""One run in one process against the same run in N parts (``-T shard=K/N``), each part its
own ``inspect eval`` process: wall time, CPU and the report's numbers of each.

The scripted demo is played through Inspect's ``openai-api`` provider against
``bench.cache_bench``'s OpenAI-compatible server on 127.0.0.1, which answers every request
after a fixed delay (``--latency``). Both arms run the same command line, with the same
``--max-connections`` and ``--max-samples`` per process; the parts run at once and write to
``<run>.shards/<K>/``. CPU is the user and system time of the ``inspect eval`` processes
(start-up included), read from the operating system once they have exited; the server's own
CPU (this process) is shown apart. The report's numbers come from ``medsp-report``'s
analysis of each arm's logs: the parts must give the one-process run's numbers.

    python -m bench.shard_bench [--parts 2] [--epochs 16] [--latency 0.2] [--connections 48]
        [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from bench.cache_bench import Ledger, flatten, scripted_server
from inspect_medsp.report import analyse, collect

SERVICE = "shardbench"
ROLES = ("patient", "environment", "grader")


class Tally(Ledger):
    """The cache bench's ledger, counting requests only: this bench times the run, and the
    cache bill (each prompt compared with every earlier one) would make the server the
    slowest part of it."""

    def bill(self, model: str, messages: Sequence[dict[str, Any]], output: str) -> tuple[int, int]:
        with self.lock:
            self.bills[model].requests += 1
        return len(flatten(messages)), 0


@dataclass
class Arm:
    """What one arm of the bench took and what its report says."""

    name: str
    processes: int
    wall: float
    """Seconds from the first process started to the last one ended."""
    cpu: float
    """User and system seconds of the ``inspect eval`` processes."""
    server_cpu: float
    """User and system seconds of this process (the local server) meanwhile."""
    calls: int
    samples: int
    scored: int
    macro: float | None
    micro: float | None

    @property
    def cpu_per_call(self) -> float:
        return self.cpu / self.calls if self.calls else float("nan")

    @property
    def calls_per_second(self) -> float:
        return self.calls / self.wall if self.wall else float("nan")


def command(log_dir: Path, epochs: int, connections: int, shard: str | None) -> list[str]:
    """The ``inspect eval`` command line of one process (the README's, with the demo's
    models on the local server)."""
    line = [
        sys.executable, "-m", "inspect_ai", "eval", "inspect_medsp/medsp_demo",
        "--model", f"openai-api/{SERVICE}/clinician",
        *[a for r in ROLES for a in ("--model-role", f"{r}=openai-api/{SERVICE}/{r}")],
        "--epochs", str(epochs),
        "--max-connections", str(connections), "--max-samples", str(connections),
        "--log-dir", str(log_dir), "--display", "none",
    ]  # fmt: skip
    return [*line, "-T", f"shard={shard}"] if shard else line


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def run_arm(
    name: str, root: Path, parts: int, epochs: int, connections: int, latency: float
) -> Arm:
    """Run the demo in ``parts`` processes (1: the whole run, no ``shard``) and report it."""
    ledger = Tally()
    with scripted_server(ledger, latency=latency) as url:
        env = {**os.environ, f"{SERVICE.upper()}_BASE_URL": url, f"{SERVICE.upper()}_API_KEY": "x"}
        folder = root / name
        lines = (
            [command(folder, epochs, connections, None)]
            if parts == 1
            else [
                command(folder / "run.shards" / str(k), epochs, connections, f"{k}/{parts}")
                for k in range(1, parts + 1)
            ]
        )
        cpu, server, start = children_cpu(), own_cpu(), time.monotonic()
        running = [subprocess.Popen(line, env=env) for line in lines]
        codes = [p.wait() for p in running]
        wall = time.monotonic() - start
        cpu, server = children_cpu() - cpu, own_cpu() - server
    if any(codes):
        raise SystemExit(f"the {name} arm failed: exit codes {codes}")
    runs, problems = collect([folder])
    if problems:
        raise SystemExit(f"the {name} arm's logs: {'; '.join(p.line() for p in problems)}")
    group = analyse(runs).groups[0]
    return Arm(
        name=name,
        processes=parts,
        wall=wall,
        cpu=cpu,
        server_cpu=server,
        calls=sum(b.requests for b in ledger.bills.values()),
        samples=len(group.samples),
        scored=sum(s.scored for s in group.samples),
        macro=group.metric("macro"),
        micro=group.metric("micro"),
    )


def table(arms: Sequence[Arm]) -> str:
    lines = [
        "| run | processes | wall s | CPU s (inspect) | CPU ms / call | calls | calls / s "
        "| server CPU s | samples scored | macro | micro |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for a in arms:
        macro = "n/a" if a.macro is None else f"{a.macro:.4f}"
        micro = "n/a" if a.micro is None else f"{a.micro:.4f}"
        lines.append(
            f"| {a.name} | {a.processes} | {a.wall:.1f} | {a.cpu:.1f} | "
            f"{1000 * a.cpu_per_call:.0f} | {a.calls} | {a.calls_per_second:.1f} | "
            f"{a.server_cpu:.1f} | {a.scored} of {a.samples} | {macro} | {micro} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.shard_bench", description=__doc__)
    parser.add_argument("--parts", type=int, default=2, help="parts of the second arm (2)")
    parser.add_argument("--epochs", type=int, default=16, help="epochs of the demo (16)")
    parser.add_argument(
        "--latency", type=float, default=0.2, help="seconds the server waits per call (0.2)"
    )
    parser.add_argument(
        "--connections",
        type=int,
        default=48,
        help="--max-connections and --max-samples of every process (48)",
    )
    parser.add_argument("--json", metavar="FILE", help="also write the arms as JSON")
    args = parser.parse_args(argv)
    if not 1 <= args.parts <= 3:
        parser.error("--parts: the demo has 3 scenarios, so 1 to 3 parts")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        arms = [
            run_arm("one process", root, 1, args.epochs, args.connections, args.latency),
            run_arm(
                f"{args.parts} parts",
                root,
                args.parts,
                args.epochs,
                args.connections,
                args.latency,
            ),
        ]
    print(
        f"medsp_demo, {args.epochs} epochs, {args.latency} s per call, "
        f"{args.connections} connections per process, {os.cpu_count()} cores seen"
    )
    print(table(arms))
    if args.json:
        out = json.dumps([asdict(a) for a in arms], indent=2)
        Path(args.json).write_text(out, encoding="utf-8")


if __name__ == "__main__":
    main()
