"""A task of "another package" for the tests: it takes its own ``-T difficulty`` and
``-T note`` and answers its one sample itself (it calls no model, whatever ``--model`` is)."""

from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput
from inspect_ai.scorer import match
from inspect_ai.solver import Generate, Solver, TaskState, solver


@solver
def say(word: str) -> Solver:
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        state.output = ModelOutput.from_content(model="none", content=word)
        return state

    return solve


@task
def other_package_task(difficulty: str = "easy", note: str | None = None) -> Task:
    return Task(
        dataset=[Sample(input=f"Say {difficulty}.", target=difficulty)],
        solver=say(difficulty),
        scorer=match(),
        metadata={"note": note},
    )
