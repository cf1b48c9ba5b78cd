"""Test-only: the real ``inspect`` and ``medsp-report`` commands, run in a process whose
registry holds the recipe's measurement (``tests/support/orders/``).

``python -m tests.support.registered inspect eval inspect_medsp/medsp_demo -T
clinician_orders=true ...`` (or ``... medsp-report <logs>``) first makes the one registry entry
"Add a measurement" asks for, in the package's own registry (``measures.CAPABILITIES``), then
hands the command line to the command's own entry point, as its console script would. A
slice of ``src/`` makes that entry in ``measures.py``; a test cannot edit the package, so the
entry is made in the process that runs the command, and nothing else is patched: the tasks
take its switch, ``inspect score --scorer clinician_orders`` finds its scorer by name, and
``medsp-report`` shows its section, each through its ordinary path.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from inspect_medsp import measures
from tests.support.orders import CLINICIAN_ORDERS

REPO = Path(__file__).resolve().parents[2]
COMMANDS = ("inspect", "medsp-report")


def register() -> None:
    """The recipe's step 3: one entry in the package's registry."""
    if CLINICIAN_ORDERS not in measures.CAPABILITIES:
        measures.CAPABILITIES = (*measures.CAPABILITIES, CLINICIAN_ORDERS)


def run_registered(
    folder: Path, command: str, *args: str, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``command ARGS`` (``inspect`` or ``medsp-report``) run in ``folder`` with the recipe's
    measurement registered: logs in ``folder/logs``, nothing on screen but its messages (wide,
    unwrapped), no provider key from the environment."""
    environment = {
        k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_API_TOKEN"))
    }
    path = [str(REPO), *filter(None, environment.get("PYTHONPATH", "").split(os.pathsep))]
    environment.update(
        COLUMNS="400",
        INSPECT_LOG_DIR=str(folder / "logs"),
        INSPECT_DISPLAY="none",
        PYTHONPATH=os.pathsep.join(path),
        **(env or {}),
    )
    return subprocess.run(
        [sys.executable, "-m", "tests.support.registered", command, *args],
        cwd=folder,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def main(argv: list[str]) -> int:
    """Register the measurement, then run ``argv`` (``inspect ...`` or ``medsp-report ...``)."""
    if not argv or argv[0] not in COMMANDS:
        print(f"usage: python -m tests.support.registered {{{','.join(COMMANDS)}}} ARGS")
        return 2
    register()
    command, args = argv[0], argv[1:]
    if command == "medsp-report":
        from inspect_medsp.cli import main as report

        return report(args)
    from inspect_ai._cli.main import main as inspect_main

    sys.argv = ["inspect", *args]
    inspect_main()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
