"""What Inspect registers from this package (entry point ``inspect_ai``).

The end-of-run hooks (:mod:`inspect_medsp.hooks.unscored`,
:mod:`inspect_medsp.hooks.selfpref`) register when a MedSP task is built, not here, so
they stay out of evals of other packages' tasks.
"""

from inspect_medsp.audit.scorer import medsp_simulation_audit
from inspect_medsp.contamination.scorer import medsp_contamination_probe
from inspect_medsp.contamination.task import medsp_contamination
from inspect_medsp.probes.scorer import medsp_grader_probe
from inspect_medsp.providers import MedSPModels
from inspect_medsp.scoring.epochs import epoch_mean
from inspect_medsp.scoring.scorer import medsp_rubric
from inspect_medsp.specialty.task import medsp_specialty
from inspect_medsp.tasks import medsp100, medsp1000, medsp_custom, medsp_demo
from inspect_medsp.workup.scorer import medsp_workup

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
