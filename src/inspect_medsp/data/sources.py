"""Where the MedSP1000 inputs live: a local folder, or a download cached on first use.

Scenarios come from the Hub dataset, rubrics and ``subset.json`` from the GitHub archive
of a pinned commit. Every failure is a one-line :class:`MedSPDataError` with the fix.
"""

from __future__ import annotations

import copy
import os
import re
import shutil
import tarfile
import tempfile
import urllib.error
import urllib.request
import zlib
from pathlib import Path, PurePosixPath
from typing import Literal

import huggingface_hub
import platformdirs
from huggingface_hub import constants as hf_constants
from huggingface_hub import errors as hf_errors
from pydantic import BaseModel, ConfigDict

from inspect_medsp.data.manifest import first_difference
from inspect_medsp.errors import MedSPDataError

DATASET_REPO_ID = "byrLLCC/MedSP1000"
DATASET_REVISION = "main"
UPSTREAM_REPO = "MAGIC-AI4Med/MedSP1000"
UPSTREAM_COMMIT = "2806984cb331d6fedc2c0555e3c1c4a54171c77a"
UPSTREAM_ARCHIVE_URL = "https://codeload.github.com/{repo}/tar.gz/{commit}"
MIRROR_ENV = "MEDSP_UPSTREAM_ARCHIVE_URL"
"""Names a mirror of the rubric archive, used instead of GitHub."""
DOWNLOAD_TIMEOUT = 60.0

_COMMIT_RE = re.compile(r"[0-9a-f]{40}")
_UPSTREAM_FILES = {("subset.json",), ("LICENSE",)}


class ResolvedSource(BaseModel):
    """A benchmark input located on disk."""

    model_config = ConfigDict(frozen=True)

    root: Path
    origin: Literal["local", "huggingface", "github"]
    revision: str | None  # commit used (Hub snapshot sha or GitHub commit); None if local
    differs: str | None = None
    """How a local rubric copy differs from the published files (None: it is the published
    copy, or this is not a rubric copy)."""


def medsp_cache_dir() -> Path:
    """Return the folder that holds downloaded MedSP1000 inputs.

    Returns:
        ``$MEDSP_CACHE_DIR`` if set, else the per-user cache folder for ``inspect_medsp``.
    """
    configured = os.environ.get("MEDSP_CACHE_DIR")
    if configured:
        return Path(configured).expanduser()
    return Path(platformdirs.user_cache_dir("inspect_medsp"))


class CacheUnwritable(MedSPDataError):
    """The cache folder cannot be made or written: both sources need it, so it is said once."""


class RubricsNotPublished(MedSPDataError):
    """A download or cached copy of the pinned rubric archive is not the published one: the
    fix is its own (delete the cache, unset the mirror), not a local copy."""


def writable_cache(folder: Path) -> Path:
    """``folder`` of the cache, made if missing and checked writable before any download.

    Raises:
        CacheUnwritable: The folder cannot be made or written, naming it and the fix.
    """
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        why = exc.strerror or type(exc).__name__
        raise CacheUnwritable(
            f"cannot write the MedSP cache folder '{folder}' ({why}): set MEDSP_CACHE_DIR to "
            "a folder you can write to, or give local copies with -T data_dir=<folder> "
            "-T upstream_dir=<folder>"
        ) from None
    return folder


DATA_REVISION_ENV = "MEDSP_DATA_REVISION"
"""The environment variable that gives the scenario data's Hub revision when ``-T
data_revision`` does not."""


def data_revision_unused(task: str, downloads: bool) -> str | None:
    """Why ``$MEDSP_DATA_REVISION`` is refused for ``task``, as ``-T data_revision`` is: the
    task downloads no scenario data (the bundled demo, your own cases); None when it is unset
    or the task downloads."""
    rev = os.environ.get(DATA_REVISION_ENV)
    if not rev or downloads:
        return None
    return (
        f"{DATA_REVISION_ENV}={rev} is set, but {task} downloads no scenario data (its "
        f"scenarios are not the Hub's), as -T data_revision is not a parameter of {task}: "
        f"unset {DATA_REVISION_ENV}"
    )


def resolve_scenario_root(
    data_dir: str | Path | None = None, revision: str | None = None
) -> ResolvedSource:
    """Locate the scenario tree (``<case_id>/<scenarioN>/<role>/*``).

    Args:
        data_dir: A local copy of the dataset. If None, the Hub dataset is downloaded
            (or reused) in ``medsp_cache_dir() / "hub"``.
        revision: Hub branch, tag or commit; default ``$MEDSP_DATA_REVISION`` or "main".
            Ignored when ``data_dir`` is given.

    Returns:
        The folder holding the scenario tree and where it came from.

    Raises:
        MedSPDataError: The folder is missing or the download failed.
    """
    if data_dir is not None:
        root = Path(data_dir).expanduser()
        if not root.is_dir():
            problem = "is not a directory" if root.exists() else "does not exist"
            raise MedSPDataError(
                f"MedSP1000 data_dir '{root}' {problem}: pass "
                "-T data_dir=<folder holding <case_id>/<scenarioN>/...> "
                f"or omit it to download {DATASET_REPO_ID}"
            )
        return ResolvedSource(root=root.resolve(), origin="local", revision=None)

    from_env = revision is None and bool(os.environ.get(DATA_REVISION_ENV))
    rev = revision or os.environ.get(DATA_REVISION_ENV) or DATASET_REVISION
    hub_cache = writable_cache(medsp_cache_dir() / "hub")
    try:
        path = huggingface_hub.snapshot_download(
            repo_id=DATASET_REPO_ID,
            repo_type="dataset",
            revision=rev,
            cache_dir=hub_cache,
        )
    except Exception as exc:
        given = f"{DATA_REVISION_ENV}={rev}" if from_env else f"revision '{rev}'"
        raise MedSPDataError(
            f"could not get dataset {DATASET_REPO_ID} ({given}) from "
            f"{hf_constants.ENDPOINT}: {_hub_reason(exc, rev)}; set HF_ENDPOINT to a "
            "mirror, set HF_TOKEN if access is denied, or pass -T data_dir=<local copy>"
        ) from exc
    snapshot = Path(path)
    return ResolvedSource(root=snapshot, origin="huggingface", revision=snapshot.name)


def resolve_upstream_root(
    upstream_dir: str | Path | None = None, commit: str = UPSTREAM_COMMIT
) -> ResolvedSource:
    """Locate the folder holding ``rubrics/`` and ``subset.json``.

    Args:
        upstream_dir: A local checkout of the upstream repository. If None, the
            GitHub archive of ``commit`` is downloaded once into
            ``medsp_cache_dir() / "upstream" / commit`` and reused afterwards.
        commit: Full 40-character commit of the upstream repository to download.

    Returns:
        The folder holding ``rubrics/`` and where it came from.

    Raises:
        MedSPDataError: The folder lacks ``rubrics/`` or the download failed.
    """
    if upstream_dir is not None:
        root = Path(upstream_dir).expanduser()
        if not (root / "rubrics").is_dir():
            problem = "has no rubrics/ folder" if root.is_dir() else "is missing or not a folder"
            raise MedSPDataError(
                f"MedSP1000 upstream_dir '{root}' {problem}: pass -T upstream_dir=<folder "
                "holding rubrics/<case_id>_<scenarioN>.json and subset.json> "
                f"or omit it to download {UPSTREAM_REPO}"
            )
        return ResolvedSource(
            root=root.resolve(),
            origin="local",
            revision=None,
            differs=first_difference(root, missing=False),
        )

    if not _COMMIT_RE.fullmatch(commit):
        raise MedSPDataError(
            f"upstream commit '{commit}' is not a full 40-character hex commit: "
            f"pass the full sha of {UPSTREAM_REPO} (default {UPSTREAM_COMMIT})"
        )
    target = medsp_cache_dir() / "upstream" / commit
    if not (target / "rubrics").is_dir():
        _download_upstream(commit, target)
    elif commit == UPSTREAM_COMMIT and (difference := first_difference(target)) is not None:
        raise RubricsNotPublished(
            f"the cached {UPSTREAM_REPO} rubrics in '{target}' are not the published ones: "
            f"{difference}; delete '{target}' to download them again"
            + (
                f" (and unset {MIRROR_ENV}, the mirror they may have come from)"
                if _mirror()
                else ""
            )
        )
    return ResolvedSource(root=target.resolve(), origin="github", revision=commit)


def _mirror() -> str | None:
    """The mirror of the rubric archive set in the environment, if any."""
    return os.environ.get(MIRROR_ENV) or None


def sources_unavailable(
    scenarios: MedSPDataError | None, rubrics: MedSPDataError | None
) -> MedSPDataError:
    """One error for the sources that could not be had, naming the fix for both at once.

    Args:
        scenarios: Why the scenario tree could not be located (None: it was found).
        rubrics: Why the rubrics could not be located (None: they were found).

    Returns:
        A one-line error: each failure, then how to give both sources offline, so that one
        fix is enough.
    """
    parts = [
        f"{what}: {error}"
        for what, error in (("scenarios", scenarios), ("rubrics", rubrics))
        if error is not None
    ]
    return MedSPDataError(
        "MedSP1000 inputs unavailable; "
        + "; ".join(parts)
        + ". Offline, give local copies of both: -T data_dir=<folder holding "
        "<case_id>/<scenarioN>/...> -T upstream_dir=<folder holding rubrics/ and subset.json>; "
        f"or point HF_ENDPOINT (for {DATASET_REPO_ID}) and MEDSP_UPSTREAM_ARCHIVE_URL "
        f"(for the {UPSTREAM_REPO} archive) at mirrors"
    )


def _download_upstream(commit: str, target: Path) -> None:
    """Fetch the archive of ``commit`` and place its rubrics at ``target`` atomically."""
    default_url = UPSTREAM_ARCHIVE_URL.format(repo=UPSTREAM_REPO, commit=commit)
    url = _mirror() or default_url
    work = Path(tempfile.mkdtemp(prefix=f".{commit}-", dir=writable_cache(target.parent)))
    try:
        archive = work / "archive.tar.gz"
        request = urllib.request.Request(url, headers={"User-Agent": "inspect-medsp"})
        with (
            urllib.request.urlopen(request, timeout=DOWNLOAD_TIMEOUT) as response,
            archive.open("wb") as sink,
        ):
            shutil.copyfileobj(response, sink)
        tree = work / "tree"
        _extract_upstream(archive, tree)
        if not (tree / "rubrics").is_dir():
            raise tarfile.TarError("archive has no <top folder>/rubrics/")
        if commit == UPSTREAM_COMMIT and (difference := first_difference(tree)) is not None:
            fix = (
                f"unset {MIRROR_ENV} to download the published archive from GitHub"
                if _mirror()
                else f"pass -T upstream_dir=<checkout of {UPSTREAM_REPO} at {commit}>"
            )
            raise RubricsNotPublished(
                f"the {UPSTREAM_REPO} rubrics downloaded from {url} are not the published "
                f"ones: {difference}; nothing was cached; {fix}"
            )
        try:
            os.replace(tree, target)
        except OSError:
            if not (target / "rubrics").is_dir():  # not merely a concurrent winner
                raise
    except (OSError, ValueError, EOFError, zlib.error, tarfile.TarError) as exc:
        raise MedSPDataError(
            f"could not fetch {UPSTREAM_REPO} rubrics from {url}: {_describe(exc)}; pass "
            f"-T upstream_dir=<checkout of {UPSTREAM_REPO} at {commit}> "
            "or set MEDSP_UPSTREAM_ARCHIVE_URL to a mirror"
        ) from exc
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _extract_upstream(archive: Path, dest: Path) -> None:
    """Extract ``rubrics/**``, ``subset.json`` and ``LICENSE`` without the top folder."""
    with tarfile.open(archive, "r:gz") as tar:
        chosen: list[tarfile.TarInfo] = []
        for member in tar.getmembers():
            parts = PurePosixPath(member.name).parts
            if not member.isfile() or len(parts) < 2 or ".." in parts or parts[0] == "/":
                continue
            rest = parts[1:]
            if (rest[0] == "rubrics" and len(rest) > 1) or rest in _UPSTREAM_FILES:
                renamed = copy.copy(member)
                renamed.name = "/".join(rest)
                chosen.append(renamed)
        if hasattr(tarfile, "data_filter"):
            tar.extractall(dest, members=chosen, filter="data")
        else:  # Python without extraction filters: names were checked above
            tar.extractall(dest, members=chosen)


def _hub_reason(exc: Exception, revision: str) -> str:
    """Why ``snapshot_download`` failed, in a few words."""
    if isinstance(exc, hf_errors.RevisionNotFoundError):
        return f"revision '{revision}' not found"
    if isinstance(exc, hf_errors.RepositoryNotFoundError):
        return "repository not found or access denied"
    if isinstance(exc, hf_errors.IncompleteSnapshotError):
        return "the Hub is unreachable and the cached snapshot is incomplete"
    if huggingface_hub.is_offline_mode():
        return "HF_HUB_OFFLINE is set and nothing is cached (unset it to download)"
    if isinstance(exc, hf_errors.LocalEntryNotFoundError) and exc.__cause__ is not None:
        return _describe(exc.__cause__)  # Hub unreachable, nothing cached: the cause says why
    return _describe(exc)


def _describe(exc: BaseException) -> str:
    """One short line describing an exception."""
    if isinstance(exc, urllib.error.HTTPError):
        return f"HTTP {exc.code} {exc.reason}"
    if isinstance(exc, urllib.error.URLError):
        return f"{type(exc).__name__}: {exc.reason}"
    text = " ".join(str(exc).split())
    if len(text) > 200:
        text = text[:197] + "..."
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
