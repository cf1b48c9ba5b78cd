"""The terminal under the questions: reading one line through readline, and printing as is.

On a terminal with readline, a question reads through it (line editing, a line to edit put
on it first, a paste of several lines as one answer with bracketed paste), with the prompt the
console printed known to readline, and the output switched back to the terminal itself for
the read when a live display redirects it. Without a terminal or readline, the line is read
as the console reads it. Ctrl-C at the questions is ``keys.py``'s; the questions themselves
are ``form.py``'s.
"""

from __future__ import annotations

import builtins
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.markup import escape

_ESCAPE = re.compile(r"(\x1b\[[0-9;]*m)")
"""A colour code in a printed prompt."""


def show(console: Console, text: str) -> None:
    """Print ``text`` as it is (no console markup read from it), wrapped between words."""
    console.print(escape(text), highlight=False)


def typed_line(console: Console, prompt: str, prefill: str = "") -> str:
    """What is typed (or pasted, several lines at once) after ``prompt`` (console markup), as
    the console reads it; ``prefill`` is put on the line to edit first (with readline;
    without it, shown above the prompt to type again).

    Raises:
        EOFError: The input ended.
    """
    with _terminal_output(), _prompt_known_to_readline(console, prompt):
        bracketed_paste()
        with _prefilled(prefill) as kept:
            if not kept and prefill:
                show(console, f"(what you had typed: {prefill})")
            return console.input(prompt)


def ended(console: Console, line: str) -> str:
    """``line`` as read, less its final newline; an empty line's own newline printed.

    Readline, given a prompt the console printed itself, does not end an empty line with a
    newline on a terminal, so that the next question would follow on the same line; the
    newline is printed here instead."""
    if not line and "readline" in sys.modules and _on_terminal():
        console.print("")
    return line.rstrip("\n")


def line_typed() -> str:
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
