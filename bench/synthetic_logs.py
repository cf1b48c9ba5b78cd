"""MedSP logs with known truth, written to disk as Inspect ``.eval`` files.

Each scenario's rubric items are graded with the coverage bench's logistic item model
(:class:`bench.item_model.Model`): the logit of an item being met is a case effect, a
scenario effect and an item effect that every model shares, the model's own case and scenario
effects, an encounter (epoch) effect, and the model's shift; each grader repeat then flips the
verdict with a small probability, and the score is the majority of the repeats (a tie is not
met), as the scorer's.

The samples are copies of a real sample this package wrote (``tests/fixtures``) with their ids,
case, items, votes and score replaced: ``heavy`` keeps its encounter record, messages, events
and attachments (a full-size log), otherwise only what the statistics read (score, metadata and
store). The files are written as Inspect writes them (a zstd zip with ``header.json``, one
``samples/ID_epoch_N.json`` per sample and ``summaries.json``), so every reader reads them.
"""

from __future__ import annotations

import copy
import json
import math
import zipfile
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import zipfile_zstd  # type: ignore[import-untyped]  # noqa: F401  (zstd for zipfile)

from bench.item_model import FULL_SIZES, Q100_SIZES, Model, expand

TEMPLATE = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "schema1_demo_repeats.eval"
COMPETENCIES = ("PC", "MK", "SBP", "ICS", "PBLI", "PROF")
SCORER = "medsp_rubric"
HEAVY = ("messages", "events", "attachments", "events_data", "output")


class Population(NamedTuple):
    """Cases, scenarios and items every model of a simulation shares."""

    cases: list[str]
    """Each scenario's case."""
    ids: list[str]
    items: np.ndarray
    """Items per scenario."""
    competency: list[list[str]]
    """Each scenario's items' competencies."""
    shared: list[np.ndarray]
    """Each scenario's items' shared logit (case + scenario + item effects)."""
    case_of: np.ndarray


def draw_population(
    sizes: Sequence[int] | np.ndarray, rng: np.random.Generator, m: Model
) -> Population:
    """Cases of ``sizes`` scenarios each, with their items and shared effects."""
    case_of = np.repeat(np.arange(len(sizes)), np.asarray(sizes, dtype=int))
    n = len(case_of)
    items = rng.integers(m.items_low, m.items_high + 1, n)
    case_effect = rng.normal(0, m.case, len(sizes))
    scenario_effect = rng.normal(0, m.scenario, n)
    shared = [
        case_effect[case_of[i]] + scenario_effect[i] + rng.normal(0, m.item, items[i])
        for i in range(n)
    ]
    competency = [[COMPETENCIES[(j * 7 + i) % 6] for j in range(items[i])] for i in range(n)]
    scenario_in_case = np.zeros(n, dtype=int)
    seen: dict[int, int] = {}
    for i, c in enumerate(case_of):
        seen[int(c)] = seen.get(int(c), 0) + 1
        scenario_in_case[i] = seen[int(c)]
    cases = [f"case{c:04d}" for c in case_of]
    ids = [f"{cases[i]}/scenario{scenario_in_case[i]}" for i in range(n)]
    return Population(cases, ids, items, competency, shared, case_of)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    out: np.ndarray = 1.0 / (1.0 + np.exp(-x))
    return out


def votes(
    pop: Population,
    shift: float,
    rng: np.random.Generator,
    m: Model,
    epochs: int = 1,
    repeats: int = 1,
) -> list[np.ndarray]:
    """One model's grader votes: per scenario, shape ``(epochs, repeats, items)``."""
    n_cases = int(pop.case_of.max()) + 1
    own = rng.normal(0, m.model_case, n_cases)[pop.case_of] + rng.normal(
        0, m.model_scenario, len(pop.ids)
    )
    out = []
    for i, shared in enumerate(pop.shared):
        logit = m.mean + shift + own[i] + shared
        encounter = rng.normal(0, m.epoch, (epochs, 1, 1))
        met = rng.random((epochs, 1, len(shared))) < _sigmoid(logit + encounter)
        flips = rng.random((epochs, repeats, len(shared))) < m.flip
        out.append(met ^ flips)
    return out


def majority(v: np.ndarray) -> np.ndarray:
    """The scorer's verdict per epoch and item from the repeats' votes (a tie is not met)."""
    met: np.ndarray = v.sum(axis=1) * 2 > v.shape[1]
    return met


@cache
def _template() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    with zipfile.ZipFile(TEMPLATE) as z:
        header = json.loads(z.read("header.json"))
        sample = json.loads(z.read("samples/demo_anaphylaxis/scenario1_epoch_1.json"))
        summary = json.loads(z.read("summaries.json"))[0]
    return header, sample, summary


def _score(
    v: np.ndarray, competency: Sequence[str], item_template: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The rubric score's value and metadata of one epoch's votes (``repeats x items``)."""
    met = v.sum(axis=0) * 2 > v.shape[0]
    value: dict[str, Any] = {}
    counts: dict[str, dict[str, int]] = {}
    for key in ("overall", *COMPETENCIES):
        chosen = [j for j, c in enumerate(competency) if key == "overall" or c == key]
        if not chosen:
            continue
        done = int(met[chosen].sum())
        value[key] = done / len(chosen)
        value[f"{key}_completed"] = done
        value[f"{key}_total"] = len(chosen)
        counts[key] = {"completed": done, "total": len(chosen)}
    items = []
    for j, c in enumerate(competency):
        item = dict(item_template)
        cast = [bool(x) for x in v[:, j]]
        item.update(
            number=j + 1,
            competency=c,
            text=f"Rubric item {j + 1}",
            met=bool(met[j]),
            judged=True,
            votes=cast if len(cast) > 1 else [],
            flip_rate=(
                sum(x != bool(met[j]) for x in cast) / len(cast) if len(cast) > 1 else 0.0
            ),
        )
        items.append(item)
    metadata = {"items": items, "counts": counts, "unjudged": 0, "grader": "medsp/scripted"}
    return value, metadata


def write_log(
    path: Path,
    model: str,
    pop: Population,
    model_votes: Sequence[np.ndarray],
    heavy: bool = False,
    task: str = "inspect_medsp/medsp1000",
) -> Path:
    """Write one model's run over ``pop`` (its votes from :func:`votes`) as an ``.eval``."""
    header, template, summary_template = _template()
    header = copy.deepcopy(header)
    template = dict(template)
    if not heavy:
        template = {k: v for k, v in template.items() if k not in HEAVY}
    metadata_template = dict(template["metadata"])
    if not heavy:
        metadata_template.pop("medsp", None)
    score_template = dict(template["scores"][SCORER])
    if not heavy:
        score_template["explanation"] = ""
    item_template = score_template["metadata"]["items"][0]
    epochs = model_votes[0].shape[0] if model_votes else 1
    summaries: list[dict[str, Any]] = []
    path.parent.mkdir(parents=True, exist_ok=True)
    stem = path.stem.replace("/", "_")
    zstd: int = zipfile.ZIP_ZSTANDARD  # type: ignore[attr-defined]
    with zipfile.ZipFile(path, "w", compression=zstd if heavy else zipfile.ZIP_STORED) as z:
        for i, sid in enumerate(pop.ids):
            for e in range(epochs):
                value, score_metadata = _score(model_votes[i][e], pop.competency[i], item_template)
                full_metadata = {**score_template["metadata"], **score_metadata}
                total = int(pop.items[i])
                meta = {
                    **metadata_template,
                    "case_id": pop.cases[i],
                    "scenario": sid.split("/")[1],
                    "rubric_items": total,
                }
                score = {
                    **score_template,
                    "value": value,
                    "answer": f"{value['overall_completed']}/{total} items",
                    "metadata": full_metadata,
                }
                sample = {
                    **template,
                    "id": sid,
                    "epoch": e + 1,
                    "uuid": f"{stem}-{i}-{e}",
                    "metadata": meta,
                    "scores": {SCORER: score},
                }
                z.writestr(f"samples/{sid}_epoch_{e + 1}.json", json.dumps(sample))
                scalar = {
                    k: v for k, v in full_metadata.items() if isinstance(v, str | int | float)
                }
                summaries.append(
                    {
                        **summary_template,
                        "id": sid,
                        "epoch": e + 1,
                        "uuid": f"{stem}-{i}-{e}",
                        "metadata": {k: v for k, v in meta.items() if k != "medsp"},
                        "scores": {SCORER: {**score, "metadata": scalar, "explanation": None}},
                    }
                )
        header["eval"]["model"] = model
        header["eval"]["task"] = task
        header["eval"]["eval_id"] = f"{stem}-eval"
        header["eval"]["run_id"] = f"{stem}-run"
        header["eval"]["task_id"] = f"{stem}-task"
        header["eval"]["dataset"]["samples"] = len(pop.ids)
        header["eval"]["dataset"]["sample_ids"] = list(pop.ids)
        header["eval"]["config"]["epochs"] = epochs
        header["results"] = None
        header["status"] = "success"
        z.writestr("header.json", json.dumps(header))
        z.writestr("summaries.json", json.dumps(summaries))
    return path


def full_sizes() -> np.ndarray:
    """The full set's case sizes (595 cases, 1,548 scenarios)."""
    return expand(FULL_SIZES)


def q100_sizes() -> np.ndarray:
    return expand(Q100_SIZES)


def logit_gap(m: Model, points: float) -> float:
    """A model shift that makes roughly ``points`` of completion near the model's mean."""
    p = 1 / (1 + math.exp(-m.mean))
    return points / 100 / (p * (1 - p))


class PlanTruth(NamedTuple):
    """What ``medsp-report plan`` projects, worked out from the model itself: the full set's
    95% half-width for one model and the full set's mdd (one epoch) for a pair."""

    half_width: float
    mdd: float


def plan_truth(
    m: Model, shift_a: float, shift_b: float, populations: int = 12, seed: int = 17
) -> PlanTruth:
    """The plan's two projections at the model's true spread: the variance of a scenario's
    value and its intra-case correlation (for one model, and for the pair's difference), each
    taken from ``populations`` full-set-sized draws (595 cases: the case part is then known
    to a few percent), fed to the plan's own formulas."""
    from inspect_medsp.comparisons.case_weights import icc, once
    from inspect_medsp.comparisons.planning import Spread, half_width, mdd

    rng = np.random.default_rng(seed)
    runs: list[tuple[float, float]] = []
    pairs: list[tuple[float, float]] = []
    for _ in range(populations):
        pop = draw_population(full_sizes(), rng, m)
        a = np.array([majority(v).mean() for v in votes(pop, shift_a, rng, m)])
        b = np.array([majority(v).mean() for v in votes(pop, shift_b, rng, m)])
        weights = once(int(pop.case_of.max()) + 1)
        for values, found in ((a, runs), (b - a, pairs)):
            rho = float(icc(values, pop.case_of, weights)[0])
            found.append((float(np.var(values, ddof=1)), rho))
    variance, rho = np.mean(runs, axis=0)
    pair_variance, pair_rho = np.mean(pairs, axis=0)
    return PlanTruth(
        half_width=half_width(Spread(float(variance), 0.0, float(rho))),
        mdd=mdd(Spread(float(pair_variance), 0.0, float(pair_rho))),
    )
