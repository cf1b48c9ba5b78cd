"""Where each model connects, read from the model as Inspect builds it, not from its name: a
custom set with likely identifiers is refused at load, at re-score, in the contamination probe
and in ``medsp-cases draft`` whenever a model would send it off this machine, before any
connection (or name lookup) is attempted; and the log records where each role connected.

Every remote endpoint here is an address reserved for documentation (192.0.2.0/24) or a name
under ``.example``; the processes run under ``tests.support.no_connect``, which refuses and
reports any connection or lookup that is not loopback. Nothing connects but to 127.0.0.1.
"""

from __future__ import annotations

import hashlib
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog
from inspect_ai.model import (
    ChatMessage,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    get_model,
    modelapi,
)
from inspect_ai.tool import ToolChoice, ToolInfo

from inspect_medsp.cases.write import write_demo
from inspect_medsp.errors import MedSPDataError
from inspect_medsp.preflight import loopback, place
from inspect_medsp.preflight.endpoints import place_url
from inspect_medsp.record import read_log
from tests.support.no_connect import MARK
from tests.test_provider_http import (  # noqa: F401 (the fixture, found by its name)
    Provider,
    completion,
    provider,
    refusal,
)

REPO = Path(__file__).resolve().parents[1]
LEAK = "\n- **Next of kin:** daughter, Priya Raman, mobile 07700 900457.\n"
SCRIPTED = "medsp/scripted"


def leaky_set(root: Path) -> Path:
    """The demo's cases in the case format, one with a next of kin's name and number."""
    cases = root / "ours"
    write_demo(cases)
    patient = cases / "demo_anaphylaxis" / "patient" / "01_patient.md"
    patient.write_text(patient.read_text(encoding="utf-8") + LEAK, encoding="utf-8")
    return cases


def guarded(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``inspect <args>`` (or ``medsp-cases ...``) in a process that may not connect or look
    up anything but loopback, with no provider key or base URL but ``env``'s."""
    base = {
        k: v
        for k, v in os.environ.items()
        if not k.endswith(("_API_KEY", "_API_TOKEN", "_BASE_URL")) and "PROXY" not in k.upper()
    }
    base.update(
        COLUMNS="400",
        INSPECT_LOG_DIR=str(tmp_path / "logs"),
        MEDSP_CACHE_DIR=str(tmp_path / "cache"),
        **env,
    )
    return subprocess.run(
        [sys.executable, "-m", "tests.support.no_connect", *args],
        cwd=REPO,
        env=base,
        capture_output=True,
        text=True,
        timeout=300,
    )


def one_line(result: subprocess.CompletedProcess[str], *needles: str) -> str:
    """The refusal: non-zero exit, no traceback, no connection or lookup attempted, one
    message (Inspect may frame it in a few lines), every needle in it."""
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    assert "Traceback" not in output, output
    assert MARK not in output, output
    lines = [line for line in output.splitlines() if line.strip()]
    assert 1 <= len(lines) <= 3, output
    message = " ".join(line.strip() for line in lines)
    for needle in needles:
        assert needle in message, message
    return message


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Record and refuse every non-loopback connect and name lookup in this process."""
    attempts: list[str] = []
    connect = socket.socket.connect
    getaddrinfo = socket.getaddrinfo

    def guarded_connect(self: socket.socket, address: Any) -> None:
        if self.family in (socket.AF_INET, socket.AF_INET6) and not loopback(str(address[0])):
            attempts.append(f"connect {address!r}")
            raise OSError("no network in this test")
        connect(self, address)

    def guarded_getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host is not None and not loopback(str(host)):
            attempts.append(f"lookup {host!r}")
            raise OSError("no network in this test")
        return getaddrinfo(host, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", guarded_connect)
    monkeypatch.setattr(socket, "getaddrinfo", guarded_getaddrinfo)
    yield attempts


# --------------------------------------------------------------------------- placing a host


@pytest.mark.parametrize(
    ("host", "local"),
    [
        ("localhost", True),
        ("127.0.0.1", True),
        ("127.8.9.10", True),
        ("::1", True),
        ("[::1]", True),
        ("::ffff:127.0.0.1", True),
        ("localhost.example.com", False),
        ("127.example.com", False),
        ("localhost.", False),
        ("0.0.0.0", False),
        ("192.0.2.1", False),
        ("llm.example", False),
        ("", False),
    ],
)
def test_a_host_is_local_only_at_a_loopback_address_or_exactly_localhost(
    host: str, local: bool
) -> None:
    assert loopback(host) is local


def test_a_loopback_url_behind_a_remote_proxy_is_remote(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy", "HTTPS_PROXY", "https_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTP_PROXY", "http://192.0.2.20:3128")
    through = place_url("grader", "openai/x", "http://127.0.0.1:8000/v1", "test")
    assert not through.local and through.host == "192.0.2.20" and "proxy" in through.why
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    assert place_url("grader", "openai/x", "http://127.0.0.1:8000/v1", "test").local


def test_a_model_is_placed_by_its_endpoint_not_its_name(
    monkeypatch: pytest.MonkeyPatch, no_network: list[str]
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "not-a-key")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    made = get_model("openai/placed", base_url="http://192.0.2.30/v1", memoize=False)
    away = place("clinician", made)
    assert (away.local, away.host) == (False, "192.0.2.30")
    here = place("clinician", get_model("openai/placed-here", memoize=False))
    assert (here.local, here.host) == (True, "127.0.0.1")
    # vLLM with no base_url starts its own server here; with one, it is that server's host
    assert place("clinician", get_model("vllm/own-server", memoize=False)).local
    monkeypatch.setenv("VLLM_BASE_URL", "http://192.0.2.31/v1")
    served = place("clinician", get_model("vllm/their-server", memoize=False))
    assert (served.local, served.host) == (False, "192.0.2.31")
    # in-process providers have no endpoint
    assert place("patient", SCRIPTED).local and place("grader", "mockllm/model").local
    assert no_network == []


# --------------------------------------------------------------------------- unreadable


class Opaque(ModelAPI):
    """A provider that keeps its endpoint to itself: no client, no base_url."""

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig | None = None,
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, None, api_key, [], config or GenerateConfig())

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        raise AssertionError("the opaque provider was called")


@modelapi(name="opaquetest")
def opaquetest() -> type[ModelAPI]:
    return Opaque


def test_a_provider_whose_endpoint_cannot_be_read_is_remote(
    tmp_path: Path, no_network: list[str]
) -> None:
    placed = place("grader", "opaquetest/x")
    assert not placed.local and "no endpoint this check can read" in placed.why
    cases = leaky_set(tmp_path)
    with pytest.raises(MedSPDataError) as refused:
        eval(
            "inspect_medsp/medsp_custom",
            task_args={"cases": str(cases), "judge": SCRIPTED},
            model=SCRIPTED,
            model_roles={"grader": "opaquetest/x"},
            display="none",
            log_dir=str(tmp_path / "logs"),
        )
    line = str(refused.value)
    assert "\n" not in line and "grader opaquetest/x" in line and "counted remote" in line
    assert not (tmp_path / "logs").exists() or not any((tmp_path / "logs").iterdir())
    assert no_network == []


# --------------------------------------------------------------------------- five routes


KEY = {"OPENAI_API_KEY": "not-a-key"}
LOOPBACK_OPENAI = {**KEY, "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}


@pytest.mark.parametrize(
    ("args", "env", "needles"),
    [
        (
            ("--model", "openai/clin", "--model-base-url", "http://192.0.2.10/v1"),
            LOOPBACK_OPENAI,
            ("clinician openai/clin at 192.0.2.10",),
        ),
        (
            (
                "--model", SCRIPTED, "--model-role",
                "grader={model: openai/grader, model_args: {base_url: http://192.0.2.11/v1}}",
            ),
            LOOPBACK_OPENAI,
            ("grader openai/grader at 192.0.2.11",),
        ),
        (
            ("--model", "vllm/served"),
            {"VLLM_BASE_URL": "http://192.0.2.12/v1"},
            ("clinician vllm/served at 192.0.2.12",),
        ),
        (
            ("--model", "sglang/served"),
            {"SGLANG_BASE_URL": "http://llm.example/v1"},
            ("clinician sglang/served at llm.example",),
        ),
        (
            ("--model", "openai/clin"),
            {**KEY, "OPENAI_BASE_URL": "http://localhost.example.com/v1"},
            ("clinician openai/clin at localhost.example.com",),
        ),
        (
            ("--model", SCRIPTED, "--model-role", "grader=openai-api/ward/g"),
            {"WARD_BASE_URL": "http://127.example.com/v1", "WARD_API_KEY": "not-a-key"},
            ("grader openai-api/ward/g at 127.example.com",),
        ),
    ],
    ids=["model-base-url", "role-model-args", "vllm", "sglang", "localhost-prefix", "127-prefix"],
)  # fmt: skip
def test_each_route_off_the_machine_is_refused_at_load(
    tmp_path: Path, args: tuple[str, ...], env: dict[str, str], needles: tuple[str, ...]
) -> None:
    cases = leaky_set(tmp_path)
    result = guarded(
        tmp_path,
        "eval", "inspect_medsp/medsp_custom", "-T", f"cases={cases}", "-T", f"judge={SCRIPTED}",
        *args, "--log-dir", str(tmp_path / "logs"), "--display", "none",
        **env,
    )  # fmt: skip
    one_line(
        result,
        *needles,
        "2 likely identifiers",
        "not a loopback address",
        "127.0.0.1",
        "-T identifiers=allow",
    )
    assert not list((tmp_path / "logs").glob("*.eval"))


# --------------------------------------------------------------------------- the log


def test_a_loopback_grader_runs_and_the_log_records_each_role_s_host(
    tmp_path: Path, provider: Provider, no_network: list[str]  # noqa: F811
) -> None:
    grader = f"openai-api/{provider.service}/grader"
    provider.answers = {"grader": [completion("grader", '{"reasoning": ["read"], "PC": {}}')]}
    cases = leaky_set(tmp_path)
    [log] = eval(
        "inspect_medsp/medsp_custom",
        task_args={"cases": str(cases), "judge": SCRIPTED, "identifiers": "allow"},
        model=SCRIPTED,
        model_roles={"grader": grader},
        limit=1,
        display="none",
        log_dir=str(tmp_path / "logs"),
        max_retries=0,
    )
    assert log.status == "success", log.error
    assert provider.requests["grader"], "the grader on 127.0.0.1 was asked"
    load = read_log(str(log.location)).task_metadata.load
    assert load is not None and len(load.identifiers) == 2
    hosts = {e.role: (e.host, e.local) for e in load.endpoints}
    assert hosts["grader"] == ("127.0.0.1", True)
    assert hosts["clinician"] == ("(this process)", True)
    assert hosts["patient"] == hosts["environment"] == ("(this process)", True)
    grader_why = next(e.why for e in load.endpoints if e.role == "grader")
    assert "loopback address" in grader_why
    assert no_network == []


@pytest.fixture(scope="module")
def leaky_log(tmp_path_factory: pytest.TempPathFactory) -> EvalLog:
    """A run of the set with findings, every role in this process: not refused, and the
    findings recorded."""
    root = tmp_path_factory.mktemp("leaky")
    [log] = eval(
        "inspect_medsp/medsp_custom",
        task_args={"cases": str(leaky_set(root)), "judge": SCRIPTED},
        model=SCRIPTED,
        limit=1,
        display="none",
        log_dir=str(root / "logs"),
    )
    assert log.status == "success", log.error
    return log


def test_a_set_whose_every_model_is_here_runs_and_says_where_each_was(leaky_log: EvalLog) -> None:
    load = read_log(str(leaky_log.location)).task_metadata.load
    assert load is not None and len(load.identifiers) == 2
    [warning] = [w for w in load.warnings if "likely identifiers" in w]
    assert "every role's model connects to this machine: clinician in this process" in warning
    assert {e.role for e in load.endpoints} >= {"clinician", "patient", "environment", "grader"}
    assert all(e.local for e in load.endpoints)


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (
            ("--scorer", "inspect_medsp/medsp_rubric", "--model-role", "grader=openai/regrader"),
            ("scorer medsp_rubric", "grader openai/regrader at 192.0.2.13"),
        ),
        (
            ("--scorer", "inspect_medsp/medsp_workup", "-S", "classify=openai/sorter"),
            ("scorer medsp_workup", "-S classify openai/sorter at 192.0.2.13"),
        ),
    ],
    ids=["grader", "workup-classify"],
)
def test_a_rescore_off_the_machine_is_refused_and_the_log_untouched(
    leaky_log: EvalLog, tmp_path: Path, args: tuple[str, ...], needles: tuple[str, ...]
) -> None:
    path = Path(str(leaky_log.location))
    before = hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns
    result = guarded(
        tmp_path,
        "score", str(path), *args, "--action", "append", "--overwrite", "--display", "none",
        **{**KEY, "OPENAI_BASE_URL": "http://192.0.2.13/v1"},
    )  # fmt: skip
    one_line(result, *needles, "2 likely identifiers", "the log is unchanged")
    assert (hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns) == before


# --------------------------------------------------------------------------- the probe


@pytest.mark.parametrize("parameter", ["cases", "control_cases"])
def test_the_contamination_probe_refuses_a_set_with_findings_for_a_remote_model(
    tmp_path: Path, parameter: str
) -> None:
    cases = leaky_set(tmp_path)
    result = guarded(
        tmp_path,
        "eval", "inspect_medsp/medsp_contamination", "-T", "benchmark=medsp_demo",
        "-T", f"{parameter}={cases}", "--model", "openai/probed",
        "--log-dir", str(tmp_path / "logs"), "--display", "none",
        **{**KEY, "OPENAI_BASE_URL": "http://192.0.2.14/v1"},
    )  # fmt: skip
    one_line(
        result,
        f"task parameter {parameter}='{cases}'",
        "model under test openai/probed at 192.0.2.14",
        "-T identifiers=allow",
    )
    assert not list((tmp_path / "logs").glob("*.eval"))


# --------------------------------------------------------------------------- draft


VIGNETTE = (
    "A 34-year-old woman with wheeze and hives after a wasp sting.\n"
    "Her daughter, Priya Raman, mobile 07700 900457, brought her in.\n"
)


def test_draft_refuses_a_vignette_with_identifiers_for_a_remote_model(tmp_path: Path) -> None:
    vignette = tmp_path / "vignette.txt"
    vignette.write_text(VIGNETTE, encoding="utf-8")
    out = tmp_path / "drafted" / "wasp"
    result = guarded(
        tmp_path,
        "medsp-cases", "draft", str(vignette), "--model", "openai/drafter", "--out", str(out),
        **{**KEY, "OPENAI_BASE_URL": "http://192.0.2.15/v1"},
    )  # fmt: skip
    message = one_line(
        result, "likely identifier", "drafter openai/drafter at 192.0.2.15", "--identifiers allow"
    )
    assert message.startswith("medsp-cases: error:") and result.returncode == 1
    assert not out.exists()


def test_draft_says_a_provider_error_in_one_line(tmp_path: Path, provider: Provider) -> None:  # noqa: F811
    provider.answers = {"drafter": [refusal("invalid_request", "The model drafter is unknown.")]}
    vignette = tmp_path / "vignette.txt"
    vignette.write_text(VIGNETTE, encoding="utf-8")  # identifiers, but the model is here
    out = tmp_path / "drafted" / "wasp"
    port = provider.service.removeprefix("local")
    result = guarded(
        tmp_path,
        "medsp-cases", "draft", str(vignette), "--model", f"openai-api/{provider.service}/drafter",
        "--out", str(out),
        **{
            f"LOCAL{port}_BASE_URL": f"http://127.0.0.1:{port}/v1",
            f"LOCAL{port}_API_KEY": "test-key",
        },
    )  # fmt: skip
    message = one_line(result, "the provider failed", "The model drafter is unknown")
    assert result.returncode == 1 and message.startswith("medsp-cases: error:")
    assert provider.requests["drafter"], "the vignette reached the server on 127.0.0.1"
    assert not out.exists()


def test_a_rescore_of_an_allowed_run_is_not_refused(
    leaky_log: EvalLog, monkeypatch: pytest.MonkeyPatch, no_network: list[str]
) -> None:
    from inspect_medsp.measure.rescore import identifier_refusal

    monkeypatch.setenv("OPENAI_API_KEY", "not-a-key")
    remote = get_model("openai/regrader", base_url="http://192.0.2.16/v1", memoize=False)
    line = identifier_refusal("medsp_rubric", leaky_log, [("grader", remote)])
    assert line is not None and "grader openai/regrader at 192.0.2.16" in line
    here = identifier_refusal("medsp_rubric", leaky_log, [("grader", "mockllm/model")])
    assert here is None
    allowed = leaky_log.model_copy(deep=True)
    allowed.eval.task_args = {**allowed.eval.task_args, "identifiers": "allow"}
    assert identifier_refusal("medsp_rubric", allowed, [("grader", remote)]) is None
    assert no_network == []
