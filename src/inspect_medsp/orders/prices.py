"""The price table the work-up prices orders from: the shipped relative tiers
(``prices.yaml``) or a user's own file (``-S prices=FILE``).

A table has a ``currency`` (the unit its costs are in), a ``source`` and ``year``, a cost
per category and, optionally, a cost per name: an order whose words (or the environment's
reading of them) hold a name, as whole words (``orders/phrases.py``: ``CT`` prices "CT head"
and "ct_scan", never "electrolytes"; a name may be a phrase, "cardiac MRI"), is priced by the
longest such name, else by its category. An order neither prices stays unpriced: counted and
named, never priced at 0.
"""

from __future__ import annotations

import math
from importlib.resources import files
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field

from inspect_medsp.errors import MedSPDataError
from inspect_medsp.orders.categories import CATEGORIES
from inspect_medsp.orders.phrases import has_phrase
from inspect_medsp.record import fold

DEFAULT_NAME = "prices.yaml"


class PriceTable(BaseModel):
    """A checked price table."""

    model_config = ConfigDict(frozen=True)

    currency: str
    source: str = ""
    year: int | None = None
    categories: dict[str, float] = Field(default_factory=dict)
    names: dict[str, float] = Field(default_factory=dict)
    path: str = DEFAULT_NAME
    """Where the table came from (the shipped file's name, or the user's path)."""

    def price(self, order: str, reading: str, category: str) -> tuple[float | None, str]:
        """An order's cost and what priced it (``name: <name>``, ``category``), or ``(None,
        "")`` when nothing in the table prices it."""
        named = [n for n in self.names if has_phrase(order, n) or has_phrase(reading, n)]
        if named:
            name = max(named, key=len)
            return self.names[name], f"name: {name}"
        if category in self.categories:
            return self.categories[category], "category"
        return None, ""


def _fail(path: str, what: str) -> MedSPDataError:
    return MedSPDataError(f"{path}: {what}")


def _cost(path: str, where: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise _fail(path, f"{where}: {value!r} is not a number; give a cost of 0 or more")
    if value < 0:
        raise _fail(path, f"{where}: {value!r} is negative; give a cost of 0 or more")
    return float(value)


def parse_table(text: str, path: str) -> PriceTable:
    """A price table from YAML text, every entry checked.

    Raises:
        MedSPDataError: One line naming the file and the entry at fault, with the fix.
    """
    known = ", ".join(CATEGORIES)
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark is not None else "the file"
        raise _fail(path, f"{where} is not valid YAML; fix the file") from None
    if not isinstance(data, dict):
        raise _fail(path, "a price table is a mapping with currency, categories and names")
    extra = sorted(set(map(str, data)) - {"currency", "source", "year", "categories", "names"})
    if extra:
        raise _fail(path, f"unknown key {extra[0]!r}; use currency, source, year, "
                    "categories and names")  # fmt: skip
    currency = data.get("currency")
    if not isinstance(currency, str) or not currency.strip():
        raise _fail(path, "currency: missing; state the unit of the costs (e.g. USD)")
    year = data.get("year")
    if year is not None and (isinstance(year, bool) or not isinstance(year, int)):
        raise _fail(path, f"year: {year!r} is not a year; give e.g. 2025")
    categories: dict[str, float] = {}
    for key, value in (data.get("categories") or {}).items():
        if str(key) not in CATEGORIES:
            raise _fail(path, f"categories: unknown category {key!r}; use one of {known}")
        categories[str(key)] = _cost(path, f"categories: {key}", value)
    names: dict[str, float] = {}
    seen: dict[str, str] = {}
    raw_names = data.get("names") or {}
    if not isinstance(raw_names, dict) or not isinstance(data.get("categories") or {}, dict):
        raise _fail(path, "categories and names are mappings of name: cost")
    for key, value in raw_names.items():
        name = str(key).strip()
        if not name:
            raise _fail(path, "names: an empty name; name the test or order it prices")
        if fold(name) in seen:
            raise _fail(path, f"names: {name!r} is given twice (as {seen[fold(name)]!r} too); "
                        "keep one")  # fmt: skip
        seen[fold(name)] = name
        names[name] = _cost(path, f"names: {name}", value)
    return PriceTable(
        currency=currency.strip(),
        source=str(data.get("source") or ""),
        year=year,
        categories=categories,
        names=names,
        path=path,
    )


def _duplicate_keys(text: str, path: str) -> None:
    """YAML keeps the last of two equal keys silently; a price file must not."""

    class Strict(yaml.SafeLoader):
        pass

    def mapping(loader: yaml.SafeLoader, node: yaml.MappingNode) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = loader.construct_object(key_node)
            if key in seen:
                section = "an entry"
                raise _fail(path, f"{section} {key!r} is given twice (line "
                            f"{key_node.start_mark.line + 1}); keep one")  # fmt: skip
            seen.add(key)
        return loader.construct_mapping(node)

    Strict.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, mapping)
    try:
        yaml.load(text, Loader=Strict)
    except yaml.YAMLError:
        return  # parse_table says what is wrong with the YAML


def load_prices(file: str | None) -> PriceTable:
    """The user's price table at ``file``, or the shipped one when ``file`` is None.

    Raises:
        MedSPDataError: One line naming the file and the entry at fault.
    """
    if file is None:
        text = files("inspect_medsp.orders").joinpath(DEFAULT_NAME).read_text(encoding="utf-8")
        return parse_table(text, DEFAULT_NAME)
    path = Path(file).expanduser()
    if not path.is_file():
        raise _fail(file, "no such price file; give the path of a YAML price table")
    text = path.read_text(encoding="utf-8")
    _duplicate_keys(text, file)
    return parse_table(text, file)
