"""Run, then grade in batch: the README's recipe, end to end through a batch API.

The encounters are played offline (``medsp/scripted``, not graded); the log is then graded by
``inspect score`` with the grader role bound to Inspect's ``openai/<model>`` provider with the
``batch`` generate option, pointed at a small OpenAI-compatible server on 127.0.0.1 (standard
library). The server implements what Inspect's OpenAI batcher calls (``POST /v1/files`` with
the JSONL, ``POST /v1/batches``, ``GET /v1/batches/{id}`` until completed, ``GET
/v1/files/{id}/content``) and the two endpoints it batches for (``/v1/responses``,
``/v1/chat/completions``), and answers every request, batched or not, with the scripted demo's
reply for it. It records which path each request came by, so the tests show the graders'
requests went through the batch API and that the scores are those of the same model called
one request at a time.

Inspect's ``openai-api/<service>/<model>`` provider does not batch (it never builds a batcher,
so ``batch`` on it is ignored): the batch path is ``openai/<model>`` with ``OPENAI_BASE_URL``.
"""

from __future__ import annotations

import email.parser
import email.policy
import json
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from bench.cache_bench import chat_completion, flatten, to_messages
from inspect_ai import eval, score
from inspect_ai.log import EvalLog, read_eval_log
from inspect_ai.model import BatchConfig, GenerateConfig, Model, get_model
from inspect_ai.scorer import Scorer

from inspect_medsp import medsp_demo
from inspect_medsp.audit import medsp_simulation_audit
from inspect_medsp.probes import medsp_grader_probe
from inspect_medsp.scoring import medsp_rubric
from inspect_medsp.scripted.recognise import recognise
from inspect_medsp.scripted.replies import reply
from tests.support.metrics import scored
from tests.support.offline_tokens import inspect_cli

SCRIPTED = "medsp/scripted"
CHAT = "/v1/chat/completions"
RESPONSES = "/v1/responses"
ENDPOINTS = (CHAT, RESPONSES)
DEMO_ANSWERS = {
    "demo_anaphylaxis/scenario1": "12/17 items",
    "demo_bad_news/scenario1": "11/17 items",
    "demo_peds_asthma/scenario1": "13/17 items",
}
"""The demo's rubric scores, as the README gives them."""
REFUSED = {
    "error": {
        "message": "Rate limit reached for batch requests.",
        "type": "invalid_request_error",
        "param": None,
        "code": "rate_limit_exceeded",
    }
}
HELLO = "hello, world"
"""The answer to Inspect's own one-off request asking a ``gpt-5`` model to say this (whether
reasoning summaries are available to the account), which is not batched."""
QUICK = BatchConfig(send_delay=1.0, tick=0.02)
"""Inspect's batcher, made quick: a batch goes out 1 s after its first request (the default
is 15 s), and it is polled every 0.02 s (default 15 s). At 0.2 s a loaded machine could split
one grading's requests into two batches, which the tests count."""


def chat_messages(body: dict[str, Any]) -> list[dict[str, Any]]:
    """A request's messages as chat completions has them (``role``, ``content``), from either
    endpoint's body (the Responses API's ``input`` message items)."""
    if "messages" in body:
        return list(body["messages"])
    if isinstance(body.get("input"), str):
        return []  # not a scripted call: Inspect's check for reasoning summaries
    return [
        {"role": item.get("role"), "content": item.get("content")}
        for item in body.get("input", [])
        if item.get("type", "message") == "message"
    ]


def answer(endpoint: str, body: dict[str, Any], id: str) -> dict[str, Any]:
    """The scripted demo's reply to one request, as ``endpoint`` returns it, with usage."""
    raw = chat_messages(body)
    messages = to_messages(raw)
    text = reply(recognise(messages), messages) if raw else HELLO
    prompt = len(flatten(raw)) // 4
    output = len(text) // 4
    model = str(body.get("model"))
    if endpoint == CHAT:
        return chat_completion(id, model, text, prompt)
    return {
        "id": id,
        "object": "response",
        "created_at": 0,
        "model": model,
        "status": "completed",
        "output": [
            {
                "type": "message",
                "id": f"msg-{id}",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": text, "annotations": []}],
            }
        ],
        "parallel_tool_calls": False,
        "tool_choice": "auto",
        "tools": [],
        "usage": {
            "input_tokens": prompt,
            "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
            "output_tokens": output,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": prompt + output,
        },
    }


@dataclass
class BatchServer:
    """What the server was asked, by path: requests answered one at a time (``direct``), and
    those that came inside a batch file (``batched``: one list of request bodies per batch)."""

    url: str = ""
    direct: list[dict[str, Any]] = field(default_factory=list)
    checks: list[dict[str, Any]] = field(default_factory=list)
    """Inspect's own requests that no role made (see :data:`HELLO`)."""
    batched: list[list[dict[str, Any]]] = field(default_factory=list)
    endpoints: list[str] = field(default_factory=list)
    """The endpoint each batch was created for."""
    files: dict[str, bytes] = field(default_factory=dict)
    batches: dict[str, dict[str, Any]] = field(default_factory=dict)
    polls: Counter[str] = field(default_factory=Counter)
    calls: list[str] = field(default_factory=list)
    """Every request's method and path, in order."""
    expire: set[str] = field(default_factory=set)
    """Sample ids whose batched requests expire unanswered (in the batch's error file)."""
    lock: threading.Lock = field(default_factory=threading.Lock)

    def upload(self, content_type: str, data: bytes) -> dict[str, Any]:
        """``POST /v1/files`` (multipart: ``purpose`` and ``file``)."""
        head = f"Content-Type: {content_type}\r\n\r\n".encode()
        form = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + data)
        parts = {p.get_param("name", header="content-disposition"): p for p in form.iter_parts()}
        assert parts["purpose"].get_content().strip() == "batch"
        payload = parts["file"].get_payload(decode=True)
        assert isinstance(payload, bytes)
        with self.lock:
            file_id = f"file-{len(self.files) + 1}"
            self.files[file_id] = payload
        return {
            "id": file_id,
            "object": "file",
            "bytes": len(payload),
            "created_at": 0,
            "filename": "batch.jsonl",
            "purpose": "batch",
            "status": "processed",
        }

    def create(self, body: dict[str, Any]) -> dict[str, Any]:
        """``POST /v1/batches``: a batch of the uploaded file's requests, validating."""
        endpoint = body["endpoint"]
        assert endpoint in ENDPOINTS, body
        lines = self.files[body["input_file_id"]].decode().splitlines()
        requests = [json.loads(line) for line in lines if line.strip()]
        assert all(r["method"] == "POST" and r["url"] == endpoint for r in requests)
        with self.lock:
            batch_id = f"batch-{len(self.batches) + 1}"
            self.batched.append([r["body"] for r in requests])
            self.endpoints.append(endpoint)
            self.batches[batch_id] = {
                "id": batch_id,
                "object": "batch",
                "endpoint": endpoint,
                "input_file_id": body["input_file_id"],
                "completion_window": body["completion_window"],
                "created_at": 0,
                "status": "validating",
                "request_counts": {"total": len(requests), "completed": 0, "failed": 0},
                "requests": requests,
            }
        return self.shown(batch_id)

    def retrieve(self, batch_id: str) -> dict[str, Any]:
        """``GET /v1/batches/{id}``: in progress when first polled, then completed, with the
        answers in an output file."""
        with self.lock:
            batch = self.batches[batch_id]
            self.polls[batch_id] += 1
            if self.polls[batch_id] == 1:
                batch["status"] = "in_progress"
            elif batch["status"] != "completed":
                done: list[dict[str, Any]] = []
                expired: list[dict[str, Any]] = []
                for n, r in enumerate(batch["requests"]):
                    line = {"id": f"{batch_id}-{n}", "custom_id": r["custom_id"]}
                    if self.sample_of(r["body"]) in self.expire:
                        refused = {"status_code": 400, "request_id": f"req-{n}", "body": REFUSED}
                        expired.append(line | {"response": refused, "error": None})
                        continue
                    body = answer(batch["endpoint"], r["body"], f"{batch_id}-{n}")
                    response = {"status_code": 200, "request_id": f"req-{n}", "body": body}
                    done.append(line | {"response": response, "error": None})
                batch["status"] = "completed"
                batch["request_counts"] |= {"completed": len(done), "failed": len(expired)}
                for kind, lines in (("output", done), ("error", expired)):
                    if lines:
                        name = f"file-{batch_id}-{kind}"
                        self.files[name] = "".join(json.dumps(x) + "\n" for x in lines).encode()
                        batch[f"{kind}_file_id"] = name
        return self.shown(batch_id)

    def shown(self, batch_id: str) -> dict[str, Any]:
        return {k: v for k, v in self.batches[batch_id].items() if k != "requests"}

    @staticmethod
    def sample_of(body: dict[str, Any]) -> str:
        """The demo sample a request is about."""
        return recognise(to_messages(chat_messages(body))).record.id

    def batched_roles(self) -> list[list[str]]:
        """The role of each request of each batch, as the scripted provider recognises it."""
        return [
            [recognise(to_messages(chat_messages(body))).role for body in batch]
            for batch in self.batched
        ]

    def model(self, name: str, batch: bool, responses_api: bool = True) -> Model:
        """Inspect's OpenAI provider for this server (``batch``: through its batch API)."""
        config = GenerateConfig(batch=QUICK) if batch else GenerateConfig()
        return get_model(
            f"openai/{name}",
            config=config,
            base_url=self.url,
            api_key="local",
            memoize=False,
            responses_api=responses_api,
        )


@pytest.fixture
def server() -> Iterator[BatchServer]:
    state = BatchServer()

    class Handler(BaseHTTPRequestHandler):
        def reply(self, payload: dict[str, Any] | bytes, status: int = 200) -> None:
            data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:
            data = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            state.calls.append(f"POST {self.path}")
            if self.path in ENDPOINTS:
                body = json.loads(data)
                with state.lock:
                    scripted = not isinstance(body.get("input"), str)
                    (state.direct if scripted else state.checks).append(body)
                    n = len(state.calls)
                self.reply(answer(self.path, body, f"direct-{n}"))
            elif self.path == "/v1/files":
                self.reply(state.upload(self.headers["Content-Type"], data))
            elif self.path == "/v1/batches":
                self.reply(state.create(json.loads(data)))
            else:
                self.reply({"error": {"message": f"no {self.path}"}}, 404)

        def do_GET(self) -> None:
            state.calls.append(f"GET {self.path}")
            parts = self.path.strip("/").split("/")
            if parts[:2] == ["v1", "batches"] and len(parts) == 3:
                self.reply(state.retrieve(parts[2]))
            elif parts[:2] == ["v1", "files"] and parts[3:] == ["content"]:
                self.reply(state.files[parts[2]])
            else:
                self.reply({"error": {"message": f"no {self.path}"}}, 404)

        def log_message(self, format: str, *args: Any) -> None:
            return

    http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=http.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{http.server_address[1]}/v1"
    try:
        yield state
    finally:
        http.shutdown()
        http.server_close()
        thread.join(timeout=10)


@pytest.fixture(scope="module")
def encounters(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Step 1 of the recipe: the demo's encounters, played and not graded (``--no-score``)."""
    folder = tmp_path_factory.mktemp("encounters")
    [log] = eval(
        medsp_demo(judge=SCRIPTED),
        model=SCRIPTED,
        score=False,
        log_dir=str(folder),
        display="none",
    )
    assert log.status == "success" and log.location, log.error
    assert log.samples is not None and all(not s.scores for s in log.samples)
    return Path(log.location)


def answers(log: EvalLog, scorer: str = "medsp_rubric") -> dict[str, str]:
    assert log.samples is not None
    return {str(s.id): str(scored(s, scorer).answer) for s in log.samples}


def test_the_readme_recipe_grades_through_the_batch_api(
    encounters: Path, server: BatchServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Step 2 of the recipe, the command line as the README gives it (with a quick batcher):
    every grader request goes through the batch API, and the demo scores as documented."""
    graded = tmp_path / "graded.eval"
    monkeypatch.setenv("OPENAI_BASE_URL", server.url)
    monkeypatch.setenv("OPENAI_API_KEY", "local")
    batch = json.dumps(QUICK.model_dump(exclude_none=True))
    role = f"grader={{model: openai/gpt-5.5, batch: {batch}}}"
    done = inspect_cli(
        "score",
        str(encounters),
        "--scorer",
        "inspect_medsp/medsp_rubric",
        "--action",
        "overwrite",
        "--model-role",
        role,
        "--output-file",
        str(graded),
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    # the three encounters' gradings went out together in one batch, none one at a time
    assert server.direct == []
    assert [c["input"] for c in server.checks] == ["Please say 'hello, world'"]
    assert server.batched_roles() == [["grader"] * 3]
    assert server.endpoints == [RESPONSES]  # gpt-5.5: Inspect uses the Responses API
    # upload the JSONL, create the batch, poll it (in progress, then completed), download
    assert server.calls == [
        "POST /v1/responses",  # the reasoning-summaries check, before the first grading
        "POST /v1/files",
        "POST /v1/batches",
        "GET /v1/batches/batch-1",
        "GET /v1/batches/batch-1",
        "GET /v1/files/file-batch-1-output/content",
    ]
    assert answers(read_eval_log(str(graded))) == DEMO_ANSWERS


@pytest.mark.parametrize("responses_api", [True, False], ids=["responses", "chat"])
def test_a_batched_grader_scores_as_one_called_request_by_request(
    encounters: Path, server: BatchServer, responses_api: bool
) -> None:
    """The same grader model through either endpoint Inspect batches (``/v1/responses`` for
    the gpt-5 family, ``/v1/chat/completions`` otherwise), one request at a time and then in
    a batch: the same scores, verdicts and usage."""
    log = read_eval_log(str(encounters))
    plain = score(
        log,
        medsp_rubric(),
        model_roles={"grader": server.model("gpt-5.5", False, responses_api)},
        action="overwrite",
        display="none",
    )
    assert len(server.direct) == 3 and server.batched == []
    batched = score(
        log,
        medsp_rubric(),
        model_roles={"grader": server.model("gpt-5.5", True, responses_api)},
        action="overwrite",
        display="none",
    )
    assert len(server.direct) == 3 and server.batched_roles() == [["grader"] * 3]
    assert server.endpoints == [RESPONSES if responses_api else CHAT]
    assert answers(batched) == answers(plain) == DEMO_ANSWERS
    assert batched.samples is not None and plain.samples is not None
    for one, other in zip(batched.samples, plain.samples, strict=True):
        assert scored(one).value == scored(other).value
        # the same verdicts and reasoning, and the same calls and tokens stored with the score
        assert scored(one).metadata == scored(other).metadata
        metadata = scored(one).metadata or {}
        assert metadata["rescored"] is True
        assert metadata["usage"]["grader"]["calls"] == 1
        assert metadata["usage"]["grader"]["input_tokens"] > 0
    assert batched.results is not None
    assert round(batched.results.scores[0].metrics["macro"].value, 3) == 0.706


GRADINGS: dict[str, tuple[str, Callable[[], Scorer]]] = {
    "medsp_simulation_audit": ("auditor", lambda: medsp_simulation_audit(judge=SCRIPTED)),
    "medsp_grader_probe": ("grader", lambda: medsp_grader_probe(probes="removal")),
    "medsp_rubric": ("grader", lambda: medsp_rubric(samples=3)),
}
"""The recipe's other gradings: the audit, the removal probe, three grader repeats."""


def test_the_audit_the_probes_and_repeats_work_batched(
    encounters: Path, server: BatchServer
) -> None:
    """The auditor reviews the three encounters in one batch; the probes grade the unchanged
    records in one batch and the perturbed copies in the next; the three repeats of each
    encounter's grading go out together. Each scores as the same model does called one
    request at a time, and stores the same calls and tokens."""
    log = read_eval_log(str(encounters))

    def graded(batch: bool) -> dict[str, EvalLog]:
        return {
            name: score(
                log,
                make(),
                model_roles={role: server.model("gpt-5.5", batch)},
                action="append",
                display="none",
            )
            for name, (role, make) in GRADINGS.items()
        }

    plain = graded(batch=False)
    assert len(server.direct) == 3 + 6 + 9 and server.batched == []
    batched = graded(batch=True)
    assert len(server.direct) == 18
    assert server.batched_roles() == [
        ["auditor"] * 3,
        ["grader"] * 3,  # the probes' baseline
        ["grader"] * 3,  # the probes' perturbed copies
        ["grader"] * 9,
    ]
    for name in GRADINGS:
        one, other = batched[name].samples, plain[name].samples
        assert one is not None and other is not None
        for a, b in zip(one, other, strict=True):
            assert scored(a, name).value == scored(b, name).value
            assert scored(a, name).metadata == scored(b, name).metadata
    assert answers(batched["medsp_simulation_audit"], "medsp_simulation_audit") == {
        "demo_anaphylaxis/scenario1": "invalidating",
        "demo_bad_news/scenario1": "faithful",
        "demo_peds_asthma/scenario1": "faithful",
    }
    probed = batched["medsp_grader_probe"].samples
    assert probed is not None
    values = {str(s.id): scored(s, "medsp_grader_probe").value for s in probed}
    down = {sid: v["removal_down"] for sid, v in values.items() if isinstance(v, dict)}
    assert down == {
        "demo_anaphylaxis/scenario1": 3,
        "demo_bad_news/scenario1": 1,
        "demo_peds_asthma/scenario1": 4,  # the scripted grader credits the clinician's lines only
    }
    assert answers(batched["medsp_rubric"]) == DEMO_ANSWERS


def test_the_openai_api_provider_ignores_batch(
    encounters: Path, server: BatchServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the README warns of: ``openai-api/<service>/<model>`` has no batcher, so ``batch``
    on it is silently ignored and the grader is called one request at a time, at list price."""
    service = f"batchless{server.url.split(':')[-1].split('/')[0]}"
    monkeypatch.setenv(f"{service.upper()}_BASE_URL", server.url)
    monkeypatch.setenv(f"{service.upper()}_API_KEY", "local")
    grader = get_model(
        f"openai-api/{service}/gpt-5.5",
        config=GenerateConfig(batch=QUICK),
        memoize=False,
    )
    log = read_eval_log(str(encounters))
    graded = score(
        log, medsp_rubric(), model_roles={"grader": grader}, action="overwrite", display="none"
    )
    assert len(server.direct) == 3 and server.batched == [] and server.checks == []
    assert answers(graded) == DEMO_ANSWERS


def test_a_request_the_batch_api_refuses_leaves_encounters_unscored_never_zero(
    encounters: Path, server: BatchServer
) -> None:
    """One grading the batch API refuses (its line in the error file). Inspect 0.3.285 fails
    the whole batch when one line of a result file is not a response, so every encounter of
    that batch may go ungraded: each is unscored with the reason kept, none counted as 0."""
    server.expire = {"demo_bad_news/scenario1"}
    log = read_eval_log(str(encounters))
    graded = score(
        log,
        medsp_rubric(),
        model_roles={"grader": server.model("gpt-5.5", True)},
        action="overwrite",
        display="none",
    )
    assert graded.samples is not None
    why = {str(s.id): (scored(s).metadata or {}).get("unscored") for s in graded.samples}
    assert why["demo_bad_news/scenario1"] == "grader_failed"
    for sample in graded.samples:
        result = scored(sample)
        if why[str(sample.id)]:
            assert why[str(sample.id)] == "grader_failed"
            assert result.metadata is not None and result.metadata["unscored_why"]
            assert str(result.explanation).startswith("Not scored (grader_failed): ")
        else:
            assert result.answer == DEMO_ANSWERS[str(sample.id)]
    # the summary counts only the encounters graded
    assert graded.results is not None
    counted = graded.results.scores[0].metrics["scenarios"].value
    assert counted == sum(not reason for reason in why.values())
