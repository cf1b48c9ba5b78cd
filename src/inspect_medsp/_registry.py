"""What Inspect registers from this package (entry point ``inspect_ai``).

The end-of-run hooks (:mod:`inspect_medsp.hooks.unscored`,
:mod:`inspect_medsp.hooks.selfpref`) register when a MedSP task is built, not here, so
they stay out of evals of other packages' tasks.
"""

from inspect_medsp.audit import medsp_simulation_audit
from inspect_medsp.contamination import medsp_contamination, medsp_contamination_probe
from inspect_medsp.probes import medsp_grader_probe
from inspect_medsp.providers import MedSPModels
from inspect_medsp.scoring import epoch_mean, medsp_rubric
from inspect_medsp.specialty import medsp_specialty
from inspect_medsp.tasks import medsp100, medsp1000, medsp_custom, medsp_demo
from inspect_medsp.workup import medsp_workup

__all__ = [
    "MedSPModels",
    "epoch_mean",
    "medsp100",
    "medsp1000",
    "medsp_contamination",
    "medsp_contamination_probe",
    "medsp_custom",
    "medsp_demo",
    "medsp_grader_probe",
    "medsp_rubric",
    "medsp_simulation_audit",
    "medsp_specialty",
    "medsp_workup",
]
