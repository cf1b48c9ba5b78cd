"""The contamination probe: has the model under test seen the benchmark's cases?"""

from inspect_medsp.contamination.capability import CONTAMINATION
from inspect_medsp.contamination.scorer import medsp_contamination_probe
from inspect_medsp.contamination.sizes import probe_calls
from inspect_medsp.contamination.task import medsp_contamination

__all__ = ["CONTAMINATION", "medsp_contamination", "medsp_contamination_probe", "probe_calls"]
