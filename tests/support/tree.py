"""Build small scenario trees in the Hub layout, with an upstream folder beside them."""

from __future__ import annotations

import json
from pathlib import Path

MARKERS = {
    "sp_actor": "MARKER_SP_5d1c",
    "environment_controller": "MARKER_ENV_a83f",
    "evaluator": "MARKER_EVAL_0e72",
    "rubric": "MARKER_RUBRIC_c9b4",
}
"""Unique strings planted in every private packet and in the rubric."""


def write_marked_scenario(root: Path, case_id: str = "mededportal_4242") -> tuple[Path, Path]:
    """One scenario whose hidden packets and rubric carry :data:`MARKERS`.

    Returns:
        The scenario tree root and the upstream folder.
    """
    data = root / "data"
    scenario = data / case_id / "scenario1"
    texts = {
        "examinee": "Door note: 58-year-old with chest pain for one hour. Assess and manage.",
        "sp_actor": f"You are Mr. Reyes. Secret history {MARKERS['sp_actor']}: you smoke.",
        "environment_controller": (
            f"States: initial_assessment, then ecg_reviewed. Troponin 2.1 "
            f"{MARKERS['environment_controller']}."
        ),
        "evaluator": f"Key actions: aspirin, ECG within 10 minutes {MARKERS['evaluator']}.",
    }
    for role, text in texts.items():
        folder = scenario / role
        folder.mkdir(parents=True)
        (folder / "notes.md").write_text(text, encoding="utf-8")
    upstream = root / "upstream"
    (upstream / "rubrics").mkdir(parents=True)
    rubric = {
        "case_id": case_id,
        "scenario": "scenario1",
        "scenario_dir": f"{case_id}/scenario1",
        "rubric_version": "v1",
        "PC": ["Gives aspirin 300 mg", f"Obtains an ECG {MARKERS['rubric']}"],
        "MK": ["Names acute coronary syndrome as the working diagnosis"],
        "SBP": [],
        "ICS": ["Introduces themself"],
        "PBLI": [],
        "PROF": [],
    }
    (upstream / "rubrics" / f"{case_id}_scenario1.json").write_text(json.dumps(rubric))
    (upstream / "subset.json").write_text(
        json.dumps({"name": "t", "n_scenarios": 1, "scenarios": [f"{case_id}/scenario1"]})
    )
    return data, upstream


def write_case_meta(case_dir: Path, entries: list[dict[str, str]] | str) -> Path:
    """A ``phase1_scenarios_meta.json`` in ``case_dir``: the entries, or raw text as given."""
    path = case_dir / "phase1_scenarios_meta.json"
    body = entries if isinstance(entries, str) else json.dumps({"scenarios": entries})
    path.write_text(body, encoding="utf-8")
    return path
