"""Held-out simulation 2: a blind generator of clinical-encounter benchmark runs.

Written from the task specification alone (no package code, tests or other bench
files were read) to check someone else's estimators honestly.  Imports only the
standard library and numpy.

Data layout
-----------
A run is a list of scenarios; each scenario belongs to a case (``case_of``) and
has a rubric of items, each in one competency.  Case sizes (scenarios per case)
are drawn from the full set's composition (595 cases, 1,548 scenarios).  Each
scenario's rubric -- number of items per competency -- is drawn at random from
the 1,548 non-empty public rubric files (medsp1000 rubrics; 86 empty and 4
unreadable files dropped), embedded below as ``_RUBRIC_BLOB``.  Items per
scenario: median 11, mean 15.9, range 1-131 (5% have <= 3 items); item shares PC
38.9%, ICS 35.1%, MK 11.9%, SBP 10.2%, PROF 2.6%, PBLI 1.3%; PBLI appears in only
10% and PROF in 22% of scenarios.

Latent model (logit scale) and why
----------------------------------
Latent performance of model m on item i of scenario s in case c (size k):
    eta = ALPHA(0.55) + u_c + v_s + w_i + beta_m + b_mc + e_ms + r_mi
  * u_c, case difficulty: a skewed two-component mixture, 75% N(0.35, 0.80^2)
    ("ordinary" cases) + 25% N(-1.30, 1.10^2) ("hard" cases on which models
    flounder), plus -0.20*log(k).  SD 1.14 (1.14 incl. the size term; >= 1.0 as
    required), skewness -0.64, excess kurtosis 0.52.  Reason: real benchmarks
    have a lump of cases where everything fails; the long left tail and
    size-difficulty link (long multi-scenario cases are harder) make
    scenario-weighted ratio estimators biased and skewed at 6-15 cases.
  * v_s, scenario effect: Laplace, SD 0.60 (heavier tails than normal).
  * w_i, item difficulty: competency mean (PC +0.3, MK -0.2, SBP -0.4,
    ICS +0.5, PBLI -0.6, PROF +0.5) + N(0, 1.30^2); shared by all models
    (same rubric).  Large item spread => strong over-dispersion of scenario
    shares relative to binomial, and 1-3-item scenarios give 0/1 shares.
  * model terms: b_mc ~ N(0, 0.45^2) (model x case; drives the within-case
    correlation of model differences), e_ms ~ N(0, 0.35^2), r_mi ~ N(0, 0.40^2).
    beta_m = 0 except model B in ``paired``/``pilot`` and the planted model.
  * Grader: latent met Z ~ Bernoulli(expit(eta)); the grader marks met with
    P(met | Z=0) = expit(a_i + lam_g + h_gc), P(not met | Z=1) = expit(a_i - lam_g - h_gc),
    item ambiguity a_i ~ N(-3.0, 1.0^2) (typical error rate ~5%, some
    ambiguous items much higher), per-case grader drift h_gc ~ N(0, 0.70^2)
    (a grader reads a whole transcript leniently or harshly -> errors clustered
    by case), leniency lam_A = 0, lam_B = +0.60.  All single-grader generators
    use grader A; both models of a pair share a_i and h_Ac (same grader).
  * Perturbation (``perturbed``): Z1 flips from Z0 with P(0->1) = expit(-2.6 + f_cs),
    P(1->0) = expit(-2.9 + f_cs); fragility f_cs = f_c + N(0, 0.5^2), where
    f_c = -3 (inert perturbation) for 40% of cases and N(0, 1) otherwise.  The
    grader re-marks the perturbed record; where Z is unchanged it repeats its
    earlier verdict with probability 0.60 (grader is largely deterministic),
    else marks afresh.  Zero-inflated, case-clustered flips stress intervals for
    rates near 0 at 6-10 cases.
  * Pilot pair: B = A + beta with a true macro difference of 3.0 points.
    Default b_mc SD 0.45 -> within-case correlation of scenario differences
    0.11 (design effect 1.56).  ``rho_near_zero=True`` sets b_mc = 0 -> within-
    case correlation 0.0004 (design effect 1.00).
Calibration: B's logit offset (``paired``, ``pilot``) and the planted model's
offset on its competency's items (``groups``) are found by bisection so that the
population macro (competency macro) difference equals the requested points,
using common random numbers on the population below (MC SE of a calibrated
difference: 0.002-0.013 points for 2-10 points).

Population truths (fixed seed, memoised; "population" = the full-set
composition replicated 120 times: 71,400 cases, 185,760 scenarios, 2.94 M items;
expectations are exact given the latent draws, MC only over the latent draws;
scenario-weighted = every scenario counts once, item-weighted = every item)
  one_run macro                 55.65 points (8 populations, MC SE 0.06)
  competency macros (1 pop.)    PC 56.6, MK 50.3, SBP 47.7, ICS 59.2, PBLI 45.2, PROF 59.0
  planted 25-point offsets      PC 2.57, MK 2.21, SBP 2.13, ICS 2.82, PBLI 2.07, PROF 2.81
    -> overall shift (points)   PC 9.32, MK 3.41, SBP 2.94, ICS 8.31, PBLI 0.44, PROF 0.58
  two_graders                   agreement 0.8606 (SE 0.0002), agreement_scenario_mean
                                0.8603 (SE 0.0002), macro_shift_points 3.84 (SE 0.04)
  perturbed                     flip_up 0.1088 (SE 0.0005), flip_down 0.0876 (SE 0.0004),
                                flip_up_scenario_mean 0.1165 (SE 0.0006),
                                flip_down_scenario_mean 0.0942 (SE 0.0005)
  (scenario means are over scenarios with >= 1 item in the conditioning state,
  from 4 Bernoulli draws on the population.)
  pilot, full set (595 cases / 1,548 scenarios, fixed composition):
    default:       sd 0.775, half-width 1.519, mdd80 2.172, mdd75 2.042,
                   true difference 3.00, design effect 1.56
    rho_near_zero: sd 0.588, half-width 1.151, mdd80 1.646, mdd75 1.548,
                   true difference 3.00, design effect 1.00
    computed as Var = sum_k n_k [k V_k + k(k-1) C_k] / 1548^2 with V_k, C_k
    (variance of one scenario's observed difference incl. binomial noise, and
    within-case covariance) from 30,000 two-scenario cases per size k; MC SE
    of sd about 0.5%.  Direct check, 600 simulated full sets: sd 0.770 +/- 0.022
    (default) and 0.592 +/- 0.017 (rho_near_zero).  ``pilot`` also returns
    "within_case_rho" (extra key).
Timings (this machine, loaded): per replicate at 100 cases one_run 2-3 ms,
paired 2-4 ms, two_graders 3 ms, perturbed 2-4 ms, groups(14, 100) 11-17 ms,
pilot(85) 2-4 ms; truths: population 1-3 s, one_run 8 s, paired calibration
< 1 s per delta, planted < 1 s per (comp, pts), graders + perturbation 7 s,
pilot 18 s per setting (all once, memoised).  ``python heldout_simulation2.py``
runs the self-check (3-4 min incl. the direct full-set checks).
"""

from __future__ import annotations

import base64
import math
import time
import zlib
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

COMPETENCIES: tuple[str, ...] = ("PC", "MK", "SBP", "ICS", "PBLI", "PROF")
_COMP_ARR = np.array(COMPETENCIES)
ROWS: tuple[str, ...] = (*COMPETENCIES, "overall")

FULL_SET_SIZES: dict[int, int] = {
    1: 302,
    2: 91,
    3: 73,
    4: 58,
    5: 15,
    6: 20,
    7: 7,
    8: 6,
    9: 5,
    10: 4,
    11: 4,
    12: 1,
    15: 2,
    16: 1,
    18: 2,
    19: 1,
    20: 1,
    29: 1,
    30: 1,
}
_SIZE_VALUES = np.array(sorted(FULL_SET_SIZES), dtype=np.int64)
_SIZE_COUNTS = np.array([FULL_SET_SIZES[k] for k in _SIZE_VALUES], dtype=np.int64)
_SIZE_P = _SIZE_COUNTS / _SIZE_COUNTS.sum()
FULL_N_CASES = int(_SIZE_COUNTS.sum())  # 595
FULL_N_SCENARIOS = int((_SIZE_VALUES * _SIZE_COUNTS).sum())  # 1548
Z975 = 1.959964
Z80 = 0.841621
Z75 = 0.674490

# --------------------------------------------------------------------------
# Latent-model settings (reasons in the module docstring).
# --------------------------------------------------------------------------
ALPHA = 0.55  # logit intercept
SIZE_SLOPE = -0.20  # case difficulty shift per log(scenarios in case)
CASE_MIX_P_HARD = 0.25  # share of "hard" cases in the case-effect mixture
CASE_EASY = (0.35, 0.80)  # (mean, sd) of the easy component
CASE_HARD = (-1.30, 1.10)  # (mean, sd) of the hard component
SCEN_LAPLACE_SD = 0.60  # scenario effect: Laplace with this SD
ITEM_SD = 1.30  # item difficulty SD (normal)
COMP_MEAN = {"PC": 0.30, "MK": -0.20, "SBP": -0.40, "ICS": 0.50, "PBLI": -0.60, "PROF": 0.50}
MODEL_CASE_SD = 0.45  # model x case interaction
MODEL_SCEN_SD = 0.35  # model x scenario interaction
MODEL_ITEM_SD = 0.40  # model x item interaction
AMBIG_MEAN, AMBIG_SD = -3.0, 1.0  # item ambiguity (logit of grader error rate)
GRADER_CASE_SD = 0.70  # grader x case drift (leniency) on the logit scale
GRADER_B_LENIENCY = 0.60  # grader B is more lenient than grader A
FRAG_P_INERT = 0.40  # share of cases on which the perturbation is inert
FRAG_INERT = -3.0  # fragility logit of inert cases
FRAG_SD = 1.00  # fragility SD of the other cases
FRAG_SCEN_SD = 0.50  # scenario-level fragility SD
FLIP_UP_INT = -2.6  # logit of P(latent 0 -> 1 | perturbation)
FLIP_DOWN_INT = -2.9  # logit of P(latent 1 -> 0 | perturbation)
GRADER_STICKY = 0.60  # P(grader repeats its verdict when the latent state is unchanged)
PILOT_DELTA = 3.0  # true macro difference (points) of the pilot pair
POP_REPLICATES = 120  # population = full-set composition x this many
POP_SEED = 20261128

_COMP_MEAN_ARR = np.array([COMP_MEAN[c] for c in COMPETENCIES])


@dataclass(frozen=True)
class Encounters:
    case_of: np.ndarray  # int, per scenario: its case index (0..n_cases-1)
    met: list[np.ndarray]  # per scenario: 0/1 (int8) per item
    competency: list[np.ndarray]  # per scenario: competency code (str) per item


@lru_cache(maxsize=1)
def _rubric_bank() -> np.ndarray:
    """(1548, 6) item counts per competency of the non-empty public rubrics."""
    raw = zlib.decompress(base64.b64decode("".join(_RUBRIC_BLOB)))
    return np.frombuffer(raw, dtype=np.uint8).reshape(6, -1).T.astype(np.int64)


def _expit(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


# --------------------------------------------------------------------------
# Design: everything shared by models / graders on one draw of cases.
# --------------------------------------------------------------------------
@dataclass
class _Design:
    n_cases: int
    case_of: np.ndarray  # per scenario
    n_items: np.ndarray  # per scenario
    starts: np.ndarray  # per scenario: first item index
    item_scen: np.ndarray  # per item
    item_case: np.ndarray  # per item
    comp: np.ndarray  # per item: competency code 0..5
    base: np.ndarray  # per item: alpha + case + scenario + item effects
    amb: np.ndarray  # per item: ambiguity logit
    h_a: np.ndarray  # per case: grader A drift
    h_b: np.ndarray  # per case: grader B drift
    frag: np.ndarray  # per item: fragility logit (case + scenario)
    comp_list: list[np.ndarray]


def _draw_sizes(n_cases: int, rng: np.random.Generator) -> np.ndarray:
    return rng.choice(_SIZE_VALUES, size=n_cases, p=_SIZE_P)


def _full_sizes() -> np.ndarray:
    return np.repeat(_SIZE_VALUES, _SIZE_COUNTS)


def _case_effect(n: int, rng: np.random.Generator) -> np.ndarray:
    hard = rng.random(n) < CASE_MIX_P_HARD
    z = rng.standard_normal(n)
    return np.where(hard, CASE_HARD[0] + CASE_HARD[1] * z, CASE_EASY[0] + CASE_EASY[1] * z)


def _draw_design(
    sizes: np.ndarray,
    rng: np.random.Generator,
    *,
    shift_sizes: np.ndarray | None = None,
    lists: bool = True,
) -> _Design:
    n_cases = len(sizes)
    case_of = np.repeat(np.arange(n_cases), sizes)
    n_scen = len(case_of)
    bank = _rubric_bank()
    counts = bank[rng.integers(0, len(bank), size=n_scen)]  # (S, 6)
    n_items = counts.sum(axis=1)
    comp = np.repeat(np.tile(np.arange(6), n_scen), counts.ravel())
    item_scen = np.repeat(np.arange(n_scen), n_items)
    item_case = case_of[item_scen]
    starts = np.concatenate(([0], np.cumsum(n_items)[:-1]))
    n_tot = int(n_items.sum())
    ss = sizes if shift_sizes is None else shift_sizes
    u = _case_effect(n_cases, rng) + SIZE_SLOPE * np.log(ss)
    v = rng.laplace(0.0, SCEN_LAPLACE_SD / math.sqrt(2.0), size=n_scen)
    w = _COMP_MEAN_ARR[comp] + ITEM_SD * rng.standard_normal(n_tot)
    base = ALPHA + u[item_case] + v[item_scen] + w
    amb = AMBIG_MEAN + AMBIG_SD * rng.standard_normal(n_tot)
    h_a = GRADER_CASE_SD * rng.standard_normal(n_cases)
    h_b = GRADER_CASE_SD * rng.standard_normal(n_cases)
    fc = np.where(
        rng.random(n_cases) < FRAG_P_INERT, FRAG_INERT, FRAG_SD * rng.standard_normal(n_cases)
    )
    fs = FRAG_SCEN_SD * rng.standard_normal(n_scen)
    frag = fc[item_case] + fs[item_scen]
    comp_list = np.split(_COMP_ARR[comp], starts[1:]) if lists else []
    return _Design(
        n_cases,
        case_of,
        n_items,
        starts,
        item_scen,
        item_case,
        comp,
        base,
        amb,
        h_a,
        h_b,
        frag,
        comp_list,
    )


def _model_terms(
    d: _Design, rng: np.random.Generator, case_sd: float = MODEL_CASE_SD
) -> np.ndarray:
    b = case_sd * rng.standard_normal(d.n_cases)
    e = MODEL_SCEN_SD * rng.standard_normal(len(d.case_of))
    r = MODEL_ITEM_SD * rng.standard_normal(len(d.base))
    return b[d.item_case] + e[d.item_scen] + r


def _grader_errors(d: _Design, grader: str) -> tuple[np.ndarray, np.ndarray]:
    """(false-positive prob, false-negative prob) per item."""
    h = d.h_a[d.item_case] if grader == "A" else d.h_b[d.item_case] + GRADER_B_LENIENCY
    fp = _expit(d.amb + h)
    fn = _expit(d.amb - h)
    return fp, fn


def _p_met(p: np.ndarray, fp: np.ndarray, fn: np.ndarray) -> np.ndarray:
    return p * (1.0 - fn) + (1.0 - p) * fp


def _split(d: _Design, met: np.ndarray) -> list[np.ndarray]:
    return np.split(met.astype(np.int8), d.starts[1:])


def _enc(d: _Design, met: np.ndarray) -> Encounters:
    return Encounters(d.case_of.copy(), _split(d, met), d.comp_list)


def _grade_once(d: _Design, logit: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    fp, fn = _grader_errors(d, "A")
    return rng.random(len(logit)) < _p_met(_expit(logit), fp, fn)


# --------------------------------------------------------------------------
# Scenario / competency shares from per-item probabilities.
# --------------------------------------------------------------------------
def _scen_mean(d: _Design, x: np.ndarray) -> np.ndarray:
    return np.bincount(d.item_scen, weights=x, minlength=len(d.case_of)) / d.n_items


def _comp_scen_mean(d: _Design, x: np.ndarray, c: int) -> tuple[np.ndarray, np.ndarray]:
    m = d.comp == c
    n = np.bincount(d.item_scen[m], minlength=len(d.case_of))
    s = np.bincount(d.item_scen[m], weights=x[m], minlength=len(d.case_of))
    has = n > 0
    return s[has] / n[has], d.case_of[has]


def _cluster_mean_se(
    vals: np.ndarray, clusters: np.ndarray, n_clusters: int
) -> tuple[float, float]:
    """Mean over units and its cluster-robust (ratio/delta-method) SE."""
    tot = np.bincount(clusters, weights=vals, minlength=n_clusters)
    cnt = np.bincount(clusters, minlength=n_clusters).astype(float)
    mean = tot.sum() / cnt.sum()
    resid = tot - mean * cnt
    se = math.sqrt((resid**2).sum()) / cnt.sum()
    return float(mean), float(se)


def _ratio_se(
    num: np.ndarray, den: np.ndarray, clusters: np.ndarray, n_clusters: int
) -> tuple[float, float]:
    tn = np.bincount(clusters, weights=num, minlength=n_clusters)
    td = np.bincount(clusters, weights=den, minlength=n_clusters)
    r = tn.sum() / td.sum()
    se = math.sqrt(((tn - r * td) ** 2).sum()) / td.sum()
    return float(r), float(se)


# --------------------------------------------------------------------------
# Population (fixed seed, memoised): the full-set composition x POP_REPLICATES.
# --------------------------------------------------------------------------
@dataclass
class _Pop:
    d: _Design
    z_case: np.ndarray
    m_rest: np.ndarray  # model x scenario + model x item terms (one draw)


@lru_cache(maxsize=1)
def _population() -> _Pop:
    rng = np.random.default_rng(POP_SEED)
    sizes = np.tile(_full_sizes(), POP_REPLICATES)
    d = _draw_design(sizes, rng, lists=False)
    z_case = rng.standard_normal(d.n_cases)
    e = MODEL_SCEN_SD * rng.standard_normal(len(d.case_of))
    r = MODEL_ITEM_SD * rng.standard_normal(len(d.base))
    return _Pop(d, z_case, e[d.item_scen] + r)


def _pop_pmet(beta: float | np.ndarray, case_sd: float = MODEL_CASE_SD) -> np.ndarray:
    pop = _population()
    d = pop.d
    logit = d.base + case_sd * pop.z_case[d.item_case] + pop.m_rest + beta
    fp, fn = _grader_errors(d, "A")
    return _p_met(_expit(logit), fp, fn)


def _pop_macro(beta: float, case_sd: float = MODEL_CASE_SD) -> float:
    d = _population().d
    return float(_scen_mean(d, _pop_pmet(beta, case_sd)).mean())


def _pop_comp_macro(beta: float, c: int) -> float:
    d = _population().d
    m = d.comp == c
    shift = np.where(m, beta, 0.0)
    share, _ = _comp_scen_mean(d, _pop_pmet(shift), c)
    return float(share.mean())


def _bisect(f, target: float, lo: float = -12.0, hi: float = 12.0, tol: float = 1e-7) -> float:
    flo, fhi = f(lo) - target, f(hi) - target
    if flo > 0 or fhi < 0:
        raise ValueError(
            f"target {target} outside attainable range [{flo + target}, {fhi + target}]"
        )
    while hi - lo > tol:
        mid = 0.5 * (lo + hi)
        if f(mid) - target < 0:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


@lru_cache(maxsize=256)
def _paired_calibration(delta_points: float, case_sd: float = MODEL_CASE_SD) -> tuple[float, float]:
    """B's logit offset and the resulting population macro difference (points)."""
    if delta_points == 0.0:
        return 0.0, 0.0
    m0 = _pop_macro(0.0, case_sd)
    beta = _bisect(lambda b: 100.0 * (_pop_macro(b, case_sd) - m0), delta_points)
    return beta, 100.0 * (_pop_macro(beta, case_sd) - m0)


@lru_cache(maxsize=64)
def _planted_calibration(comp: str, pts: float) -> tuple[float, float]:
    """Planted model's logit offset on `comp` items and its overall-macro shift (points)."""
    c = COMPETENCIES.index(comp)
    if pts == 0.0:
        return 0.0, 0.0
    c0 = _pop_comp_macro(0.0, c)
    beta = _bisect(lambda b: 100.0 * (_pop_comp_macro(b, c) - c0), pts)
    d = _population().d
    shift = np.where(d.comp == c, beta, 0.0)
    overall = 100.0 * (
        _scen_mean(d, _pop_pmet(shift)).mean() - _scen_mean(d, _pop_pmet(0.0)).mean()
    )
    return beta, float(overall)


ONE_RUN_CHUNKS = 8  # independent populations averaged for the population macro


@lru_cache(maxsize=1)
def _one_run_truth_se() -> tuple[float, float]:
    """Population macro (points) averaged over independent population draws, and its MC SE."""
    vals = [100.0 * _pop_macro(0.0)]
    for k in range(1, ONE_RUN_CHUNKS):
        rng = np.random.default_rng(POP_SEED + 1000 + k)
        d = _draw_design(np.tile(_full_sizes(), POP_REPLICATES), rng, lists=False)
        fp, fn = _grader_errors(d, "A")
        vals.append(
            100.0
            * float(_scen_mean(d, _p_met(_expit(d.base + _model_terms(d, rng)), fp, fn)).mean())
        )
    return float(np.mean(vals)), float(np.std(vals, ddof=1) / math.sqrt(len(vals)))


def _one_run_truth() -> float:
    return _one_run_truth_se()[0]


_TWO_GRADER_SE: dict[str, float] = {}


@lru_cache(maxsize=1)
def _two_grader_truths() -> dict[str, float]:
    pop = _population()
    d = pop.d
    p = _expit(d.base + MODEL_CASE_SD * pop.z_case[d.item_case] + pop.m_rest)
    fpa, fna = _grader_errors(d, "A")
    fpb, fnb = _grader_errors(d, "B")
    agree = p * ((1 - fna) * (1 - fnb) + fna * fnb) + (1 - p) * (fpa * fpb + (1 - fpa) * (1 - fpb))
    shift = _scen_mean(d, _p_met(p, fpb, fnb)) - _scen_mean(d, _p_met(p, fpa, fna))
    global _TWO_GRADER_SE
    _TWO_GRADER_SE = {
        "agreement": _ratio_se(agree, np.ones_like(agree), d.item_case, d.n_cases)[1],
        "agreement_scenario_mean": _cluster_mean_se(_scen_mean(d, agree), d.case_of, d.n_cases)[1],
        "macro_shift_points": 100.0 * _cluster_mean_se(shift, d.case_of, d.n_cases)[1],
    }
    return {
        "agreement": float(agree.mean()),
        "agreement_scenario_mean": float(_scen_mean(d, agree).mean()),
        "macro_shift_points": 100.0 * float(shift.mean()),
    }


def _flip_probs(d: _Design, p: np.ndarray) -> dict[str, np.ndarray]:
    """Exact per-item joint probabilities of (original, perturbed) verdicts."""
    fp, fn = _grader_errors(d, "A")
    up = _expit(FLIP_UP_INT + d.frag)  # P(z1=1 | z0=0)
    down = _expit(FLIP_DOWN_INT + d.frag)  # P(z1=0 | z0=1)
    py1 = {0: fp, 1: 1 - fn}  # P(Y=1 | z)
    s = GRADER_STICKY
    out = {"00": 0.0, "01": 0.0, "10": 0.0, "11": 0.0}
    for z0, pz0 in ((0, 1 - p), (1, p)):
        for z1 in (0, 1):
            p_change = up if z0 == 0 else down
            pz1 = p_change if z1 != z0 else 1 - p_change
            w = pz0 * pz1
            a1, b1 = py1[z0], py1[z1]
            for y0 in (0, 1):
                pa = a1 if y0 == 1 else 1 - a1
                for y1 in (0, 1):
                    pb = b1 if y1 == 1 else 1 - b1
                    if z0 == z1:
                        joint = s * (pa if y0 == y1 else 0.0) + (1 - s) * pa * pb
                    else:
                        joint = pa * pb
                    out[f"{y0}{y1}"] = out[f"{y0}{y1}"] + w * joint
    return out


def _perturb_draw(
    d: _Design, logit: np.ndarray, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    n = len(logit)
    fp, fn = _grader_errors(d, "A")
    z0 = rng.random(n) < _expit(logit)
    flip = rng.random(n) < np.where(
        z0, _expit(FLIP_DOWN_INT + d.frag), _expit(FLIP_UP_INT + d.frag)
    )
    z1 = z0 ^ flip
    y0 = rng.random(n) < np.where(z0, 1 - fn, fp)
    fresh = rng.random(n) < np.where(z1, 1 - fn, fp)
    stick = (~flip) & (rng.random(n) < GRADER_STICKY)
    y1 = np.where(stick, y0, fresh)
    return y0, y1


def _scenario_flip_means(
    d: _Design, y0: np.ndarray, y1: np.ndarray
) -> dict[str, tuple[float, float]]:
    S = len(d.case_of)
    n0 = np.bincount(d.item_scen, weights=~y0, minlength=S)
    n1 = np.bincount(d.item_scen, weights=y0, minlength=S)
    up = np.bincount(d.item_scen, weights=(~y0) & y1, minlength=S)
    dn = np.bincount(d.item_scen, weights=y0 & ~y1, minlength=S)
    out = {}
    h0, h1 = n0 > 0, n1 > 0
    out["flip_up_scenario_mean"] = _cluster_mean_se(up[h0] / n0[h0], d.case_of[h0], d.n_cases)
    out["flip_down_scenario_mean"] = _cluster_mean_se(dn[h1] / n1[h1], d.case_of[h1], d.n_cases)
    return out


@lru_cache(maxsize=1)
def _perturbed_truths_se() -> tuple[dict[str, float], dict[str, float]]:
    pop = _population()
    d = pop.d
    logit = d.base + MODEL_CASE_SD * pop.z_case[d.item_case] + pop.m_rest
    j = _flip_probs(d, _expit(logit))
    truth, se = {}, {}
    truth["flip_up"], se["flip_up"] = _ratio_se(j["01"], j["00"] + j["01"], d.item_case, d.n_cases)
    truth["flip_down"], se["flip_down"] = _ratio_se(
        j["10"], j["10"] + j["11"], d.item_case, d.n_cases
    )
    rng = np.random.default_rng(POP_SEED + 7)
    acc: dict[str, list[tuple[float, float]]] = {
        "flip_up_scenario_mean": [],
        "flip_down_scenario_mean": [],
    }
    for _ in range(4):
        y0, y1 = _perturb_draw(d, logit, rng)
        for k, v in _scenario_flip_means(d, y0, y1).items():
            acc[k].append(v)
    for k, v in acc.items():
        truth[k] = float(np.mean([a for a, _ in v]))
        se[k] = float(
            math.sqrt(np.mean([b**2 for _, b in v]))
        )  # conservative (draws share the population)
    return truth, se


# --------------------------------------------------------------------------
# Pilot truths at the full set (fixed 595-case composition).
# --------------------------------------------------------------------------
PILOT_PAIR_CASES = 30000  # two-scenario cases simulated per case size for the variance components


@lru_cache(maxsize=2)
def _pilot_truths(rho_near_zero: bool) -> dict[str, float]:
    case_sd = 0.0 if rho_near_zero else MODEL_CASE_SD
    beta, true_diff = _paired_calibration(PILOT_DELTA, case_sd)
    rng = np.random.default_rng(POP_SEED + (11 if rho_near_zero else 13))
    var_full = 0.0
    w_sum, m_w, v_w = 0.0, 0.0, 0.0
    pair_num, pair_den = 0.0, 0.0
    for k, cnt in zip(_SIZE_VALUES, _SIZE_COUNTS, strict=True):
        M = PILOT_PAIR_CASES
        d = _draw_design(np.full(M, 2), rng, shift_sizes=np.full(M, k), lists=False)
        fp, fn = _grader_errors(d, "A")
        pa = _p_met(_expit(d.base + _model_terms(d, rng, case_sd)), fp, fn)
        pb = _p_met(_expit(d.base + _model_terms(d, rng, case_sd) + beta), fp, fn)
        e = _scen_mean(d, pb) - _scen_mean(d, pa)
        bv = np.bincount(d.item_scen, weights=pa * (1 - pa) + pb * (1 - pb)) / d.n_items**2
        e1, e2 = e[0::2], e[1::2]
        m = e.mean()
        a_k = e.var()
        b_k = float(np.mean((e1 - m) * (e2 - m)))
        v_k = a_k + bv.mean()  # Var of one scenario's observed difference | k
        var_d = k * v_k + k * (k - 1) * b_k
        var_full += cnt * var_d
        w = k * cnt
        w_sum += w
        m_w += w * m
        v_w += w * (v_k + m**2)
        pair_num += cnt * k * (k - 1) * b_k
        pair_den += cnt * k * (k - 1) * v_k
    var_full /= FULL_N_SCENARIOS**2
    var_scen = v_w / w_sum - (m_w / w_sum) ** 2
    sd = 100.0 * math.sqrt(var_full)
    return {
        "sd_full_points": sd,
        "half_width_full_points": Z975 * sd,
        "mdd80_full_points": (Z975 + Z80) * sd,
        "mdd75_full_points": (Z975 + Z75) * sd,
        "true_difference_points": true_diff,
        "design_effect": float(var_full / (var_scen / FULL_N_SCENARIOS)),
        "within_case_rho": float(pair_num / pair_den),
    }


# --------------------------------------------------------------------------
# Public generators.
# --------------------------------------------------------------------------
def one_run(n_cases: int, rng: np.random.Generator) -> tuple[Encounters, float]:
    """One model's run on n_cases fresh cases; truth = population macro (points)."""
    truth = _one_run_truth()
    d = _draw_design(_draw_sizes(n_cases, rng), rng)
    met = _grade_once(d, d.base + _model_terms(d, rng), rng)
    return _enc(d, met), truth


def paired(
    n_cases: int, delta_points: float, rng: np.random.Generator
) -> tuple[Encounters, Encounters, float]:
    """Models A and B on the same cases, rubrics and grader.

    Truth = population macro(B) - macro(A), points.
    """
    beta, truth = _paired_calibration(float(delta_points))
    d = _draw_design(_draw_sizes(n_cases, rng), rng)
    ya = _grade_once(d, d.base + _model_terms(d, rng), rng)
    yb = _grade_once(d, d.base + _model_terms(d, rng) + beta, rng)
    return _enc(d, ya), _enc(d, yb), truth


def groups(
    n_groups: int, n_cases: int, planted: tuple[int, str, float] | None, rng: np.random.Generator
) -> tuple[list[Encounters], dict[tuple[int, int, str], float]]:
    """n_groups exchangeable models on the same cases; optionally one planted advantage."""
    g_pl, c_pl, beta, overall = -1, -1, 0.0, 0.0
    if planted is not None:
        g_pl, comp, pts = planted
        c_pl = COMPETENCIES.index(comp)
        beta, overall = _planted_calibration(comp, float(pts))
    d = _draw_design(_draw_sizes(n_cases, rng), rng)
    out = []
    for g in range(n_groups):
        logit = d.base + _model_terms(d, rng)
        if g == g_pl:
            logit = logit + np.where(d.comp == c_pl, beta, 0.0)
        out.append(_enc(d, _grade_once(d, logit, rng)))
    truths: dict[tuple[int, int, str], float] = {}
    for i in range(n_groups):
        for j in range(i + 1, n_groups):
            sign = 1.0 if j == g_pl else (-1.0 if i == g_pl else 0.0)
            for row in ROWS:
                val = 0.0
                if sign != 0.0 and planted is not None:
                    if row == "overall":
                        val = sign * overall
                    elif row == planted[1]:
                        val = sign * float(planted[2])
                truths[(i, j, row)] = val
    return out, truths


def two_graders(
    n_cases: int, rng: np.random.Generator
) -> tuple[Encounters, Encounters, dict[str, float]]:
    """One model's encounters marked by grader A and by grader B (same latent performance)."""
    truth = dict(_two_grader_truths())
    d = _draw_design(_draw_sizes(n_cases, rng), rng)
    z = rng.random(len(d.base)) < _expit(d.base + _model_terms(d, rng))
    fpa, fna = _grader_errors(d, "A")
    fpb, fnb = _grader_errors(d, "B")
    ya = rng.random(len(z)) < np.where(z, 1 - fna, fpa)
    yb = rng.random(len(z)) < np.where(z, 1 - fnb, fpb)
    return _enc(d, ya), _enc(d, yb), truth


def perturbed(
    n_cases: int, rng: np.random.Generator
) -> tuple[Encounters, Encounters, dict[str, float]]:
    """The same grader on the original and on a perturbed record."""
    truth = dict(_perturbed_truths_se()[0])
    d = _draw_design(_draw_sizes(n_cases, rng), rng)
    y0, y1 = _perturb_draw(d, d.base + _model_terms(d, rng), rng)
    return _enc(d, y0), _enc(d, y1), truth


def pilot(
    n_cases: int, rng: np.random.Generator, rho_near_zero: bool = False
) -> tuple[Encounters, Encounters, dict[str, float]]:
    """A pilot run of a fixed model pair; truths describe the FULL set (595 cases, 1,548 scen.)."""
    truth = dict(_pilot_truths(bool(rho_near_zero)))
    case_sd = 0.0 if rho_near_zero else MODEL_CASE_SD
    beta, _ = _paired_calibration(PILOT_DELTA, case_sd)
    d = _draw_design(_draw_sizes(n_cases, rng), rng)
    ya = _grade_once(d, d.base + _model_terms(d, rng, case_sd), rng)
    yb = _grade_once(d, d.base + _model_terms(d, rng, case_sd) + beta, rng)
    return _enc(d, ya), _enc(d, yb), truth


# --------------------------------------------------------------------------
# Self-check.
# --------------------------------------------------------------------------
def _macro(e: Encounters) -> float:
    return float(np.mean([m.mean() for m in e.met]))


def _direct_full_set_sd(rho_near_zero: bool, reps: int, seed: int) -> tuple[float, float, float]:
    case_sd = 0.0 if rho_near_zero else MODEL_CASE_SD
    beta, _ = _paired_calibration(PILOT_DELTA, case_sd)
    rng = np.random.default_rng(seed)
    sizes = _full_sizes()
    diffs = np.empty(reps)
    for t in range(reps):
        d = _draw_design(sizes, rng, lists=False)
        ya = _grade_once(d, d.base + _model_terms(d, rng, case_sd), rng)
        yb = _grade_once(d, d.base + _model_terms(d, rng, case_sd) + beta, rng)
        diffs[t] = (
            100.0 * (_scen_mean(d, yb.astype(float)) - _scen_mean(d, ya.astype(float))).mean()
        )
    sd = float(diffs.std(ddof=1))
    return sd, sd / math.sqrt(2 * (reps - 1)), float(diffs.mean())


def main() -> None:
    t0 = time.perf_counter()
    pop = _population()
    t1 = time.perf_counter()
    print(
        f"population: {pop.d.n_cases} cases, {len(pop.d.case_of)} scenarios, "
        f"{len(pop.d.base)} items ({t1 - t0:.1f}s)"
    )
    d = pop.d
    sh = _scen_mean(d, _pop_pmet(0.0))
    m, se = _cluster_mean_se(sh, d.case_of, d.n_cases)
    print(f"one population: macro {100 * m:.3f} (cluster MC SE {100 * se:.3f})")
    tr1, se1 = _one_run_truth_se()
    print(
        f"one_run truth (population macro, {ONE_RUN_CHUNKS} populations): "
        f"{tr1:.3f} points (MC SE {se1:.3f})"
    )
    for c, comp in enumerate(COMPETENCIES):
        share, cl = _comp_scen_mean(d, _pop_pmet(0.0), c)
        cm, cse = _cluster_mean_se(share, cl, d.n_cases)
        print(
            f"  competency macro {comp:4s}: {100 * cm:.2f} (SE {100 * cse:.3f}), "
            f"scenarios with it {len(share) / len(d.case_of):.3f}"
        )
    for delta in (2.0, 5.0, 10.0, -5.0):
        beta, tr = _paired_calibration(delta)
        diff = _scen_mean(d, _pop_pmet(beta)) - sh
        _, dse = _cluster_mean_se(diff, d.case_of, d.n_cases)
        print(
            f"paired delta={delta:+.1f}: beta={beta:+.4f}, truth={tr:+.4f} "
            f"(CRN MC SE {100 * dse:.3f})"
        )
    for comp in COMPETENCIES:
        beta, ov = _planted_calibration(comp, 25.0)
        print(f"planted 25 pts on {comp:4s}: beta={beta:+.3f}, overall shift {ov:+.3f} points")
    t2 = time.perf_counter()
    tg = _two_grader_truths()
    print("two_graders truths:", {k: round(v, 5) for k, v in tg.items()})
    print("two_graders MC SEs:", {k: round(v, 5) for k, v in _TWO_GRADER_SE.items()})
    tp, sp = _perturbed_truths_se()
    print("perturbed truths:", {k: round(v, 5) for k, v in tp.items()})
    print("perturbed MC SEs:", {k: round(v, 5) for k, v in sp.items()})
    t3 = time.perf_counter()
    print(f"(grader/perturbation truths {t3 - t2:.1f}s)")
    for rz in (False, True):
        t4 = time.perf_counter()
        pt = _pilot_truths(rz)
        t5 = time.perf_counter()
        print(
            f"pilot truths rho_near_zero={rz} ({t5 - t4:.1f}s):",
            {k: round(v, 4) for k, v in pt.items()},
        )
        sd, sdse, mean = _direct_full_set_sd(rz, 600, POP_SEED + 101 + rz)
        print(f"  direct check, 600 full sets: SD={sd:.4f} (+/- {sdse:.4f}), mean diff={mean:.3f}")
    rng = np.random.default_rng(1)
    for name, fn in (
        ("one_run(100)", lambda: one_run(100, rng)),
        ("paired(100, 5)", lambda: paired(100, 5.0, rng)),
        ("groups(14, 100, planted)", lambda: groups(14, 100, (3, "PBLI", 25.0), rng)),
        ("two_graders(100)", lambda: two_graders(100, rng)),
        ("perturbed(100)", lambda: perturbed(100, rng)),
        ("pilot(85)", lambda: pilot(85, rng)),
    ):
        fn()
        ts = time.perf_counter()
        for _ in range(20):
            fn()
        print(f"timing {name}: {(time.perf_counter() - ts) / 20 * 1000:.1f} ms/replicate")
    # sanity: simulated means vs truths
    rng = np.random.default_rng(2)
    mac = [_macro(one_run(100, rng)[0]) for _ in range(400)]
    print(
        f"one_run mean macro over 400x100 cases: {100 * np.mean(mac):.2f} "
        f"vs truth {_one_run_truth():.2f}"
    )
    dif = []
    for _ in range(400):
        a, b, tr = paired(100, 5.0, rng)
        dif.append(_macro(b) - _macro(a))
    print(f"paired mean diff over 400x100 cases: {100 * np.mean(dif):.2f} vs truth {tr:.2f}")
    print(f"total {time.perf_counter() - t0:.1f}s")


_RUBRIC_BLOB = (
    "eNrFWdlyG8kR7Kq+p+fARfCSqGMZklZrbTjs2EeHwy+2X/z/v+Os6p7BgARlyrEOj0QSwPR0"
    "15GVdWAMzlpTr7Aj/KJAck3XjI+cw0c+Zx9zOHz2ZMpgfIkhpJC6LueuY2IsdGYK8dCNMeZ+"
    "6vbTdOwOb/F8Lp0lijGWEm7cMAxm3G6vUpYnihudv8FR22O2xjrmZHPwtiPqu6nLb9/uxzH/"
    "zd3cG8veRM8WK8ha/IXIImcXgvOQxaboc++urq+vdzcTX7jwyDvn7zrndhCLft1YYpzIZCnn"
    "cbgauxHakS0x5WHYQGv2Me0Ju2/81T7vvXfJO5+9D97lvncx9nsodLBMzk/3WDbsi9+6MFp2"
    "m1gg6u318b6DosakFEIM3cMfByNmNdd7F97HG1/6qcfO7FNvt3LDNV/gxdc/fMt5S5Sc7bwh"
    "I4aEvOwDVPg2+JxG6pP7zGOwU9lt6KO13rn81Zg4jse98zZgOzxG5uvPX3/59KmEXe4GyE75"
    "fXE7WI+OKd706m85MyXrB5ghdnnEicYKNtjZaHUr+hLsm2JpPw3be2xjy26aDuWQEm9Kn515"
    "k4gACPK5jCF3nr11zqZxZEop0TT88x9//xcFa/ju5/e/+Fiu0tSXYXMNE8YI6/e4xFkxmuW6"
    "w09xXXI+dSn1kQyHju17ZkfsPfQzdHX9q8Ffd7/bDVs8C9nN8c/yNHazcLM/sPEDdPBjb4dU"
    "d464IX/8IHByWGGd5WC8mJ+dg1/YOhPxDq7HVvxeXYObQAex6dVhYmCg4prkQWO64uWzeoQN"
    "ElikS+LVg3FegMS6gGYN5aXTqOP6+65+fpOm222GlsxqVhqzHcKGJSj1eT+5YEJKaq2gkSgn"
    "QfTBk1oBnwTFlB9SGqaboyexhmOoBfd7NuSN11iox+BHRME+AWGH8JDoqXtVgYcxwjJwGKxT"
    "wAfJluBnRWAkYH1zCyW9g+9DYJPxMoRgewQrosAiynxQyYjFNVc5IizpIKKOnMMWl3WesZpk"
    "Bxd8Ms8um82lS1QOq7fAOEdEckq3XCqcgxKeRzBsPncVYV3ZcL6VYMOJMX74y36/eAfSbnYp"
    "g5r2oaQcY4L/4aNbZ0Cd2U2miBYMO9fg/dO1ycGlA9QxsK8cBmQ5eJ1T7ASNIIhZ2j2MFF20"
    "Dmak6IIFrI73NyBKngVQGQF4BYz8hlEEfAtbIAYQix0uzxJxNjZPynXw2eX03EqyO45gfYf7"
    "PfYViLUV3oSqvOXqeizVtfKMQLTyGLjBgrklbFjvG/EXZOT5KJYwtVfiF9UIykNsqziHBamK"
    "I88K8esK/NPtlLlgVjxYChKQYHUUSQAhURBHW0L8IyBZRdYo0x3BN8Bp7Ae6cCVswLdIJkGl"
    "9GFlFlBeBM+Kg7Eh9gcMQfyacEwLaz5uqwnBGSBZ/bhiSkIHhEH6Bh8xdTZMcoyd91erqydN"
    "rjY0lQ0sLXkY4IfyDQB0clv9pFTDs1rdCgRCGbJgku6NJCMAQCwifPhNXAhDQZ2pF+UQusfD"
    "8egOTgmFi0BFaSeIA53yisBCoACtBXZqV7GFbCUm1ih7BxYRfLgoRzl9XtKTuB6SDVUbElJy"
    "FUS80gTMOm36UagMQsByCiyc4XCgLhfrCZiVTCsurbwxXFBNeKIGSiuqOteMVUlUX0JDxC7E"
    "s5XBKt2IuhJRYl+75hNY1MofbOBBpYboZHla2I9OHplantZDmadFQXkyel3nWIEv3sZpChXJ"
    "AMg20VUZxAGuCtJAZtmsHD9TBahkl0iU0YAT7cVSwjlUFzmVvilf04v8Ek2QEEyXrU0tLoWB"
    "hK4givqZFqVWSq+CAinQSNlVK6+V0ajGbtbMMxPEagmOVjbAPVgA0JXlXE3SEJEpCuQ085ia"
    "6dyMFDYnGpSXXOn0VZdK8/BmrYlCTCCQm4xXVF8Isr+poRPyE/xjfY0/wWnzztowJPfV8roB"
    "DeJqYaNkhYHLstgqlVlqyuhHpoFRc71ZKNelMVwhirC4o8EMqG+DqoE8eqLTRusKElvZiGvt"
    "MNeNOJ8bGVP13HIFrgy/TudGIaNe5MVsM1k35EkWqCFguXoYKShXXdgiV7VCiyqXLPjVtMjU"
    "wofUmQ3qAl49WCQVr/tKZV6BVjkHpuU5GwE+uD3A7tJteE0SS4Y+uzQ7tV/1UJGBDV1EDsCm"
    "ErLyOGqiNbghEswJFsoRBkBr0qvB3WqRqy4l13ajBvDqZGUgvEA/o2bTGrPap5lERR5BgdV2"
    "mtpE8XAKoJoqraBAKnp55+06OCXBOqm2ZONIjUkMC11IoogwLlzYMr7VxNsKAKAVWYIbCInW"
    "ZRTPhAfGSSZYJZwVDk0VzZciH4+SkBi1F82xLFUy0R28ueBXlktJ6TTZ2QpSEtci5QqMja+Z"
    "3dWKN8iyFEduwtGbB462MaLkQQrc/F+ThBi762r1UE+szUCudK46B7uuTsR7ThAyDGGczBnn"
    "Uql51C7USKd9mu/qrZ1mF82eirWTNYV8a2jxEkOMgiLYOcI4ci2AtPB2p3zjqFUkVrpexOBc"
    "Z8OtxdsT/sUzlepNjRlb3deypjjK18bMrYis3pX0Y0TyM8pX57LWYrX10He1ruOeLkVS9eZc"
    "0cweqUykKGbte1aB0+yn2WHGHs/oUpiyq0LMSZ2XHkmAy+b1FzBcilnynFLPOsP70LjCd4zO"
    "Jna9jwO6GLPkIukdg/Qx2OKDr57I1a0WkLJVUoFBlT+kmZCCVzTCz72LQyv4VFMrkJfwkHLO"
    "cZICSHK4NTTX0+J3IQ9pERUEM/50IoAIqejkuUCs/dpcVpvWUEqd6gQEjU5IWhBnnob96SXl"
    "Tsxxez8Jg2lXlCIaKe6GYdgVwdtmV5D5cwb1XIU5nKyQdT/a5arCWer72MNcEV0Ky08Vw6RQ"
    "bdiCQWcgeTPdHJztv0yDgJOl57q+CanfTvsyICPXDAZzSF+QEt7sUBlKJ6AeMTUhme22583O"
    "2ZYMeMkY9DRnVLSiwuqrBXqpdUO4vj6649XxhrAjTCilveNNrwlX8oKTlqMXs6T44es3ecj7"
    "vjYiGmpSREgNK2wlCU9QU/oiaETPp/Hy+PjpA/ld2myqI7vxzeAyiKdMG6mue8DR2RA9zgW9"
    "xqCjEZKRDHS+vrtBY6RqvQE+RJBt9CVOPeEY0BkeHj0idqiFQI4+F2kYdnsFk5hR62K8+PDT"
    "l4/vt8OlqKJNDXGfthvelc4+BOUbhEO3PwZaCshuILQZWwVh+Omr9g3cuMBeMbrqMJmWI2FC"
    "qXoiGsbceSE59KlprK2h+NJrecoR8eN5I2UQlU1n9s4PNT+X0HV93xXJ20EqJ2t847zcQaCP"
    "b/Xkw9WxFskTbO4djcOwDUG6mInnrK0QMbvEuUesbbb95uhRITst4BH4SUsKbDNpDLHVUFvo"
    "SHmqqpknq/lbi3mp+aXU17q2cjponEVKSWPAmB9T9m6calYLkkuUX60iMXU+Wy+6ebdJ5lR4"
    "vLkueiFC0vGgB3Cd1HSaBMwAqDipTONc3vePfUy12eNaRNUmwTb6Bt1KE4QyJ85R4mTUdUaj"
    "jbjmNOLSwh1OZj71x58niPHQekjcacNmsvmmDb4gD5K4Uh7JmA2l5ZyNqJXKtOkA+6AZ1K74"
    "r5lfuk4LIvT+8fHd45d3j/Ln8Q+/vvv0+Pjl9uH288PDZ/z5cotftw9YLxVr6TL+Zxn+CsnW"
    "Le+8DCxvj1qJwi21y8plGk1ifyR690mm2mnTdb/99tffyE7D2Pj8WubKMksXR0qOj9LcdX3Q"
    "WWK1KCp6yzkj9tEfF9Bgv3WuB66FymwRjHjSUYqTfJJtl1ka+zpXFBk93CkT1YQnAkeZHRVR"
    "IqIFi3MpLINAOEK7c2s/AmOhZL/HpzIjEi8A/O5EfeEuy41Yhql0Xd6EHvpN2u+FhMUhpTxk"
    "wMlHd6k5XCUPa82PXBVOdHr7vNOiVZlzOhU8W1KJxl0qRF44i8wPXrXAuMiHikHp9fxFSyxT"
    "3Vddc5tDL000X5aQXlxBr7H++RNB2oo2g9PJ7DL0oPNd517x++fwmRnXi88qr1d54tIHl/fg"
    "BUSX79vnKLEr1J5jj1YNP+B/whH9MJj+o2PAHMGvpmRhrc3rd7fz9OeFSc73rmD+Bxe/KgJ+"
    "Dwv+/y5a+e2V0OAfpiX+bsPDq6CiZXZMl61Hr/TLi5RzscPi83tIQOEpxZymNKd4JV5LQ8vo"
    "8kWA2PbFRS2/DP0oJqS41PEAvRbBdO4sFZHpVAvVSc/roEorKdYrZG66TI/qqF4/XPX5JBTE"
    "T4Sqs555xE0rO9aVyawIkczceqq4z4zgLD8zOWoib+nyfNitJwbP3bZmZTvLPFttmdpYrW/c"
    "WWzoxJhXUrR+3VEbiNR6qPrhNLV8Stz0zOp0FgUz2p6nbqnUTwK5J4r/dxT0nYrg2a2qoLX0"
    "JM/z+ZcQz3e08+en0p1eiF96DsqXFGzfCr2CmOnVrH/RoGR/KJLrrIN/Ty6/nJ/4pD+3mbRM"
    "+2urtpQQZFKK0dJ3s0D9Om3dRZ3Nvk7fAJnV14Nn37rw8+zO7fsYnQ8Kemn1JcDFZF+L2KcV"
    "xvqtv2iSBlX9xrt9I2Ho34ZDYBs="
)


if __name__ == "__main__":
    main()
