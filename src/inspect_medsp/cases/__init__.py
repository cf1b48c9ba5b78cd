"""Your own cases: the case format, ``medsp-cases`` (new, check, demo, draft) and the loader
of a custom set for ``inspect_medsp/medsp_custom``.

A case is one folder: ``case.yaml`` (the facts), four packet folders (``examinee/``,
``patient/``, ``environment/``, ``evaluator/``) and ``rubric.yaml``; ``docs/case-format.md``
describes it for the clinicians who write cases.
"""

from inspect_medsp.cases.load import load_custom
from inspect_medsp.cases.privacy import refusal, set_findings

__all__ = ["load_custom", "refusal", "set_findings"]
