"""The provider's own code path: Inspect's OpenAI provider (``openai-api/...``) against a small
OpenAI-compatible server on 127.0.0.1 that answers the way real providers do when a reply is
cut off (``finish_reason: "length"``), the prompt is too long (HTTP 400
``context_length_exceeded``) or a filter refuses (HTTP 400 ``content_filter``).

Inspect turns these into ``max_tokens``, ``model_length`` and ``content_filter`` outputs whose
text is the provider's message; the record must never hold that message as anyone's words.
"""

from __future__ import annotations

import json
import threading
from collections import defaultdict
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from bench.cache_bench import chat_completion
from inspect_ai import eval
from inspect_ai.log import EvalLog

from inspect_medsp import Trajectory, medsp_demo
from tests.support.scripts import clinician, environment, patient

OVERFLOW = (
    "This model's maximum context length is 1375 tokens. However, your messages resulted in "
    "2210 tokens."
)
FILTERED = "The response was filtered due to the prompt triggering content management policy."

Answer = tuple[int, dict[str, Any]]


def completion(model: str, text: str, finish: str = "stop") -> Answer:
    return 200, chat_completion("chatcmpl-local", model, text, 40, finish=finish)


def refusal(code: str, message: str) -> Answer:
    error = {"message": message, "type": "invalid_request_error", "param": None, "code": code}
    return 400, {"error": error}


class Provider:
    """What the server answers, by model name: the n-th request gets the n-th answer (the
    last one repeats)."""

    def __init__(self, answers: dict[str, list[Answer]]) -> None:
        self.answers = answers
        self.service = "local"
        """The provider's name in ``openai-api/<service>/<model>`` (one per server, so no
        model built for an earlier server is reused)."""
        self.requests: dict[str, list[dict[str, Any]]] = defaultdict(list)
        self.lock = threading.Lock()

    def answer(self, body: dict[str, Any]) -> Answer:
        model = str(body.get("model"))
        with self.lock:
            self.requests[model].append(body)
            script = self.answers[model]
            return script[min(len(self.requests[model]), len(script)) - 1]


@pytest.fixture
def provider(monkeypatch: pytest.MonkeyPatch) -> Iterator[Provider]:
    """An OpenAI-compatible server on 127.0.0.1 for the test's answers (``LOCAL<port>_*``)."""
    state = Provider({})

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length) or b"{}")
            status, payload = state.answer(body)
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.timeout = 10
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    port = server.server_address[1]
    state.service = f"local{port}"
    monkeypatch.setenv(f"LOCAL{port}_BASE_URL", f"http://127.0.0.1:{port}/v1")
    monkeypatch.setenv(f"LOCAL{port}_API_KEY", "test-key")
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def as_text(reply: dict[str, Any]) -> str:
    return json.dumps(reply)


def run(provider: Provider, answers: dict[str, list[Answer]], log_dir: str) -> EvalLog:
    provider.answers = answers
    logs = eval(
        medsp_demo(scenarios="demo_anaphylaxis/scenario1", judge="mockllm/model", max_turns=6),
        model=f"openai-api/{provider.service}/clinician",
        model_roles={
            role: f"openai-api/{provider.service}/{role}"
            for role in ("patient", "environment", "grader")
        },
        display="none",
        log_dir=log_dir,
        log_realtime=False,
        max_retries=0,
    )
    assert logs[0].status == "success", logs[0].error
    return logs[0]


def the_trajectory(log: EvalLog) -> Trajectory:
    assert log.samples is not None
    traj = Trajectory.of(log.samples[0].store)
    assert traj is not None
    return traj


def test_openai_provider_cut_off_refused_and_overflowing_clinician(
    provider: Provider, log_dir: str
) -> None:
    cut = '{"speak": "Hello, I am Dr Shah.", "actions": ["Assess airway, breathing, cir'
    whole = clinician("Hello, I am Dr Shah.", ["Assess airway, breathing, circulation", "ECG"])
    answers = {
        "clinician": [
            completion("clinician", cut, "length"),
            completion("clinician", "<think>Airway {first}.</think>" + as_text(whole)),
            refusal("content_filter", FILTERED),
            refusal("context_length_exceeded", OVERFLOW),
        ],
        "patient": [completion("patient", as_text(patient("My throat is tight.")))],
        "environment": [completion("environment", as_text(environment(0, "initial_assessment")))],
        "grader": [completion("grader", as_text({"reasoning": ["read"], "PC": {}}))],
    }
    log = run(provider, answers, log_dir)
    traj = the_trajectory(log)

    # turn 1: the cut reply re-asked, the whole one used (its reasoning is not the reply)
    assert traj.turns[0].clinician.actions == whole["actions"]
    assert traj.turns[0].stop_reasons["clinician"] == "stop"
    # turn 2: refused: nothing said or done, the provider's message kept aside
    assert traj.turns[1].refused and traj.turns[1].clinician.speak == ""
    assert traj.turns[1].provider_message == FILTERED
    # turn 3: the window is full: the encounter ends there and is graded
    assert traj.end == "context_exhausted" and "turn 3" in traj.end_reason
    assert traj.provider_stop is not None and "maximum context length" in traj.provider_stop.message
    h = traj.health["clinician"]
    assert (h.retried, h.truncated, h.refused, h.context) == (1, 1, 1, 1)
    said = [e.text for e in traj.transcript] + [a.raw for a in traj.action_log]
    assert not any("filtered" in t or "context length" in t or "cir'" in t for t in said)
    assert "Assess airway, breathing, cir" not in said
    grader_prompt = json.dumps(provider.requests["grader"])
    assert "filtered due to" not in grader_prompt and "maximum context length" not in grader_prompt
    assert log.samples is not None and log.samples[0].scores is not None
    figures = (log.samples[0].scores["medsp_rubric"].metadata or {})["figures"]
    assert isinstance(figures, dict) and figures["context_exhausted"] == 1
    assert figures["refused_turns"] == 1
    # the re-ask after the cut said so
    retry = provider.requests["clinician"][1]["messages"][-1]["content"]
    assert "cut off" in json.dumps(retry)


def test_openai_provider_overflowing_environment_leaves_the_sample_unscored(
    provider: Provider, log_dir: str
) -> None:
    answers = {
        "clinician": [completion("clinician", as_text(clinician("What happened?")))],
        "patient": [completion("patient", as_text(patient("A wasp stung me.")))],
        "environment": [refusal("context_length_exceeded", OVERFLOW)],
        "grader": [completion("grader", as_text({"PC": {}}))],
    }
    log = run(provider, answers, log_dir)
    traj = the_trajectory(log)
    assert traj.end == "role_stopped" and traj.turn_count == 0
    assert "environment model's context window" in traj.end_reason
    assert log.samples is not None and log.samples[0].scores is not None
    score = log.samples[0].scores["medsp_rubric"]
    assert score.reason == "encounter_incomplete"
    assert score.explanation is not None and "environment" in score.explanation
    assert provider.requests["grader"] == []
