"""A run in parts (``-T shard=K/N``): which part a log is, as its task metadata stores it, and
where Inspect's layout puts a part's logs (``<run>.shards/<K>/``).

Each part is its own ``inspect eval`` process and log. What the parts share is the full
selection they were cut from (its digest and the size of every part), so any one part's log
says how many scenarios a missing part held, and parts cut from different selections are
told apart.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

SHARDS_SUFFIX = ".shards"
"""The suffix of a shard set's folder, ``<run>.shards/`` (Inspect's name for it)."""

_SPEC = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


class Shard(BaseModel):
    """Part ``index`` of ``count`` (``-T shard=2/4``: the second of four), counted from 1."""

    model_config = ConfigDict(frozen=True)

    index: int = Field(ge=1)
    count: int = Field(ge=1)

    @model_validator(mode="before")
    @classmethod
    def _from_text(cls, value: Any) -> Any:
        """``"K/N"`` as ``-T`` gives it."""
        if isinstance(value, str):
            match = _SPEC.match(value)
            if match is None:
                raise ValueError("not K/N")
            return {"index": int(match.group(1)), "count": int(match.group(2))}
        return value

    @model_validator(mode="after")
    def _in_range(self) -> Shard:
        if self.index > self.count:
            raise ValueError(f"part {self.index} of {self.count} does not exist")
        return self

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


class ShardRecord(BaseModel):
    """The part a log holds, stored in the task metadata (``medsp_shard``)."""

    model_config = ConfigDict(frozen=True)

    index: int
    """This part's number, from 1."""
    count: int
    """How many parts the selection was split into."""
    sizes: list[int]
    """Scenarios of every part, in part order (``sizes[index - 1]`` is this part's)."""
    selection: str
    """SHA-256 of the full selection the parts were cut from: every selected scenario id with
    its estimated calls and tokens, so parts cut from different scenarios, data or settings
    differ here."""

    @property
    def part(self) -> str:
        """``K/N``."""
        return f"{self.index}/{self.count}"

    @property
    def scenarios(self) -> int:
        """Scenarios of the full selection (every part's)."""
        return sum(self.sizes)

    def size(self, index: int) -> int:
        """Scenarios of part ``index``."""
        return self.sizes[index - 1]


class MergedParts(BaseModel):
    """The parts a merged log holds (``medsp-report merge <run>.shards``), stored in its task
    metadata (``medsp_merged``) in place of a part's ``medsp_shard``."""

    model_config = ConfigDict(frozen=True)

    count: int
    """How many parts the selection was split into (all of them are merged)."""
    sizes: list[int]
    """Scenarios of every part, in part order."""
    selection: str
    """SHA-256 of the full selection the parts were cut from (as each part records it)."""
    logs: list[str]
    """Each part's log that was merged, in part order (its path when merged)."""
    folder: str
    """The ``<run>.shards`` folder the parts were read from."""


def shard_folder(path: str) -> tuple[str, str] | None:
    """``(<run>.shards, <K>)`` for a log at ``<run>.shards/<K>/<file>`` (a path or an
    ``s3://`` URL, kept in the form given), None for a log outside that layout."""
    parts = re.split(r"[/\\]", path.rstrip("/\\"))
    if len(parts) < 3:
        return None
    folder, k = parts[-3], parts[-2]
    if not folder.endswith(SHARDS_SUFFIX) or folder == SHARDS_SUFFIX:
        return None
    cut = len(path.rstrip("/\\")) - len(parts[-1]) - len(k) - 2
    return path[:cut], k
