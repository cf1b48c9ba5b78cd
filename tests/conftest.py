"""Shared fixtures: the published upstream copy, offline token estimates, log folders."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import offline_tokens

REPO = Path(__file__).resolve().parents[1]
UPSTREAM = REPO.parent / "shared" / "upstream" / "medsp1000"
DEMO = REPO / "src" / "inspect_medsp" / "data" / "demo"


@pytest.fixture(autouse=True, scope="session")
def _offline_tokens() -> None:
    offline_tokens.install()


@pytest.fixture
def upstream() -> Path:
    """The reference repository's rubrics and subset, exactly as published (tests only)."""
    if not (UPSTREAM / "rubrics").is_dir():
        pytest.fail(f"{UPSTREAM} is missing: the tests need ../shared/upstream/medsp1000")
    return UPSTREAM


@pytest.fixture
def log_dir(tmp_path: Path) -> str:
    return str(tmp_path / "logs")
