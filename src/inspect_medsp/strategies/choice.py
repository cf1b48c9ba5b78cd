"""The clinician policy a strategy setting stands for."""

from __future__ import annotations

from collections.abc import Callable

from inspect_ai.solver import TaskState

from inspect_medsp.encounter import ClinicianPolicy
from inspect_medsp.record import StrategySettings
from inspect_medsp.strategies.best_of_n import best_of_n_policy
from inspect_medsp.strategies.medagents import medagents_policy


def strategy_policy(settings: StrategySettings) -> Callable[[TaskState], ClinicianPolicy] | None:
    """The clinician policy builder for a strategy (``None``: one plain reply per turn).

    Raises:
        ValueError: Unknown strategy.
    """
    if settings.strategy in ("off", "single"):
        return None
    if settings.strategy == "bon":
        return best_of_n_policy(settings)
    if settings.strategy == "medagents":
        return medagents_policy(settings)
    raise ValueError(f"strategy must be off, single, bon or medagents, not {settings.strategy!r}")
