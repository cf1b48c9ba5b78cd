"""One run context per task load: what Inspect's loader knows is read once and every
load-time check receives it."""

from __future__ import annotations

import pytest

from inspect_medsp import medsp_demo
from inspect_medsp.preflight import context, models


def test_the_judge_is_checked_once_per_load(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[str] = []
    check = models.model_unavailable

    def counted(name: str) -> str | None:
        asked.append(name)
        return check(name)

    monkeypatch.setattr(context, "model_unavailable", counted)
    medsp_demo(judge="mockllm/model", audit=True)
    assert asked == ["mockllm/model"]


def test_outside_inspects_loader_the_context_knows_nothing() -> None:
    found = context.run_context()
    assert not found.loading and found.model is None and found.task_args == {}
    assert context.rescore_context() == context.RescoreContext()
