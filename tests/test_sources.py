"""Tests for locating the scenario tree and the upstream rubrics (no network beyond 127.0.0.1)."""

from __future__ import annotations

import http.server
import io
import socket
import tarfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import huggingface_hub.constants
import pytest

from inspect_medsp import medsp1000
from inspect_medsp.data.sources import (
    DATASET_REPO_ID,
    UPSTREAM_COMMIT,
    medsp_cache_dir,
    resolve_scenario_root,
    resolve_upstream_root,
)
from inspect_medsp.errors import MedSPDataError
from tests.support.tree import write_marked_scenario

RUBRIC_NAMES = [
    "mededportal_10009_scenario1.json",
    "mededportal_10011_scenario1.json",
    "mededportal_10011_scenario2.json",
]
SHA = "0123456789abcdef0123456789abcdef01234567"


@pytest.fixture
def cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Point the MedSP cache at a fresh folder and clear overriding variables."""
    root = tmp_path / "cache"
    monkeypatch.setenv("MEDSP_CACHE_DIR", str(root))
    monkeypatch.delenv("MEDSP_UPSTREAM_ARCHIVE_URL", raising=False)
    monkeypatch.delenv("MEDSP_DATA_REVISION", raising=False)
    return root


@dataclass
class Server:
    """A local HTTP server answering fixed paths with fixed bodies, counting requests."""

    base_url: str
    routes: dict[str, bytes]
    requests: list[str] = field(default_factory=list)


@pytest.fixture
def server() -> Iterator[Server]:
    routes: dict[str, bytes] = {}
    seen: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            seen.append(self.path)
            body = routes.get(self.path)
            self.send_response(404 if body is None else 200)
            self.send_header("Content-Length", str(len(body or b"")))
            self.end_headers()
            self.wfile.write(body or b"")

        def log_message(self, format: str, *args: object) -> None:
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield Server(f"http://127.0.0.1:{httpd.server_address[1]}", routes, seen)
    finally:
        httpd.shutdown()
        httpd.server_close()


def closed_port_url() -> str:
    """A 127.0.0.1 URL on which nothing listens, so connecting is refused at once."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def assert_one_line(error: pytest.ExceptionInfo[MedSPDataError], *needles: str) -> None:
    message = str(error.value)
    assert "\n" not in message
    for needle in needles:
        assert needle in message


# --- local folders -------------------------------------------------------------------


def test_local_data_dir_resolves(tmp_path: Path) -> None:
    (tmp_path / "mededportal_10009" / "scenario1").mkdir(parents=True)
    source = resolve_scenario_root(tmp_path)
    assert source.root == tmp_path.resolve()
    assert source.origin == "local"
    assert source.revision is None


def test_local_data_dir_expands_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "medsp").mkdir()
    assert resolve_scenario_root("~/medsp").root == (tmp_path / "medsp").resolve()


def test_local_data_dir_missing(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    with pytest.raises(MedSPDataError) as error:
        resolve_scenario_root(missing)
    assert_one_line(error, str(missing), "does not exist", "data_dir=")


def test_local_data_dir_is_a_file(tmp_path: Path) -> None:
    file = tmp_path / "scenarios.zip"
    file.write_bytes(b"")
    with pytest.raises(MedSPDataError) as error:
        resolve_scenario_root(str(file))
    assert_one_line(error, str(file), "not a directory", "data_dir=")


def test_local_upstream_dir_resolves(tmp_path: Path) -> None:
    (tmp_path / "rubrics").mkdir()
    source = resolve_upstream_root(tmp_path)
    assert (source.root, source.origin, source.revision) == (tmp_path.resolve(), "local", None)


@pytest.mark.parametrize("layout", ["missing", "file", "no_rubrics", "rubrics_is_file"])
def test_local_upstream_dir_rejected(tmp_path: Path, layout: str) -> None:
    path = tmp_path / "upstream"
    if layout == "file":
        path.write_text("x")
    elif layout == "no_rubrics":
        path.mkdir()
        (path / "subset.json").write_text("{}")
    elif layout == "rubrics_is_file":
        path.mkdir()
        (path / "rubrics").write_text("x")
    with pytest.raises(MedSPDataError) as error:
        resolve_upstream_root(path)
    assert_one_line(error, str(path), "upstream_dir=", "rubrics/", "subset.json")


def test_cache_dir_follows_env(cache: Path) -> None:
    assert medsp_cache_dir() == cache


# --- upstream archive download -------------------------------------------------------


def add_file(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    tar.addfile(info, io.BytesIO(data))


def build_archive(rubrics: Path, commit: str = UPSTREAM_COMMIT) -> bytes:
    """A GitHub-style archive: one top folder, wanted files, an extra and hostile members."""
    top = f"MedSP1000-{commit}"
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name in RUBRIC_NAMES:
            add_file(tar, f"{top}/rubrics/{name}", (rubrics / name).read_bytes())
        add_file(tar, f"{top}/subset.json", b'{"name": "Q100", "scenarios": []}')
        add_file(tar, f"{top}/LICENSE", b"MIT")
        add_file(tar, f"{top}/README.md", b"not wanted")
        add_file(tar, f"{top}/rubrics/../../evil_inside", b"escape")
        add_file(tar, "../evil", b"escape")
        link = tarfile.TarInfo(f"{top}/rubrics/evil_link.json")
        link.type = tarfile.SYMTYPE
        link.linkname = "/etc/passwd"
        tar.addfile(link)
    return buffer.getvalue()


def test_upstream_download_extracts_and_caches(
    cache: Path, server: Server, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, upstream: Path
) -> None:
    # another commit than the pinned one: the archive holds three of the published rubrics,
    # which the manifest of the pinned commit would refuse (tests/test_manifest.py)
    real_rubrics = upstream / "rubrics"
    server.routes["/archive.tar.gz"] = build_archive(real_rubrics, SHA)
    monkeypatch.setenv("MEDSP_UPSTREAM_ARCHIVE_URL", f"{server.base_url}/archive.tar.gz")

    source = resolve_upstream_root(commit=SHA)
    target = cache / "upstream" / SHA
    assert (source.root, source.origin, source.revision) == (target.resolve(), "github", SHA)
    assert sorted(p.name for p in (target / "rubrics").iterdir()) == RUBRIC_NAMES
    for name in RUBRIC_NAMES:
        assert (target / "rubrics" / name).read_bytes() == (real_rubrics / name).read_bytes()
    assert (target / "subset.json").is_file()
    assert (target / "LICENSE").read_text() == "MIT"
    assert not (target / "README.md").exists()
    assert not [p for p in tmp_path.rglob("evil*")]
    assert [p.name for p in (cache / "upstream").iterdir()] == [SHA]
    assert len(server.requests) == 1

    again = resolve_upstream_root(commit=SHA)
    assert again == source
    assert len(server.requests) == 1


def test_upstream_http_404(cache: Path, server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    url = f"{server.base_url}/missing.tar.gz"
    monkeypatch.setenv("MEDSP_UPSTREAM_ARCHIVE_URL", url)
    with pytest.raises(MedSPDataError) as error:
        resolve_upstream_root()
    assert_one_line(error, url, "404", "upstream_dir=", "MEDSP_UPSTREAM_ARCHIVE_URL")
    assert not (cache / "upstream" / UPSTREAM_COMMIT).exists()


def test_upstream_connection_refused(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    url = f"{closed_port_url()}/archive.tar.gz"
    monkeypatch.setenv("MEDSP_UPSTREAM_ARCHIVE_URL", url)
    with pytest.raises(MedSPDataError) as error:
        resolve_upstream_root()
    assert_one_line(error, url, "upstream_dir=", UPSTREAM_COMMIT)
    assert not (cache / "upstream" / UPSTREAM_COMMIT).exists()


def _made_up_rubrics(tmp_path: Path) -> Path:
    """Rubric files named like the published ones (the corrupt-archive test needs no real ones)."""
    folder = tmp_path / "made_up_rubrics"
    folder.mkdir()
    for name in RUBRIC_NAMES:
        (folder / name).write_text('{"PC": ["Takes a focused history"]}', encoding="utf-8")
    return folder


def test_upstream_corrupt_archive_leaves_no_cache(
    cache: Path, server: Server, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    server.routes["/archive.tar.gz"] = build_archive(_made_up_rubrics(tmp_path))[:100]
    monkeypatch.setenv("MEDSP_UPSTREAM_ARCHIVE_URL", f"{server.base_url}/archive.tar.gz")
    with pytest.raises(MedSPDataError) as error:
        resolve_upstream_root()
    assert_one_line(error, "upstream_dir=")
    assert list((cache / "upstream").iterdir()) == []


def test_upstream_commit_must_be_full_sha(cache: Path) -> None:
    with pytest.raises(MedSPDataError) as error:
        resolve_upstream_root(commit="../main")
    assert_one_line(error, "../main")


# --- Hugging Face dataset ------------------------------------------------------------


def set_offline(monkeypatch: pytest.MonkeyPatch, offline: bool) -> None:
    # huggingface_hub reads HF_HUB_OFFLINE once at import; is_offline_mode() returns
    # the module constant, so patch that as well as the environment.
    monkeypatch.setenv("HF_HUB_OFFLINE", "1" if offline else "0")
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", offline)


def make_hub_cache(cache: Path, ref: str = "main", sha: str = SHA) -> Path:
    """Lay out a huggingface_hub cache holding one snapshot of the dataset."""
    repo = cache / "hub" / ("datasets--" + DATASET_REPO_ID.replace("/", "--"))
    (repo / "refs").mkdir(parents=True, exist_ok=True)
    (repo / "refs" / ref).write_text(sha)  # no newline, as huggingface_hub writes it
    snapshot = repo / "snapshots" / sha
    packet = snapshot / "mededportal_10009" / "scenario1" / "examinee"
    packet.mkdir(parents=True)
    (packet / "a.md").write_text("# Opening\n")
    return snapshot


def test_hub_snapshot_from_cache_offline(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    set_offline(monkeypatch, True)
    snapshot = make_hub_cache(cache)
    source = resolve_scenario_root()
    assert source.root.resolve() == snapshot.resolve()
    assert source.origin == "huggingface"
    assert source.revision == SHA


def test_hub_revision_argument_beats_env(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    set_offline(monkeypatch, True)
    other = "f" * 40
    make_hub_cache(cache)
    make_hub_cache(cache, ref="v2", sha=other)
    monkeypatch.setenv("MEDSP_DATA_REVISION", "v2")
    assert resolve_scenario_root().revision == other
    assert resolve_scenario_root(revision="main").revision == SHA


def test_a_revision_from_the_environment_is_named_when_it_fails(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    set_offline(monkeypatch, True)
    make_hub_cache(cache)
    monkeypatch.setenv("MEDSP_DATA_REVISION", "no-such-tag")
    with pytest.raises(MedSPDataError) as error:
        resolve_scenario_root()
    assert_one_line(error, "MEDSP_DATA_REVISION=no-such-tag", DATASET_REPO_ID)


def test_hub_offline_empty_cache(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    set_offline(monkeypatch, True)
    with pytest.raises(MedSPDataError) as error:
        resolve_scenario_root()
    assert_one_line(error, DATASET_REPO_ID, "HF_HUB_OFFLINE", "HF_ENDPOINT", "data_dir=")


def test_hub_endpoint_refused_fails_fast(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    set_offline(monkeypatch, False)
    # ENDPOINT is read from HF_ENDPOINT at import time, so patch the constant.
    monkeypatch.setattr(huggingface_hub.constants, "ENDPOINT", closed_port_url())
    started = time.monotonic()
    with pytest.raises(MedSPDataError) as error:
        resolve_scenario_root()
    assert time.monotonic() - started < 5
    assert_one_line(error, DATASET_REPO_ID, "HF_ENDPOINT", "data_dir=")


def test_hub_http_error(cache: Path, server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    set_offline(monkeypatch, False)
    monkeypatch.setattr(huggingface_hub.constants, "ENDPOINT", server.base_url)
    with pytest.raises(MedSPDataError) as error:
        resolve_scenario_root()
    assert server.requests  # the fake Hub was asked
    assert_one_line(error, "404", "HF_TOKEN", "data_dir=")


# --- both sources at once ------------------------------------------------------------


def test_offline_one_message_names_the_fix_for_both_sources(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    set_offline(monkeypatch, True)
    url = f"{closed_port_url()}/archive.tar.gz"
    monkeypatch.setenv("MEDSP_UPSTREAM_ARCHIVE_URL", url)

    with pytest.raises(MedSPDataError) as error:
        medsp1000()

    assert_one_line(
        error,
        "scenarios: ",
        "rubrics: ",
        DATASET_REPO_ID,
        "HF_HUB_OFFLINE",
        url,
        "-T data_dir=",
        "-T upstream_dir=",
        "HF_ENDPOINT",
        "MEDSP_UPSTREAM_ARCHIVE_URL",
    )
    assert not (cache / "upstream" / UPSTREAM_COMMIT).exists()


@pytest.mark.parametrize("missing", ["scenarios", "rubrics"])
def test_one_source_missing_still_names_the_fix_for_both(
    cache: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, missing: str
) -> None:
    data, upstream = write_marked_scenario(tmp_path)
    gone = tmp_path / "gone"
    folders: dict[str, Any] = {"data_dir": str(gone if missing == "scenarios" else data)}
    folders["upstream_dir"] = str(gone if missing == "rubrics" else upstream)

    with pytest.raises(MedSPDataError) as error:
        medsp1000(**folders)

    assert_one_line(
        error, f"{missing}: ", str(gone), "data_dir=", "upstream_dir=", "HF_ENDPOINT",
        "MEDSP_UPSTREAM_ARCHIVE_URL",
    )  # fmt: skip
    other = "rubrics: " if missing == "scenarios" else "scenarios: "
    assert other not in str(error.value)
