"""Rubrics that cannot change unseen: the package's manifest pins the SHA-256 of every
published rubric file and ``subset.json``; a downloaded or cached archive that differs is one
line naming the file, a local copy that differs runs, warns once and is not comparable."""

from __future__ import annotations

import hashlib
import io
import logging
import tarfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from inspect_medsp import medsp1000
from inspect_medsp.data import manifest
from inspect_medsp.data.manifest import (
    differences,
    first_difference,
    manifest_digest,
    published_hashes,
)
from inspect_medsp.data.sources import MIRROR_ENV, UPSTREAM_COMMIT, resolve_upstream_root
from inspect_medsp.errors import MedSPDataError
from inspect_medsp.hooks.coverage import RunCoverage
from inspect_medsp.record import TaskMetadata
from tests.support.tree import write_marked_scenario
from tests.test_sources import Server
from tests.test_sources import server as local_server

server = local_server
"""A local HTTP server answering fixed paths (the fixture of ``tests/test_sources.py``)."""

FILES = {
    "rubrics/mededportal_1_scenario1.json": b'{"PC": ["Takes a history"]}',
    "rubrics/mededportal_2_scenario1.json": b'{"PC": ["Examines the chest"]}',
    "rubrics/mededportal_3_scenario2.json": b'{"ICS": ["Introduces themself"]}',
    "subset.json": b'{"scenarios": ["mededportal_1/scenario1"]}',
}
"""A small published set for the tests that plant a difference."""


def write_tree(root: Path, files: dict[str, bytes] = FILES) -> Path:
    for name, body in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(body)
    return root


@pytest.fixture
def small_manifest(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The manifest replaced by one of :data:`FILES`, for the length of a test."""
    text = "".join(
        f"{hashlib.sha256(body).hexdigest()}  {name}\n" for name, body in sorted(FILES.items())
    )
    monkeypatch.setattr(manifest, "_text", lambda: text)
    published_hashes.cache_clear()
    manifest_digest.cache_clear()
    yield
    published_hashes.cache_clear()
    manifest_digest.cache_clear()


@pytest.fixture
def cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    root = tmp_path / "cache"
    monkeypatch.setenv("MEDSP_CACHE_DIR", str(root))
    monkeypatch.delenv(MIRROR_ENV, raising=False)
    return root


def cached_copy(cache: Path) -> Path:
    """The small published set, as a finished download of the pinned archive."""
    return write_tree(cache / "upstream" / UPSTREAM_COMMIT)


def one_line(error: pytest.ExceptionInfo[MedSPDataError]) -> str:
    message = str(error.value)
    assert "\n" not in message
    return message


# --------------------------------------------------------------------------- the shipped one


def test_the_published_copy_passes_and_is_checked_well_under_a_second(upstream: Path) -> None:
    hashes = published_hashes()
    assert len(hashes) == 1639  # 1,638 rubric files and subset.json
    assert sum(name.startswith("rubrics/") for name in hashes) == 1638

    differences(upstream)  # the files read once, as a run that just loaded them
    start = time.perf_counter()
    found = differences(upstream)
    seconds = time.perf_counter() - start

    assert found == []
    assert seconds < 1.0, f"checking the published copy took {seconds:.2f} s"


def test_the_digest_names_the_manifest() -> None:
    text = (Path(manifest.__file__).parent / manifest.MANIFEST).read_text(encoding="utf-8")

    assert manifest_digest() == hashlib.sha256(text.encode("utf-8")).hexdigest()


# --------------------------------------------------------------------------- a cached archive


@pytest.mark.usefixtures("small_manifest")
def test_a_cached_copy_that_is_the_published_one_is_used(cache: Path) -> None:
    target = cached_copy(cache)

    source = resolve_upstream_root()

    assert (source.root, source.origin, source.differs) == (target.resolve(), "github", None)


@pytest.mark.usefixtures("small_manifest")
@pytest.mark.parametrize(
    ("plant", "named"),
    [
        ("changed", "rubrics/mededportal_2_scenario1.json differs from the published file"),
        ("missing", "rubrics/mededportal_2_scenario1.json is missing"),
        ("extra", "rubrics/mededportal_9_scenario1.json is not a published file"),
        ("subset", "subset.json differs from the published file"),
    ],
)
def test_a_cached_copy_that_differs_is_one_line_naming_the_file(
    cache: Path, plant: str, named: str
) -> None:
    target = cached_copy(cache)
    rubric = target / "rubrics" / "mededportal_2_scenario1.json"
    if plant == "changed":
        rubric.write_bytes(b'{"PC": ["Examines the chest", "Orders nothing"]}')
    elif plant == "missing":
        rubric.unlink()
    elif plant == "extra":
        (target / "rubrics" / "mededportal_9_scenario1.json").write_text("{}")
    else:
        (target / "subset.json").write_text('{"scenarios": []}')

    with pytest.raises(MedSPDataError) as error:
        resolve_upstream_root()

    line = one_line(error)
    assert named in line
    assert "are not the published ones" in line
    assert f"delete '{target}'" in line
    assert MIRROR_ENV not in line


@pytest.mark.usefixtures("small_manifest")
def test_a_cached_copy_from_a_mirror_names_the_mirror_too(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = cached_copy(cache)
    (target / "rubrics" / "mededportal_1_scenario1.json").write_text("{}")
    monkeypatch.setenv(MIRROR_ENV, "http://127.0.0.1:9/archive.tar.gz")

    with pytest.raises(MedSPDataError) as error:
        resolve_upstream_root()

    line = one_line(error)
    assert "rubrics/mededportal_1_scenario1.json differs" in line
    assert f"delete '{target}'" in line and f"unset {MIRROR_ENV}" in line


# --------------------------------------------------------------------------- a download


def archive_of(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, body in files.items():
            info = tarfile.TarInfo(f"MedSP1000-{UPSTREAM_COMMIT}/{name}")
            info.size = len(body)
            tar.addfile(info, io.BytesIO(body))
    return buffer.getvalue()


@pytest.mark.usefixtures("small_manifest")
def test_a_download_that_differs_is_refused_and_not_cached(
    cache: Path,
    server: Server,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    server.routes["/a.tar.gz"] = archive_of(
        {**FILES, "rubrics/mededportal_3_scenario2.json": b'{"ICS": []}'}
    )
    monkeypatch.setenv(MIRROR_ENV, f"{server.base_url}/a.tar.gz")

    with pytest.raises(MedSPDataError) as error:
        resolve_upstream_root()

    line = one_line(error)
    assert "rubrics/mededportal_3_scenario2.json differs from the published file" in line
    assert f"unset {MIRROR_ENV}" in line and "nothing was cached" in line
    assert not (cache / "upstream" / UPSTREAM_COMMIT).exists()


@pytest.mark.usefixtures("small_manifest")
def test_a_download_that_is_the_published_one_is_cached(
    cache: Path,
    server: Server,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    server.routes["/a.tar.gz"] = archive_of(FILES)
    monkeypatch.setenv(MIRROR_ENV, f"{server.base_url}/a.tar.gz")

    source = resolve_upstream_root()

    assert source.origin == "github" and source.differs is None
    assert first_difference(cache / "upstream" / UPSTREAM_COMMIT) is None


# --------------------------------------------------------------------------- a local copy


@pytest.mark.usefixtures("small_manifest")
def test_a_local_copy_that_differs_is_used_and_says_how(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "upstream")
    (root / "rubrics" / "mededportal_2_scenario1.json").write_text("{}")
    (root / "rubrics" / "mededportal_3_scenario2.json").unlink()  # a part: said as partial

    source = resolve_upstream_root(root)

    assert source.origin == "local"
    assert source.differs == "rubrics/mededportal_2_scenario1.json differs from the published file"


def test_a_run_of_a_local_copy_that_differs_warns_once_and_is_not_comparable(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    data, upstream = write_marked_scenario(tmp_path)  # a rubric no published copy has
    caplog.set_level(logging.WARNING, logger="inspect_medsp")

    # (a judge other than the scripted one, which is refused at load for a case it has no
    # script for)
    task = medsp1000(data_dir=str(data), upstream_dir=str(upstream), judge="mockllm/model")

    warned = [r.getMessage() for r in caplog.records if "not the published ones" in r.getMessage()]
    assert len(warned) == 1
    assert "rubrics/mededportal_4242_scenario1.json is not a published file" in warned[0]
    assert "not comparable with the published numbers" in warned[0]
    meta = TaskMetadata.read(task.metadata)
    assert meta is not None and meta.load is not None
    assert meta.rubric_manifest == manifest_digest()
    assert meta.load.rubrics_differ is not None and not meta.load.comparable

    # the end of the run says it too, even when every published scenario was scored
    coverage = RunCoverage(
        name="MedSP1000", published=1548, scored=1548, rubrics_differ=meta.load.rubrics_differ
    )
    assert not coverage.comparable
    assert "the rubrics are not the published ones (rubrics/mededportal_4242" in coverage.line()


def test_a_local_copy_of_the_published_rubrics_is_comparable(upstream: Path) -> None:
    source = resolve_upstream_root(upstream)

    assert source.origin == "local" and source.differs is None


def test_the_report_marks_a_run_of_changed_rubrics_not_comparable(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib", reason="the report needs the report extra (matplotlib)")
    from inspect_ai.log import read_eval_log, write_eval_log

    from inspect_medsp.full_report import write_report

    log = read_eval_log(str(Path(__file__).parent / "fixtures" / "schema1_demo_repeats.eval"))
    assert log.eval.metadata is not None
    log.eval.metadata["medsp_load"]["rubrics_differ"] = "rubrics/x.json differs"
    changed = tmp_path / "changed.eval"
    write_eval_log(log, str(changed))

    result = write_report([str(changed)], str(tmp_path / "report"), ["md"])

    assert result.analysis is not None
    [group] = result.analysis.groups
    assert not group.comparable
    [flag] = [f for f in result.analysis.flags if "not the published ones" in f]
    assert "rubrics/x.json differs" in flag and "not comparable" in flag
