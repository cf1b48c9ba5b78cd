"""The questions a person answers each turn, on Inspect's console input screen.

One turn: what they say (one line), their actions (one per line, an empty line ends them) and
whether the stage is done. ``/history`` at the Say prompt shows the case so far again;
``/stop`` (or the end of the input) stops the encounter.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from rich.console import Console
from rich.markup import escape

from inspect_medsp.record.replies import ClinicianReply
from inspect_medsp.templates import render

HISTORY = "/history"
STOP = "/stop"
YES = frozenset({"y", "yes"})
NO = frozenset({"", "n", "no"})
MAX_ACTIONS = 50
"""More actions in one turn than anyone types by hand: the rest of the input is not actions."""


@dataclass(frozen=True)
class Stopped:
    """The person stopped the encounter, and how."""

    how: str


def how_to_answer() -> str:
    """The instructions shown once, at the start of an encounter."""
    return render("how_to_answer", package="inspect_medsp.human")


def show(console: Console, text: str) -> None:
    """Print ``text`` as it is (no console markup read from it), wrapped between words."""
    console.print(escape(text), highlight=False)


def ask_turn(console: Console, history: Callable[[], str]) -> ClinicianReply | Stopped:
    """Ask for one turn.

    Args:
        console: The input screen's console.
        history: The whole case so far, shown on ``/history``.

    Returns:
        The turn, or :class:`Stopped` when the person typed ``/stop`` or the input ended.
    """
    try:
        while True:
            speak = console.input("[bold]Say[/bold] (Enter: nothing): ").strip()
            if speak == STOP:
                return Stopped("typed /stop")
            if speak != HISTORY:
                break
            show(console, history())
            console.print("")
        actions: list[str] = []
        while len(actions) < MAX_ACTIONS:
            line = console.input(
                "[bold]Action[/bold] (empty line: no more): "
                if actions or speak
                else "[bold]Action[/bold] (one per line; empty line: none): "
            ).strip()
            if not line:
                break
            actions.append(line)
        while True:
            done = console.input("[bold]Stage done?[/bold] y/N: ").strip().lower()
            if done in YES or done in NO:
                break
            console.print("Please answer y or n (Enter is n).")
    except EOFError:
        return Stopped("the input ended")
    return ClinicianReply(speak=speak, actions=actions, eos=done in YES)
