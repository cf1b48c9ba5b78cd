"""``medsp-report merge <run>.shards``: one ordinary Inspect log of a run made in parts.

Each part of a sweep (``-T shard=K/N``) is its own log, so ``inspect view`` lists a row per
part with that part's metrics. After the last part, the merge writes ``<run>.eval`` next to
the ``<run>.shards`` folder (the merged log's place in Inspect's own layout): every sample of
every part, the run's metrics recomputed over all of them with the task's own metrics and
epoch reducers (Inspect's public ``recompute_metrics``, which reads both from the log's
header), the parts named in its task metadata (``medsp_merged``) and in Inspect's shard
ledger (``eval.shards``). Inspect 0.3.285 has the layout, the ledger's types and the viewer
rule that hides the parts of a finished merged log written after them, but no function or
command that writes one; this is that writer. The parts stay as they are.

Only a whole run is merged: every part present, each finished, all of one selection (the
checks ``medsp-report`` makes of the parts, ``report.shards``).
"""

from __future__ import annotations

import argparse
import posixpath
import sys
import uuid
from datetime import UTC, datetime
from pathlib import Path

from inspect_ai.log import (
    EvalLog,
    EvalSample,
    EvalShardEntry,
    EvalShards,
    read_eval_log,
    recompute_metrics,
    write_eval_log,
)
from inspect_ai.model import ModelUsage

from inspect_medsp.commandline import USAGE_ERROR, Command
from inspect_medsp.errors import MedSPDataError
from inspect_medsp.record import SHARDS_SUFFIX, MergedParts, NotMedSP, TaskMetadata
from inspect_medsp.report.runs import find_logs, is_url, read_run
from inspect_medsp.report.shards import ShardSet, shard_sets

MERGED_KEY = "medsp_merged"
"""Where a merged log's task metadata names its parts (``record.shards.MergedParts``)."""


class MergeRefused(MedSPDataError):
    """The folder is not the parts of one whole, finished run (one line saying why)."""


def merged_location(folder: str) -> str:
    """``<dir>/<run>.eval`` for ``<dir>/<run>.shards`` (Inspect's place for the merged log)."""
    trimmed = folder.rstrip("/\\")
    return trimmed[: -len(SHARDS_SUFFIX)] + ".eval"


def parts_of(folder: str) -> ShardSet:
    """The parts of the run in ``folder`` (a ``<run>.shards`` folder or ``s3://`` prefix).

    Raises:
        MergeRefused: Not a ``.shards`` folder, no MedSP parts in it, logs of more than one
            run, a part missing or not finished.
    """
    name = folder.rstrip("/\\")
    if not name.endswith(SHARDS_SUFFIX) or posixpath.basename(name) == SHARDS_SUFFIX:
        raise MergeRefused(
            f"{folder}: not a shard set's folder: give the <run>.shards folder the parts were "
            "written to (-T shard=K/N --log-dir <run>.shards/K)"
        )
    if not is_url(folder) and not Path(folder).is_dir():
        raise MergeRefused(f"{folder}: no such folder")
    paths, problems = find_logs([folder])
    if problems:
        raise MergeRefused(f"{problems[0].path}: {problems[0].message}")
    runs = []
    for path in paths:
        try:
            runs.append(read_run(path))
        except NotMedSP:
            continue
    _, sets = shard_sets(runs)
    found = [s for s in sets if s.folder]
    if not found:
        raise MergeRefused(f"{folder}: no MedSP part logs (-T shard=K/N) in <K>/ folders")
    if len(found) > 1:
        raise MergeRefused(f"{folder}: logs of {len(found)} shard sets; merge one at a time")
    parts = found[0]
    if not parts.complete:
        raise MergeRefused(f"{parts.problems()[0]}; merge after the last part has finished")
    return parts


def _usage(logs: list[EvalLog], of: str) -> dict[str, ModelUsage]:
    """Every part's ``stats.model_usage`` (or ``role_usage``), summed by name."""
    total: dict[str, ModelUsage] = {}
    for log in logs:
        for name, usage in getattr(log.stats, of).items():
            total[name] = total[name] + usage if name in total else usage
    return total


def merged_log(parts: ShardSet) -> EvalLog:
    """The run as one log: the first part's header, every part's samples (in part order),
    the parts' usage summed and their times spanned, the metrics recomputed over all
    samples, the parts recorded."""
    logs = [read_eval_log(parts.parts[k].path) for k in sorted(parts.parts)]
    first = logs[0]
    merged = first.model_copy(deep=True)
    samples: list[EvalSample] = [s for log in logs for s in log.samples or []]
    ids = [s.id for s in samples if s.epoch == 1]
    spec = merged.eval
    spec.eval_id = uuid.uuid4().hex
    spec.created = datetime.now(UTC).isoformat()
    spec.dataset.samples = len(ids)
    spec.dataset.sample_ids = ids
    spec.task_args = {k: v for k, v in spec.task_args.items() if k != "shard"}
    spec.task_args_passed = {k: v for k, v in spec.task_args_passed.items() if k != "shard"}
    metadata = TaskMetadata.read(spec.metadata)
    assert metadata is not None and metadata.shard is not None, "a part's metadata"
    record = MergedParts(
        count=parts.count,
        sizes=list(parts.sizes),
        selection=metadata.shard.selection,
        logs=[parts.parts[k].path for k in sorted(parts.parts)],
        folder=parts.location,
    )
    spec.metadata = {
        **{k: v for k, v in (spec.metadata or {}).items() if k != "medsp_shard"},
        MERGED_KEY: record.model_dump(mode="json"),
    }
    spec.shards = EvalShards(
        selection="ids",
        ledger=[
            EvalShardEntry(
                shard=str(k),
                log=posixpath.basename(log.location),
                eval_set_id=log.eval.eval_set_id,
                status=log.status,
                samples=len(log.samples or []),
                selected=len(log.eval.dataset.sample_ids or []),
                selection_digest=metadata.shard.selection,
                started_at=log.stats.started_at,
                completed_at=log.stats.completed_at,
                model_usage=log.stats.model_usage,
                role_usage=log.stats.role_usage,
                size=_size(log.location),
            )
            for k, log in zip(sorted(parts.parts), logs, strict=True)
        ],
    )
    merged.samples = samples
    merged.status = "success"
    merged.error = None
    merged.stats.started_at = min(log.stats.started_at for log in logs)
    merged.stats.completed_at = max(log.stats.completed_at for log in logs)
    merged.stats.model_usage = _usage(logs, "model_usage")
    merged.stats.role_usage = _usage(logs, "role_usage")
    recompute_metrics(merged)
    return merged


def _size(location: str) -> int:
    try:
        return Path(location).stat().st_size
    except OSError:
        return 0


def merge(folder: str) -> tuple[str, EvalLog]:
    """Write the merged log of the run in ``folder``; its location and the log.

    Raises:
        MergeRefused: See :func:`parts_of`.
    """
    parts = parts_of(folder)
    log = merged_log(parts)
    location = merged_location(folder)
    write_eval_log(log, location)
    return location, log


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "folder",
        help="the <run>.shards folder (or s3:// prefix) the parts were written to",
    )


def _run(args: argparse.Namespace) -> int:
    try:
        location, log = merge(str(args.folder))
    except MedSPDataError as err:
        print(f"medsp-report merge: error: {err}", file=sys.stderr)
        return 1 if not isinstance(err, MergeRefused) else USAGE_ERROR
    macro = ""
    if log.results is not None:
        for score in log.results.scores:
            if "macro" in score.metrics:
                macro = f", {score.name} macro {score.metrics['macro'].value:.3f}"
                break
    n = len(log.eval.dataset.sample_ids or [])
    shards = log.eval.shards
    count = len(shards.ledger) if shards is not None else 0
    print(
        f"wrote {location}: {count} parts, {n} scenarios{macro} (inspect view lists it as "
        "one run; the parts are kept)"
    )
    return 0


MERGE = Command(
    name="merge",
    help="merge a run made in parts into one Inspect log",
    description=(
        "After the last part of a run made with -T shard=K/N: write <run>.eval next to the "
        "<run>.shards folder, one ordinary Inspect log of the whole run (every sample, the "
        "run's metrics recomputed over all of them, the parts recorded), which inspect view "
        "lists as one row. The parts are kept."
    ),
    arguments=_arguments,
    run=_run,
)
