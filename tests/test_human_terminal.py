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
from inspect_medsp.record import PersonStop

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


def demo_command(logs: Path, display: str, *extra: str) -> str:
    return " ".join(
        [
            str(BIN / "inspect"), "eval", "inspect_medsp/medsp_demo", "--model", "medsp/human/t",
            "-T", "judge=medsp/scripted", "--limit", "1", "--max-samples", "1",
            "--model-role", f"patient=openai-api/{SERVICE}/patient",
            "--model-role", f"environment=openai-api/{SERVICE}/environment",
            "--log-dir", str(logs), "--display", display, *extra,
        ]
    )  # fmt: skip


@pytest.mark.parametrize("display", ["full", "rich"])
def test_the_chair_hides_the_title_and_keeps_a_line_typed_before_ctrl_c(
    tmp_path: Path, slow_models: dict[str, str], display: str
) -> None:
    """The header names no case (a model is never told its title), only the stage as the
    model reads it. A line typed and not entered when Ctrl-C comes: Enter (go on) gives the
    same question back with the line on it; y (stop) keeps it as typed, not sent, on the
    end screen and in the log."""
    logs = tmp_path / "logs"
    env = {**slow_models, "HOME": str(tmp_path), "PATH": os.environ.get("PATH", ""),
           "PYTHONPATH": os.environ.get("PYTHONPATH", "")}  # fmt: skip
    pane = Pane(f"medsp-typed-{display}-{os.getpid()}", demo_command(logs, display), env)
    try:
        pane.wait_for("Press Enter to open the case.", 120)
        pane.keys("Enter")
        first = pane.wait_for("Say (Enter: nothing):")
        assert "Current stage: initial_assessment" in first
        assert "wasp sting ·" not in first and "stage 1:" not in first
        pane.keys("-l", "half typed")
        time.sleep(0.3)
        pane.keys("C-c")
        pane.wait_for("Stop this encounter? It is then not scored. (y/N)")
        pane.keys("Enter")
        pane.wait_for("Going on with the encounter (what you had typed is kept on")
        # the question comes back with the line on it (drawn a moment after the words above)
        again = pane.wait_for("Say (Enter: nothing): half typed")
        assert again.rstrip().splitlines()[-1].endswith("Say (Enter: nothing): half typed")
        pane.keys("-l", ", then more")
        pane.keys("Enter")
        for key in ("", "n"):
            time.sleep(0.3)
            if key:
                pane.keys("-l", key)
            pane.keys("Enter")
        pane.wait_for("turn 2", 60, anywhere=True)
        pane.wait_for("Say (Enter: nothing):")
        pane.keys("-l", "second thoughts")
        time.sleep(0.3)
        pane.keys("C-c")
        pane.wait_for("Stop this encounter? It is then not scored. (y/N)")
        pane.keys("y", "Enter")
        ended = " ".join(pane.wait_for("Press Enter to go on.").split())
        assert "Typed, not sent (you had not pressed Enter; kept in the log): second thoughts" in (
            ended
        )
        pane.keys("Enter")
        pane.wait_for("MedSP: re-run the 1 encounter", anywhere=True)
    finally:
        pane.close()

    [path] = logs.glob("*.eval")
    log = read_eval_log(str(path))
    assert log.samples is not None
    traj = Trajectory(store=Store(log.samples[0].store))
    assert traj.turns[0].clinician.speak == "half typed, then more"
    stop = PersonStop.of(Store(log.samples[0].store))
    assert stop is not None and (stop.turn, stop.unsent) == (2, "second thoughts")


def test_a_persons_wrong_setup_is_refused_in_the_terminal_before_any_case(
    tmp_path: Path, slow_models: dict[str, str]
) -> None:
    """In the terminal itself, before any case is shown: the scripted judge on cases it has
    no script for (the 100-case task on a local tree; it used to fail after the person's
    first turn with a traceback), and two variants for a person. One line each, exit 1."""
    from tests.test_human_chair import hub_tree

    data, upstream = hub_tree(tmp_path)
    env = {**slow_models, "HOME": str(tmp_path), "PATH": os.environ.get("PATH", ""),
           "PYTHONPATH": os.environ.get("PYTHONPATH", "")}  # fmt: skip
    wrong_judge = " ".join(
        [
            str(BIN / "inspect"), "eval", "inspect_medsp/medsp100", "--model",
            "medsp/human/cand03", "-T", "judge=medsp/scripted", "--max-samples", "1",
            "--no-score", "-T", f"data_dir={data}", "-T", f"upstream_dir={upstream}",
            "--log-dir", str(tmp_path / "logs"),
        ]
    )  # fmt: skip
    variants = demo_command(tmp_path / "logs", "full", "-T", "variants=baseline,anxious")
    for name, command, said in (
        ("judge", wrong_judge, "medsp/scripted cannot play 2 cases of MedSP-Q100"),
        ("variants", variants, "task parameter variants=baseline,anxious is not accepted"),
    ):
        pane = Pane(f"medsp-refused-{name}-{os.getpid()}", command + "; echo EXIT=$?", env)
        try:
            screen = " ".join(pane.wait_for("EXIT=", 120).split())
        finally:
            pane.close()
        assert said in screen, screen
        assert "Traceback" not in screen and "Say (Enter: nothing)" not in screen
        assert "Press Enter" not in screen and "EXIT=1" in screen
    assert not list((tmp_path / "logs").glob("*.eval"))
