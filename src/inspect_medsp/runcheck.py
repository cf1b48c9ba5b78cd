"""Before anything runs: every model the eval will call can be made here, and a person sits
only where a person can be.

The task runs these checks when it is built, before any data is fetched or any encounter is
played, so each mistake is one line and a non-zero exit. What is checked depends on what is
known: loaded by Inspect for an eval (``inspect eval``, ``inspect eval-set``, ``eval()``,
``eval_set()``), the task knows the model under test, the roles bound with ``--model-role``
and the eval's options, concurrency and display; built directly in Python it knows only its
own parameters (and a non-default judge is still made at once).

No check waits for the first sample: on these four entry points every one runs at load. Where
the run's options cannot be read while the task loads (an Inspect release that moved the
function holding them, or another runner), the checks needing them warn once, in one line
naming them, and do not run; a person's second case running together is then still stopped
when it asks its first question (``human/provider.py``), as that sample's error.
"""

from __future__ import annotations

from typing import Protocol

from inspect_ai.util import display_type

from inspect_medsp.calls import DEFAULT_JUDGE
from inspect_medsp.errors import MedSPParameterError
from inspect_medsp.preflight import RunContext, is_person, unchecked

JUDGED_ROLES = ("patient", "environment", "grader")
"""The roles the ``judge`` model plays unless ``--model-role`` binds them."""
AUDITOR = "auditor"
"""The simulator audit's role (``-T audit=true``); unbound, it is played by the grader."""
PERSON_STRATEGIES = ("off", "single")
"""The strategies a person can play: one answer a turn."""


class RunChoices(Protocol):
    """What the checks read of the task parameters (``params.TaskParameters``)."""

    @property
    def judge(self) -> str: ...
    @property
    def strategy(self) -> str: ...
    @property
    def protocol(self) -> str: ...
    @property
    def feedback(self) -> bool: ...
    def switched(self, name: str) -> bool: ...
    @property
    def variants(self) -> list[str] | None: ...


def check_run(params: RunChoices, context: RunContext) -> None:
    """Refuse, in one line, a run that could not start or would put a person where a
    person cannot be; ``context`` is the load's (``preflight.context.run_context``).

    Raises:
        MedSPParameterError: A model that cannot be made here (its provider not installed,
            its key not set), a person outside the clinician's chair or in a setting a
            person cannot play, or ``feedback=true`` with no person.
    """
    given = context.task_args
    # an empty -T scenarios= arrives as an explicit None (a Python caller's None is its default)
    if context.loading and "scenarios" in given and given["scenarios"] is None:
        raise MedSPParameterError(
            "task parameter scenarios= (empty) is not accepted: scenarios takes scenario ids "
            "or globs, comma-separated, e.g. 'mededportal_100*/*' (omit it to run every "
            "scenario)"
        )
    refuse_reducers(context)
    clinician = context.model if context.loading else None
    if clinician is None:
        if params.judge != DEFAULT_JUDGE:
            require_judge(params.judge, JUDGED_ROLES, context)
        return
    roles = context.roles
    for role, bound in roles.items():
        if any(is_person(name) for name in bound.split(",")):
            raise MedSPParameterError(
                f"--model-role {role}={bound} is not accepted: a person plays the clinician "
                f"only (--model medsp/human or medsp/human/<name>); bind {role} to a model"
            )
    if is_person(clinician):
        check_person(clinician, params, context)
    elif params.feedback:
        raise MedSPParameterError(
            f"task parameter feedback=true is not accepted with --model {clinician}: it is "
            "practice mode for a person (--model medsp/human or medsp/human/<name>), who is "
            "shown the checklist; drop -T feedback (a model's checklist is in inspect view)"
        )
    unbound = [role for role in JUDGED_ROLES if role not in roles]
    if params.switched("audit") and AUDITOR not in roles and "grader" not in roles:
        unbound.append(AUDITOR)
    if unbound:
        require_judge(params.judge, tuple(unbound), context)


def refuse_reducers(context: RunContext) -> None:
    """Refuse an epoch reducer other than the tasks' own (``--epochs-reducer mean``): Inspect's
    reducers keep the first epoch's score metadata, where the item counts the metrics read
    are, so macro and micro would be the first epoch's alone.

    Raises:
        MedSPParameterError: Another reducer was given.
    """
    options = context.options if context.loading else None
    given = options.reducers if options is not None else None
    other = [name for name in given or () if name.rpartition("/")[2] != "epoch_mean"]
    if other:
        raise MedSPParameterError(
            f"--epochs-reducer {','.join(other)} is not accepted: the MedSP tasks average a "
            "scenario's epochs with their own reducer (inspect_medsp/epoch_mean), which keeps "
            "every epoch's item counts; Inspect's reducers keep the first epoch's only, so "
            "macro and micro would be the first epoch's. Drop --epochs-reducer"
        )


def require_judge(judge: str, roles: tuple[str, ...], context: RunContext) -> None:
    """Make the judge now, so a provider not installed or a key not set stops the load (once
    per load: ``context`` remembers the answer).

    Raises:
        MedSPParameterError: The judge cannot be made here.
    """
    reason = context.unavailable(judge)
    if reason is None:
        return
    if judge != DEFAULT_JUDGE:
        raise MedSPParameterError(
            f"task parameter judge={judge!r} is not accepted ({reason}): judge takes a model "
            "name provider/model of an installed provider with its key set"
        )
    raise MedSPParameterError(
        f"the default judge {judge} (it plays {', '.join(roles)}) cannot be made here: "
        f"{reason}; or choose another judge (-T judge=provider/model) or bind the roles "
        f"(--model-role {roles[0]}=provider/model)"
    )


def check_person(clinician: str, params: RunChoices, context: RunContext) -> None:
    """A person answers one turn at a time, on a screen, one case at a time.

    Raises:
        MedSPParameterError: A strategy or protocol a person cannot play, more than one
            variant (each case played again), samples that may run together, or a display
            that takes no input.
    """
    if params.strategy not in PERSON_STRATEGIES:
        raise MedSPParameterError(
            f"task parameter strategy={params.strategy} is not accepted with --model "
            f"{clinician}: a person gives one answer a turn; use strategy off or single"
        )
    if params.protocol != "turns":
        raise MedSPParameterError(
            f"task parameter protocol={params.protocol} is not accepted with --model "
            f"{clinician}: a person plays protocol=turns; drop -T protocol"
        )
    if params.variants is not None and len(params.variants) > 1:
        named = ",".join(params.variants)
        raise MedSPParameterError(
            f"task parameter variants={named} is not accepted with --model {clinician}: a "
            "person would play each case once per variant, the second time knowing it (as "
            f"--epochs is refused); give one variant (-T variants={params.variants[-1]}) or "
            "drop -T variants"
        )
    if display_type() == "none":
        raise MedSPParameterError(
            f"--model {clinician} needs a screen to answer on, and --display none shows "
            "nothing: run with --display full (or plain)"
        )
    check_person_run(clinician, params, context)
    concurrency = context.concurrency
    if concurrency is None:
        unchecked(
            f"--max-samples is not readable while this entry point loads a task: a second "
            f"case of --model {clinician} running together is stopped when it starts"
        )
    elif not concurrency.one_at_a_time:
        asked = (
            f"--max-samples {concurrency.max_samples}"
            if concurrency.max_samples is not None
            else "no --max-samples"
        )
        raise MedSPParameterError(
            f"--model {clinician} takes one case at a time and {asked} lets several run "
            "together: add --max-samples 1"
        )


def check_person_run(clinician: str, params: RunChoices, context: RunContext) -> None:
    """A person plays each case once, on their own time, and practice mode is graded.

    Raises:
        MedSPParameterError: ``--epochs`` above 1, a ``--time-limit``, or ``feedback=true``
            with ``--no-score``.
    """
    options = context.options
    if options is None:
        unchecked(
            f"--epochs, --time-limit and --no-score are not readable while this entry point "
            f"loads a task: they are not checked for --model {clinician}"
        )
        return
    if options.epochs is not None and options.epochs > 1:
        raise MedSPParameterError(
            f"--epochs {options.epochs} is not accepted with --model {clinician}: a person "
            "would play the same case again, knowing it; drop --epochs (each case once)"
        )
    if options.time_limit is not None:
        raise MedSPParameterError(
            f"--time-limit {options.time_limit} is not accepted with --model {clinician}: it "
            "counts the person's thinking time and would end the encounter while they think; "
            "drop it (--working-limit counts only the models' time)"
        )
    if params.feedback and not options.score:
        raise MedSPParameterError(
            f"task parameter feedback=true is not accepted with --no-score: practice mode "
            f"shows {clinician} the checklist after grading, and --no-score grades nothing; "
            "drop --no-score (or drop -T feedback for a study session)"
        )
