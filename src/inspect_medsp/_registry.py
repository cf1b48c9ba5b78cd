"""What Inspect registers from this package (entry point ``inspect_ai``)."""

from inspect_medsp.scoring.epochs import medsp_epochs
from inspect_medsp.scoring.scorer import medsp_rubric
from inspect_medsp.scoring.selfpref import SelfPreferenceWarning
from inspect_medsp.scoring.unscored import UnscoredWarning
from inspect_medsp.tasks import medsp100, medsp1000, medsp_demo

__all__ = [
    "SelfPreferenceWarning",
    "UnscoredWarning",
    "medsp100",
    "medsp1000",
    "medsp_demo",
    "medsp_epochs",
    "medsp_rubric",
]
