"""Test-only: the installed ``inspect`` command run in a folder of the test's own."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

BIN = Path(sys.executable).parent
"""The virtual environment's scripts (``inspect``, ``medsp-report``)."""


def inspect_in(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``inspect ARGS`` run in ``folder``, its logs in ``folder/logs``, nothing on screen but
    its messages (wide, unwrapped), and no provider key from the environment."""
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_API_TOKEN"))}
    env.update(COLUMNS="400", INSPECT_LOG_DIR=str(folder / "logs"), INSPECT_DISPLAY="none")
    return subprocess.run(
        [str(BIN / "inspect"), *args],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
