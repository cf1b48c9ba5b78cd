# inspect-evals-lint: ignore-file[IECQ001] -- the one module allowed to import Inspect's
#   private names; each name carries its reason
"""Every name the package takes from Inspect's private modules (``inspect_ai._…``,
``inspect_ai.<public>._…``), each with the reason no public API serves.

Nothing else in the package imports a private Inspect module; when Inspect moves one of these,
importing this module fails at once, naming it, instead of a feature going quiet. The frames
and local variables of these functions are read in ``preflight/context.py`` alone, and
``tests/test_inspect_contract.py`` checks every name here and every local read there against
the installed Inspect.
"""

from __future__ import annotations

# ``inspect score`` as Inspect's command line runs it: its ``model_roles`` are the
# ``--model-role`` values given, which a MedSP scorer checks when it is made (a person bound to
# the grading role, a grader that cannot be made here) before anything is graded.
from inspect_ai._cli.score import score as score_cli

# The load summary prints through Inspect's own display, so it shows above the task display
# rather than being overwritten by it; Inspect exports neither the display nor whether one has
# been chosen yet (``inspect_ai.util.display_type`` chooses one when asked) from a public module.
from inspect_ai._display.core.active import display

# The function that runs an eval once its models are made: its ``max_samples``, generate
# settings (``kwargs``) and ``task_args`` are what the task being loaded will run with (a person
# takes one case at a time; an empty ``-T scenarios=`` arrives as None, like no value at all).
from inspect_ai._eval.eval import _eval_async_inner as eval_async_inner

# The function through which Inspect calls a task function it loads by name (``inspect eval
# inspect_medsp/medsp_demo``, ``eval("inspect_medsp/medsp_demo")``, ``eval(medsp_demo)``): only
# then is the active model the model the task is built for (see ``preflight/context.py``).
from inspect_ai._eval.registry import task_create

# The function that makes the scorers of ``inspect score``: its ``log`` is the log the scorer is
# made for, which the scorer checks (a log of another task, graders that cannot be made here).
from inspect_ai._eval.score import resolve_scorers

# Parse ``-T`` values and read a ``--model-cost-config`` file exactly as ``inspect eval`` does,
# for ``medsp-estimate``; Inspect has no public equivalent.
from inspect_ai._util.config import parse_cli_args, resolve_args

# ``inspect eval`` prints a PrerequisiteError's message alone, without a traceback: the package's
# error types derive from it (``errors.py``). Inspect exports it from no public module.
from inspect_ai._util.error import PrerequisiteError

# Inspect raises this when a sample is terminated (from the viewer or the control API); the
# encounter records a termination as cancelled, not as an error, and a person stopping the
# encounter (``medsp/human``) terminates the sample the same way. No public module exports it.
from inspect_ai._util.exception import TerminateSampleError

# The running sample (its id for the scripted demo's messages, its log file for the human
# clinician's debrief), every running sample (a person takes one case at a time), and marking a
# person's turn as waiting time rather than working time, as Inspect's own console questions do.
# No public module has these.
from inspect_ai.log._samples import active_samples, awaiting_human, sample_active

# The eval's generation settings (the task's config and ``inspect eval --temperature ...``),
# which Inspect applies only to the active model object: the clinician's calls go through a
# copy of it labelled with the ``clinician`` role, which must carry them too. No public
# accessor reads them.
from inspect_ai.model._generate_config import active_generate_config

# The model Inspect makes active before it loads a task for an eval; no public accessor reads it
# without falling back to ``INSPECT_EVAL_MODEL`` (and creating that model). And the model roles
# it binds before it loads the task (``--model-role``), which no public accessor lists.
from inspect_ai.model._model import active_model, model_roles

# Whether Inspect has chosen a display yet (see ``display`` above).
from inspect_ai.util._display import display_type_initialized

__all__ = [
    "PrerequisiteError",
    "TerminateSampleError",
    "active_generate_config",
    "active_model",
    "active_samples",
    "awaiting_human",
    "display",
    "display_type_initialized",
    "eval_async_inner",
    "model_roles",
    "parse_cli_args",
    "resolve_args",
    "resolve_scorers",
    "sample_active",
    "score_cli",
    "task_create",
]
