"""The load summary ("MedSP-demo: N scenarios, M rubric items") shows at the default log level."""

from __future__ import annotations

import logging
import re
from pathlib import Path

import inspect_ai._display.core.active as active_display
import inspect_ai.util._display as display_module
import pytest

from inspect_medsp import medsp_demo
from tests.support.offline_tokens import inspect_cli

SUMMARY = re.compile(r"^MedSP-demo: 3 scenarios, \d+ rubric items$")


@pytest.fixture
def plain_display(monkeypatch: pytest.MonkeyPatch) -> None:
    """Inspect's plain display, as ``--display plain`` sets it (restored afterwards)."""
    monkeypatch.setattr(display_module, "_display_type", "plain")
    monkeypatch.setattr(active_display, "_active_display", None)


def _printed(capsys: pytest.CaptureFixture[str]) -> list[str]:
    return [line for line in capsys.readouterr().out.splitlines() if line.strip()]


def test_summary_is_printed_at_the_default_log_level(
    plain_display: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert logging.getLogger().getEffectiveLevel() > logging.INFO  # Inspect's default: warning

    medsp_demo()

    lines = _printed(capsys)
    assert len(lines) == 1 and SUMMARY.match(lines[0]), lines


def test_summary_is_not_printed_twice_when_info_records_are_shown(
    plain_display: None, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(logging.getLogger(), "level", logging.INFO)  # --log-level info

    medsp_demo()

    assert _printed(capsys) == []


def test_summary_respects_display_none(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(display_module, "_display_type", "none")
    monkeypatch.setattr(active_display, "_active_display", None)

    medsp_demo()

    assert _printed(capsys) == []


def test_a_task_built_before_eval_leaves_the_display_to_eval(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(display_module, "_display_type", None)
    monkeypatch.setattr(active_display, "_active_display", None)

    medsp_demo()

    assert _printed(capsys) == []
    assert active_display._active_display is None
    assert not display_module.display_type_initialized()


def test_cli_run_starts_with_the_summary(tmp_path: Path) -> None:
    proc = inspect_cli(
        "eval", "inspect_medsp/medsp_demo", "--model", "mockllm/model",
        "-T", "judge=mockllm/model", "-T", "max_turns=1", "--limit", "1",
        "--log-dir", str(tmp_path / "logs"), "--display", "plain", columns=200,
    )  # fmt: skip

    assert proc.returncode == 0, proc.stderr[-2000:]
    first = next(line for line in proc.stdout.splitlines() if line.strip())
    assert SUMMARY.match(first), proc.stdout[:500]
