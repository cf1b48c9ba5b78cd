"""A contamination probe of the demo, run in process: the tests' one way to get its log."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inspect_ai import eval
from inspect_ai.log import EvalLog

from inspect_medsp.contamination import medsp_contamination


def probe_demo(model: str, log_dir: Path, **task_args: Any) -> EvalLog:
    """``medsp_contamination`` of the demo with ``model``; its log, which must be a success."""
    [log] = eval(
        medsp_contamination(benchmark="medsp_demo", **task_args),
        model=model,
        log_dir=str(log_dir),
        display="none",
    )
    assert log.status == "success", log.error
    return log
