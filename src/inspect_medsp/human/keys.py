"""Ctrl-C at the questions, and reading one answer under it.

While questions are asked, Ctrl-C interrupts the question that is reading (``KeyboardInterrupt``
out of :func:`read_line`); pressed between two questions (the screen printing), it is kept and
taken at the next one, never raised in the middle of printing. What was typed at the
interrupted question and not entered is kept for the form to put back on the line. The line
itself is read by ``terminal.py``; what is asked, by ``form.py``.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

from rich.console import Console

from inspect_medsp.human.terminal import ended, line_typed, typed_line


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
        _Keys.typed = line_typed()
        raise KeyboardInterrupt
    _Keys.pressed = True


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
        line = typed_line(console, prompt, prefill)
    finally:
        _Keys.reading = False
    return ended(console, line)
