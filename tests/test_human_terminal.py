"""The person's chair in a real terminal: ``inspect eval`` in a tmux pane with Inspect's
full-screen display, a patient and environment that take a second to answer (the cache
bench's scripted server on 127.0.0.1), and keys sent with ``tmux send-keys``.

There the display reads Ctrl-C as a key while the models work (not as a signal), which no
scripted console input reaches; this checks that the key asks, stops that encounter only, and
that the run goes on to the next case. Skipped where tmux is not installed."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from bench.cache_bench import SERVICE, Ledger, scripted_server
from inspect_ai.log import read_eval_log
from inspect_ai.util import Store

from inspect_medsp import Trajectory
from inspect_medsp.record.stop import PersonStop

TMUX = shutil.which("tmux")
pytestmark = pytest.mark.skipif(
    TMUX is None, reason="tmux is not installed: the chair is not driven in a real terminal"
)
BIN = Path(sys.executable).parent


class Pane:
    """A detached tmux session of one pane, ``width`` x ``height``, running ``command``."""

    def __init__(self, name: str, command: str, env: dict[str, str]) -> None:
        self.name = name
        exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
        subprocess.run(
            [str(TMUX), "new-session", "-d", "-s", name, "-x", "120", "-y", "40",
             f"env {exports} {command}; sleep 60"],
            check=True,
        )  # fmt: skip

    def keys(self, *keys: str) -> None:
        subprocess.run([str(TMUX), "send-keys", "-t", self.name, *keys], check=True)

    def screen(self) -> str:
        return subprocess.run(
            [str(TMUX), "capture-pane", "-p", "-t", self.name],
            check=True, capture_output=True, text=True,
        ).stdout  # fmt: skip

    def wait_for(self, text: str, seconds: float = 60.0, anywhere: bool = False) -> str:
        """The screen once its last lines (or, ``anywhere``, any line) show ``text``."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            screen = self.screen()
            shown = "\n".join(line for line in screen.splitlines() if line.strip())
            if text in (shown if anywhere else shown[-600:]):
                return screen
            time.sleep(0.2)
        raise AssertionError(f"{text!r} never showed; the screen:\n{self.screen()}")

    def close(self) -> None:
        subprocess.run([str(TMUX), "kill-session", "-t", self.name], check=False)


@pytest.fixture
def slow_models() -> Iterator[dict[str, str]]:
    """The scripted patient and environment behind an OpenAI-compatible server, each answer
    after a second; the environment for the ``openai-api`` provider to reach it."""
    with scripted_server(Ledger(), latency=1.0) as url:
        yield {f"{SERVICE.upper()}_BASE_URL": url, f"{SERVICE.upper()}_API_KEY": "local"}


def test_ctrl_c_on_the_full_screen_display_while_the_models_work_stops_that_case_only(
    tmp_path: Path, slow_models: dict[str, str]
) -> None:
    logs = tmp_path / "logs"
    command = " ".join(
        [
            str(BIN / "inspect"), "eval", "inspect_medsp/medsp_demo", "--model", "medsp/human/t",
            "-T", "judge=medsp/scripted", "--limit", "2", "--max-samples", "1",
            "--model-role", f"patient=openai-api/{SERVICE}/patient",
            "--model-role", f"environment=openai-api/{SERVICE}/environment",
            "--log-dir", str(logs), "--display", "full",
        ]
    )  # fmt: skip
    env = {**slow_models, "HOME": str(tmp_path), "PATH": os.environ.get("PATH", "")}
    pane = Pane(f"medsp-chair-{os.getpid()}", command, env)
    try:
        pane.wait_for("Press Enter to open the case.", 120)
        pane.keys("Enter")
        pane.wait_for("Say (Enter: nothing):")
        for key in ("Hello.", "", "n"):
            if key:
                pane.keys("-l", key)
            pane.keys("Enter")
            time.sleep(0.3)
        time.sleep(0.5)  # the patient is answering (one second)
        pane.keys("C-c")
        asked = pane.wait_for("Stop this encounter? It is then not scored. (y/N)")
        assert "Ctrl-C: the patient and environment are answering your turn 1." in asked
        pane.keys("y", "Enter")
        ended = pane.wait_for("Press Enter to go on.")
        assert "Ctrl-C while the models answered it" in " ".join(ended.split())
        pane.keys("Enter")
        pane.wait_for("Press Enter to open the case.")  # the next case
        pane.keys("Enter")
        pane.wait_for("Say (Enter: nothing):")
        pane.keys("-l", "/stop")
        pane.keys("Enter")
        pane.wait_for("Press Enter to go on.")
        pane.keys("Enter")
        pane.wait_for("MedSP: re-run the 2 encounters that did not finish", anywhere=True)
    finally:
        pane.close()

    [path] = logs.glob("*.eval")
    log = read_eval_log(str(path))
    assert log.status == "success" and log.samples is not None and len(log.samples) == 2
    first = Trajectory(store=Store(log.samples[0].store))
    assert first.end == "cancelled" and "Ctrl-C while the models answered it" in first.end_reason
    stop = PersonStop.of(Store(log.samples[0].store))
    assert stop is not None and (stop.during, stop.speak, stop.sent) == ("models", "Hello.", True)
    assert Trajectory(store=Store(log.samples[1].store)).end_reason.endswith("(typed /stop)")
