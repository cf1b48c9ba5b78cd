"""Every task parameter is checked at load: one line naming it, the value and what it takes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from inspect_medsp import medsp1000, medsp_demo
from inspect_medsp.errors import MedSPDataError, MedSPParameterError
from inspect_medsp.params import ACCEPTED
from tests.support.offline_tokens import inspect_cli

REPO = Path(__file__).resolve().parents[1]
DEMO_IDS = ["demo_anaphylaxis/scenario1", "demo_bad_news/scenario1", "demo_peds_asthma/scenario1"]

BAD: list[tuple[str, Any, str]] = [
    ("max_turns", "abc", "'abc'"),
    ("max_turns", 0, "0"),
    ("max_turns", -2, "-2"),
    ("max_turns", 2.5, "2.5"),
    ("max_turns", True, "True"),
    ("protocol", "foo", "'foo'"),
    ("strategy", "foo", "'foo'"),
    ("n", 0, "0"),
    ("n", "five", "'five'"),
    ("experts", 0, "0"),
    ("consensus_rounds", -1, "-1"),
    ("consensus_rounds", "x", "'x'"),
    ("sample_temperature", "hot", "'hot'"),
    ("sample_temperature", -0.1, "-0.1"),
    ("fixed_temperature", 3, "3"),
    ("fixed_temperature", float("inf"), "inf"),
    ("cache", "maybe", "'maybe'"),
    ("judge", "gpt-5.5", "'gpt-5.5'"),
    ("scenarios", {"a": 1}, "{'a': 1}"),
]


@pytest.mark.parametrize(("name", "value", "shown"), BAD)
def test_bad_parameter_is_one_line_naming_it(name: str, value: Any, shown: str) -> None:
    with pytest.raises(MedSPParameterError) as caught:
        medsp_demo(**{name: value})

    message = str(caught.value)
    assert "\n" not in message
    assert f"{name}={shown} is not accepted" in message
    assert ACCEPTED[name] in message


def test_every_bad_parameter_is_named_at_once() -> None:
    with pytest.raises(MedSPParameterError) as caught:
        medsp_demo(max_turns="abc", strategy="foo")  # type: ignore[arg-type]  # as -T gives them

    message = str(caught.value)
    assert "\n" not in message
    assert "max_turns='abc'" in message and "strategy='foo'" in message


def test_bad_parameter_is_reported_before_any_data_is_fetched(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("MEDSP_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")

    with pytest.raises(MedSPParameterError, match="max_turns"):
        medsp1000(max_turns=0)

    assert not (tmp_path / "cache").exists()


def test_values_as_the_command_line_gives_them_are_converted() -> None:
    task = medsp_demo(max_turns="3", n="2", sample_temperature="0.5", cache="true")  # type: ignore[arg-type]  # as -T gives them

    assert task.metadata is not None
    assert task.metadata["medsp_max_turns"] == 3
    assert task.metadata["medsp_strategy"]["n"] == 2
    assert task.metadata["medsp_strategy"]["sample_temperature"] == 0.5


def test_folders_may_be_given_as_paths(tmp_path: Path) -> None:
    with pytest.raises(MedSPDataError) as caught:
        medsp1000(data_dir=tmp_path / "absent", upstream_dir=tmp_path / "absent")

    assert f"data_dir '{tmp_path / 'absent'}' does not exist" in str(caught.value)


def test_scenarios_matching_nothing_shows_real_ids_of_the_demo() -> None:
    with pytest.raises(MedSPDataError) as caught:
        medsp_demo(scenarios="mededportal_10009/scenario1")

    message = str(caught.value)
    assert "\n" not in message
    assert "scenarios='mededportal_10009/scenario1'" in message
    shown = [i for i in DEMO_IDS if i in message]
    assert len(shown) == 2
    assert "'demo_anaphylaxis/*'" in message


def test_cli_rejects_max_turns_abc_in_one_line(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    proc = inspect_cli(
        "eval", "inspect_medsp/medsp_demo", "--model", "mockllm/model",
        "-T", "max_turns=abc", "--log-dir", str(logs), timeout=120, columns=400,
    )  # fmt: skip

    assert proc.returncode != 0
    output = proc.stdout + proc.stderr
    assert "Traceback" not in output
    lines = [line for line in output.splitlines() if line.strip()]
    assert lines == [
        "task parameter max_turns='abc' is not accepted: max_turns takes "
        + ACCEPTED["max_turns"]
    ]
    assert not logs.exists()


def test_tools_protocol_with_a_strategy_names_both() -> None:
    with pytest.raises(MedSPParameterError) as caught:
        medsp_demo(protocol="tools", strategy="bon")

    message = str(caught.value)
    assert "\n" not in message
    assert "strategy=bon" in message and "protocol=turns" in message
