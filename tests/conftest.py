"""Shared fixtures: the published upstream copy, offline token estimates, log folders."""

from __future__ import annotations

import os
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
