"""Strategy settings: which strategy the clinician uses and with how much compute."""

from __future__ import annotations

from typing import Literal

from inspect_ai.model import GenerateConfig
from pydantic import BaseModel, ConfigDict, Field

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
