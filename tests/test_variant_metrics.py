"""A run with patient variants (``-T variants=baseline,anxious``): every scorer's metrics in
the log header read the baseline's encounters alone, as the rubric's always have, so they
equal a baseline-only run's (each variant is compared with the baseline in the report's
variants section)."""

from __future__ import annotations

import math
from pathlib import Path

from inspect_ai import eval, score
from inspect_ai.log import EvalLog

from inspect_medsp import medsp_demo
from inspect_medsp.probes import medsp_grader_probe

SCRIPTED = "medsp/scripted"


def _metrics(log: EvalLog) -> dict[str, dict[str, float]]:
    assert log.results is not None
    return {s.name: {k: m.value for k, m in s.metrics.items()} for s in log.results.scores}


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-9)


def test_every_scorers_metrics_in_a_variants_run_are_the_baselines(tmp_path: Path) -> None:
    runs: dict[str, EvalLog] = {}
    for name, variants in (("baseline", "baseline"), ("both", "baseline,anxious")):
        [log] = eval(
            medsp_demo(judge=SCRIPTED, audit=True, variants=variants),
            model=SCRIPTED,
            log_dir=str(tmp_path / name),
            display="none",
        )
        assert log.status == "success", log.error
        runs[name] = score(log, medsp_grader_probe(probes="padding", judge=SCRIPTED),
                           action="append")  # fmt: skip
    assert runs["both"].samples is not None and len(runs["both"].samples) == 6
    alone, both = _metrics(runs["baseline"]), _metrics(runs["both"])
    assert set(alone) == set(both) == {
        "medsp_rubric", "medsp_workup", "medsp_simulation_audit", "medsp_grader_probe"
    }  # fmt: skip
    for scorer, metrics in alone.items():
        assert set(metrics) == set(both[scorer]), scorer
        for key, value in metrics.items():
            assert _same(value, both[scorer][key]), (scorer, key, value, both[scorer][key])
    assert both["medsp_workup"]["worked_up"] == 3
