"""The spread of a run, or of a pair's per-scenario difference, under case weights: the point
estimate (every case once) and each case-bootstrap resample (each case as often as it was
drawn) from the same few sums, numpy only.

A case drawn twice counts as two cases, its scenarios twice: every statistic below is a sum
over scenarios or cases, so a resample is a row of weights, and hundreds of resamples are a few
matrix products (:func:`run_spreads`, :func:`pair_spreads`). With every weight 1 the numbers
are exactly :func:`~inspect_medsp.comparisons.variance_split.decompose` and
:func:`~inspect_medsp.comparisons.variance_split.icc` of the run.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from inspect_medsp.comparisons.planning import LOWEST_RHO, Spread
from inspect_medsp.record import MedspSample
from inspect_medsp.scoring import case_of
from inspect_medsp.stats import OVERALL, scenario_values


class Scenarios(NamedTuple):
    """A run's scored scenarios: their case (an index into a shared list of cases), value and
    what the variance split needs of each."""

    ids: list[str]
    case: np.ndarray
    value: np.ndarray
    """Completion with the scenario's epochs averaged (its counts summed)."""
    mean: np.ndarray
    """Mean over epochs of each epoch's mean over grader repeats."""
    epochs: np.ndarray
    repeats: np.ndarray
    """Mean grader repeats per epoch."""
    within: np.ndarray
    """Sum over the scenario's epochs graded twice or more of the variance across repeats."""
    within_n: np.ndarray
    """Epochs graded twice or more."""
    spread: np.ndarray
    """Variance across epochs of the epoch means (0 with one epoch)."""


def repeat_completions(sample: MedspSample) -> list[float]:
    """The sample's overall completion per grader repeat (items a repeat marked met over the
    rubric's items); its one completion when it was graded once."""
    total = sample.counts.get(OVERALL, (0, 0))[1]
    k = max((len(item.votes) for item in sample.items), default=0)
    if k < 2 or not total:
        return [sample.values[OVERALL]]
    return [
        sum(len(item.votes) > r and item.votes[r] is True for item in sample.items) / total
        for r in range(k)
    ]


def scenarios_of(samples: Sequence[MedspSample], cases: dict[str, int]) -> Scenarios:
    """The scored scenarios of ``samples``; ``cases`` numbers every case (new ones are added)."""
    values = scenario_values(samples)
    overall = values.values[OVERALL]
    encounters: dict[str, list[list[float]]] = defaultdict(list)
    for s in sorted(samples, key=lambda s: (s.id, s.epoch)):
        if s.scored and OVERALL in s.values:
            encounters[s.id].append(repeat_completions(s))
    ids = sorted(i for i in overall if encounters.get(i))
    rows = []
    for i in ids:
        epochs = encounters[i]
        means = [float(np.mean(e)) for e in epochs]
        within = [float(np.var(e, ddof=1)) for e in epochs if len(e) > 1]
        rows.append(
            (
                cases.setdefault(values.cases.get(i) or case_of(i), len(cases)),
                overall[i],
                float(np.mean(means)),
                len(epochs),
                float(np.mean([len(e) for e in epochs])),
                sum(within),
                len(within),
                float(np.var(means, ddof=1)) if len(means) > 1 else 0.0,
            )
        )
    columns = list(zip(*rows, strict=True)) if rows else [()] * 8
    case, value, mean, n_epochs, repeats, within_sum, within_n, spread = (
        np.asarray(c, dtype=float) for c in columns
    )
    return Scenarios(
        ids, case.astype(int), value, mean, n_epochs, repeats, within_sum, within_n, spread
    )


class Parts(NamedTuple):
    """The variance split of each weighting (arrays, one entry per row of weights)."""

    scenarios: np.ndarray
    epochs: np.ndarray
    repeats: np.ndarray
    epoch: np.ndarray
    """NaN where no scenario had two epochs."""
    grader: np.ndarray
    """NaN where no epoch was graded twice."""

    @property
    def noise(self) -> np.ndarray:
        epoch = np.nan_to_num(self.epoch) / self.epochs
        grader = np.nan_to_num(self.grader) / (self.epochs * self.repeats)
        out: np.ndarray = epoch + grader
        return out

    @property
    def per_epoch(self) -> np.ndarray:
        out: np.ndarray = np.nan_to_num(self.epoch) + np.nan_to_num(self.grader) / self.repeats
        return out


def _ratio(top: np.ndarray, bottom: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        out: np.ndarray = np.where(bottom > 0, top / np.where(bottom > 0, bottom, 1.0), np.nan)
    return out


def _variance(w: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Sample variance (ddof 1) of ``x`` repeated ``w`` times, per row of ``w``."""
    n = w.sum(axis=1)
    total = w @ x
    with np.errstate(divide="ignore", invalid="ignore"):
        out: np.ndarray = np.where(
            n > 1, (w @ (x * x) - total * total / np.maximum(n, 1)) / np.maximum(n - 1, 1), np.nan
        )
    kept: np.ndarray = np.maximum(out, 0.0)
    return kept


def studentized_variance(x: np.ndarray, case: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Draws of the variance of ``x`` from a studentized case bootstrap of its log, one per
    row of case counts ``k``: ``exp(log s2 - t* se)``, where ``t* = (log s2* - log s2) /
    se*`` is each resample's studentized deviation and ``se`` the standard error of
    ``log s2`` from the cases' own contributions (``u_c``, the squared deviations of case
    ``c``'s values: ``se^2 = C / (C - 1) sum (u_c - s2 n_c)^2 / ((N - 1) s2)^2``).

    A plain case bootstrap of the variance centres on the sample's own ``s2``; when a few
    far-out cases set the population's spread, a sample that missed them has a small ``s2``
    and resamples of it as small, so its range lies below the truth (an independent
    simulation: the truth above the plan's range 21-28% of the time). Studentizing on the log
    scale lets a sample whose spread rests on few cases (a large ``se``) reach further up.
    Every weight 1 gives ``t* = 0``, the sample's own variance; a resample whose variance or
    ``se*`` is 0 keeps its plain bootstrap variance."""
    plain = _variance(k[:, case], x)
    cases = k.shape[1]
    if len(x) < 3 or cases < 2:
        return plain
    onehot = np.zeros((len(x), cases))
    onehot[np.arange(len(x)), case] = 1.0
    sizes = onehot.sum(axis=0)

    def log_se(w: np.ndarray, counts: np.ndarray, s2: np.ndarray) -> np.ndarray:
        n = w.sum(axis=1, keepdims=True)
        mean = (w @ x)[:, None] / n
        u = ((x[None, :] - mean) ** 2) @ onehot
        drawn = counts @ (sizes > 0).astype(float)
        spread = (counts * (u - s2[:, None] * sizes[None, :] * (n - 1) / n) ** 2).sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            out: np.ndarray = np.sqrt(drawn / np.maximum(drawn - 1, 1) * spread) / (
                (n[:, 0] - 1) * s2
            )
        return out

    s2 = float(_variance(np.ones((1, len(x))), x)[0])
    if not s2 > 0:
        return plain
    se = float(log_se(np.ones((1, len(x))), np.ones((1, cases)), np.array([s2]))[0])
    se_star = log_se(k[:, case], k, plain)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (np.log(plain) - math.log(s2)) / se_star
        out: np.ndarray = np.exp(math.log(s2) - t * se)
    usable = (plain > 0) & (se_star > 0) & np.isfinite(out)
    kept: np.ndarray = np.where(usable, out, plain)
    return kept


def parts(s: Scenarios, w: np.ndarray) -> Parts:
    """:func:`~inspect_medsp.comparisons.variance_split.decompose` under scenario weights
    ``w`` (shape ``(rows, scenarios)``)."""
    n = w.sum(axis=1)
    grader = _ratio(w @ s.within, w @ s.within_n)
    multi = (s.epochs > 1).astype(float)
    with_epochs = w @ multi
    spread = _ratio(w @ (s.spread * multi), with_epochs)
    left = np.nan_to_num(grader) * _ratio(w @ (multi / np.maximum(s.repeats, 1)), with_epochs)
    epoch = np.maximum(0.0, spread - np.nan_to_num(left))
    return Parts(
        scenarios=n,
        epochs=_ratio(w @ s.epochs, n),
        repeats=_ratio(w @ s.repeats, n),
        epoch=epoch,
        grader=grader,
    )


def icc(values: np.ndarray, case: np.ndarray, k: np.ndarray) -> np.ndarray:
    """:func:`~inspect_medsp.comparisons.variance_split.icc` of ``values`` with each case
    counted as often as ``k`` says (shape ``(rows, cases)``)."""
    cases = k.shape[1]
    sizes = np.bincount(case, minlength=cases).astype(float)
    sums = np.bincount(case, weights=values, minlength=cases)
    squares = np.bincount(case, weights=values * values, minlength=cases)
    present = (sizes > 0).astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        case_sq = np.where(sizes > 0, sums * sums / np.maximum(sizes, 1), 0.0)
        c = k @ present
        n = k @ sizes
        grand = (k @ sums) / np.maximum(n, 1)
        msb = (k @ case_sq - n * grand * grand) / np.maximum(c - 1, 1)
        msw = (k @ (squares - case_sq)) / np.maximum(n - c, 1)
        n0 = (n - (k @ (sizes * sizes)) / np.maximum(n, 1)) / np.maximum(c - 1, 1)
        between = (msb - msw) / n0
        rho = np.clip(between / (between + msw), 0.0, 1.0)
    multi = k @ (sizes > 1).astype(float)
    ok = (multi > 0) & (c >= 2) & (between + msw > 0)
    out: np.ndarray = np.where(ok, rho, 0.0)
    return out


def _spreads(
    fixed: np.ndarray, per_epoch: np.ndarray, rho: np.ndarray, epochs: np.ndarray
) -> list[Spread | None]:
    return [
        None if math.isnan(f) else Spread(float(f), float(p), float(r), max(1.0, float(e)))
        for f, p, r, e in zip(fixed, per_epoch, rho, epochs, strict=True)
    ]


def run_spreads(s: Scenarios, k: np.ndarray) -> list[Spread | None]:
    """The run's spread under each row of case counts ``k`` (None with under 2 scenarios)."""
    w = k[:, s.case]
    split = parts(s, w)
    fixed = np.maximum(0.0, studentized_variance(s.value, s.case, k) - split.noise)
    rho = icc(s.value, s.case, k)
    return _spreads(fixed, split.per_epoch, rho, split.epochs)


def pair_spreads(a: Scenarios, b: Scenarios, k: np.ndarray) -> list[Spread | None]:
    """The spread of the per-scenario difference ``b - a`` (on the scenarios both scored)
    under each row of case counts ``k``."""
    ia, ib = _shared(a, b)
    if len(ia) < 2:
        return [None] * len(k)
    d = b.value[ib] - a.value[ia]
    case = a.case[ia]
    wa, wb = k[:, a.case], k[:, b.case]
    parts_a, parts_b = parts(a, wa), parts(b, wb)
    fixed = np.maximum(0.0, studentized_variance(d, case, k) - parts_a.noise - parts_b.noise)
    rho = icc(d, case, k)
    epochs = (parts_a.epochs + parts_b.epochs) / 2
    return _spreads(fixed, parts_a.per_epoch + parts_b.per_epoch, rho, epochs)


def _shared(a: Scenarios, b: Scenarios) -> tuple[np.ndarray, np.ndarray]:
    at = {sid: i for i, sid in enumerate(a.ids)}
    shared = [(at[sid], j) for j, sid in enumerate(b.ids) if sid in at]
    return np.array([i for i, _ in shared], dtype=int), np.array([j for _, j in shared], dtype=int)


def paired_values(a: Scenarios, b: Scenarios) -> tuple[np.ndarray, np.ndarray]:
    """The per-scenario difference ``b - a`` on the scenarios both scored, and their cases."""
    ia, ib = _shared(a, b)
    out: np.ndarray = b.value[ib] - a.value[ia]
    return out, a.case[ia]


def case_draws(cases: int, resamples: int, seed: int) -> np.ndarray:
    """How often each case is drawn in each of ``resamples`` case-bootstrap resamples (shape
    ``(resamples, cases)``; seeded)."""
    rng = np.random.default_rng(seed)
    drawn = rng.integers(0, cases, (resamples, cases))
    out: np.ndarray = np.zeros((resamples, cases))
    np.add.at(out, (np.repeat(np.arange(resamples), cases), drawn.ravel()), 1.0)
    return out


def once(cases: int) -> np.ndarray:
    """Every case once: the point estimate's weights."""
    out: np.ndarray = np.ones((1, cases))
    return out


def icc_draws(values: np.ndarray, case: np.ndarray, draws: int, seed: int) -> np.ndarray:
    """Draws of the intra-case correlation that the run's scenario values leave possible: the
    generalised pivot of the one-way ANOVA (``F = MSB / MSW`` is ``(1 + (n0 - 1) rho) /
    (1 - rho)`` times an ``F(nu1, nu2)`` variable, so each draw of that variable gives one
    ``rho``), kept within [:data:`LOWEST_RHO`, 1]; all 0 when no case has two scenarios.

    ``nu1`` and ``nu2`` are the Satterthwaite degrees of freedom of the two mean squares from
    their cases' own contributions (:func:`mean_square_df`): ``C - 1`` and ``N - C`` when
    the case effects and the scenario values are normal, fewer when they are heavy-tailed
    (a few far-out cases then carry a mean square, and it varies more than a chi-square on
    ``C - 1`` says). They are never taken above the normal ones. With ``C - 1`` and ``N - C``
    the 10-90% range of the plan's ``mdd`` held an independent simulation's truth 61-69% of
    the time (heavy-tailed case effects); with these, 77-80%.

    The draws are not clipped at 0: when the true correlation is near 0, half the pivot's
    draws fall below it, and setting them to 0 would move the lower end of every range built
    on them up (an independent simulation found the truth below the plan's 10-90% range 36% of
    the time). A negative draw means a design effect below 1 (scenarios of one case less alike
    than scenarios of different cases), which the data cannot rule out.

    A case bootstrap cannot say how uncertain ``rho`` is when only a few cases have more than
    one scenario (Q100 has 9): it resamples those few again and again, and its spread is far
    narrower than the estimate's own. The pivot's spread is the estimate's."""
    cases = int(case.max(initial=-1)) + 1
    sizes = np.bincount(case, minlength=cases).astype(float)
    present = sizes > 0
    c = int(present.sum())
    n = float(sizes.sum())
    if not (sizes > 1).any() or c < 2:
        return np.zeros(draws)
    sums = np.bincount(case, weights=values, minlength=cases)
    means = np.where(present, sums / np.maximum(sizes, 1), 0.0)
    grand = float(values.mean())
    between = np.where(present, sizes * (means - grand) ** 2, 0.0)
    within = np.bincount(case, weights=(values - means[case]) ** 2, minlength=cases)
    msb = float(between.sum()) / (c - 1)
    msw = float(within.sum()) / (n - c)
    n0 = (n - float((sizes**2).sum()) / n) / (c - 1)
    if msw <= 0:
        return np.ones(draws) if msb > 0 else np.zeros(draws)
    nu1 = mean_square_df(between[present], np.full(c, 1.0 - 1.0 / c), c - 1)
    nu2 = mean_square_df(within[present], sizes[present] - 1.0, n - c)
    rng = np.random.default_rng(seed)
    f = (rng.chisquare(nu1, draws) / nu1) / (rng.chisquare(nu2, draws) / nu2)
    ratio = msb / msw / f
    out: np.ndarray = np.clip((ratio - 1) / (ratio + n0 - 1), LOWEST_RHO, 1.0)
    return out


def mean_square_df(parts: np.ndarray, df: np.ndarray, normal: float) -> float:
    """Satterthwaite degrees of freedom of a mean square that is the sum of its cases'
    ``parts`` (``df`` the degrees of freedom each part carries): ``2 (sum parts)^2`` over the
    variance of that sum, estimated from the parts' spread around their expected share
    (``df / sum(df)`` of the total), ``C / (C - 1)`` times their sum of squares. At most
    ``normal`` (the normal-theory degrees of freedom: the estimate of a heavy tail from few
    cases is itself noisy, and a range is never made narrower than the normal one), at
    least 1."""
    total = float(parts.sum())
    cases = len(parts)
    if total <= 0 or cases < 2 or float(df.sum()) <= 0:
        return normal
    spread = cases / (cases - 1) * float(((parts - total * df / df.sum()) ** 2).sum())
    if spread <= 0:
        return normal
    return float(min(normal, max(1.0, 2 * total * total / spread)))
