"""The load summary ("MedSP-demo: N scenarios, M rubric items") shows at the default log level."""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

import inspect_ai._display.core.active as active_display
import inspect_ai.util._display as display_module
import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai._util.notgiven import NOT_GIVEN, NotGiven
from inspect_ai.log import read_eval_log
from inspect_ai.model import Model, ModelOutput

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


# --- -T cache=true: in Inspect's header where it decides no call, and said at load ---------

CACHE_LINE = re.compile(
    r"^MedSP: -T cache=true: the (.+) calls go through Inspect's response cache"
)


def _cached_roles(line: str) -> list[str]:
    match = CACHE_LINE.match(line)
    assert match, line
    return re.findall(r"(\w+)'s", match.group(1))


def test_cli_run_with_cache_shows_it_in_the_header_and_says_which_roles_it_caches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Inspect's header prints its own generation settings' cache under the name ``cache``:
    with ``-T cache=true`` (protocol ``turns``, strategy ``off``) the task's settings carry
    it, so the header reads ``cache: 1W``; the run starts by naming the roles it caches."""
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    proc = inspect_cli(
        "eval", "inspect_medsp/medsp_demo", "--model", "medsp/scripted",
        "-T", "judge=medsp/scripted", "-T", "cache=true", "-T", "audit=true", "--limit", "1",
        "--log-dir", str(tmp_path / "logs"), "--display", "plain", columns=400,
    )  # fmt: skip

    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = [line for line in proc.stdout.splitlines() if line.strip()]
    assert SUMMARY.match(lines[0]), proc.stdout[:800]
    assert _cached_roles(lines[1]) == ["clinician", "patient", "environment", "grader", "auditor"]
    assert "the run header's 'cache: 1W', a week, is this switch" in lines[1]
    header = next(i for i, line in enumerate(lines) if line.startswith("medsp_demo ("))
    assert header > 1
    assert "cache: 1W" in " ".join(lines[header : header + 4])
    log = read_eval_log(next((tmp_path / "logs").glob("*.eval")), header_only=True)
    assert log.plan.config.cache is True
    assert log.eval.task_args["cache"] is True


def test_the_header_cache_decides_no_call(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The task's settings carry ``cache`` only where every call of the run names its own
    cache, so that setting (Inspect's default for a call naming none) changes nothing of what
    is cached: every model call of a scored run with the audit names its cache, and the
    clinician's is the switch."""
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    named: list[tuple[str, object]] = []
    original = Model.generate

    async def spy(self: Model, *args: object, **kwargs: object) -> ModelOutput:
        named.append((self.role or "", kwargs.get("cache", NOT_GIVEN)))
        return await original(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Model, "generate", spy)
    task = medsp_demo(cache=True, audit=True, judge="medsp/scripted")
    assert task.config.cache is True
    (log,) = inspect_eval(task, model="medsp/scripted", limit=1, display="none",
                          log_dir=str(tmp_path / "logs"))  # fmt: skip

    assert log.status == "success"
    assert {role for role, _ in named} >= {"clinician", "patient", "environment", "grader"}
    assert not [role for role, cache in named if isinstance(cache, NotGiven)]
    assert {cache for role, cache in named if role == "clinician"} == {True}


@pytest.mark.parametrize(
    ("setting", "why"),
    [({"strategy": "bon"}, "strategy=bon"), ({"protocol": "tools"}, "protocol=tools")],
)
def test_cache_line_says_the_clinician_is_not_cached_where_it_is_not(
    plain_display: None,
    capsys: pytest.CaptureFixture[str],
    setting: dict[str, Any],
    why: str,
) -> None:
    medsp_demo(cache=True, **setting)

    lines = _printed(capsys)
    assert len(lines) == 2 and SUMMARY.match(lines[0]), lines
    assert _cached_roles(lines[1]) == ["patient", "environment", "grader"]
    assert f"the clinician's do not under {why};" in lines[1]


def test_no_cache_line_without_the_switch(
    plain_display: None, capsys: pytest.CaptureFixture[str]
) -> None:
    medsp_demo(cache=False, audit=True)

    assert not any(CACHE_LINE.match(line) for line in _printed(capsys))
