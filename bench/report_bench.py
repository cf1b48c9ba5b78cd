"""How long ``medsp-report`` takes on a full sweep: wall time, CPU time and peak memory for
reading the logs, analysing them and writing the report, and for ``medsp-report plan`` on two.

Usage (from the repository root)::

    python -m bench.report_bench [--logs 5] [--folder DIR [--reuse]] [--before OTHER/src]
        [--keep DIR]

It writes ``--logs`` full-size synthetic logs (``bench.synthetic_logs``: 1,548 scenarios from
595 cases, one epoch, each sample a copy of a real sample with its encounter record, messages,
events and attachments, items graded by the coverage bench's item model), then runs the report
in a fresh process for this checkout's code and, with ``--before``, for another checkout's
``src`` folder on the same logs in the same run, e.g. the main branch's::

    git archive main src | tar -x -C /tmp/medsp-main && \\
        python -m bench.report_bench --before /tmp/medsp-main/src

CPU time counts the report's worker processes too. Peak memory is the largest resident set of
the report's own process (after each phase, and overall), apart of its largest worker, and of
all its processes together: their resident sets (RSS) summed every 50 ms by this process, not
by the report's (the sampling costs the report no CPU), so a page a forked worker shares with
the report counts twice; the proportional sets (PSS, a shared page counted once) are summed
apart. Each run says whether it is within the goals: :data:`CPU_GOAL` seconds of CPU and
:data:`MEMORY_GOAL` MB of RSS summed (Linux only: elsewhere the sum is 0).
``--keep DIR`` keeps each code's report (``DIR/after``, ``DIR/before``) to compare them.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from bench.coverage_bench import Model
from bench.synthetic_logs import draw_population, full_sizes, logit_gap, votes, write_log

SRC = Path(__file__).resolve().parents[1] / "src"
SEED = 33

DRIVER = """
import json, resource, sys, time
from pathlib import Path

def now():
    s = resource.getrusage(resource.RUSAGE_SELF)
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.perf_counter(), s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime

import inspect_medsp
from inspect_medsp.full_report import SECTIONS
try:
    from inspect_medsp.report import analyse, collect, render_markdown, report_files
except ImportError:  # a tree from before the report's face exported them (--before)
    from inspect_medsp.report import collect
    from inspect_medsp.report.findings import analyse
    from inspect_medsp.report.section import render_markdown, report_files
import inspect_medsp.report.section as section

folder, out = sys.argv[1], Path(sys.argv[2])
out.mkdir(parents=True, exist_ok=True)
# what the sections make of each log while it is read, as write_report asks (older code: none)
digests = section.digests(SECTIONS) if hasattr(section, "digests") else None
phases = {}
peaks = {}
wall, cpu = now()
runs, problems = collect([folder], digests) if digests else collect([folder])
assert runs and not problems, problems
w, c = now(); phases["read"] = (w - wall, c - cpu); wall, cpu = w, c
peaks["read"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
analysis = analyse(runs, problems)
w, c = now(); phases["analyse"] = (w - wall, c - cpu); wall, cpu = w, c
peaks["analyse"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
files = report_files(analysis, SECTIONS)
for file in files:
    file.write(out / file.name)
(out / "report.md").write_text(render_markdown(analysis, SECTIONS, files=files))
w, c = now(); phases["write"] = (w - wall, c - cpu)
peaks["write"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({
    "code": inspect_medsp.__file__,
    "phases": phases,
    "peaks": peaks,
    "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    "worker_peak_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
    "logs": len(runs),
}))
"""


def write_logs(folder: Path, logs: int) -> list[Path]:
    """``logs`` full-size runs of models a little apart, over the same scenarios."""
    m = Model()
    rng = np.random.default_rng(SEED)
    pop = draw_population(full_sizes(), rng, m)
    paths = []
    for k in range(logs):
        shift = logit_gap(m, 1.5 * k)
        paths.append(
            write_log(
                folder / f"model-{k + 1}.eval",
                f"synth/model-{k + 1}",
                pop,
                votes(pop, shift, rng, m),
                heavy=True,
            )
        )
    return paths


def _env(src: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(src)}


def _tree(pid: int) -> list[int]:
    """``pid`` and its descendants (Linux ``/proc``; none elsewhere)."""
    found = [pid]
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children", encoding="ascii") as f:
                for child in f.read().split():
                    found += _tree(int(child))
    except OSError:
        pass
    return found


def _memory(pid: int) -> tuple[float, float]:
    """The resident set (RSS) and proportional set (PSS) of a process, in MB (0 when gone)."""
    rss = pss = 0.0
    try:
        with open(f"/proc/{pid}/smaps_rollup", encoding="ascii") as f:
            for line in f:
                if line.startswith("Rss:"):
                    rss = int(line.split()[1]) / 1024
                elif line.startswith("Pss:"):
                    pss = int(line.split()[1]) / 1024
    except OSError:
        pass
    return rss, pss


def report(src: Path, folder: Path, keep: Path | None = None) -> dict[str, object]:
    """The report's phases on ``folder`` with the code in ``src``, in a fresh process (the
    report written into ``keep`` when given, else into a folder deleted afterwards), with the
    peak memory of its whole process tree: every 50 ms this process sums the RSS (and, apart,
    the PSS) of the report's process and its workers, so the sampling costs the report no
    CPU."""
    rss_peak = pss_peak = 0.0
    with tempfile.TemporaryDirectory() as scratch:
        out = str(keep or scratch)
        with subprocess.Popen(
            [sys.executable, "-c", DRIVER, str(folder), out],
            env=_env(src),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        ) as child:
            while child.poll() is None:
                sizes = [_memory(p) for p in _tree(child.pid)]
                rss_peak = max(rss_peak, sum(r for r, _ in sizes))
                pss_peak = max(pss_peak, sum(p for _, p in sizes))
                time.sleep(0.05)
            stdout, stderr = child.communicate()
        if child.returncode:
            raise SystemExit(f"the report failed ({src}):\n{stderr}")
    found: dict[str, object] = json.loads(stdout.strip().splitlines()[-1])
    found["tree_rss_mb"] = rss_peak
    found["tree_pss_mb"] = pss_peak
    return found


PLAN_DRIVER = """
import json, resource, sys, time, contextlib, io
from inspect_medsp.cli import main
start = time.perf_counter()
with contextlib.redirect_stdout(io.StringIO()):
    assert main(["plan", *sys.argv[1:]]) == 0
s = resource.getrusage(resource.RUSAGE_SELF)
c = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps([time.perf_counter() - start, s.ru_utime + s.ru_stime + c.ru_utime
                  + c.ru_stime, max(s.ru_maxrss, c.ru_maxrss) / 1024]))
"""


def plan(src: Path, logs: list[Path]) -> tuple[float, float, float]:
    """Wall, CPU (its workers included) and peak memory (MB) of ``medsp-report plan`` on
    ``logs``, in a fresh process."""
    done = subprocess.run(
        [sys.executable, "-c", PLAN_DRIVER, *map(str, logs)],
        env=_env(src),
        capture_output=True,
        text=True,
        check=True,
    )
    wall, cpu, peak = json.loads(done.stdout.strip().splitlines()[-1])
    return float(wall), float(cpu), float(peak)


CPU_GOAL = 30.0
"""Seconds of CPU, the report's workers included, that a full sweep's report may take."""
MEMORY_GOAL = 600.0
"""MB that the report's whole process tree may hold at its peak (RSS summed)."""


def _within(value: float, goal: float) -> str:
    return "within" if value <= goal else "OVER"


def _row(name: str, found: dict[str, object]) -> list[str]:
    phases = found["phases"]
    assert isinstance(phases, dict)
    peaks = found.get("peaks") or {}
    assert isinstance(peaks, dict)
    lines = []
    total_wall = total_cpu = 0.0
    for phase in ("read", "analyse", "write"):
        wall, cpu = phases[phase]
        total_wall += wall
        total_cpu += cpu
        peak = f"{peaks[phase]:.0f} (so far)" if phase in peaks else ""
        lines.append(f"| {name} | {phase} | {wall:.1f} | {cpu:.1f} | {peak} | |")
    tree = float(found["tree_rss_mb"])  # type: ignore[arg-type]
    peak = f"{found['peak_mb']:.0f} (largest worker {found['worker_peak_mb']:.0f})"
    lines.append(
        f"| {name} | **all** | **{total_wall:.1f}** | **{total_cpu:.1f}** | {peak} | "
        f"**{tree:.0f}** (PSS {found['tree_pss_mb']:.0f}) |"
    )
    lines.append(
        f"| {name} | goal | | {_within(total_cpu, CPU_GOAL)} {CPU_GOAL:.0f} s | | "
        f"{_within(tree, MEMORY_GOAL)} {MEMORY_GOAL:.0f} MB |"
    )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--logs", type=int, default=5)
    parser.add_argument("--folder", default=None, help="write the logs here (kept)")
    parser.add_argument("--before", default=None, metavar="SRC", help="another checkout's src")
    parser.add_argument(
        "--reuse", action="store_true", help="read the logs already in --folder (not written)"
    )
    parser.add_argument(
        "--keep", default=None, metavar="DIR", help="write each code's report into DIR/<code>"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(args.folder or scratch) / "logs"
        start = time.perf_counter()
        kept = sorted(folder.glob("model-*.eval"))[: args.logs]
        logs = kept if args.reuse and len(kept) == args.logs else write_logs(folder, args.logs)
        size = sum(p.stat().st_size for p in logs) / len(logs) / 1e6
        print(
            f"wrote {len(logs)} full-size logs (1,548 scenarios, one epoch, {size:.0f} MB "
            f"each) in {time.perf_counter() - start:.0f} s; {os.cpu_count()} cores",
            flush=True,
        )
        codes = [("after", SRC)] + ([("before", Path(args.before))] if args.before else [])
        lines = [
            "| code | phase | wall (s) | CPU (s, all processes) | peak RSS (MB): report "
            "process | peak RSS (MB): all processes summed |",
            "|---|---|---|---|---|---|",
        ]
        plans = []
        for name, src in codes:
            keep = Path(args.keep) / name if args.keep else None
            found = report(src, folder, keep)
            print(f"{name}: medsp-report from {found['code']}", flush=True)
            lines += _row(name, found)
            print("\n".join(_row(name, found)), flush=True)
            plans.append((name, plan(src, logs[:2])))
            wall, cpu, peak = plans[-1][1]
            print(f"{name}: plan {wall:.1f} s wall, {cpu:.1f} s CPU, {peak:.0f} MB", flush=True)
        print()
        print(f"medsp-report on {len(logs)} full-size logs:")
        print("\n".join(lines))
        print()
        print("medsp-report plan on two of them:")
        print("| code | wall (s) | CPU (s) | peak memory (MB) |")
        print("|---|---|---|---|")
        for name, (wall, cpu, peak) in plans:
            print(f"| {name} | {wall:.1f} | {cpu:.1f} | {peak:.0f} |")


if __name__ == "__main__":
    main()
