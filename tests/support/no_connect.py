"""Test-only: a process that may open no network connection and look up no name, except on
a loopback address.

``python -m tests.support.no_connect eval ...`` runs the real ``inspect`` CLI (with the
offline token estimate) in a process where every ``connect`` to a non-loopback address and
every name lookup but ``localhost`` is refused, and written to stderr as ``NO_CONNECT: ...``;
``python -m tests.support.no_connect medsp-cases draft ...`` runs ``medsp-cases`` so. A test
asserts that no such line was written: nothing was sent, nor even looked up.
"""

from __future__ import annotations

import ipaddress
import socket
import sys
from typing import Any

MARK = "NO_CONNECT:"
"""What each refused attempt writes to stderr."""


def _loopback(host: object) -> bool:
    if host in ("localhost", None):
        return True
    try:
        return ipaddress.ip_address(str(host)).is_loopback
    except ValueError:
        return False


def _refuse(what: str) -> None:
    print(f"{MARK} {what}", file=sys.stderr, flush=True)
    raise OSError(f"no network in this test ({what})")


def install() -> None:
    """Refuse and report every non-loopback connect and name lookup in this process."""
    connect = socket.socket.connect
    connect_ex = socket.socket.connect_ex
    getaddrinfo = socket.getaddrinfo

    def guarded_connect(self: socket.socket, address: Any) -> None:
        if self.family in (socket.AF_INET, socket.AF_INET6) and not _loopback(address[0]):
            _refuse(f"connect {address!r}")
        connect(self, address)

    def guarded_connect_ex(self: socket.socket, address: Any) -> int:
        if self.family in (socket.AF_INET, socket.AF_INET6) and not _loopback(address[0]):
            _refuse(f"connect {address!r}")
        return connect_ex(self, address)

    def guarded_getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        if not _loopback(host.decode() if isinstance(host, bytes) else host):
            _refuse(f"lookup {host!r}")
        return getaddrinfo(host, *args, **kwargs)

    socket.socket.connect = guarded_connect  # type: ignore[method-assign, assignment]
    socket.socket.connect_ex = guarded_connect_ex  # type: ignore[method-assign, assignment]
    socket.getaddrinfo = guarded_getaddrinfo


if __name__ == "__main__":
    install()
    from tests.support import offline_tokens

    offline_tokens.install()
    if sys.argv[1:2] == ["medsp-cases"]:
        from inspect_medsp.cases.cli import main as cases_main

        sys.exit(cases_main(sys.argv[2:]))
    from inspect_ai._cli.main import main

    sys.argv = ["inspect", *sys.argv[1:]]
    main()
