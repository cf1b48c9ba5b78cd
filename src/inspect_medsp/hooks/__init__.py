"""Inspect hooks of a MedSP run: the start-of-run check of the model roles (``roles.py``), the
count of its cases for a person's screen (``casecount.py``), and
the end-of-run lines on what could not be scored (``unscored.py``), what the run covered
(``coverage.py``) and a grader marking its own kind (``selfpref.py``).

Importing a module registers its hook, and this face imports them in the order they run.
``taskbuild/build.py`` imports this part when a MedSP task is built, not at entry-point load,
so evals of other packages' tasks neither run them nor show Inspect's "hooks enabled" banner;
nothing else imports this part.
"""

# isort: off
from inspect_medsp.hooks import roles, unscored, coverage, selfpref, casecount  # noqa: F401

# isort: on
from inspect_medsp.hooks.unscored import add_lines

__all__ = ["add_lines"]
