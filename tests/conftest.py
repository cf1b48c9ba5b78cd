"""Shared fixtures: the published upstream copy, offline token estimates, log folders, and
the guard that fails a test leaving a file or folder behind in the checkout."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support import offline_tokens

REPO = Path(__file__).resolve().parents[1]
UPSTREAM = REPO.parent / "shared" / "upstream" / "medsp1000"
DEMO = REPO / "src" / "inspect_medsp" / "data" / "demo"

UPSTREAM_ENV = "MEDSP_TEST_UPSTREAM"
"""Names a folder holding the published ``rubrics/`` and ``subset.json`` (tests only)."""
REQUIRE_ENV = "MEDSP_REQUIRE_UPSTREAM"
"""Set to 1 (as ``.ci/run`` does) to make a missing published copy fail instead of skip."""


def published_upstream() -> Path:
    """The reference repository's rubrics and subset, exactly as published (tests only).

    Found at ``$MEDSP_TEST_UPSTREAM`` if set, else at ``../shared/upstream/medsp1000``
    beside the repository. When it is missing the calling test is skipped with one line
    naming what it needs, or fails if ``$MEDSP_REQUIRE_UPSTREAM`` is set.
    """
    configured = os.environ.get(UPSTREAM_ENV)
    root = Path(configured).expanduser() if configured else UPSTREAM
    if (root / "rubrics").is_dir():
        return root
    where = f"{UPSTREAM_ENV}={configured}" if configured else str(UPSTREAM)
    message = (
        f"needs the published MedSP1000 rubrics (rubrics/ and subset.json); none at {where}: "
        f"set {UPSTREAM_ENV} to a copy"
    )
    if os.environ.get(REQUIRE_ENV, "") not in ("", "0"):
        pytest.fail(f"{message} ({REQUIRE_ENV} is set, so this is an error)", pytrace=False)
    pytest.skip(message)


@pytest.fixture(autouse=True, scope="session")
def _offline_tokens() -> None:
    offline_tokens.install()


@pytest.fixture
def upstream() -> Path:
    """The published rubric copy (see :func:`published_upstream`)."""
    return published_upstream()


@pytest.fixture
def log_dir(tmp_path: Path) -> str:
    return str(tmp_path / "logs")


CACHES = {
    *(".git", "__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache"),
    *(".venv", "venv", ".venv-ci", ".venv-ci-oldest"),
}
"""Folders the guard does not read: git's own, the caches Python and the tools keep, and the
virtual environments ``.ci/run`` makes (``.gitignore`` ignores each)."""


def checkout_entries() -> set[str]:
    """Every file and folder of the checkout outside :data:`CACHES`, as a relative path
    (a folder with a trailing ``/``). A walk of a few hundred entries: milliseconds."""
    found: set[str] = set()
    for folder, dirs, files in os.walk(REPO):
        dirs[:] = [d for d in dirs if d not in CACHES and not d.endswith(".egg-info")]
        base = Path(folder).relative_to(REPO)
        found.update((base / name).as_posix() for name in files)
        found.update(f"{(base / name).as_posix()}/" for name in dirs)
    return found


def left_behind(before: set[str], after: set[str]) -> list[str]:
    """The new entries, a new folder standing for everything inside it."""
    new = after - before
    folders = [f for f in new if f.endswith("/")]
    return sorted(e for e in new if not any(e != f and e.startswith(f) for f in folders))


def left_behind_message(left: list[str], what: str) -> str:
    return (
        f"{what} left {', '.join(left[:5])}{' ...' if len(left) > 5 else ''} in the checkout "
        f"({REPO}): tests write under tmp_path (or pass a log_dir there), never into the "
        "working directory"
    )


@pytest.fixture(autouse=True)
def _nothing_left_in_the_checkout(request: pytest.FixtureRequest) -> Iterator[None]:
    before = checkout_entries()
    yield
    left = left_behind(before, checkout_entries())
    if left:
        pytest.fail(left_behind_message(left, request.node.nodeid), pytrace=False)


_SESSION_START: set[str] = set()


def pytest_sessionstart(session: pytest.Session) -> None:
    _SESSION_START.update(checkout_entries())


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Catches what a module- or session-scoped fixture wrote, before any test's own guard."""
    left = left_behind(_SESSION_START, checkout_entries())
    if left:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line(left_behind_message(left, "the test session"), red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
