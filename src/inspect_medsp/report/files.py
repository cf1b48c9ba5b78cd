"""The names of the files a report folder holds: its charts and its CSV tables."""

from __future__ import annotations

from inspect_medsp.report.analysis import Analysis

CHART_COMPETENCIES = "competencies.png"
CHART_DISTRIBUTION = "distribution.png"
CHART_RADAR = "radar.png"
CHART_SPECIALTIES = "specialties.png"
CHART_TOKENS = "input_length.png"
CHART_STRATEGY = "strategy_competency.png"
CHART_BREAKDOWNS = "case_metadata.png"
CHART_DIFFERENCES = "differences.png"
CSV_FILES = (
    "leaderboard.csv",
    "competencies.csv",
    "missed_items.csv",
    "specialties.csv",
    "input_length.csv",
    "case_metadata.csv",
    "strategy_competency.csv",
    "comparisons.csv",
    "variance.csv",
    "health.csv",
    "per_scenario.csv",
)


def paper_charts(analysis: Analysis) -> list[str]:
    """The figures beyond the two basic charts that this analysis has data for, in order."""
    present = {
        CHART_DIFFERENCES: bool(analysis.comparisons),
        CHART_RADAR: True,
        CHART_SPECIALTIES: bool(analysis.specialties),
        CHART_TOKENS: bool(analysis.token_bins),
        CHART_STRATEGY: bool(analysis.strategy),
        CHART_BREAKDOWNS: bool(analysis.breakdowns),
    }
    return [name for name, wanted in present.items() if wanted]
