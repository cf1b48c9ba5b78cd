"""A task of "another package" for the tests: it takes its own ``-T difficulty`` and
``-T note``, and scores one sample with Inspect's mock model, whatever ``--model`` is."""

from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.scorer import match
from inspect_ai.solver import generate


@task
def other_package_task(difficulty: str = "easy", note: str | None = None) -> Task:
    return Task(
        dataset=[Sample(input=f"Say {difficulty}.", target=difficulty)],
        solver=generate(),
        scorer=match(),
        model="mockllm/model",
        metadata={"note": note},
    )
