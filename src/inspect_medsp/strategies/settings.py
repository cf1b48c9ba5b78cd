"""Strategy settings: which strategy the clinician uses and with how much compute.

The settings are stored in the log's task metadata, so the model lives with it in
``record/task.py``; this module names it for the strategies (it imports no policy).
"""

from __future__ import annotations

from inspect_medsp.record.task import Strategy, StrategySettings

__all__ = ["Strategy", "StrategySettings"]
