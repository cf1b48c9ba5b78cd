"""The error types a reader of the record raises: the package's own (``data/errors.py``), so
a bad file or parameter reads as one line, not a traceback."""

from inspect_medsp.data.errors import MedSPDataError, PrerequisiteError

__all__ = ["MedSPDataError", "PrerequisiteError"]
