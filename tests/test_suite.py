"""The top-level tasks/ file composes MedSP into an eval-set over several clinician models."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from inspect_ai import eval_set
from inspect_ai.model import ChatMessage, ChatMessageTool, ModelOutput, get_model
from inspect_ai.tool import ToolInfo

from tests.conftest import REPO
from tests.support.scripts import Script, clinician, environment, patient
from tests.support.tree import write_marked_scenario


def either_protocol(speech: str) -> Callable[..., ModelOutput]:
    """A clinician that ends the stage at once: as JSON in ``turns``, by tool in ``tools``."""
    as_json = Script([clinician(speech, eos=True)])

    def reply(
        messages: list[ChatMessage], tools: list[ToolInfo], tool_choice: Any, config: Any
    ) -> ModelOutput:
        if not tools:
            return as_json(messages, tools, tool_choice, config)
        done = any(isinstance(m, ChatMessageTool) for m in messages)
        name, arguments = ("submit", {"answer": "done"}) if done else ("complete_stage", {})
        return ModelOutput.for_tool_call("mockllm", tool_name=name, tool_arguments=arguments)

    return reply


def test_suite_file_runs_as_an_eval_set_over_two_models(tmp_path: Path) -> None:
    data, upstream = write_marked_scenario(tmp_path)
    clinicians = [
        get_model("mockllm/clin-a", custom_outputs=either_protocol("Hi")),
        get_model("mockllm/clin-b", custom_outputs=either_protocol("Hello")),
    ]
    roles = {
        "patient": Script([patient("Chest pain.")]).model(),
        "environment": Script(
            [environment(0, "initial_assessment", end=True, reason="done")]
        ).model(),
        "grader": Script([{"PC": {"Gives aspirin 300 mg": False}}]).model(),
    }
    success, logs = eval_set(
        tasks=[
            str(REPO / "tasks" / "medsp_suite.py@medsp100_turns"),
            str(REPO / "tasks" / "medsp_suite.py@medsp100_tools"),
        ],
        model=clinicians,
        model_roles=roles,
        task_args={"data_dir": str(data), "upstream_dir": str(upstream), "judge": "mockllm/model"},
        log_dir=str(tmp_path / "suite"),
        display="none",
        retry_attempts=0,
    )
    assert success
    assert sorted((log.eval.task, log.eval.model) for log in logs) == [
        ("medsp100_tools", "mockllm/clin-a"),
        ("medsp100_tools", "mockllm/clin-b"),
        ("medsp100_turns", "mockllm/clin-a"),
        ("medsp100_turns", "mockllm/clin-b"),
    ]
    for log in logs:
        assert log.results is not None
        assert "macro" in log.results.scores[0].metrics
        assert log.results.scores[0].unscored_samples == 0  # every encounter really ran
