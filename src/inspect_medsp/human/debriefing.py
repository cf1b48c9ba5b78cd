"""After a person's encounter: how it ended and, in practice mode, the examiner's checklist.

It runs as the task's ``cleanup``, after scoring, on the same console input screen. For a
person (``medsp/human``) it shows what a clinician model is told when the encounter ends (or
why it was stopped and that it is not scored), with ``feedback`` the checklist with ✓ and ✗
and, for each item, the evidence as the person's own words or action with the turn (or whose
line the grader quoted, see ``evidence.py``), a note when the grader is the scripted demo's
script, and where the full transcript is; then it waits for Enter. For a model clinician it
shows nothing.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable

from inspect_ai.log import transcript
from inspect_ai.model import ChatMessageUser
from inspect_ai.scorer import Score
from inspect_ai.solver import TaskState
from inspect_ai.util import input_screen
from rich.console import Console
from rich.markup import escape

from inspect_medsp._inspect import sample_active
from inspect_medsp.human.chair import leave_seat
from inspect_medsp.human.evidence import told
from inspect_medsp.human.keys import ctrl_c_at_the_prompt, read_line
from inspect_medsp.human.terminal import show
from inspect_medsp.human.view import for_person
from inspect_medsp.preflight import is_person, person_name
from inspect_medsp.record import (
    GRADING_STOPPED,
    PersonStop,
    ScoreMetadata,
    Trajectory,
    encounter_lines,
    regrade_command,
)
from inspect_medsp.templates import render

SCORER = "medsp_rubric"
PACKAGE = "inspect_medsp.human"
SCRIPTED_GRADER = "medsp/scripted"
"""The scripted demo's provider: as the grader it marks items by hand-written phrases."""

Cleanup = Callable[[TaskState], Awaitable[None]]


def debrief(feedback: bool) -> Cleanup:
    """The task's cleanup: the end of the encounter for a person, the checklist if asked.

    Args:
        feedback: Practice mode: show the checklist after grading.
    """

    async def cleanup(state: TaskState) -> None:
        clinician = str(state.model)
        if not is_person(clinician):
            if feedback:
                transcript().info(
                    "feedback=true shows the checklist to a person (--model medsp/human); "
                    f"the clinician here is {clinician}: read it in inspect view"
                )
            return
        try:
            show_ending(state, feedback)
        finally:
            leave_seat()

    return cleanup


def show_ending(state: TaskState, feedback: bool) -> None:
    """The end of a person's case on the input screen: how it ended, what they had typed
    when they stopped, their time, an ungraded encounter's grading command, and the
    checklist in practice mode; then it waits for Enter."""
    person = person_name(str(state.model).partition("/")[2])
    score = (state.scores or {}).get(SCORER)
    traj = Trajectory(store=state.store)
    with input_screen() as console:
        if console.quiet:
            return
        console.rule(f"MedSP encounter · {person} · the end")
        show(console, ending(state))
        stop = PersonStop.of(state.store)
        if stop is not None and not traj.complete:
            show(console, typed_when_stopped(stop))
        times = your_time(traj, stop)
        if times:
            console.print("")
            show(console, times)
        ungraded = score is not None and ScoreMetadata.read(score.metadata).unscored
        if traj.complete and ungraded == GRADING_STOPPED:
            console.print("")
            command = regrade_command(log_location() or "LOG", scored=True)
            grade = render("debrief_ungraded", package=PACKAGE, command=command)
            console.print(escape(grade), soft_wrap=True, highlight=False)
        # a stopped encounter's ending already says it is not scored
        elif feedback and score is not None and traj.complete:
            console.print("")
            show_checklist(console, score, traj)
            console.print("")
            # one line, however long the path: the terminal wraps it and it copies whole
            where = render("debrief_where", package=PACKAGE, log=log_location())
            console.print(escape(where), soft_wrap=True, highlight=False)
        console.print("")
        go_on(console)


def go_on(console: Console) -> None:
    """Wait for Enter at the end of a case. Ctrl-C there is said, not taken silently: the
    case is over and kept, and Enter (or a second Ctrl-C) goes on to the next case."""
    prompt = "Press Enter to go on. "
    with contextlib.suppress(EOFError, KeyboardInterrupt), ctrl_c_at_the_prompt():
        try:
            read_line(console, prompt)
        except KeyboardInterrupt:
            console.print("")
            show(console, render("ctrl_c_at_the_end", package=PACKAGE))
            read_line(console, prompt)


def typed_when_stopped(stop: PersonStop) -> str:
    """What the person had typed of the turn they stopped in, as the log keeps it: what they
    had entered (or sent), and a line typed and not entered (typed, not sent)."""
    lines: list[str] = []
    if stop.speak or stop.actions:
        head = (
            f"Your turn {stop.turn}, sent before you stopped (kept in the log, not scored):"
            if stop.sent
            else f"What you had typed of turn {stop.turn} (kept in the log, not sent or scored):"
        )
        lines += [head, f"Say: {stop.speak or '(nothing)'}"]
        lines += [f"Action: {a}" for a in stop.actions]
    if stop.unsent:
        lines.append(f"Typed, not sent (you had not pressed Enter; kept in the log): {stop.unsent}")
    return "\n".join(lines) or f"You had typed nothing of turn {stop.turn}."


def your_time(traj: Trajectory, stop: PersonStop | None = None) -> str:
    """The person's thinking time on each recorded turn, the turn they stopped in (``stop``,
    when the encounter was stopped in a turn) and in all (empty with none)."""
    seconds = [t.clinician_seconds for t in traj.turns]
    if any(s is None for s in seconds):
        return ""
    parts = [f"turn {i} {clock(s or 0.0)}" for i, s in enumerate(seconds, 1)]
    stopped = stop.seconds if stop is not None and stop.during != "grading" else None
    if stopped is not None and stop is not None and stop.turn > len(seconds):
        parts.append(f"turn {stop.turn} (stopped) {clock(stopped)}")
    if not parts:
        return ""
    total = clock(sum(s or 0.0 for s in seconds) + (stopped or 0.0))
    return (
        f"Your time: {total} in all ({', '.join(parts)}); only your own time at the questions, "
        "not the models'."
    )


def clock(seconds: float) -> str:
    """Seconds as ``m:ss``."""
    whole = round(seconds)
    return f"{whole // 60}:{whole % 60:02d}"


def ending(state: TaskState) -> str:
    """How the encounter ended, as the person reads it: the clinician's closing message, or
    why it was cut short."""
    traj = Trajectory(store=state.store)
    if not traj.complete:
        template = "debrief_error" if traj.end == "error" else "debrief_stopped"
        return render(template, package=PACKAGE, end_reason=traj.end_reason or traj.end)
    last = state.messages[-1] if state.messages else None
    if isinstance(last, ChatMessageUser):
        return for_person(last)
    return traj.end_reason


def show_checklist(console: Console, score: Score, traj: Trajectory) -> None:
    """The checklist with ✓ and ✗, each item's evidence told as the person's own words or
    action with the turn, or why there is none."""
    metadata = ScoreMetadata.read(score.metadata)
    if metadata.unscored is not None:
        show(console, str(score.explanation or metadata.unscored))
        return
    overall = metadata.counts.get("overall")
    percent = f"{overall.completed / overall.total:.0%}" if overall and overall.total else "-"
    by_competency = ", ".join(
        f"{name} {c.completed}/{c.total}"
        for name, c in metadata.counts.items()
        if name != "overall" and c.total
    )
    summary = render(
        "debrief_feedback",
        package=PACKAGE,
        answer=score.answer or "",
        percent=percent,
        by_competency=by_competency,
    )
    show(console, summary)
    if metadata.grader == SCRIPTED_GRADER:
        console.print("")
        show(console, render("debrief_scripted", package=PACKAGE))
    lines = encounter_lines(traj)
    current = ""
    for item in metadata.items:
        if item.competency != current:
            current = item.competency
            console.print("")
            console.print(escape(current), style="bold", highlight=False)
        mark = "✓" if item.met else ("✗" if item.judged else "? (no verdict)")
        mark = "⚠ (conflicting verdicts, counted ✗)" if item.conflict else mark
        show(console, f"{mark} [{item.number}] {item.text}")
        evidence = told(item.evidence, lines) if item.met else ""
        if evidence:
            console.print(escape(f"    {evidence}"), highlight=False)


def log_location() -> str:
    """The log file of the running sample (empty when unknown)."""
    active = sample_active()
    return str(active.log_location) if active is not None and active.log_location else ""
