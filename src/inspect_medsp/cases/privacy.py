"""Whether a custom set may leave the building: identifiers found in it, and which of a run's
models are remote.

A set in which ``medsp-cases check`` finds likely identifiers is refused at load when the
clinician or any role is played by a remote provider, unless the user passes ``-T
identifiers=allow``; the run then records the findings in its log. A model served on this
machine (a scripted or mock model, a person, a local server on a loopback address) reads
nothing outside it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import urlparse

from inspect_medsp.cases.check import check_set
from inspect_medsp.cases.identify import find, vocabulary
from inspect_medsp.cases.load import published_roots
from inspect_medsp.cases.problems import shown

LOCAL_PROVIDERS = frozenset(
    {"medsp", "mockllm", "none", "hf", "vllm", "sglang", "llama-cpp-python", "transformer_lens"}
)
"""Providers that run the model in this process or on this machine."""
BASE_URLS = {"openai": "OPENAI_BASE_URL", "anthropic": "ANTHROPIC_BASE_URL", "ollama": ""}
"""Where a provider's base URL is set; an ``openai-api/<service>/...`` model reads
``<SERVICE>_BASE_URL``. Ollama serves on this machine unless ``OLLAMA_BASE_URL`` says not."""
LOOPBACK = ("localhost", "127.", "::1", "[::1]")


def _local_url(url: str | None) -> bool:
    host = urlparse(url).hostname or "" if url else ""
    return bool(host) and (host == "localhost" or host.startswith(LOOPBACK))


def remote(model: str) -> bool:
    """Whether ``model`` (``provider/name``) may send what it reads off this machine."""
    provider, _, rest = model.partition("/")
    if provider in LOCAL_PROVIDERS:
        return False
    if provider == "openai-api":
        service = rest.partition("/")[0]
        return not _local_url(os.environ.get(f"{service.upper().replace('-', '_')}_BASE_URL"))
    if provider == "ollama":
        url = os.environ.get("OLLAMA_BASE_URL")
        return url is not None and not _local_url(url)
    variable = BASE_URLS.get(provider)
    return not (variable and _local_url(os.environ.get(variable)))


def set_findings(folder: Path) -> list[str]:
    """Every likely identifier ``check`` finds in a custom set, one line each (file, line,
    what). A tree in the published layout declares no names: every name in it is one."""
    if published_roots(folder) is None:
        return [p.line() for p in check_set(folder).problems if p.kind == "identifier"]
    lines: list[str] = []
    for path in sorted(p for p in folder.rglob("*") if p.suffix in {".md", ".txt", ".json"}):
        text = path.read_text(encoding="utf-8", errors="replace")
        words = vocabulary(text)
        for number, line in enumerate(text.splitlines(), 1):
            lines += [
                f"{shown(path)}:{number}: likely {f.kind}: \"{f.text}\""
                for f in find(line, words=words)
            ]
    return lines


def refusal(folder: str, findings: list[str], models: Iterable[str | None]) -> str | None:
    """The one line refusing a set with ``findings`` for a run of ``models`` (None: a model
    not known while the task is built), or None when every model is local or nothing was
    found."""
    if not findings:
        return None
    away = sorted({m or "the clinician (not known while a task is built in Python)"
                   for m in models if m is None or remote(m)})
    if not away:
        return None
    n = len(findings)
    return (
        f"task parameter cases='{folder}': medsp-cases check finds {n} likely "
        f"identifier{'' if n == 1 else 's'} (first: {findings[0]}), and the set would go to "
        f"{', '.join(away)}, off this machine: remove them (medsp-cases check {folder} lists "
        "each; declare invented names in case.yaml), or pass -T identifiers=allow to send "
        "the set as it is (the log records the findings)"
    )
