"""The body the registered tasks (``tasks.py``) share: where each task's scenarios come from
(:class:`Variant`), the checks of a call's ``-T`` names, values and measurement switches
(:func:`run`), its docstring's ``Args:`` (:func:`described`), and the factory that builds the
Task (:func:`medsp_task`, :func:`task_of`, :func:`custom_task`)."""

from inspect_medsp.taskbuild.build import FAIL_ON_ERROR, TASK_VERSION, medsp_task, task_of
from inspect_medsp.taskbuild.variant import Variant, custom_task, described, run

__all__ = [
    "FAIL_ON_ERROR",
    "TASK_VERSION",
    "Variant",
    "custom_task",
    "described",
    "medsp_task",
    "run",
    "task_of",
]
