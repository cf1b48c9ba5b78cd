"""What a provider's prompt cache would serve of a MedSP run: prompt characters per role, the
part no earlier request's prefix covers, and output characters.

The offline demo is played through Inspect's real ``openai-api`` provider against a small
OpenAI-compatible server on 127.0.0.1 (standard library). The server answers every request with
the scripted demo's reply for that call (the same replies ``medsp/scripted`` gives) and records
the request. A request is billed the way OpenAI bills automatic caching: the longest prefix it
shares with an earlier request to the same model is a cache read when it is at least
``MIN_CACHED`` characters long; the rest is uncached input.

The server reports each request's cached part to Inspect as OpenAI does
(``prompt_tokens_details.cached_tokens``, at 4 characters a token), so the log records cache
reads as a real run would and ``medsp-report`` shows them beside the estimate.

    python -m bench.cache_bench [--no-audit] [--parts] [--json FILE] [--compare BEFORE.json]

``--serve`` runs the same server alone, each answer after ``--latency`` seconds (as a real model
takes a few), for playing the demo by hand through ``openai-api/cachebench/<role>``: a person in
the clinician's chair waits on it as on a real patient and environment.

    python -m bench.cache_bench --serve --latency 3
"""

from __future__ import annotations

import argparse
import json
import os
import threading
import time
from collections import defaultdict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from inspect_ai import eval
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
)

from inspect_medsp import medsp_demo
from inspect_medsp.scripted.recognise import recognise
from inspect_medsp.scripted.replies import reply

MIN_CACHED = 1024
"""Shortest repeated prefix (characters) a provider serves from its cache."""
SERVICE = "cachebench"
ROLES = ("clinician", "patient", "environment", "grader", "auditor")


def flatten(messages: Sequence[dict[str, Any]]) -> str:
    """A request's prompt as the provider's cache sees it: the messages in order."""
    parts: list[str] = []
    for m in messages:
        content = m.get("content")
        if isinstance(content, list):
            content = "".join(str(c.get("text", "")) for c in content if isinstance(c, dict))
        parts.append(f"<|{m.get('role')}|>{content or ''}")
    return "".join(parts)


def common_prefix(a: str, b: str) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


@dataclass
class RoleBill:
    requests: int = 0
    prompt: int = 0
    uncached: int = 0
    output: int = 0

    @property
    def cached(self) -> int:
        return self.prompt - self.uncached


PARTS = ("instructions", "packet", "turns", "replies", "record")
"""What a request's characters are: the role's fixed instructions (its system message), the
scenario's packet (the first user message of an encounter role), the harness's per-turn
messages, the role's own earlier replies, and what a grader or the auditor reads after its
instructions (checklist, packets, record)."""


def part_of(model: str, index: int, message: dict[str, Any]) -> str:
    """Which of :data:`PARTS` the ``index``-th message of a request to ``model`` is."""
    role = message.get("role")
    if role in ("system", "developer"):
        return "instructions"
    if model.rsplit("/", 1)[-1] in ("grader", "auditor"):
        return "record"
    if role == "assistant":
        return "replies"
    return "packet" if index == 1 else "turns"


@dataclass
class Ledger:
    """Every request the server answered, billed as it arrived."""

    seen: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    bills: dict[str, RoleBill] = field(default_factory=lambda: defaultdict(RoleBill))
    parts: dict[str, dict[str, RoleBill]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(RoleBill))
    )
    lock: threading.Lock = field(default_factory=threading.Lock)

    def bill(
        self, model: str, messages: Sequence[dict[str, Any]], output: str
    ) -> tuple[int, int]:
        """Bill one request; its prompt characters and the part its cached prefix covers."""
        prompt = flatten(messages)
        with self.lock:
            earlier = self.seen[model]
            shared = max((common_prefix(prompt, e) for e in earlier), default=0)
            cached = shared if shared >= MIN_CACHED else 0
            earlier.append(prompt)
            b = self.bills[model]
            b.requests += 1
            b.prompt += len(prompt)
            b.uncached += len(prompt) - cached
            b.output += len(output)
            start = 0
            for i, m in enumerate(messages):
                end = start + len(flatten([m]))
                part = self.parts[model][part_of(model, i, m)]
                part.prompt += end - start
                part.uncached += end - max(start, min(end, cached))
                start = end
            return len(prompt), cached


def to_messages(raw: Sequence[dict[str, Any]]) -> list[ChatMessage]:
    out: list[ChatMessage] = []
    for m in raw:
        content = m.get("content")
        text = (
            "".join(str(c.get("text", "")) for c in content if isinstance(c, dict))
            if isinstance(content, list)
            else str(content or "")
        )
        role = m.get("role")
        if role in ("system", "developer"):
            out.append(ChatMessageSystem(content=text))
        elif role == "assistant":
            out.append(ChatMessageAssistant(content=text))
        else:
            out.append(ChatMessageUser(content=text))
    return out


def chat_completion(
    id: str,
    model: str,
    text: str,
    prompt_tokens: int,
    cached_tokens: int | None = None,
    finish: str = "stop",
) -> dict[str, Any]:
    """An OpenAI chat completion answering ``text`` and ending for ``finish``, its usage at 4
    characters a token (with ``cached_tokens``, the part of the prompt the provider's cache
    served)."""
    output = len(text) // 4
    usage: dict[str, Any] = {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": output,
        "total_tokens": prompt_tokens + output,
    }
    if cached_tokens is not None:
        usage["prompt_tokens_details"] = {"cached_tokens": cached_tokens}
    return {
        "id": id,
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": finish,
            }
        ],
        "usage": usage,
    }


@contextmanager
def scripted_server(ledger: Ledger, latency: float = 0.0, port: int = 0) -> Iterator[str]:
    """An OpenAI-compatible server on 127.0.0.1 playing the scripted demo, each answer after
    ``latency`` seconds (a provider's fixed delay); yields its URL (``port`` 0: any free port)."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            time.sleep(latency)
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            messages = body.get("messages", [])
            text = reply(recognise(to_messages(messages)), to_messages(messages))
            model = str(body.get("model"))
            prompt, cached = ledger.bill(model, messages, text)
            answer = chat_completion(
                "chatcmpl-bench", model, text, prompt // 4, cached_tokens=cached // 4
            )
            data = json.dumps(answer).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def measure(epochs: int = 1, audit: bool = True, log_dir: str | None = None) -> dict[str, RoleBill]:
    """Play the demo through the local server; the bill of each role (``log_dir``: keep the
    run's log there)."""
    return measure_parts(epochs, audit, log_dir)[0]


def measure_parts(
    epochs: int = 1, audit: bool = True, log_dir: str | None = None
) -> tuple[dict[str, RoleBill], dict[str, dict[str, RoleBill]]]:
    """:func:`measure`, with each role's characters split by :data:`PARTS`."""
    import tempfile

    ledger = Ledger()
    with scripted_server(ledger) as url, tempfile.TemporaryDirectory() as tmp:
        os.environ[f"{SERVICE.upper()}_BASE_URL"] = url
        os.environ[f"{SERVICE.upper()}_API_KEY"] = "local"
        model = f"openai-api/{SERVICE}/clinician"
        roles = {r: f"openai-api/{SERVICE}/{r}" for r in ROLES if r != "clinician"}
        logs = eval(
            medsp_demo(audit=audit),
            model=model,
            model_roles=roles,
            epochs=epochs,
            max_samples=1,
            log_dir=log_dir or tmp,
            display="none",
        )
        if logs[0].status != "success":
            raise SystemExit(f"the bench run failed: {logs[0].error}")
    bills = {m.rsplit("/", 1)[-1]: b for m, b in ledger.bills.items()}
    parts = {m.rsplit("/", 1)[-1]: dict(p) for m, p in ledger.parts.items()}
    return bills, parts


def serve(latency: float, port: int) -> None:
    """Run the scripted server until Ctrl-C, saying how to point Inspect at it."""
    with scripted_server(Ledger(), latency, port) as url:
        print(f"export {SERVICE.upper()}_BASE_URL={url} {SERVICE.upper()}_API_KEY=local")
        print(
            f"roles: --model-role patient=openai-api/{SERVICE}/patient (environment, grader "
            f"alike); each answer after {latency:g} s; Ctrl-C stops",
            flush=True,
        )
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            return


def breakdown(parts: dict[str, dict[str, RoleBill]]) -> str:
    """Where each role's prompt and uncached characters come from."""
    lines = [
        "| role | part | prompt chars | uncached chars |",
        "|---|---|---:|---:|",
    ]
    for role in ROLES:
        for part in PARTS:
            b = parts.get(role, {}).get(part)
            if b is not None and b.prompt:
                lines.append(f"| {role} | {part} | {b.prompt:,} | {b.uncached:,} |")
    for part in PARTS:
        total = _sum({r: p[part] for r, p in parts.items() if part in p}, ROLES)
        if total.prompt:
            lines.append(f"| all | {part} | {total.prompt:,} | {total.uncached:,} |")
    return "\n".join(lines)


def table(bills: dict[str, RoleBill]) -> str:
    lines = [
        "| role | requests | prompt chars | uncached chars | cached share | output chars |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    total = RoleBill()
    for role in ROLES:
        b = bills.get(role)
        if b is None:
            continue
        total.requests += b.requests
        total.prompt += b.prompt
        total.uncached += b.uncached
        total.output += b.output
        share = b.cached / b.prompt if b.prompt else 0.0
        lines.append(
            f"| {role} | {b.requests} | {b.prompt:,} | {b.uncached:,} | {share:.0%} | "
            f"{b.output:,} |"
        )
    share = total.cached / total.prompt if total.prompt else 0.0
    lines.append(
        f"| all | {total.requests} | {total.prompt:,} | {total.uncached:,} | {share:.0%} | "
        f"{total.output:,} |"
    )
    return "\n".join(lines)


def load(path: str) -> dict[str, RoleBill]:
    """Bills written with ``--json``."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    return {role: RoleBill(**values) for role, values in data.items()}


def _sum(bills: dict[str, RoleBill], roles: Sequence[str]) -> RoleBill:
    out = RoleBill()
    for role in roles:
        b = bills.get(role, RoleBill())
        out = RoleBill(
            out.requests + b.requests,
            out.prompt + b.prompt,
            out.uncached + b.uncached,
            out.output + b.output,
        )
    return out


def comparison(before: dict[str, RoleBill], after: dict[str, RoleBill]) -> str:
    """Prompt, uncached and output characters per role, before and after, with the change."""

    def change(old: int, new: int) -> str:
        return f"{(new - old) / old:+.1%}" if old else "n/a"

    lines = [
        "| role | prompt before | prompt after | change | uncached before | uncached after | "
        "change | output before | output after | change |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    rows: list[tuple[str, RoleBill, RoleBill]] = [
        (role, before[role], after[role]) for role in ROLES if role in before and role in after
    ]
    encounter = [r for r in ROLES if r != "auditor"]
    rows.append(("all but the auditor", _sum(before, encounter), _sum(after, encounter)))
    rows.append(("all", _sum(before, ROLES), _sum(after, ROLES)))
    for role, b, a in rows:
        lines.append(
            f"| {role} | {b.prompt:,} | {a.prompt:,} | {change(b.prompt, a.prompt)} | "
            f"{b.uncached:,} | {a.uncached:,} | {change(b.uncached, a.uncached)} | "
            f"{b.output:,} | {a.output:,} | {change(b.output, a.output)} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.cache_bench", description=__doc__)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--no-audit", action="store_true", help="leave the auditor out")
    parser.add_argument("--json", help="also write the numbers to this JSON file")
    parser.add_argument(
        "--compare", metavar="BEFORE", help="a --json file of an earlier version: print both"
    )
    parser.add_argument(
        "--parts", action="store_true", help="also split each role's characters by part"
    )
    parser.add_argument(
        "--serve", action="store_true", help="only run the server, until Ctrl-C (see above)"
    )
    parser.add_argument("--latency", type=float, default=0.0, help="seconds before each answer")
    parser.add_argument("--port", type=int, default=0, help="the server's port (0: any free)")
    args = parser.parse_args(argv)
    if args.serve:
        serve(args.latency, args.port)
        return
    bills, parts = measure_parts(epochs=args.epochs, audit=not args.no_audit)
    print(table(bills))
    if args.parts:
        print()
        print(breakdown(parts))
    if args.compare:
        print()
        print(comparison(load(args.compare), bills))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({r: vars(b) for r, b in bills.items()}, f, indent=2)


if __name__ == "__main__":
    main()
