"""Find Inspect logs and read the MedSP runs out of them (``record.read_log``: the report reads
the typed record itself)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from inspect_ai.log import list_eval_logs

from inspect_medsp.record.read import MedspRun, NotMedSP, read_log
from inspect_medsp.report.problem import Problem


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


def collect(inputs: Iterable[str | Path]) -> tuple[list[MedspRun], list[Problem]]:
    """Read every MedSP run under ``inputs``; anything else becomes a one-line problem."""
    paths, problems = find_logs(inputs)
    runs: list[MedspRun] = []
    for path in paths:
        try:
            runs.append(read_run(path))
        except NotMedSP as err:
            problems.append(Problem(path=path, message=str(err)))
        except Exception as err:
            problems.append(
                Problem(
                    path=path, message=f"not a readable Inspect log ({type(err).__name__}: {err})"
                )
            )
    return runs, problems


def read_run(path: str) -> MedspRun:
    """One MedSP run: the header's identity and metrics, then every sample. A MedSP run with
    nothing scored (or not scored at all) is read too: the report shows it as unhealthy.

    Raises:
        NotMedSP: The log is an Inspect log of some other task.
    """
    return read_log(path, require_scores=False)
