"""The report's statistical claims checked on an independent simulation: held-out set 1
(``bench/heldout_simulation.py``, written blind by an independent helper; looked at since,
so now tuning data) or held-out set 2 (``bench/heldout_simulation2.py``, written blind by
another), or any module in ``bench/`` with the same interface (``paired``, ``groups``,
``two_graders``, ``perturbed``, ``one_run``, ``pilot``, ``Encounters``, ``COMPETENCIES``),
used as it is, never edited.

Usage (from the repository root)::

    python -m bench.heldout_checks --simulation heldout_simulation2 --replicates 200 \
        [--only mdd,holm,oracle,coverage,plan,bounds]

Each check feeds the simulation's plain data (per-scenario items met, their competencies and
cases) to the package's own estimators, as the report would, and compares with the
simulation's truths:

- ``mdd``: the paired difference's ``mdd`` with the groups in either order (must be equal), and
  the power in the true difference's direction at the printed ``mdd`` (the mean over null
  pairs), for each direction, and at each pair's own ``mdd``;
- ``holm``: 14 groups on 100 cases, a planted 25-point competency difference: the share of
  planted rows starred (detectable after Holm, in the right direction), and the family-wise
  error with nothing planted (any row starred);
- ``oracle``: what any test could star among the planted rows of ``holm``: per competency,
  the true SD of a planted row's estimated difference (over fresh replicates of the two
  groups on 100 cases), and the power of a z-test that knows it, at Holm's first-step level
  (5% over the 546 competency rows) and at the most lenient level a planted row can face
  (5% over 534: the other 12 planted rows rejected first);
- ``coverage``: 95% intervals of the agreement share, the macro shift between graders, the
  flip rates (up and down) and one run's macro, at 6, 10, 15 and 30 cases;
- ``plan``: how often the plan's 10th-90th percentile range of the full-set ``mdd`` holds the
  truth, from an 85-case pilot, with the simulation's usual and near-zero intra-case
  correlation;
- ``bounds``: every interval the statistics give on 6-case and 100-case data inside what is
  possible ([-100, 100] points for a difference, [0, 100]% for a share).

Every figure is printed with its binomial standard error (``+/-``).
"""

from __future__ import annotations

import argparse
import importlib
import math
import time
from collections.abc import Callable, Sequence
from statistics import NormalDist

import numpy as np

from bench import heldout_simulation as sim
from inspect_medsp.agreement.kappa import agreement
from inspect_medsp.comparisons.plan_report import pair_ranges
from inspect_medsp.record.read import MedspSample, MedspScore, SampleMetadata
from inspect_medsp.record.score import ScoreMetadata, ScoreValue
from inspect_medsp.scoring.clustered import clustered_ratio
from inspect_medsp.scoring.metrics import mean_ci
from inspect_medsp.stats import OVERALL, Pairing, paired_difference, pairwise, scenario_values
from inspect_medsp.stats.paired import Paired, paired_differences

SEED = 4711
Row = tuple[str, str, int, float, str]
"""(check, design, replicates, figure, note)."""


def _se(share: float, n: int) -> float:
    return math.sqrt(max(share * (1 - share), 1e-12) / max(n, 1))


def completion(e: sim.Encounters) -> np.ndarray:
    """Per-scenario completion (items met over items)."""
    return np.array([float(m.mean()) for m in e.met])


def clusters(e: sim.Encounters) -> list[str]:
    return [f"c{c}" for c in e.case_of]


def samples(e: sim.Encounters, prefix: str = "s") -> list[MedspSample]:
    """The encounters as the report reads them: one scored sample per scenario, with its
    overall and per-competency counts."""
    out = []
    for i, (case, met, comp) in enumerate(zip(e.case_of, e.met, e.competency, strict=True)):
        counts = {OVERALL: (int(met.sum()), len(met))}
        for c in sorted(set(comp.tolist())):
            mine = met[comp == c]
            counts[str(c)] = (int(mine.sum()), len(mine))
        out.append(
            MedspSample(
                id=f"{prefix}{i}",
                metadata=SampleMetadata(case_id=f"c{case}"),
                score=MedspScore(value=ScoreValue.of(counts), metadata=ScoreMetadata()),
            )
        )
    return out


def _tested(a: sim.Encounters, b: sim.Encounters) -> Paired:
    """The paired test of ``b - a`` without its ``mdd`` (a power run needs only the test)."""
    pairing = Pairing(completion(a), completion(b), clusters(a))
    return paired_differences([pairing], detectable=False)[0]


def _detected(p: float, difference: float, truth: float) -> bool:
    return p < 0.05 and math.copysign(1.0, difference) == math.copysign(1.0, truth)


def _found(n: int, delta: float, rng: np.random.Generator) -> bool | None:
    """Whether a fresh pair on ``n`` cases with true difference ``delta`` points is detected
    in its direction; None when the simulation cannot make that difference (a shift beyond
    what its models' completion allows raises ValueError there)."""
    try:
        a, b, truth = sim.paired(n, delta, rng)
    except ValueError:
        return None
    r = _tested(a, b)
    return _detected(r.p_value, r.difference, truth)


def _power_row(check: str, n: int, outcomes: Sequence[bool | None], note: str) -> Row:
    made = [o for o in outcomes if o is not None]
    left = len(outcomes) - len(made)
    if left:
        note = (note + "; " if note else "") + (
            f"{left} of {len(outcomes)} differences beyond what the simulation can make"
        )
    return (check, f"{n} cases", len(made), sum(made) / len(made) if made else math.nan, note)


def mdd_rows(replicates: int, rng: np.random.Generator) -> list[Row]:
    """mdd symmetry and power at the printed mdd, 6 to 12 cases."""
    rows: list[Row] = []
    for n in (6, 8, 10, 12):
        equal = 0
        mdds: list[float] = []
        for _ in range(replicates):
            a, b, _truth = sim.paired(n, 0.0, rng)
            va, vb, cl = completion(a), completion(b), clusters(a)
            ab, ba = paired_difference(va, vb, cl), paired_difference(vb, va, cl)
            both_nan = math.isnan(ab.mdd) and math.isnan(ba.mdd)
            equal += both_nan or abs(ab.mdd - ba.mdd) <= 1e-12
            if not math.isnan(ab.mdd):
                mdds.append(ab.mdd)
        rows.append(("mdd(a, b) = mdd(b, a)", f"{n} cases", replicates, equal / replicates, ""))
        printed = float(np.mean(mdds)) * 100
        for sign, name in ((1.0, "b ahead"), (-1.0, "a ahead")):
            first = _found(n, sign * printed, rng)
            outcomes = [first]
            if first is not None:
                outcomes += [_found(n, sign * printed, rng) for _ in range(replicates - 1)]
            rows.append(
                _power_row(
                    f"power at the printed mdd ({name})",
                    n,
                    outcomes,
                    f"mean printed mdd {printed:.1f} points",
                )
            )
        own = [_found(n, m * 100, rng) for m in mdds[:replicates]]
        rows.append(_power_row("power at each pair's own mdd", n, own, ""))
    return rows


def holm_rows(replicates: int, rng: np.random.Generator) -> list[Row]:
    """Planted 25-point competency difference among 14 groups on 100 cases; FWER under null."""
    starred = planted_rows = 0
    family_errors = 0
    by_competency: dict[str, list[int]] = {c: [0, 0, 0] for c in sim.COMPETENCIES}
    for r in range(replicates):
        planted = (r % 14, sim.COMPETENCIES[r % 6], 25.0)
        encounters, truths = sim.groups(14, 100, planted, rng)
        found = pairwise([(f"g{i:02d}", samples(e)) for i, e in enumerate(encounters)])
        for row in found:
            i, j = int(row.group_a[1:]), int(row.group_b[1:])
            truth = truths[(i, j, row.competency)]
            if row.competency != OVERALL and abs(truth) >= 12.5:
                hit = _detected(row.p_value, row.paired.difference, truth)
                planted_rows += 1
                starred += hit
                tally = by_competency[row.competency]
                tally[0] += 1
                tally[1] += hit
                tally[2] += row.paired.cases
    null_reps = replicates
    for _ in range(null_reps):
        encounters, truths = sim.groups(14, 100, None, rng)
        found = pairwise([(f"g{i:02d}", samples(e)) for i, e in enumerate(encounters)])
        family_errors += any(r.detectable for r in found)
    per = [
        (f"planted rows starred: {c}", "14 groups x 100 cases", n, hit / n,
         f"cases with {c} items: {cases / n:.0f} on average")
        for c, (n, hit, cases) in by_competency.items()
        if n
    ]  # fmt: skip
    return [
        ("planted rows starred", "14 groups x 100 cases", planted_rows, starred / planted_rows,
         f"{replicates} replicates"),
        *per,
        ("family-wise error, nothing planted", "14 groups x 100 cases", null_reps,
         family_errors / null_reps, "any of 637 rows starred"),
    ]  # fmt: skip


def oracle_rows(replicates: int, rng: np.random.Generator) -> list[Row]:
    """Per competency, the power an oracle z-test (true SD of the planted row's estimated
    difference) has at Holm's levels, next to the SD and the planted difference."""
    rows: list[Row] = []
    normal = NormalDist()
    for comp in sim.COMPETENCIES:
        estimates: list[float] = []
        truth = 0.0
        for _ in range(replicates):
            encounters, truths = sim.groups(2, 100, (1, comp, 25.0), rng)
            truth = truths[(0, 1, comp)]
            a, b = (scenario_values(samples(e)) for e in encounters)
            ids = sorted(a.values[comp].keys() & b.values[comp].keys())
            pairing = Pairing(
                [a.values[comp][i] for i in ids],
                [b.values[comp][i] for i in ids],
                [a.cases[i] for i in ids],
            )
            estimates.append(paired_differences([pairing], detectable=False)[0].difference)
        sd = float(np.std(estimates, ddof=1)) * 100
        mean = abs(float(np.mean(estimates))) * 100
        margin = 1 / math.sqrt(2 * (replicates - 1))

        def power(z: float, spread: float, mean: float = mean) -> float:
            return normal.cdf(mean / spread - z) + normal.cdf(-mean / spread - z)

        for size in (546, 534):
            z = normal.inv_cdf(1 - 0.05 / size / 2)
            rows.append(
                (f"oracle z-test power: {comp}, level 5%/{size}", "2 groups x 100 cases",
                 replicates, power(z, sd),
                 f"{power(z, sd * (1 + margin)):.0%}-{power(z, sd * (1 - margin)):.0%} at the "
                 f"SD +/- its SE; mean estimate {mean:.1f} (planted {truth:.1f}), true SD "
                 f"{sd:.2f} points")
            )  # fmt: skip
    return rows


def _inside(low: float, high: float, truth: float) -> bool:
    return not math.isnan(low) and low <= truth <= high


def _per_scenario(values: Sequence[np.ndarray]) -> np.ndarray:
    return np.array([float(v.sum()) for v in values])


def coverage_rows(replicates: int, rng: np.random.Generator) -> list[Row]:
    """95% interval coverage of the per-case quantities."""
    rows: list[Row] = []
    for n in (6, 10, 15, 30):
        hits = dict.fromkeys(
            ("agreement share", "macro shift (graders)", "flip rate up", "flip rate down",
             "one run's macro"), 0)  # fmt: skip
        for _ in range(replicates):
            a, b, truth = sim.two_graders(n, rng)
            item_cases = [f"c{c}" for c, m in zip(a.case_of, a.met, strict=True) for _ in m]
            votes = np.column_stack([np.concatenate(a.met), np.concatenate(b.met)])
            found = agreement(votes, item_cases)
            hits["agreement share"] += _inside(*found.agreement_ci, truth["agreement"])
            shift = clustered_ratio(
                completion(b) - completion(a), np.ones(len(a.met)), clusters(a),
                limits=(-1.0, 1.0),
            )  # fmt: skip
            hits["macro shift (graders)"] += _inside(
                shift.low * 100, shift.high * 100, truth["macro_shift_points"]
            )
            before, after, flips = sim.perturbed(n, rng)
            up = [(1 - x) * y for x, y in zip(before.met, after.met, strict=True)]
            down = [x * (1 - y) for x, y in zip(before.met, after.met, strict=True)]
            for name, moved, could, key in (
                ("flip rate up", up, [1 - x for x in before.met], "flip_up"),
                ("flip rate down", down, list(before.met), "flip_down"),
            ):
                rate = clustered_ratio(
                    _per_scenario(moved), _per_scenario(could), clusters(before),
                    limits=(0.0, 1.0),
                )  # fmt: skip
                hits[name] += _inside(rate.low, rate.high, flips[key])
            run, macro = sim.one_run(n, rng)
            low, high = mean_ci(completion(run), clusters(run))
            hits["one run's macro"] += _inside(low * 100, high * 100, macro)
        rows += [(k, f"{n} cases", replicates, v / replicates, "") for k, v in hits.items()]
    return rows


def plan_rows(replicates: int, rng: np.random.Generator) -> list[Row]:
    """Coverage of the plan's 10th-90th percentile range of the full-set mdd (one epoch)."""
    rows: list[Row] = []
    for near_zero in (False, True):
        inside = below = above = used = 0
        for _ in range(replicates):
            a, b, truth = sim.pilot(85, rng, rho_near_zero=near_zero)
            mdds, _ = pair_ranges(samples(a), samples(b), 0.03)
            if 1 not in mdds:
                continue
            used += 1
            low, high = mdds[1]
            t = truth["mdd80_full_points"] / 100
            inside += low <= t <= high
            below += t < low
            above += t > high
        design = "85-case pilot, " + ("near-zero" if near_zero else "usual") + " correlation"
        rows.append(("plan mdd range holds the truth", design, used, inside / max(used, 1),
                     f"truth below the range {below / max(used, 1):.0%}, above it "
                     f"{above / max(used, 1):.0%}"))  # fmt: skip
    return rows


def bounds_rows(replicates: int, rng: np.random.Generator) -> list[Row]:
    """Intervals outside what is possible, on 6-case and 100-case data."""
    rows: list[Row] = []
    for n in (6, 100):
        outside = total = 0
        for _ in range(replicates):
            encounters, _ = sim.groups(3, n, (0, "PBLI", 25.0), rng)
            groups = [(f"g{i}", samples(e)) for i, e in enumerate(encounters)]
            for row in pairwise(groups):
                d = row.paired
                if not math.isnan(d.ci_low):
                    total += 1
                    outside += d.ci_low < -1 or d.ci_high > 1
            for _, group in groups:
                values: dict[str, list[float]] = {}
                cases: dict[str, list[str]] = {}
                for s in group:
                    for key, (done, items) in s.counts.items():
                        values.setdefault(key, []).append(done / items)
                        cases.setdefault(key, []).append(s.case_id or "")
                for key, v in values.items():
                    low, high = mean_ci(v, cases[key])
                    if not math.isnan(low):
                        total += 1
                        outside += low < 0 or high > 1
        rows.append(("intervals outside what is possible", f"{n} cases", total,
                     outside / max(total, 1), f"{outside} of {total}"))  # fmt: skip
    return rows


CHECKS: dict[str, Callable[[int, np.random.Generator], list[Row]]] = {
    "mdd": mdd_rows,
    "holm": holm_rows,
    "oracle": oracle_rows,
    "coverage": coverage_rows,
    "plan": plan_rows,
    "bounds": bounds_rows,
}


def table(rows: Sequence[Row]) -> str:
    lines = ["| Check | Design | n | Figure | Note |", "|---|---|---:|---:|---|"]
    for check, design, n, figure, note in rows:
        # an oracle's power is a formula at an estimated SD: its precision is in the note
        se = "" if check.startswith("oracle") else f" +/- {_se(figure, n):.1%}"
        shown = "n/a" if math.isnan(figure) else f"{figure:.1%}{se}"
        lines.append(f"| {check} | {design} | {n} | {shown} | {note} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replicates", type=int, default=200)
    parser.add_argument(
        "--simulation",
        default="heldout_simulation",
        help="module in bench/ with the simulation's interface (heldout_simulation: set 1, "
        "now tuning data; heldout_simulation2: set 2, held out)",
    )
    parser.add_argument("--only", default=",".join(CHECKS), help="comma-separated checks")
    args = parser.parse_args()
    global sim
    try:
        sim = importlib.import_module(f"bench.{args.simulation}")
    except ModuleNotFoundError:
        parser.exit(2, f"--simulation: no module bench/{args.simulation}.py; give a module "
                    "name in bench/, e.g. heldout_simulation2\n")  # fmt: skip
    chosen = [c.strip() for c in args.only.split(",") if c.strip()]
    unknown = [c for c in chosen if c not in CHECKS]
    if unknown:
        parser.exit(2, f"--only: unknown check {unknown[0]!r}; choose from {', '.join(CHECKS)}\n")
    rows: list[Row] = []
    for name in chosen:
        start = time.process_time()
        rows += CHECKS[name](args.replicates, np.random.default_rng((SEED, len(name))))
        print(f"{name}: {time.process_time() - start:.0f} s CPU", flush=True)
    print(f"simulation: bench/{args.simulation}.py")
    print(table(rows))


if __name__ == "__main__":
    main()
