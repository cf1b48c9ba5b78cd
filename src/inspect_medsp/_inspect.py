# inspect-evals-lint: ignore-file[IECQ001] -- the one module allowed to import Inspect's
#   private names; each name carries its reason
"""Every name the package takes from Inspect's private modules (``inspect_ai._…``,
``inspect_ai.<public>._…``), each with the reason no public API serves.

Nothing else in the package imports a private Inspect module. Each name is imported guarded
(:func:`_private`): when an Inspect release moves one, this module still imports, the name
takes its fallback (a check that cannot run, a feature that does without) and :data:`MOVED`
says what degrades; the task load warns of it in one line (``preflight.context``), never an
ImportError and never a silent pass. The ``TYPE_CHECKING`` imports give the type checker the
real types and are the list ``tests/test_inspect_contract.py`` checks against the installed
Inspect (with every frame local ``preflight/context.py`` reads) and against the runtime
imports here.

What has a public equivalent uses it instead: the model under test (``get_model()`` while
Inspect loads a task), the model roles (``inspect_ai.model.model_roles()``), the ``-T`` values
(a task declaring ``**kwargs`` receives every one, an explicit ``None`` telling "given empty"
from "not given"), ``-T``/config-file parsing (``commandline.py``), and a person's samples
that run together (the provider counts its own).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, TypeVar

from inspect_ai.model import GenerateConfig

T = TypeVar("T")

CHECKED_RELEASES = ("0.3.278", "0.3.285")
"""The oldest and newest Inspect releases the contract (``tests/test_inspect_contract.py``,
the demo, the refusals) was checked on; ``pyproject.toml`` requires the oldest."""

MOVED: dict[str, str] = {}
"""Each private name the installed Inspect does not have (``module.name``), with what
degrades without it."""


def _moved(name: str, degrades: str, fallback: T) -> T:
    """Record that the installed Inspect has no ``name`` (``module.name``) and what
    ``degrades`` without it; returns the ``fallback`` that stands in for it."""
    MOVED[name] = degrades
    return fallback


class _PrerequisiteFallback(Exception):
    """Stands in for Inspect's PrerequisiteError when a release moves it."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class _TerminateFallback(Exception):
    """Stands in for Inspect's TerminateSampleError when a release moves it."""


@contextmanager
def _no_wait(*_: object) -> Iterator[None]:
    yield


if TYPE_CHECKING:
    from inspect_ai._cli.score import score as score_cli
    from inspect_ai._display.core.active import display
    from inspect_ai._eval.eval import _eval_async_inner as eval_async_inner
    from inspect_ai._eval.loader import load_tasks
    from inspect_ai._eval.registry import task_create
    from inspect_ai._eval.score import resolve_scorers
    from inspect_ai._util.error import PrerequisiteError
    from inspect_ai._util.exception import TerminateSampleError
    from inspect_ai._util.registry import registry_lookup
    from inspect_ai.log._samples import active_samples, awaiting_human, sample_active
    from inspect_ai.model._generate_config import active_generate_config
    from inspect_ai.util._display import display_type_initialized
else:
    # ``inspect eval`` prints a PrerequisiteError's message alone, without a traceback: the
    # package's error types derive from it (``errors.py``). Inspect exports it from no public
    # module. Moved: the refusals are still raised, as plain exceptions (with a traceback).
    try:
        from inspect_ai._util.error import PrerequisiteError
    except ImportError:
        PrerequisiteError = _moved(
            "inspect_ai._util.error.PrerequisiteError",
            "a refusal is printed with a traceback instead of one line",
            _PrerequisiteFallback,
        )

    # Inspect raises this when a sample is terminated (from the viewer or the control API);
    # the encounter records a termination as cancelled, not as an error, and a person
    # stopping the encounter (``medsp/human``) terminates the sample the same way. No public
    # module exports it. Moved: a person's stop is recorded as a sample error.
    try:
        from inspect_ai._util.exception import TerminateSampleError
    except ImportError:
        TerminateSampleError = _moved(
            "inspect_ai._util.exception.TerminateSampleError",
            "a person's stop and a terminated sample are recorded as errors, not cancellations",
            _TerminateFallback,
        )

    # The function through which Inspect calls a task function it loads by name (``inspect
    # eval inspect_medsp/medsp_demo``, ``eval("inspect_medsp/medsp_demo")``,
    # ``eval(medsp_demo)``, and the same under ``eval_set``): only then is the active model
    # the model the task is built for. Inspect says nowhere public that it is loading a task.
    try:
        from inspect_ai._eval.registry import task_create
    except ImportError:
        task_create = _moved(
            "inspect_ai._eval.registry.task_create",
            "the load-time checks of the model under test and the run (a person's --epochs, "
            "--time-limit, --max-samples; the judge's key; the scripted provider) do not run",
            None,
        )

    # The function that runs an eval (``inspect eval``, ``eval()``) once its models are made:
    # its ``max_samples``, generate settings (``kwargs``), ``epochs``, ``time_limit`` and
    # ``score`` are what the task being loaded will run with. (``eval_set`` is public and read
    # the same way.) No public accessor reads these while a task loads.
    try:
        from inspect_ai._eval.eval import _eval_async_inner as eval_async_inner
    except ImportError:
        eval_async_inner = _moved(
            "inspect_ai._eval.eval._eval_async_inner",
            "under inspect eval, a person's --epochs, --time-limit, --no-score and --max-samples "
            "are not checked at load",
            None,
        )

    # The function that loads the tasks named for a run: its ``task_specs`` are every task of
    # the run, so a ``-T`` that another task of the run takes is left to it (and to Inspect).
    try:
        from inspect_ai._eval.loader import load_tasks
    except ImportError:
        load_tasks = _moved(
            "inspect_ai._eval.loader.load_tasks",
            "in a run of several tasks, a -T that is no MedSP parameter is left to Inspect's "
            "warning unless it is a near-miss of one",
            None,
        )

    # Find the task function of a registered task name (another task of the run), to read
    # which parameters it takes; ``inspect_ai.util.registry_info`` only reads an object
    # already in hand.
    try:
        from inspect_ai._util.registry import registry_lookup
    except ImportError:
        registry_lookup = _moved(
            "inspect_ai._util.registry.registry_lookup",
            "the parameters of another package's task in the run are read from its file only",
            None,
        )

    # The function that makes the scorers of ``inspect score``: its ``log`` is the log the
    # scorer is made for, which the scorer checks (a log of another task, graders that cannot
    # be made here).
    try:
        from inspect_ai._eval.score import resolve_scorers
    except ImportError:
        resolve_scorers = _moved(
            "inspect_ai._eval.score.resolve_scorers",
            "inspect score does not check the log a MedSP scorer is made for",
            None,
        )

    # ``inspect score`` as Inspect's command line runs it: its ``model_roles`` are the
    # ``--model-role`` values given, which a MedSP scorer checks when it is made.
    try:
        from inspect_ai._cli.score import score as score_cli
    except ImportError:
        score_cli = _moved(
            "inspect_ai._cli.score.score",
            "inspect score does not check its --model-role values when a MedSP scorer is made",
            None,
        )

    # The load summary prints through Inspect's own display, so it shows above the task
    # display rather than being overwritten by it; Inspect exports neither the display nor
    # whether one has been chosen yet (``inspect_ai.util.display_type`` chooses one when
    # asked) from a public module. Moved: the summary goes to the log only.
    try:
        from inspect_ai._display.core.active import display
    except ImportError:
        display = _moved(
            "inspect_ai._display.core.active.display",
            "the load summary is logged, not printed above the task display",
            lambda: None,
        )
    try:
        from inspect_ai.util._display import display_type_initialized
    except ImportError:
        display_type_initialized = _moved(
            "inspect_ai.util._display.display_type_initialized",
            "the load summary is logged, not printed above the task display",
            lambda: False,
        )

    # The running sample (its id for the scripted demo's messages, its log file for the human
    # clinician's debrief) and marking a person's turn as waiting time rather than working
    # time, as Inspect's own console questions do; every running sample, for a person's
    # screen. No public module has these.
    try:
        from inspect_ai.log._samples import sample_active
    except ImportError:
        sample_active = _moved(
            "inspect_ai.log._samples.sample_active",
            "a person's screen does not show 'case N of M' nor offer the debrief",
            lambda: None,
        )
    try:
        from inspect_ai.log._samples import active_samples
    except ImportError:
        active_samples = _moved(
            "inspect_ai.log._samples.active_samples",
            "a person's samples running together are counted by the provider alone",
            list,
        )
    try:
        from inspect_ai.log._samples import awaiting_human
    except ImportError:
        awaiting_human = _moved(
            "inspect_ai.log._samples.awaiting_human",
            "a person's thinking time counts as working time (--working-limit)",
            _no_wait,
        )

    # The eval's generation settings (the task's config and ``inspect eval --temperature
    # ...``), which Inspect applies only to the active model object: the clinician's calls go
    # through a copy of it labelled with the ``clinician`` role, which must carry them too.
    # No public accessor reads them.
    try:
        from inspect_ai.model._generate_config import active_generate_config
    except ImportError:
        active_generate_config = _moved(
            "inspect_ai.model._generate_config.active_generate_config",
            "the clinician's calls do not carry the eval's generation settings (--temperature ...)",
            GenerateConfig,
        )


ZSTD_ZIPFILE = "inspect_ai._util.zipfile"
"""The private module whose import teaches ``zipfile`` the zstd compression Inspect writes
``.eval`` logs with (no public module does it); a lean read of a log opens the zip itself."""


def zstd_zipfile() -> bool:
    """Import :data:`ZSTD_ZIPFILE`; False (and recorded in :data:`MOVED`) when a release
    moved it: the caller then reads the log through Inspect's public reader."""
    try:
        import inspect_ai._util.zipfile  # noqa: F401
    except ImportError:
        _moved(ZSTD_ZIPFILE, "a lean read of a log reads it through Inspect's full reader", 0)
        return False
    return True


__all__ = [
    "CHECKED_RELEASES",
    "MOVED",
    "ZSTD_ZIPFILE",
    "PrerequisiteError",
    "TerminateSampleError",
    "active_generate_config",
    "active_samples",
    "awaiting_human",
    "display",
    "display_type_initialized",
    "eval_async_inner",
    "load_tasks",
    "registry_lookup",
    "resolve_scorers",
    "sample_active",
    "score_cli",
    "task_create",
    "zstd_zipfile",
]
