"""MedSP1000 standardized-patient encounters as Inspect AI evaluations.

The public surface, kept stable:

- this package: the tasks (``medsp1000``, ``medsp100``, ``medsp_demo``, ``medsp_custom``
  for your own cases, the factory ``medsp_task``, the specialty classifier
  ``medsp_specialty``, the contamination probe ``medsp_contamination``), the solvers
  (``medsp_encounter``, ``medsp_tools_encounter``), the rubric scorer ``medsp_rubric``,
  ``Trajectory`` and ``MedSPDataError``;
- what Inspect registers by name (``inspect_medsp/<task or scorer>``, the ``medsp/scripted``
  and ``medsp/human`` models);
- ``inspect_medsp.record``: ``read_log`` and the record types it returns (``MedspRun``,
  ``MedspSample``, ``Trajectory``, ``TurnRecord``, ``ScoreValue``, ``ScoreMetadata``,
  ``TaskMetadata``, ``ReplyHealth``, ``NotMedSP``);
- ``inspect_medsp.analysis``: ``MedspColumns``, the score keys as ``samples_df`` columns;
- the command lines ``medsp-report``, ``medsp-estimate``, ``medsp-specialties`` and
  ``medsp-cases``, and the case format of ``docs/case-format.md``.

Every other module is internal: it may move or change between versions.
"""

from inspect_medsp.contamination import medsp_contamination
from inspect_medsp.encounter import medsp_encounter, medsp_tools_encounter
from inspect_medsp.errors import MedSPDataError
from inspect_medsp.record import Trajectory
from inspect_medsp.scoring import medsp_rubric
from inspect_medsp.specialty import medsp_specialty
from inspect_medsp.tasks import medsp100, medsp1000, medsp_custom, medsp_demo, medsp_task

__all__ = [
    "MedSPDataError",
    "Trajectory",
    "medsp100",
    "medsp1000",
    "medsp_contamination",
    "medsp_custom",
    "medsp_demo",
    "medsp_encounter",
    "medsp_rubric",
    "medsp_specialty",
    "medsp_task",
    "medsp_tools_encounter",
]
