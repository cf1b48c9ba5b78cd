"""Find Inspect logs and read the MedSP runs out of them (``record.read_log``: the report reads
the typed record itself)."""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from pathlib import Path

from inspect_ai.log import list_eval_logs

from inspect_medsp.record import (
    MedspRun,
    NotMedSP,
    ParsedLog,
    drop_records,
    parse_log,
    parsed_run,
    read_log,
)
from inspect_medsp.report.problem import Problem

Digest = Callable[[ParsedLog], object]
"""What a report section makes of a log while it is parsed, from its samples' JSON with
their model calls per role and their scenario records (which the report's own read drops):
kept as ``MedspRun.digests[name]``, so the section need not read the log again."""


def find_logs(inputs: Iterable[str | Path]) -> tuple[list[str], list[Problem]]:
    """Expand files and folders into log files, oldest first; unusable inputs as problems."""
    found: list[str] = []
    problems: list[Problem] = []
    for item in inputs:
        path = Path(item)
        if is_url(str(item)):
            found += _remote(str(item), problems)
        elif path.is_dir():
            try:
                infos = list_eval_logs(str(path), recursive=True, descending=False)
            except Exception as err:
                problems.append(Problem(path=str(path), message=f"cannot list logs: {err}"))
                continue
            if not infos:
                message = "no Inspect logs in this folder (.eval, or .json with Inspect's names)"
                problems.append(Problem(path=str(path), message=message))
            found += [_local(info.name) for info in infos]
        elif path.is_file():
            found.append(str(path))
        else:
            problems.append(Problem(path=str(path), message="no such file or folder"))
    unique = list(dict.fromkeys(found))
    return unique, problems


def _local(name: str) -> str:
    return name.removeprefix("file://")


def is_url(item: str) -> bool:
    """An fsspec URL such as ``s3://bucket/run.shards`` (not a local ``file://`` one)."""
    return "://" in item and not item.startswith("file://")


def _remote(url: str, problems: list[Problem]) -> list[str]:
    """The logs at a URL: the file it names, or every log below the prefix (as Inspect's
    ``--log-dir`` reads it, through fsspec)."""
    if url.endswith((".eval", ".json")):
        return [url]
    try:
        infos = list_eval_logs(url, recursive=True, descending=False)
    except Exception as err:
        problems.append(Problem(path=url, message=f"cannot list logs: {err}"))
        return []
    if not infos:
        problems.append(Problem(path=url, message="no Inspect logs under this prefix"))
    return [info.name for info in infos]


def collect(
    inputs: Iterable[str | Path], digests: Mapping[str, Digest] | None = None
) -> tuple[list[MedspRun], list[Problem]]:
    """Read every MedSP run under ``inputs`` (several logs at once on a machine with more than
    one core, with a progress bar on a terminal); anything else becomes a one-line problem.
    ``digests``: made of each log as it is parsed (see :data:`Digest`)."""
    paths, problems = find_logs(inputs)
    runs: list[MedspRun] = []
    for path, found in zip(paths, read_all(paths, digests), strict=True):
        if isinstance(found, MedspRun):
            runs.append(found)
        else:
            problems.append(Problem(path=path, message=found))
    return runs, problems


def read_run(path: str) -> MedspRun:
    """One MedSP run: the header's identity and metrics, then every sample, read lean (what
    the report reads; see ``record.read.read_log``). A MedSP run with nothing
    scored (or not scored at all) is read too: the report shows it as unhealthy.

    Raises:
        NotMedSP: The log is an Inspect log of some other task.
    """
    return read_log(path, require_scores=False, lean=True)


def _parse_or_say(path: str, digests: Mapping[str, Digest] | None = None) -> ParsedLog | str:
    """The log parsed lean (what a worker process does) with its ``digests`` made, or why it
    could not be read."""
    try:
        parsed = parse_log(path, lean=True, events=bool(digests), records=bool(digests))
    except NotMedSP as err:
        return str(err)
    except Exception as err:
        return f"not a readable Inspect log ({type(err).__name__}: {err})"
    if not digests:
        return parsed
    if parsed.samples is None:  # read by Inspect's reader when typed: as the report reads
        return parsed._replace(events=False)
    return parsed._replace(digests=_digested(parsed, digests))


def _digested(parsed: ParsedLog, digests: Mapping[str, Digest]) -> dict[str, object]:
    """Each digest of the log (one that fails is left out: its section then reads the log
    itself, and says what failed), then the records dropped, as the report's read does."""
    made: dict[str, object] = {}
    for name, digest in digests.items():
        try:
            made[name] = digest(parsed)
        except Exception:
            continue
    drop_records(parsed)
    return made


def _typed_or_say(found: ParsedLog | str) -> MedspRun | str:
    if isinstance(found, str):
        return found
    try:
        return parsed_run(found, require_scores=False)
    except Exception as err:
        return f"not a readable Inspect log ({type(err).__name__}: {err})"


PARSERS = 2
"""The most worker processes that parse logs for :func:`read_all`."""


def read_all(
    paths: Sequence[str], digests: Mapping[str, Digest] | None = None
) -> list[MedspRun | str]:
    """Every path read lean, or why it could not be: with several logs and cores the logs'
    JSON is parsed (and ``digests`` made of it) in worker processes while this one types
    each as it arrives (typed objects cost more to send between processes than they take to
    make). One worker per core beyond this one, at most :data:`PARSERS`: each holds a
    full-set log's parsed JSON (some 170 MB), so on two cores five full-set logs are read in
    under 600 MB all told, where a second worker took it near 800."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    workers = min(len(paths) - 1, (cores or 1) - 1, PARSERS)
    found: dict[int, MedspRun | str] = {}
    with progress(len(paths)) as advance:
        if workers < 1:
            for i, path in enumerate(paths):
                found[i] = _typed_or_say(_parse_or_say(path, digests))
                advance()
        else:
            context = multiprocessing.get_context("fork")
            with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
                futures = {
                    pool.submit(_parse_or_say, path, digests): i for i, path in enumerate(paths)
                }
                for future in as_completed(futures):
                    i, parsed = futures.pop(future), future.result()
                    if not futures:
                        # the last log: its worker (which keeps the memory of the JSON it
                        # parsed) ends before this process types it, the peak of a read
                        pool.shutdown(wait=True)
                    # typed, and its JSON let go of (the future holds it), as each arrives
                    found[i] = _typed_or_say(parsed)
                    advance()
    return [found[i] for i in range(len(paths))]


@contextmanager
def progress(total: int) -> Iterator[Callable[[], None]]:
    """A progress bar of logs read on stderr when it is a terminal (else nothing); yields the
    function that counts one more."""
    if total < 2 or not sys.stderr.isatty():
        yield lambda: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    bar = Progress(
        "reading logs", BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        console=Console(stderr=True), transient=True,
    )  # fmt: skip
    with bar:
        task = bar.add_task("read", total=total)
        yield lambda: bar.advance(task)
