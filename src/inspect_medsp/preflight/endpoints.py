"""Where each model of a run connects, read from the model as Inspect builds it.

A model is placed by its endpoint, never by its name: the URL its provider's client was made
with (``--model-base-url``, a role's ``model_args: {base_url: ...}``, the provider's own
environment variables and defaults all end there), a loopback proxy bypassed or not. A host is
on this machine only when it is exactly ``localhost`` or parses to a loopback address
(127.0.0.0/8, ::1); any other name is remote, since placing it would need a lookup this check
never makes. A provider that runs the model in this process (the package's own ``medsp``
models, ``mockllm``, ``none``, and the providers that load weights here) has no endpoint; a
provider whose endpoint cannot be read is remote (fail closed).
"""

from __future__ import annotations

import ipaddress
import os
import urllib.request
from collections.abc import Mapping, Sequence
from urllib.parse import urlparse

from inspect_ai.model import Model, get_model
from pydantic import BaseModel, ConfigDict

from inspect_medsp.preflight.models import plain_line

IN_PROCESS: dict[str, str] = {
    "medsp": "the package's own provider, in this process (scripted or a person)",
    "mockllm": "Inspect's mock model, in this process",
    "none": "Inspect's no-model provider, in this process",
    "hf": "Hugging Face weights loaded in this process",
    "transformer_lens": "TransformerLens weights loaded in this process",
    "nnterp": "nnterp weights loaded in this process",
}
"""Providers that run the model in this process: nothing they read leaves it."""

SERVED_HERE: dict[str, str] = {"vllm": "VLLM_BASE_URL", "vllm-completions": "VLLM_BASE_URL"}
"""Providers that start their own server on this machine unless given one (the variable that
names an existing server's URL)."""

THIS_PROCESS = "(this process)"
"""The host recorded for a model with no endpoint."""


class Endpoint(BaseModel):
    """Where one role's model connects, and whether that is this machine."""

    model_config = ConfigDict(frozen=True)

    role: str
    """The role (``clinician``, ``grader``, ``drafter`` ...)."""
    model: str
    """The model, ``provider/name``."""
    host: str
    """The host its requests go to (``(this process)`` for an in-process model; empty when
    it could not be read)."""
    local: bool
    """Whether that host is this machine (a loopback address or exactly ``localhost``)."""
    why: str
    """Why it counts local or remote, in a few words."""

    def where(self) -> str:
        """``at <host>``, ``in this process``, or ``at an unknown host``."""
        if self.host == THIS_PROCESS:
            return "in this process"
        return f"at {self.host}" if self.host else "at an unknown host"

    def line(self) -> str:
        """``role model at host (why)``, as a refusal or the log names it."""
        return f"{self.role} {self.model} {self.where()} ({self.why})"


def loopback(host: str) -> bool:
    """Whether ``host`` is this machine without any lookup: exactly ``localhost``, or an
    address in 127.0.0.0/8 or ::1 (an IPv4-mapped loopback address too)."""
    if host == "localhost":
        return True
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    mapped = getattr(address, "ipv4_mapped", None)
    return address.is_loopback or (mapped is not None and mapped.is_loopback)


def url_host(url: str) -> str:
    """The host of ``url`` (a bare ``host[:port]`` read as one), lower-cased; empty if none."""
    text = url.strip()
    parsed = urlparse(text if "://" in text else f"//{text}")
    try:
        return parsed.hostname or ""
    except ValueError:
        return ""


def _through_proxy(url: str, host: str) -> str | None:
    """The proxy a request to ``url`` would go through, from the environment (as the
    providers' HTTP clients read it), unless ``NO_PROXY`` exempts ``host``."""
    proxies = urllib.request.getproxies_environment()
    scheme = urlparse(url if "://" in url else f"http://{url}").scheme or "http"
    proxy = proxies.get(scheme) or proxies.get("all")
    bypass = urllib.request.proxy_bypass_environment  # type: ignore[attr-defined]
    if not proxy or bypass(host, proxies):
        return None
    return proxy


def place_url(role: str, model: str, url: str, source: str) -> Endpoint:
    """Place a model whose requests go to ``url`` (``source``: where the URL was read)."""
    host = url_host(url)
    if not host:
        return Endpoint(
            role=role, model=model, host="", local=False,
            why=f"no host in its endpoint {url!r} ({source}); counted remote",
        )
    proxy = _through_proxy(url, host)
    if proxy is not None:
        via = url_host(proxy)
        if not loopback(via):
            return Endpoint(
                role=role, model=model, host=via or proxy, local=False,
                why=f"its requests to {host} go through the proxy {via or proxy} set in the "
                "environment, not a loopback address",
            )
    if loopback(host):
        return Endpoint(
            role=role, model=model, host=host, local=True,
            why=f"a loopback address, read from {source}",
        )
    return Endpoint(
        role=role, model=model, host=host, local=False,
        why=f"not a loopback address, read from {source}",
    )


def provider_of(model: Model | str) -> str:
    """The provider of ``model`` (the part of its name before the first ``/``)."""
    return str(model).partition("/")[0]


def place_model(role: str, model: Model) -> Endpoint:
    """Where the made ``model`` connects: its client's base URL, else its API's."""
    name = str(model)
    provider = provider_of(name)
    if provider in IN_PROCESS:
        return Endpoint(
            role=role, model=name, host=THIS_PROCESS, local=True, why=IN_PROCESS[provider]
        )
    api = model.api
    client_url = getattr(getattr(api, "client", None), "base_url", None)
    if client_url is not None and str(client_url):
        return place_url(role, name, str(client_url), f"{provider}'s client base URL")
    if provider in SERVED_HERE:
        return _served_here(role, name, provider, api)
    base_url = getattr(api, "base_url", None)
    if isinstance(base_url, str) and base_url:
        return place_url(role, name, base_url, f"{provider}'s base_url")
    return Endpoint(
        role=role, model=name, host="", local=False,
        why=f"provider {provider} gives no endpoint this check can read; counted remote",
    )


def _served_here(role: str, name: str, provider: str, api: object) -> Endpoint:
    """A vLLM model: an external server's URL (already resolved, given as ``base_url``, or
    in ``VLLM_BASE_URL``), else the server it starts on this machine."""
    missing = object()
    resolved = getattr(getattr(api, "_server", None), "base_url", None)
    given = getattr(api, "_init_base_url", missing)
    if given is missing:
        return Endpoint(
            role=role, model=name, host="", local=False,
            why=f"provider {provider} gives no endpoint this check can read; counted remote",
        )
    variable = SERVED_HERE[provider]
    if isinstance(resolved, str) and resolved:
        return place_url(role, name, resolved, f"{provider}'s server")
    if isinstance(given, str) and given:
        return place_url(role, name, given, f"{provider}'s base_url")
    if os.environ.get(variable):
        return place_url(role, name, os.environ[variable], variable)
    return Endpoint(
        role=role, model=name, host="localhost", local=True,
        why=f"{provider} starts its own server on this machine (no base_url, no {variable})",
    )


def place(role: str, model: Model | str | None) -> Endpoint:
    """Where ``model`` (made, or a name made as Inspect makes it; None: not known) connects.

    A name of an in-process provider is not made (that would load its weights); any other
    is made with :func:`inspect_ai.model.get_model` (memoised, building the client without
    calling it), and one that cannot be made here is remote.
    """
    if model is None:
        return Endpoint(
            role=role, model="(not known)", host="", local=False,
            why=f"the {role} is not known while a task is built in Python; counted remote",
        )
    if isinstance(model, Model):
        return place_model(role, model)
    if provider_of(model) in IN_PROCESS:
        provider = provider_of(model)
        return Endpoint(
            role=role, model=model, host=THIS_PROCESS, local=True, why=IN_PROCESS[provider]
        )
    try:
        made = get_model(model)  # inspect-evals-lint: ignore[IEBP001] -- where it connects, at load
    except Exception as err:
        reason = plain_line(getattr(err, "message", None) or err) or type(err).__name__
        return Endpoint(
            role=role, model=model, host="", local=False,
            why=f"it cannot be made here ({reason}), so its endpoint is unknown; counted remote",
        )
    return place_model(role, made)


RoleModels = Mapping[str, Model | str | Sequence[Model | str] | None]
"""Each role's model(s): made, by name, or None when not known."""


def place_roles(roles: RoleModels) -> list[Endpoint]:
    """Every role's model(s) placed, in the order given (a role of several models, each)."""
    placed: list[Endpoint] = []
    for role, bound in roles.items():
        models = bound if isinstance(bound, list | tuple) else [bound]
        placed += [place(role, _one(m)) for m in models]
    return placed


def _one(model: object) -> Model | str | None:
    if model is None or isinstance(model, Model):
        return model
    return str(model)


def away(placed: Sequence[Endpoint]) -> list[Endpoint]:
    """The endpoints off this machine (or not placed), each role and model once."""
    seen: dict[tuple[str, str], Endpoint] = {}
    for endpoint in placed:
        if not endpoint.local:
            seen.setdefault((endpoint.role, endpoint.model), endpoint)
    return list(seen.values())


def away_line(placed: Sequence[Endpoint]) -> str:
    """The remote endpoints of ``placed`` in one clause: ``grader openai/x at 192.0.2.1 (not
    a loopback address ...); ...``."""
    return "; ".join(e.line() for e in away(placed))


SERVE_HERE = (
    "serve those models on this machine (a base URL on 127.0.0.1, ::1 or localhost: "
    "--model-base-url, the role's model_args base_url, or the provider's *_BASE_URL)"
)
"""The fix for a remote endpoint, in words."""
