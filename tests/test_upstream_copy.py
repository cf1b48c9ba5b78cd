"""The published rubric copy is optional for the suite: skip without it, fail under CI's flag."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import REQUIRE_ENV, UPSTREAM_ENV, published_upstream


def test_a_named_copy_is_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "rubrics").mkdir()
    monkeypatch.setenv(UPSTREAM_ENV, str(tmp_path))
    monkeypatch.delenv(REQUIRE_ENV, raising=False)

    assert published_upstream() == tmp_path


def test_a_missing_copy_skips_with_one_line_naming_what_is_needed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = tmp_path / "nowhere"
    monkeypatch.setenv(UPSTREAM_ENV, str(missing))
    monkeypatch.delenv(REQUIRE_ENV, raising=False)

    with pytest.raises(pytest.skip.Exception) as skipped:
        published_upstream()

    reason = str(skipped.value)
    assert "\n" not in reason
    assert "rubrics" in reason and str(missing) in reason and UPSTREAM_ENV in reason


@pytest.mark.parametrize("flag", ["1", "true"])
def test_a_missing_copy_fails_when_ci_requires_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, flag: str
) -> None:
    monkeypatch.setenv(UPSTREAM_ENV, str(tmp_path / "nowhere"))
    monkeypatch.setenv(REQUIRE_ENV, flag)

    with pytest.raises(pytest.fail.Exception) as failed:
        published_upstream()

    assert REQUIRE_ENV in str(failed.value)


def test_ci_script_requires_the_copy() -> None:
    script = (Path(__file__).resolve().parents[1] / ".ci" / "run").read_text(encoding="utf-8")
    before_tests = script.split("# --- the README's test command ---")[0]
    assert f"export {REQUIRE_ENV}=1" in before_tests
