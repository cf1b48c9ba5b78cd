"""Ctrl-C in a person's case at any moment: at a question, while the models answer their
turn, and while the encounter is graded.

Inspect's event loop cancels the whole run on Ctrl-C; a person spends most of a case waiting
on the models, so there it would end the run without a word, the next cases unplayed. While a
person's case runs (from their first question to the end of its debrief) the chair holds
Ctrl-C instead. At a question the form asks (``form.py``; the press itself, ``keys.py``).
Anywhere else the press is taken at once, on the event loop between two of its steps: the
screen names what is running and asks whether to stop it. Stopping while the models work
ends this encounter only (the run goes on to the next case): the Trajectory is ended
``cancelled`` by the person, what they had typed of the turn is kept (``record/stop.py``), and
Inspect is asked to go on to scoring, which leaves an unfinished encounter unscored.
Stopping during grading ends the grading only: the encounter is kept and left ungraded, with
the ``inspect score`` command that grades it. When the screen cannot ask, the press stops the
encounter (or the grading) without asking, never the run.
"""

from __future__ import annotations

import asyncio
import contextvars
import signal
import threading
from dataclasses import dataclass
from types import FrameType
from typing import Any

from inspect_ai.util import Store, input_screen, store
from rich.console import Console

from inspect_medsp._inspect import awaiting_human, display, sample_active
from inspect_medsp.human.form import confirms
from inspect_medsp.human.keys import press_at_the_next_question
from inspect_medsp.human.terminal import show
from inspect_medsp.record import (
    ClinicianReply,
    GradingRegion,
    PersonStop,
    Trajectory,
    grading_of,
)
from inspect_medsp.templates import render

PACKAGE = "inspect_medsp.human"


@dataclass
class Seat:
    """A person's case while it runs: what a Ctrl-C may stop, and where to say so."""

    model: str
    """The person's model name, ``medsp/human[/<name>]``."""
    loop: asyncio.AbstractEventLoop
    context: contextvars.Context
    """The sample's context (its transcript and screen), for asking on the loop."""
    sample: Any
    """The running sample (Inspect's ``ActiveSample``), which a stop interrupts."""
    store: Store
    previous: Any
    """The Ctrl-C handler before the seat was taken, given back when it is left."""
    turn: int = 0
    """The turn last asked."""
    sent: ClinicianReply | None = None
    """The person's answer to that turn, once sent to the models."""
    sent_seconds: float | None = None
    """The person's time on that turn, from its question to sending it."""
    asking: bool = False
    stopped: bool = False
    """The person stopped the encounter while the models answered (Inspect is ending it)."""
    app: Any = None
    """Inspect's full-screen display, whose Ctrl-C key the seat holds (None: another
    display, where Ctrl-C is the signal)."""


_SEAT: Seat | None = None


def take_seat(model: str, turn: int) -> None:
    """Hold Ctrl-C for the running sample, asked for ``turn`` (called at each question, on
    the event loop's thread). Nothing changes outside the main thread or an asyncio loop."""
    global _SEAT
    active = sample_active()
    if _SEAT is not None and _SEAT.sample is active and active is not None:
        _SEAT.turn, _SEAT.sent, _SEAT.sent_seconds = turn, None, None
        if _SEAT.asking:
            # pressed as the models finished: the question scheduled for it would come only
            # after this turn's questions, so the first of them takes the press instead
            _SEAT.asking = False
            press_at_the_next_question()
        return
    leave_seat()
    if threading.current_thread() is not threading.main_thread():
        return
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return
    previous = signal.getsignal(signal.SIGINT)
    _SEAT = Seat(model, loop, contextvars.copy_context(), active, store(), previous, turn)
    signal.signal(signal.SIGINT, _on_ctrl_c)
    _SEAT.app = _hold_the_apps_ctrl_c()


def stopped_while_the_models_answered() -> bool:
    """Whether the person stopped the running sample's encounter while the models answered
    their turn: no further question is asked of it."""
    active = sample_active()
    return _SEAT is not None and _SEAT.stopped and _SEAT.sample is active


def answered(reply: ClinicianReply, seconds: float | None = None) -> None:
    """The person's answer to the turn asked was sent to the models, after ``seconds`` at
    its questions."""
    if _SEAT is not None:
        _SEAT.sent, _SEAT.sent_seconds = reply, seconds


def leave_seat() -> None:
    """Give Ctrl-C back to the handler that had it (at the end of the case's debrief)."""
    global _SEAT
    seat, _SEAT = _SEAT, None
    if seat is None:
        return
    if signal.getsignal(signal.SIGINT) is _on_ctrl_c:
        previous = seat.previous if seat.previous is not None else signal.SIG_DFL
        signal.signal(signal.SIGINT, previous)
    if seat.app is not None and "action_quit" in vars(seat.app):
        del seat.app.action_quit


def _hold_the_apps_ctrl_c() -> Any:
    """Inspect's full-screen display (``--display full`` on a terminal) reads the keyboard
    itself while the models work, and its Ctrl-C key (the action ``quit``) cancels the run,
    not a signal. While the seat is taken, that key does what the signal does here. Returns
    the display's app, or None for a display without one."""
    app = getattr(display(), "app", None)
    if app is None or not callable(getattr(app, "action_quit", None)):
        return None

    async def action_quit() -> None:
        _on_ctrl_c(signal.SIGINT, None)

    app.action_quit = action_quit
    return app


def _on_ctrl_c(signum: int, frame: FrameType | None) -> None:
    """Ctrl-C while a person's case runs and no question waits: ask on the event loop as
    soon as it is between two steps (never here, in the middle of whatever was running)."""
    seat = _SEAT
    if seat is None or seat.loop.is_closed():
        raise KeyboardInterrupt
    if seat.asking:
        return
    seat.asking = True
    seat.loop.call_soon_threadsafe(_ask, seat, context=seat.context)


def _ask(seat: Seat) -> None:
    if not seat.asking:
        return  # a question of the turn took the press
    try:
        try:
            with awaiting_human("question"), input_screen() as console:
                if console.quiet:
                    raise RuntimeError("the screen is quiet")
                pressed(seat, console)
        except RuntimeError:
            _stop_without_asking(seat)
    finally:
        seat.asking = False


def pressed(seat: Seat, console: Console) -> None:
    """What a Ctrl-C does, asked on ``console``: stop the grading, the encounter, or
    nothing (the case is past both)."""
    grading = grading_of(seat.store)
    traj = Trajectory(store=seat.store)
    console.rule(f"MedSP encounter · {seat.model.rpartition('/')[2]} · Ctrl-C")
    if grading is not None and not grading.stopped:
        show(console, render("ctrl_c_grading", package=PACKAGE))
        if confirms(console, render("stop_grading_question", package=PACKAGE)):
            stop_grading(seat, grading)
            show(console, render("grading_stopped", package=PACKAGE))
        else:
            show(console, "Going on with the grading.")
    elif traj.end == "running":
        show(console, render("ctrl_c_models", package=PACKAGE, turn=seat.turn))
        if confirms(console, render("stop_question", package=PACKAGE)):
            stop_encounter(seat)
            show(console, render("models_stopped", package=PACKAGE, turn=seat.turn))
        else:
            show(console, f"Going on: the models are still answering your turn {seat.turn}.")
    else:
        show(console, render("ctrl_c_nothing", package=PACKAGE))


def stop_encounter(seat: Seat) -> None:
    """End the running encounter as stopped by the person while the models answered their
    turn, keep that turn as they sent it, and have Inspect go on to scoring (which leaves it
    unscored) and then to the next case."""
    traj = Trajectory(store=seat.store)
    if traj.end == "running":
        done = traj.turn_count
        traj.end = "cancelled"
        traj.end_reason = (
            f"{seat.model} stopped the encounter at turn {seat.turn} (Ctrl-C while the models "
            f"answered it; {done} turn{'' if done == 1 else 's'} completed)"
        )
    seat.stopped = True
    sent = seat.sent
    PersonStop(
        turn=seat.turn,
        during="models",
        how="Ctrl-C",
        speak=sent.speak if sent else "",
        actions=list(sent.actions) if sent else [],
        sent=sent is not None,
        seconds=seat.sent_seconds if sent is not None else None,
    ).save(seat.store)
    if seat.sample is not None:
        seat.sample.interrupt("score")


def stop_grading(seat: Seat, grading: GradingRegion) -> None:
    """End the grading (the encounter is kept whole, ungraded) and record the stop in the
    sample's store, as a stop during the encounter is (``medsp_human_stop``)."""
    grading.stop()
    PersonStop(
        turn=Trajectory(store=seat.store).turn_count,
        during="grading",
        how="Ctrl-C",
        sent=True,
    ).save(seat.store)


def _stop_without_asking(seat: Seat) -> None:
    """No screen to ask on: a press stops the grading, else the encounter; never the run."""
    grading = grading_of(seat.store)
    if grading is not None:
        stop_grading(seat, grading)
    elif Trajectory(store=seat.store).end == "running":
        stop_encounter(seat)
