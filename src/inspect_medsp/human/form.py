"""The questions a person answers each turn, on Inspect's console input screen.

One turn: what they say (one line), their actions (one per line, an empty line ends them) and
whether the stage is done. A line that starts with ``/`` is a command wherever it is typed
(``/help``, ``/history``, ``/stop``) and is never taken as words or an action; a command at
the end of a line is said to be part of the line. Ctrl-C at any question asks whether to stop
the encounter (pressed between two questions, it is taken at the next one); the end of the
input stops it. A paste of several lines is one answer to the question it is pasted at
(bracketed paste, which the questions turn on on a terminal that has it).
"""

from __future__ import annotations

import builtins
import re
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import FrameType

from rich.console import Console
from rich.markup import escape

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


def show(console: Console, text: str) -> None:
    """Print ``text`` as it is (no console markup read from it), wrapped between words."""
    console.print(escape(text), highlight=False)


class _Keys:
    """Ctrl-C at the questions: whether a question is reading now, and a press not yet
    taken (one made between two questions)."""

    reading = False
    pressed = False
    typed = ""
    """What was typed at the question Ctrl-C interrupted, not entered (readline's line)."""


def _at_the_prompt(signum: int, frame: FrameType | None) -> None:
    """Ctrl-C while the questions are asked: it interrupts the question that is reading, or
    is kept for the next question (never raised in the middle of printing one)."""
    if _Keys.reading:
        _Keys.typed = _line_typed()
        raise KeyboardInterrupt
    _Keys.pressed = True


def _line_typed() -> str:
    """The line being typed at the question now, not yet entered: readline's buffer, which
    still holds it while a Ctrl-C's handler runs (empty without readline, where the terminal
    itself drops the line on Ctrl-C)."""
    readline = sys.modules.get("readline")
    if readline is None or not _reads_with_readline():
        return ""
    try:
        return str(readline.get_line_buffer())
    except Exception:  # a readline without the call (libedit builds may lack it)
        return ""


def typed_at_the_question() -> str:
    """What the last Ctrl-C at a question found typed and not entered (then forgotten)."""
    typed, _Keys.typed = _Keys.typed, ""
    return typed.strip("\r\n")


@contextmanager
def ctrl_c_at_the_prompt() -> Iterator[None]:
    """While questions are asked, Ctrl-C interrupts the question (``KeyboardInterrupt``) at
    once: the one reading, or else the next.

    Outside these, the handler in force (the chair's, see ``chair.py``, or the event loop's,
    which cancels the run) is restored; a press not taken by a question when the block ends
    is passed on to it. Outside the main thread (no signal handling) nothing changes.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, _at_the_prompt)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous if previous is not None else signal.SIG_DFL)
        if _Keys.pressed:
            _Keys.pressed = False
            if callable(previous):
                previous(signal.SIGINT, None)


def press_at_the_next_question() -> None:
    """A Ctrl-C pressed before the questions began: the first of them takes it."""
    _Keys.pressed = True


def read_line(console: Console, prompt: str, prefill: str = "") -> str:
    """What is typed (or pasted, several lines at once) after ``prompt`` (console markup),
    without its final newline; ``prefill`` is put on the line to edit first (with readline;
    without it, shown above the prompt to type again).

    Readline, given a prompt the console printed itself, does not end an empty line with a
    newline on a terminal, so that the next question would follow on the same line; the
    newline is printed here instead.

    Raises:
        EOFError: The input ended.
        KeyboardInterrupt: Ctrl-C (inside :func:`ctrl_c_at_the_prompt`), now or since the
            last question.
    """
    if _Keys.pressed:
        _Keys.pressed, _Keys.typed = False, ""
        raise KeyboardInterrupt
    _Keys.reading = True
    try:
        with _terminal_output(), _prompt_known_to_readline(console, prompt):
            bracketed_paste()
            with _prefilled(prefill) as kept:
                if not kept and prefill:
                    show(console, f"(what you had typed: {prefill})")
                line = console.input(prompt)
    finally:
        _Keys.reading = False
    if not line and "readline" in sys.modules and _on_terminal():
        console.print("")
    return line.rstrip("\n")


@contextmanager
def _prefilled(text: str) -> Iterator[bool]:
    """Put ``text`` on the next line readline reads, to edit or enter as it is; yields
    whether it could (only with readline on the terminal)."""
    readline = sys.modules.get("readline")
    if not text or readline is None or not _reads_with_readline():
        yield False
        return

    def insert() -> None:
        readline.insert_text(text)

    readline.set_startup_hook(insert)
    try:
        yield True
    finally:
        readline.set_startup_hook(None)


_ESCAPE = re.compile(r"(\x1b\[[0-9;]*m)")


@contextmanager
def _prompt_known_to_readline(console: Console, prompt: str) -> Iterator[None]:
    """Give readline the prompt the console prints, so that it redraws a pasted answer of
    several lines below it instead of over it.

    The console prints the prompt itself (and Inspect records it) and then reads with an
    empty prompt; readline, taking the line to start at the left edge, would write the first
    pasted line over the prompt. Here the read goes back to the start of the line and
    readline prints the same prompt again, knowing its width (its colour codes marked as
    taking no room). Only on a terminal with readline."""
    if not _reads_with_readline():
        yield
        return
    with console.capture() as captured:
        console.print(prompt, end="")
    shown = _ESCAPE.sub("\x01\\1\x02", captured.get())
    original = builtins.input

    def with_prompt(ignored: object = "") -> str:
        sys.stdout.write("\r")
        return original(shown)

    builtins.input = with_prompt
    try:
        yield
    finally:
        builtins.input = original


@contextmanager
def _terminal_output() -> Iterator[None]:
    """While a question reads on a terminal, the output is the terminal itself, so that
    Python reads through readline (line editing, bracketed paste): a live display that
    redirects the output (Inspect's rich display) is bypassed for the question."""
    terminal = sys.__stdout__
    if (
        sys.stdout is terminal
        or terminal is None
        or not terminal.isatty()
        or not _on_terminal()
        or sys.stdin is not sys.__stdin__
    ):
        yield
        return
    redirected, sys.stdout = sys.stdout, terminal
    try:
        yield
    finally:
        sys.stdout = redirected


def _reads_with_readline() -> bool:
    """Whether ``input()`` reads through readline here: readline is loaded and the input and
    output are the terminal itself (a display that redirects the output, as Inspect's rich
    display does, makes Python read without it)."""
    return (
        "readline" in sys.modules
        and _on_terminal()
        and sys.stdin is sys.__stdin__
        and sys.stdout is sys.__stdout__
        and sys.__stdout__ is not None
        and sys.__stdout__.isatty()
    )


def bracketed_paste() -> None:
    """Have readline take a paste of several lines as one answer (Python turns bracketed
    paste off for its own prompt; a terminal without it sends the lines one by one)."""
    readline = sys.modules.get("readline")
    if readline is not None and _reads_with_readline():
        readline.parse_and_bind("set enable-bracketed-paste on")


def _on_terminal() -> bool:
    try:
        return sys.stdin.isatty()
    except (AttributeError, ValueError):
        return False


def drop_typeahead() -> None:
    """Forget keys typed before the question appeared (while the case was being played), so
    that an early Enter is not taken as an answer. Only on a terminal."""
    try:
        import termios

        if sys.stdin.isatty():
            termios.tcflush(sys.stdin.fileno(), termios.TCIFLUSH)
    except (ImportError, OSError, ValueError):
        return


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
