"""Held-out simulation generator for checking the report's statistical claims.

Provenance
----------
Written by an independent helper who was given only the report's *claims*
and the benchmark's case-size distribution (plus the public rubric files,
used only for the item-count histogram and competency mix).  The helper
never saw the package's estimators, tests or benchmarks, and this module
imports nothing from the package: it only exposes plain data (numpy arrays
and dataclasses) so that any estimator can be run on it.

Data model (all on the logit scale; "SD" = standard deviation)
---------------------------------------------------------------
A study draws ``n`` cases i.i.d. from the full set's case-size distribution
(595 cases, 1,548 scenarios).  Each scenario has a rubric of items, each item
in one of the six competencies.  Whether the clinician (model) *actually*
did item ``i`` is Bernoulli(p_i) with

    logit p_i = mu + u_case + beta_m * (log m_case - c_m)      (shared)
              + s_scen + beta_k * (log K_scen - c_k)            (shared)
              + d_item + e_comp                                 (shared)
              + a_model + o_model,comp                          (fixed, per model)
              + v_model,case + w_model,scen + x_model,item      (random, per model)
              + epoch_model,scen                                (per run)

and the grader's verdict equals the truth except for false negatives
(rate fn_i) and false positives (rate fp_i), both depending on the case and
the item (grader error is *not* a constant 5%).

Settings and why (harsher than the package's own simulation)
-------------------------------------------------------------
* Case sizes: exactly the stated distribution {1: 302, ..., 30: 1}.
* Items per scenario: the empirical histogram of the 1,548 public rubrics
  (median 11, mean 15.9, range 1-131).  Item counts are strongly clustered
  within a case (empirical intra-case correlation of log item count ~0.8),
  so each case draws a base count from the histogram and each scenario
  multiplies it by exp(N(-0.38^2/2, 0.38^2)) (mean-preserving).
* Competency mix: each competency is present in a scenario with probability
  PC .80, MK .70, SBP .70, ICS .80, PBLI .14, PROF .31 (empirical presence
  .76/.57/.57/.75/.10/.22; inflated because a present competency may
  receive no item, which brings realised presence to about the empirical) and items are spread over the present ones with
  weights 1.0/.45/.40/.95/.30/.25; realised item shares PC 34%, ICS 33%,
  MK 15%, SBP 13%, PROF 4%, PBLI 2% (rubrics: 36/33/11/10/2.5/1.2) and
  realised presence .75/.56/.54/.74/.10/.21; this makes
  PBLI / PROF rows rare and noisy, as in reality.
* Case effect u_case: SD **1.0** (twice the package's 0.5), skewed and
  heavy-tailed: a two-piece t(4) (left half scaled 1.3, right half 0.7,
  then exactly standardised) so a few cases are very hard for everyone.
* Case-size dependence beta_m = -0.35 per log scenario: multi-scenario
  (longitudinal) cases are harder, so the scenario-weighted macro differs
  from a case-weighted mean and ratio estimators are biased at small n.
* Rubric-size dependence beta_k = -0.30 per log item: long rubrics are
  met less completely.
* Scenario SD 0.8 (package 0.6); item difficulty SD 1.2 (some items are
  nearly always met, e.g. greetings, others almost never); competency
  effects e = PC 0, MK -0.4, SBP -0.6, ICS +0.3, PBLI -1.0, PROF +0.3
  (mu = 0.7, giving a population macro near 57 points and competency
  macros of 45-62 points, so a +25-point planted effect is attainable
  under the grader's false-negative ceiling on every competency).
* Model effects: model x case SD 0.6 for model A and 0.8 for model B
  (package 0.3; unequal so that an estimator that is not symmetric in A/B
  is exposed), model x scenario 0.5, model x item 0.5, epoch (run) 0.3.
  Model B also has a competency profile (MK +0.3, ICS -0.3) so models do
  not differ by a pure shift.
* Grader: fn = expit(logit .05 + g_case + h_item),
  fp = expit(logit .08 + g_case + h_item), g_case ~ N(0, 0.8^2) (ambiguous
  cases), h_item ~ N(0, 0.7^2) (ambiguous items).  Average disagreement
  with the truth is ~8-9%, strongly case-dependent.  The same grader marks
  both models, so grader errors are shared within a case.
* Second grader (``two_graders``): more lenient (fn base .04, fp base .13),
  ambiguity correlated 0.6 with the first grader's at both case and item
  level, plus a case-specific leniency l_case ~ N(0, 0.6^2) that raises fp
  and lowers fn together, so the macro shift is itself case-clustered.
* Perturbation (``perturbed``): the same grader's verdict on a perturbed
  copy flips not-met -> met with rate expit(logit .06 + f_case + k_item +
  0.8 h_item) and met -> not-met with rate expit(logit .04 + f'_case +
  k_item + 0.8 h_item); f, f' ~ N(0, 1) with correlation 0.5 (perturbations
  break some cases badly), k_item ~ N(0, 0.5^2).
* ``pilot(rho_near_zero=True)``: both models have model x case SD 0 (the
  shared case effect still has SD 1.0); the within-case correlation of the
  scenario-level B - A differences is then near zero, which is where
  projections that estimate an intra-case correlation are most fragile.

Truths (all population expectations, never sample quantities)
--------------------------------------------------------------
"Population" means an infinite set of cases drawn from the case-size
distribution.  The macro of a population is the mean over *all its
scenarios* (i.e. the ratio of expectations E[sum of scenario shares in a
case] / E[scenarios in a case]).  Truths are computed once, with fixed seeds,
on a Monte Carlo population of ``POP_CASES`` = 50,000 cases (~130,000
scenarios, ~2 million items) and memoised at module level.  Wherever the
expectation over the item verdict and the grader is available in closed
form (P(verdict = met) = p (1 - fn) + (1 - p) fp, P(agree), flip
probabilities) it is used, so only the latent effects are Monte Carlo.
Monte Carlo error of the truths is about 0.05-0.1 points.

Units: macro-scale quantities (macro, differences, shifts, half-widths,
mdd) are in **points** (0-100) and their keys end in ``_points``;
agreement and flip rates are **proportions** (0-1).

* ``paired``: truth = population macro(B) - macro(A).  The logit offset of
  B is solved by bisection on the population (common random numbers) so
  that the truth equals ``delta_points`` (up to 1e-6); the returned value is
  the computed population difference.
* ``groups``: 14 exchangeable models (model x case SD 0.6 each); under the
  null every row's truth is exactly 0.  With ``planted = (g, comp, pts)``,
  model g gets a logit offset on comp-items only, solved so that its
  population competency macro exceeds every other model's by ``pts``;
  the "overall" truth of the rows involving g is then computed on the
  population; all other rows are exactly 0.  Competency macro = mean, over
  scenarios having at least one item of that competency, of the share of
  those items met.  Keys are ``(i, j, row)`` with i < j and row in
  ``COMPETENCIES + ("overall",)``; value = group j minus group i, points.
* ``two_graders``: ``agreement`` = item-weighted share of items on which the
  two graders agree (population: sum P(agree) / number of items);
  ``agreement_scenario_mean`` = mean over scenarios of the within-scenario
  share; ``macro_shift_points`` = macro(grader B) - macro(grader A).
* ``perturbed``: ``flip_up`` / ``flip_down`` = item-weighted rates (number
  of items not met originally that become met / number of items not met
  originally; resp. met -> not met / met), as ratios of population
  expectations.  ``flip_up_scenario_mean`` / ``flip_down_scenario_mean`` =
  mean over scenarios with a non-zero denominator of the scenario's own
  rate (computed with actual Bernoulli draws on the population).
* ``one_run``: population macro in points.
* ``pilot``: the pair is fixed per setting (default: the ``paired`` pair
  with a true difference of 2 points; rho_near_zero: both model x case SD
  0, true difference 2 points).  Truths are at the *full set* (exactly the
  stated 595-case composition, 1,548 scenarios):
  Var(full macro difference) = sum_c Var(D_c) / 1548^2 where D_c is a
  case's sum of scenario differences; Var(D_c) is estimated per case size
  by simulating thousands of cases of that size with actual item/grader
  draws.  ``sd_full_points`` is its square root, ``half_width_full_points``
  = 1.959964 x sd, ``mdd80_full_points`` = (1.959964 + 0.841621) x sd
  (two-sided 5% test, 80% power), ``mdd75_full_points`` likewise with
  0.674490; ``true_difference_points``; and ``design_effect`` = Var of the
  full macro difference / (Var of one scenario's difference / 1548), an
  intra-case-correlation summary (near 1 when rho is near zero).

Truths at the main designs (POP_SEED = 20261128; spread over population
seeds 1 and 2 in brackets)
------------------------------------------------------------------------
* one_run macro: 57.24 points (57.27, 57.27).
* paired: truth = delta_points to 1e-6 on the population; the B offset for
  +3 points is 0.326 logit (0.314, 0.315), i.e. about 0.1 point of Monte
  Carlo error against an infinite population.
* groups, planted 25 points: logit offset / "overall" truth by competency:
  PC 2.68 / 8.47, MK 2.34 / 3.59, SBP 2.24 / 3.23, ICS 3.08 / 8.10,
  PBLI 2.12 / 0.45, PROF 2.99 / 0.88 points (so with a PBLI or PROF plant
  the "overall" rows of the planted model truly differ by < 1 point; 26 of
  the 637 rows at 14 groups truly differ).
* two_graders: agreement 0.820 (0.818, 0.821), scenario-mean 0.824,
  macro_shift_points 3.28 (3.45, 3.34).
* perturbed: flip_up 0.098, flip_down 0.070 (item-weighted); scenario-mean
  0.101 and 0.071.
* pilot (default): true difference 2.00, sd_full 1.005 (1.003, 1.010),
  half-width 1.97, mdd80 2.81, design effect 1.94.
* pilot (rho_near_zero): sd_full 0.661 (0.659, 0.664), half-width 1.30,
  mdd80 1.85, design effect 1.00.

Cost: the first call of each generator computes and memoises its truths
(about 15-20 s in total for all of them); afterwards a replicate at 100
cases takes 2-5 ms (16 ms for 14 groups).  As a sanity check of the truths
(not of any package estimator), a plain case-clustered ratio estimator
with a t(n-1) interval covers the paired difference 0.91/0.91/0.93/0.94 at
n = 6/10/30/100 and the one-run macro 0.91/0.90/0.90/0.94, so the design
is harsh at small n but consistent at n = 100.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

FloatArr = npt.NDArray[np.float64]
IntArr = npt.NDArray[np.int64]

COMPETENCIES: tuple[str, ...] = ("PC", "MK", "SBP", "ICS", "PBLI", "PROF")
ROWS: tuple[str, ...] = COMPETENCIES + ("overall",)
_COMP_NAMES = np.array(COMPETENCIES)

CASE_SIZE_COUNTS: dict[int, int] = {
    1: 302, 2: 91, 3: 73, 4: 58, 5: 15, 6: 20, 7: 7, 8: 6, 9: 5, 10: 4,
    11: 4, 12: 1, 15: 2, 16: 1, 18: 2, 19: 1, 20: 1, 29: 1, 30: 1,
}
FULL_CASES = 595
FULL_SCENARIOS = 1548

# Empirical histogram of rubric items per scenario (1,548 public rubrics).
ITEM_COUNT_HIST: dict[int, int] = {
    1: 32, 2: 34, 3: 66, 4: 113, 5: 107, 6: 90, 7: 79, 8: 67, 9: 77, 10: 73,
    11: 70, 12: 62, 13: 50, 14: 39, 15: 44, 16: 40, 17: 35, 18: 18, 19: 32,
    20: 43, 21: 22, 22: 26, 23: 20, 24: 10, 25: 37, 26: 12, 27: 14, 28: 18,
    29: 9, 30: 18, 31: 19, 32: 7, 33: 6, 34: 8, 35: 6, 36: 19, 37: 7, 38: 9,
    39: 8, 40: 6, 41: 5, 42: 4, 43: 5, 44: 2, 45: 8, 46: 5, 47: 1, 48: 2,
    49: 4, 50: 4, 51: 3, 52: 3, 54: 3, 55: 2, 56: 1, 57: 1, 58: 1, 59: 2,
    60: 1, 61: 2, 62: 3, 63: 2, 64: 4, 65: 2, 66: 1, 71: 3, 72: 1, 77: 1,
    78: 1, 79: 1, 80: 1, 81: 2, 86: 1, 88: 1, 89: 1, 90: 1, 91: 1, 93: 1,
    94: 1, 100: 1, 103: 1, 104: 1, 105: 1, 106: 1, 107: 1, 115: 1, 131: 1,
}

_SIZES = np.array(sorted(CASE_SIZE_COUNTS), dtype=np.int64)
_SIZE_P = np.array([CASE_SIZE_COUNTS[int(s)] for s in _SIZES], dtype=np.float64)
_SIZE_P /= _SIZE_P.sum()
_MEAN_LOG_SIZE = float(np.sum(_SIZE_P * np.log(_SIZES)))
_K_VALUES = np.array(sorted(ITEM_COUNT_HIST), dtype=np.int64)
_K_P = np.array([ITEM_COUNT_HIST[int(k)] for k in _K_VALUES], dtype=np.float64)
_K_P /= _K_P.sum()
_MEAN_LOG_K = float(np.sum(_K_P * np.log(_K_VALUES)))

# ---- settings (see module docstring for the reasons) ----
ITEM_LOG_SD_WITHIN_CASE = 0.38
COMP_PRESENT = np.array([0.80, 0.70, 0.70, 0.80, 0.14, 0.31])
COMP_WEIGHT = np.array([1.00, 0.45, 0.40, 0.95, 0.30, 0.25])
COMP_EFFECT = np.array([0.0, -0.4, -0.6, 0.3, -1.0, 0.3])
MU = 0.7
SD_CASE = 1.0
BETA_CASE_SIZE = -0.35
SD_SCEN = 0.8
BETA_RUBRIC_SIZE = -0.30
SD_ITEM = 1.2
SD_AMB_CASE = 0.8
SD_AMB_ITEM = 0.7
GRADER1_FN, GRADER1_FP = 0.05, 0.08
GRADER2_FN, GRADER2_FP = 0.04, 0.13
GRADER_CORR = 0.6
SD_LENIENCY_CASE = 0.6
FLIP_UP_BASE, FLIP_DOWN_BASE = 0.06, 0.04
SD_FLIP_CASE = 1.0
FLIP_CASE_CORR = 0.5
SD_FLIP_ITEM = 0.5
FLIP_AMB_WEIGHT = 0.8
POP_CASES = 50_000
POP_SEED = 20261128  # seed of every truth computation
_Z975 = 1.959963984540054
_Z80 = 0.8416212335729143
_Z75 = 0.6744897501960817

# two-piece t(4): E|T| = 1, E[T^2] = 2  ->  mean -0.3, variance 2.09
_TP_LEFT, _TP_RIGHT = 1.3, 0.7
_TP_MEAN = 0.5 * (_TP_RIGHT - _TP_LEFT)
_TP_SD = math.sqrt(0.5 * (_TP_LEFT**2 + _TP_RIGHT**2) * 2.0 - _TP_MEAN**2)


def _logit(p: float) -> float:
    return math.log(p / (1.0 - p))


def _expit(x: FloatArr) -> FloatArr:
    return 1.0 / (1.0 + np.exp(-x))


# ---------------------------------------------------------------- data types
@dataclass(frozen=True)
class Encounters:
    """One model's graded encounters (or one grading) on a drawn set of cases."""

    case_of: np.ndarray  # int, per scenario: its case index (0..n_cases-1)
    met: list[np.ndarray]  # per scenario: 0/1 (int8) per item
    competency: list[np.ndarray]  # per scenario: competency code (str) per item


@dataclass(frozen=True)
class CaseDraw:
    """A drawn set of cases: scenario counts, item counts and competencies."""

    case_sizes: IntArr  # per case: number of scenarios
    case_of: IntArr  # per scenario: case index
    n_items: IntArr  # per scenario: number of rubric items
    item_scen: IntArr  # per item: scenario index
    item_comp: IntArr  # per item: competency code index into COMPETENCIES

    @property
    def n_cases(self) -> int:
        return int(self.case_sizes.size)

    @property
    def n_scenarios(self) -> int:
        return int(self.case_of.size)


@dataclass(frozen=True)
class _Shared:
    """Latent quantities shared by every model and grader on a case draw."""

    d: CaseDraw
    base: FloatArr  # per item: shared logit
    amb_case: FloatArr  # per case: grader ambiguity
    amb_item: FloatArr  # per item: grader ambiguity


@dataclass(frozen=True)
class _ModelSpec:
    offset: float = 0.0
    sd_case: float = 0.6
    comp_offset: tuple[float, ...] = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    sd_scen: float = 0.5
    sd_item: float = 0.5
    sd_epoch: float = 0.3


MODEL_A = _ModelSpec(sd_case=0.6)
MODEL_B = _ModelSpec(sd_case=0.8, comp_offset=(0.0, 0.3, 0.0, -0.3, 0.0, 0.0))
MODEL_A_RHO0 = _ModelSpec(sd_case=0.0)
MODEL_B_RHO0 = _ModelSpec(sd_case=0.0, comp_offset=(0.0, 0.3, 0.0, -0.3, 0.0, 0.0))
MODEL_GROUP = _ModelSpec(sd_case=0.6)
PILOT_DIFFERENCE_POINTS = 2.0


# ---------------------------------------------------------------- drawing
def draw_cases(
    n_cases: int,
    rng: np.random.Generator,
    case_sizes: npt.ArrayLike | None = None,
) -> CaseDraw:
    """Draw ``n_cases`` cases (or use the given ``case_sizes``) with their
    scenarios, per-scenario item counts and per-item competencies."""
    if case_sizes is None:
        sizes = rng.choice(_SIZES, size=n_cases, p=_SIZE_P).astype(np.int64)
    else:
        sizes = np.asarray(case_sizes, dtype=np.int64)
    n_c = int(sizes.size)
    case_of = np.repeat(np.arange(n_c, dtype=np.int64), sizes)
    n_s = int(case_of.size)
    base_k = rng.choice(_K_VALUES, size=n_c, p=_K_P).astype(np.float64)
    z = ITEM_LOG_SD_WITHIN_CASE * rng.standard_normal(n_s) - 0.5 * ITEM_LOG_SD_WITHIN_CASE**2
    k = np.rint(base_k[case_of] * np.exp(z))
    n_items = np.clip(k, 1, 160).astype(np.int64)
    item_scen = np.repeat(np.arange(n_s, dtype=np.int64), n_items)
    present = rng.random((n_s, 6)) < COMP_PRESENT
    present[~present.any(axis=1), 0] = True
    w = present * COMP_WEIGHT
    cum = np.cumsum(w / w.sum(axis=1, keepdims=True), axis=1)
    cum[:, -1] = 1.0
    u = rng.random(item_scen.size)
    comp = np.zeros(item_scen.size, dtype=np.int64)
    for j in range(5):
        comp += u > cum[item_scen, j]
    return CaseDraw(sizes, case_of, n_items, item_scen, comp)


def _shared(d: CaseDraw, rng: np.random.Generator) -> _Shared:
    n_c, n_s, n_i = d.n_cases, d.n_scenarios, int(d.item_scen.size)
    t = rng.standard_t(4.0, n_c)
    u = SD_CASE * (np.where(t > 0, _TP_RIGHT * t, _TP_LEFT * t) - _TP_MEAN) / _TP_SD
    u = u + BETA_CASE_SIZE * (np.log(d.case_sizes) - _MEAN_LOG_SIZE)
    s = SD_SCEN * rng.standard_normal(n_s) + BETA_RUBRIC_SIZE * (np.log(d.n_items) - _MEAN_LOG_K)
    scen_total = u[d.case_of] + s
    base = MU + scen_total[d.item_scen] + SD_ITEM * rng.standard_normal(n_i) + COMP_EFFECT[d.item_comp]
    amb_case = SD_AMB_CASE * rng.standard_normal(n_c)
    amb_item = SD_AMB_ITEM * rng.standard_normal(n_i)
    return _Shared(d, base, amb_case, amb_item)


def _model_logit(sh: _Shared, spec: _ModelSpec, rng: np.random.Generator) -> FloatArr:
    d = sh.d
    per_case = spec.sd_case * rng.standard_normal(d.n_cases)
    per_scen = per_case[d.case_of] + math.hypot(spec.sd_scen, spec.sd_epoch) * rng.standard_normal(d.n_scenarios)
    comp_off = np.asarray(spec.comp_offset, dtype=np.float64)[d.item_comp]
    return (
        sh.base + spec.offset + comp_off + per_scen[d.item_scen]
        + spec.sd_item * rng.standard_normal(d.item_scen.size)
    )


def _grader1(sh: _Shared) -> tuple[FloatArr, FloatArr]:
    a = sh.amb_case[sh.d.case_of[sh.d.item_scen]] + sh.amb_item
    return _expit(_logit(GRADER1_FN) + a), _expit(_logit(GRADER1_FP) + a)


def _grader2(sh: _Shared, rng: np.random.Generator) -> tuple[FloatArr, FloatArr]:
    d = sh.d
    c = math.sqrt(1.0 - GRADER_CORR**2)
    g2 = GRADER_CORR * sh.amb_case + c * SD_AMB_CASE * rng.standard_normal(d.n_cases)
    h2 = GRADER_CORR * sh.amb_item + c * SD_AMB_ITEM * rng.standard_normal(d.item_scen.size)
    lenient = SD_LENIENCY_CASE * rng.standard_normal(d.n_cases)
    ic = d.case_of[d.item_scen]
    a = g2[ic] + h2
    return _expit(_logit(GRADER2_FN) + a - lenient[ic]), _expit(_logit(GRADER2_FP) + a + lenient[ic])


def _flip_rates(sh: _Shared, rng: np.random.Generator) -> tuple[FloatArr, FloatArr]:
    d = sh.d
    f_up = SD_FLIP_CASE * rng.standard_normal(d.n_cases)
    f_dn = SD_FLIP_CASE * (
        FLIP_CASE_CORR * f_up / SD_FLIP_CASE
        + math.sqrt(1 - FLIP_CASE_CORR**2) * rng.standard_normal(d.n_cases)
    )
    k = SD_FLIP_ITEM * rng.standard_normal(d.item_scen.size) + FLIP_AMB_WEIGHT * sh.amb_item
    ic = d.case_of[d.item_scen]
    return _expit(_logit(FLIP_UP_BASE) + f_up[ic] + k), _expit(_logit(FLIP_DOWN_BASE) + f_dn[ic] + k)


def _p_observed(logit: FloatArr, fn: FloatArr, fp: FloatArr) -> FloatArr:
    p = _expit(logit)
    return p * (1.0 - fn) + (1.0 - p) * fp


def _grade(logit: FloatArr, fn: FloatArr, fp: FloatArr, rng: np.random.Generator) -> npt.NDArray[np.int8]:
    y = rng.random(logit.size) < _expit(logit)
    r = rng.random(logit.size)
    return np.where(y, r >= fn, r < fp).astype(np.int8)


def _encounters(d: CaseDraw, met: npt.NDArray[np.int8]) -> Encounters:
    cuts = np.cumsum(d.n_items)[:-1]
    return Encounters(
        case_of=d.case_of.copy(),
        met=np.split(met, cuts),
        competency=np.split(_COMP_NAMES[d.item_comp], cuts),
    )


# ---------------------------------------------------------------- aggregates
def _scen_share(x: FloatArr, d: CaseDraw) -> FloatArr:
    return np.bincount(d.item_scen, weights=x, minlength=d.n_scenarios) / d.n_items


def _macro(x: FloatArr, d: CaseDraw) -> float:
    return float(_scen_share(x, d).mean())


def _comp_macro(x: FloatArr, d: CaseDraw, comp: int) -> float:
    m = d.item_comp == comp
    num = np.bincount(d.item_scen[m], weights=x[m], minlength=d.n_scenarios)
    den = np.bincount(d.item_scen[m], minlength=d.n_scenarios)
    ok = den > 0
    return float(np.mean(num[ok] / den[ok]))


def _bisect(f: object, target: float, lo: float = -8.0, hi: float = 8.0) -> float:
    assert callable(f)
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if float(f(mid)) < target:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-7:
            break
    return 0.5 * (lo + hi)


# ---------------------------------------------------------------- population
_MEMO: dict[object, object] = {}


@dataclass(frozen=True)
class _Pop:
    sh: _Shared
    fn: FloatArr
    fp: FloatArr
    logit_a: FloatArr
    logit_b0: FloatArr  # model B without its calibrated offset
    logit_a_rho0: FloatArr
    logit_b0_rho0: FloatArr


def _population() -> _Pop:
    key = "pop"
    if key not in _MEMO:
        rng = np.random.default_rng(POP_SEED)
        d = draw_cases(POP_CASES, rng)
        sh = _shared(d, rng)
        fn, fp = _grader1(sh)
        la = _model_logit(sh, MODEL_A, rng)
        lb = _model_logit(sh, MODEL_B, rng)
        la0 = _model_logit(sh, MODEL_A_RHO0, rng)
        lb0 = _model_logit(sh, MODEL_B_RHO0, rng)
        _MEMO[key] = _Pop(sh, fn, fp, la, lb, la0, lb0)
    pop = _MEMO[key]
    assert isinstance(pop, _Pop)
    return pop


def _pair_offset(delta_points: float, rho0: bool = False) -> tuple[float, float]:
    """Logit offset for model B so that the population macro(B) - macro(A)
    equals ``delta_points``; returns (offset, achieved truth in points)."""
    key = ("pair", round(delta_points, 9), rho0)
    if key not in _MEMO:
        pop = _population()
        d = pop.sh.d
        la, lb = (pop.logit_a_rho0, pop.logit_b0_rho0) if rho0 else (pop.logit_a, pop.logit_b0)
        ma = _macro(_p_observed(la, pop.fn, pop.fp), d)

        def f(off: float) -> float:
            return _macro(_p_observed(lb + off, pop.fn, pop.fp), d) - ma

        off = _bisect(f, delta_points / 100.0)
        _MEMO[key] = (off, 100.0 * f(off))
    out = _MEMO[key]
    assert isinstance(out, tuple)
    return float(out[0]), float(out[1])


def _spec_with_offset(spec: _ModelSpec, off: float) -> _ModelSpec:
    return _ModelSpec(off, spec.sd_case, spec.comp_offset, spec.sd_scen, spec.sd_item, spec.sd_epoch)


# ---------------------------------------------------------------- generators
def paired(
    n_cases: int, delta_points: float, rng: np.random.Generator
) -> tuple[Encounters, Encounters, float]:
    """Models A and B on the same ``n_cases`` cases (same rubrics, same
    grader).  Returns (A, B, true population macro difference B - A in
    points), the truth being calibrated to ``delta_points``."""
    off, truth = _pair_offset(delta_points)
    d = draw_cases(n_cases, rng)
    sh = _shared(d, rng)
    fn, fp = _grader1(sh)
    la = _model_logit(sh, MODEL_A, rng)
    lb = _model_logit(sh, _spec_with_offset(MODEL_B, off), rng)
    return _encounters(d, _grade(la, fn, fp, rng)), _encounters(d, _grade(lb, fn, fp, rng)), truth


def _planted_truth(comp: str, points: float) -> tuple[float, float, float]:
    """(logit offset on ``comp`` items, competency truth, overall truth)."""
    key = ("plant", comp, round(points, 9))
    if key not in _MEMO:
        pop = _population()
        d = pop.sh.d
        k = COMPETENCIES.index(comp)
        mask = (d.item_comp == k).astype(np.float64)
        ref = pop.logit_a  # same distribution as MODEL_GROUP
        base_c = _comp_macro(_p_observed(ref, pop.fn, pop.fp), d, k)

        def f(off: float) -> float:
            return _comp_macro(_p_observed(ref + off * mask, pop.fn, pop.fp), d, k) - base_c

        off = _bisect(f, points / 100.0, lo=-15.0, hi=15.0)
        q0 = _p_observed(ref, pop.fn, pop.fp)
        q1 = _p_observed(ref + off * mask, pop.fn, pop.fp)
        _MEMO[key] = (off, 100.0 * f(off), 100.0 * (_macro(q1, d) - _macro(q0, d)))
    out = _MEMO[key]
    assert isinstance(out, tuple)
    return float(out[0]), float(out[1]), float(out[2])


def groups(
    n_groups: int,
    n_cases: int,
    planted: tuple[int, str, float] | None,
    rng: np.random.Generator,
) -> tuple[list[Encounters], dict[tuple[int, int, str], float]]:
    """``n_groups`` models on the same cases.  Returns their encounters and
    the true difference (group j - group i, points) for every row
    ``(i, j, row)``, i < j, row in COMPETENCIES + ("overall",)."""
    comp_off = np.zeros(6)
    g_pl = -1
    t_comp = t_all = 0.0
    if planted is not None:
        g_pl, comp, pts = planted
        off, t_comp, t_all = _planted_truth(comp, pts)
        comp_off[COMPETENCIES.index(comp)] = off
    d = draw_cases(n_cases, rng)
    sh = _shared(d, rng)
    fn, fp = _grader1(sh)
    out: list[Encounters] = []
    for g in range(n_groups):
        lg = _model_logit(sh, MODEL_GROUP, rng)
        if g == g_pl:
            lg = lg + comp_off[d.item_comp]
        out.append(_encounters(d, _grade(lg, fn, fp, rng)))
    truths: dict[tuple[int, int, str], float] = {}
    for i in range(n_groups):
        for j in range(i + 1, n_groups):
            sign = 1.0 if j == g_pl else (-1.0 if i == g_pl else 0.0)
            for row in ROWS:
                v = 0.0
                if sign != 0.0 and planted is not None:
                    if row == planted[1]:
                        v = sign * t_comp
                    elif row == "overall":
                        v = sign * t_all
                truths[(i, j, row)] = v
    return out, truths


def _two_grader_truths() -> dict[str, float]:
    key = "two_graders"
    if key not in _MEMO:
        pop = _population()
        d = pop.sh.d
        fn2, fp2 = _grader2(pop.sh, np.random.default_rng((POP_SEED, 7001)))
        p = _expit(pop.logit_a)
        agree = p * ((1 - pop.fn) * (1 - fn2) + pop.fn * fn2) + (1 - p) * ((1 - pop.fp) * (1 - fp2) + pop.fp * fp2)
        q1 = _p_observed(pop.logit_a, pop.fn, pop.fp)
        q2 = _p_observed(pop.logit_a, fn2, fp2)
        _MEMO[key] = {
            "agreement": float(agree.mean()),
            "agreement_scenario_mean": _macro(agree, d),
            "macro_shift_points": 100.0 * (_macro(q2, d) - _macro(q1, d)),
        }
    out = _MEMO[key]
    assert isinstance(out, dict)
    return dict(out)


def two_graders(n_cases: int, rng: np.random.Generator) -> tuple[Encounters, Encounters, dict[str, float]]:
    """One model's encounters marked by grader A and by grader B (same
    underlying behaviour).  Truths: agreement, agreement_scenario_mean
    (proportions), macro_shift_points (B - A)."""
    truths = _two_grader_truths()
    d = draw_cases(n_cases, rng)
    sh = _shared(d, rng)
    fn1, fp1 = _grader1(sh)
    fn2, fp2 = _grader2(sh, rng)
    la = _model_logit(sh, MODEL_A, rng)
    y = rng.random(la.size) < _expit(la)
    r1, r2 = rng.random(la.size), rng.random(la.size)
    v1 = np.where(y, r1 >= fn1, r1 < fp1).astype(np.int8)
    v2 = np.where(y, r2 >= fn2, r2 < fp2).astype(np.int8)
    return _encounters(d, v1), _encounters(d, v2), truths


def _apply_flips(v0: npt.NDArray[np.int8], up: FloatArr, down: FloatArr, rng: np.random.Generator) -> npt.NDArray[np.int8]:
    r = rng.random(v0.size)
    return np.where(v0 == 1, r >= down, r < up).astype(np.int8)


def _perturbed_truths() -> dict[str, float]:
    key = "perturbed"
    if key not in _MEMO:
        pop = _population()
        d = pop.sh.d
        rng = np.random.default_rng((POP_SEED, 7002))
        up, down = _flip_rates(pop.sh, rng)
        q = _p_observed(pop.logit_a, pop.fn, pop.fp)
        res = {
            "flip_up": float(np.sum((1 - q) * up) / np.sum(1 - q)),
            "flip_down": float(np.sum(q * down) / np.sum(q)),
        }
        # scenario means need the actual draws (ratio per scenario)
        sm_up: list[float] = []
        sm_dn: list[float] = []
        for _ in range(4):
            v0 = _grade(pop.logit_a, pop.fn, pop.fp, rng)
            v1 = _apply_flips(v0, up, down, rng)
            n0 = np.bincount(d.item_scen, weights=(v0 == 0).astype(np.float64), minlength=d.n_scenarios)
            n1 = np.bincount(d.item_scen, weights=(v0 == 1).astype(np.float64), minlength=d.n_scenarios)
            fu = np.bincount(d.item_scen, weights=((v0 == 0) & (v1 == 1)).astype(np.float64), minlength=d.n_scenarios)
            fd = np.bincount(d.item_scen, weights=((v0 == 1) & (v1 == 0)).astype(np.float64), minlength=d.n_scenarios)
            sm_up.append(float(np.mean(fu[n0 > 0] / n0[n0 > 0])))
            sm_dn.append(float(np.mean(fd[n1 > 0] / n1[n1 > 0])))
        res["flip_up_scenario_mean"] = float(np.mean(sm_up))
        res["flip_down_scenario_mean"] = float(np.mean(sm_dn))
        _MEMO[key] = res
    out = _MEMO[key]
    assert isinstance(out, dict)
    return dict(out)


def perturbed(n_cases: int, rng: np.random.Generator) -> tuple[Encounters, Encounters, dict[str, float]]:
    """One model's encounters graded on the original record and on a
    perturbed copy by the same grader.  Truths: flip_up, flip_down
    (item-weighted) and flip_up_scenario_mean, flip_down_scenario_mean."""
    truths = _perturbed_truths()
    d = draw_cases(n_cases, rng)
    sh = _shared(d, rng)
    fn, fp = _grader1(sh)
    up, down = _flip_rates(sh, rng)
    la = _model_logit(sh, MODEL_A, rng)
    v0 = _grade(la, fn, fp, rng)
    v1 = _apply_flips(v0, up, down, rng)
    return _encounters(d, v0), _encounters(d, v1), truths


def _one_run_truth() -> float:
    key = "one_run"
    if key not in _MEMO:
        pop = _population()
        _MEMO[key] = 100.0 * _macro(_p_observed(pop.logit_a, pop.fn, pop.fp), pop.sh.d)
    out = _MEMO[key]
    assert isinstance(out, float)
    return out


def one_run(n_cases: int, rng: np.random.Generator) -> tuple[Encounters, float]:
    """One model's graded run; truth = population macro in points."""
    truth = _one_run_truth()
    d = draw_cases(n_cases, rng)
    sh = _shared(d, rng)
    fn, fp = _grader1(sh)
    return _encounters(d, _grade(_model_logit(sh, MODEL_A, rng), fn, fp, rng)), truth


def _full_set_sizes() -> IntArr:
    return np.repeat(_SIZES, [CASE_SIZE_COUNTS[int(s)] for s in _SIZES]).astype(np.int64)


def _pilot_truths(rho0: bool) -> dict[str, float]:
    key = ("pilot", rho0)
    if key not in _MEMO:
        off, truth = _pair_offset(PILOT_DIFFERENCE_POINTS, rho0)
        spec_a = MODEL_A_RHO0 if rho0 else MODEL_A
        spec_b = _spec_with_offset(MODEL_B_RHO0 if rho0 else MODEL_B, off)
        rng = np.random.default_rng((POP_SEED, 7003 + int(rho0)))
        var_full = 0.0
        scen_sq = 0.0
        scen_sum = 0.0
        scen_n = 0
        for m in _SIZES:
            n_m = CASE_SIZE_COUNTS[int(m)]
            k_cases = 8000 if m <= 4 else 2500
            d = draw_cases(k_cases, rng, np.full(k_cases, m))
            sh = _shared(d, rng)
            fn, fp = _grader1(sh)
            va = _grade(_model_logit(sh, spec_a, rng), fn, fp, rng).astype(np.float64)
            vb = _grade(_model_logit(sh, spec_b, rng), fn, fp, rng).astype(np.float64)
            ds = _scen_share(vb, d) - _scen_share(va, d)
            dc = np.bincount(d.case_of, weights=ds, minlength=k_cases)
            var_full += n_m * float(np.var(dc, ddof=1))
            w = n_m / k_cases  # each simulated scenario stands for this many full-set ones
            scen_sq += w * float(np.sum(ds**2))
            scen_sum += w * float(np.sum(ds))
            scen_n += n_m * int(m)
        var_full /= FULL_SCENARIOS**2
        mean_s = scen_sum / scen_n
        var_scen = scen_sq / scen_n - mean_s**2
        sd = math.sqrt(var_full)
        _MEMO[key] = {
            "true_difference_points": truth,
            "sd_full_points": 100.0 * sd,
            "half_width_full_points": 100.0 * _Z975 * sd,
            "mdd80_full_points": 100.0 * (_Z975 + _Z80) * sd,
            "mdd75_full_points": 100.0 * (_Z975 + _Z75) * sd,
            "design_effect": var_full / (var_scen / FULL_SCENARIOS),
        }
    out = _MEMO[key]
    assert isinstance(out, dict)
    return dict(out)


def pilot(
    n_cases: int, rng: np.random.Generator, rho_near_zero: bool = False
) -> tuple[Encounters, Encounters, dict[str, float]]:
    """A pilot of ``n_cases`` cases with a fixed model pair (A, B).  Truths
    are the full-set (595 cases, 1,548 scenarios) quantities for this pair:
    sd_full_points, half_width_full_points, mdd80_full_points,
    mdd75_full_points, true_difference_points, design_effect."""
    truths = _pilot_truths(rho_near_zero)
    off, _ = _pair_offset(PILOT_DIFFERENCE_POINTS, rho_near_zero)
    spec_a = MODEL_A_RHO0 if rho_near_zero else MODEL_A
    spec_b = _spec_with_offset(MODEL_B_RHO0 if rho_near_zero else MODEL_B, off)
    d = draw_cases(n_cases, rng)
    sh = _shared(d, rng)
    fn, fp = _grader1(sh)
    a = _encounters(d, _grade(_model_logit(sh, spec_a, rng), fn, fp, rng))
    b = _encounters(d, _grade(_model_logit(sh, spec_b, rng), fn, fp, rng))
    return a, b, truths


def main() -> None:  # pragma: no cover - quick self-check
    import time

    t0 = time.perf_counter()
    print("one_run truth", _one_run_truth(), f"{time.perf_counter() - t0:.1f}s")
    for dp in (0.0, 3.0, 5.0):
        print("pair", dp, _pair_offset(dp))
    print("two_graders", _two_grader_truths())
    print("perturbed", _perturbed_truths())
    for c in COMPETENCIES:
        print("planted", c, _planted_truth(c, 25.0))
    for r in (False, True):
        print("pilot rho0" if r else "pilot", _pilot_truths(r))
    rng = np.random.default_rng(1)
    t0 = time.perf_counter()
    for _ in range(50):
        paired(100, 3.0, rng)
    print(f"paired(100) {(time.perf_counter() - t0) / 50 * 1000:.1f} ms")


if __name__ == "__main__":  # pragma: no cover
    main()
