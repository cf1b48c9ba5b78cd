"""The registered tasks write their parameters out in their signatures, and they are the
checked model's (``TaskParameters``) fields with the same defaults; the measurements'
switches are the registry's, taken as keywords and described in the docstring."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from inspect_ai import Task, eval
from inspect_ai.util import registry_info

from inspect_medsp import medsp100, medsp1000, medsp_custom, medsp_demo
from inspect_medsp.measures import switches
from inspect_medsp.params import CUSTOM_PARAMETERS, SOURCE_PARAMETERS, TaskParameters
from inspect_medsp.record import MAX_TURNS

REPO = Path(__file__).resolve().parents[1]
SCRIPTED = "medsp/scripted"
EVERY = list(TaskParameters.names())
BENCHMARK = [p for p in EVERY if p not in CUSTOM_PARAMETERS]
"""The parameters of the benchmark's tasks (``cases`` is ``medsp_custom``'s alone)."""
DEFAULTS = {name: field.default for name, field in TaskParameters.model_fields.items()}


@pytest.mark.parametrize(
    ("task", "name", "params"),
    [
        (medsp1000, "medsp1000", BENCHMARK),
        (medsp100, "medsp100", BENCHMARK),
        (medsp_demo, "medsp_demo", [p for p in BENCHMARK if p not in SOURCE_PARAMETERS]),
        (medsp_custom, "medsp_custom", [p for p in EVERY if p not in SOURCE_PARAMETERS]),
    ],
)
def test_each_task_takes_the_checked_parameters_with_their_defaults(
    task: Callable[..., Task], name: str, params: list[str]
) -> None:
    signature = inspect.signature(task)
    info = registry_info(task)
    # and **kwargs last: Inspect hands it every -T of the run, which it refuses unless another
    # task of the run takes it (test_entry_points.py)
    *named, others = signature.parameters.values()
    assert others.kind is inspect.Parameter.VAR_KEYWORD

    assert info.name.split("/")[-1] == name
    assert info.metadata["params"] == [*params, others.name]
    assert [p.name for p in named] == params
    assert {p.name: p.default for p in named} == {p: DEFAULTS[p] for p in params}
    assert DEFAULTS["max_turns"] == MAX_TURNS == 12
    doc = inspect.getdoc(task) or ""
    for param in [*params, *(s.name for s in switches())]:
        assert f"    {param}: " in doc, f"{name}'s docstring does not describe {param}"
    assert {"audit", "workup"} <= {s.name for s in switches()}  # and any a slice adds
    assert not {s.name for s in switches()} & set(EVERY)


def test_a_parameter_the_task_lacks_is_refused_as_any_function_would() -> None:
    with pytest.raises(TypeError, match="turns"):
        medsp_demo(turns=3)
    with pytest.raises(TypeError, match="data_dir"):
        medsp_demo(data_dir="somewhere")


def test_values_given_with_minus_t_reach_the_task_and_the_log_records_every_parameter(
    tmp_path: Path,
) -> None:
    given: dict[str, object] = {"judge": SCRIPTED, "max_turns": "2", "strategy": "bon", "n": 2}
    [log] = eval(
        "inspect_medsp/medsp_demo",
        task_args=given,
        model=SCRIPTED,
        limit=1,
        log_dir=str(tmp_path),
        display="none",
    )

    assert log.status == "success", log.error
    expected = {p: DEFAULTS[p] for p in BENCHMARK if p not in SOURCE_PARAMETERS} | given
    assert log.eval.task_args == expected
    assert log.eval.task_args_passed == given
    assert log.eval.metadata is not None
    assert log.eval.metadata["medsp_max_turns"] == 2
    assert log.eval.metadata["medsp_strategy"]["n"] == 2
    assert log.samples is not None
    turns = log.samples[0].store.get("Trajectory:turns")
    assert turns is not None and 1 <= len(turns) <= 2


def test_the_readme_lists_every_task_parameter() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("### Parameters (`-T name=value`)", 1)[1].split("\n\n", 2)[1]
    listed = set(re.findall(r"`(\w+)`", " ".join(r.split("|")[1] for r in section.splitlines())))

    every = {*EVERY, *(s.name for s in switches())}
    assert every <= listed, f"README parameter table misses {every - listed}"


def test_a_measurements_switch_is_checked_by_its_declaration() -> None:
    """``audit`` and ``workup`` are their capabilities' switches, not fields: a bad value is
    one line naming it, the value and what it takes; a near miss names the switch."""
    from inspect_medsp.errors import MedSPParameterError

    [audit] = [s for s in switches() if s.name == "audit"]
    with pytest.raises(MedSPParameterError) as caught:
        medsp_demo(judge=SCRIPTED, audit="maybe", max_turns=0)
    message = str(caught.value)
    assert "\n" not in message and "max_turns=0 is not accepted" in message
    assert f"task parameter audit='maybe' is not accepted: audit takes {audit.accepts}" in message
    with pytest.raises(TypeError, match="audit"):
        medsp_demo(judge=SCRIPTED, audt=True)
    assert "audit" not in TaskParameters.model_fields
    checked = TaskParameters.check(switches(), audit="true", workup=False)
    # every other registered switch keeps its default (adding a measurement adds one)
    defaults = {s.name: s.default for s in switches()}
    assert checked.switches == defaults | {"audit": True, "workup": False}
    assert TaskParameters.check(switches()).switches == defaults
    assert {"audit": False, "workup": True}.items() <= defaults.items()
