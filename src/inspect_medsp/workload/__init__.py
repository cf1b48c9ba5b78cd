"""What a run will do before it runs: each scenario's model calls and prompt sizes (the token
model ``medsp-estimate`` prices) and the split of a selection into balanced parts
(``-T shard=K/N``)."""

from inspect_medsp.workload.model import estimate_records
from inspect_medsp.workload.shards import RunShape, take_part
from inspect_medsp.workload.sizes import (
    GRADING_ROLES,
    PROBES,
    ROLES,
    Assumptions,
    Estimate,
    RoleEstimate,
)

__all__ = [
    "GRADING_ROLES",
    "PROBES",
    "ROLES",
    "Assumptions",
    "Estimate",
    "RoleEstimate",
    "RunShape",
    "estimate_records",
    "take_part",
]
