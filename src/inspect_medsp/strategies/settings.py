"""Strategy settings and the choice of clinician policy."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from inspect_ai.model import GenerateConfig
from inspect_ai.solver import TaskState
from pydantic import BaseModel, ConfigDict, Field

from inspect_medsp.encounter.solver import ClinicianPolicy

Strategy = Literal["off", "single", "bon", "medagents"]


class StrategySettings(BaseModel):
    """How the clinician spends compute per turn (recorded in the log's task metadata)."""

    model_config = ConfigDict(frozen=True)

    strategy: Strategy = "off"
    n: int = Field(default=5, ge=1)
    experts: int = Field(default=5, ge=1)
    consensus_rounds: int = Field(default=1, ge=0)
    sample_temperature: float = Field(default=0.8, ge=0)
    fixed_temperature: float = Field(default=0.0, ge=0)

    def clinician_config(self) -> GenerateConfig:
        """Task-level generation settings for the model under test."""
        if self.strategy == "single":
            return GenerateConfig(temperature=self.fixed_temperature)
        return GenerateConfig()

    def role_config(self) -> GenerateConfig:
        """Generation settings for the patient and environment."""
        if self.strategy == "off":
            return GenerateConfig()
        return GenerateConfig(temperature=self.fixed_temperature)

    def grader_config(self) -> GenerateConfig:
        """Generation settings for the evaluator."""
        return self.role_config()


def strategy_policy(settings: StrategySettings) -> Callable[[TaskState], ClinicianPolicy] | None:
    """The clinician policy builder for a strategy (``None``: one plain reply per turn).

    Raises:
        ValueError: Unknown strategy.
    """
    if settings.strategy in ("off", "single"):
        return None
    if settings.strategy == "bon":
        from inspect_medsp.strategies.best_of_n import best_of_n_policy

        return best_of_n_policy(settings)
    if settings.strategy == "medagents":
        from inspect_medsp.strategies.medagents import medagents_policy

        return medagents_policy(settings)
    raise ValueError(f"strategy must be off, single, bon or medagents, not {settings.strategy!r}")
