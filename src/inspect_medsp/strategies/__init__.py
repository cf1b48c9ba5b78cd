"""Test-time compute for the clinician: ``off``, ``single``, ``bon`` and ``medagents``."""

from inspect_medsp.strategies.choice import strategy_policy
from inspect_medsp.strategies.settings import Strategy, StrategySettings

__all__ = ["Strategy", "StrategySettings", "strategy_policy"]
