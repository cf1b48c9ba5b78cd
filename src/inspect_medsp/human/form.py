"""The questions a person answers each turn, on Inspect's console input screen.

One turn: what they say (one line), their actions (one per line, an empty line ends them) and
whether the stage is done. A line that starts with ``/`` is a command wherever it is typed
(``/help``, ``/history``, ``/stop``) and is never taken as words or an action; a command at
the end of a line is said to be part of the line. Ctrl-C at any question asks whether to stop
the encounter (pressed between two questions, it is taken at the next one); the end of the
input stops it. A paste of several lines is one answer to the question it is pasted at
(bracketed paste, which the questions turn on on a terminal that has it).

Ctrl-C's handling at the questions is ``keys.py``'s, and reading a line on the terminal
(readline, the prompt, bracketed paste) ``terminal.py``'s.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from rich.console import Console

from inspect_medsp.human.keys import ctrl_c_at_the_prompt, read_line, typed_at_the_question
from inspect_medsp.human.terminal import drop_typeahead, show
from inspect_medsp.record import ClinicianReply
from inspect_medsp.templates import render

PACKAGE = "inspect_medsp.human"
HELP = "/help"
HISTORY = "/history"
STOP = "/stop"
COMMANDS = (HELP, HISTORY, STOP)
YES = frozenset({"y", "yes"})
NO = frozenset({"", "n", "no"})
MAX_ACTIONS = 50
"""More actions in one turn than anyone types by hand: the rest of the input is not actions."""


_TRAILING_COMMAND = re.compile(r"\s(/[A-Za-z]+)\s*$")
"""A command word typed at the end of a line of words."""


@dataclass(frozen=True)
class Stopped:
    """The person stopped the encounter, and how; with what they had typed of the turn (and
    a line typed at the question and not entered: ``unsent``)."""

    how: str
    speak: str = ""
    actions: tuple[str, ...] = ()
    unsent: str = ""


class _Stop(Exception):
    """Raised inside a turn's questions when the person stops the encounter."""

    def __init__(self, how: str) -> None:
        super().__init__(how)
        self.how = how


def how_to_answer() -> str:
    """The instructions shown once, at the start of an encounter."""
    return render("how_to_answer", package=PACKAGE)


@dataclass
class TurnForm:
    """One turn's questions on ``console``; ``history`` gives the case so far."""

    console: Console
    history: Callable[[], str]
    instructions: str = ""
    """The clinician's instructions, which ``/help`` shows again before how to answer (the
    page they were on has scrolled away)."""
    speak: str = ""
    actions: list[str] = field(default_factory=list)
    unsent: str = ""
    """A line typed at the question when Ctrl-C came, not entered."""

    def ask(self, prompt: str, pasted: str = "") -> list[str]:
        """The answer to ``prompt``, its lines (none for an empty line; several when several
        were pasted at once, then ``pasted`` is said, its ``{n}`` the number of lines):
        commands are carried out and the question asked again.

        Raises:
            _Stop: The person stopped the encounter.
        """
        while True:
            try:
                typed = read_line(self.console, prompt, self.unsent)
            except KeyboardInterrupt:
                self.unsent = typed_at_the_question() or self.unsent
                self.console.print("")
                self._confirm_stop()
                continue
            except EOFError:
                raise _Stop("the input ended") from None
            self.unsent = ""
            lines = [line.strip() for line in typed.splitlines() if line.strip()]
            if len(lines) == 1 and lines[0].startswith("/"):
                self._command(lines[0])
                continue
            kept = self._checked(lines)
            if len(kept) > 1 and pasted:
                show(self.console, pasted.format(n=len(kept)))
            return kept

    def _checked(self, lines: list[str]) -> list[str]:
        """An answer's lines less any pasted line that starts with ``/`` (neither words nor
        an action), each said; a command at the end of a line is said to be part of it."""
        kept: list[str] = []
        for line in lines:
            if line.startswith("/"):
                show(self.console, render("pasted_command", package=PACKAGE, line=line))
                continue
            trailing = _TRAILING_COMMAND.search(line)
            if trailing and trailing.group(1).lower() in COMMANDS:
                show(
                    self.console,
                    render("trailing_command", package=PACKAGE, command=trailing.group(1)),
                )
            kept.append(line)
        return kept

    def _command(self, line: str) -> None:
        command = line.split()[0].lower()
        if command == STOP:
            raise _Stop("typed /stop")
        if command == HISTORY:
            show(self.console, self.history())
            so_far = self._so_far()
            if so_far:
                self.console.print("")
                show(self.console, so_far)
        elif command == HELP:
            if self.instructions:
                show(self.console, self.instructions)
                self.console.print("")
            show(self.console, how_to_answer())
        else:
            show(self.console, render("not_a_command", package=PACKAGE, line=line))
        self.console.print("")

    def _so_far(self) -> str:
        """What this turn has so far, when anything."""
        if not self.speak and not self.actions:
            return ""
        lines = ["This turn so far:", f"Say: {self.speak or '(nothing)'}"]
        lines += [f"Action: {a}" for a in self.actions]
        return "\n".join(lines)

    def _confirm_stop(self) -> None:
        """Ctrl-C: stop the encounter if the person says so, else go on with the question.

        Raises:
            _Stop: The person confirmed (or pressed Ctrl-C again, or the input ended).
        """
        try:
            answer = read_line(self.console, render("stop_question", package=PACKAGE) + " ")
        except (KeyboardInterrupt, EOFError):
            self.console.print("")
            raise _Stop("Ctrl-C") from None
        if answer.strip().lower() in YES:
            raise _Stop("Ctrl-C")
        kept = " (what you had typed is kept on the line)" if self.unsent else ""
        show(self.console, f"Going on with the encounter{kept}.")


def ask_turn(
    console: Console, history: Callable[[], str], instructions: str = ""
) -> ClinicianReply | Stopped:
    """Ask for one turn.

    Args:
        console: The input screen's console.
        history: The whole case so far, shown on ``/history``.
        instructions: The clinician's instructions, shown again on ``/help``.

    Returns:
        The turn, or :class:`Stopped` when the person typed ``/stop``, confirmed Ctrl-C or
        the input ended.
    """
    form = TurnForm(console, history, instructions)
    drop_typeahead()
    try:
        with ctrl_c_at_the_prompt():
            form.speak = " ".join(
                form.ask(
                    "[bold]Say[/bold] (Enter: nothing): ",
                    "(pasted: {n} lines, said as one answer; the next question is Action)",
                )
            )
            while len(form.actions) < MAX_ACTIONS:
                lines = form.ask(
                    "[bold]Action[/bold] (empty line: no more): "
                    if form.actions or form.speak
                    else "[bold]Action[/bold] (one per line; empty line: none): ",
                    "(pasted: {n} lines, {n} actions of this turn; an empty line ends them)",
                )
                if not lines:
                    break
                form.actions += lines[: MAX_ACTIONS - len(form.actions)]
            while True:
                answer = form.ask("[bold]Stage done?[/bold] y/N: ")
                done = answer[0].lower() if len(answer) == 1 else ""
                if len(answer) <= 1 and (done in YES or done in NO):
                    break
                console.print("Please answer y or n (Enter is n).")
    except _Stop as stop:
        return Stopped(stop.how, form.speak, tuple(form.actions), form.unsent)
    if done in YES:
        show(console, render("stage_done", package=PACKAGE).strip())
    return ClinicianReply(speak=form.speak, actions=form.actions, eos=done in YES)


def press_enter(console: Console, prompt: str) -> Stopped | None:
    """Wait for Enter (commands work here too); :class:`Stopped` when the person stops."""
    form = TurnForm(console, lambda: "")
    try:
        with ctrl_c_at_the_prompt():
            typed = form.ask(prompt)
    except _Stop as stop:
        return Stopped(stop.how, unsent=form.unsent)
    if typed:
        show(console, render("not_recorded", package=PACKAGE, line=" ".join(typed)))
    return None


def confirms(console: Console, question: str) -> bool:
    """Ask ``question`` (y/N) on ``console``: y, a second Ctrl-C or the end of the input is
    yes; anything else is no."""
    try:
        with ctrl_c_at_the_prompt():
            answer = read_line(console, question + " ")
    except (KeyboardInterrupt, EOFError):
        console.print("")
        return True
    return answer.strip().lower() in YES
