"""The variants a run names (``-T variants=baseline,anxious,my/own.yaml``): the shipped
library's by name, a user's own by the path of their file."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from importlib.resources import files
from pathlib import Path

from inspect_medsp.data import BASELINE
from inspect_medsp.errors import MedSPParameterError
from inspect_medsp.variants.spec import VariantSpec, read_variant

LIBRARY = "inspect_medsp.variants"
"""The package whose ``library/`` folder holds the shipped variants."""

SUFFIXES = (".yaml", ".yml")


def library_files() -> dict[str, Path]:
    """The shipped variant files by name (a file's name is its variant's name)."""
    folder = Path(str(files(LIBRARY).joinpath("library")))
    return {p.stem: p for p in sorted(folder.iterdir()) if p.suffix in SUFFIXES}


def shipped() -> list[VariantSpec]:
    """Every variant of the shipped library, in name order."""
    return [read_variant(path) for path in library_files().values()]


def _is_path(entry: str) -> bool:
    return entry.endswith(SUFFIXES) or "/" in entry or "\\" in entry


def _unknown(entry: str, known: Sequence[str]) -> MedSPParameterError:
    close = difflib.get_close_matches(entry, known, n=1)
    hint = f"did you mean {close[0]}? " if close else ""
    return MedSPParameterError(
        f"task parameter variants: no variant named {entry!r}; {hint}the library has "
        f"{', '.join(known)} (or give the path of your own variant file, <name>.yaml)"
    )


def resolve(entries: Sequence[str]) -> list[VariantSpec | None]:
    """The variants ``entries`` name, in order: None for ``baseline`` (the case as
    published), a shipped variant by name, or a user's own by its file's path.

    Raises:
        MedSPParameterError: One line: an unknown name (with the nearest), a file that is
            missing or malformed, or a variant named twice.
    """
    shelf = library_files()
    chosen: list[VariantSpec | None] = []
    seen: dict[str, str] = {}
    for entry in entries:
        if entry == BASELINE:
            spec: VariantSpec | None = None
        elif _is_path(entry):
            path = Path(entry).expanduser()
            if not path.is_file():
                raise MedSPParameterError(
                    f"task parameter variants: variant file {entry} does not exist; give "
                    "the path of a .yaml variant file (docs/variants.md) or a library name"
                )
            spec = read_variant(path)
        elif entry in shelf:
            spec = read_variant(shelf[entry])
        else:
            raise _unknown(entry, [BASELINE, *shelf])
        name = BASELINE if spec is None else spec.name
        if name in seen:
            raise MedSPParameterError(
                f"task parameter variants: {name} is named twice ({seen[name]} and {entry}); "
                "name each variant once"
            )
        seen[name] = entry
        chosen.append(spec)
    return chosen
