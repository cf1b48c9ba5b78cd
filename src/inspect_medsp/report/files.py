"""The files of a report folder: what a file is and how it is written (:class:`ReportFile`),
the CSV tables (:class:`Table`) and the one CSV writer of the package's reports, and the
helpers a section names its charts, tables and documents with."""

from __future__ import annotations

import csv
import math
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from inspect_medsp.report.analysis import Analysis

FileKind = Literal["chart", "paper", "table", "own"]
"""A PNG chart, a document for a write-up, a CSV table, or a file its section names itself
(not in the Files list)."""

WRITTEN: tuple[FileKind, ...] = ("chart", "table", "paper", "own")
"""The order files are written in, by kind (then by rank)."""

LISTED: tuple[FileKind, ...] = ("chart", "paper", "table")
"""The order the Files list names them in, by kind (then by rank)."""


class ReportFile(BaseModel):
    """One file of the report folder and how to write it."""

    model_config = ConfigDict(frozen=True)

    name: str
    kind: FileKind
    write: Callable[[Path], object]
    """Writes the file at the path given (the folder joined with :attr:`name`)."""
    rank: int = 1000
    """Its place among the files of its kind (the core's are 10, 20, ...; a new file goes
    last unless it says otherwise)."""
    line: str | None = None
    """Its entry in the Files list (default ``- [name](name)``; empty: named with another)."""
    empty: bool = False
    """A table with its header only (the Files list says so)."""

    def listing(self) -> str | None:
        """The Files list's line for this file (None when another line names it)."""
        if self.line is not None:
            return self.line or None
        note = " (header only: nothing of this kind in these runs)" if self.empty else ""
        return f"- [{self.name}]({self.name}){note}"


Cell = str | int | float | bool | None


class Table(BaseModel):
    """One CSV file: a name (the file stem), column names and rows."""

    name: str
    columns: list[str]
    rows: list[list[Cell]]

    def column(self, name: str) -> list[Cell]:
        i = self.columns.index(name)
        return [row[i] for row in self.rows]


def finite(value: float) -> float | None:
    """NaN (not computable, e.g. one case) as an empty cell."""
    return None if math.isnan(value) else value


def write_csv(table: Table, folder: Path, digits: int | None = None) -> Path:
    """``<folder>/<name>.csv``; floats keep every digit (or are rounded to ``digits``, NaN
    then empty), missing values are empty. The one CSV writer of the package's reports."""
    path = folder / f"{table.name}.csv"
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(table.columns)
        for row in table.rows:
            writer.writerow([_csv_cell(v, digits) for v in row])
    return path


def _csv_cell(value: Cell, digits: int | None) -> Cell:
    if value is None:
        return ""
    if not isinstance(value, float):
        return value
    if digits is None:
        return repr(value)
    return "" if math.isnan(value) else repr(round(value, digits))


def chart(
    name: str, rank: int, draw: Callable[[Analysis, Path], Path], analysis: Analysis
) -> ReportFile:
    """A chart of ``analysis`` drawn by ``draw`` (which imports matplotlib when called)."""
    return ReportFile(name=name, kind="chart", rank=rank, write=lambda p: draw(analysis, p))


def csv_file(table: Table, rank: int) -> ReportFile:
    """A CSV table of the report (through the one CSV writer)."""
    return ReportFile(
        name=f"{table.name}.csv",
        kind="table",
        rank=rank,
        write=lambda p: write_csv(table, p.parent),
        empty=not table.rows,
    )


def document(name: str, rank: int, text: str, line: str) -> ReportFile:
    """A text document for a write-up (``line``: its entry in the Files list)."""
    return ReportFile(
        name=name, kind="paper", rank=rank, line=line, write=lambda p: p.write_text(text, "utf-8")
    )
