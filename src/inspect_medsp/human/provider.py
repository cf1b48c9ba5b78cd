"""``medsp/human`` and ``medsp/human/<name>``: a person answers the clinician's turns.

Each call shows the person the clinician's messages they have not seen yet (the whole opening
on the first turn) on Inspect's console input screen, asks for the turn and returns it as the
clinician's JSON. Only the clinician's turns of the ``turns`` protocol can be played by a
person; any other call (patient, environment, grader, a strategy's prompts, tools) is refused
with one line saying what to bind instead.
"""

from __future__ import annotations

import json
import time
from typing import Any

import anyio
from inspect_ai.model import (
    ChatMessage,
    ChatMessageSystem,
    GenerateConfig,
    ModelOutput,
    ModelUsage,
)
from inspect_ai.tool import ToolChoice, ToolInfo
from inspect_ai.util import input_screen, store
from rich.console import Console
from rich.text import Text

from inspect_medsp._inspect import (
    TerminateSampleError,
    active_samples,
    awaiting_human,
    sample_active,
)
from inspect_medsp.calls import LocalModelAPI
from inspect_medsp.errors import MedSPDataError, PrerequisiteError
from inspect_medsp.human.chair import answered, stopped_while_the_models_answered, take_seat
from inspect_medsp.human.form import Stopped, ask_turn, how_to_answer, press_enter
from inspect_medsp.human.frame import case_position, case_title, turn_frame
from inspect_medsp.human.terminal import show
from inspect_medsp.human.view import (
    first_material,
    for_person,
    history,
    instructions,
    is_clinician_conversation,
    turn_number,
    unseen,
)
from inspect_medsp.preflight import person_name, person_name_problem
from inspect_medsp.record import ClinicianReply, PersonStop
from inspect_medsp.tokens import estimate_tokens

HUMAN_KEY = "medsp_human"
"""Where each reply's output metadata says a person wrote it, and who."""


def show_title(value: object) -> bool | None:
    """``-M title=...`` as a flag (None when it is not one): Inspect hands ``-M`` values
    over parsed as YAML, so ``true`` is a bool, but a string may come from Python."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false", "yes", "no"):
        return value.strip().lower() in ("true", "yes")
    return None


class NotForAPerson(MedSPDataError):
    """A person was asked to play something other than the clinician's turns."""


def door_note_again(console: Console, page: list[str]) -> None:
    """When the case's opening is taller than the screen, repeat its first file (the door
    note) right above the first question, so that it is on screen while answering."""
    rows = 2 + sum(len(console.render_lines(Text(text), console.options)) + 1 for text in page)
    note = first_material(page[-1]) if page else ""
    if rows <= console.height or not note:
        return
    console.rule("the first of your materials, again", style="dim")
    show(console, note)
    console.print("")


class HumanClinician(LocalModelAPI):
    """A person playing the clinician through Inspect's console input screen.

    One screen at a time (:meth:`max_connections` is 1); no tokens are counted.
    """

    def __init__(self, model_name: str, *args: Any, title: object = False, **kwargs: Any) -> None:
        super().__init__(model_name, *args, **kwargs)
        problem = person_name_problem(model_name)
        if problem:
            raise PrerequisiteError(problem)
        self.person = person_name(model_name)
        shown = show_title(title)
        if shown is None:
            raise PrerequisiteError(
                f"-M title={title!r} is not accepted for medsp/{model_name}: title takes true "
                "(practice: the case's title above each turn) or false (the default, as in "
                "an exam: a clinician model is never told the title)"
            )
        self.title = shown

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        self._check_seat(input, tools)
        turn = turn_number(input)
        if stopped_while_the_models_answered():
            # Inspect is ending the sample: take its cancellation here, before any question
            await anyio.lowlevel.checkpoint()
            raise TerminateSampleError(f"medsp/{self.model_name} stopped the encounter")
        take_seat(f"medsp/{self.model_name}", turn)
        frame = turn_frame(turn)
        title = f"MedSP encounter · {self.person} · {self._case()}turn {turn}"
        title += f" of {frame.limit}" if frame.limit else ""
        where = frame.where(case_title() if self.title else "")
        asked = time.monotonic()
        with awaiting_human("question"), input_screen() as console:
            if console.quiet:
                raise NotForAPerson(
                    f"medsp/{self.model_name} needs a screen: run without --display none"
                )
            answer: ClinicianReply | Stopped | None = None
            if turn == 1:
                answer = self._before_you_start(console, input)
            if answer is None:
                console.rule(title)
                console.print(where, style="bold", markup=False, highlight=False)
                changes = frame.changes()
                if changes:
                    show(console, changes)
                    console.print("")
                page = [
                    for_person(m) for m in unseen(input) if not isinstance(m, ChatMessageSystem)
                ]
                for text in page:
                    show(console, text)
                    console.print("")
                if turn == 1:
                    door_note_again(console, page)
                answer = ask_turn(console, lambda: history(input), instructions(input))
        if isinstance(answer, Stopped):
            PersonStop(
                turn=turn,
                during="question",
                how=answer.how,
                speak=answer.speak,
                actions=list(answer.actions),
                unsent=answer.unsent,
                seconds=time.monotonic() - asked,
            ).save(store())
            raise TerminateSampleError(
                f"medsp/{self.model_name} stopped the encounter at turn {turn} ({answer.how})"
            )
        answered(answer, time.monotonic() - asked)
        text = json.dumps(answer.model_dump(), ensure_ascii=False)
        output = ModelOutput.from_content(model=f"medsp/{self.model_name}", content=text)
        metadata: dict[str, Any] = {HUMAN_KEY: {"person": self.person, "turn": turn}}
        if self.title:
            metadata[HUMAN_KEY]["title_shown"] = True
        output.choices[0].message.metadata = dict(metadata)
        output.metadata = metadata
        output.usage = ModelUsage(input_tokens=0, output_tokens=0, total_tokens=0)
        return output

    def _check_seat(self, input: list[ChatMessage], tools: list[ToolInfo]) -> None:
        """A person plays the clinician of the turns protocol, one case at a time: anything
        else is refused in one line."""
        if tools:
            raise NotForAPerson(
                f"medsp/{self.model_name} plays protocol=turns only: drop -T protocol=tools"
            )
        if not is_clinician_conversation(input):
            raise NotForAPerson(
                f"medsp/{self.model_name} plays the clinician only, one answer a turn: bind "
                "the patient, environment and grader to a model (-T judge=... or --model-role) "
                "and leave -T strategy off"
            )
        self._one_case_at_a_time()

    def _before_you_start(self, console: Console, input: list[ChatMessage]) -> Stopped | None:
        """The instructions on a page of their own before the first turn, so that the case's
        materials end right above the first question."""
        console.rule(f"MedSP encounter · {self.person} · {self._case()}before you start")
        show(console, instructions(input))
        console.print("")
        console.rule(style="dim")
        show(console, how_to_answer())
        console.print("")
        return press_enter(console, "Press Enter to open the case. ")

    def _case(self) -> str:
        """``case N of M · `` for the running sample, empty when the run's size is unknown."""
        active = sample_active()
        if active is None:
            return ""
        position = case_position(active.eval_id, str(active.sample.id), active.epoch)
        return f"case {position[0]} of {position[1]} · " if position else ""

    def _one_case_at_a_time(self) -> None:
        """Refuse to ask while another case waits for the same person: their turns would
        interleave on one screen.

        Raises:
            NotForAPerson: Other samples of this person are running.
        """
        me = sample_active()
        others = [
            s for s in active_samples() if s is not me and s.model == f"medsp/{self.model_name}"
        ]
        if others:
            raise NotForAPerson(
                f"medsp/{self.model_name} takes one case at a time and {len(others) + 1} are "
                "running together: add --max-samples 1 (and run one task at a time)"
            )

    async def count_text_tokens(self, text: str) -> int:
        return estimate_tokens(text)

    def max_connections(self) -> int:
        return 1
