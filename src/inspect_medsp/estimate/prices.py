"""Prices in Inspect's ``--model-cost-config`` format and the cost of an estimate."""

from __future__ import annotations

from pathlib import Path

from inspect_ai.model import ModelCost
from pydantic import TypeAdapter, ValidationError

from inspect_medsp.commandline import read_config_file
from inspect_medsp.errors import MedSPDataError
from inspect_medsp.workload import RoleEstimate

_PRICES = TypeAdapter(dict[str, ModelCost])


def load_prices(path: str | Path) -> dict[str, ModelCost]:
    """A YAML or JSON file mapping model names to dollars per million tokens, as
    ``inspect eval --model-cost-config`` reads it::

        openai/gpt-5.5: {input: 5.0, output: 30.0, input_cache_write: 5.0, input_cache_read: 0.5}

    Raises:
        MedSPDataError: The file is missing, not YAML/JSON, or not in that form.
    """
    file = Path(path)
    fix = (
        "give each model as 'provider/model: {input: ..., output: ..., input_cache_write: "
        "..., input_cache_read: ...}' in dollars per million tokens"
    )
    if not file.is_file():
        raise MedSPDataError(f"--model-cost-config {file}: no such file")
    try:
        data = read_config_file(str(file))  # as inspect eval --model-cost-config reads it
    except Exception as err:
        where = getattr(err, "problem_mark", None)
        line = f" at line {where.line + 1}" if where is not None else ""
        raise MedSPDataError(
            f"--model-cost-config {file}: not a YAML or JSON mapping{line}; {fix}"
        ) from None
    try:
        return _PRICES.validate_python(data)
    except ValidationError as err:
        first = err.errors()[0]
        at = ".".join(str(p) for p in first["loc"]) or "the top level"
        raise MedSPDataError(
            f"--model-cost-config {file}: {at}: {first['msg'].lower()}; {fix}"
        ) from None


def cost(usage: RoleEstimate, price: ModelCost, discount: float = 1.0) -> float:
    """Dollars for the estimated tokens at list prices (every input token at ``input``),
    times ``discount`` (a batch API's, e.g. 0.5)."""
    dollars = usage.input_tokens * price.input + usage.output_tokens * price.output
    return discount * dollars / 1_000_000


def cached_cost(usage: RoleEstimate, price: ModelCost, discount: float = 1.0) -> float:
    """Dollars when the provider's prefix cache serves the repeated prefixes: cache reads at
    ``input_cache_read``, the rest of the input written at ``input_cache_write`` (give it
    equal to ``input`` for a provider that bills no writes, such as OpenAI), times
    ``discount``."""
    dollars = (
        usage.cached_tokens * price.input_cache_read
        + usage.uncached_tokens * price.input_cache_write
        + usage.output_tokens * price.output
    )
    return discount * dollars / 1_000_000
