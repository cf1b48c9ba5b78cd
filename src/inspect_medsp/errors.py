"""The package's error types for bad input: a bad file, folder, id or parameter.

``inspect eval`` prints a ``PrerequisiteError``'s message alone, without a traceback; every
module takes that class from here.
"""

from inspect_medsp._inspect import PrerequisiteError

__all__ = ["MedSPDataError", "MedSPParameterError", "MedSPUnknownParameter", "PrerequisiteError"]


class MedSPDataError(PrerequisiteError):
    """Bad or missing benchmark input.

    The message is one line naming the file, folder or id at fault and the fix.
    Deriving from Inspect's prerequisite error makes ``inspect eval`` print the
    message alone instead of a traceback.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.args = (message,)

    def __str__(self) -> str:
        return str(self.message)


class MedSPParameterError(MedSPDataError, ValueError):
    """A task parameter (``-T name=value``) has a value the task cannot use.

    The message is one line naming the parameter, the value given and what is accepted.
    It is also a ``ValueError``, as Python code calling a task function would expect.
    """


class MedSPUnknownParameter(MedSPParameterError, TypeError):
    """A task was given a parameter (``-T name=value``) it does not take, and no other task
    of the run takes it.

    The message is one line naming the parameter and the closest one the task takes. It is
    also a ``TypeError``, as an unexpected keyword of a Python function is.
    """
