"""What a measurement over the record declares about itself, in its own slice.

A :class:`Capability` names its scorer, the result it stores, its score columns in ``inspect
view`` (labels, colour scales, which are headlines), the label of a re-score's columns, its
report sections, its line at the end of a run and the ``-T`` switch that runs it in the eval
(a :class:`Switch`: its name, default, help and what it accepts). The registry
(``inspect_medsp.measures``) lists every capability once; the viewer configuration, the
end-of-run hooks, ``analysis.MedspColumns``, the log-schema test, the report, the tasks'
``-T`` parameters and ``medsp-estimate`` read it, and none of them names a scorer.

The descriptor names no type of the report (the report stands above this seam): its sections
and what its leaderboard marks read are the protocols :class:`ReportSection` and
:class:`ReportAnalysis`, which ``report.Section`` and ``report.Analysis`` implement.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

from inspect_ai.log import EvalLog
from inspect_ai.model import Model
from inspect_ai.scorer import Scorer
from pydantic import TypeAdapter, ValidationError

from inspect_medsp.commandline import Command
from inspect_medsp.preflight import RunContext
from inspect_medsp.record import ScorerResult

Palette = Literal["good-high", "good-low"]
"""Which way a column's colour reads: a higher value is better (``good-high``) or worse."""


class ReportSection(Protocol):
    """A section of ``medsp-report`` as a capability declares it (``report.Section``
    implements it; ``full_report.py`` registers it, and refuses anything else)."""

    @property
    def name(self) -> str:
        """The section's name (``run.digests[name]``, ``Analysis.read_by``)."""
        ...

    @property
    def reads(self) -> Callable[[str], bool]:
        """Whether it reads the log at this path, one that is not a MedSP run."""
        ...


class LeaderboardRow(Protocol):
    """One leaderboard row as a capability's marks read it (``report.GroupSummary``)."""

    @property
    def label(self) -> str:
        """The group's label: the key of its mark."""
        ...

    @property
    def clinician(self) -> str:
        """The clinician model of the group."""
        ...


class ReportAnalysis(Protocol):
    """What a capability's leaderboard marks read of the report's analysis
    (``report.Analysis`` implements it)."""

    @property
    def groups(self) -> Sequence[LeaderboardRow]:
        """The leaderboard's rows, in order."""
        ...

    @property
    def read_by(self) -> Mapping[str, str]:
        """The inputs that are not MedSP runs but a section reads (path: section name)."""
        ...


@dataclass(frozen=True)
class Column:
    """One value key of a capability's score as ``inspect view`` shows it.

    Args:
        key: The key in the score's value.
        label: The column's label.
        palette: Its colour scale's direction (None: not coloured).
        low: The colour scale's lowest value (None: Inspect's own).
        high: The colour scale's highest value (None: Inspect's own).
        unit: The value's unit (None: a label of its own). With a unit the grid's column is
            headed ``<key> (<unit>)``: the name the sample's header shows for the score
            (Inspect's header shows the value key), with what the number counts.
    """

    key: str
    label: str
    palette: Palette | None = None
    low: float | None = None
    high: float | None = None
    unit: str | None = None

    @property
    def heading(self) -> str:
        """The grid's heading of the column: ``<key> (<unit>)``, the key alone when the unit is
        its own name (``orders``), else the label."""
        if self.unit == self.key:
            return self.key
        return f"{self.key} ({self.unit})" if self.unit else self.label


_ON_OFF: TypeAdapter[bool] = TypeAdapter(bool)
"""What a switch's value may be: pydantic's booleans (``true``/``false``, ``1``/``0``,
``yes``/``no``, ``on``/``off``), as ``-T`` and YAML give them."""


@dataclass(frozen=True)
class Switch:
    """The ``-T`` parameter that runs a capability's scorer in the eval (``-T audit=true``):
    declared in the capability's slice, taken by every MedSP task and ``medsp-estimate``.

    Args:
        name: The ``-T`` name (``audit``); it must not be a task parameter's.
        default: Whether the scorer runs when the switch is not given.
        help: What it does, for the tasks' docstrings (``inspect info``).
        accepts: What it takes, as its error line says it (``true or false (...)``).
    """

    name: str
    default: bool
    help: str
    accepts: str = "true or false"

    def refusal(self, value: object) -> str | None:
        """The one line refusing ``value`` (naming the parameter, the value and what it
        takes), or None when it is accepted."""
        if isinstance(value, bool):
            return None
        try:
            _ON_OFF.validate_python(value)
        except ValidationError:
            shown = " ".join(repr(value).split())
            shown = shown if len(shown) <= 80 else shown[:77] + "..."
            return (
                f"task parameter {self.name}={shown} is not accepted: {self.name} takes "
                f"{self.accepts}"
            )
        return None

    def value(self, given: Mapping[str, object]) -> bool:
        """Its value in ``given`` (the task's ``-T`` values), its default when not given.

        Raises:
            ValueError: A value :meth:`refusal` refuses (check it first).
        """
        if self.name not in given:
            return self.default
        return _ON_OFF.validate_python(given[self.name])


@dataclass(frozen=True)
class Capability:
    """One measurement over the record, as the rest of the package sees it.

    Args:
        name: The scorer's name: its key in ``sample.scores``, ``--scorer
            inspect_medsp/<name>`` and the ``medsp_<name>_<key>`` columns of ``MedspColumns``.
        scorer: The scorer factory (registered with Inspect under ``name``).
        columns: Every figure the score can hold (its metadata's ``figures``), in order, with
            its label and colour scale.
        headlines: The figures its score's value holds, in order: the samples grid's columns
            (Inspect 0.3.285's viewer shows every value key; see ``measure/viewer.py``).
        result: The typed result its score's metadata holds (``MedspSample.result(Kind)``);
            None for the rubric, whose score ``record.score`` describes.
        rescore: The label of a re-score's columns (``Re-audit`` → "Re-audit 1: ...");
            empty when a re-score keeps the first score's keys (not numbered).
        sections: Its sections of ``medsp-report`` (``report.Section``), in the order
            ``report.md`` shows them where the registry places them.
        end_of_run: Its line at the end of a run for a log (None: nothing to say).
        commands: Its subcommands of ``medsp-report`` (``commandline.Command``).
        switch: The ``-T`` parameter that runs it in the eval (:class:`Switch`), if any: its
            name, default, help and what it accepts, declared here, so the tasks and
            ``medsp-estimate`` take it with no edit of ``params.py``.
        in_eval: Its scorer as the eval runs it under the switch, made from the run's judge
            and whether the response cache is on (None: ``scorer()``, its defaults).
        eval_roles: The model roles it binds in the eval under the switch, from the roles
            the task binds already and the load's run context (``auditor``: the run's
            grader).
        cached_roles: The roles whose calls its in-eval scorer puts in Inspect's response
            cache under ``-T cache=true`` (said at load; ``auditor``).
        leaderboard_marks: A short mark after the clinician of some leaderboard rows of
            ``medsp-report``, from the report's analysis (group label → mark), if any.
    """

    name: str
    scorer: Callable[..., Scorer]
    columns: tuple[Column, ...]
    headlines: tuple[str, ...] = ()
    result: type[ScorerResult] | None = None
    rescore: str = ""
    sections: Sequence[ReportSection] = ()
    end_of_run: Callable[[EvalLog], str | None] | None = None
    commands: Sequence[Command] = ()
    switch: Switch | None = None
    in_eval: Callable[[str, bool], Scorer] | None = field(default=None, compare=False)
    eval_roles: Callable[[dict[str, Model], RunContext], dict[str, Model]] | None = field(
        default=None, compare=False
    )
    cached_roles: tuple[str, ...] = ()
    leaderboard_marks: Callable[[ReportAnalysis], Mapping[str, str]] | None = field(
        default=None, compare=False
    )

    def switched_on(self, switches: Mapping[str, bool]) -> bool:
        """Whether the eval runs this capability: its ``-T`` switch is on in ``switches`` (the
        checked values, ``TaskParameters.switches``), or on by default when not there."""
        if self.switch is None:
            return False
        return switches.get(self.switch.name, self.switch.default)

    @property
    def keys(self) -> tuple[str, ...]:
        """Every value key, in order."""
        return tuple(c.key for c in self.columns)

    def label(self, key: str) -> str:
        """The label of value key ``key``."""
        return next(c.label for c in self.columns if c.key == key)
