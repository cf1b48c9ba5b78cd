"""The conventions every command of the package follows (``medsp-report`` and its subcommands,
``medsp-estimate``, ``medsp-specialties``, ``medsp-cases``): bad input is one line on stderr
naming what was wrong, and exit 2; a subcommand is a :class:`Command` its slice declares."""

from __future__ import annotations

import argparse
import difflib
import json
import tempfile
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, NoReturn

import yaml
from pydantic import BaseModel, ConfigDict

USAGE_ERROR = 2
"""The exit code of bad input (argparse's own)."""


class Parser(argparse.ArgumentParser):
    """argparse with a one-line error: ``prog: error: what (see prog --help)``, exit 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(USAGE_ERROR, f"{self.prog}: error: {message} (see {self.prog} --help)\n")

    def add_commands(self, commands: Sequence[Command]) -> None:
        """One subcommand (required) for each command, each running its own ``run``."""
        sub = self.add_subparsers(dest="command", metavar="COMMAND", required=True)
        for command in commands:
            one = sub.add_parser(command.name, help=command.help, description=command.description)
            command.arguments(one)
            one.set_defaults(run=command.run)


class Command(BaseModel):
    """One subcommand: its name, one line of help, its arguments and what runs it."""

    model_config = ConfigDict(frozen=True)

    name: str
    help: str
    description: str
    arguments: Callable[[argparse.ArgumentParser], None]
    """Adds the subcommand's arguments to its parser."""
    run: Callable[[argparse.Namespace], int]
    """Runs the parsed subcommand; returns the exit code."""


def closest(word: str, names: Sequence[str]) -> str | None:
    """The name ``word`` most likely misspells, if any is close."""
    found = difflib.get_close_matches(word, names, n=1, cutoff=0.6)
    return found[0] if found else None


def unknown_parameter(task: str, given: Iterable[str], names: Sequence[str]) -> str | None:
    """The one-line refusal of the first ``-T`` name in ``given`` that is no parameter of
    ``task`` (``names``), with the closest it has; None when every name is one. Inspect only
    warns of such a name and drops it: the run would go on, paid in full, at the default."""
    unknown = [name for name in given if name not in names]
    if not unknown:
        return None
    name = unknown[0]
    guess = closest(name, names)
    hint = f"did you mean -T {guess}=...?" if guess else f"{task} takes " + ", ".join(names)
    return f"task parameter {name} is not a parameter of {task}: {hint}"


def unwritable(folder: str) -> str | None:
    """Why nothing can be written to ``folder``, or None.

    A command checks its ``--out`` folder before it reads anything, so a folder that cannot be
    written is one line, not a traceback after the work is done. The check leaves nothing
    behind: folders it had to make to try are removed again (the command makes them when it
    writes), so a command refused later writes nothing.
    """
    path = Path(folder).expanduser()
    missing = [p for p in (path, *path.parents) if not p.exists()]
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as err:
        return f"cannot write there ({err.strerror or type(err).__name__})"
    finally:
        for made in missing:  # deepest first
            if made.is_dir():
                made.rmdir()
    return None


def parse_task_args(values: Iterable[str]) -> dict[str, Any]:
    """``-T name=value`` values as ``inspect eval`` reads them: each value as YAML, a plain
    string with commas as a list of strings, a ``-`` in a name as ``_``, and a value with no
    ``=`` ignored (Inspect's own parsing, which it exports from no public module)."""
    parsed: dict[str, Any] = {}
    for value in values:
        name, sep, raw = value.partition("=")
        if not sep:
            continue
        loaded = yaml.safe_load(raw)
        if isinstance(loaded, str):
            parts = loaded.split(",")
            loaded = parts if len(parts) > 1 else parts[0]
        parsed[name.replace("-", "_")] = loaded
    return parsed


def read_config_file(path: str) -> Any:
    """A config file as ``inspect eval --model-cost-config`` reads one: JSON when it starts
    with ``{``, else YAML.

    Raises:
        OSError: It cannot be read.
        ValueError: It is not JSON or YAML (``yaml.YAMLError`` carries the line).
    """
    text = Path(path).read_text(encoding="utf-8")
    return json.loads(text) if text.strip().startswith("{") else yaml.safe_load(text)
