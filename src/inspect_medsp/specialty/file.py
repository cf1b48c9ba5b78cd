"""The specialties file: one paper label per scenario, and where the labels came from."""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from inspect_medsp.data import SampleRecord
from inspect_medsp.errors import MedSPDataError
from inspect_medsp.record import SPECIALTIES

logger = logging.getLogger("inspect_medsp")

SOURCE_DATA = "data"
"""``specialty_source`` of a label the scenario's own metadata gives."""


class SpecialtiesFile(BaseModel):
    """``{"model", "data_revision", "prompt_sha256", "specialties": {"<id>": "<label>"}}``.

    Ids are ``<case_id>/<scenarioN>``; labels are the paper's (:data:`SPECIALTIES`).
    """

    model_config = ConfigDict(frozen=True)

    model: str
    data_revision: str | None = None
    prompt_sha256: str | None = None
    specialties: dict[str, str]

    def write(self, path: Path) -> None:
        path.write_text(self.model_dump_json(indent=2) + "\n", encoding="utf-8")


def _ids(ids: Sequence[str], limit: int = 20) -> str:
    shown = ", ".join(ids[:limit])
    return shown + (f" and {len(ids) - limit} more" if len(ids) > limit else "")


def read_specialties(path: str | Path) -> SpecialtiesFile:
    """Read and check a specialties file (every label must be one of the paper's).

    Raises:
        MedSPDataError: The file is missing, not the expected JSON, or names an unknown label.
    """
    file = Path(path)
    if not file.is_file():
        raise MedSPDataError(
            f"specialties: {file} not found; make one with medsp-specialties LOG --out FILE"
        )
    try:
        parsed = SpecialtiesFile.model_validate(json.loads(file.read_text(encoding="utf-8")))
    except (json.JSONDecodeError, ValidationError) as err:
        detail = err.msg if isinstance(err, json.JSONDecodeError) else "wrong shape"
        raise MedSPDataError(
            f"specialties: {file} is not a specialties file ({detail}); expected "
            '{"model": ..., "data_revision": ..., "prompt_sha256": ..., "specialties": {...}}'
        ) from None
    unknown = sorted(i for i, label in parsed.specialties.items() if label not in SPECIALTIES)
    if unknown:
        named = [f"{i} ({parsed.specialties[i]!r})" for i in unknown]
        raise MedSPDataError(
            f"specialties: {file} has {len(unknown)} unknown labels: {_ids(named)}; use one of "
            + ", ".join(SPECIALTIES)
        )
    return parsed


def label_records(
    records: Sequence[SampleRecord],
    path: str | Path | None,
    data_revision: str | None = None,
) -> tuple[list[SampleRecord], dict[str, str | None] | None]:
    """Put each scenario's specialty and its source into the scenario metadata.

    Without a file, a ``specialty`` the data gives is marked ``specialty_source: data``. With
    a file, its label is used for every scenario (the data's own value, if any, is kept as
    ``data_specialty``) and ``specialty_source`` names the model that classified it. Only
    metadata changes: the packets (what any role sees) are untouched.

    Returns:
        The labelled records and, with a file, what the task metadata records about it.

    Raises:
        MedSPDataError: The file is unusable or misses some of the scenarios.
    """
    if path is None:
        out = []
        for record in records:
            meta = record.scenario.metadata
            if meta.get("specialty") and "specialty_source" not in meta:
                meta = {**meta, "specialty_source": SOURCE_DATA}
            out.append(_with_metadata(record, meta))
        return out, None
    file = read_specialties(path)
    missing = [r.id for r in records if r.id not in file.specialties]
    if missing:
        raise MedSPDataError(
            f"specialties: {path} has no label for {len(missing)} scenarios: {_ids(missing)}; "
            "classify them with inspect_medsp/medsp_specialty (same data_dir and revision)"
        )
    if file.data_revision and data_revision and file.data_revision != data_revision:
        logger.warning(
            f"specialties: {path} was classified on data revision {file.data_revision}, "
            f"this run uses {data_revision}"
        )
    labelled = []
    for record in records:
        meta = dict(record.scenario.metadata)
        own = meta.pop("specialty", None)
        meta.pop("specialty_source", None)
        if own:
            meta["data_specialty"] = own
        meta["specialty"] = file.specialties[record.id]
        meta["specialty_source"] = file.model
        labelled.append(_with_metadata(record, meta))
    info: dict[str, str | None] = {
        "file": str(path),
        "model": file.model,
        "data_revision": file.data_revision,
        "prompt_sha256": file.prompt_sha256,
    }
    return labelled, info


def _with_metadata(record: SampleRecord, metadata: dict[str, str]) -> SampleRecord:
    if metadata == record.scenario.metadata:
        return record
    scenario = record.scenario.model_copy(update={"metadata": metadata})
    return record.model_copy(update={"scenario": scenario})
